/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spbuild: turns stageprof's records into the "stageprof-summary"
 * GstStructure (documented in docs/tracer.md): element, queue, thread and
 * sink rows, and the verdict (spverdict.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "spbuild.h"
#include "spsummary.h"
#include "splatrows.h"
#include "sprowgst.h"
#include "spschema.h"
#include "sppoolrows.h"
#include "spqueue.h"
#include "spthreads.h"
#include "jsontext.h"

/* ------------------------------------------------------------------ */
/* Summary */

static gboolean
pipe_matches (SpPipe * p, gpointer pipeline)
{
  if (pipeline == SP_RECORDER_PENDING)
    return !p->summarized;
  return pipeline == NULL || p->obj == pipeline;
}

/* The run a pipeline's own summary is about: the one going on, or the one
 * that just stopped (the next is numbered at the stop). */
gint
sp_pipe_latest_run (SpPipe * p)
{
  return p->run_used || p->run == 1 ? p->run : p->run - 1;
}

#define latest_run sp_pipe_latest_run

/* A record of run `run` of `p` belongs to the summary for `pipeline`: all
 * runs in the summary of every pipeline, the latest one in a pipeline's
 * own (its earlier runs were summarized when they stopped). */
static gboolean
run_matches (SpPipe * p, gint run, gpointer pipeline)
{
  if (!pipe_matches (p, pipeline))
    return FALSE;
  return pipeline == NULL || run == latest_run (p);
}


static gboolean
rec_has_data (SpElemRec * rec, gint gen)
{
  SpThreadRec *th = rec->thread;
  gboolean res;
  guint s1;

  do {
    while ((s1 = __atomic_load_n (&th->seq, __ATOMIC_ACQUIRE)) & 1)
      g_thread_yield ();
    res = __atomic_load_n (&rec->gen, __ATOMIC_RELAXED) == gen
        && __atomic_load_n (&rec->seen, __ATOMIC_RELAXED) > 0;
    __atomic_thread_fence (__ATOMIC_ACQUIRE);
  } while (__atomic_load_n (&th->seq, __ATOMIC_RELAXED) != s1);
  return res;
}

gboolean
sp_summary_has_data (SpRecorder * r, gpointer pipeline)
{
  gboolean found = FALSE;
  guint i;
  gint gen;

  g_mutex_lock (&r->lock);
  gen = g_atomic_int_get (&r->gen);
  for (i = 0; i < r->elems->len && !found; i++) {
    SpElemRec *rec = g_ptr_array_index (r->elems, i);
    found = rec_has_data (rec, gen)
        && run_matches (rec->info->pipe, rec->run, pipeline);
  }
  for (i = 0; i < r->queues->len && !found; i++) {
    SpQueue *q = g_ptr_array_index (r->queues, i);
    found = q->items > 0 && pipe_matches (q->pipe, pipeline);
  }
  g_mutex_unlock (&r->lock);
  return found;
}

gint
sp_summary_latest_run (SpRecorder * r, gpointer pipeline)
{
  gint run = 0;
  guint i;

  g_mutex_lock (&r->lock);
  for (i = 0; i < r->pipes->len; i++) {
    SpPipe *p = g_ptr_array_index (r->pipes, i);
    if (p->obj == pipeline && pipeline != NULL)
      run = latest_run (p);
  }
  g_mutex_unlock (&r->lock);
  return run;
}

gchar *
sp_summary_pipeline_name (SpRecorder * r, gpointer pipeline)
{
  SpPipe *p;
  gchar *name = NULL;

  g_mutex_lock (&r->lock);
  p = g_hash_table_lookup (r->pipes_by_obj, pipeline);
  if (p)
    name = g_strdup (p->name);
  g_mutex_unlock (&r->lock);
  return name;
}

/* ------------------------------------------------------------------ */
/* Consistent copies of what streaming threads write (see SpThreadRec.seq):
 * the summary works on these, never on the live records. */


/* The seqlock reader's loads: a writer may store meanwhile (SP_SET), so
 * each word is loaded atomically (relaxed; the fences of copy_thread order
 * them). Both records are made of 8-byte-aligned words. */
G_STATIC_ASSERT (sizeof (SpThreadRec) % sizeof (guint64) == 0);
G_STATIC_ASSERT (G_ALIGNOF (SpElemRec) % sizeof (guint64) == 0);
G_STATIC_ASSERT (G_STRUCT_OFFSET (SpElemRec, stats) % sizeof (guint64) == 0);

static inline void
load_words (gpointer dst, gconstpointer src, gsize size)
{
  guint64 *d = dst;
  const guint64 *s = src;
  gsize i;

  for (i = 0; i < size / sizeof (guint64); i++)
    d[i] = __atomic_load_n (&s[i], __ATOMIC_RELAXED);
}

/* The StageStats inside an element record is the exception: its owner
 * updates it with SSE2 vector stores (ops/stats.c), which have no atomic
 * form, so it is copied with plain loads, uninstrumented under TSan
 * (SP_SEQLOCK_READER). A copy torn by a concurrent update is detected by
 * the sequence count and thrown away. */
static SP_SEQLOCK_READER void
load_stats (StageStats * dst, const StageStats * src)
{
  const volatile guint64 *s = (const volatile guint64 *) src;
  guint64 *d = (guint64 *) dst;
  gsize i;

  for (i = 0; i < sizeof (StageStats) / sizeof (guint64); i++)
    d[i] = s[i];
}

static void
load_rec (SpElemRec * dst, const SpElemRec * src)
{
  gsize st = G_STRUCT_OFFSET (SpElemRec, stats);
  gsize end = st + sizeof (StageStats);

  load_words (dst, src, st);
  load_stats (&dst->stats, &src->stats);
  load_words ((guint8 *) dst + end, (const guint8 *) src + end,
      sizeof (SpElemRec) - end);
}

static gboolean
copy_thread (SpThreadRec * th, GPtrArray * recs, SpThreadRec * th_copy,
    SpElemRec * rec_copies)
{
  guint s1 = __atomic_load_n (&th->seq, __ATOMIC_ACQUIRE), i;

  if (s1 & 1)
    return FALSE;
  load_words (th_copy, th, sizeof (SpThreadRec));
  for (i = 0; i < recs->len; i++)
    load_rec (&rec_copies[i], g_ptr_array_index (recs, i));
  __atomic_thread_fence (__ATOMIC_ACQUIRE);
  return __atomic_load_n (&th->seq, __ATOMIC_RELAXED) == s1;
}

/* Under the recorder lock (no record comes or goes meanwhile). */
SpSnapshot *
sp_snapshot_locked (SpRecorder * r)
{
  SpSnapshot *snap = g_new0 (SpSnapshot, 1);
  GHashTable *by_thread = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) g_ptr_array_unref);
  guint i, j, tries;

  snap->threads = g_ptr_array_new_with_free_func (g_free);
  snap->elems = g_ptr_array_new_with_free_func (g_free);
  for (i = 0; i < r->elems->len; i++) {
    SpElemRec *rec = g_ptr_array_index (r->elems, i);
    GPtrArray *a = g_hash_table_lookup (by_thread, rec->thread);
    if (!a) {
      a = g_ptr_array_new ();
      g_hash_table_insert (by_thread, rec->thread, a);
    }
    g_ptr_array_add (a, rec);
  }
  for (i = 0; i < r->threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (r->threads, i);
    GPtrArray *recs = g_hash_table_lookup (by_thread, th);
    static GPtrArray none;
    SpThreadRec *tc = g_new (SpThreadRec, 1);
    SpElemRec *rc;

    if (!recs)
      recs = &none;
    rc = g_new (SpElemRec, MAX (recs->len, 1));
    /* A writer holds the count odd for a few stores, never across a
     * wait: a retry or a yield is enough. */
    for (tries = 0; !copy_thread (th, recs, tc, rc); tries++)
      if (tries > 16)
        g_thread_yield ();
    g_ptr_array_add (snap->threads, tc);
    for (j = 0; j < recs->len; j++) {
      SpElemRec *c = g_new (SpElemRec, 1);
      *c = rc[j];
      c->thread = tc;
      g_ptr_array_add (snap->elems, c);
    }
    g_free (rc);
  }
  g_hash_table_destroy (by_thread);
  return snap;
}

void
sp_snapshot_free (SpSnapshot * snap)
{
  g_ptr_array_free (snap->threads, TRUE);
  g_ptr_array_free (snap->elems, TRUE);
  g_free (snap);
}

static gdouble
thread_wall (SpThreadRec * th)
{
  return th->last_ts > th->first_ts ? (gdouble) (th->last_ts - th->first_ts)
      : 0.0;
}

static gdouble
pct (gdouble part, gdouble whole)
{
  return whole > 0 ? MIN (100.0, 100.0 * part / whole) : 0.0;
}

/* A thread's time, every nanosecond of it in exactly one share. What the
 * hooks booked (busy, waits, blocked) covers the thread's life but for
 * moments outside any element (GStreamer's own code between hooks), which
 * count as blocked; the kernel's run-queue delay, time the thread was ready
 * but had no CPU, was booked as whatever the thread was doing meanwhile.
 * Busy time is mostly thread CPU time already (long invocations are timed
 * by CPU), so the delay sits in the rest: in an invocation's non-work part
 * (blocked, or wait on output in a queue or a multi-input element) or in a
 * wait the thread had just woken from. It is taken out of blocked, wait on
 * output, wait on input, and busy last. */
void
sp_summary_thread_shares (SpThreadRec * th, SpShares * o)
{
  guint64 wall = th->last_ts > th->first_ts ? th->last_ts - th->first_ts : 0;
  guint64 m = th->busy + th->wait_in + th->wait_out + th->blocked, rq;

  o->wall = wall;
  o->busy = th->busy;
  o->wait_in = th->wait_in;
  o->wait_out = th->wait_out;
  o->blocked = th->blocked;
  if (m > wall && m > 0) {
    /* Overlap (a hook pair the thread never closed): scale down. */
    gdouble f = (gdouble) wall / m;
    o->busy *= f;
    o->wait_in *= f;
    o->wait_out *= f;
    o->blocked = wall - o->busy - o->wait_in - o->wait_out;
  } else {
    o->blocked += wall - m;
  }
  rq = MIN (sp_thread_cpu_wait (th), wall);
  o->cpu_wait = rq;
  sp_shares_take_cpu_wait (rq, &o->blocked, &o->wait_out, &o->wait_in,
      &o->busy);
}

static gint
cmp_total (gconstpointer a, gconstpointer b)
{
  const SpElemRec *ra = *(SpElemRec * const *) a;
  const SpElemRec *rb = *(SpElemRec * const *) b;

  if (ra->stats.total != rb->stats.total)
    return ra->stats.total < rb->stats.total ? 1 : -1;
  return g_strcmp0 (ra->info->name, rb->info->name);
}

/* The element's GPU time a frame (ms), or -1 when it reported none. */
static gdouble
gpu_mean_ms (const SpElemInfo * info, gint gen)
{
  if (info->gpu_gen != gen || info->gpu_frames == 0)
    return -1;
  return info->gpu_ns / 1e6 / info->gpu_frames;
}

/* Of an element's blocked time, what was waiting for a CPU: the thread's
 * run-queue delay comes out of its blocked time first (sp_summary_thread_shares),
 * shared among its elements by their blocked time. */
static guint64
blocked_cpu_wait (SpElemRec * rec)
{
  SpThreadRec *th = rec->thread;
  guint64 rq;

  if (rec->blocked_ns == 0 || th->blocked == 0)
    return 0;
  rq = MIN (sp_thread_cpu_wait (th), th->blocked);
  return MIN (rec->blocked_ns, (guint64) ((gdouble) rq * rec->blocked_ns /
          th->blocked));
}

static GstStructure *
element_row (SpElemRec * rec, gint gen)
{
  const StageStats *s = &rec->stats;
  gboolean any = s->count > 0;
  gdouble gpu = gpu_mean_ms (rec->info, gen);
  guint64 rq = blocked_cpu_wait (rec);
  const gchar *in;
  SpElemRow *row = sp_row_new (&sp_elem_kind);

  row->name = g_strdup (rec->info->name);
  row->thread = g_strdup (rec->thread->name);
  row->pipeline = g_strdup (rec->info->pipe->name);
  row->count = s->count;
  row->mean_ms = any ? s->mean : 0.0;
  row->std_ms = stage_stats_std (s);
  row->min_ms = any ? s->min : 0.0;
  row->max_ms = any ? s->max : 0.0;
  row->median_ms = any ? stage_stats_median (s) : 0.0;
  row->p90_ms = any ? stage_stats_p90 (s) : 0.0;
  row->p99_ms = any ? stage_stats_p99 (s) : 0.0;
  row->last_ms = any ? s->last : 0.0;
  row->total_s = s->total / 1e3;
  row->busy_pct = pct (s->total * 1e6, thread_wall (rec->thread));
  /* Inside its own invocations but not working. */
  row->clock_wait_s = rec->clock_ns / 1e9;
  row->input_wait_s = rec->wait_ns / 1e9;
  /* Not on a CPU: waiting for one is cpu_wait_s, not blocked. */
  row->blocked_s = (rec->blocked_ns - rq) / 1e9;
  row->cpu_wait_s = rq / 1e9;
  row->skipped = rec->seen - s->count;
  row->run = sp_row_id ((guint) rec->run);
  if (gpu >= 0)
    row->gpu_mean_ms = gpu;
  /* What it took in through its upstream src pad, where counted
   * (windows or the metrics endpoint on). */
  in = g_atomic_pointer_get (&rec->info->in_pad);
  if (in) {
    row->in_pad = g_strdup (in);
    row->in_buffers = rec->buffers;
    row->in_bytes = rec->bytes;
  }
  /* Threads it started (a codec's workers) and their CPU time. */
  if (rec->info->workers > 0) {
    row->workers = rec->info->workers;
    row->worker_cpu_s = rec->info->worker_cpu_ns / 1e9;
  }
  return sp_row_into_structure (&sp_elem_kind, row);
}

/* One row per element that reported GPU work (common/stagegputiming.h). */
static void
add_gpu_rows (SpRecorder * r, GValue * arr, gpointer pipeline, gint gen,
    gdouble wall_ns)
{
  guint i;

  for (i = 0; i < r->all_infos->len; i++) {
    SpElemInfo *info = g_ptr_array_index (r->all_infos, i);
    gdouble mean = gpu_mean_ms (info, gen);
    SpGpuRow *row;

    if (mean < 0 || !info->pipe || !pipe_matches (info->pipe, pipeline))
      continue;
    row = sp_row_new (&sp_gpu_kind);
    row->name = g_strdup (info->name);
    row->pipeline = g_strdup (info->pipe->name);
    row->run = sp_row_id ((guint) info->pipe->run);
    row->frames = info->gpu_frames;
    row->mean_ms = mean;
    row->total_s = info->gpu_ns / 1e9;
    row->busy_pct = pct (info->gpu_ns, wall_ns);
    sp_summary_take_row (arr, sp_row_into_structure (&sp_gpu_kind, row));
  }
}

static GstStructure *
thread_row (SpThreadRec * th, const SpShares * sh)
{
  SpThreadRow *row = sp_row_new (&sp_thread_kind);

  row->name = g_strdup (th->name);
  row->pipeline = g_strdup (th->pipe->name);
  row->tid = th->tid;
  row->wall_s = sh->wall / 1e9;
  row->busy_pct = pct (sh->busy, sh->wall);
  row->wait_input_pct = pct (sh->wait_in, sh->wall);
  row->wait_output_pct = pct (sh->wait_out, sh->wall);
  row->blocked_pct = pct (sh->blocked, sh->wall);
  row->cpu_wait_pct = pct (sh->cpu_wait, sh->wall);
  row->run = sp_row_id ((guint) th->run);
  return sp_row_into_structure (&sp_thread_kind, row);
}

/* Video frames arrive one a buffer as raw video or as a parsed elementary
 * stream; a container (mp4mux's output) or audio arrives in buffers that are
 * no frames. */
gboolean
sp_media_is_video_frames (const gchar * media)
{
  static const gchar *const containers[] = { "video/quicktime",
    "video/x-matroska", "video/webm", "video/x-msvideo", "video/mpegts",
    "video/x-flv", "video/ogg", "video/mp2t", NULL
  };

  if (!media || !g_str_has_prefix (media, "video/"))
    return FALSE;
  return !g_strv_contains (containers, media);
}

/* Sinks: buffers that reached the element, over every thread that chained
 * into it, and the rate over the first-to-last span. They are counted as
 * `frames` only where the input is video frames (`unit` says which). */
static void
add_sinks (GValue * arr, GPtrArray * recs, GPtrArray * threads)
{
  guint i, j;

  for (i = 0; i < recs->len; i++) {
    SpElemRec *rec = g_ptr_array_index (recs, i);
    guint64 frames = 0, first = G_MAXUINT64, last = 0;
    const gchar *media;
    gboolean video, dup = FALSE;
    gdouble span;
    SpSinkRow *row;

    if (!rec->info->is_sink)
      continue;
    /* One row per sink and run. */
    for (j = 0; j < i && !dup; j++) {
      SpElemRec *o = g_ptr_array_index (recs, j);
      dup = o->info == rec->info && o->run == rec->run;
    }
    if (dup)
      continue;
    for (j = i; j < recs->len; j++) {
      SpElemRec *o = g_ptr_array_index (recs, j);
      if (o->info != rec->info || o->run != rec->run)
        continue;
      frames += o->buffers;
      first = MIN (first, o->first_ts);
      last = MAX (last, o->last_ts);
    }
    /* Over the pipeline run's running time (every thread of it), not
     * the sink's own life: an audio sink that got its buffers in a burst
     * would read thousands a second. */
    for (j = 0; j < threads->len; j++) {
      SpThreadRec *th = g_ptr_array_index (threads, j);
      if (th->pipe == rec->info->pipe && th->run == rec->run) {
        first = MIN (first, th->first_ts);
        last = MAX (last, th->last_ts);
      }
    }
    span = last > first ? (gdouble) (last - first) : 0;
    media = g_atomic_pointer_get (&rec->info->sink_media);
    video = sp_media_is_video_frames (media);
    row = sp_row_new (&sp_sink_kind);
    row->name = g_strdup (rec->info->name);
    row->pipeline = g_strdup (rec->info->pipe->name);
    row->frames = video ? frames : 0;
    row->buffers = frames;
    row->unit = g_strdup (video ? "frames" : "buffers");
    row->media = g_strdup (media ? media : "unknown");
    row->sync = g_atomic_int_get (&rec->info->sync_clock) != 0;
    row->fps = span > 0 ? frames / (span / 1e9) : 0.0;
    row->run = sp_row_id ((guint) rec->run);
    sp_summary_take_row (arr, sp_row_into_structure (&sp_sink_kind, row));
  }
}

/* CPU the process used since the first of the summarized pipelines was
 * seen. */
static gdouble
process_cpu_of_run (SpPipe * p, gint run)
{
  guint64 t0, t1;

  if (run < 1 || (guint) run > p->run_cpu0->len)
    return 0.0;
  /* From the run's start to the next one's, or to now. */
  t0 = g_array_index (p->run_cpu0, guint64, run - 1);
  t1 = (guint) run < p->run_cpu0->len ?
      g_array_index (p->run_cpu0, guint64, run) : sp_process_cpu_ns ();
  return t1 > t0 ? (t1 - t0) / 1e9 : 0.0;
}

/* One pipeline's verdict, over its own records, threads and sinks. */
/* Threads of `p` that put buffers into a leaky queue that dropped some. */
static GHashTable *
ahead_threads (GPtrArray * elems, SpPipe * p, gint run)
{
  GHashTable *ahead = g_hash_table_new (NULL, NULL);
  guint i;

  for (i = 0; i < elems->len; i++) {
    SpElemRec *rec = g_ptr_array_index (elems, i);
    SpQueue *q = g_atomic_pointer_get (&rec->info->queue);
    if (rec->info->pipe == p && rec->run == run && q && rec->buffers > 0
        && q->dropped > 0)
      g_hash_table_add (ahead, rec->thread);
  }
  return ahead;
}

static GstStructure *
pipeline_row (SpPipe * p, gint run, GPtrArray * all_elems, GPtrArray * recs,
    GPtrArray * threads, const SpShares * shares)
{
  GPtrArray *pr = g_ptr_array_new (), *pt = g_ptr_array_new ();
  SpShares *ps = g_new0 (SpShares, MAX (threads->len, 1));
  GValue sinks = G_VALUE_INIT;
  SpVerdictInput in;
  guint64 first = G_MAXUINT64, last = 0;
  SpPipelineRow *row = sp_row_new (&sp_pipeline_kind);
  guint i;

  for (i = 0; i < recs->len; i++) {
    SpElemRec *rec = g_ptr_array_index (recs, i);
    if (rec->info->pipe == p && rec->run == run)
      g_ptr_array_add (pr, rec);
  }
  for (i = 0; i < threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (threads, i);
    if (th->pipe != p || th->run != run)
      continue;
    ps[pt->len] = shares[i];
    g_ptr_array_add (pt, th);
    first = MIN (first, th->first_ts);
    last = MAX (last, th->last_ts);
  }
  g_value_init (&sinks, GST_TYPE_ARRAY);
  add_sinks (&sinks, pr, pt);
  in.ahead = ahead_threads (all_elems, p, run);
  in.running_s = last > first ? (last - first) / 1e9 : 0.0;
  in.process_cpu_s = process_cpu_of_run (p, run);
  in.cores = g_get_num_processors ();
  row->verdict = sp_verdict (&in, pr, pt, ps, &sinks);
  g_hash_table_destroy (in.ahead);
  row->pipeline = g_strdup (p->name);
  row->run = sp_row_id ((guint) run);
  row->wall_s = in.running_s;
  row->process_cpu_s = in.process_cpu_s;
  /* A stopped run's records belong to it alone: the pipeline moved on to
   * a new run (pipe_new_run) at its PAUSED_TO_READY. */
  row->final = run < p->run;
  g_value_unset (&sinks);
  g_free (ps);
  g_ptr_array_free (pr, TRUE);
  g_ptr_array_free (pt, TRUE);
  return sp_row_into_structure (&sp_pipeline_kind, row);
}

/* Latency rows carry `run` like every other row: their pipeline's latest
 * run among the pipeline rows (the latency figures follow a pipeline
 * across its runs). */
static void
set_latency_runs (GValue * rows, const GValue * pipes)
{
  /* pipeline and run: the same keys in each table it is called for */
  const gchar *pipe_key = SP_KEY (pipelines, pipeline);
  const gchar *run_key = SP_KEY (pipelines, run);
  guint i, j, n = gst_value_array_get_size (rows);

  for (i = 0; i < n; i++) {
    GstStructure *r = (GstStructure *)
        gst_value_get_structure (gst_value_array_get_value (rows, i));
    const gchar *name = gst_structure_get_string (r, pipe_key);
    guint run = 0;

    for (j = 0; j < gst_value_array_get_size (pipes); j++) {
      const GstStructure *p =
          gst_value_get_structure (gst_value_array_get_value (pipes, j));
      guint pr = 1;

      if (g_strcmp0 (gst_structure_get_string (p, pipe_key), name) != 0)
        continue;
      gst_structure_get_uint (p, run_key, &pr);
      run = MAX (run, pr);
    }
    gst_structure_set (r, run_key, G_TYPE_UINT, MAX (run, 1), NULL);
  }
}

/* memory=true: a pipeline whose pool kept its user waiting says so after
 * its own verdict (spverdict.c decides). */
static void
add_pool_verdicts (GValue * pipes, const GValue * pools)
{
  for (guint i = 0; i < gst_value_array_get_size (pipes); i++) {
    GstStructure *p = (GstStructure *)
        gst_value_get_structure (gst_value_array_get_value (pipes, i));
    gchar *pv = sp_pool_verdict (pools,
        gst_structure_get_string (p, SP_KEY (pipelines, pipeline)));
    gchar *both;

    if (!pv)
      continue;
    both = g_strdup_printf ("%s; %s", gst_structure_get_string (p,
            SP_KEY (pipelines, verdict)), pv);
    gst_structure_set (p, SP_KEY (pipelines, verdict), G_TYPE_STRING, both,
        NULL);
    g_free (both);
    g_free (pv);
  }
}

/* memory=true: each pipeline row's peak of allocations alive and the
 * process's RSS. The pipelines are found by name under the lock: their
 * rows carry names only. */
static void
add_memory_peaks (SpRecorder * r, GValue * pipes)
{
  guint64 rss = 0, rss_peak = 0;
  gboolean have_rss = sp_process_rss (&rss, &rss_peak);

  for (guint i = 0; i < gst_value_array_get_size (pipes); i++) {
    GstStructure *row = (GstStructure *)
        gst_value_get_structure (gst_value_array_get_value (pipes, i));
    const gchar *name = gst_structure_get_string (row,
        SP_KEY (pipelines, pipeline));
    gpointer obj = NULL;

    g_mutex_lock (&r->lock);
    for (guint j = 0; j < r->pipes->len && !obj; j++) {
      SpPipe *p = g_ptr_array_index (r->pipes, j);
      if (g_strcmp0 (p->name, name) == 0)
        obj = p->obj;
    }
    g_mutex_unlock (&r->lock);
    if (obj)
      gst_structure_set (row, SP_KEY (pipelines, peak_bytes), G_TYPE_UINT64,
          sp_memory_pipeline_peak (sp_recorder_pools (r), obj), NULL);
    if (have_rss)
      gst_structure_set (row, SP_KEY (pipelines, rss_bytes), G_TYPE_UINT64,
          rss, SP_KEY (pipelines, rss_peak_bytes), G_TYPE_UINT64, rss_peak,
          NULL);
  }
}

/* The verdict field: the pipeline's own, or each pipeline's by name. */
static gchar *
joined_verdict (const GValue * pipes)
{
  guint i, n = gst_value_array_get_size (pipes);
  GString *out = g_string_new (NULL);

  if (n == 0)
    g_string_append (out, "no verdict: no streaming thread ran long enough "
        "to judge");
  for (i = 0; i < n; i++) {
    const GstStructure *p =
        gst_value_get_structure (gst_value_array_get_value (pipes, i));
    if (n == 1) {
      g_string_append (out, gst_structure_get_string (p,
              SP_KEY (pipelines, verdict)));
      break;
    }
    {
      guint run = 1;
      gst_structure_get_uint (p, SP_KEY (pipelines, run), &run);
      g_string_append_printf (out, "%s%s", i ? "; " : "",
          gst_structure_get_string (p, SP_KEY (pipelines, pipeline)));
      if (run > 1)
        g_string_append_printf (out, " (run %u)", run);
      g_string_append_printf (out, ": %s",
          gst_structure_get_string (p, SP_KEY (pipelines, verdict)));
    }
  }
  return g_string_free (out, FALSE);
}

/* Whether every run the summary covers has ended: then it is final even
 * when asked for live (get-summary after the pipeline went to NULL). */
static gboolean
all_runs_final (const GValue * pipes)
{
  guint i, n = gst_value_array_get_size (pipes);

  for (i = 0; i < n; i++) {
    gboolean final = FALSE;
    gst_structure_get_boolean (gst_value_get_structure
        (gst_value_array_get_value (pipes, i)), SP_KEY (pipelines, final),
        &final);
    if (!final)
      return FALSE;
  }
  return n > 0;
}

/* The records of the snapshot the summary is of (this generation, seen,
 * of `pipeline`), and the span of their threads. */
static void
select_records (SpSnapshot * snap, gint gen, gpointer pipeline,
    GPtrArray * recs, GPtrArray * threads, guint64 * first, guint64 * last)
{
  for (guint i = 0; i < snap->elems->len; i++) {
    SpElemRec *rec = g_ptr_array_index (snap->elems, i);
    if (rec->gen == gen && rec->thread->gen == gen && rec->seen > 0
        && run_matches (rec->info->pipe, rec->run, pipeline))
      g_ptr_array_add (recs, rec);
  }
  for (guint i = 0; i < snap->threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (snap->threads, i);
    if (th->gen == gen && run_matches (th->pipe, th->run, pipeline)
        && th->last_ts > th->first_ts) {
      g_ptr_array_add (threads, th);
      *first = MIN (*first, th->first_ts);
      *last = MAX (*last, th->last_ts);
    }
  }
}

/* Every queue's row (and, in the summary of all pipelines, the rows of
 * its earlier runs). r->lock held. */
static void
add_queue_rows (SpRecorder * r, gpointer pipeline, GValue * qv)
{
  for (guint i = 0; i < r->queues->len; i++) {
    SpQueue *q = g_ptr_array_index (r->queues, i);
    if (!pipe_matches (q->pipe, pipeline))
      continue;
    g_mutex_lock (&q->lock);
    for (guint j = 0; pipeline == NULL && q->past_rows
        && j < q->past_rows->len; j++)
      sp_summary_take_row (qv,
          gst_structure_copy (g_ptr_array_index (q->past_rows, j)));
    if (q->items > 0 || q->put_seen > 0)
      sp_summary_take_row (qv, sp_queue_row (q));
    g_mutex_unlock (&q->lock);
  }
}

/* One row per pipeline and run that has threads here, with its verdict;
 * returns the pipeline `pipeline` is, if any. r->lock held. */
static SpPipe *
add_pipeline_rows (SpRecorder * r, gpointer pipeline, SpSnapshot * snap,
    GPtrArray * recs, GPtrArray * threads, SpShares * shares, GValue * pv)
{
  SpPipe *one = NULL;

  for (guint i = 0; i < r->pipes->len; i++) {
    SpPipe *p = g_ptr_array_index (r->pipes, i);

    for (gint run = 1; run <= p->run; run++) {
      gboolean any = FALSE;
      for (guint j = 0; j < threads->len && !any; j++) {
        SpThreadRec *th = g_ptr_array_index (threads, j);
        any = th->pipe == p && th->run == run;
      }
      if (any)
        sp_summary_take_row (pv, pipeline_row (p, run, snap->elems, recs,
                threads, shares));
    }
    if (p->obj == pipeline && pipeline != NULL)
      one = p;
  }
  return one;
}

/* An element's mean self time a buffer (ms) over the threads it ran on,
 * by the names the rows use; NAN when it has no row. */
static gdouble
work_of (const gchar * name, const gchar * pipeline, gpointer data)
{
  GPtrArray *recs = data;
  gdouble total = 0;
  guint64 count = 0;

  for (guint i = 0; i < recs->len; i++) {
    SpElemRec *rec = g_ptr_array_index (recs, i);
    if (rec->info->name == name && rec->info->pipe->name == pipeline) {
      total += rec->stats.total;
      count += rec->stats.count;
    }
  }
  return count ? total / count : NAN;
}

static GValue *
array_init (GValue * v)
{
  return g_value_init (v, GST_TYPE_ARRAY);
}

GstStructure *
sp_summary_build (SpRecorder * r, gpointer pipeline, gboolean final)
{
  GPtrArray *recs = g_ptr_array_new (), *threads = g_ptr_array_new ();
  GValue ev = G_VALUE_INIT, qv = G_VALUE_INIT, tv = G_VALUE_INIT,
      sv = G_VALUE_INIT, ov = G_VALUE_INIT, pv = G_VALUE_INIT,
      gv = G_VALUE_INIT, lv = G_VALUE_INIT, elv = G_VALUE_INIT,
      plv = G_VALUE_INIT, mv = G_VALUE_INIT;
  GstStructure *s, *proc;
  SpShares *shares;
  SpSnapshot *snap;
  SpPipe *one;
  gchar *one_name = NULL;
  guint one_run = 0;
  guint64 first = G_MAXUINT64, last = 0;
  gchar *v;
  gint gen;

  array_init (&ev);
  array_init (&qv);
  array_init (&tv);
  array_init (&sv);
  array_init (&ov);
  array_init (&pv);
  array_init (&gv);
  proc = sp_os_threads (r, &ov);
  g_mutex_lock (&r->lock);
  snap = sp_snapshot_locked (r);
  gen = g_atomic_int_get (&r->gen);
  select_records (snap, gen, pipeline, recs, threads, &first, &last);
  g_ptr_array_sort (recs, cmp_total);
  for (guint i = 0; i < recs->len; i++)
    sp_summary_take_row (&ev, element_row (g_ptr_array_index (recs, i),
            gen));
  add_queue_rows (r, pipeline, &qv);
  shares = g_new0 (SpShares, MAX (threads->len, 1));
  for (guint i = 0; i < threads->len; i++) {
    sp_summary_thread_shares (g_ptr_array_index (threads, i), &shares[i]);
    sp_summary_take_row (&tv, thread_row (g_ptr_array_index (threads, i),
            &shares[i]));
  }
  add_sinks (&sv, recs, threads);
  one = add_pipeline_rows (r, pipeline, snap, recs, threads, shares, &pv);
  if (one) {
    /* A copy: the pipeline's records may be freed once the lock is let
     * go (spnames.h). */
    one_name = g_strdup (one->name);
    one_run = latest_run (one);
  }
  add_gpu_rows (r, &gv, pipeline, gen, last > first ? (gdouble) (last -
          first) : 0.0);
  g_mutex_unlock (&r->lock);
  if (sp_recorder_latency (r)) {
    array_init (&lv);
    array_init (&elv);
    sp_summary_latency_rows (sp_recorder_latency (r), pipeline, work_of,
        recs, &lv, &elv);
    set_latency_runs (&lv, &pv);
    set_latency_runs (&elv, &pv);
  }
  if (sp_recorder_pools (r)) {
    array_init (&plv);
    array_init (&mv);
    sp_summary_pool_rows (sp_recorder_pools (r), pipeline, &plv, &mv);
    set_latency_runs (&plv, &pv);
    add_pool_verdicts (&pv, &plv);
    set_latency_runs (&mv, &pv);
    add_memory_peaks (r, &pv);
  }
  g_free (shares);
  v = joined_verdict (&pv);

  s = gst_structure_new ("stageprof-summary",
      "wall_s", G_TYPE_DOUBLE, last > first ? (last - first) / 1e9 : 0.0,
      "final", G_TYPE_BOOLEAN, final || all_runs_final (&pv), NULL);
  gst_structure_take_value (s, "elements", &ev);
  gst_structure_take_value (s, "queues", &qv);
  gst_structure_take_value (s, "threads", &tv);
  gst_structure_take_value (s, "sinks", &sv);
  gst_structure_take_value (s, "os_threads", &ov);
  gst_structure_take_value (s, "pipelines", &pv);
  gst_structure_take_value (s, "gpu", &gv);
  if (G_IS_VALUE (&lv)) {
    gst_structure_take_value (s, "latency", &lv);
    gst_structure_take_value (s, "element_latency", &elv);
  }
  if (G_IS_VALUE (&plv)) {
    gst_structure_take_value (s, "pools", &plv);
    gst_structure_take_value (s, "memory", &mv);
  }
  gst_structure_set (s, "verdict", G_TYPE_STRING, v,
      "process", GST_TYPE_STRUCTURE, proc, NULL);
  /* One pipeline's summary says which, and which run. */
  if (one)
    gst_structure_set (s, "pipeline", G_TYPE_STRING, one_name,
        "run", G_TYPE_UINT, one_run, NULL);
  gst_structure_free (proc);
  g_free (one_name);
  g_free (v);
  g_ptr_array_free (recs, TRUE);
  g_ptr_array_free (threads, TRUE);
  sp_snapshot_free (snap);
  return s;
}

void
sp_summary_trace_meta (SpRecorder * r, SpTrace * t, gpointer pipeline)
{
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  GString *ev = g_string_new (NULL);
  guint i;

  g_mutex_lock (&r->lock);
  for (i = 0; i < r->threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (r->threads, i);

    if (!th->pipe || !pipe_matches (th->pipe, pipeline))
      continue;
    g_string_printf (ev, "{\"name\":\"stageprof_thread\",\"ph\":\"M\","
        "\"pid\":%u,\"tid\":%" G_GUINT64_FORMAT ",\"args\":{\"cpu_wait\":"
        "%.6f}}\n", th->pid, th->tid, sp_thread_cpu_wait (th) / 1e9);
    sp_trace_metadata (t, ev->str, FALSE);
  }
  for (i = 0; i < r->elems->len; i++) {
    SpElemRec *rec = g_ptr_array_index (r->elems, i);
    SpElemInfo *info = rec->info;

    if (info->workers == 0 || !info->pipe || !pipe_matches (info->pipe,
            pipeline) || !g_hash_table_add (seen, info))
      continue;
    g_string_printf (ev, "{\"name\":\"stageprof_workers\",\"ph\":\"M\","
        "\"pid\":%u,\"tid\":%" G_GUINT64_FORMAT ",\"args\":{\"element\":\"",
        rec->thread->pid, rec->thread->tid);
    stage_json_escape (ev, info->name);
    g_string_append_printf (ev, "\",\"kind\":\"%s\",\"workers\":%u,"
        "\"cpu\":%.6f}}\n", sp_kind_labels[info->kind], info->workers,
        info->worker_cpu_ns / 1e9);
    sp_trace_metadata (t, ev->str, FALSE);
  }
  /* The queues' buffer limits, which a trace's counters do not carry: the
   * limit line of stageprof-report's plot. */
  for (i = 0; i < r->queues->len; i++) {
    SpQueue *q = g_ptr_array_index (r->queues, i);
    guint limit, pid;

    if (!pipe_matches (q->pipe, pipeline))
      continue;
    g_mutex_lock (&q->lock);
    limit = q->limits_known ? q->max_buffers : 0;
    pid = q->pid;
    g_mutex_unlock (&q->lock);
    if (limit == 0)
      continue;
    g_string_printf (ev, "{\"name\":\"stageprof_queue\",\"ph\":\"M\","
        "\"pid\":%u,\"tid\":0,\"args\":{\"queue\":\"", pid);
    stage_json_escape (ev, q->name);
    g_string_append_printf (ev, "\",\"limit_buffers\":%u}}\n", limit);
    sp_trace_metadata (t, ev->str, FALSE);
  }
  g_mutex_unlock (&r->lock);
  g_string_free (ev, TRUE);
  g_hash_table_destroy (seen);
}
