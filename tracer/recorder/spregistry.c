/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spregistry: the recorder and its registries, stageprof's cold path.
 *
 * Elements, pipelines and their runs are first seen here (classified,
 * named by their path, their queue limits and clock sync read), the
 * cold-path hooks (state changes, flushes, deaths) land here, and so does
 * freeing what belonged to dead pipelines. Everything here runs under the
 * recorder lock, never per buffer; the hot path is sprecord.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <time.h>

#include "sppool.h"
#include "spqueue.h"
#include "spregistry.h"
#include "spthreads.h"
#include "spsummary.h"

/* SpKind, in words (sprecorder.h) */
const gchar *const sp_kind_labels[] = {
  "compute", "source", "demux", "decode", "convert", "encode", "mux", "sink"
};

static void info_free (gpointer data);
static void pipe_free (gpointer data);

/* ------------------------------------------------------------------ */
/* Recorder */

/* How much slower than 2 ns a step this process runs a plain loop, by
 * thread CPU time (load does not change it); 1 on a normal machine. */
static guint64
speed_factor (SpRecorder * r)
{
  volatile guint32 x = 1;
  guint64 t0, ns;
  guint i;

  if (!r->cpu_clock)
    return 1;
  t0 = sp_thread_cpu_ns ();
  for (i = 0; i < 100000; i++)
    x = x * 1664525u + 1013904223u;
  ns = sp_thread_cpu_ns () - t0;
  return MAX (1, ns / 200000);
}

/* Recorders alive: a thread that exits after its recorder was freed must
 * not touch that recorder's records. */
static GMutex live_lock;
static GHashTable *live_recorders;

static void
sp_live_recorder (SpRecorder * r, gboolean alive)
{
  g_mutex_lock (&live_lock);
  if (!live_recorders)
    live_recorders = g_hash_table_new (NULL, NULL);
  if (alive)
    g_hash_table_add (live_recorders, r);
  else
    g_hash_table_remove (live_recorders, r);
  g_mutex_unlock (&live_lock);
}

void
sp_live_lock (void)
{
  g_mutex_lock (&live_lock);
}

void
sp_live_unlock (void)
{
  g_mutex_unlock (&live_lock);
}

/* sp_live_lock() held. */
gboolean
sp_recorder_is_live (SpRecorder * r)
{
  return live_recorders && g_hash_table_contains (live_recorders, r);
}

/* The media type of a sink's first input pad, kept once known (caps set):
 * tried at the sink's first record and at its PAUSED<->PLAYING changes.
 * Cold path, outside the recorder lock. */
void
sp_read_sink_media (SpElemInfo * info, GstElement * e)
{
  GstPad *pad = NULL;
  GstCaps *caps = NULL;

  GST_OBJECT_LOCK (e);
  if (e->sinkpads)
    pad = gst_object_ref (e->sinkpads->data);
  GST_OBJECT_UNLOCK (e);
  if (pad)
    caps = gst_pad_get_current_caps (pad);
  if (caps && gst_caps_get_size (caps) > 0)
    g_atomic_pointer_set (&info->sink_media, g_intern_string
        (gst_structure_get_name (gst_caps_get_structure (caps, 0))));
  if (caps)
    gst_caps_unref (caps);
  if (pad)
    gst_object_unref (pad);
}

SpRecorder *
sp_recorder_new (void)
{
  SpRecorder *r = g_new0 (SpRecorder, 1);

  g_mutex_init (&r->lock);
  r->infos = g_hash_table_new (NULL, NULL);
  r->pipes_by_obj = g_hash_table_new (NULL, NULL);
  r->all_infos = g_ptr_array_new_with_free_func (info_free);
  r->threads = g_ptr_array_new_with_free_func (g_free);
  r->elems = g_ptr_array_new_with_free_func (g_free);
  r->queues = g_ptr_array_new ();
  r->pipes = g_ptr_array_new_with_free_func (pipe_free);
  r->states = g_ptr_array_new ();
  r->limbo = g_ptr_array_new ();
  g_queue_init (&r->dead);
  r->epoch = 1;
  {
    struct timespec t;
    r->cpu_clock = clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t) == 0;
  }
  if (r->cpu_clock) {
    /* What one read costs, to take the tracer's own reads out of the
     * parent of a timed invocation (the smallest of a few, in ns). */
    guint64 prev = sp_thread_cpu_ns (), now, best = G_MAXUINT64;
    gint i;
    for (i = 0; i < 16; i++) {
      now = sp_thread_cpu_ns ();
      best = MIN (best, now - prev);
      prev = now;
    }
    r->cpu_read_ns = best;
  }
  /* Long relative to this process's speed and to what timing costs: 50 µs
   * where a step of a plain loop takes 2 ns, more where code runs slower
   * (under valgrind everything takes ~100x, and would all look long), and
   * at least 100 reads, so the reads stay about 1 % of what they time. */
  r->split_min_ns = MAX (SP_CPU_SPLIT_MIN_NS * speed_factor (r),
      100 * r->cpu_read_ns);
  r->t0 = g_get_monotonic_time () * 1000;
  r->proc_cpu_t0 = sp_process_cpu_ns ();
  r->os_threads = g_hash_table_new_full (NULL, NULL, NULL,
      sp_os_thread_free);
  r->names = sp_names_new ();
  sp_live_recorder (r, TRUE);
  return r;
}


void
sp_recorder_free (SpRecorder * r)
{
  guint i;

  if (!r)
    return;
  /* Thread states of live threads still point at us: make them start over
   * (they never will: hooks are gone when the tracer is finalized). */
  g_atomic_int_inc (&r->epoch);
  sp_live_recorder (r, FALSE);
  g_hash_table_destroy (r->os_threads);
  g_ptr_array_set_size (r->states, 0);
  sp_limbo_collect_locked (r);
  g_ptr_array_free (r->states, TRUE);
  g_ptr_array_free (r->limbo, TRUE);
  g_queue_clear (&r->dead);
  for (i = 0; i < r->queues->len; i++)
    sp_queue_free (g_ptr_array_index (r->queues, i));
  g_ptr_array_free (r->queues, TRUE);
  g_ptr_array_free (r->all_infos, TRUE);
  g_ptr_array_free (r->threads, TRUE);
  g_ptr_array_free (r->elems, TRUE);
  g_ptr_array_free (r->pipes, TRUE);
  g_hash_table_destroy (r->infos);
  g_hash_table_destroy (r->pipes_by_obj);
  if (r->filter)
    g_regex_unref (r->filter);
  g_mutex_clear (&r->lock);
  if (r->latency)
    r->latency_ops->free (r->latency);
  sp_pools_free (r->pools);
  /* Last: every record above carried its names. */
  sp_names_free (r->names);
  g_free (r);
}

void
sp_recorder_set_skip_first (SpRecorder * r, guint n)
{
  g_atomic_int_set (&r->skip_first, n);
}

static gboolean
name_traced (SpRecorder * r, const gchar * name)
{
  return r->filter == NULL || g_regex_match (r->filter, name, 0, NULL);
}

void
sp_recorder_set_filter (SpRecorder * r, GRegex * filter)
{
  guint i;

  g_mutex_lock (&r->lock);
  if (r->filter)
    g_regex_unref (r->filter);
  r->filter = filter ? g_regex_ref (filter) : NULL;
  for (i = 0; i < r->all_infos->len; i++) {
    SpElemInfo *info = g_ptr_array_index (r->all_infos, i);
    g_atomic_int_set (&info->traced, name_traced (r, info->name));
    if (info->queue)
      g_atomic_int_set (&info->queue->traced, info->traced);
  }
  g_mutex_unlock (&r->lock);
}

void
sp_recorder_set_trace (SpRecorder * r, SpTrace * trace)
{
  g_mutex_lock (&r->lock);
  g_atomic_pointer_set (&r->trace, trace);
  if (trace) {
    guint i;
    /* The trace keeps the names its events carry by pointer, to the end. */
    sp_names_keep_all (r->names);
    for (i = 0; i < r->pipes->len; i++) {
      SpPipe *p = g_ptr_array_index (r->pipes, i);
      if (p->run == 1 || p->run_used)
        sp_pipe_name_process (r, p);
      p->gpu_track_named = FALSE;
    }
    for (i = 0; i < r->threads->len; i++) {
      SpThreadRec *th = g_ptr_array_index (r->threads, i);
      sp_trace_thread_name (trace, th->pid, th->tid, th->name);
    }
  }
  g_mutex_unlock (&r->lock);
}


void
sp_recorder_reset (SpRecorder * r)
{
  guint i;

  g_mutex_lock (&r->lock);
  /* Element and thread records belong to their streaming thread: bumping
   * the generation makes each thread clear its own on its next hook, and
   * the summary skips records of an older generation meanwhile. */
  g_atomic_int_inc (&r->gen);
  g_atomic_int_inc (&r->epoch);
  for (i = 0; i < r->queues->len; i++) {
    SpQueue *q = g_ptr_array_index (r->queues, i);
    g_mutex_lock (&q->lock);
    sp_queue_reset_stats_locked (q);
    g_mutex_unlock (&q->lock);
  }
  g_mutex_unlock (&r->lock);
  /* after the recorder lock: the latency lock comes before it
   * (docs/architecture.md, "Locks") */
  if (r->latency)
    r->latency_ops->reset (r->latency);
  sp_pools_reset (sp_recorder_pools (r));
}

/* ------------------------------------------------------------------ */
/* Cold path: first sight of elements, threads and pipelines. */

static SpKind
classify (GstElement * e)
{
  const gchar *klass =
      gst_element_get_metadata (e, GST_ELEMENT_METADATA_KLASS);

  if (klass == NULL)
    return SP_KIND_OTHER;
  if (strstr (klass, "Decoder") || strstr (klass, "Depayloader"))
    return SP_KIND_DECODE;
  if (strstr (klass, "Encoder") || strstr (klass, "Payloader"))
    return SP_KIND_ENCODE;
  if (strstr (klass, "Demux") || strstr (klass, "Parser"))
    return SP_KIND_DEMUX;
  if (strstr (klass, "Muxer"))
    return SP_KIND_MUX;
  if (strstr (klass, "Sink"))
    return SP_KIND_SINK;
  if (strstr (klass, "Source"))
    return SP_KIND_SOURCE;
  if (strstr (klass, "Converter") || strstr (klass, "Scaler"))
    return SP_KIND_CONVERT;
  return SP_KIND_OTHER;
}

/* Names of `r`'s table, or interned without a recorder (unit tests of
 * the latency follower). */
static const gchar *
name_ref (SpRecorder * r, const gchar * s)
{
  return r ? sp_names_ref (r->names, s) : g_intern_string (s);
}

const gchar *
sp_display_name (SpRecorder * r, const gchar * name)
{
  gchar *esc = sp_summary_escape (name);
  const gchar *res = name_ref (r, esc);

  g_free (esc);
  return res;
}

static SpPipe *
pipe_for_locked (SpRecorder * r, GstElement * e)
{
  GstObject *top = GST_OBJECT_CAST (e);
  SpPipe *p;

  while (GST_OBJECT_PARENT (top))
    top = GST_OBJECT_PARENT (top);
  p = g_hash_table_lookup (r->pipes_by_obj, top);
  if (p && GST_OBJECT_NAME (top) && strcmp (p->name, GST_OBJECT_NAME (top))) {
    /* Renamed since first seen (gst_parse_launch, then set_name). The
     * old name stays while a trace holds it (sp_names_keep_all). */
    sp_names_unref (r->names, p->name);
    p->name = sp_display_name (r, GST_OBJECT_NAME (top));
    if (r->trace)
      sp_trace_process_name (r->trace, p->pid, p->name);
  }
  if (p)
    return p;
  p = g_new0 (SpPipe, 1);
  p->obj = top;
  p->name = sp_display_name (r, GST_OBJECT_NAME (top) ?
      GST_OBJECT_NAME (top) : "(unnamed)");
  p->pid = ++r->next_pid;
  p->run = 1;
  p->threads_by_tid = g_hash_table_new (NULL, NULL);
  p->proc_cpu0 = sp_process_cpu_ns ();
  p->run_cpu0 = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_array_append_val (p->run_cpu0, p->proc_cpu0);
  g_hash_table_insert (r->pipes_by_obj, top, p);
  g_ptr_array_add (r->pipes, p);
  if (r->trace)
    sp_trace_process_name (r->trace, p->pid, p->name);
  return p;
}

static gboolean
is_queue_type (GstElement * e)
{
  const gchar *t = G_OBJECT_TYPE_NAME (e);

  return strcmp (t, "GstQueue") == 0 || strcmp (t, "GstQueue2") == 0
      || strcmp (t, "GstMultiQueue") == 0;
}

/* By type name, as is_queue_type(): decodebin adds one after each decoder
 * from GStreamer 1.26. */
gboolean
sp_is_capsfilter (GstElement * e)
{
  return strcmp (G_OBJECT_TYPE_NAME (e), "GstCapsFilter") == 0;
}

/* Elements that pass data on and do no streaming work of their own: a
 * capsfilter, a bin (its own code runs only to plug or link elements), a
 * queue (its time is waiting). */
static gboolean
forwards_only (GstElement * e)
{
  return GST_IS_BIN (e) || is_queue_type (e) || sp_is_capsfilter (e);
}

/* A live source waits for its clock or device between buffers. */
static gboolean
is_live_source (GstElement * e)
{
  gboolean live = FALSE;

  if (GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SOURCE)
      && sp_has_property (e, "is-live"))
    g_object_get (e, "is-live", &live, NULL);
  return live;
}

/* By name, so that the tracer needs no link to gstreamer-base. */
static gboolean
is_aggregator (GstElement * e)
{
  GType agg = g_type_from_name ("GstAggregator");

  return agg != 0 && g_type_is_a (G_OBJECT_TYPE (e), agg);
}

/* An element with sync=true (a sink, identity, clocksync) waits for the
 * clock inside its chain and events. Read on the cold path only (first sight, READY_TO_PAUSED): it takes the object lock. */
static gboolean
is_sync_sink (GstElement * e)
{
  GParamSpec *ps;
  gboolean sync = FALSE;

  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "sync");
  if (ps == NULL || ps->value_type != G_TYPE_BOOLEAN
      || !(ps->flags & G_PARAM_READABLE))
    return FALSE;
  g_object_get (e, "sync", &sync, NULL);
  return sync;
}

static void
info_read_split (SpRecorder * r, SpElemInfo * info, GstElement * e)
{
  gboolean sync = is_sync_sink (e);

  g_atomic_int_set (&info->sync_clock, sync);
  g_atomic_int_set (&info->multi_input, info->aggregator
      || info->kind == SP_KIND_MUX || e->numsinkpads > 1);
  if (!r->cpu_clock)
    return;
  g_atomic_int_set (&info->split_task, info->aggregator || info->live_source);
  /* A muxer that is not an aggregator (GstCollectPads: matroskamux, avimux
   * in 1.22) has no task: each input's thread blocks in its chain until the
   * others have data, and the last one to arrive muxes and pushes. */
  g_atomic_int_set (&info->split_chain, info->aggregator
      || info->kind == SP_KIND_MUX || sync);
}

/* An element's name is its path below its top-level pipeline
 * ("vconv/conv"): unique (names are unique within a bin only, and
 * stagebin's replicas repeat theirs) and the same in every run, whatever
 * order the elements were first seen in. Control characters and bytes that
 * are not UTF-8 are escaped, so every output can carry it as it is. */
const gchar *
sp_element_path (SpRecorder * r, GstElement * e)
{
  GString *path = g_string_new (NULL);
  GstObject *o = GST_OBJECT_CAST (e);
  gchar *esc;
  const gchar *res;

  while (o && (GST_OBJECT_PARENT (o) != NULL || o == GST_OBJECT_CAST (e))) {
    const gchar *name = GST_OBJECT_NAME (o) ? GST_OBJECT_NAME (o) : "(unnamed)";
    if (path->len)
      g_string_prepend_c (path, '/');
    g_string_prepend (path, name);
    o = GST_OBJECT_PARENT (o);
    if (o && GST_OBJECT_PARENT (o) == NULL)
      break;                    /* the top-level pipeline itself */
  }
  esc = sp_summary_escape (path->str);
  res = name_ref (r, esc);
  g_free (esc);
  g_string_free (path, TRUE);
  return res;
}

SpElemInfo *
sp_info_get (SpRecorder * r, GstElement * e)
{
  SpElemInfo *info;
  gboolean new_queue = FALSE, new_info = FALSE;

  g_mutex_lock (&r->lock);
  info = g_hash_table_lookup (r->infos, e);
  if (!info) {
    new_info = TRUE;
    info = g_new0 (SpElemInfo, 1);
    info->element = e;
    info->pipe = pipe_for_locked (r, e);
    /* A bin takes its elements to PLAYING before data flows, while its
     * sink prerolls: an element first seen may be playing already. Its
     * object lock, after r->lock (docs/architecture.md, Locks). */
    {
      GstState cur = GST_STATE_VOID_PENDING;
      gst_element_get_state (e, &cur, NULL, 0);
      info->playing = cur == GST_STATE_PLAYING;
      info->playing_since = 0;
    }
    info->name = sp_element_path (r, e);
    {
      gchar *ev = g_strconcat (info->name, " event", NULL);
      info->event_name = sp_names_ref (r->names, ev);
      g_free (ev);
    }
    info->kind = classify (e);
    /* Only what may start threads of its own is looked at: codecs and
     * elements with a thread-count property (videoconvert, stageresize);
     * the look costs the thread cold caches. */
    if (info->kind == SP_KIND_DECODE || info->kind == SP_KIND_ENCODE
        || sp_has_property (e, "threads") || sp_has_property (e, "n-threads")
        || sp_has_property (e, "max-threads")) {
      info->scans_left = SP_THREAD_SCANS;
      info->chain_scans_left = SP_THREAD_CHAIN_SCANS;
    }
    info->recs_by_thread = g_hash_table_new (NULL, NULL);
    info->is_sink = GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SINK);
    info->aggregator = is_aggregator (e);
    info->live_source = is_live_source (e);
    info->app_sink = g_strcmp0 (G_OBJECT_TYPE_NAME (e), "GstAppSink") == 0;
    info->app_src = g_strcmp0 (G_OBJECT_TYPE_NAME (e), "GstAppSrc") == 0;
    info->type_name = G_OBJECT_TYPE_NAME (e);
    info->forwards = forwards_only (e);
    info->traced = name_traced (r, info->name);
    if (is_queue_type (e)) {
      info->queue = sp_queue_new_locked (r, info);
      new_queue = TRUE;
    }
    g_hash_table_insert (r->infos, e, info);
    g_ptr_array_add (r->all_infos, info);
  }
  g_mutex_unlock (&r->lock);
  if (new_queue)
    sp_queue_read_limits (info->queue, e);
  else if (new_info)
    info_read_split (r, info, e);
  return info;
}


/* ------------------------------------------------------------------ */
/* Freeing what belongs to dead pipelines.
 *
 * A pipeline that was destroyed and summarized is kept for a while (the
 * SP_KEEP_DEAD most recent, so that get-summary right after a pipeline
 * ended still sees it), then its thread, element, queue and pipeline
 * records are taken out of the registries into limbo. Streaming threads
 * cache pointers to records: the free generation goes up, and each thread
 * state drops every cached pointer at its next hook without following any
 * (state_refresh). Limbo is freed once every registered thread state has
 * seen that generation, or exited. */

#define SP_KEEP_DEAD 16

typedef struct
{
  gint gen;
  GPtrArray *threads, *elems, *infos, *queues;
  SpPipe *pipe;
} SpLimbo;

static void
info_free (gpointer data)
{
  SpElemInfo *info = data;

  g_hash_table_destroy (info->recs_by_thread);
  g_free (info->in_pad);
  g_free (info);
}

static void
pipe_free (gpointer data)
{
  SpPipe *p = data;

  g_hash_table_destroy (p->threads_by_tid);
  g_array_unref (p->run_cpu0);
  g_free (p);
}

/* The names the records of `l` carry go with them. */
static void
limbo_drop_names (SpRecorder * r, SpLimbo * l)
{
  guint i;

  for (i = 0; i < l->threads->len; i++)
    sp_names_unref (r->names,
        ((SpThreadRec *) g_ptr_array_index (l->threads, i))->name);
  for (i = 0; i < l->infos->len; i++) {
    SpElemInfo *info = g_ptr_array_index (l->infos, i);
    sp_names_unref (r->names, info->name);
    sp_names_unref (r->names, info->event_name);
  }
  sp_names_unref (r->names, l->pipe->name);
}

static void
limbo_free (SpRecorder * r, SpLimbo * l)
{
  guint i;

  limbo_drop_names (r, l);
  g_ptr_array_free (l->threads, TRUE);
  g_ptr_array_free (l->elems, TRUE);
  g_ptr_array_free (l->infos, TRUE);
  for (i = 0; i < l->queues->len; i++)
    sp_queue_free (g_ptr_array_index (l->queues, i));
  g_ptr_array_free (l->queues, TRUE);
  pipe_free (l->pipe);
  g_free (l);
}

void
sp_limbo_collect_locked (SpRecorder * r)
{
  gint seen = g_atomic_int_get (&r->free_gen);
  guint i;

  for (i = 0; i < r->states->len; i++) {
    gint g = g_atomic_int_get ((gint *) g_ptr_array_index (r->states, i));
    if (g < seen)
      seen = g;
  }
  for (i = r->limbo->len; i > 0; i--) {
    SpLimbo *l = g_ptr_array_index (r->limbo, i - 1);
    if (l->gen <= seen) {
      g_ptr_array_remove_index_fast (r->limbo, i - 1);
      limbo_free (r, l);
    }
  }
}

/* Moves the records of `p` for which `belongs` holds out of `arr`. */
static void
steal_matching (GPtrArray * arr, GPtrArray * to, SpPipe * p,
    SpPipe * (*pipe_of) (gpointer))
{
  guint i;

  for (i = arr->len; i > 0; i--)
    if (pipe_of (g_ptr_array_index (arr, i - 1)) == p)
      g_ptr_array_add (to, g_ptr_array_steal_index (arr, i - 1));
}

static SpPipe *
thread_pipe (gpointer x)
{
  return ((SpThreadRec *) x)->pipe;
}

static SpPipe *
elem_pipe (gpointer x)
{
  return ((SpElemRec *) x)->info->pipe;
}

static SpPipe *
info_pipe (gpointer x)
{
  return ((SpElemInfo *) x)->pipe;
}

static SpPipe *
queue_pipe (gpointer x)
{
  return ((SpQueue *) x)->pipe;
}

/* Every element of `p` is gone (one the application still holds keeps the
 * pipeline's records). */
static gboolean
pipe_freeable_locked (SpRecorder * r, SpPipe * p)
{
  guint i;

  for (i = 0; i < r->all_infos->len; i++) {
    SpElemInfo *info = g_ptr_array_index (r->all_infos, i);
    if (info->pipe == p && g_atomic_pointer_get (&info->element))
      return FALSE;
  }
  return TRUE;
}

static void
pipe_detach_locked (SpRecorder * r, SpPipe * p)
{
  SpLimbo *l = g_new0 (SpLimbo, 1);
  guint i;

  l->threads = g_ptr_array_new_with_free_func (g_free);
  l->elems = g_ptr_array_new_with_free_func (g_free);
  l->infos = g_ptr_array_new_with_free_func (info_free);
  l->queues = g_ptr_array_new ();
  steal_matching (r->threads, l->threads, p, thread_pipe);
  steal_matching (r->elems, l->elems, p, elem_pipe);
  steal_matching (r->all_infos, l->infos, p, info_pipe);
  steal_matching (r->queues, l->queues, p, queue_pipe);
  sp_threads_forget_owners_locked (r, p);
  for (i = 0; i < r->pipes->len; i++)
    if (g_ptr_array_index (r->pipes, i) == p) {
      g_ptr_array_steal_index (r->pipes, i);
      break;
    }
  l->pipe = p;
  l->gen = g_atomic_int_add (&r->free_gen, 1) + 1;
  g_ptr_array_add (r->limbo, l);
  g_atomic_int_inc (&r->epoch);
  sp_limbo_collect_locked (r);
}

/* `p` may have just become dead (destroyed) and summarized. */
static void
pipe_check_dead_locked (SpRecorder * r, SpPipe * p)
{
  guint n;

  if (p->dead_queued || p->obj != NULL || !p->summarized)
    return;
  p->dead_queued = TRUE;
  g_queue_push_tail (&r->dead, p);
  for (n = g_queue_get_length (&r->dead); n > SP_KEEP_DEAD; n--) {
    SpPipe *old = g_queue_pop_head (&r->dead);
    if (pipe_freeable_locked (r, old))
      pipe_detach_locked (r, old);
    else
      g_queue_push_tail (&r->dead, old);
  }
}

void
sp_recorder_mark_summarized (SpRecorder * r, gpointer pipeline,
    gboolean summarized)
{
  guint i;

  g_mutex_lock (&r->lock);
  for (i = 0; i < r->pipes->len; i++) {
    SpPipe *p = g_ptr_array_index (r->pipes, i);
    if (pipeline == SP_RECORDER_PENDING ? !p->summarized
        : (pipeline == NULL || p->obj == pipeline))
      p->summarized = summarized;
  }
  for (i = r->pipes->len; i > 0; i--)
    pipe_check_dead_locked (r, g_ptr_array_index (r->pipes, i - 1));
  g_mutex_unlock (&r->lock);
}

/* ------------------------------------------------------------------ */
/* Cold path hooks */

static SpElemInfo *
info_lookup (SpRecorder * r, gpointer e)
{
  SpElemInfo *info;

  g_mutex_lock (&r->lock);
  info = g_hash_table_lookup (r->infos, e);
  g_mutex_unlock (&r->lock);
  return info;
}

void
sp_record_flush_stop (SpRecorder * r, guint64 ts, GstPad * srcpad)
{
  GstPad *peer = GST_PAD_PEER (srcpad);
  GstElement *e = peer ? sp_pad_element (peer) : NULL;
  SpElemInfo *info = e ? info_lookup (r, e) : NULL;

  if (info && info->queue)
    sp_queue_empty_out (r, info->queue, ts);
}

/* Names the trace process of `p`'s current run. r->lock held. */
void
sp_pipe_name_process (SpRecorder * r, SpPipe * p)
{
  gchar *name;

  if (!r->trace)
    return;
  if (p->run == 1) {
    sp_trace_process_name (r->trace, p->pid, p->name);
    return;
  }
  name = g_strdup_printf ("%s (run %d)", p->name, p->run);
  sp_trace_process_name (r->trace, p->pid, name);
  g_free (name);
}

/* A top-level pipeline stopped after a run that recorded data: if it
 * starts again, that is a new run, with records of its own, its own queue
 * figures and its own process in the trace. */
static void
pipe_new_run (SpRecorder * r, GstElement * top)
{
  SpPipe *p;

  g_mutex_lock (&r->lock);
  p = g_hash_table_lookup (r->pipes_by_obj, top);
  if (p && p->run_used) {
    guint64 cpu = sp_process_cpu_ns ();

    GHashTableIter iter;
    gpointer v;

    p->run_used = FALSE;
    g_atomic_int_set (&p->pid, ++r->next_pid);
    g_atomic_int_inc (&p->run);
    g_array_append_val (p->run_cpu0, cpu);
    /* The run's figures stop here: its threads' run-queue delay too. */
    g_hash_table_iter_init (&iter, p->threads_by_tid);
    while (g_hash_table_iter_next (&iter, NULL, &v)) {
      SpThreadRec *th = v;
      if (!th->ended && !th->run_over) {
        SP_SET (th->sched_delay_end, sp_sched_delay (th->tid));
        SP_SET (th->run_over, TRUE);
      }
    }
    g_hash_table_remove_all (p->threads_by_tid);
    /* The new run's process is named when it records its first data
     * (sp_pipe_name_process): a pipeline stopped for good gets none. */
    /* Queues start over at their first buffer of the new run. */
    g_atomic_int_inc (&r->epoch);
  }
  g_mutex_unlock (&r->lock);
}

void
sp_record_state_changed (SpRecorder * r, guint64 ts, GstElement * element,
    GstStateChange transition)
{
  SpElemInfo *info;

  /* After the pipeline stopped (its children first): what comes next is
   * another run. Not at READY_TO_PAUSED, which this hook sees after the
   * sources already started streaming. */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY
      && GST_OBJECT_PARENT (element) == NULL)
    pipe_new_run (r, element);
  info = info_lookup (r, element);
  if (info && transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING) {
    __atomic_store_n (&info->playing_since, ts, __ATOMIC_RELAXED);
    g_atomic_int_set (&info->playing, TRUE);
  }
  else if (info && transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED)
    g_atomic_int_set (&info->playing, FALSE);
  if (info && info->is_sink && !g_atomic_pointer_get (&info->sink_media)
      && (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING
          || transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED))
    sp_read_sink_media (info, element);
  if (info && !info->queue && transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    info_read_split (r, info, element);   /* sync may have changed */
  if (!info || !info->queue)
    return;
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    sp_queue_read_limits (info->queue, element);
  else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    sp_queue_empty_out (r, info->queue, ts);
}

void
sp_record_pad_destroyed (SpRecorder * r, gpointer pad)
{
  /* Threads cache pads by address: a new pad may take this one's. */
  g_atomic_int_inc (&r->epoch);
}

void
sp_record_element_destroyed (SpRecorder * r, gpointer element)
{
  SpElemInfo *info;

  if (g_atomic_pointer_get (&r->latency))
    r->latency_ops->element_destroyed (r->latency, element);
  g_mutex_lock (&r->lock);
  info = g_hash_table_lookup (r->infos, element);
  if (info) {
    g_atomic_pointer_set (&info->element, NULL);
    g_hash_table_remove (r->infos, element);
    /* Threads drop their caches: the address may come back for another
     * element. */
    g_atomic_int_inc (&r->epoch);
  }
  {
    SpPipe *p = g_hash_table_lookup (r->pipes_by_obj, element);
    if (p) {
      p->obj = NULL;
      g_hash_table_remove (r->pipes_by_obj, element);
      g_atomic_int_inc (&r->epoch);
      pipe_check_dead_locked (r, p);
    }
  }
  g_mutex_unlock (&r->lock);
}

/* ------------------------------------------------------------------ */
/* GPU time reported by elements (common/stagegputiming.h). */

void
sp_record_gpu (SpRecorder * r, gpointer element, guint64 start_ts,
    guint64 end_ts)
{
  SpElemInfo *info;
  gint gen;

  if (end_ts < start_ts)
    return;
  g_mutex_lock (&r->lock);
  info = g_hash_table_lookup (r->infos, element);
  gen = g_atomic_int_get (&r->gen);
  if (info && info->pipe) {
    if (info->gpu_gen != gen) {
      info->gpu_gen = gen;
      info->gpu_frames = 0;
      info->gpu_ns = 0;
    }
    info->gpu_frames++;
    info->gpu_ns += end_ts - start_ts;
    if (r->trace && g_atomic_int_get (&info->traced)) {
      if (!info->pipe->gpu_track_named) {
        sp_trace_thread_name (r->trace, info->pipe->pid, SP_GPU_TID,
            "GPU (CUDA events)");
        info->pipe->gpu_track_named = TRUE;
      }
      sp_trace_slice (r->trace, info->pipe->pid, SP_GPU_TID, info->name,
          start_ts, end_ts - start_ts, SP_SLICE_GPU);
    }
  }
  g_mutex_unlock (&r->lock);
}

SpLatency *
sp_recorder_latency (SpRecorder * r)
{
  return g_atomic_pointer_get (&r->latency);
}
