/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spwindow: interval windows, the difference of two copies of the
 * recorder's cumulative figures (spwindow.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "spbuild.h"
#include "spqueue.h"
#include "sprowgst.h"
#include "spthreads.h"
#include "spwindow.h"

/* What an element's record had booked when the last window closed. */
typedef struct
{
  gint gen;
  guint64 seen, work_ns, buffers, bytes;
  guint64 hist[STAGE_HIST_BUCKETS];
} ElemPrev;

typedef struct
{
  gint gen;
  guint64 busy, wait_in, wait_out, blocked;
} ThreadPrev;

struct _SpWindows
{
  gpointer pipeline;
  gint run;                     /* the run its windows are of, 0: none */
  gint ended;                   /* the last run whose last window closed */
  guint n;                      /* windows closed in that run */
  guint64 last_ts;              /* hook time of the last close */
  guint64 proc_cpu;             /* process CPU (ns) then */
  GHashTable *elems;            /* "element\x1fthread" -> ElemPrev */
  GHashTable *threads;          /* "thread\x1ftid" -> ThreadPrev */
  GHashTable *workers;          /* element name -> guint64 CPU ns */
  /* sink name -> SpLatencySink when the last window closed; kept over
   * runs, as the follower's figures are */
  GHashTable *latency;
};

SpWindows *
sp_windows_new (gpointer pipeline)
{
  SpWindows *w = g_new0 (SpWindows, 1);

  w->pipeline = pipeline;
  w->elems = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  w->threads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  w->workers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  w->latency = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  return w;
}

void
sp_windows_free (SpWindows * w)
{
  if (!w)
    return;
  g_hash_table_destroy (w->elems);
  g_hash_table_destroy (w->threads);
  g_hash_table_destroy (w->workers);
  g_hash_table_destroy (w->latency);
  g_free (w);
}

static void
append_row (GValue * array, GstStructure * s)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&v, s);
  gst_value_array_append_and_take_value (array, &v);
}

static gdouble
share (guint64 part, gdouble len)
{
  return len > 0 ? MIN (100.0, 100.0 * part / len) : 0.0;
}

/* The record's previous figures (zero for a record new in this window or
 * reset since), replaced by its current ones. */
static ElemPrev
elem_delta (SpWindows * w, const SpElemRec * rec, guint64 * hist)
{
  gchar *key = g_strdup_printf ("%s\x1f%s", rec->info->name,
      rec->thread->name);
  ElemPrev *p = g_hash_table_lookup (w->elems, key), d;
  guint i;

  if (!p) {
    p = g_new0 (ElemPrev, 1);
    p->gen = rec->gen;
    g_hash_table_insert (w->elems, key, p);
  } else {
    g_free (key);
  }
  if (p->gen != rec->gen || p->seen > rec->seen)
    memset (p, 0, sizeof (ElemPrev));
  d.seen = rec->seen - p->seen;
  d.work_ns = rec->work_ns - p->work_ns;
  d.buffers = rec->buffers - MIN (p->buffers, rec->buffers);
  d.bytes = rec->bytes - MIN (p->bytes, rec->bytes);
  for (i = 0; i < STAGE_HIST_BUCKETS; i++)
    hist[i] = rec->hist[i] - MIN (p->hist[i], rec->hist[i]);
  p->gen = rec->gen;
  p->seen = rec->seen;
  p->work_ns = rec->work_ns;
  p->buffers = rec->buffers;
  p->bytes = rec->bytes;
  memcpy (p->hist, rec->hist, sizeof (p->hist));
  return d;
}

/* CPU time of the element's worker threads in the window (s), -1 when it
 * has none. */
static gdouble
worker_delta (SpWindows * w, const SpElemInfo * info)
{
  guint64 *p;

  if (info->workers == 0)
    return -1;
  p = g_hash_table_lookup (w->workers, info->name);
  if (!p) {
    p = g_new0 (guint64, 1);
    g_hash_table_insert (w->workers, g_strdup (info->name), p);
  }
  if (*p > info->worker_cpu_ns)
    *p = 0;
  {
    guint64 d = info->worker_cpu_ns - *p;
    *p = info->worker_cpu_ns;
    return d / 1e9;
  }
}

static GstStructure *
element_row (SpWindows * w, const SpElemRec * rec, const ElemPrev * d,
    const guint64 * hist, gdouble len, gdouble workers_s)
{
  SpWinElemRow *row = sp_row_new (&sp_win_elem_kind);

  row->name = g_strdup (rec->info->name);
  row->thread = g_strdup (rec->thread->name);
  row->pipeline = g_strdup (rec->info->pipe->name);
  row->run = sp_row_id ((guint) rec->run);
  row->window = w->n;
  row->count = d->seen;
  row->mean_ms = d->seen ? d->work_ns / 1e6 / d->seen : 0.0;
  row->median_ms = stage_hist_quantile (hist, 0.5) / 1e6;
  row->p90_ms = stage_hist_quantile (hist, 0.9) / 1e6;
  row->p99_ms = stage_hist_quantile (hist, 0.99) / 1e6;
  row->total_s = d->work_ns / 1e9;
  row->busy_pct = share (d->work_ns, len);
  if (workers_s >= 0)
    row->worker_cpu_s = workers_s;
  return sp_row_into_structure (&sp_win_elem_kind, row);
}

/* One row per element that took buffers in: its upstream src pad's rate. */
typedef struct
{
  SpElemInfo *info;
  guint64 buffers, bytes;
} PadSum;

static void
add_pad_rows (SpWindows * w, GArray * pads, gdouble len, GValue * arr)
{
  for (guint i = 0; i < pads->len; i++) {
    PadSum *p = &g_array_index (pads, PadSum, i);
    const gchar *in = g_atomic_pointer_get (&p->info->in_pad);
    gboolean video = sp_media_is_video_frames (g_atomic_pointer_get
        (&p->info->sink_media));
    gdouble per_s = len > 0 ? p->buffers / (len / 1e9) : 0.0;
    SpWinPadRow *row = sp_row_new (&sp_win_pad_kind);

    row->pad = g_strdup (in ? in : "?");
    row->element = g_strdup (p->info->name);
    row->pipeline = g_strdup (p->info->pipe->name);
    row->run = sp_row_id ((guint) w->run);
    row->window = w->n;
    row->buffers = p->buffers;
    row->buffers_per_s = per_s;
    row->bytes_per_s = len > 0 ? p->bytes / (len / 1e9) : 0.0;
    row->fps = video ? per_s : 0.0;
    row->unit = g_strdup (video ? "frames" : "buffers");
    append_row (arr, sp_row_into_structure (&sp_win_pad_kind, row));
  }
}

static void
pad_add (GArray * pads, SpElemInfo * info, const ElemPrev * d)
{
  PadSum s = { info, d->buffers, d->bytes };

  for (guint i = 0; i < pads->len; i++) {
    PadSum *p = &g_array_index (pads, PadSum, i);
    if (p->info == info) {
      p->buffers += d->buffers;
      p->bytes += d->bytes;
      return;
    }
  }
  if (d->buffers > 0 || g_atomic_pointer_get (&info->in_pad))
    g_array_append_val (pads, s);
}

static void
add_element_rows (SpWindows * w, SpSnapshot * snap, SpPipe * p, gint gen,
    gdouble len, GValue * ev, GValue * pv)
{
  GArray *pads = g_array_new (FALSE, FALSE, sizeof (PadSum));
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  guint64 *hist = g_new (guint64, STAGE_HIST_BUCKETS);

  for (guint i = 0; i < snap->elems->len; i++) {
    SpElemRec *rec = g_ptr_array_index (snap->elems, i);
    ElemPrev d;
    gdouble workers = -1;

    if (rec->info->pipe != p || rec->run != w->run || rec->gen != gen
        || rec->thread->gen != gen)
      continue;
    d = elem_delta (w, rec, hist);
    /* A codec's workers once per element, on its first row. */
    if (g_hash_table_add (seen, rec->info))
      workers = worker_delta (w, rec->info);
    pad_add (pads, rec->info, &d);
    if (d.seen > 0 || workers > 0)
      append_row (ev, element_row (w, rec, &d, hist, len, workers));
  }
  add_pad_rows (w, pads, len, pv);
  g_free (hist);
  g_hash_table_destroy (seen);
  g_array_free (pads, TRUE);
}

static GstStructure *
thread_row (SpWindows * w, SpThreadRec * th, SpPipe * p, const ThreadPrev * d,
    gdouble len)
{
  SpWinThreadRow *row = sp_row_new (&sp_win_thread_kind);

  row->name = g_strdup (th->name);
  row->pipeline = g_strdup (p->name);
  row->run = sp_row_id ((guint) w->run);
  row->window = w->n;
  row->tid = th->tid;
  row->busy_pct = share (d->busy, len);
  row->wait_input_pct = share (d->wait_in, len);
  row->wait_output_pct = share (d->wait_out, len);
  row->blocked_pct = share (d->blocked, len);
  return sp_row_into_structure (&sp_win_thread_kind, row);
}

static void
add_thread_rows (SpWindows * w, SpSnapshot * snap, SpPipe * p, gint gen,
    gdouble len, GValue * tv)
{
  for (guint i = 0; i < snap->threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (snap->threads, i);
    gchar *key;
    ThreadPrev *prev, d;

    if (th->pipe != p || th->run != w->run || th->gen != gen)
      continue;
    key = g_strdup_printf ("%s\x1f%" G_GUINT64_FORMAT, th->name, th->tid);
    prev = g_hash_table_lookup (w->threads, key);
    if (!prev) {
      prev = g_new0 (ThreadPrev, 1);
      prev->gen = gen;
      g_hash_table_insert (w->threads, key, prev);
    } else {
      g_free (key);
    }
    if (prev->gen != gen || prev->busy > th->busy)
      memset (prev, 0, sizeof (ThreadPrev));
    d.busy = th->busy - prev->busy;
    d.wait_in = th->wait_in - MIN (prev->wait_in, th->wait_in);
    d.wait_out = th->wait_out - MIN (prev->wait_out, th->wait_out);
    d.blocked = th->blocked - MIN (prev->blocked, th->blocked);
    prev->gen = gen;
    prev->busy = th->busy;
    prev->wait_in = th->wait_in;
    prev->wait_out = th->wait_out;
    prev->blocked = th->blocked;
    append_row (tv, thread_row (w, th, p, &d, len));
  }
}

static GstStructure *
latency_row (SpWindows * w, const gchar * name, const gchar * pipe,
    guint64 n, guint64 sum, const guint64 * hist)
{
  SpWinLatencyRow *row = sp_row_new (&sp_win_latency_kind);

  row->name = g_strdup (name);
  row->pipeline = g_strdup (pipe);
  row->run = sp_row_id ((guint) w->run);
  row->window = w->n;
  row->frames = n;
  row->mean_ms = sum / 1e6 / n;
  row->median_ms = stage_hist_quantile (hist, 0.5) / 1e6;
  row->p90_ms = stage_hist_quantile (hist, 0.9) / 1e6;
  row->p99_ms = stage_hist_quantile (hist, 0.99) / 1e6;
  return sp_row_into_structure (&sp_win_latency_kind, row);
}

/* Each sink's frames of the window (latency=true): percentiles and the
 * histogram's non-empty buckets. */
static void
add_latency_rows (SpWindows * w, GArray * sinks, const gchar * pipe,
    GValue * lv, GValue * hv)
{
  guint64 *hist = g_new (guint64, STAGE_HIST_BUCKETS);

  for (guint i = 0; i < sinks->len; i++) {
    SpLatencySink *s = &g_array_index (sinks, SpLatencySink, i);
    SpLatencySink *prev = g_hash_table_lookup (w->latency, s->name);
    guint64 n, sum;

    if (!prev) {
      prev = g_new0 (SpLatencySink, 1);
      g_hash_table_insert (w->latency, g_strdup (s->name), prev);
    }
    if (prev->n > s->n)         /* the reset action */
      memset (prev, 0, sizeof (SpLatencySink));
    n = s->n - prev->n;
    sum = s->sum_ns - prev->sum_ns;
    for (guint b = 0; b < STAGE_HIST_BUCKETS; b++)
      hist[b] = s->hist[b] - MIN (prev->hist[b], s->hist[b]);
    *prev = *s;
    if (n == 0)
      continue;
    append_row (lv, latency_row (w, s->name, pipe, n, sum, hist));
    for (guint b = 0; b < STAGE_HIST_BUCKETS; b++) {
      SpWinLatencyHistRow *row;
      gdouble lo, hi;

      if (hist[b] == 0)
        continue;
      stage_hist_bounds (b, &lo, &hi);
      row = sp_row_new (&sp_win_latency_hist_kind);
      row->name = g_strdup (s->name);
      row->pipeline = g_strdup (pipe);
      row->run = sp_row_id ((guint) w->run);
      row->window = w->n;
      row->lo_ms = lo / 1e6;
      row->hi_ms = hi / 1e6;
      row->frames = hist[b];
      append_row (hv, sp_row_into_structure (&sp_win_latency_hist_kind, row));
    }
  }
  g_free (hist);
}

/* Where the run began: its first thread's first hook. */
static guint64
run_start (SpSnapshot * snap, SpPipe * p, gint run, gint gen)
{
  guint64 first = G_MAXUINT64;

  for (guint i = 0; i < snap->threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (snap->threads, i);
    if (th->pipe == p && th->run == run && th->gen == gen
        && th->first_ts > 0)
      first = MIN (first, th->first_ts);
  }
  return first;
}

/* The trace process of the run (the pipeline's own is the next run's
 * once it stopped). */
static guint
run_pid (SpSnapshot * snap, SpPipe * p, gint run, gint gen)
{
  for (guint i = 0; i < snap->threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (snap->threads, i);
    if (th->pipe == p && th->run == run && th->gen == gen)
      return th->pid;
  }
  return (guint) g_atomic_int_get (&p->pid);
}

static SpPipe *
find_pipe (SpRecorder * r, gpointer pipeline)
{
  for (guint i = 0; i < r->pipes->len; i++) {
    SpPipe *p = g_ptr_array_index (r->pipes, i);
    if (p->obj == pipeline)
      return p;
  }
  return NULL;
}

/* A new run of the pipeline starts its windows over. */
static void
windows_restart (SpWindows * w, gint run)
{
  w->run = run;
  w->n = 0;
  w->last_ts = 0;
  g_hash_table_remove_all (w->elems);
  g_hash_table_remove_all (w->threads);
  g_hash_table_remove_all (w->workers);
}

static GValue *
array_init (GValue * v)
{
  return g_value_init (v, GST_TYPE_ARRAY);
}

GstStructure *
sp_windows_close (SpWindows * w, SpRecorder * r, guint64 now, gboolean last)
{
  GValue ev = G_VALUE_INIT, pv = G_VALUE_INIT, qv = G_VALUE_INIT,
      tv = G_VALUE_INIT, os = G_VALUE_INIT, lv = G_VALUE_INIT,
      hv = G_VALUE_INIT;
  GArray *sinks = g_array_new (FALSE, FALSE, sizeof (SpLatencySink));
  GstStructure *s = NULL, *proc;
  guint64 start, cpu;
  SpSnapshot *snap;
  SpPipe *p;
  gdouble len;
  gchar *pipe_name;
  SpWindowRow *wrow;
  guint pid;
  gint gen;

  /* The follower has its own lock: read before the recorder's. */
  if (sp_recorder_latency (r))
    sp_latency_sinks (sp_recorder_latency (r), w->pipeline, sinks);
  /* Workers' CPU time, read from /proc outside the recorder lock. */
  array_init (&os);
  proc = sp_os_threads (r, &os);
  g_value_unset (&os);
  gst_structure_free (proc);
  cpu = sp_process_cpu_ns ();

  g_mutex_lock (&r->lock);
  p = find_pipe (r, w->pipeline);
  if (!p || p->run < 1 || sp_pipe_latest_run (p) == w->ended) {
    g_mutex_unlock (&r->lock);
    g_array_free (sinks, TRUE);
    return NULL;
  }
  if (sp_pipe_latest_run (p) != w->run)
    windows_restart (w, sp_pipe_latest_run (p));
  if (last)
    w->ended = w->run;
  gen = g_atomic_int_get (&r->gen);
  snap = sp_snapshot_locked (r);
  start = w->last_ts ? w->last_ts : run_start (snap, p, w->run, gen);
  if (start == G_MAXUINT64 || start >= now) {
    /* Nothing ran yet: no window, and the first one starts with the run. */
    g_mutex_unlock (&r->lock);
    sp_snapshot_free (snap);
    g_array_free (sinks, TRUE);
    return NULL;
  }
  if (!w->last_ts && (guint) w->run <= p->run_cpu0->len)
    w->proc_cpu = g_array_index (p->run_cpu0, guint64, w->run - 1);
  w->n++;
  len = (gdouble) (now - start);
  array_init (&ev);
  array_init (&pv);
  array_init (&qv);
  array_init (&tv);
  add_element_rows (w, snap, p, gen, len, &ev, &pv);
  add_thread_rows (w, snap, p, gen, len, &tv);
  for (guint i = 0; i < r->queues->len; i++) {
    SpQueue *q = g_ptr_array_index (r->queues, i);
    GstStructure *row;

    if (q->pipe != p
        || (row = sp_queue_window_row (q, w->run, now, w->n)) == NULL)
      continue;
    append_row (&qv, row);
  }
  pipe_name = g_strdup (p->name);
  pid = run_pid (snap, p, w->run, gen);
  g_mutex_unlock (&r->lock);
  sp_snapshot_free (snap);
  array_init (&lv);
  array_init (&hv);
  add_latency_rows (w, sinks, pipe_name, &lv, &hv);
  g_array_free (sinks, TRUE);

  wrow = sp_row_new (&sp_window_kind);
  wrow->pipeline = pipe_name;
  wrow->run = sp_row_id ((guint) w->run);
  wrow->window = w->n;
  wrow->start_s = start / 1e9;
  wrow->end_s = now / 1e9;
  wrow->length_s = len / 1e9;
  /* The whole process's: 100 is one core busy. */
  wrow->process_cpu_pct = w->proc_cpu && cpu > w->proc_cpu ?
      100.0 * (cpu - w->proc_cpu) / len : 0.0;
  s = sp_row_into_structure (&sp_window_kind, wrow);
  gst_structure_set (s, "trace_pid", G_TYPE_UINT, pid, NULL);
  gst_structure_take_value (s, "window_elements", &ev);
  gst_structure_take_value (s, "window_pads", &pv);
  gst_structure_take_value (s, "window_queues", &qv);
  gst_structure_take_value (s, "window_threads", &tv);
  gst_structure_take_value (s, "window_latency", &lv);
  gst_structure_take_value (s, "window_latency_hist", &hv);
  w->last_ts = now;
  w->proc_cpu = cpu;
  return s;
}
