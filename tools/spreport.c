/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spreport: the profile model, input detection, selection and sorting. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
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
  p->links = g_ptr_array_new_with_free_func (link_free);
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
  g_ptr_array_free (p->links, TRUE);
  g_ptr_array_free (p->notes, TRUE);
  g_free (p);
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

/* ---- detection ------------------------------------------------------- */

typedef enum { KIND_UNKNOWN, KIND_SUMMARY, KIND_DB, KIND_TRACE, KIND_CSV,
  KIND_EMPTY
} Kind;

static Kind
detect (const gchar * path, GError ** error)
{
  FILE *f = fopen (path, "rb");
  gchar head[4096];
  gsize n, i;

  if (!f) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        "cannot open '%s': %s", path, g_strerror (errno));
    return KIND_UNKNOWN;
  }
  n = fread (head, 1, sizeof (head) - 1, f);
  fclose (f);
  head[n] = 0;
  if (n >= 16 && memcmp (head, "SQLite format 3", 16) == 0)
    return KIND_DB;
  for (i = 0; i < n && g_ascii_isspace (head[i]); i++);
  if (i == n)
    return KIND_EMPTY;
  if (head[i] == '[')
    return KIND_TRACE;
  if (head[i] == '{')
    return strstr (head, "\"traceEvents\"") ? KIND_UNKNOWN : KIND_SUMMARY;
  if (g_str_has_prefix (head + i, "table,"))
    return KIND_CSV;
  return KIND_UNKNOWN;
}

/* ---- selection ------------------------------------------------------- */

static gboolean
keep (const gchar * pipeline, const gchar * run, const SpSelect * sel,
    SpSourceKind kind)
{
  if (sel->pipeline && g_strcmp0 (pipeline, sel->pipeline) != 0)
    return FALSE;
  /* A db's run is chosen by its reader. */
  if (sel->run && kind != SP_SOURCE_DB && g_strcmp0 (run, sel->run) != 0)
    return FALSE;
  return TRUE;
}

#define FILTER(arr, Type) \
  for (i = arr->len; i-- > 0;) { \
    Type *r = arr->pdata[i]; \
    if (!keep (r->pipeline, r->run, sel, p->kind)) \
      g_ptr_array_remove_index (arr, i); \
  }

static gboolean
apply_select (SpProfile * p, const SpSelect * sel, GError ** error)
{
  gchar *all = sp_profile_pipelines (p);
  guint i;

  if (sel->run && p->kind != SP_SOURCE_DB) {
    gboolean any = FALSE;
    for (i = 0; i < p->elements->len && !any; i++)
      any = ((SpElemRow *) p->elements->pdata[i])->run != NULL;
    if (!any) {
      g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NO_MATCH,
          "%s: this file does not tell runs apart; --run applies to a "
          "database, or to the outputs of a stageprof that numbers the "
          "runs of a pipeline", p->path);
      g_free (all);
      return FALSE;
    }
  }
  FILTER (p->elements, SpElemRow);
  FILTER (p->queues, SpQueueRow);
  FILTER (p->threads, SpThreadRow);
  FILTER (p->sinks, SpSinkRow);
  if (sel->pipeline)
    for (i = p->links->len; i-- > 0;)
      if (g_strcmp0 (((SpLink *) p->links->pdata[i])->pipeline,
              sel->pipeline) != 0)
        g_ptr_array_remove_index (p->links, i);
  if (p->elements->len == 0 && (sel->pipeline || sel->run)) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NO_MATCH,
        "%s: no rows for%s%s%s%s (pipelines in this file: %s)", p->path,
        sel->pipeline ? " pipeline " : "", sel->pipeline ? sel->pipeline : "",
        sel->run ? " run " : "", sel->run ? sel->run : "", *all ? all : "none");
    g_free (all);
    return FALSE;
  }
  g_free (all);
  return TRUE;
}

SpProfile *
sp_profile_load (const gchar * path, const SpSelect * sel, GError ** error)
{
  static const SpSelect none = { NULL, NULL };
  SpProfile *p = NULL;
  GError *err = NULL;
  Kind k;

  if (!sel)
    sel = &none;
  k = detect (path, &err);
  switch (k) {
    case KIND_SUMMARY:
      p = sp_read_summary_json (path, &err);
      break;
    case KIND_DB:
      p = sp_read_db (path, sel->run, &err);
      break;
    case KIND_TRACE:
      p = sp_read_trace (path, &err);
      break;
    case KIND_EMPTY:
      g_set_error (&err, SP_REPORT_ERROR, SP_REPORT_ERROR_EMPTY,
          "%s: the file is empty (a stageprof trace starts with '[' as soon "
          "as the tracer opens it: was the process killed before?)", path);
      break;
    case KIND_CSV:
      g_set_error (&err, SP_REPORT_ERROR, SP_REPORT_ERROR_NOT_STAGEPROF,
          "%s: a CSV summary cannot be read back; use summary=FILE.json, "
          "db=FILE.db or trace=FILE.json", path);
      break;
    default:
      if (!err)
        g_set_error (&err, SP_REPORT_ERROR, SP_REPORT_ERROR_NOT_STAGEPROF,
            "%s: not a stageprof output (expected a summary JSON, a Chrome "
            "trace in JSON array format, or a stageprof SQLite database)",
            path);
      break;
  }
  if (p && !apply_select (p, sel, &err)) {
    sp_profile_free (p);
    p = NULL;
  }
  /* A trace's verdict covers all its pipelines: redo it for the one kept. */
  if (p && p->kind == SP_SOURCE_TRACE && sel->pipeline) {
    g_free (p->verdict);
    p->verdict = NULL;
  }
  if (p && !p->verdict)
    p->verdict = sp_profile_guess_verdict (p);
  if (!p)
    g_propagate_error (error, err);
  return p;
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
