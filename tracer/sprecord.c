/* sprecord: per-thread recording and accounting for stageprof.
 *
 * What each figure means is defined in docs/tracer.md; in short:
 *  - an element's self time is the duration of its chain (or of a pull it
 *    serves) minus the chains nested inside it on the same thread;
 *  - on a task thread, the time from the end of one top-level push to the
 *    start of the next is the pushing element producing its next buffer, or,
 *    when that element is queue-like, the thread waiting on input;
 *  - the time a thread spends inside a queue-like element's chain is that
 *    thread waiting on output (the queue's own work is microseconds);
 *  - queue levels are counted from the hooks: in at the queue's chain, out
 *    at its push;
 *  - where a thread may wait rather than work inside an interval (the src
 *    task of an aggregator, of a live source, of any source or demuxer
 *    whose intervals are long; the chain of a sync sink, of an
 *    aggregator's sink pad, of a muxer), the thread's CPU time splits it:
 *    CPU time is work, the rest is waiting (see "The CPU-time split" in
 *    docs/tracer.md).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "sprecord.h"
#include "stats.h"

#define SP_MAX_DEPTH 64
/* Initial size of a thread's pad cache; it doubles past half full. */
#define SP_CACHE_SLOTS 256
/* A put into a queue whose limits we cannot see (multiqueue, generic
 * queue-like elements) only gets a grey slice when it blocked this long;
 * shorter puts would bloat the trace with invisible slivers. */
#define SP_WAIT_SLICE_MIN_NS (50 * GST_USECOND)
/* A task interval this long is worth splitting by CPU time: the next one of
 * the same element on the same thread is sampled. Shorter ones (a fakesrc
 * or a parser pushing in a tight loop) are all work and skip the two
 * clock_gettime() calls, which cost more than such an interval's figure is
 * worth. */
#define SP_CPU_SPLIT_MIN_NS (50 * GST_USECOND)

typedef enum
{
  SP_KIND_OTHER,
  SP_KIND_SOURCE,
  SP_KIND_DEMUX,
  SP_KIND_DECODE,
  SP_KIND_CONVERT,
  SP_KIND_ENCODE,
  SP_KIND_MUX,
  SP_KIND_SINK,
} SpKind;

static const gchar *const kind_labels[] = {
  "compute", "source", "demux", "decode", "convert", "encode", "mux", "sink"
};

typedef struct
{
  gpointer obj;                 /* identity only, never dereferenced */
  const gchar *name;
  guint pid;
  gboolean summarized;
} SpPipe;

typedef struct
{
  GMutex lock;
  const gchar *name;
  SpPipe *pipe;
  gboolean limits_known;
  guint max_buffers;
  guint max_bytes;
  guint64 max_time;
  gboolean leaky;
  gint64 level, bytes;
  guint pending;
  guint64 pending_bytes;
  guint early_out;
  guint64 early_bytes;
  GstClockTime pending_pts;
  GstClockTime in_pts, out_pts;
  guint64 max_level, max_bytes_seen;
  gboolean started;
  guint64 first_ts, last_ts;
  gdouble level_integral, bytes_integral;
  guint64 empty_ns, full_ns;
  guint64 items, put_seen, get_seen;
  StageStats put, get;
  gboolean traced;
} SpQueue;

typedef struct
{
  gpointer element;             /* identity only; NULL once destroyed */
  const gchar *name;
  const gchar *event_name;      /* "NAME event": its event-handling slices */
  SpPipe *pipe;
  SpQueue *queue;               /* set when the element is queue-like */
  gboolean task_checked;
  gboolean aggregator;
  gboolean is_sink;
  gboolean live_source;
  /* Split every src task interval by CPU time (aggregators, live sources). */
  gboolean split_task;
  /* Split chain calls by CPU time (aggregator sink pads, other muxers,
   * sinks with sync=true); read by streaming threads, set on the cold
   * path. */
  gint split_chain;
  SpKind kind;
  gboolean traced;
} SpElemInfo;

typedef struct
{
  guint64 tid;
  SpPipe *pipe;
  const gchar *name;
  gint gen;
  guint64 first_ts, last_ts;
  guint64 busy, wait_in, wait_out;
} SpThreadRec;

typedef struct
{
  SpElemInfo *info;
  SpThreadRec *thread;
  gint gen;
  guint64 seen, buffers;
  guint64 first_ts, last_ts;
  StageStats stats;
  /* Sample CPU time at the end of this element's next push: its last task
   * interval was long or it always waits (split_task). */
  gboolean split_next;
} SpElemRec;

typedef enum
{
  SP_FRAME_CHAIN,
  SP_FRAME_PULL,
  SP_FRAME_QUEUE,
  /* A buffer of a list that GStreamer's default chain-list function hands
   * to the element's chain one by one: part of the list's invocation. */
  SP_FRAME_INNER,
  /* An element handling an event pushed to it: its time is the thread's
   * busy time and a slice in the trace, but not a sample (the statistics
   * are per buffer). */
  SP_FRAME_EVENT,
} SpFrameKind;

typedef struct
{
  SpElemRec *rec;               /* NULL: a pull we do not attribute */
  guint64 start, child;
  guint64 cpu;                  /* thread CPU time at start, when cpu_on */
  guint8 kind;
  guint8 full;
  guint8 list;
  guint8 cpu_on;
} SpFrame;

typedef struct
{
  gpointer key;                 /* a pad; NULL: free */
  SpElemRec *rec;
} SpCacheSlot;

typedef struct
{
  SpRecorder *r;
  SpThreadRec *thread;
  GHashTable *recs;             /* GstElement* -> SpElemRec* of `thread` */
  GHashTable *thread_by_pipe;   /* SpPipe* -> SpThreadRec* */
  /* Pad -> record, open addressing with linear probing; never more than
   * half full, emptied as a whole (epoch), so no deletions. */
  SpCacheSlot *cache;
  guint cache_mask;
  guint cache_used;
  gint epoch;
  guint depth;
  SpFrame stack[SP_MAX_DEPTH];
  gboolean have_push_end;
  guint64 last_push_end;
  SpElemRec *push_end_rec;
  guint64 base_child;
  gboolean have_cpu_end;
  guint64 cpu_push_end;         /* thread CPU time at last_push_end */
  guint64 os_tid;
} SpThreadState;

struct _SpRecorder
{
  GMutex lock;
  GHashTable *infos;            /* live GstElement* -> SpElemInfo* */
  GHashTable *pipes_by_obj;
  GPtrArray *all_infos, *threads, *elems, *queues, *pipes;
  gint epoch;
  gint gen;
  guint skip_first;
  SpTrace *trace;
  GRegex *filter;
  guint next_pid;
  gboolean cpu_clock;           /* CLOCK_THREAD_CPUTIME_ID works here */
};

static void state_free (gpointer data);
/* initial-exec: a plain %fs-relative load on every hook instead of a call
 * to __tls_get_addr (the default model for a dlopen()ed plugin). One
 * pointer fits in the static TLS that glibc reserves for such modules. */
static __thread SpThreadState *sp_tls
    __attribute__ ((tls_model ("initial-exec")));
static GPrivate sp_state_key = G_PRIVATE_INIT (state_free);

/* ------------------------------------------------------------------ */
/* Trace helpers: compiled out when the trace writer is not built. */

static inline SpTrace *
get_trace (SpRecorder * r)
{
  return (SpTrace *) g_atomic_pointer_get (&r->trace);
}

static inline void
emit_slice (SpRecorder * r, SpThreadRec * th, const gchar * name,
    guint64 ts, guint64 dur, gint kind)
{
  SpTrace *t = get_trace (r);
  if (t)
    sp_trace_slice (t, th->pipe->pid, th->tid, name, ts, dur,
        (SpSliceKind) kind);
}

static inline void
emit_counter (SpRecorder * r, SpQueue * q, guint64 ts)
{
  SpTrace *t = get_trace (r);
  if (t && q->traced)
    sp_trace_counter (t, q->pipe->pid, q->name, ts, q->level, q->bytes);
}

#define SLICE_ELEMENT SP_SLICE_ELEMENT
#define SLICE_WAIT_INPUT SP_SLICE_WAIT_INPUT
#define SLICE_WAIT_OUTPUT SP_SLICE_WAIT_OUTPUT

/* ------------------------------------------------------------------ */
/* Recorder */

SpRecorder *
sp_recorder_new (void)
{
  SpRecorder *r = g_new0 (SpRecorder, 1);

  g_mutex_init (&r->lock);
  r->infos = g_hash_table_new (NULL, NULL);
  r->pipes_by_obj = g_hash_table_new (NULL, NULL);
  r->all_infos = g_ptr_array_new_with_free_func (g_free);
  r->threads = g_ptr_array_new_with_free_func (g_free);
  r->elems = g_ptr_array_new_with_free_func (g_free);
  r->queues = g_ptr_array_new ();
  r->pipes = g_ptr_array_new_with_free_func (g_free);
  r->epoch = 1;
  {
    struct timespec t;
    r->cpu_clock = clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t) == 0;
  }
  return r;
}

static void
queue_free (gpointer data)
{
  SpQueue *q = data;

  g_mutex_clear (&q->lock);
  g_free (q);
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
  for (i = 0; i < r->queues->len; i++)
    queue_free (g_ptr_array_index (r->queues, i));
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
    info->traced = name_traced (r, info->name);
    if (info->queue)
      info->queue->traced = info->traced;
  }
  g_mutex_unlock (&r->lock);
}

void
sp_recorder_set_trace (SpRecorder * r, SpTrace * trace)
{
  g_mutex_lock (&r->lock);
  if (trace) {
    guint i;
    for (i = 0; i < r->pipes->len; i++) {
      SpPipe *p = g_ptr_array_index (r->pipes, i);
      sp_trace_process_name (trace, p->pid, p->name);
    }
    for (i = 0; i < r->threads->len; i++) {
      SpThreadRec *th = g_ptr_array_index (r->threads, i);
      sp_trace_thread_name (trace, th->pipe->pid, th->tid, th->name);
    }
  }
  g_atomic_pointer_set (&r->trace, trace);
  g_mutex_unlock (&r->lock);
}

static void
queue_reset_stats_locked (SpQueue * q)
{
  q->started = FALSE;
  q->level_integral = q->bytes_integral = 0;
  q->empty_ns = q->full_ns = 0;
  q->items = q->put_seen = q->get_seen = 0;
  q->max_level = q->level;
  q->max_bytes_seen = q->bytes;
  stage_stats_init (&q->put);
  stage_stats_init (&q->get);
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
    queue_reset_stats_locked (q);
    g_mutex_unlock (&q->lock);
  }
  g_mutex_unlock (&r->lock);
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

static SpPipe *
pipe_for_locked (SpRecorder * r, GstElement * e)
{
  GstObject *top = GST_OBJECT_CAST (e);
  SpPipe *p;

  while (GST_OBJECT_PARENT (top))
    top = GST_OBJECT_PARENT (top);
  p = g_hash_table_lookup (r->pipes_by_obj, top);
  if (p && GST_OBJECT_NAME (top) && strcmp (p->name, GST_OBJECT_NAME (top))) {
    /* Renamed since first seen (gst_parse_launch, then set_name). */
    p->name = g_intern_string (GST_OBJECT_NAME (top));
    if (r->trace)
      sp_trace_process_name (r->trace, p->pid, p->name);
  }
  if (p)
    return p;
  p = g_new0 (SpPipe, 1);
  p->obj = top;
  p->name = g_intern_string (GST_OBJECT_NAME (top) ? GST_OBJECT_NAME (top) :
      "(unnamed)");
  p->pid = ++r->next_pid;
  g_hash_table_insert (r->pipes_by_obj, top, p);
  g_ptr_array_add (r->pipes, p);
  if (r->trace)
    sp_trace_process_name (r->trace, p->pid, p->name);
  return p;
}

static gboolean
has_property (GstElement * e, const gchar * name)
{
  return g_object_class_find_property (G_OBJECT_GET_CLASS (e), name) != NULL;
}

/* Limits are read here, on first sight and on state changes, never on the
 * hot path: reading properties takes the object lock. */
static void
queue_read_limits (SpQueue * q, GstElement * e)
{
  guint maxb = 0, maxbytes = 0;
  guint64 maxt = 0;
  gint leaky = 0;

  if (!has_property (e, "max-size-buffers") || GST_IS_BIN (e)
      || strcmp (G_OBJECT_TYPE_NAME (e), "GstMultiQueue") == 0)
    return;
  g_object_get (e, "max-size-buffers", &maxb, "max-size-bytes", &maxbytes,
      "max-size-time", &maxt, NULL);
  if (has_property (e, "leaky"))
    g_object_get (e, "leaky", &leaky, NULL);
  g_mutex_lock (&q->lock);
  q->limits_known = TRUE;
  q->max_buffers = maxb;
  q->max_bytes = maxbytes;
  q->max_time = maxt;
  q->leaky = leaky != 0;
  g_mutex_unlock (&q->lock);
}

static SpQueue *
queue_new_locked (SpRecorder * r, SpElemInfo * info)
{
  SpQueue *q = g_new0 (SpQueue, 1);

  g_mutex_init (&q->lock);
  q->name = info->name;
  q->pipe = info->pipe;
  q->traced = info->traced;
  q->in_pts = q->out_pts = GST_CLOCK_TIME_NONE;
  stage_stats_init (&q->put);
  stage_stats_init (&q->get);
  g_ptr_array_add (r->queues, q);
  return q;
}

static gboolean
is_queue_type (GstElement * e)
{
  const gchar *t = G_OBJECT_TYPE_NAME (e);

  return strcmp (t, "GstQueue") == 0 || strcmp (t, "GstQueue2") == 0
      || strcmp (t, "GstMultiQueue") == 0;
}

/* A live source waits for its clock or device between buffers. */
static gboolean
is_live_source (GstElement * e)
{
  gboolean live = FALSE;

  if (GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SOURCE)
      && has_property (e, "is-live"))
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

/* A sink with sync=true waits for the clock inside its chain. Read on the
 * cold path only (first sight, READY_TO_PAUSED): it takes the object lock. */
static gboolean
is_sync_sink (GstElement * e)
{
  GParamSpec *ps;
  gboolean sync = FALSE;

  if (!GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SINK))
    return FALSE;
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
  if (!r->cpu_clock)
    return;
  info->split_task = info->aggregator || info->live_source;
  /* A muxer that is not an aggregator (GstCollectPads: matroskamux, avimux
   * in 1.22) has no task: each input's thread blocks in its chain until the
   * others have data, and the last one to arrive muxes and pushes. */
  g_atomic_int_set (&info->split_chain, info->aggregator
      || info->kind == SP_KIND_MUX || is_sync_sink (e));
}

/* Names are unique within a bin only: inside bins that repeat a name (the
 * replicas of a stagebin), a second element of that name is shown as
 * "bin/name". */
static const gchar *
unique_name_locked (SpRecorder * r, GstElement * e, SpPipe * pipe)
{
  const gchar *name = GST_OBJECT_NAME (e) ? GST_OBJECT_NAME (e) : "(unnamed)";
  GstObject *parent = GST_OBJECT_PARENT (e);
  gchar *full;
  const gchar *res;
  guint i;

  for (i = 0; i < r->all_infos->len; i++) {
    SpElemInfo *o = g_ptr_array_index (r->all_infos, i);
    if (o->pipe == pipe && strcmp (o->name, name) == 0 && o->element != e)
      break;
  }
  if (i == r->all_infos->len || parent == NULL)
    return g_intern_string (name);
  full = g_strdup_printf ("%s/%s", GST_OBJECT_NAME (parent), name);
  res = g_intern_string (full);
  g_free (full);
  return res;
}

static SpElemInfo *
info_get (SpRecorder * r, GstElement * e)
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
    info->name = unique_name_locked (r, e, info->pipe);
    {
      gchar *ev = g_strconcat (info->name, " event", NULL);
      info->event_name = g_intern_string (ev);
      g_free (ev);
    }
    info->kind = classify (e);
    info->is_sink = GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SINK);
    info->aggregator = is_aggregator (e);
    info->live_source = is_live_source (e);
    info->traced = name_traced (r, info->name);
    if (is_queue_type (e)) {
      info->queue = queue_new_locked (r, info);
      new_queue = TRUE;
    }
    g_hash_table_insert (r->infos, e, info);
    g_ptr_array_add (r->all_infos, info);
  }
  g_mutex_unlock (&r->lock);
  if (new_queue)
    queue_read_limits (info->queue, e);
  else if (new_info)
    info_read_split (r, info, e);
  return info;
}

static void
rec_reset (SpElemRec * rec, gint gen)
{
  rec->gen = gen;
  rec->seen = rec->buffers = 0;
  rec->first_ts = rec->last_ts = 0;
  stage_stats_init (&rec->stats);
}

static void
thread_reset (SpThreadRec * th, gint gen, guint64 ts)
{
  th->gen = gen;
  th->first_ts = th->last_ts = ts;
  th->busy = th->wait_in = th->wait_out = 0;
}

/* Key of the full Scanner stage name ("Pipeline[i]:Ops[y]") that stagebin
 * sets on the queue owning each of its threads (gst/gststagebin.h). */
#define STAGE_THREAD_NAME_KEY "stage-thread-name"

static const gchar *
thread_name_locked (SpRecorder * r, SpPipe * pipe, SpElemInfo * driver)
{
  gchar os_name[64] = { 0 };
  const gchar *base = driver->name;
  const gchar *stage = NULL;
  gpointer e = g_atomic_pointer_get (&driver->element);
  guint i, same = 0;
  gchar *tmp;
  const gchar *res;

  /* stagebin names its threads after Scanner's stages; the kernel's copy of
   * the name is cut at 15 bytes, so the full one comes from the queue when
   * it has it. GStreamer's own names ("queue0:src") say less than the
   * element does. */
  if (e)
    stage = g_object_get_data (G_OBJECT (e), STAGE_THREAD_NAME_KEY);
  if (stage)
    base = stage;
  else if (pthread_getname_np (pthread_self (), os_name, sizeof (os_name)) == 0
      && strchr (os_name, '['))
    base = os_name;
  for (i = 0; i < r->threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (r->threads, i);
    if (th->pipe == pipe && g_str_has_prefix (th->name, base))
      same++;
  }
  if (same == 0)
    return g_intern_string (base);
  tmp = g_strdup_printf ("%s #%u", base, same + 1);
  res = g_intern_string (tmp);
  g_free (tmp);
  return res;
}

static SpThreadRec *
thread_rec_new (SpRecorder * r, SpThreadState * st, SpElemInfo * driver,
    guint64 ts)
{
  SpThreadRec *th = g_new0 (SpThreadRec, 1);

  g_mutex_lock (&r->lock);
  th->tid = st->os_tid;
  th->pipe = driver->pipe;
  th->name = thread_name_locked (r, driver->pipe, driver);
  thread_reset (th, g_atomic_int_get (&r->gen), ts);
  g_ptr_array_add (r->threads, th);
  if (r->trace)
    sp_trace_thread_name (r->trace, th->pipe->pid, th->tid, th->name);
  g_mutex_unlock (&r->lock);
  return th;
}

static void
state_clear_cache (SpThreadState * st)
{
  memset (st->cache, 0, (st->cache_mask + 1) * sizeof (SpCacheSlot));
  st->cache_used = 0;
  g_hash_table_remove_all (st->recs);
}

/* Makes `th` the thread record this thread charges from now on. */
static void
state_switch_thread (SpThreadState * st, SpThreadRec * th)
{
  st->thread = th;
  st->have_push_end = FALSE;
  st->push_end_rec = NULL;
  st->base_child = 0;
  state_clear_cache (st);
}

static SpThreadRec *
thread_for_pipe (SpRecorder * r, SpThreadState * st, SpElemInfo * driver,
    guint64 ts)
{
  SpThreadRec *th = g_hash_table_lookup (st->thread_by_pipe, driver->pipe);

  if (!th) {
    th = thread_rec_new (r, st, driver, ts);
    g_hash_table_insert (st->thread_by_pipe, driver->pipe, th);
  }
  return th;
}

static SpElemRec *
lookup_elem (SpRecorder * r, SpThreadState * st, GstElement * e, guint64 ts)
{
  SpElemInfo *info;
  SpElemRec *rec = g_hash_table_lookup (st->recs, e);
  gint gen = g_atomic_int_get (&r->gen);

  if (!rec) {
    info = info_get (r, e);
    if (st->thread == NULL)
      state_switch_thread (st, thread_for_pipe (r, st, info, ts));
    rec = g_new0 (SpElemRec, 1);
    rec->info = info;
    rec->thread = st->thread;
    rec_reset (rec, gen);
    g_mutex_lock (&r->lock);
    g_ptr_array_add (r->elems, rec);
    g_mutex_unlock (&r->lock);
    g_hash_table_insert (st->recs, e, rec);
  } else if (rec->gen != gen) {
    rec_reset (rec, gen);
  }
  return rec;
}

static inline GstElement *
pad_element (GstPad * pad)
{
  GstObject *parent;

  /* Ghost and proxy pads only forward: the real pads inside get their own
   * hooks, so skipping these keeps every invocation counted once. */
  if (G_UNLIKELY (GST_IS_PROXY_PAD (pad)))
    return NULL;
  parent = GST_OBJECT_PARENT (pad);
  if (G_UNLIKELY (parent == NULL || !GST_IS_ELEMENT (parent)))
    return NULL;
  return GST_ELEMENT_CAST (parent);
}

/* Fibonacci hashing: pads are allocated close together, and a plain
 * shift-and-mask of their addresses made two of the ten pads of a short
 * pipeline share a slot in about half the runs. */
static inline guint
pad_slot (gconstpointer pad, guint mask)
{
  guint64 p = (guintptr) pad;

  return (guint) ((p * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 40) & mask;
}

static void
cache_insert (SpThreadState * st, GstPad * pad, SpElemRec * rec)
{
  guint i;

  if (G_UNLIKELY ((st->cache_used + 1) * 2 > st->cache_mask + 1)) {
    SpCacheSlot *old = st->cache;
    guint old_size = st->cache_mask + 1, j;

    st->cache_mask = old_size * 2 - 1;
    st->cache = g_new0 (SpCacheSlot, old_size * 2);
    for (j = 0; j < old_size; j++) {
      if (!old[j].key)
        continue;
      i = pad_slot (old[j].key, st->cache_mask);
      while (st->cache[i].key)
        i = (i + 1) & st->cache_mask;
      st->cache[i] = old[j];
    }
    g_free (old);
  }
  i = pad_slot (pad, st->cache_mask);
  while (st->cache[i].key && st->cache[i].key != pad)
    i = (i + 1) & st->cache_mask;
  if (!st->cache[i].key)
    st->cache_used++;
  st->cache[i].key = pad;
  st->cache[i].rec = rec;
}

/* The per-thread cache maps a pad straight to the record of its element on
 * this thread, or to NULL for pads we skip: one compare on the hot path, no
 * type check, no parent walk. Pad and element deaths flush it (epoch). */
static SpElemRec *
lookup_pad_slow (SpRecorder * r, SpThreadState * st, GstPad * pad,
    guint64 ts)
{
  GstElement *e;
  SpElemRec *rec;
  guint i = pad_slot (pad, st->cache_mask);

  /* Past a slot taken by another pad. */
  while (st->cache[i].key) {
    if (st->cache[i].key == pad)
      return st->cache[i].rec;
    i = (i + 1) & st->cache_mask;
  }
  e = pad_element (pad);
  /* May switch the thread record, which empties the cache. */
  rec = e ? lookup_elem (r, st, e, ts) : NULL;
  cache_insert (st, pad, rec);
  return rec;
}

static inline SpElemRec *
lookup_pad (SpRecorder * r, SpThreadState * st, GstPad * pad, guint64 ts)
{
  SpCacheSlot *slot = &st->cache[pad_slot (pad, st->cache_mask)];

  if (G_LIKELY (slot->key == pad))
    return slot->rec;
  return lookup_pad_slow (r, st, pad, ts);
}

/* At the top of a thread's stack the element at hand drives the thread; a
 * pooled thread that moved to another pipeline gets a new record there. */
static SpElemRec *
top_level (SpRecorder * r, SpThreadState * st, SpElemRec * rec,
    GstPad * pad, guint64 ts)
{
  if (G_LIKELY (rec->info->pipe == st->thread->pipe))
    return rec;
  state_switch_thread (st, thread_for_pipe (r, st, rec->info, ts));
  return lookup_pad_slow (r, st, pad, ts);
}

static void
state_free (gpointer data)
{
  SpThreadState *st = data;

  if (sp_tls == st)
    sp_tls = NULL;
  g_hash_table_destroy (st->recs);
  g_free (st->cache);
  g_hash_table_destroy (st->thread_by_pipe);
  g_free (st);
}

static SpThreadState *
state_new (SpRecorder * r)
{
  SpThreadState *st = g_new0 (SpThreadState, 1);

  st->r = r;
  st->recs = g_hash_table_new (NULL, NULL);
  st->cache = g_new0 (SpCacheSlot, SP_CACHE_SLOTS);
  st->cache_mask = SP_CACHE_SLOTS - 1;
  st->thread_by_pipe = g_hash_table_new (NULL, NULL);
  st->epoch = g_atomic_int_get (&r->epoch);
  st->os_tid = (guint64) syscall (SYS_gettid);
  g_private_replace (&sp_state_key, st);
  sp_tls = st;
  return st;
}

/* Something changed: an element died (its address may come back for a new
 * one) or the statistics were reset. Forget the dead elements only: the
 * records of live ones must stay, or a second row would appear for them. */
static void
state_refresh (SpRecorder * r, SpThreadState * st, guint64 ts)
{
  gint gen = g_atomic_int_get (&r->gen);
  GHashTableIter iter;
  gpointer key, value;

  st->epoch = g_atomic_int_get (&r->epoch);
  memset (st->cache, 0, (st->cache_mask + 1) * sizeof (SpCacheSlot));
  st->cache_used = 0;
  g_hash_table_iter_init (&iter, st->recs);
  while (g_hash_table_iter_next (&iter, &key, &value)) {
    SpElemRec *rec = value;
    if (g_atomic_pointer_get (&rec->info->element) != key)
      g_hash_table_iter_remove (&iter);
  }
  if (st->thread && st->thread->gen != gen)
    thread_reset (st->thread, gen, ts);
}

static inline SpThreadState *
get_state (SpRecorder * r, guint64 ts)
{
  SpThreadState *st = sp_tls;

  if (G_UNLIKELY (st == NULL || st->r != r))
    st = state_new (r);
  if (G_UNLIKELY (st->epoch != g_atomic_int_get (&r->epoch)))
    state_refresh (r, st, ts);
  return st;
}

/* For the hooks' fast paths: this thread's state when it is set up and
 * current, else NULL (take the full path, which sets it up); then the
 * cached record of `pad`, FALSE when the pad is not cached. Neither calls
 * anything, so the common path of a hook needs no stack frame and ends in
 * a tail call at most. */
static inline SpThreadState *
state_fast (SpRecorder * r)
{
  SpThreadState *st = sp_tls;

  if (G_UNLIKELY (st == NULL || st->r != r
          || st->epoch != g_atomic_int_get (&r->epoch)))
    return NULL;
  return st;
}

static inline gboolean
cached_rec (SpThreadState * st, GstPad * pad, SpElemRec ** rec)
{
  SpCacheSlot *slot = &st->cache[pad_slot (pad, st->cache_mask)];

  if (G_UNLIKELY (slot->key != pad))
    return FALSE;
  *rec = slot->rec;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Queue occupancy; the queue's own small lock, shared by its producer and
 * its task only. */

static gboolean
queue_full_locked (SpQueue * q)
{
  if (!q->limits_known)
    return FALSE;
  if (q->max_buffers && q->level >= q->max_buffers)
    return TRUE;
  if (q->max_bytes && q->bytes >= q->max_bytes)
    return TRUE;
  if (q->max_time && GST_CLOCK_TIME_IS_VALID (q->in_pts)
      && GST_CLOCK_TIME_IS_VALID (q->out_pts) && q->in_pts > q->out_pts
      && q->in_pts - q->out_pts >= q->max_time)
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

static void
queue_note_max_locked (SpQueue * q)
{
  if (q->level > 0 && (guint64) q->level > q->max_level)
    q->max_level = q->level;
  if (q->bytes > 0 && (guint64) q->bytes > q->max_bytes_seen)
    q->max_bytes_seen = q->bytes;
}

/* A buffer arrives at the queue's chain. When the queue is full it blocks
 * before enqueuing: the buffer only counts once the task took one out. */
static gboolean
queue_put (SpRecorder * r, SpQueue * q, guint64 ts, guint n, guint64 bytes,
    GstClockTime pts)
{
  gboolean full;

  g_mutex_lock (&q->lock);
  queue_advance_locked (q, ts);
  full = queue_full_locked (q);
  if (full) {
    /* A leaky queue drops one buffer instead: the level stays. */
    if (!q->leaky) {
      q->pending += n;
      q->pending_bytes += bytes;
      q->pending_pts = pts;
    }
  } else {
    q->level += n;
    q->bytes += bytes;
    if (GST_CLOCK_TIME_IS_VALID (pts))
      q->in_pts = pts;
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
static void
queue_put_done (SpRecorder * r, SpQueue * q, guint64 ts, guint64 dur)
{
  g_mutex_lock (&q->lock);
  if (q->pending) {
    guint64 one = q->pending_bytes / q->pending;

    queue_advance_locked (q, ts);
    q->level += q->pending;
    q->bytes += q->pending_bytes;
    if (GST_CLOCK_TIME_IS_VALID (q->pending_pts))
      q->in_pts = q->pending_pts;
    q->pending = 0;
    q->pending_bytes = 0;
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

static void
queue_get (SpRecorder * r, SpQueue * q, guint64 ts, guint n, guint64 bytes,
    GstClockTime pts)
{
  g_mutex_lock (&q->lock);
  queue_advance_locked (q, ts);
  if (q->early_out) {
    /* Already counted out by queue_put_done(): fix the byte estimate. */
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
    q->level += q->pending;
    q->bytes += q->pending_bytes;
    if (GST_CLOCK_TIME_IS_VALID (q->pending_pts))
      q->in_pts = q->pending_pts;
    q->pending = 0;
    q->pending_bytes = 0;
    queue_note_max_locked (q);
  }
  emit_counter (r, q, ts);
  g_mutex_unlock (&q->lock);
}

static void
queue_get_wait (SpRecorder * r, SpQueue * q, guint64 wait)
{
  g_mutex_lock (&q->lock);
  if (++q->get_seen > (guint64) (guint) g_atomic_int_get (&r->skip_first))
    stage_stats_add (&q->get, wait / 1e6);
  g_mutex_unlock (&q->lock);
}

static void
queue_empty_out (SpRecorder * r, SpQueue * q, guint64 ts)
{
  g_mutex_lock (&q->lock);
  queue_advance_locked (q, ts);
  q->level = q->bytes = 0;
  q->pending = 0;
  q->pending_bytes = 0;
  q->early_out = 0;
  q->early_bytes = 0;
  q->in_pts = q->out_pts = GST_CLOCK_TIME_NONE;
  emit_counter (r, q, ts);
  g_mutex_unlock (&q->lock);
}

/* ------------------------------------------------------------------ */
/* Hot path */

static inline void
add_sample (SpRecorder * r, SpElemRec * rec, guint64 ns, guint64 ts)
{
  if (rec->seen++ == 0)
    rec->first_ts = ts;
  rec->last_ts = ts;
  if (rec->seen > (guint64) (guint) g_atomic_int_get (&r->skip_first))
    stage_stats_add (&rec->stats, ns * 1e-6);
}


static inline void
push_frame (SpThreadState * st, SpElemRec * rec, guint64 ts, SpFrameKind kind,
    gboolean full)
{
  SpFrame *f;

  if (G_UNLIKELY (st->depth >= SP_MAX_DEPTH)) {
    st->depth++;
    return;
  }
  f = &st->stack[st->depth++];
  f->rec = rec;
  f->start = ts;
  f->child = 0;
  f->kind = kind;
  f->full = full;
  f->list = FALSE;
  f->cpu_on = FALSE;
}

/* CPU time this thread has used: a system call (0.35-0.5 µs on the test
 * machine), so only at the boundaries of the intervals we split, never on
 * every chain. */
static inline guint64
thread_cpu_ns (void)
{
  struct timespec t;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (guint64) t.tv_sec * GST_SECOND + (guint64) t.tv_nsec;
}

/* The part of an interval that was work: the `cpu` ns the thread used in
 * it, less the `child` ns its nested calls took (charged to their own
 * elements, and assumed to be work), never more than the interval's `own`
 * time. */
static inline guint64
cpu_work (guint64 cpu, guint64 child, guint64 own)
{
  guint64 work = cpu > child ? cpu - child : 0;

  return MIN (work, own);
}

/* Slices for a split interval [start, start + dur): the waiting first (an
 * aggregator waits for its inputs, then aggregates; a sync sink waits for
 * the clock, then renders), then the element's work. The hooks do not say
 * when inside the interval the thread waited, so this is only drawn when
 * nothing nested in it (its slices would straddle the boundary); otherwise
 * the interval is one element slice, as unsplit ones are. */
static void
emit_split (SpRecorder * r, SpThreadRec * th, SpElemInfo * info,
    guint64 start, guint64 dur, guint64 wait, gboolean nested, gint wait_kind)
{
  if (!info->traced)
    return;
  if (nested || wait == 0 || wait > dur) {
    emit_slice (r, th, info->name, start, dur, SLICE_ELEMENT);
    return;
  }
  emit_slice (r, th, info->name, start, wait, wait_kind);
  if (dur > wait)
    emit_slice (r, th, info->name, start + wait, dur - wait, SLICE_ELEMENT);
}

static void
finish_frame (SpRecorder * r, SpThreadState * st, SpFrame * f, guint64 ts)
{
  guint64 dur = ts > f->start ? ts - f->start : 0;
  SpElemRec *rec = f->rec;

  if (f->kind == SP_FRAME_INNER) {
    /* Transparent: its time stays the list's own, its children stay the
     * list's children. */
    if (st->depth > 0 && st->depth <= SP_MAX_DEPTH)
      st->stack[st->depth - 1].child += f->child;
    return;
  }
  if (rec) {
    SpThreadRec *th = rec->thread;
    SpElemInfo *info = rec->info;

    if (f->kind == SP_FRAME_EVENT) {
      guint64 self = dur > f->child ? dur - f->child : 0;
      th->busy += self;
      if (info->traced)
        emit_slice (r, th, info->event_name, f->start, dur, SLICE_ELEMENT);
    } else if (f->kind == SP_FRAME_PULL && info->queue) {
      /* queue2 serving a pull waits for its download: input, not work. */
      th->wait_in += dur;
      if (info->traced)
        emit_slice (r, th, info->name, f->start, dur, SLICE_WAIT_INPUT);
    } else if (f->kind == SP_FRAME_QUEUE) {
      queue_put_done (r, info->queue, ts, dur);
      th->wait_out += dur;
      if (info->traced && (f->full || (!info->queue->limits_known
                  && dur >= SP_WAIT_SLICE_MIN_NS)))
        emit_slice (r, th, info->name, f->start, dur, SLICE_WAIT_OUTPUT);
    } else if (G_UNLIKELY (f->cpu_on)) {
      /* A sync sink's clock wait, an aggregator's pad waiting for its task
       * to take the buffer, a muxer's pad waiting for its other inputs:
       * the thread holds a buffer it cannot hand on yet, so the waiting is
       * wait on output. */
      guint64 self = dur > f->child ? dur - f->child : 0;
      guint64 work = cpu_work (thread_cpu_ns () - f->cpu, f->child, self);
      add_sample (r, rec, work, ts);
      th->busy += work;
      th->wait_out += self - work;
      emit_split (r, th, info, f->start, dur, self - work, f->child > 0,
          SLICE_WAIT_OUTPUT);
    } else {
      guint64 self = dur > f->child ? dur - f->child : 0;
      add_sample (r, rec, self, ts);
      th->busy += self;
      if (info->traced)
        emit_slice (r, th, info->name, f->start, dur, SLICE_ELEMENT);
    }
    th->last_ts = ts;
  }
  if (st->depth > 0) {
    if (st->depth <= SP_MAX_DEPTH)
      st->stack[st->depth - 1].child += dur;
  } else {
    st->base_child += dur;
  }
}

static inline G_ALWAYS_INLINE void
pop_frame (SpRecorder * r, SpThreadState * st, guint64 ts)
{
  SpFrame *f;
  SpElemRec *rec;
  guint64 dur;

  if (G_UNLIKELY (st->depth == 0))
    return;                     /* a post whose pre came before tracing */
  st->depth--;
  if (G_UNLIKELY (st->depth >= SP_MAX_DEPTH))
    return;
  f = &st->stack[st->depth];
  rec = f->rec;
  if (G_UNLIKELY (f->kind != SP_FRAME_CHAIN || f->cpu_on || rec == NULL)) {
    finish_frame (r, st, f, ts);
    return;
  }
  /* The plain chain, nearly every frame: finish_frame()'s last case,
   * inlined, with the sample last so that it can be a tail call. */
  dur = ts > f->start ? ts - f->start : 0;
  {
    SpThreadRec *th = rec->thread;
    SpElemInfo *info = rec->info;
    guint64 self = dur > f->child ? dur - f->child : 0;

    if (st->depth > 0)
      f[-1].child += dur;
    else
      st->base_child += dur;
    th->busy += self;
    th->last_ts = ts;
    if (info->traced)
      emit_slice (r, th, info->name, f->start, dur, SLICE_ELEMENT);
    add_sample (r, rec, self, ts);
  }
}

/* Sizes are only needed for queues: computed there, off the common path. */
static inline guint
data_count (GstBuffer * buf, GstBufferList * list)
{
  return buf ? 1 : gst_buffer_list_length (list);
}

static void
data_info (GstBuffer * buf, GstBufferList * list, guint64 * bytes,
    GstClockTime * pts)
{
  if (buf) {
    *bytes = gst_buffer_get_size (buf);
    *pts = GST_BUFFER_PTS (buf);
  } else {
    *bytes = gst_buffer_list_calculate_size (list);
    *pts = gst_buffer_list_length (list) ?
        GST_BUFFER_PTS (gst_buffer_list_get (list, 0)) : GST_CLOCK_TIME_NONE;
  }
}

/* Every case; sp_record_chain_pre() handles the common one itself. */
static G_GNUC_NO_INLINE void
chain_pre_full (SpRecorder * r, SpThreadState * st, SpElemRec * rec,
    guint64 ts, GstPad * pad, GstBuffer * buf, GstBufferList * list)
{
  guint n_buffers = data_count (buf, list);
  guint64 bytes;
  GstClockTime pts;
  SpQueue *q;

  if (st->depth == 0) {
    rec = top_level (r, st, rec, pad, ts);
  } else if (G_UNLIKELY (st->depth <= SP_MAX_DEPTH
          && st->stack[st->depth - 1].list
          && st->stack[st->depth - 1].rec == rec)) {
    push_frame (st, rec, ts, SP_FRAME_INNER, FALSE);
    return;
  }
  rec->buffers += n_buffers;
  q = rec->info->queue;
  if (q) {
    data_info (buf, list, &bytes, &pts);
    push_frame (st, rec, ts, SP_FRAME_QUEUE,
        queue_put (r, q, ts, n_buffers, bytes, pts));
  } else {
    push_frame (st, rec, ts, SP_FRAME_CHAIN, FALSE);
    if (G_UNLIKELY (g_atomic_int_get (&rec->info->split_chain))
        && st->depth <= SP_MAX_DEPTH) {
      st->stack[st->depth - 1].cpu_on = TRUE;
      st->stack[st->depth - 1].cpu = thread_cpu_ns ();
    }
  }
  if (list && st->depth <= SP_MAX_DEPTH)
    st->stack[st->depth - 1].list = TRUE;
}

static G_GNUC_NO_INLINE void
chain_pre_hook (SpRecorder * r, guint64 ts, GstPad * pad, GstBuffer * buf,
    GstBufferList * list)
{
  SpThreadState *st = get_state (r, ts);
  SpElemRec *rec = lookup_pad (r, st, pad, ts);

  if (G_UNLIKELY (!rec))
    return;
  chain_pre_full (r, st, rec, ts, pad, buf, list);
}

void
sp_record_chain_pre (SpRecorder * r, guint64 ts, GstPad * pad,
    GstBuffer * buf, GstBufferList * list)
{
  SpThreadState *st = state_fast (r);
  SpElemRec *rec;
  guint depth;
  SpFrame *f;

  if (G_UNLIKELY (st == NULL || !cached_rec (st, pad, &rec))) {
    chain_pre_hook (r, ts, pad, buf, list);
    return;
  }
  if (G_UNLIKELY (!rec))
    return;
  depth = st->depth;
  /* The common case: one buffer, into a plain element, nested in a chain
   * that did not take a list; what chain_pre_full() would do there. */
  if (G_UNLIKELY (depth == 0 || depth >= SP_MAX_DEPTH || list != NULL
          || st->stack[depth - 1].list || rec->info->queue != NULL
          || g_atomic_int_get (&rec->info->split_chain))) {
    chain_pre_full (r, st, rec, ts, pad, buf, list);
    return;
  }
  rec->buffers++;
  st->depth = depth + 1;
  f = &st->stack[depth];
  f->rec = rec;
  f->start = ts;
  f->child = 0;
  f->kind = SP_FRAME_CHAIN;
  f->full = FALSE;
  f->list = FALSE;
  f->cpu_on = FALSE;
}

static G_GNUC_NO_INLINE void
chain_post_hook (SpRecorder * r, guint64 ts, GstPad * pad)
{
  SpThreadState *st = get_state (r, ts);

  if (G_UNLIKELY (!lookup_pad (r, st, pad, ts)))
    return;
  pop_frame (r, st, ts);
}

void
sp_record_chain_post (SpRecorder * r, guint64 ts, GstPad * pad)
{
  SpThreadState *st = state_fast (r);
  SpElemRec *rec;

  if (G_UNLIKELY (st == NULL || !cached_rec (st, pad, &rec))) {
    chain_post_hook (r, ts, pad);
    return;
  }
  if (G_UNLIKELY (!rec))
    return;
  pop_frame (r, st, ts);
}

/* A src pad that runs its own task while its element has sink pads is a
 * queue in all but name (aggregators excepted: their task does the work). */
static void
check_task_queue (SpRecorder * r, SpElemInfo * info, GstPad * pad,
    GstElement * e)
{
  info->task_checked = TRUE;
  if (info->queue || info->aggregator || GST_PAD_TASK (pad) == NULL
      || e->numsinkpads == 0)
    return;
  g_mutex_lock (&r->lock);
  /* Published to the producer's thread, which reads it without the lock. */
  if (!info->queue)
    g_atomic_pointer_set (&info->queue, queue_new_locked (r, info));
  g_mutex_unlock (&r->lock);
}

static void
queue_get_data (SpRecorder * r, SpQueue * q, guint64 ts, GstBuffer * buf,
    GstBufferList * list)
{
  guint64 bytes;
  GstClockTime pts;

  data_info (buf, list, &bytes, &pts);
  queue_get (r, q, ts, data_count (buf, list), bytes, pts);
}

/* A push at the top of the stack: the thread's driving element. */
static G_GNUC_NO_INLINE void
push_pre_top (SpRecorder * r, SpThreadState * st, SpElemRec * rec,
    guint64 ts, GstPad * pad, GstBuffer * buf, GstBufferList * list)
{
  SpElemInfo *info;
  SpThreadRec *th;

  rec = top_level (r, st, rec, pad, ts);
  info = rec->info;
  th = rec->thread;
  if (G_UNLIKELY (!info->task_checked))
    check_task_queue (r, info, pad, GST_ELEMENT_CAST (GST_OBJECT_PARENT (pad)));
  if (info->queue)
    queue_get_data (r, info->queue, ts, buf, list);

  if (st->have_push_end && st->push_end_rec == rec && ts > st->last_push_end) {
    guint64 gap = ts - st->last_push_end;
    guint64 own = gap > st->base_child ? gap - st->base_child : 0;

    if (info->queue) {
      queue_get_wait (r, info->queue, own);
      th->wait_in += own;
      if (info->traced)
        emit_slice (r, th, info->name, st->last_push_end, gap,
            SLICE_WAIT_INPUT);
    } else if (st->have_cpu_end) {
      /* An aggregator waiting for its inputs, a source waiting for its
       * clock, device or file: CPU time is work, the rest waiting. */
      guint64 work = cpu_work (thread_cpu_ns () - st->cpu_push_end,
          st->base_child, own);
      add_sample (r, rec, work, ts);
      th->busy += work;
      th->wait_in += own - work;
      emit_split (r, th, info, st->last_push_end, gap, own - work,
          st->base_child > 0, SLICE_WAIT_INPUT);
    } else {
      add_sample (r, rec, own, ts);
      /* Unsplit (short, or no CPU clock): a live source's thread is still
       * waiting for its next frame, not working. */
      if (info->live_source)
        th->wait_in += own;
      else
        th->busy += own;
      if (info->traced)
        emit_slice (r, th, info->name, st->last_push_end, gap, SLICE_ELEMENT);
    }
    rec->split_next = info->split_task
        || (r->cpu_clock && gap >= SP_CPU_SPLIT_MIN_NS && !info->queue);
  } else {
    rec->split_next = info->split_task;
  }
  st->base_child = 0;
}

static G_GNUC_NO_INLINE void
push_pre_hook (SpRecorder * r, guint64 ts, GstPad * pad, GstBuffer * buf,
    GstBufferList * list)
{
  SpThreadState *st = get_state (r, ts);
  SpElemRec *rec = lookup_pad (r, st, pad, ts);

  if (G_UNLIKELY (!rec))
    return;
  if (st->depth != 0) {
    if (G_UNLIKELY (rec->info->queue != NULL))
      queue_get_data (r, rec->info->queue, ts, buf, list);
    return;
  }
  push_pre_top (r, st, rec, ts, pad, buf, list);
}

void
sp_record_push_pre (SpRecorder * r, guint64 ts, GstPad * pad,
    GstBuffer * buf, GstBufferList * list)
{
  SpThreadState *st = state_fast (r);
  SpElemRec *rec;

  /* Nested in a chain, a plain element's push needs nothing. */
  if (G_LIKELY (st != NULL && cached_rec (st, pad, &rec)
          && (rec == NULL || (st->depth != 0 && rec->info->queue == NULL))))
    return;
  push_pre_hook (r, ts, pad, buf, list);
}

static G_GNUC_NO_INLINE void
push_post_hook (SpRecorder * r, guint64 ts, GstPad * pad)
{
  SpThreadState *st = get_state (r, ts);
  SpElemRec *rec;

  if (st->depth != 0)
    return;
  rec = lookup_pad (r, st, pad, ts);
  if (G_UNLIKELY (!rec))
    return;
  st->have_push_end = TRUE;
  st->last_push_end = ts;
  st->push_end_rec = rec;
  st->base_child = 0;
  st->have_cpu_end = rec->split_next;
  if (G_UNLIKELY (rec->split_next))
    st->cpu_push_end = thread_cpu_ns ();
  rec->thread->last_ts = ts;
}

void
sp_record_push_post (SpRecorder * r, guint64 ts, GstPad * pad)
{
  SpThreadState *st = state_fast (r);

  /* Only the end of a top-level push counts. */
  if (G_LIKELY (st != NULL && st->depth != 0))
    return;
  push_post_hook (r, ts, pad);
}

void
sp_record_pull_pre (SpRecorder * r, guint64 ts, GstPad * pad)
{
  GstPad *peer = GST_PAD_PEER (pad);
  SpThreadState *st = get_state (r, ts);
  SpElemRec *rec = NULL;

  if (st->depth == 0) {
    rec = lookup_pad (r, st, pad, ts);
    if (rec)
      top_level (r, st, rec, pad, ts);
  }
  /* Always a frame, so that pre and post pair up whatever the pads are. */
  rec = peer ? lookup_pad (r, st, peer, ts) : NULL;
  push_frame (st, rec, ts, SP_FRAME_PULL, FALSE);
}

void
sp_record_pull_post (SpRecorder * r, guint64 ts, GstPad * pad)
{
  pop_frame (r, get_state (r, ts), ts);
}

/* Events: the element the event is pushed to handles it inside the push,
 * so the push is a frame of that element (a decoder opening on its caps
 * event, a sink draining on EOS). Frames with no element (ghost pads) are
 * transparent. */
void
sp_record_event_pre (SpRecorder * r, guint64 ts, GstPad * pad)
{
  GstPad *peer = GST_PAD_PEER (pad);
  SpThreadState *st = get_state (r, ts);
  SpElemRec *rec;
  GstObject *parent = peer ? GST_OBJECT_PARENT (peer) : NULL;

  /* Events while linking (reconfigure) are not streaming: no records for
   * elements that are not even READY. Nor a thread of its own for an
   * application thread that only sends events upstream (latency, seeks). */
  if (parent == NULL || !GST_IS_ELEMENT (parent)
      || GST_STATE (parent) == GST_STATE_NULL
      || (st->thread == NULL && GST_PAD_IS_SINK (pad))) {
    push_frame (st, NULL, ts, SP_FRAME_EVENT, FALSE);
    return;
  }
  /* At the top the pusher drives the thread, as for buffers. */
  if (st->depth == 0) {
    rec = lookup_pad (r, st, pad, ts);
    if (rec)
      top_level (r, st, rec, pad, ts);
  }
  rec = peer ? lookup_pad (r, st, peer, ts) : NULL;
  push_frame (st, rec, ts, SP_FRAME_EVENT, FALSE);
}

void
sp_record_event_post (SpRecorder * r, guint64 ts, GstPad * pad)
{
  pop_frame (r, get_state (r, ts), ts);
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
  GstElement *e = peer ? pad_element (peer) : NULL;
  SpElemInfo *info = e ? info_lookup (r, e) : NULL;

  if (info && info->queue)
    queue_empty_out (r, info->queue, ts);
}

void
sp_record_state_changed (SpRecorder * r, guint64 ts, GstElement * element,
    GstStateChange transition)
{
  SpElemInfo *info = info_lookup (r, element);

  if (info && !info->queue && transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    info_read_split (r, info, element);   /* sync may have changed */
  if (!info || !info->queue)
    return;
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    queue_read_limits (info->queue, element);
  else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    queue_empty_out (r, info->queue, ts);
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
    }
  }
  g_mutex_unlock (&r->lock);
}

/* ------------------------------------------------------------------ */
/* Summary */

static gboolean
pipe_matches (SpPipe * p, gpointer pipeline)
{
  if (pipeline == SP_RECORDER_PENDING)
    return !p->summarized;
  return pipeline == NULL || p->obj == pipeline;
}

void
sp_recorder_mark_summarized (SpRecorder * r, gpointer pipeline,
    gboolean summarized)
{
  guint i;

  g_mutex_lock (&r->lock);
  for (i = 0; i < r->pipes->len; i++) {
    SpPipe *p = g_ptr_array_index (r->pipes, i);
    if (pipe_matches (p, pipeline))
      p->summarized = summarized;
  }
  g_mutex_unlock (&r->lock);
}

gboolean
sp_recorder_has_data (SpRecorder * r, gpointer pipeline)
{
  gboolean found = FALSE;
  guint i;
  gint gen;

  g_mutex_lock (&r->lock);
  gen = g_atomic_int_get (&r->gen);
  for (i = 0; i < r->elems->len && !found; i++) {
    SpElemRec *rec = g_ptr_array_index (r->elems, i);
    found = rec->gen == gen && rec->seen > 0
        && pipe_matches (rec->info->pipe, pipeline);
  }
  for (i = 0; i < r->queues->len && !found; i++) {
    SpQueue *q = g_ptr_array_index (r->queues, i);
    found = q->items > 0 && pipe_matches (q->pipe, pipeline);
  }
  g_mutex_unlock (&r->lock);
  return found;
}

gchar *
sp_recorder_pipeline_name (SpRecorder * r, gpointer pipeline)
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

static gint
cmp_total (gconstpointer a, gconstpointer b)
{
  const SpElemRec *ra = *(SpElemRec * const *) a;
  const SpElemRec *rb = *(SpElemRec * const *) b;

  if (ra->stats.total != rb->stats.total)
    return ra->stats.total < rb->stats.total ? 1 : -1;
  return g_strcmp0 (ra->info->name, rb->info->name);
}

static void
array_append_structure (GValue * array, GstStructure * s)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&v, s);
  gst_value_array_append_and_take_value (array, &v);
}

static GstStructure *
element_row (SpElemRec * rec)
{
  const StageStats *s = &rec->stats;
  gboolean any = s->count > 0;

  return gst_structure_new ("element",
      "name", G_TYPE_STRING, rec->info->name,
      "thread", G_TYPE_STRING, rec->thread->name,
      "pipeline", G_TYPE_STRING, rec->info->pipe->name,
      "count", G_TYPE_UINT64, (guint64) s->count,
      "mean_ms", G_TYPE_DOUBLE, any ? s->mean : 0.0,
      "std_ms", G_TYPE_DOUBLE, stage_stats_std (s),
      "min_ms", G_TYPE_DOUBLE, any ? s->min : 0.0,
      "max_ms", G_TYPE_DOUBLE, any ? s->max : 0.0,
      "median_ms", G_TYPE_DOUBLE, any ? stage_stats_median (s) : 0.0,
      "p90_ms", G_TYPE_DOUBLE, any ? stage_stats_p90 (s) : 0.0,
      "p99_ms", G_TYPE_DOUBLE, any ? stage_stats_p99 (s) : 0.0,
      "last_ms", G_TYPE_DOUBLE, any ? s->last : 0.0,
      "total_s", G_TYPE_DOUBLE, s->total / 1e3,
      /* Unsplit, a live source's row is its frame interval: not work. */
      "busy_pct", G_TYPE_DOUBLE, rec->info->live_source
      && !rec->info->split_task ? 0.0 :
      pct (s->total * 1e6, thread_wall (rec->thread)),
      "skipped", G_TYPE_UINT64, rec->seen - s->count, NULL);
}

static GstStructure *
queue_row (SpQueue * q)
{
  gdouble span = q->last_ts > q->first_ts ? q->last_ts - q->first_ts : 0;

  return gst_structure_new ("queue",
      "name", G_TYPE_STRING, q->name,
      "pipeline", G_TYPE_STRING, q->pipe->name,
      "items", G_TYPE_UINT64, q->items,
      "qps", G_TYPE_DOUBLE, span > 0 ? q->items / (span / 1e9) : 0.0,
      "mean_level", G_TYPE_DOUBLE, span > 0 ? q->level_integral / span : 0.0,
      "max_level", G_TYPE_UINT64, q->max_level,
      "mean_bytes", G_TYPE_DOUBLE, span > 0 ? q->bytes_integral / span : 0.0,
      "max_bytes", G_TYPE_UINT64, q->max_bytes_seen,
      "empty_pct", G_TYPE_DOUBLE, pct (q->empty_ns, span),
      "full_pct", G_TYPE_DOUBLE, pct (q->full_ns, span),
      "ave_put_ms", G_TYPE_DOUBLE, q->put.count ? q->put.mean : 0.0,
      "ave_get_ms", G_TYPE_DOUBLE, q->get.count ? q->get.mean : 0.0,
      "limit_buffers", G_TYPE_UINT, q->limits_known ? q->max_buffers : 0,
      NULL);
}

static GstStructure *
thread_row (SpThreadRec * th)
{
  gdouble wall = thread_wall (th);

  return gst_structure_new ("thread",
      "name", G_TYPE_STRING, th->name,
      "pipeline", G_TYPE_STRING, th->pipe->name,
      "tid", G_TYPE_UINT64, th->tid,
      "wall_s", G_TYPE_DOUBLE, wall / 1e9,
      "busy_pct", G_TYPE_DOUBLE, pct (th->busy, wall),
      "wait_input_pct", G_TYPE_DOUBLE, pct (th->wait_in, wall),
      "wait_output_pct", G_TYPE_DOUBLE, pct (th->wait_out, wall), NULL);
}

/* Sinks: frames are buffers that reached the element, over every thread
 * that chained into it, and FPS is frames over the first-to-last span. */
static void
add_sinks (GValue * arr, GPtrArray * recs)
{
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  guint i, j;

  for (i = 0; i < recs->len; i++) {
    SpElemRec *rec = g_ptr_array_index (recs, i);
    guint64 frames = 0, first = G_MAXUINT64, last = 0;
    gdouble span;

    if (!rec->info->is_sink || g_hash_table_contains (seen, rec->info))
      continue;
    g_hash_table_add (seen, rec->info);
    for (j = i; j < recs->len; j++) {
      SpElemRec *o = g_ptr_array_index (recs, j);
      if (o->info != rec->info)
        continue;
      frames += o->buffers;
      first = MIN (first, o->first_ts);
      last = MAX (last, o->last_ts);
    }
    span = last > first ? (gdouble) (last - first) : 0;
    array_append_structure (arr, gst_structure_new ("sink",
            "name", G_TYPE_STRING, rec->info->name,
            "frames", G_TYPE_UINT64, frames,
            "fps", G_TYPE_DOUBLE, span > 0 && frames > 1 ?
            (frames - 1) / (span / 1e9) : 0.0, NULL));
  }
  g_hash_table_destroy (seen);
}

/* The bottleneck is the busiest thread (in a pipelined graph it sets the
 * pace), named by the element that costs most on it. Threads that lived for
 * a moment only (typefinding, a pooled thread's short first task) are left
 * out: 100% of a millisecond says nothing. */
static gchar *
verdict (GPtrArray * recs, GPtrArray * threads, gdouble wall)
{
  SpThreadRec *busiest = NULL;
  SpElemRec *top = NULL;
  gdouble best = -1;
  guint i;

  for (i = 0; i < threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (threads, i);
    gdouble b = pct (th->busy, thread_wall (th));
    if (thread_wall (th) < 0.25 * wall)
      continue;
    if (b > best) {
      best = b;
      busiest = th;
    }
  }
  for (i = 0; busiest && i < recs->len; i++) {
    SpElemRec *rec = g_ptr_array_index (recs, i);
    if (rec->thread == busiest
        && (!rec->info->live_source || rec->info->split_task)
        && (!top || rec->stats.total > top->stats.total))
      top = rec;
  }
  if (!top)
    return g_strdup ("no verdict: no streaming thread ran long enough to "
        "judge");
  return g_strdup_printf ("%s-bound: %s on thread %s busy %.0f%% "
      "(%s: %.0f%% of the thread)", kind_labels[top->info->kind],
      top->info->name, busiest->name, best, top->info->name,
      pct (top->stats.total * 1e6, thread_wall (busiest)));
}

GstStructure *
sp_recorder_summary (SpRecorder * r, gpointer pipeline, gboolean final)
{
  GPtrArray *recs = g_ptr_array_new (), *threads = g_ptr_array_new ();
  GValue ev = G_VALUE_INIT, qv = G_VALUE_INIT, tv = G_VALUE_INIT,
      sv = G_VALUE_INIT;
  GstStructure *s;
  guint64 first = G_MAXUINT64, last = 0;
  gchar *v;
  guint i;
  gint gen;

  g_value_init (&ev, GST_TYPE_ARRAY);
  g_value_init (&qv, GST_TYPE_ARRAY);
  g_value_init (&tv, GST_TYPE_ARRAY);
  g_value_init (&sv, GST_TYPE_ARRAY);

  g_mutex_lock (&r->lock);
  gen = g_atomic_int_get (&r->gen);
  for (i = 0; i < r->elems->len; i++) {
    SpElemRec *rec = g_ptr_array_index (r->elems, i);
    if (rec->gen == gen && rec->thread->gen == gen && rec->seen > 0
        && pipe_matches (rec->info->pipe, pipeline))
      g_ptr_array_add (recs, rec);
  }
  for (i = 0; i < r->threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (r->threads, i);
    if (th->gen == gen && pipe_matches (th->pipe, pipeline)
        && th->last_ts > th->first_ts) {
      g_ptr_array_add (threads, th);
      first = MIN (first, th->first_ts);
      last = MAX (last, th->last_ts);
    }
  }
  g_ptr_array_sort (recs, cmp_total);
  for (i = 0; i < recs->len; i++)
    array_append_structure (&ev, element_row (g_ptr_array_index (recs, i)));
  for (i = 0; i < r->queues->len; i++) {
    SpQueue *q = g_ptr_array_index (r->queues, i);
    if (!pipe_matches (q->pipe, pipeline))
      continue;
    g_mutex_lock (&q->lock);
    if (q->items > 0 || q->put_seen > 0)
      array_append_structure (&qv, queue_row (q));
    g_mutex_unlock (&q->lock);
  }
  for (i = 0; i < threads->len; i++)
    array_append_structure (&tv, thread_row (g_ptr_array_index (threads, i)));
  add_sinks (&sv, recs);
  v = verdict (recs, threads, last > first ? (gdouble) (last - first) : 0);
  g_mutex_unlock (&r->lock);

  s = gst_structure_new ("stageprof-summary",
      "wall_s", G_TYPE_DOUBLE, last > first ? (last - first) / 1e9 : 0.0,
      "final", G_TYPE_BOOLEAN, final, NULL);
  gst_structure_take_value (s, "elements", &ev);
  gst_structure_take_value (s, "queues", &qv);
  gst_structure_take_value (s, "threads", &tv);
  gst_structure_take_value (s, "sinks", &sv);
  gst_structure_set (s, "verdict", G_TYPE_STRING, v, NULL);
  g_free (v);
  g_ptr_array_free (recs, TRUE);
  g_ptr_array_free (threads, TRUE);
  return s;
}
