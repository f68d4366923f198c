/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spwindows: the figures of a range of running time, from a database's
 * interval windows (spwindows.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "spwindows.h"

static gboolean
same_run (const gchar * p1, const gchar * r1, const gchar * p2,
    const gchar * r2)
{
  return g_strcmp0 (p1, p2) == 0 && g_strcmp0 (r1, r2) == 0;
}

/* Drops the rows of `arr` (rows with pipeline, run and window fields at
 * the kind's columns) whose window is not in `keep`. */
static void
filter_rows (const SpRowKind * k, GPtrArray * arr, GHashTable * keep)
{
  gint pc = sp_schema_column_index (k->schema, "pipeline");
  gint rc = sp_schema_column_index (k->schema, "run");
  gint wc = sp_schema_column_index (k->schema, "window");

  for (guint i = arr->len; i-- > 0;) {
    gpointer row = arr->pdata[i];
    gchar *key = g_strdup_printf ("%s\x1f%s\x1f%g",
        sp_row_text (k, row, pc), sp_row_text (k, row, rc),
        sp_row_num (k, row, wc));

    if (!g_hash_table_contains (keep, key))
      g_ptr_array_remove_index (arr, i);
    g_free (key);
  }
}

guint
sp_windows_keep_range (SpProfile * p, gdouble from_s, gdouble till_s)
{
  GHashTable *keep = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  guint n;

  for (guint i = p->windows->len; i-- > 0;) {
    SpWindowRow *w = p->windows->pdata[i];
    gdouble t0 = sp_window_run_start (p, w->pipeline, w->run);
    gdouble mid = (w->start_s + w->end_s) / 2 - t0;

    if ((!isnan (from_s) && mid < from_s) || (!isnan (till_s)
            && mid > till_s))
      g_ptr_array_remove_index (p->windows, i);
    else
      g_hash_table_add (keep, g_strdup_printf ("%s\x1f%s\x1f%g",
              w->pipeline, w->run, w->window));
  }
  filter_rows (&sp_win_elem_kind, p->window_elements, keep);
  filter_rows (&sp_win_pad_kind, p->window_pads, keep);
  filter_rows (&sp_win_queue_kind, p->window_queues, keep);
  filter_rows (&sp_win_thread_kind, p->window_threads, keep);
  filter_rows (&sp_win_latency_kind, p->window_latency, keep);
  filter_rows (&sp_win_latency_hist_kind, p->window_latency_hist, keep);
  n = p->windows->len;
  g_hash_table_destroy (keep);
  return n;
}

/* The kept windows' length (s) of one pipeline run. */
static gdouble
run_length (const SpProfile * p, const gchar * pipeline, const gchar * run)
{
  gdouble len = 0;

  for (guint i = 0; i < p->windows->len; i++) {
    const SpWindowRow *w = p->windows->pdata[i];
    if (same_run (w->pipeline, w->run, pipeline, run))
      len += w->length_s;
  }
  return len;
}

static gdouble
window_length (const SpProfile * p, const gchar * pipeline,
    const gchar * run, gdouble window)
{
  const SpWindowRow *w = sp_profile_window (p, pipeline, run, window);

  return w ? w->length_s : 0;
}

static gdouble
add (gdouble sum, gdouble v)
{
  return isnan (v) ? sum : isnan (sum) ? v : sum + v;
}

static gdouble
maxd (gdouble a, gdouble b)
{
  return isnan (a) ? b : isnan (b) ? a : MAX (a, b);
}

static void
element_rows (SpProfile * p, GPtrArray * out)
{
  for (guint i = 0; i < p->window_elements->len; i++) {
    const SpWinElemRow *w = p->window_elements->pdata[i];
    SpElemRow *e = NULL;
    gdouble len;

    for (guint j = 0; j < out->len && !e; j++) {
      SpElemRow *o = out->pdata[j];
      if (same_run (o->pipeline, o->run, w->pipeline, w->run)
          && !g_strcmp0 (o->name, w->name)
          && !g_strcmp0 (o->thread, w->thread))
        e = o;
    }
    if (!e) {
      e = sp_row_new (&sp_elem_kind);
      e->name = g_strdup (w->name);
      e->thread = g_strdup (w->thread);
      e->pipeline = g_strdup (w->pipeline);
      e->run = g_strdup (w->run);
      e->count = e->total_s = 0;
      g_ptr_array_add (out, e);
    }
    e->count += isnan (w->count) ? 0 : w->count;
    e->total_s += isnan (w->total_s) ? 0 : w->total_s;
    e->worker_cpu_s = add (e->worker_cpu_s, w->worker_cpu_s);
    e->mean_ms = e->count > 0 ? 1e3 * e->total_s / e->count : 0;
    len = run_length (p, w->pipeline, w->run);
    e->busy_pct = len > 0 ? MIN (100.0, 100.0 * e->total_s / len) : NAN;
  }
}

static void
queue_rows (SpProfile * p, GPtrArray * out)
{
  for (guint i = 0; i < p->window_queues->len; i++) {
    const SpWinQueueRow *w = p->window_queues->pdata[i];
    gdouble len = window_length (p, w->pipeline, w->run, w->window);
    SpQueueRow *q = NULL;

    for (guint j = 0; j < out->len && !q; j++) {
      SpQueueRow *o = out->pdata[j];
      if (same_run (o->pipeline, o->run, w->pipeline, w->run)
          && !g_strcmp0 (o->name, w->name))
        q = o;
    }
    if (!q) {
      q = sp_row_new (&sp_queue_kind);
      q->name = g_strdup (w->name);
      q->pipeline = g_strdup (w->pipeline);
      q->run = g_strdup (w->run);
      q->items = q->span_s = q->mean_level = q->mean_bytes = 0;
      q->dropped = 0;
      g_ptr_array_add (out, q);
    }
    /* time-weighted: sums of level x time until the division below */
    q->mean_level = q->mean_level * q->span_s + w->mean_level * len;
    q->mean_bytes = q->mean_bytes * q->span_s + w->mean_bytes * len;
    q->items += w->items_per_s * len;
    q->dropped += isnan (w->dropped) ? 0 : w->dropped;
    q->span_s += len;
    q->mean_level = q->span_s > 0 ? q->mean_level / q->span_s : 0;
    q->mean_bytes = q->span_s > 0 ? q->mean_bytes / q->span_s : 0;
    q->qps = q->span_s > 0 ? q->items / q->span_s : 0;
    q->max_level = maxd (q->max_level, w->max_level);
    q->max_bytes = maxd (q->max_bytes, w->max_bytes);
    q->limit_buffers = w->limit_buffers;
    q->limit_bytes = w->limit_bytes;
    q->limit_time_s = w->limit_time_s;
  }
}

static void
thread_rows (SpProfile * p, GPtrArray * out)
{
  for (guint i = 0; i < p->window_threads->len; i++) {
    const SpWinThreadRow *w = p->window_threads->pdata[i];
    gdouble len = window_length (p, w->pipeline, w->run, w->window), all;
    SpThreadRow *t = NULL;

    for (guint j = 0; j < out->len && !t; j++) {
      SpThreadRow *o = out->pdata[j];
      if (same_run (o->pipeline, o->run, w->pipeline, w->run)
          && !g_strcmp0 (o->name, w->name) && o->tid == w->tid)
        t = o;
    }
    if (!t) {
      t = sp_row_new (&sp_thread_kind);
      t->name = g_strdup (w->name);
      t->pipeline = g_strdup (w->pipeline);
      t->run = g_strdup (w->run);
      t->tid = w->tid;
      t->wall_s = t->busy_pct = t->wait_input_pct = t->wait_output_pct = 0;
      t->blocked_pct = 0;
      g_ptr_array_add (out, t);
    }
    all = t->wall_s + len;
    if (all <= 0)
      continue;
#define SP_WEIGH(f) t->f = (t->f * t->wall_s + w->f * len) / all
    SP_WEIGH (busy_pct);
    SP_WEIGH (wait_input_pct);
    SP_WEIGH (wait_output_pct);
    SP_WEIGH (blocked_pct);
#undef SP_WEIGH
    t->wall_s = all;
  }
}

/* A sink's frames in the range: what its input pad carried. */
static void
sink_rows (SpProfile * p)
{
  for (guint i = 0; i < p->sinks->len; i++) {
    SpSinkRow *k = p->sinks->pdata[i];
    gdouble n = 0, len = run_length (p, k->pipeline, k->run);
    gboolean video = TRUE;

    for (guint j = 0; j < p->window_pads->len; j++) {
      const SpWinPadRow *w = p->window_pads->pdata[j];
      if (same_run (w->pipeline, w->run, k->pipeline, k->run)
          && !g_strcmp0 (w->element, k->name)) {
        n += w->buffers;
        video = video && !g_strcmp0 (w->unit, "frames");
      }
    }
    k->buffers = n;
    k->frames = video ? n : 0;
    k->fps = len > 0 ? (video ? n : 0) / len : NAN;
  }
}

void
sp_windows_to_rows (SpProfile * p)
{
  GPtrArray *e = g_ptr_array_new (), *q = g_ptr_array_new (),
      *t = g_ptr_array_new ();
  gdouble len = 0;

  element_rows (p, e);
  queue_rows (p, q);
  thread_rows (p, t);
  g_ptr_array_set_size (p->elements, 0);
  g_ptr_array_set_size (p->queues, 0);
  g_ptr_array_set_size (p->threads, 0);
  for (guint i = 0; i < e->len; i++)
    g_ptr_array_add (p->elements, e->pdata[i]);
  for (guint i = 0; i < q->len; i++)
    g_ptr_array_add (p->queues, q->pdata[i]);
  for (guint i = 0; i < t->len; i++)
    g_ptr_array_add (p->threads, t->pdata[i]);
  sink_rows (p);
  g_ptr_array_set_size (p->latency, 0);
  g_ptr_array_set_size (p->element_latency, 0);
  /* the longest run's part in the range */
  for (guint i = 0; i < p->windows->len; i++) {
    const SpWindowRow *w = p->windows->pdata[i];
    len = MAX (len, run_length (p, w->pipeline, w->run));
  }
  p->wall_s = len;
  g_clear_pointer (&p->verdict, g_free);
  sp_profile_note (p, "figures of the %u windows in the range (%.3f s): "
      "counts, totals and time-weighted means; percentiles and latency "
      "are not summed over windows (the database has them per window), "
      "and the verdict is made from these rows", p->windows->len, len);
  g_ptr_array_free (e, TRUE);
  g_ptr_array_free (q, TRUE);
  g_ptr_array_free (t, TRUE);
}
