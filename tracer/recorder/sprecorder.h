/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sprecorder: the records that stageprof's hot path writes (sprecord.c)
 * and its registry (spregistry.c), queue accounting (spqueue.c), thread
 * accounting (spthreads.c), summary building and verdict (summary/) read:
 * types and inline helpers only.
 */
#ifndef __SP_RECORDER_H__
#define __SP_RECORDER_H__

#include <gst/gst.h>

#include "splatency.h"
#include "spnames.h"
#include "sptrace.h"
#include "stats.h"

G_BEGIN_DECLS

typedef struct _SpRecorder SpRecorder;

/* A put into a queue whose limits we cannot see (multiqueue, generic
 * queue-like elements) only gets a grey slice when it blocked this long;
 * shorter puts would bloat the trace with invisible slivers. */
#define SP_WAIT_SLICE_MIN_NS (50 * GST_USECOND)
/* An invocation or task interval this long may hide waiting: from then on
 * every invocation of that element on that thread (and everything nested
 * in it) is also timed by the thread's CPU clock, which splits it into
 * work and waiting. Shorter ones (a fakesrc or an identity in a tight
 * loop) are all work and skip the two clock_gettime() calls (0.2-0.5 us
 * each), which cost more than such an interval's figure is worth. The
 * first SP_CPU_FIRST_SAMPLES invocations of each element are timed
 * regardless, so an element that blocks from the start is caught there.
 * A long one times the next SP_CPU_RENEW, renewed while they stay long
 * (in work or in waiting): a thread preempted once on a loaded machine
 * (a long invocation that is neither) goes back to the cheap path soon. */
#define SP_CPU_SPLIT_MIN_NS (50 * GST_USECOND)
#define SP_CPU_FIRST_SAMPLES 8
#define SP_CPU_RENEW 16

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

/* SpKind in words ("decode", ...), defined by the registry */
extern const gchar *const sp_kind_labels[];

/* What the registry tells the latency follower: an element went, the
 * figures restart, the recorder ends. */
typedef struct
{
  void (*element_destroyed) (SpLatency * l, gpointer element);
  void (*reset) (SpLatency * l);
  void (*free) (SpLatency * l);
} SpLatencyOps;

typedef struct
{
  gpointer obj;                 /* identity only, never dereferenced */
  const gchar *name;
  gint pid;
  gboolean summarized;
  guint64 proc_cpu0;            /* process CPU time when first seen (ns) */
  /* Each PLAYING run (NULL/READY -> PAUSED again after data) is a run of
   * its own: new records, numbered from 1. Written under the recorder
   * lock, read by streaming threads at their refresh. */
  gint run;
  gboolean run_used;            /* a record exists for this run */
  GHashTable *threads_by_tid;   /* tid -> SpThreadRec of the current run */
  gboolean dead_queued;         /* destroyed and summarized: may be freed */
  gboolean gpu_track_named;     /* the trace has its GPU track's name */
  /* Process CPU time (ns) when each run began: run N at index N - 1;
   * under the recorder lock. */
  GArray *run_cpu0;
} SpPipe;

/* The trace thread id of a pipeline's GPU track (no OS thread has it). */
#define SP_GPU_TID G_GUINT64_CONSTANT (0xC0DA0000)

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
  /* Stream time at the queue's input and output (a buffer's pts plus its
   * duration, as GstQueue counts its time level); before anything left,
   * the output is where the first buffer started. */
  GstClockTime in_pts, out_pts, first_in_pts;
  guint64 dropped;              /* buffers a leaky queue dropped */
  guint64 max_level, max_bytes_seen;
  gboolean started;
  guint64 first_ts, last_ts;
  gdouble level_integral, bytes_integral;
  guint64 empty_ns, full_ns;
  guint64 items, put_seen, get_seen;
  StageStats put, get;
  gboolean traced;
  gint run;
  guint pid;
  /* Rows of its earlier runs (GstStructure*), kept when a new run starts
   * over; under `lock`, NULL until the first. */
  GPtrArray *past_rows;
  /* The lowest and highest level since the last window closed (interval
   * windows, summary/spwindow.c), in buffers, bytes and stream time. */
  gint64 win_min_level, win_max_level, win_min_bytes, win_max_bytes;
  guint64 win_min_time, win_max_time;
  /* The cumulative figures when it closed. */
  gdouble win_level_integral, win_bytes_integral;
  guint64 win_items, win_dropped, win_ts;
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
  /* A sink's input media type (interned), read at its first buffer: what
   * its count is a count of (video frames, or buffers). */
  const gchar *sink_media;
  gboolean live_source;
  /* Split every src task interval by CPU time (aggregators, live sources). */
  gboolean split_task;
  /* Split chain calls by CPU time (aggregator sink pads, other muxers,
   * sinks with sync=true); read by streaming threads, set on the cold
   * path. */
  gint split_chain;
  /* Waits on the clock inside its chain and events (a `sync` property set:
   * sinks, identity, clocksync); set on the cold path. */
  gint sync_clock;
  /* In PLAYING (its state when first seen, then its own state changes),
   * since `playing_since` (the hook's time; 0: not known): a sync element
   * entered before waits for the preroll until then. */
  gint playing;
  guint64 playing_since;
  /* Several inputs (funnel, input-selector, a muxer, an aggregator):
   * its waiting is for another input's turn. Set on the cold path. */
  gint multi_input;
  SpKind kind;
  gboolean traced;
  GHashTable *recs_by_thread;   /* SpThreadRec* -> SpElemRec* */
  /* Only passes data on (a capsfilter, a bin's own pads, a queue): never
   * the stage a verdict names (spverdict.c). Last: cold, and the fields
   * the hooks read keep their places. */
  gboolean forwards;
  /* GPU time an element reported (common/stagegputiming.h), under the
   * recorder lock: frames and kernel time of generation gpu_gen. */
  guint64 gpu_frames, gpu_ns;
  gint gpu_gen;
  /* Threads it started (a codec's workers, spthreads.c): how many of its
   * next invocations look for new threads (atomic), and, at the last
   * summary, those threads' CPU time and how many used any. */
  gint scans_left, chain_scans_left;
  guint64 worker_cpu_ns;
  guint workers;
  /* An appsink: blocked in it is waiting for the application to pull;
   * an appsrc: its thread waiting for input waits for the application to
   * push. */
  gboolean app_sink, app_src;
  /* Its GType's name (static; gst-libav's types are named after their
   * codec: avdec_h264), for threads a codec library names itself. */
  const gchar *type_name;
  /* With windows on: the src pad feeding it ("element:pad", owned, set
   * once at its first buffer, atomic), NULL until known; `sink_media` is
   * then read for every element, not only sinks. */
  gchar *in_pad;
} SpElemInfo;

/* Invocations of each element after which stageprof looks for threads
 * that appeared during them: codecs start their workers when they open, on
 * their caps (its first events) or first buffers. Few: each look costs two
 * directory reads and leaves the caches cold. */
#define SP_THREAD_SCANS 6
#define SP_THREAD_CHAIN_SCANS 2

typedef struct
{
  /* Sequence counter of this thread record and of the element records
   * charged to it, all written by the one OS thread they belong to: odd
   * while it writes. A summary copies them and retries if it changed
   * (sp_thread_snapshot): consistent figures, no lock on the hot path. */
  guint seq;
  guint64 tid;
  SpPipe *pipe;
  const gchar *name;
  gint gen;
  gint run;
  guint pid;                    /* the trace process of its pipeline run */
  guint64 first_ts, last_ts;
  guint64 busy, wait_in, wait_out, blocked;
  /* The kernel's run-queue delay of this thread (ns, schedstat): at first
   * sight, and at its exit once `ended`. */
  guint64 sched_delay0, sched_delay_end;
  gboolean ended;
  /* Its pipeline's run ended: the delay stopped at sched_delay_end there
   * (the thread lives on in GStreamer's pool), so every later summary of
   * that run gives the same figures. Under the recorder lock. */
  gboolean run_over;
} SpThreadRec;

typedef struct
{
  SpElemInfo *info;
  SpThreadRec *thread;
  gint gen;
  gint run;
  guint64 seen, buffers;
  guint64 first_ts, last_ts;
  StageStats stats;
  /* Time inside its own invocations (children excluded): work (every
   * sample, skip-first or not), and the rest by what it waited for: the
   * clock, other inputs (an element with several sink pads), anything
   * else. */
  guint64 work_ns, clock_ns, wait_ns, blocked_ns;
  /* How many of its next invocations are timed by thread CPU too
   * (G_MAXUINT: all; see SP_CPU_SPLIT_MIN_NS). */
  guint sample_left;
  gboolean cpu_on;
  /* Sample CPU time at the end of this element's next push: its last task
   * interval was long or it always waits (split_task). */
  gboolean split_next;
  /* With windows on (SpRecorder.windows): bytes of its input buffers and
   * its self times past skip-first by bucket (ops/stats.h), cumulative; a
   * window's figures are the difference of two copies. */
  guint64 bytes;
  guint64 hist[STAGE_HIST_BUCKETS];
} SpElemRec;


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
  guint64 cpu_read_ns;          /* what one read of it costs */
  guint64 split_min_ns;         /* an invocation this long is timed */
  guint64 t0, proc_cpu_t0;      /* monotonic and process CPU ns at start */
  GHashTable *os_threads;       /* tid -> SpOsThread (spthreads.c) */
  /* The names records carry (spnames.h): taken by the records that carry
   * them, dropped when those are freed. */
  SpNames *names;
  guint64 unlisted_ns;          /* process CPU the rows missed, last look */
  guint32 thread_looks;         /* claims so far (spthreads.c), under lock */
  /* Freeing the records of dead pipelines (sprecord.c): thread states
   * register here and say which free generation they have seen; records
   * wait in limbo until every state has seen theirs. */
  gint free_gen;
  GPtrArray *states;
  GQueue dead;                  /* SpPipe* destroyed and summarized */
  GPtrArray *limbo;
  /* latency=true: frames followed source to sink (splatency.c); NULL until
   * first asked for, then kept. The registry reaches it only through the
   * ops that splatency.c sets with it, so that the two files do not call
   * each other (splatency.c names elements through the registry). */
  SpLatency *latency;
  const SpLatencyOps *latency_ops;
  /* memory=true: buffer pools (sppool.c); NULL until first asked for. */
  struct _SpPools *pools;
  /* Interval windows are on (interval=S): the hot path also counts
   * self-time buckets. Atomic; read on every buffer. */
  gint windows;
  /* Each element's input bytes and src pad are counted (window_input):
   * SP_COUNT_INPUT_WINDOWS while there are windows, SP_COUNT_INPUT_METRICS
   * while the metrics endpoint serves them. */
  gint count_input;
};

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
    sp_trace_slice (t, th->pid, th->tid, name, ts, dur,
        (SpSliceKind) kind);
}

static inline void
emit_counter (SpRecorder * r, SpQueue * q, guint64 ts)
{
  SpTrace *t = get_trace (r);
  if (t && g_atomic_int_get (&q->traced))
    sp_trace_counter (t, q->pid, q->name, ts, q->level, q->bytes);
}

#define SLICE_ELEMENT SP_SLICE_ELEMENT
#define SLICE_WAIT_INPUT SP_SLICE_WAIT_INPUT
#define SLICE_WAIT_OUTPUT SP_SLICE_WAIT_OUTPUT

/* SpRecorder.count_input: who wants each element's input counted. */
#define SP_COUNT_INPUT_WINDOWS 1
#define SP_COUNT_INPUT_METRICS 2

/* Stores to the fields of SpThreadRec and SpElemRec after they are
 * published: a summary may copy them meanwhile (the seqlock reader,
 * spbuild.c copy_thread, loads them atomically), so each store is a relaxed
 * atomic one, the same plain move on x86 and ARM, and the pair is free of
 * data races under the C11 model. Only the owning thread writes them, so
 * its own plain reads are fine. */
#define SP_SET(lv, v) __atomic_store_n (&(lv), (v), __ATOMIC_RELAXED)
#define SP_ADD(lv, v) SP_SET (lv, (lv) + (v))

/* Writer side of SpThreadRec.seq; the owning thread only. On x86 both are
 * plain stores with a compiler barrier. */
static inline void
sp_write_begin (SpThreadRec * th)
{
  __atomic_store_n (&th->seq, th->seq + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence (__ATOMIC_RELEASE);
}

static inline void
sp_write_end (SpThreadRec * th)
{
  __atomic_store_n (&th->seq, th->seq + 1, __ATOMIC_RELEASE);
}

/* A seqlock reader: the data it copies may be written meanwhile (then it
 * retries), which ThreadSanitizer cannot tell from a race. */
#include "sptsan.h"
#ifdef SP_TSAN
#define SP_SEQLOCK_READER __attribute__ ((no_sanitize_thread, noinline))
#else
#define SP_SEQLOCK_READER
#endif

#include <time.h>

/* CPU time this thread has used: a system call (0.2-0.5 µs), so only at
 * the boundaries of the invocations we time by CPU, never on every chain. */
static inline guint64
sp_thread_cpu_ns (void)
{
  struct timespec t;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (guint64) t.tv_sec * GST_SECOND + (guint64) t.tv_nsec;
}

static inline GstElement *
sp_pad_element (GstPad * pad)
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

/* Whether `e`'s class has a property `name` (a queue's limits, a codec's
 * thread count, a live source's is-live). */
static inline gboolean
sp_has_property (GstElement * e, const gchar * name)
{
  return g_object_class_find_property (G_OBJECT_GET_CLASS (e), name) != NULL;
}

G_END_DECLS

#endif /* __SP_RECORDER_H__ */
