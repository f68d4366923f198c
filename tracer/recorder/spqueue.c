/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spqueue: stageprof's queue accounting. Levels are counted from the
 * hooks: in at the queue's chain, out at its push, never by reading the
 * queue's properties on the hot path. Each queue has its own small lock,
 * shared by its producer and its task only.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "spqueue.h"
#include "spregistry.h"
#include "sprowgst.h"

static gdouble
pct (gdouble part, gdouble whole)
{
  return whole > 0 ? MIN (100.0, 100.0 * part / whole) : 0.0;
}

void
sp_queue_free (gpointer data)
{
  SpQueue *q = data;

  g_clear_pointer (&q->past_rows, g_ptr_array_unref);
  g_mutex_clear (&q->lock);
  g_free (q);
}

void
sp_queue_reset_stats_locked (SpQueue * q)
{
  q->started = FALSE;
  q->level_integral = q->bytes_integral = 0;
  q->empty_ns = q->full_ns = 0;
  q->items = q->put_seen = q->get_seen = 0;
  q->dropped = 0;
  q->max_level = q->level;
  q->max_bytes_seen = q->bytes;
  q->win_level_integral = q->win_bytes_integral = 0;
  q->win_items = q->win_dropped = 0;
  q->win_ts = 0;
  stage_stats_init (&q->put);
  stage_stats_init (&q->get);
}

/* Limits are read here, on first sight and on state changes, never on the
 * hot path: reading properties takes the object lock. */
void
sp_queue_read_limits (SpQueue * q, GstElement * e)
{
  guint maxb = 0, maxbytes = 0;
  guint64 maxt = 0;
  gint leaky = 0;

  if (!sp_has_property (e, "max-size-buffers") || GST_IS_BIN (e)
      || strcmp (G_OBJECT_TYPE_NAME (e), "GstMultiQueue") == 0)
    return;
  g_object_get (e, "max-size-buffers", &maxb, "max-size-bytes", &maxbytes,
      "max-size-time", &maxt, NULL);
  if (sp_has_property (e, "leaky"))
    g_object_get (e, "leaky", &leaky, NULL);
  g_mutex_lock (&q->lock);
  g_atomic_int_set (&q->limits_known, TRUE);
  q->max_buffers = maxb;
  q->max_bytes = maxbytes;
  q->max_time = maxt;
  q->leaky = leaky != 0;
  g_mutex_unlock (&q->lock);
}

SpQueue *
sp_queue_new_locked (SpRecorder * r, SpElemInfo * info)
{
  SpQueue *q = g_new0 (SpQueue, 1);

  g_mutex_init (&q->lock);
  q->name = info->name;
  q->pipe = info->pipe;
  q->run = info->pipe->run;
  q->pid = info->pipe->pid;
  q->traced = info->traced;
  q->in_pts = q->out_pts = q->first_in_pts = GST_CLOCK_TIME_NONE;
  stage_stats_init (&q->put);
  stage_stats_init (&q->get);
  g_ptr_array_add (r->queues, q);
  return q;
}

/* ------------------------------------------------------------------ */
/* Queue occupancy; the queue's own small lock, shared by its producer and
 * its task only. */

static gboolean
queue_full_locked (SpQueue * q)
{
  GstClockTime out = GST_CLOCK_TIME_IS_VALID (q->out_pts) ? q->out_pts :
      q->first_in_pts;

  if (!q->limits_known)
    return FALSE;
  if (q->max_buffers && q->level >= q->max_buffers)
    return TRUE;
  if (q->max_bytes && q->bytes >= q->max_bytes)
    return TRUE;
  if (q->max_time && GST_CLOCK_TIME_IS_VALID (q->in_pts)
      && GST_CLOCK_TIME_IS_VALID (out) && q->in_pts > out
      && q->in_pts - out >= q->max_time)
    return TRUE;
  return FALSE;
}

static void
queue_advance_locked (SpQueue * q, guint64 ts)
{
  guint64 dt;

  if (!q->started) {
    q->started = TRUE;
    q->first_ts = q->last_ts = ts;
    return;
  }
  if (ts <= q->last_ts)
    return;
  dt = ts - q->last_ts;
  q->level_integral += (gdouble) q->level * dt;
  q->bytes_integral += (gdouble) q->bytes * dt;
  if (q->level == 0)
    q->empty_ns += dt;
  else if (queue_full_locked (q))
    q->full_ns += dt;
  q->last_ts = ts;
}

/* The stream time the queue holds, as its max-size-time counts it. */
static guint64
queue_level_time_locked (SpQueue * q)
{
  GstClockTime out = GST_CLOCK_TIME_IS_VALID (q->out_pts) ? q->out_pts :
      q->first_in_pts;

  if (q->level <= 0 || !GST_CLOCK_TIME_IS_VALID (q->in_pts)
      || !GST_CLOCK_TIME_IS_VALID (out) || q->in_pts <= out)
    return 0;
  return q->in_pts - out;
}

/* The window's lowest and highest levels (a few compares, under the
 * queue's lock the caller holds anyway). */
static void
queue_note_window_locked (SpQueue * q)
{
  guint64 t = queue_level_time_locked (q);

  q->win_min_level = MIN (q->win_min_level, q->level);
  q->win_max_level = MAX (q->win_max_level, q->level);
  q->win_min_bytes = MIN (q->win_min_bytes, q->bytes);
  q->win_max_bytes = MAX (q->win_max_bytes, q->bytes);
  q->win_min_time = MIN (q->win_min_time, t);
  q->win_max_time = MAX (q->win_max_time, t);
}

static void
queue_note_max_locked (SpQueue * q)
{
  queue_note_window_locked (q);
  if (q->level > 0 && (guint64) q->level > q->max_level)
    q->max_level = q->level;
  if (q->bytes > 0 && (guint64) q->bytes > q->max_bytes_seen)
    q->max_bytes_seen = q->bytes;
}

/* @n buffers, @bytes in all, the last one with @pts, join the level. */
static void
queue_enter_locked (SpQueue * q, guint n, guint64 bytes, GstClockTime pts)
{
  q->level += n;
  q->bytes += bytes;
  if (GST_CLOCK_TIME_IS_VALID (pts))
    q->in_pts = pts;
}

/* What a full queue held back at its chain goes in. */
static void
queue_admit_pending_locked (SpQueue * q)
{
  queue_enter_locked (q, q->pending, q->pending_bytes, q->pending_pts);
  q->pending = 0;
  q->pending_bytes = 0;
}

/* A buffer arrives at the queue's chain. When the queue is full it blocks
 * before enqueuing: the buffer only counts once the task took one out. */
gboolean
sp_queue_put (SpRecorder * r, SpQueue * q, guint64 ts, guint n, guint64 bytes,
    GstClockTime start, GstClockTime pts)
{
  gboolean full;

  g_mutex_lock (&q->lock);
  queue_advance_locked (q, ts);
  if (G_UNLIKELY (q->run != g_atomic_int_get (&q->pipe->run))) {
    /* The first buffer of a new run of the pipeline: the last run's row
     * stays for the summaries of all runs. */
    if (q->items > 0 || q->put_seen > 0) {
      if (!q->past_rows)
        q->past_rows = g_ptr_array_new_with_free_func ((GDestroyNotify)
            gst_structure_free);
      g_ptr_array_add (q->past_rows, sp_queue_row (q));
    }
    sp_queue_reset_stats_locked (q);
    q->dropped = 0;
    q->run = g_atomic_int_get (&q->pipe->run);
    q->pid = g_atomic_int_get (&q->pipe->pid);
  }
  if (!GST_CLOCK_TIME_IS_VALID (q->first_in_pts))
    q->first_in_pts = start;
  full = queue_full_locked (q);
  if (full) {
    /* A leaky queue drops one buffer instead (the new one, or its oldest
     * to make room for it): the level stays. */
    if (q->leaky)
      q->dropped += n;
    else {
      q->pending += n;
      q->pending_bytes += bytes;
      q->pending_pts = pts;
    }
  } else {
    queue_enter_locked (q, n, bytes, pts);
    queue_note_max_locked (q);
    emit_counter (r, q, ts);
  }
  g_mutex_unlock (&q->lock);
  return full;
}

/* The put returned. If it had to wait, the buffer went in because the task
 * took one out, even when the task's push hook has not fired yet: count that
 * one out now (an early out), so the level never shows one buffer too many,
 * and let the late push hook settle the bytes. */
void
sp_queue_put_done (SpRecorder * r, SpQueue * q, guint64 ts, guint64 dur)
{
  g_mutex_lock (&q->lock);
  if (q->pending) {
    guint64 one = q->pending_bytes / q->pending;

    queue_advance_locked (q, ts);
    queue_admit_pending_locked (q);
    if (q->level > 0) {
      q->level--;
      q->bytes = (guint64) q->bytes > one ? q->bytes - (gint64) one : 0;
      q->early_out++;
      q->early_bytes += one;
    }
    queue_note_max_locked (q);
    emit_counter (r, q, ts);
  }
  if (++q->put_seen > (guint64) (guint) g_atomic_int_get (&r->skip_first))
    stage_stats_add (&q->put, dur / 1e6);
  g_mutex_unlock (&q->lock);
}

void
sp_queue_get (SpRecorder * r, SpQueue * q, guint64 ts, guint n, guint64 bytes,
    GstClockTime pts)
{
  g_mutex_lock (&q->lock);
  queue_advance_locked (q, ts);
  if (q->early_out) {
    /* Already counted out by sp_queue_put_done(): fix the byte estimate. */
    guint64 one = q->early_bytes / q->early_out;

    q->early_out--;
    q->early_bytes -= one;
    q->bytes += (gint64) one - (gint64) bytes;
    if (q->bytes < 0)
      q->bytes = 0;
  } else {
    q->level = q->level > n ? q->level - n : 0;
    q->bytes = (guint64) q->bytes > bytes ? q->bytes - (gint64) bytes : 0;
  }
  q->items += n;
  if (GST_CLOCK_TIME_IS_VALID (pts))
    q->out_pts = pts;
  if (q->pending && !queue_full_locked (q)) {
    queue_admit_pending_locked (q);
    queue_note_max_locked (q);
  }
  queue_note_window_locked (q);
  emit_counter (r, q, ts);
  g_mutex_unlock (&q->lock);
}

void
sp_queue_get_wait (SpRecorder * r, SpQueue * q, guint64 wait)
{
  g_mutex_lock (&q->lock);
  if (++q->get_seen > (guint64) (guint) g_atomic_int_get (&r->skip_first))
    stage_stats_add (&q->get, wait / 1e6);
  g_mutex_unlock (&q->lock);
}

void
sp_queue_empty_out (SpRecorder * r, SpQueue * q, guint64 ts)
{
  g_mutex_lock (&q->lock);
  queue_advance_locked (q, ts);
  q->level = q->bytes = 0;
  q->pending = 0;
  q->pending_bytes = 0;
  q->early_out = 0;
  q->early_bytes = 0;
  q->in_pts = q->out_pts = q->first_in_pts = GST_CLOCK_TIME_NONE;
  queue_note_window_locked (q);
  emit_counter (r, q, ts);
  g_mutex_unlock (&q->lock);
}

/* The stream time the queue holds now, as its max-size-time counts it;
 * read when a row is made, never on the hot path. */
static gdouble
queue_level_time_s (SpQueue * q)
{
  return queue_level_time_locked (q) / 1e9;
}

GstStructure *
sp_queue_row (SpQueue * q)
{
  gdouble span = q->last_ts > q->first_ts ? q->last_ts - q->first_ts : 0;
  SpQueueRow *row = sp_row_new (&sp_queue_kind);

  row->name = g_strdup (q->name);
  row->pipeline = g_strdup (q->pipe->name);
  row->items = q->items;
  row->qps = span > 0 ? q->items / (span / 1e9) : 0.0;
  row->mean_level = span > 0 ? q->level_integral / span : 0.0;
  row->max_level = q->max_level;
  row->mean_bytes = span > 0 ? q->bytes_integral / span : 0.0;
  row->max_bytes = q->max_bytes_seen;
  row->empty_pct = pct (q->empty_ns, span);
  row->full_pct = pct (q->full_ns, span);
  row->ave_put_ms = q->put.count ? q->put.mean : 0.0;
  row->ave_get_ms = q->get.count ? q->get.mean : 0.0;
  /* the queue's own span: its shares are of it, not of the run's */
  row->span_s = span / 1e9;
  row->limit_buffers = q->limits_known ? q->max_buffers : 0;
  row->limit_bytes = q->limits_known ? q->max_bytes : 0;
  row->limit_time_s = q->limits_known ? q->max_time / 1e9 : 0.0;
  row->level_time_s = queue_level_time_s (q);
  /* what it holds now: the metrics endpoint's gauges */
  row->level = MAX (q->level, 0);
  row->level_bytes = MAX (q->bytes, 0);
  row->leaky = q->leaky;
  row->dropped = q->dropped;
  row->run = sp_row_id ((guint) q->run);
  return sp_row_into_structure (&sp_queue_kind, row);
}

/* How full `v` is of `limit` (0: no limit), in percent. */
static gdouble
fill_pct (gdouble v, gdouble limit)
{
  return limit > 0 ? 100.0 * v / limit : 0.0;
}

/* The window's row of `q`, under its lock. */
static GstStructure *
window_row (SpQueue * q, guint window, gdouble len, const gchar * binding,
    gdouble full)
{
  SpWinQueueRow *row = sp_row_new (&sp_win_queue_kind);

  row->name = g_strdup (q->name);
  row->pipeline = g_strdup (q->pipe->name);
  row->run = sp_row_id ((guint) q->run);
  row->window = window;
  row->level = q->level;
  row->min_level = q->win_min_level;
  row->max_level = q->win_max_level;
  row->mean_level = len > 0 ?
      (q->level_integral - q->win_level_integral) / len : (gdouble) q->level;
  row->bytes = q->bytes;
  row->min_bytes = q->win_min_bytes;
  row->max_bytes = q->win_max_bytes;
  row->mean_bytes = len > 0 ?
      (q->bytes_integral - q->win_bytes_integral) / len : (gdouble) q->bytes;
  row->time_s = queue_level_time_s (q);
  row->min_time_s = q->win_min_time / 1e9;
  row->max_time_s = q->win_max_time / 1e9;
  row->limit_buffers = q->limits_known ? q->max_buffers : 0;
  row->limit_bytes = q->limits_known ? q->max_bytes : 0;
  row->limit_time_s = q->limits_known ? q->max_time / 1e9 : 0.0;
  row->binding = g_strdup (binding);
  row->full_pct = MIN (full, 100.0);
  row->items_per_s = len > 0 ? (q->items - q->win_items) / (len / 1e9) : 0.0;
  row->dropped = q->dropped - MIN (q->win_dropped, q->dropped);
  return sp_row_into_structure (&sp_win_queue_kind, row);
}

/* The queue's figures since the last window closed, which closes now
 * (`now`: hook time); NULL when it saw nothing in its current run. */
GstStructure *
sp_queue_window_row (SpQueue * q, gint run, guint64 now, guint window)
{
  GstStructure *row = NULL;
  gdouble len, fb, fy, ft, full;
  const gchar *binding = "none";

  g_mutex_lock (&q->lock);
  /* nothing yet in this run (its figures are still the last run's) */
  if (!q->started || q->run != run)
    goto done;
  queue_advance_locked (q, now);
  if (q->win_ts == 0 || q->win_ts < q->first_ts)
    q->win_ts = q->first_ts;
  len = q->last_ts > q->win_ts ? (gdouble) (q->last_ts - q->win_ts) : 0.0;
  /* Against each limit at the window's highest level: the one that came
   * closest to full binds. */
  fb = q->limits_known ? fill_pct (q->win_max_level, q->max_buffers) : 0;
  fy = q->limits_known ? fill_pct (q->win_max_bytes, q->max_bytes) : 0;
  ft = q->limits_known ? fill_pct (q->win_max_time, q->max_time) : 0;
  full = MAX (fb, MAX (fy, ft));
  if (full > 0)
    binding = full == fb ? "buffers" : full == fy ? "bytes" : "time";
  row = window_row (q, window, len, binding, full);
done:
  /* The next window starts at the level the queue has now. */
  q->win_level_integral = q->level_integral;
  q->win_bytes_integral = q->bytes_integral;
  q->win_items = q->items;
  q->win_dropped = q->dropped;
  q->win_ts = MAX (q->last_ts, now);
  q->win_min_level = q->win_max_level = q->level;
  q->win_min_bytes = q->win_max_bytes = q->bytes;
  q->win_min_time = q->win_max_time = queue_level_time_locked (q);
  g_mutex_unlock (&q->lock);
  return row;
}
