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

#include "sprecord-priv.h"
#include "spsummary.h"

#define SP_MAX_DEPTH 64
/* Initial size of a thread's pad cache; it doubles past half full. */
#define SP_CACHE_SLOTS 256

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
  guint64 child_cpu;            /* CPU time of the children (wall when not
                                 * timed by CPU) */
  guint64 cpu;                  /* thread CPU time at start, when cpu_on */
  guint32 timed_children;       /* children timed by CPU (their reads) */
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
  guint64 base_child, base_child_cpu;
  gboolean new_thread;
  gboolean have_cpu_end;
  guint64 cpu_push_end;         /* thread CPU time at last_push_end */
  guint64 os_tid;
  gint free_gen_seen;           /* read by other threads: atomic */
} SpThreadState;


static void state_free (gpointer data);
static void live_recorder (SpRecorder * r, gboolean alive);
static void limbo_collect_locked (SpRecorder * r);
static void info_free (gpointer data);
static void pipe_free (gpointer data);
static inline guint64 thread_cpu_ns (void);
/* initial-exec: a plain %fs-relative load on every hook instead of a call
 * to __tls_get_addr (the default model for a dlopen()ed plugin). One
 * pointer fits in the static TLS that glibc reserves for such modules. */
static __thread SpThreadState *sp_tls
    __attribute__ ((tls_model ("initial-exec")));
static GPrivate sp_state_key = G_PRIVATE_INIT (state_free);


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
  t0 = thread_cpu_ns ();
  for (i = 0; i < 100000; i++)
    x = x * 1664525u + 1013904223u;
  ns = thread_cpu_ns () - t0;
  return MAX (1, ns / 200000);
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
    guint64 prev = thread_cpu_ns (), now, best = G_MAXUINT64;
    gint i;
    for (i = 0; i < 16; i++) {
      now = thread_cpu_ns ();
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
  r->os_threads = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  live_recorder (r, TRUE);
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
  live_recorder (r, FALSE);
  g_hash_table_destroy (r->os_threads);
  g_ptr_array_set_size (r->states, 0);
  limbo_collect_locked (r);
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
  if (trace) {
    guint i;
    for (i = 0; i < r->pipes->len; i++) {
      SpPipe *p = g_ptr_array_index (r->pipes, i);
      sp_trace_process_name (trace, p->pid, p->name);
    }
    for (i = 0; i < r->threads->len; i++) {
      SpThreadRec *th = g_ptr_array_index (r->threads, i);
      sp_trace_thread_name (trace, th->pid, th->tid, th->name);
    }
  }
  g_atomic_pointer_set (&r->trace, trace);
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

static const gchar *
escaped_name (const gchar * name)
{
  gchar *esc = sp_summary_escape (name);
  const gchar *res = g_intern_string (esc);

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
    /* Renamed since first seen (gst_parse_launch, then set_name). */
    p->name = escaped_name (GST_OBJECT_NAME (top));
    if (r->trace)
      sp_trace_process_name (r->trace, p->pid, p->name);
  }
  if (p)
    return p;
  p = g_new0 (SpPipe, 1);
  p->obj = top;
  p->name = escaped_name (GST_OBJECT_NAME (top) ? GST_OBJECT_NAME (top) :
      "(unnamed)");
  p->pid = ++r->next_pid;
  p->run = 1;
  p->threads_by_tid = g_hash_table_new (NULL, NULL);
  p->proc_cpu0 = sp_process_cpu_ns ();
  g_hash_table_insert (r->pipes_by_obj, top, p);
  g_ptr_array_add (r->pipes, p);
  if (r->trace)
    sp_trace_process_name (r->trace, p->pid, p->name);
  return p;
}

gboolean
sp_has_property (GstElement * e, const gchar * name)
{
  return g_object_class_find_property (G_OBJECT_GET_CLASS (e), name) != NULL;
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
  if (!r->cpu_clock)
    return;
  info->split_task = info->aggregator || info->live_source;
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
static const gchar *
element_path (GstElement * e)
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
  res = g_intern_string (esc);
  g_free (esc);
  g_string_free (path, TRUE);
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
    info->name = element_path (e);
    {
      gchar *ev = g_strconcat (info->name, " event", NULL);
      info->event_name = g_intern_string (ev);
      g_free (ev);
    }
    info->kind = classify (e);
    info->recs_by_thread = g_hash_table_new (NULL, NULL);
    info->is_sink = GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SINK);
    info->aggregator = is_aggregator (e);
    info->live_source = is_live_source (e);
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

static void
rec_reset (SpElemRec * rec, gint gen)
{
  rec->gen = gen;
  rec->seen = rec->buffers = 0;
  rec->first_ts = rec->last_ts = 0;
  rec->work_ns = rec->clock_ns = rec->wait_ns = rec->blocked_ns = 0;
  if (rec->sample_left != G_MAXUINT)
    rec->sample_left = SP_CPU_FIRST_SAMPLES;
  stage_stats_init (&rec->stats);
}

static void
thread_reset (SpThreadRec * th, gint gen, guint64 ts)
{
  th->gen = gen;
  th->first_ts = th->last_ts = ts;
  th->busy = th->wait_in = th->wait_out = th->blocked = 0;
  th->sched_delay0 = sp_sched_delay (th->tid);
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
    base = escaped_name (stage);
  else if (pthread_getname_np (pthread_self (), os_name, sizeof (os_name)) == 0
      && strchr (os_name, '['))
    base = escaped_name (os_name);
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
  th->run = driver->pipe->run;
  th->pid = driver->pipe->pid;
  g_hash_table_insert (driver->pipe->threads_by_tid,
      GSIZE_TO_POINTER (th->tid), th);
  th->name = thread_name_locked (r, driver->pipe, driver);
  thread_reset (th, g_atomic_int_get (&r->gen), ts);   /* unpublished yet */
  g_ptr_array_add (r->threads, th);
  if (r->trace)
    sp_trace_thread_name (r->trace, th->pid, th->tid, th->name);
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
  st->base_child = st->base_child_cpu = 0;
  if (st->new_thread) {
    /* Until its first push a new thread works (typefinding, reading
     * headers) or waits for its first data: booked at that push, to the
     * pusher, as if a push had ended when the thread was first seen. */
    st->new_thread = FALSE;
    st->have_push_end = TRUE;
    st->last_push_end = th->first_ts;
    st->have_cpu_end = st->r->cpu_clock;
    if (st->have_cpu_end)
      st->cpu_push_end = thread_cpu_ns ();
  }
  state_clear_cache (st);
}

static SpThreadRec *
thread_for_pipe (SpRecorder * r, SpThreadState * st, SpElemInfo * driver,
    guint64 ts)
{
  SpThreadRec *th = g_hash_table_lookup (st->thread_by_pipe, driver->pipe);

  if (!th) {
    /* The recorder's map is the truth; this thread's is a cache of it
     * that may have been emptied (records of dead pipelines freed). */
    g_mutex_lock (&r->lock);
    th = g_hash_table_lookup (driver->pipe->threads_by_tid,
        GSIZE_TO_POINTER (st->os_tid));
    g_mutex_unlock (&r->lock);
    if (!th) {
      th = thread_rec_new (r, st, driver, ts);
      st->new_thread = TRUE;
    }
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
    g_mutex_lock (&r->lock);
    rec = g_hash_table_lookup (info->recs_by_thread, st->thread);
    if (rec && rec->run != info->pipe->run)
      rec = NULL;
    if (!rec) {
      rec = g_new0 (SpElemRec, 1);
      rec->info = info;
      rec->thread = st->thread;
      rec_reset (rec, gen);
      rec->run = info->pipe->run;
      info->pipe->run_used = TRUE;
      g_ptr_array_add (r->elems, rec);
      g_hash_table_insert (info->recs_by_thread, st->thread, rec);
    }
    g_mutex_unlock (&r->lock);
    g_hash_table_insert (st->recs, e, rec);
  } else {
    if (st->thread == NULL)   /* dropped at a restart */
      state_switch_thread (st, thread_for_pipe (r, st, rec->info, ts));
    if (rec->gen != gen) {
      sp_write_begin (rec->thread);
      rec_reset (rec, gen);
      sp_write_end (rec->thread);
    }
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

/* Recorders alive: a thread that exits after its recorder was freed must
 * not touch that recorder's records. */
static GMutex live_lock;
static GHashTable *live_recorders;

static void
live_recorder (SpRecorder * r, gboolean alive)
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

/* The thread exits: its run-queue delay stops growing, and its id may be
 * reused by another thread. */
static void
state_note_exit (SpThreadState * st)
{
  guint64 delay = sp_sched_delay (st->os_tid);
  GHashTableIter iter;
  gpointer th;

  g_mutex_lock (&live_lock);
  if (live_recorders && g_hash_table_contains (live_recorders, st->r)) {
    g_mutex_lock (&st->r->lock);
    g_hash_table_iter_init (&iter, st->thread_by_pipe);
    while (g_hash_table_iter_next (&iter, NULL, &th)) {
      ((SpThreadRec *) th)->sched_delay_end = delay;
      ((SpThreadRec *) th)->ended = TRUE;
    }
    g_ptr_array_remove_fast (st->r->states, st);
    limbo_collect_locked (st->r);
    g_mutex_unlock (&st->r->lock);
  }
  g_mutex_unlock (&live_lock);
}

static void
state_free (gpointer data)
{
  SpThreadState *st = data;

  if (sp_tls == st)
    sp_tls = NULL;
  state_note_exit (st);
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
  g_mutex_lock (&r->lock);
  st->free_gen_seen = r->free_gen;
  g_ptr_array_add (r->states, st);
  g_mutex_unlock (&r->lock);
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

  gint free_gen = g_atomic_int_get (&r->free_gen);

  st->epoch = g_atomic_int_get (&r->epoch);
  memset (st->cache, 0, (st->cache_mask + 1) * sizeof (SpCacheSlot));
  st->cache_used = 0;
  if (free_gen != st->free_gen_seen) {
    /* Records of dead pipelines were taken away: forget every pointer
     * without following any (the recorder's maps find the live ones
     * again), then say so, which lets them be freed. */
    g_hash_table_remove_all (st->recs);
    g_hash_table_remove_all (st->thread_by_pipe);
    st->thread = NULL;
    st->have_push_end = FALSE;
    st->push_end_rec = NULL;
    g_atomic_int_set (&st->free_gen_seen, free_gen);
    return;
  }
  g_hash_table_iter_init (&iter, st->recs);
  while (g_hash_table_iter_next (&iter, &key, &value)) {
    SpElemRec *rec = value;
    if (g_atomic_pointer_get (&rec->info->element) != key
        || rec->run != g_atomic_int_get (&rec->info->pipe->run))
      g_hash_table_iter_remove (&iter);
  }
  /* Records of a finished run stay for its summary; the next run gets new
   * ones. */
  g_hash_table_iter_init (&iter, st->thread_by_pipe);
  while (g_hash_table_iter_next (&iter, &key, &value)) {
    SpThreadRec *th = value;
    if (th->run != g_atomic_int_get (&th->pipe->run)) {
      if (st->thread == th) {
        st->thread = NULL;
        st->have_push_end = FALSE;
        st->push_end_rec = NULL;
      }
      g_hash_table_iter_remove (&iter);
    }
  }
  if (st->thread && st->thread->gen != gen) {
    sp_write_begin (st->thread);
    thread_reset (st->thread, gen, ts);
    sp_write_end (st->thread);
  }
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
/* Hot path */

static inline void
add_sample (SpRecorder * r, SpElemRec * rec, guint64 ns, guint64 ts)
{
  if (rec->seen++ == 0)
    rec->first_ts = ts;
  rec->last_ts = ts;
  rec->work_ns += ns;
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
  f->child = f->child_cpu = 0;
  f->timed_children = 0;
  f->kind = kind;
  f->full = full;
  f->list = FALSE;
  f->cpu_on = FALSE;
}

/* CPU time this thread has used: a system call (0.2-0.5 µs), so only at
 * the boundaries of the invocations we time by CPU, never on every chain. */
static inline guint64
thread_cpu_ns (void)
{
  struct timespec t;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (guint64) t.tv_sec * GST_SECOND + (guint64) t.tv_nsec;
}

/* A long invocation: time the next ones by CPU too. */
static inline void
renew_samples (SpElemRec * rec)
{
  if (rec->sample_left < SP_CPU_RENEW)
    rec->sample_left = SP_CPU_RENEW;
}

/* Times the frame just pushed by CPU when its element asks for it (its
 * first invocations, or the next ones after a long one, or always when it
 * is known to wait), when `force`d (events), or when the frame it is
 * nested in is timed: then the parent subtracts exactly the CPU its
 * children used (a child's wall time would take its waiting, say in a
 * full queue, out of the parent's work). */
static void
frame_cpu (SpRecorder * r, SpThreadState * st, SpElemRec * rec,
    gboolean force)
{
  SpFrame *f;

  if (!r->cpu_clock || st->depth > SP_MAX_DEPTH)
    return;
  f = &st->stack[st->depth - 1];
  if (st->depth > 1 && f[-1].cpu_on)
    f[-1].timed_children++;
  else if (!force) {
    if (rec == NULL || rec->sample_left == 0)
      return;
    if (rec->sample_left != G_MAXUINT)
      rec->sample_left--;
  }
  f->cpu_on = TRUE;
  f->cpu = thread_cpu_ns ();
}

/* Slices for an interval [start, start + dur) split into waiting and work:
 * the waiting first (an aggregator waits for its inputs, then aggregates;
 * a sync sink waits for the clock, then renders). The hooks do not say
 * when inside the interval the thread waited, so this is only drawn when
 * nothing nested in it (its slices would straddle the boundary). */
static void
emit_split (SpRecorder * r, SpThreadRec * th, const gchar * name,
    guint64 start, guint64 dur, guint64 wait, gboolean nested, gint wait_kind,
    const gchar * wait_name)
{
  if (nested || wait == 0 || wait > dur || wait_kind < 0) {
    emit_slice (r, th, name, start, dur, SLICE_ELEMENT);
    return;
  }
  emit_slice (r, th, wait_name, start, wait, wait_kind);
  if (dur > wait)
    emit_slice (r, th, name, start + wait, dur - wait, SLICE_ELEMENT);
}

/* Books the part of an element's own time that was not work, by what it
 * waited for. A thread holding a buffer in an element with several inputs
 * (funnel, input-selector, a muxer, an aggregator's pad, stagebin's
 * reorder) waits for another input's turn: wait on output. Elements that
 * sync to the clock wait for it; anything else (a sleep, a lock, a device)
 * is blocked. Returns the trace slice kind. */
static gint
book_wait (SpThreadRec * th, SpElemRec * rec, guint64 wait)
{
  SpElemInfo *info = rec->info;
  GstElement *e;

  if (wait == 0)
    return SLICE_WAIT_OUTPUT;
  if (g_atomic_int_get (&info->sync_clock)) {
    rec->clock_ns += wait;
    th->blocked += wait;
    return SLICE_WAIT_OUTPUT;
  }
  e = g_atomic_pointer_get (&info->element);
  if (info->aggregator || info->kind == SP_KIND_MUX
      || (e && e->numsinkpads > 1)) {
    rec->wait_ns += wait;
    th->wait_out += wait;
    return SLICE_WAIT_OUTPUT;
  }
  rec->blocked_ns += wait;
  th->blocked += wait;
  /* The trace has no blocked slice kind: one element slice, as before. */
  return -1;
}

static void
finish_frame (SpRecorder * r, SpThreadState * st, SpFrame * f, guint64 ts)
{
  guint64 dur = ts > f->start ? ts - f->start : 0;
  guint64 cpu = dur;            /* what this frame cost its parent */
  SpElemRec *rec = f->rec;

  if (f->kind == SP_FRAME_INNER || rec == NULL) {
    /* Transparent: its time stays the list's own, its children stay the
     * list's children. Likewise a frame we charge to no element (an event
     * to an element still in NULL, a pull we do not attribute): what
     * happens there is the enclosing element's (decodebin plugging a
     * decoder inside a caps event) or, at the top, the pusher's. */
    if (st->depth == 0) {
      st->base_child += f->child;
      st->base_child_cpu += f->child_cpu;
      return;
    }
    if (st->depth > 0 && st->depth <= SP_MAX_DEPTH) {
      st->stack[st->depth - 1].child += f->child;
      st->stack[st->depth - 1].child_cpu += f->child_cpu;
      st->stack[st->depth - 1].timed_children += f->timed_children;
    }
    return;
  }
  if (f->cpu_on)
    cpu = thread_cpu_ns () - f->cpu;
  {
    SpThreadRec *th = rec->thread;
    SpElemInfo *info = rec->info;
    guint64 self = dur > f->child ? dur - f->child : 0;
    guint64 work = self;
    const gchar *name = f->kind == SP_FRAME_EVENT ? info->event_name :
        info->name;

    sp_write_begin (th);

    if (f->cpu_on) {
      /* Less the CPU its children used, and the clock reads that timed
       * them (the tracer's, not this element's: two a child, calibrated
       * at start). Without this the reads kept a parent of many timed
       * children long enough to stay timed. */
      guint64 sub = f->child_cpu + 2 * f->timed_children * r->cpu_read_ns;
      work = MIN (cpu > sub ? cpu - sub : 0, self);
    }
    if (f->kind == SP_FRAME_PULL && info->queue) {
      /* queue2 serving a pull waits for its download: input, not work. */
      th->wait_in += self;
      if (g_atomic_int_get (&info->traced))
        emit_slice (r, th, name, f->start, dur, SLICE_WAIT_INPUT);
    } else if (f->kind == SP_FRAME_QUEUE) {
      /* Its own work is microseconds; the rest is waiting for room. */
      if (!f->cpu_on)
        work = 0;
      sp_queue_put_done (r, info->queue, ts, dur);
      th->busy += work;
      th->wait_out += self - work;
      if (g_atomic_int_get (&info->traced) && (f->full
              || (!g_atomic_int_get (&info->queue->limits_known)
                  && dur >= SP_WAIT_SLICE_MIN_NS)))
        emit_slice (r, th, name, f->start, dur, SLICE_WAIT_OUTPUT);
    } else if (f->kind == SP_FRAME_EVENT && info->queue) {
      /* A serialized event waits for room in the queue, as buffers do. */
      th->busy += work;
      th->wait_out += self - work;
      rec->work_ns += work;
      if (g_atomic_int_get (&info->traced))
        emit_split (r, th, name, f->start, dur, self - work, f->child > 0,
            SLICE_WAIT_OUTPUT, info->name);
    } else {
      gint kind = book_wait (th, rec, self - work);

      if (f->kind == SP_FRAME_EVENT)
        rec->work_ns += work;   /* not a sample: statistics are per buffer */
      else
        add_sample (r, rec, work, ts);
      th->busy += work;
      if ((f->cpu_on ? MAX (work, self - work) : self) >= r->split_min_ns)
        renew_samples (rec);
      if (g_atomic_int_get (&info->traced))
        emit_split (r, th, name, f->start, dur, self - work, f->child > 0,
            kind, info->name);
    }
    th->last_ts = ts;
    sp_write_end (th);
  }
  if (st->depth > 0) {
    if (st->depth <= SP_MAX_DEPTH) {
      st->stack[st->depth - 1].child += dur;
      st->stack[st->depth - 1].child_cpu += cpu;
    }
  } else {
    st->base_child += dur;
    st->base_child_cpu += cpu;
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
  if (G_UNLIKELY (f->kind != SP_FRAME_CHAIN || f->cpu_on || rec == NULL
          || st->depth == 0)) {
    finish_frame (r, st, f, ts);
    return;
  }
  /* The plain nested chain not timed by CPU, nearly every frame:
   * finish_frame()'s last case, inlined, with the sample last so that it
   * can be a tail call. Its parent is not timed by CPU either (or this
   * one would be), so only the wall time goes up. */
  dur = ts > f->start ? ts - f->start : 0;
  {
    SpThreadRec *th = rec->thread;
    SpElemInfo *info = rec->info;
    guint64 self = dur > f->child ? dur - f->child : 0;

    f[-1].child += dur;
    /* It ran long: it may wait, so time it by CPU from now on. */
    if (G_UNLIKELY (self >= r->split_min_ns))
      renew_samples (rec);
    if (g_atomic_int_get (&info->traced))
      emit_slice (r, th, info->name, f->start, dur, SLICE_ELEMENT);
    sp_write_begin (th);
    th->busy += self;
    th->last_ts = ts;
    add_sample (r, rec, self, ts);
    sp_write_end (th);
  }
}

/* Sizes are only needed for queues: computed there, off the common path. */
static inline guint
data_count (GstBuffer * buf, GstBufferList * list)
{
  return buf ? 1 : gst_buffer_list_length (list);
}

/* Bytes, and the stream time where the data starts and ends (pts, plus
 * the duration when known, of the first and last buffer). */
static void
data_info (GstBuffer * buf, GstBufferList * list, guint64 * bytes,
    GstClockTime * start, GstClockTime * end)
{
  GstBuffer *first = buf, *last = buf;
  guint n;

  if (!buf) {
    *bytes = gst_buffer_list_calculate_size (list);
    n = gst_buffer_list_length (list);
    first = n ? gst_buffer_list_get (list, 0) : NULL;
    last = n ? gst_buffer_list_get (list, n - 1) : NULL;
  } else {
    *bytes = gst_buffer_get_size (buf);
  }
  *start = first ? GST_BUFFER_PTS (first) : GST_CLOCK_TIME_NONE;
  *end = last ? GST_BUFFER_PTS (last) : GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (*end) && last
      && GST_BUFFER_DURATION_IS_VALID (last))
    *end += GST_BUFFER_DURATION (last);
}

/* Every case; sp_record_chain_pre() handles the common one itself. */
static G_GNUC_NO_INLINE void
chain_pre_full (SpRecorder * r, SpThreadState * st, SpElemRec * rec,
    guint64 ts, GstPad * pad, GstBuffer * buf, GstBufferList * list)
{
  guint n_buffers = data_count (buf, list);
  guint64 bytes;
  GstClockTime start, pts;
  SpQueue *q;

  if (st->depth == 0) {
    rec = top_level (r, st, rec, pad, ts);
  } else if (G_UNLIKELY (st->depth <= SP_MAX_DEPTH
          && st->stack[st->depth - 1].list
          && st->stack[st->depth - 1].rec == rec)) {
    push_frame (st, rec, ts, SP_FRAME_INNER, FALSE);
    return;
  }
  __atomic_store_n (&rec->buffers, rec->buffers + n_buffers,
      __ATOMIC_RELAXED);
  q = rec->info->queue;
  if (q) {
    data_info (buf, list, &bytes, &start, &pts);
    push_frame (st, rec, ts, SP_FRAME_QUEUE,
        sp_queue_put (r, q, ts, n_buffers, bytes, start, pts));
  } else {
    push_frame (st, rec, ts, SP_FRAME_CHAIN, FALSE);
  }
  if (G_UNLIKELY (g_atomic_int_get (&rec->info->split_chain)))
    rec->sample_left = G_MAXUINT;
  frame_cpu (r, st, rec, FALSE);
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
          || st->stack[depth - 1].list || st->stack[depth - 1].cpu_on
          || rec->sample_left != 0 || rec->info->queue != NULL)) {
    chain_pre_full (r, st, rec, ts, pad, buf, list);
    return;
  }
  __atomic_store_n (&rec->buffers, rec->buffers + 1, __ATOMIC_RELAXED);
  st->depth = depth + 1;
  f = &st->stack[depth];
  f->rec = rec;
  f->start = ts;
  f->child = f->child_cpu = 0;
  f->timed_children = 0;
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
    g_atomic_pointer_set (&info->queue, sp_queue_new_locked (r, info));
  g_mutex_unlock (&r->lock);
}

static void
queue_get_data (SpRecorder * r, SpQueue * q, guint64 ts, GstBuffer * buf,
    GstBufferList * list)
{
  guint64 bytes;
  GstClockTime start, pts;

  data_info (buf, list, &bytes, &start, &pts);
  sp_queue_get (r, q, ts, data_count (buf, list), bytes, pts);
}

/* The time since the thread's last top-level push ended, booked when the
 * next one (a buffer or an event) starts: the pushing element producing
 * it, or, for a queue-like element, the thread waiting on input. Long
 * intervals are split by CPU time: a source waiting for its clock, device
 * or file, an aggregator waiting for its inputs. */
static void
top_gap (SpRecorder * r, SpThreadState * st, SpElemRec * rec, guint64 ts,
    gboolean buffer)
{
  SpElemInfo *info = rec->info;
  SpThreadRec *th = rec->thread;
  guint64 gap, own;

  if (!st->have_push_end || (st->push_end_rec != rec && st->push_end_rec)
      || ts <= st->last_push_end) {
    rec->split_next = r->cpu_clock && !info->queue && (info->split_task
        || rec->sample_left != 0);
    st->base_child = st->base_child_cpu = 0;
    return;
  }
  gap = ts - st->last_push_end;
  own = gap > st->base_child ? gap - st->base_child : 0;
  sp_write_begin (th);
  if (info->queue) {
    if (buffer)
      sp_queue_get_wait (r, info->queue, own);
    th->wait_in += own;
    if (g_atomic_int_get (&info->traced))
      emit_slice (r, th, info->name, st->last_push_end, gap,
          SLICE_WAIT_INPUT);
  } else if (st->have_cpu_end) {
    guint64 cpu = thread_cpu_ns () - st->cpu_push_end;
    guint64 work = cpu > st->base_child_cpu ? cpu - st->base_child_cpu : 0;

    work = MIN (work, own);
    if (buffer)
      add_sample (r, rec, work, ts);
    else
      rec->work_ns += work;
    th->busy += work;
    th->wait_in += own - work;
    /* A live source waits for its clock (or its device's). */
    if (info->live_source)
      rec->clock_ns += own - work;
    if (g_atomic_int_get (&info->traced))
      emit_split (r, th, info->name, st->last_push_end, gap, own - work,
          st->base_child > 0, SLICE_WAIT_INPUT, info->name);
  } else {
    if (buffer)
      add_sample (r, rec, own, ts);
    else
      rec->work_ns += own;
    /* Unsplit (short, or no CPU clock): a live source's thread is still
     * waiting for its next frame, not working. */
    if (info->live_source)
      th->wait_in += own;
    else
      th->busy += own;
    if (g_atomic_int_get (&info->traced))
      emit_slice (r, th, info->name, st->last_push_end, gap, SLICE_ELEMENT);
  }
  sp_write_end (th);
  if (rec->sample_left != 0 && rec->sample_left != G_MAXUINT)
    rec->sample_left--;
  if (gap >= r->split_min_ns && !info->queue)
    renew_samples (rec);
  rec->split_next = r->cpu_clock && !info->queue && (info->split_task
      || rec->sample_left != 0);
  st->base_child = st->base_child_cpu = 0;
}

/* A top-level push (buffer or event) ended. */
static void
top_end (SpThreadState * st, SpElemRec * rec, guint64 ts)
{
  st->have_push_end = TRUE;
  st->last_push_end = ts;
  st->push_end_rec = rec;
  st->base_child = st->base_child_cpu = 0;
  st->have_cpu_end = rec->split_next;
  if (G_UNLIKELY (rec->split_next))
    st->cpu_push_end = thread_cpu_ns ();
  sp_write_begin (rec->thread);
  rec->thread->last_ts = ts;
  sp_write_end (rec->thread);
}

/* A push at the top of the stack: the thread's driving element. */
static G_GNUC_NO_INLINE void
push_pre_top (SpRecorder * r, SpThreadState * st, SpElemRec * rec,
    guint64 ts, GstPad * pad, GstBuffer * buf, GstBufferList * list)
{
  SpElemInfo *info;

  rec = top_level (r, st, rec, pad, ts);
  info = rec->info;
  if (G_UNLIKELY (!info->task_checked))
    check_task_queue (r, info, pad, GST_ELEMENT_CAST (GST_OBJECT_PARENT (pad)));
  if (info->queue)
    queue_get_data (r, info->queue, ts, buf, list);
  top_gap (r, st, rec, ts, TRUE);
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
  top_end (st, rec, ts);
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

/* The element that handles an event arriving at `pad`: a ghost pad's bin
 * (what it does there is the bin's: decodebin plugs decoders in it), the
 * pad's own element otherwise. */
static GstElement *
event_handler (GstPad * pad)
{
  GstObject *parent = pad ? GST_OBJECT_PARENT (pad) : NULL;

  /* The internal pad of a ghost pad has the ghost pad as its parent. */
  if (parent && GST_IS_PAD (parent))
    parent = GST_OBJECT_PARENT (parent);
  return parent && GST_IS_ELEMENT (parent) ? GST_ELEMENT_CAST (parent) : NULL;
}

/* Events: the element the event is pushed to handles it inside the push,
 * so the push is a frame of that element (a decoder opening on its caps
 * event, a sink draining or waiting for the clock on EOS), timed by CPU
 * like a long chain. Events are few, so the handler is found without the
 * pad cache. */
void
sp_record_event_pre (SpRecorder * r, guint64 ts, GstPad * pad)
{
  SpThreadState *st = get_state (r, ts);
  GstElement *handler = event_handler (GST_PAD_PEER (pad));
  SpElemRec *rec;

  /* Events while linking (reconfigure) are not streaming: no records for
   * elements that are not even READY. Nor a thread of its own for an
   * application thread that only sends events upstream (latency, seeks). */
  /* At the top the pusher drives the thread, as for buffers, and the time
   * since its last push was spent producing this event (or waiting), even
   * when nothing is linked yet to receive it. */
  if (st->depth == 0 && GST_PAD_IS_SRC (pad) && GST_OBJECT_PARENT (pad)
      && GST_IS_ELEMENT (GST_OBJECT_PARENT (pad))
      && GST_STATE (GST_OBJECT_PARENT (pad)) != GST_STATE_NULL) {
    rec = lookup_pad (r, st, pad, ts);
    if (rec) {
      rec = top_level (r, st, rec, pad, ts);
      top_gap (r, st, rec, ts, FALSE);
    }
  }
  if (handler == NULL || GST_STATE (handler) == GST_STATE_NULL
      || (st->thread == NULL && GST_PAD_IS_SINK (pad))) {
    push_frame (st, NULL, ts, SP_FRAME_EVENT, FALSE);
    return;
  }
  rec = lookup_elem (r, st, handler, ts);
  push_frame (st, rec, ts, SP_FRAME_EVENT, FALSE);
  frame_cpu (r, st, rec, TRUE);
}

void
sp_record_event_post (SpRecorder * r, guint64 ts, GstPad * pad)
{
  SpThreadState *st = get_state (r, ts);
  SpElemRec *rec;

  pop_frame (r, st, ts);
  if (st->depth == 0 && GST_PAD_IS_SRC (pad) && st->thread != NULL
      && (rec = lookup_pad (r, st, pad, ts)) != NULL
      && rec->info->pipe == st->thread->pipe)
    top_end (st, rec, ts);
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
  g_free (info);
}

static void
pipe_free (gpointer data)
{
  SpPipe *p = data;

  g_hash_table_destroy (p->threads_by_tid);
  g_free (p);
}

static void
limbo_free (SpLimbo * l)
{
  guint i;

  g_ptr_array_free (l->threads, TRUE);
  g_ptr_array_free (l->elems, TRUE);
  g_ptr_array_free (l->infos, TRUE);
  for (i = 0; i < l->queues->len; i++)
    sp_queue_free (g_ptr_array_index (l->queues, i));
  g_ptr_array_free (l->queues, TRUE);
  pipe_free (l->pipe);
  g_free (l);
}

static void
limbo_collect_locked (SpRecorder * r)
{
  gint seen = g_atomic_int_get (&r->free_gen);
  guint i;

  for (i = 0; i < r->states->len; i++) {
    SpThreadState *st = g_ptr_array_index (r->states, i);
    gint g = g_atomic_int_get (&st->free_gen_seen);
    if (g < seen)
      seen = g;
  }
  for (i = r->limbo->len; i > 0; i--) {
    SpLimbo *l = g_ptr_array_index (r->limbo, i - 1);
    if (l->gen <= seen) {
      g_ptr_array_remove_index_fast (r->limbo, i - 1);
      limbo_free (l);
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
  for (i = 0; i < r->pipes->len; i++)
    if (g_ptr_array_index (r->pipes, i) == p) {
      g_ptr_array_steal_index (r->pipes, i);
      break;
    }
  l->pipe = p;
  l->gen = g_atomic_int_add (&r->free_gen, 1) + 1;
  g_ptr_array_add (r->limbo, l);
  g_atomic_int_inc (&r->epoch);
  limbo_collect_locked (r);
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
  GstElement *e = peer ? pad_element (peer) : NULL;
  SpElemInfo *info = e ? info_lookup (r, e) : NULL;

  if (info && info->queue)
    sp_queue_empty_out (r, info->queue, ts);
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
    p->run_used = FALSE;
    g_atomic_int_set (&p->pid, ++r->next_pid);
    g_atomic_int_inc (&p->run);
    g_hash_table_remove_all (p->threads_by_tid);
    if (r->trace) {
      gchar *name = g_strdup_printf ("%s (run %d)", p->name, p->run);
      sp_trace_process_name (r->trace, p->pid, name);
      g_free (name);
    }
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
