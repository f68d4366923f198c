/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spreport: the profile model: rows, profiles, sorting. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "spdecide.h"
#include "spreport.h"

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
pool_free (gpointer p)
{
  sp_row_free (&sp_pool_kind, p);
}

static void
memory_free (gpointer p)
{
  sp_row_free (&sp_memory_kind, p);
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
  p->latency = g_ptr_array_new_with_free_func (latency_free);
  p->element_latency = g_ptr_array_new_with_free_func (elem_latency_free);
  p->pools = g_ptr_array_new_with_free_func (pool_free);
  p->memory = g_ptr_array_new_with_free_func (memory_free);
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
  p->verdicts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  p->kinds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
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
  g_ptr_array_free (p->pools, TRUE);
  g_ptr_array_free (p->memory, TRUE);
  g_ptr_array_free (p->links, TRUE);
  g_ptr_array_free (p->windows, TRUE);
  g_ptr_array_free (p->window_elements, TRUE);
  g_ptr_array_free (p->window_pads, TRUE);
  g_ptr_array_free (p->window_queues, TRUE);
  g_ptr_array_free (p->window_threads, TRUE);
  g_ptr_array_free (p->window_latency, TRUE);
  g_ptr_array_free (p->window_latency_hist, TRUE);
  g_ptr_array_free (p->notes, TRUE);
  g_hash_table_destroy (p->verdicts);
  g_hash_table_destroy (p->kinds);
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

const gchar *
sp_profile_pipeline_verdict (const SpProfile * p, const gchar * pipeline,
    const gchar * run)
{
  gchar *key = run ? g_strdup_printf ("%s\x1f%s", pipeline, run) :
      g_strdup (pipeline);
  const gchar *v = pipeline ? g_hash_table_lookup (p->verdicts, key) : NULL;

  g_free (key);
  return v;
}

/* What an element is, from the input or else from its factory's usual
 * name ("avdec_h264-0", "x264enc0", "queue0"): the class word of
 * "decode-bound". */
static const gchar *
kind_of (const SpProfile * p, const gchar * name)
{
  const gchar *k = g_hash_table_lookup (p->kinds, name);
  const gchar *base = strrchr (name, '/') ? strrchr (name, '/') + 1 : name;

  if (k)
    return k;
  if (strstr (base, "demux"))
    return "demux";
  if (strstr (base, "mux"))
    return "mux";
  if (strstr (base, "dec") && !strstr (base, "decodebin"))
    return "decode";
  if (strstr (base, "enc"))
    return "encode";
  if (strstr (base, "sink"))
    return "sink";
  if (strstr (base, "src"))
    return "source";
  if (strstr (base, "convert") || strstr (base, "scale")
      || strstr (base, "resize"))
    return "convert";
  return "compute";
}

static guint
flags_of (const SpProfile * p, const gchar * name)
{
  const gchar *base = strrchr (name, '/') ? strrchr (name, '/') + 1 : name;
  guint f = 0, i;

  for (i = 0; i < p->queues->len; i++)
    if (!g_strcmp0 (((SpQueueRow *) p->queues->pdata[i])->name, name))
      f |= SP_DECIDE_FORWARDS;
  if (g_str_has_prefix (base, "capsfilter") || g_str_has_prefix (base,
          "queue") || g_str_has_prefix (base, "multiqueue"))
    f |= SP_DECIDE_FORWARDS;
  if (g_str_has_prefix (base, "appsink"))
    f |= SP_DECIDE_APP_SINK;
  if (g_str_has_prefix (base, "appsrc"))
    f |= SP_DECIDE_APP_SRC;
  if (strstr (base, "sink"))
    f |= SP_DECIDE_SINK;
  return f;
}

static gdouble
or0 (gdouble v)
{
  return isnan (v) ? 0 : v;
}

/* The verdict of one pipeline's (and run's) rows. */
static gchar *
decide_one (const SpProfile * p, const gchar * pipeline, const gchar * run)
{
  GArray *th = g_array_new (FALSE, TRUE, sizeof (SpDecideThread));
  GArray *el = g_array_new (FALSE, TRUE, sizeof (SpDecideElem));
  GPtrArray *sink_names = g_ptr_array_new ();
  GArray *sink_fps = g_array_new (FALSE, TRUE, sizeof (gdouble));
  SpDecideInput in = { 0 };
  gdouble running = 0;
  gchar *v;
  guint i, j;

  for (i = 0; i < p->threads->len; i++) {
    const SpThreadRow *t = p->threads->pdata[i];
    SpDecideThread d = { 0 };
    gdouble w = or0 (t->wall_s);

    if (g_strcmp0 (t->pipeline, pipeline) || g_strcmp0 (t->run, run))
      continue;
    d.name = t->name;
    d.wall = w;
    d.busy = or0 (t->busy_pct) * w / 100;
    d.wait_in = or0 (t->wait_input_pct) * w / 100;
    d.wait_out = or0 (t->wait_output_pct) * w / 100;
    d.blocked = or0 (t->blocked_pct) * w / 100;
    d.cpu_wait = or0 (t->cpu_wait_pct) * w / 100;
    running = MAX (running, w);
    g_array_append_val (th, d);
  }
  for (i = 0; i < p->elements->len; i++) {
    const SpElemRow *e = p->elements->pdata[i];
    SpDecideElem d = { 0 };

    if (g_strcmp0 (e->pipeline, pipeline) || g_strcmp0 (e->run, run))
      continue;
    d.name = e->name;
    d.kind = kind_of (p, e->name);
    d.flags = flags_of (p, e->name);
    d.thread = -1;
    for (j = 0; j < th->len; j++)
      if (!g_strcmp0 (g_array_index (th, SpDecideThread, j).name, e->thread))
        d.thread = j;
    d.work = or0 (e->total_s);
    d.clock = or0 (e->clock_wait_s);
    /* a summary's blocked_s is net of the run-queue delay it shows apart */
    d.blocked = or0 (e->blocked_s) + or0 (e->cpu_wait_s);
    d.workers = isnan (e->workers) ? 0 : (guint) e->workers;
    d.worker_cpu = or0 (e->worker_cpu_s);
    g_array_append_val (el, d);
  }
  for (i = 0; i < p->sinks->len; i++) {
    const SpSinkRow *s = p->sinks->pdata[i];
    gdouble f = or0 (s->fps);

    if (g_strcmp0 (s->pipeline, pipeline) || g_strcmp0 (s->run, run))
      continue;
    g_ptr_array_add (sink_names, s->name);
    g_array_append_val (sink_fps, f);
  }
  if (running <= 0 && !isnan (p->wall_s))
    running = p->wall_s;
  in.running = running;
  /* the process's CPU is not in the rows: no CPU-starved verdict here */
  in.elems = (const SpDecideElem *) el->data;
  in.n_elems = el->len;
  in.threads = (const SpDecideThread *) th->data;
  in.n_threads = th->len;
  in.sink_names = (const gchar * const *) sink_names->pdata;
  in.sink_fps = (const gdouble *) sink_fps->data;
  in.n_sinks = sink_names->len;
  v = sp_decide_verdict (&in);
  g_array_free (th, TRUE);
  g_array_free (el, TRUE);
  g_ptr_array_free (sink_names, TRUE);
  g_array_free (sink_fps, TRUE);
  return v;
}

gchar *
sp_profile_verdict (const SpProfile * p)
{
  GPtrArray *keys = g_ptr_array_new ();
  GString *out = g_string_new (NULL);
  guint i, j;

  /* each pipeline and run the element rows name, in their order */
  for (i = 0; i < p->elements->len; i++) {
    const SpElemRow *e = p->elements->pdata[i];
    gboolean seen = FALSE;
    for (j = 0; j < keys->len && !seen; j++) {
      const SpElemRow *k = keys->pdata[j];
      seen = !g_strcmp0 (k->pipeline, e->pipeline)
          && !g_strcmp0 (k->run, e->run);
    }
    if (!seen)
      g_ptr_array_add (keys, (gpointer) e);
  }
  if (keys->len == 0)
    g_string_append (out, "no element recorded");
  for (i = 0; i < keys->len; i++) {
    const SpElemRow *k = keys->pdata[i];
    gchar *v = decide_one (p, k->pipeline, k->run);
    if (keys->len > 1)
      g_string_append_printf (out, "%s%s%s%s: ", i ? "; " : "",
          k->pipeline ? k->pipeline : "-", k->run ? " run " : "",
          k->run ? k->run : "");
    g_string_append (out, v);
    g_free (v);
  }
  g_ptr_array_free (keys, TRUE);
  return g_string_free (out, FALSE);
}
