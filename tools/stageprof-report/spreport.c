/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spreport: the profile model: rows, profiles, sorting. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "spreport.h"

/* The offsets of each row struct's fields, in schema order. */
#define SP_ELEM_OFFSET(key, t, h, d, f) G_STRUCT_OFFSET (SpElemRow, key),
#define SP_QUEUE_OFFSET(key, t, h, d, f) G_STRUCT_OFFSET (SpQueueRow, key),
#define SP_THREAD_OFFSET(key, t, h, d, f) G_STRUCT_OFFSET (SpThreadRow, key),
#define SP_SINK_OFFSET(key, t, h, d, f) G_STRUCT_OFFSET (SpSinkRow, key),
static const gsize elem_offsets[] = { SP_ELEMENTS_COLUMNS (SP_ELEM_OFFSET) };
static const gsize queue_offsets[] = { SP_QUEUES_COLUMNS (SP_QUEUE_OFFSET) };
static const gsize thread_offsets[] = { SP_THREADS_COLUMNS (SP_THREAD_OFFSET) };
static const gsize sink_offsets[] = { SP_SINKS_COLUMNS (SP_SINK_OFFSET) };
#define SP_LAT_OFFSET(key, t, h, d, f) G_STRUCT_OFFSET (SpLatencyRow, key),
#define SP_ELAT_OFFSET(key, t, h, d, f) \
  G_STRUCT_OFFSET (SpElemLatencyRow, key),
static const gsize latency_offsets[] = { SP_LATENCY_COLUMNS (SP_LAT_OFFSET) };
static const gsize elem_latency_offsets[] = {
  SP_ELEMENT_LATENCY_COLUMNS (SP_ELAT_OFFSET)
};

#define SP_WIN_OFFSET(key, t, h, d, f) G_STRUCT_OFFSET (SpWindowRow, key),
#define SP_WELEM_OFFSET(key, t, h, d, f) G_STRUCT_OFFSET (SpWinElemRow, key),
#define SP_WPAD_OFFSET(key, t, h, d, f) G_STRUCT_OFFSET (SpWinPadRow, key),
#define SP_WQUEUE_OFFSET(key, t, h, d, f) G_STRUCT_OFFSET (SpWinQueueRow, key),
#define SP_WTHREAD_OFFSET(key, t, h, d, f) \
  G_STRUCT_OFFSET (SpWinThreadRow, key),
static const gsize window_offsets[] = { SP_WINDOWS_COLUMNS (SP_WIN_OFFSET) };
static const gsize win_elem_offsets[] = {
  SP_WINDOW_ELEMENTS_COLUMNS (SP_WELEM_OFFSET)
};
static const gsize win_pad_offsets[] = {
  SP_WINDOW_PADS_COLUMNS (SP_WPAD_OFFSET)
};
static const gsize win_queue_offsets[] = {
  SP_WINDOW_QUEUES_COLUMNS (SP_WQUEUE_OFFSET)
};
static const gsize win_thread_offsets[] = {
  SP_WINDOW_THREADS_COLUMNS (SP_WTHREAD_OFFSET)
};
#define SP_WLAT_OFFSET(key, t, h, d, f) \
  G_STRUCT_OFFSET (SpWinLatencyRow, key),
#define SP_WHIST_OFFSET(key, t, h, d, f) \
  G_STRUCT_OFFSET (SpWinLatencyHistRow, key),
static const gsize win_latency_offsets[] = {
  SP_WINDOW_LATENCY_COLUMNS (SP_WLAT_OFFSET)
};
static const gsize win_latency_hist_offsets[] = {
  SP_WINDOW_LATENCY_HIST_COLUMNS (SP_WHIST_OFFSET)
};

const SpRowKind sp_win_latency_kind = { &sp_schema_window_latency,
  sizeof (SpWinLatencyRow), win_latency_offsets
};
const SpRowKind sp_win_latency_hist_kind = { &sp_schema_window_latency_hist,
  sizeof (SpWinLatencyHistRow), win_latency_hist_offsets
};
const SpRowKind sp_window_kind = { &sp_schema_windows, sizeof (SpWindowRow),
  window_offsets
};
const SpRowKind sp_win_elem_kind = { &sp_schema_window_elements,
  sizeof (SpWinElemRow), win_elem_offsets
};
const SpRowKind sp_win_pad_kind = { &sp_schema_window_pads,
  sizeof (SpWinPadRow), win_pad_offsets
};
const SpRowKind sp_win_queue_kind = { &sp_schema_window_queues,
  sizeof (SpWinQueueRow), win_queue_offsets
};
const SpRowKind sp_win_thread_kind = { &sp_schema_window_threads,
  sizeof (SpWinThreadRow), win_thread_offsets
};

const SpRowKind sp_elem_kind = { &sp_schema_elements, sizeof (SpElemRow),
  elem_offsets
};
const SpRowKind sp_queue_kind = { &sp_schema_queues, sizeof (SpQueueRow),
  queue_offsets
};
const SpRowKind sp_thread_kind = { &sp_schema_threads, sizeof (SpThreadRow),
  thread_offsets
};
const SpRowKind sp_sink_kind = { &sp_schema_sinks, sizeof (SpSinkRow),
  sink_offsets
};
const SpRowKind sp_latency_kind = { &sp_schema_latency,
  sizeof (SpLatencyRow), latency_offsets
};
const SpRowKind sp_elem_latency_kind = { &sp_schema_element_latency,
  sizeof (SpElemLatencyRow), elem_latency_offsets
};

static gboolean
is_text (const SpColumn * c)
{
  return c->type == SP_COL_TEXT || c->type == SP_COL_ID;
}

gpointer
sp_row_new (const SpRowKind * k)
{
  gpointer row = g_malloc0 (k->size);

  for (guint c = 0; c < k->schema->n_cols; c++)
    if (!is_text (&k->schema->cols[c]))
      sp_row_set_num (k, row, c, NAN);
  return row;
}

void
sp_row_free (const SpRowKind * k, gpointer row)
{
  for (guint c = 0; c < k->schema->n_cols; c++)
    if (is_text (&k->schema->cols[c]))
      g_free (*(gchar **) ((guint8 *) row + k->offsets[c]));
  if (k == &sp_queue_kind && ((SpQueueRow *) row)->series)
    g_array_free (((SpQueueRow *) row)->series, TRUE);
  g_free (row);
}

gdouble
sp_row_num (const SpRowKind * k, gconstpointer row, guint c)
{
  g_return_val_if_fail (!is_text (&k->schema->cols[c]), NAN);
  return *(const gdouble *) ((const guint8 *) row + k->offsets[c]);
}

const gchar *
sp_row_text (const SpRowKind * k, gconstpointer row, guint c)
{
  g_return_val_if_fail (is_text (&k->schema->cols[c]), NULL);
  return *(gchar * const *) ((const guint8 *) row + k->offsets[c]);
}

void
sp_row_set_num (const SpRowKind * k, gpointer row, guint c, gdouble v)
{
  g_return_if_fail (!is_text (&k->schema->cols[c]));
  *(gdouble *) ((guint8 *) row + k->offsets[c]) = v;
}

void
sp_row_take_text (const SpRowKind * k, gpointer row, guint c, gchar * v)
{
  gchar **field = (gchar **) ((guint8 *) row + k->offsets[c]);

  g_return_if_fail (is_text (&k->schema->cols[c]));
  g_free (*field);
  *field = v;
}

static void
elem_free (gpointer p)
{
  sp_row_free (&sp_elem_kind, p);
}

static void
queue_free (gpointer p)
{
  sp_row_free (&sp_queue_kind, p);
}

static void
thread_free (gpointer p)
{
  sp_row_free (&sp_thread_kind, p);
}

static void
sink_free (gpointer p)
{
  sp_row_free (&sp_sink_kind, p);
}

static void
latency_free (gpointer p)
{
  sp_row_free (&sp_latency_kind, p);
}

static void
elem_latency_free (gpointer p)
{
  sp_row_free (&sp_elem_latency_kind, p);
}

#define SP_ROW_FREE_FUNC(fn, kind) \
  static void fn (gpointer p) { sp_row_free (&kind, p); }
SP_ROW_FREE_FUNC (window_free, sp_window_kind)
SP_ROW_FREE_FUNC (win_elem_free, sp_win_elem_kind)
SP_ROW_FREE_FUNC (win_pad_free, sp_win_pad_kind)
SP_ROW_FREE_FUNC (win_queue_free, sp_win_queue_kind)
SP_ROW_FREE_FUNC (win_thread_free, sp_win_thread_kind)
SP_ROW_FREE_FUNC (win_latency_free, sp_win_latency_kind)
SP_ROW_FREE_FUNC (win_latency_hist_free, sp_win_latency_hist_kind)

static void
link_free (gpointer p)
{
  SpLink *l = p;

  g_free (l->pipeline);
  g_free (l->src);
  g_free (l->src_pad);
  g_free (l->sink);
  g_free (l->sink_pad);
  g_free (l);
}

SpProfile *
sp_profile_new (const gchar * path, SpSourceKind kind)
{
  SpProfile *p = g_new0 (SpProfile, 1);

  p->path = g_strdup (path);
  p->kind = kind;
  p->wall_s = NAN;
  p->elements = g_ptr_array_new_with_free_func (elem_free);
  p->queues = g_ptr_array_new_with_free_func (queue_free);
  p->threads = g_ptr_array_new_with_free_func (thread_free);
  p->sinks = g_ptr_array_new_with_free_func (sink_free);
  p->latency = g_ptr_array_new_with_free_func (latency_free);
  p->element_latency = g_ptr_array_new_with_free_func (elem_latency_free);
  p->links = g_ptr_array_new_with_free_func (link_free);
  p->windows = g_ptr_array_new_with_free_func (window_free);
  p->window_elements = g_ptr_array_new_with_free_func (win_elem_free);
  p->window_pads = g_ptr_array_new_with_free_func (win_pad_free);
  p->window_queues = g_ptr_array_new_with_free_func (win_queue_free);
  p->window_threads = g_ptr_array_new_with_free_func (win_thread_free);
  p->window_latency = g_ptr_array_new_with_free_func (win_latency_free);
  p->window_latency_hist =
      g_ptr_array_new_with_free_func (win_latency_hist_free);
  p->notes = g_ptr_array_new_with_free_func (g_free);
  return p;
}

void
sp_profile_free (SpProfile * p)
{
  if (!p)
    return;
  g_free (p->path);
  g_free (p->verdict);
  g_ptr_array_free (p->elements, TRUE);
  g_ptr_array_free (p->queues, TRUE);
  g_ptr_array_free (p->threads, TRUE);
  g_ptr_array_free (p->sinks, TRUE);
  g_ptr_array_free (p->latency, TRUE);
  g_ptr_array_free (p->element_latency, TRUE);
  g_ptr_array_free (p->links, TRUE);
  g_ptr_array_free (p->windows, TRUE);
  g_ptr_array_free (p->window_elements, TRUE);
  g_ptr_array_free (p->window_pads, TRUE);
  g_ptr_array_free (p->window_queues, TRUE);
  g_ptr_array_free (p->window_threads, TRUE);
  g_ptr_array_free (p->window_latency, TRUE);
  g_ptr_array_free (p->window_latency_hist, TRUE);
  g_ptr_array_free (p->notes, TRUE);
  g_free (p);
}

const SpWindowRow *
sp_profile_window (const SpProfile * p, const gchar * pipeline,
    const gchar * run, gdouble w)
{
  for (guint i = 0; i < p->windows->len; i++) {
    const SpWindowRow *r = p->windows->pdata[i];
    if (r->window == w && g_strcmp0 (r->pipeline, pipeline) == 0
        && g_strcmp0 (r->run, run) == 0)
      return r;
  }
  return NULL;
}

gdouble
sp_window_run_start (const SpProfile * p, const gchar * pipeline,
    const gchar * run)
{
  gdouble t = NAN;

  for (guint i = 0; i < p->windows->len; i++) {
    const SpWindowRow *r = p->windows->pdata[i];
    if (g_strcmp0 (r->pipeline, pipeline) == 0 && g_strcmp0 (r->run, run) == 0
        && (isnan (t) || r->start_s < t))
      t = r->start_s;
  }
  return t;
}

void
sp_profile_note (SpProfile * p, const gchar * fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  g_ptr_array_add (p->notes, g_strdup_vprintf (fmt, ap));
  va_end (ap);
}

gchar *
sp_profile_pipelines (const SpProfile * p)
{
  GPtrArray *names = g_ptr_array_new ();
  GString *s = g_string_new (NULL);
  guint i, j;

  for (i = 0; i < p->elements->len; i++) {
    const gchar *n = ((SpElemRow *) p->elements->pdata[i])->pipeline;
    if (!n)
      continue;
    for (j = 0; j < names->len && strcmp (names->pdata[j], n); j++);
    if (j == names->len)
      g_ptr_array_add (names, (gpointer) n);
  }
  for (i = 0; i < names->len; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "",
        (gchar *) names->pdata[i]);
  g_ptr_array_free (names, TRUE);
  return g_string_free (s, FALSE);
}

/* ---- sorting --------------------------------------------------------- */

static const struct
{
  const gchar *name;
  SpSortKey key;
} sort_names[] = {
  {"total", SP_SORT_TOTAL}, {"mean", SP_SORT_MEAN},
  {"median", SP_SORT_MEDIAN}, {"p90", SP_SORT_P90}, {"p99", SP_SORT_P99},
  {"max", SP_SORT_MAX}, {"count", SP_SORT_COUNT}, {"name", SP_SORT_NAME},
};

gboolean
sp_sort_key_parse (const gchar * s, SpSortKey * key)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sort_names); i++)
    if (g_ascii_strcasecmp (s, sort_names[i].name) == 0) {
      *key = sort_names[i].key;
      return TRUE;
    }
  return FALSE;
}

static gdouble
sort_value (const SpElemRow * r, SpSortKey key)
{
  gdouble v;

  switch (key) {
    case SP_SORT_MEAN:
      v = r->mean_ms;
      break;
    case SP_SORT_MEDIAN:
      v = r->median_ms;
      break;
    case SP_SORT_P90:
      v = r->p90_ms;
      break;
    case SP_SORT_P99:
      v = r->p99_ms;
      break;
    case SP_SORT_MAX:
      v = r->max_ms;
      break;
    case SP_SORT_COUNT:
      v = r->count;
      break;
    default:
      v = r->total_s;
      break;
  }
  return isnan (v) ? -1 : v;
}

static gint
cmp_elem (gconstpointer a, gconstpointer b, gpointer data)
{
  const SpElemRow *x = *(SpElemRow **) a, *y = *(SpElemRow **) b;
  SpSortKey key = GPOINTER_TO_INT (data);
  gdouble vx, vy;

  if (key == SP_SORT_NAME)
    return g_strcmp0 (x->name, y->name);
  vx = sort_value (x, key);
  vy = sort_value (y, key);
  if (vx != vy)
    return vx < vy ? 1 : -1;
  return g_strcmp0 (x->name, y->name);
}

void
sp_profile_sort (SpProfile * p, SpSortKey key)
{
  g_ptr_array_sort_with_data (p->elements, cmp_elem, GINT_TO_POINTER (key));
}

/* ---- verdict for inputs without one (traces) ------------------------- */

gchar *
sp_profile_guess_verdict (const SpProfile * p)
{
  const SpThreadRow *best = NULL;
  const SpElemRow *top = NULL;
  gdouble longest = 0;
  guint i;

  for (i = 0; i < p->threads->len; i++) {
    const SpThreadRow *t = p->threads->pdata[i];
    if (!isnan (t->wall_s))
      longest = MAX (longest, t->wall_s);
  }
  /* The busiest thread among those that lived through most of the run. */
  for (i = 0; i < p->threads->len; i++) {
    const SpThreadRow *t = p->threads->pdata[i];
    if (!isnan (t->wall_s) && t->wall_s < 0.5 * longest)
      continue;
    if (!best || t->busy_pct > best->busy_pct)
      best = t;
  }
  if (!best)
    return g_strdup ("no thread recorded");
  for (i = 0; i < p->elements->len; i++) {
    const SpElemRow *e = p->elements->pdata[i];
    if (g_strcmp0 (e->thread, best->name) == 0
        && g_strcmp0 (e->pipeline, best->pipeline) == 0
        && (!top || e->total_s > top->total_s))
      top = e;
  }
  if (best->busy_pct < 50)
    return g_strdup_printf ("no thread is busy most of the time (busiest: %s "
        "at %.0f%%): the pipeline waits on something outside it (a clock, "
        "a live source, I/O)", best->name, best->busy_pct);
  if (!top)
    return g_strdup_printf ("thread %s busy %.0f%%", best->name,
        best->busy_pct);
  return g_strdup_printf ("bound by %s on thread %s busy %.0f%% (%s: %.0f%% "
      "of the thread)", top->name, best->name, best->busy_pct, top->name,
      top->busy_pct);
}
