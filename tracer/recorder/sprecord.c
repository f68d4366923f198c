/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sprecord: stageprof's hot path, per-thread recording and accounting.
 * The recorder, its registries and the cold-path hooks are spregistry.c;
 * queue levels spqueue.c; summaries spbuild.c; the verdict spverdict.c.
 *
 * What each figure means is defined in docs/tracer.md; in short:
 *  - an element's own time is the duration of its chain, pull or event
 *    minus what nested inside it on the same thread; invocations that may
 *    hide waiting are timed by the thread's CPU clock too (frame_cpu), and
 *    only the CPU time is self time, the rest waiting (book_wait);
 *  - on a task thread, the time from the end of one top-level push to the
 *    start of the next is the pushing element producing its next buffer,
 *    or, when that element is queue-like, the thread waiting on input;
 *  - the time a thread spends inside a queue-like element's chain is that
 *    thread waiting on output;
 *  - every write to a thread's records is inside its sequence counter
 *    (sp_write_begin/end), so summaries copy consistent figures.
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

#include "spqueue.h"
#include "sprecord.h"
#include "spregistry.h"
#include "spthreads.h"

/* A thread's frame stack starts with room for SP_STACK_FRAMES nested
 * invocations and doubles when a chain nests deeper (500 identities on one
 * thread), up to SP_MAX_DEPTH: past that, an invocation is not timed and
 * its time stays the innermost timed frame's own (docs/tracer.md). Deeper
 * nesting than that overflows a thread's default C stack anyway. */
#define SP_STACK_FRAMES 64
#define SP_MAX_DEPTH 4096
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
  guint8 under_cpu;             /* an enclosing frame is timed by CPU */
  guint8 prerolling;            /* a sync element entered before PLAYING:
                                 * its wait is for the preroll, not the
                                 * clock */
  /* Not 0: the number of the look at the threads before it
   * (sp_threads_claim); threads its own thread starts in it are its
   * element's. */
  guint32 scan;
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
  guint stack_size;             /* frames allocated in `stack` */
  SpFrame *stack;
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

/* initial-exec: a plain %fs-relative load on every hook instead of a call
 * to __tls_get_addr (the default model for a dlopen()ed plugin). One
 * pointer fits in the static TLS that glibc reserves for such modules. */
static __thread SpThreadState *sp_tls
    __attribute__ ((tls_model ("initial-exec")));
static GPrivate sp_state_key = G_PRIVATE_INIT (state_free);


static void
rec_reset (SpElemRec * rec, gint gen)
{
  SP_SET (rec->gen, gen);
  SP_SET (rec->seen, 0);
  SP_SET (rec->buffers, 0);
  SP_SET (rec->first_ts, 0);
  SP_SET (rec->last_ts, 0);
  SP_SET (rec->work_ns, 0);
  SP_SET (rec->clock_ns, 0);
  SP_SET (rec->wait_ns, 0);
  SP_SET (rec->blocked_ns, 0);
  SP_SET (rec->bytes, 0);
  for (guint i = 0; i < STAGE_HIST_BUCKETS; i++)
    SP_SET (rec->hist[i], 0);
  if (rec->sample_left != G_MAXUINT)
    SP_SET (rec->sample_left, SP_CPU_FIRST_SAMPLES);
  stage_stats_init (&rec->stats);
}

static void
thread_reset (SpThreadRec * th, gint gen, guint64 ts)
{
  SP_SET (th->gen, gen);
  SP_SET (th->first_ts, ts);
  SP_SET (th->last_ts, ts);
  SP_SET (th->busy, 0);
  SP_SET (th->wait_in, 0);
  SP_SET (th->wait_out, 0);
  SP_SET (th->blocked, 0);
  SP_SET (th->sched_delay0, sp_sched_delay (th->tid));
}

/* Key of the full Scanner stage name ("Pipeline[i]:Ops[y]") that stagebin
 * sets on the queue owning each of its threads (gst/gststagebin.h). */
#define STAGE_THREAD_NAME_KEY "stage-thread-name"

/* The name of the process's main thread: it runs the application (or
 * gst-launch-1.0's main loop), never one element's streaming task, even
 * where it pushes a buffer itself (an application feeding a pad, a
 * GstHarness) or sends EOS at Ctrl-C: named after the element it reached
 * first, it read as that element's thread. */
#define SP_MAIN_THREAD_NAME "main (application)"

/* The thread's name, a reference of r->names (dropped with the record). */
static const gchar *
thread_name_locked (SpRecorder * r, SpPipe * pipe, SpElemInfo * driver,
    guint64 tid)
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
  if (tid == (guint64) getpid ())
    base = sp_names_ref (r->names, SP_MAIN_THREAD_NAME);
  else if (stage)
    base = sp_display_name (r, stage);
  else if (pthread_getname_np (pthread_self (), os_name, sizeof (os_name)) == 0
      && strchr (os_name, '['))
    base = sp_display_name (r, os_name);
  else
    base = sp_names_ref (r->names, base);
  for (i = 0; i < r->threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (r->threads, i);
    if (th->pipe == pipe && g_str_has_prefix (th->name, base))
      same++;
  }
  if (same == 0)
    return base;
  tmp = g_strdup_printf ("%s #%u", base, same + 1);
  res = sp_names_ref (r->names, tmp);
  sp_names_unref (r->names, base);
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
  th->name = thread_name_locked (r, driver->pipe, driver, th->tid);
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
      st->cpu_push_end = sp_thread_cpu_ns ();
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
    info = sp_info_get (r, e);
    if (info->is_sink && !g_atomic_pointer_get (&info->sink_media))
      sp_read_sink_media (info, e);
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
      if (!info->pipe->run_used && info->pipe->run > 1)
        sp_pipe_name_process (r, info->pipe);
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
  e = sp_pad_element (pad);
  /* A pad not in an element yet is skipped this time but not cached: a
   * demuxer pushes a new pad's sticky events before adding it (qtdemux
   * in pull mode), and a cached NULL hid every later push of that pad,
   * so the demuxer never got a row. */
  if (G_UNLIKELY (e == NULL && GST_OBJECT_PARENT (pad) == NULL))
    return NULL;
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

/* The thread exits: its run-queue delay stops growing, and its id may be
 * reused by another thread. */
static void
state_note_exit (SpThreadState * st)
{
  guint64 delay = sp_sched_delay (st->os_tid);
  GHashTableIter iter;
  gpointer th;

  sp_live_lock ();
  if (sp_recorder_is_live (st->r)) {
    g_mutex_lock (&st->r->lock);
    g_hash_table_iter_init (&iter, st->thread_by_pipe);
    while (g_hash_table_iter_next (&iter, NULL, &th)) {
      /* a record whose run ended keeps the delay of that moment */
      if (!((SpThreadRec *) th)->run_over)
        SP_SET (((SpThreadRec *) th)->sched_delay_end, delay);
      SP_SET (((SpThreadRec *) th)->ended, TRUE);
    }
    g_ptr_array_remove_fast (st->r->states, &st->free_gen_seen);
    sp_limbo_collect_locked (st->r);
    g_mutex_unlock (&st->r->lock);
  }
  sp_live_unlock ();
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
  g_free (st->stack);
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
  st->stack = g_new (SpFrame, SP_STACK_FRAMES);
  st->stack_size = SP_STACK_FRAMES;
  st->thread_by_pipe = g_hash_table_new (NULL, NULL);
  st->epoch = g_atomic_int_get (&r->epoch);
  st->os_tid = (guint64) syscall (SYS_gettid);
  g_mutex_lock (&r->lock);
  st->free_gen_seen = r->free_gen;
  g_ptr_array_add (r->states, &st->free_gen_seen);
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
  guint64 seen = rec->seen + 1;

  SP_SET (rec->seen, seen);
  if (seen == 1)
    SP_SET (rec->first_ts, ts);
  SP_SET (rec->last_ts, ts);
  SP_ADD (rec->work_ns, ns);
  if (seen > (guint64) (guint) g_atomic_int_get (&r->skip_first)) {
    stage_stats_add (&rec->stats, ns * 1e-6);
    if (G_UNLIKELY (__atomic_load_n (&r->windows, __ATOMIC_RELAXED)))
      SP_ADD (rec->hist[stage_hist_bucket (ns)], 1);
  }
}

/* Opens the frame at `depth` (below st->stack_size) on the stack: the one
 * place a frame is set up. */
static inline G_ALWAYS_INLINE void
frame_open (SpThreadState * st, guint depth, SpElemRec * rec, guint64 ts,
    SpFrameKind kind, gboolean full)
{
  SpFrame *f = &st->stack[depth];

  st->depth = depth + 1;
  f->rec = rec;
  f->start = ts;
  f->child = f->child_cpu = 0;
  f->timed_children = 0;
  f->kind = kind;
  f->full = full;
  f->list = FALSE;
  f->cpu_on = FALSE;
  f->under_cpu = depth > 0 && (f[-1].cpu_on || f[-1].under_cpu);
  f->scan = 0;
  f->prerolling = FALSE;
}

/* Doubles the frame stack; FALSE at SP_MAX_DEPTH. Only while pushing: no
 * pointer into the stack is held across a push. */
static G_GNUC_NO_INLINE gboolean
stack_grow (SpThreadState * st)
{
  if (st->stack_size >= SP_MAX_DEPTH)
    return FALSE;
  st->stack_size *= 2;
  st->stack = g_renew (SpFrame, st->stack, st->stack_size);
  return TRUE;
}

static inline void
push_frame (SpThreadState * st, SpElemRec * rec, guint64 ts, SpFrameKind kind,
    gboolean full)
{
  if (G_UNLIKELY (st->depth >= st->stack_size) && !stack_grow (st)) {
    st->depth++;
    return;
  }
  frame_open (st, st->depth, rec, ts, kind, full);
}

/* `wall` and `cpu` spent nested in the frame open on the stack (or at the
 * thread's top level, between its pushes): that frame's children's. */
static inline void
charge_enclosing (SpThreadState * st, guint64 wall, guint64 cpu)
{
  if (st->depth == 0) {
    st->base_child += wall;
    st->base_child_cpu += cpu;
  } else if (st->depth <= st->stack_size) {
    st->stack[st->depth - 1].child += wall;
    st->stack[st->depth - 1].child_cpu += cpu;
  }
}

/* The tracer's own look at /proc/self/task (sp_threads_claim, or with
 * `refresh` every thread's CPU): its time is nobody's, so the frame it
 * happens in (the one open on the stack, or the thread's top level)
 * counts it as a child's. Returns its wall time; `look`, when not NULL,
 * gets the number of a claim's look. */
static guint64
look_at_threads (SpRecorder * r, SpThreadState * st, SpElemInfo * owner,
    guint32 since, guint64 since_ts, gboolean refresh, guint32 * look)
{
  guint64 w0 = gst_util_get_timestamp (), c0 = sp_thread_cpu_ns ();
  guint64 w, c;
  guint32 n = 0;

  if (refresh)
    sp_threads_refresh (r);
  else
    n = sp_threads_claim (r, owner, since, since_ts, st->os_tid);
  if (look)
    *look = n;
  w = gst_util_get_timestamp () - w0;
  c = sp_thread_cpu_ns () - c0;
  charge_enclosing (st, w, c);
  return w;
}

/* Before one of an element's first invocations: the threads there now are
 * nobody's; those that its thread starts during it are its workers (a
 * codec opening on its caps or first buffer), noted when it ends
 * (finish_frame). Returns how much later the invocation starts: the
 * look's time; `scan` gets the look's number. Cold: SP_THREAD_SCANS
 * events and SP_THREAD_CHAIN_SCANS buffers per element. */
static guint64
scan_before (SpRecorder * r, SpThreadState * st, SpElemRec * rec,
    gint * left, guint32 * scan)
{
  *scan = 0;
  if (rec == NULL || st->depth >= SP_MAX_DEPTH
      || g_atomic_int_get (left) <= 0)
    return 0;
  g_atomic_int_add (left, -1);
  return look_at_threads (r, st, NULL, 0, 0, FALSE, scan);
}

static inline void
set_scan (SpThreadState * st, guint32 scan)
{
  if (scan && st->depth > 0 && st->depth <= st->stack_size)
    st->stack[st->depth - 1].scan = scan;
}


/* A long invocation: time the next ones by CPU too. */
static inline void
renew_samples (SpElemRec * rec)
{
  if (rec->sample_left < SP_CPU_RENEW)
    SP_SET (rec->sample_left, SP_CPU_RENEW);
}

/* A child that may wait inside a timed frame (its parent, or any frame
 * further out: `A ! capsfilter ! queue`, the capsfilter between): its wall
 * time would take that waiting out of the timed frame's work, so it is
 * timed too. A queue (a full one blocks), an element with several inputs
 * or synced to the clock. Other children are short (or timed on their
 * own), so their wall time is their CPU time: timing every one of them
 * cost two reads each. */
static inline gboolean
child_may_wait (SpElemRec * rec, SpFrame * f)
{
  if (rec == NULL)
    return FALSE;
  return f->kind == SP_FRAME_QUEUE || rec->info->queue
      || g_atomic_int_get (&rec->info->split_chain)
      || g_atomic_int_get (&rec->info->multi_input);
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

  if (!r->cpu_clock || st->depth > st->stack_size)
    return;
  f = &st->stack[st->depth - 1];
  if (f->under_cpu && (force || child_may_wait (rec, f)))
    f[-1].timed_children++;
  else if (!force) {
    if (rec == NULL || rec->sample_left == 0)
      return;
    if (rec->sample_left != G_MAXUINT)
      SP_SET (rec->sample_left, rec->sample_left - 1);
  }
  f->cpu_on = TRUE;
  f->cpu = sp_thread_cpu_ns ();
}

/* Slices for an interval [start, start + dur) whose own time `self` was
 * `work` working and the rest waiting (of kind `wait_kind`): the waiting
 * first (an aggregator waits for its inputs, then aggregates; a sync sink
 * waits for the clock, then renders). The hooks do not say when inside the
 * interval the thread waited, so when something nested in it (its slices
 * would straddle the boundary) the slice is drawn whole and a work record
 * beside it says how much of its self time was work. */
static inline void
emit_split (SpRecorder * r, SpThreadRec * th, const gchar * name,
    guint64 start, guint64 dur, guint64 self, guint64 work, gboolean nested,
    gint wait_kind, const gchar * wait_name)
{
  guint64 wait = self > work ? self - work : 0;
  SpTrace *t;

  if (wait == 0 || wait > dur) {
    emit_slice (r, th, name, start, dur, SLICE_ELEMENT);
    return;
  }
  if (nested) {
    emit_slice (r, th, name, start, dur, SLICE_ELEMENT);
    if ((t = get_trace (r)) != NULL)
      sp_trace_work (t, th->pid, th->tid, name, start, work,
          (SpSliceKind) wait_kind);
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
book_wait (SpThreadRec * th, SpElemRec * rec, guint64 wait,
    guint64 preroll)
{
  SpElemInfo *info = rec->info;

  if (wait == 0)
    return SLICE_WAIT_OUTPUT;
  /* A sync element entered before PLAYING waits for the pipeline to
   * preroll (a sink: every sink to have data) until it plays, then for the
   * clock: `preroll` of `wait` is blocked, not paced by the clock. */
  if (g_atomic_int_get (&info->sync_clock) && preroll < wait) {
    SP_ADD (rec->clock_ns, wait - preroll);
    SP_ADD (th->blocked, wait - preroll);
    if (preroll == 0)
      return SP_SLICE_WAIT_CLOCK;
    wait = preroll;
  }
  if (g_atomic_int_get (&info->multi_input)) {
    SP_ADD (rec->wait_ns, wait);
    SP_ADD (th->wait_out, wait);
    return SLICE_WAIT_OUTPUT;
  }
  SP_ADD (rec->blocked_ns, wait);
  SP_ADD (th->blocked, wait);
  return SP_SLICE_BLOCKED;
}

/* The part of a sync element's wait `wait` in an invocation that began
 * before it played (frame `f`, ending at `ts`): up to the moment it went
 * to PLAYING, or all of it if it has not. */
static guint64
preroll_part (SpElemInfo * info, const SpFrame * f, guint64 ts, guint64 wait)
{
  guint64 since = g_atomic_int_get (&info->playing) ?
      __atomic_load_n (&info->playing_since, __ATOMIC_RELAXED) : 0;

  if (since == 0 || since >= ts)
    return wait;
  return since > f->start ? MIN (since - f->start, wait) : 0;
}

/* What an invocation not timed by CPU cost the frames around it: its own
 * time (short, so wall is CPU) and what its children cost, which is less
 * than their wall time when one of them was timed (a full queue further
 * down waited: no CPU). */
static inline guint64
untimed_cost (const SpFrame * f, guint64 dur)
{
  return (dur > f->child ? dur - f->child : 0) + f->child_cpu;
}

/* An element's invocation: `self` its own wall time, `work` of it spent
 * working (the rest waited, booked by what for: book_wait), a sample of
 * its statistics for a buffer, work only for an event (statistics are per
 * buffer); its slice. The one rule for every element frame: pop_frame()
 * inlines it for the plain nested chain not timed by CPU (`timed` and
 * `event` constant FALSE there). The thread record is open for writing. */
static inline G_ALWAYS_INLINE void
book_element (SpRecorder * r, SpFrame * f, guint64 ts, guint64 dur,
    guint64 self, guint64 work, gboolean timed, gboolean event)
{
  SpElemRec *rec = f->rec;
  SpThreadRec *th = rec->thread;
  SpElemInfo *info = rec->info;
  gint kind = timed ? book_wait (th, rec, self - work,
      G_UNLIKELY (f->prerolling) ? preroll_part (info, f, ts, self - work) :
      0) : SLICE_WAIT_OUTPUT;

  if (event)
    SP_ADD (rec->work_ns, work);
  else
    add_sample (r, rec, work, ts);
  SP_ADD (th->busy, work);
  /* It ran (or worked or waited) long: it may wait, so time it by CPU
   * from now on. */
  if (G_UNLIKELY ((timed ? MAX (work, self - work) : self) >= r->split_min_ns))
    renew_samples (rec);
  if (g_atomic_int_get (&info->traced))
    emit_split (r, th, event ? info->event_name : info->name, f->start, dur,
        self, work, f->child > 0, kind, info->name);
}

/* queue2 serving a pull waits for its download: input, not work. */
static void
book_queue_pull (SpRecorder * r, SpFrame * f, guint64 dur, guint64 self)
{
  SpThreadRec *th = f->rec->thread;
  SpElemInfo *info = f->rec->info;

  SP_ADD (th->wait_in, self);
  if (g_atomic_int_get (&info->traced))
    emit_slice (r, th, info->name, f->start, dur, SLICE_WAIT_INPUT);
}

/* A put into a queue: its own work is microseconds; the rest is waiting
 * for room. */
static void
book_queue_put (SpRecorder * r, SpFrame * f, guint64 ts, guint64 dur,
    guint64 self, guint64 work)
{
  SpThreadRec *th = f->rec->thread;
  SpElemInfo *info = f->rec->info;

  if (!f->cpu_on)
    work = 0;
  sp_queue_put_done (r, info->queue, ts, dur);
  SP_ADD (th->busy, work);
  SP_ADD (th->wait_out, self - work);
  if (g_atomic_int_get (&info->traced) && (f->full
          || (!g_atomic_int_get (&info->queue->limits_known)
              && dur >= SP_WAIT_SLICE_MIN_NS)))
    emit_slice (r, th, info->name, f->start, dur, SLICE_WAIT_OUTPUT);
}

/* A serialized event into a queue waits for room, as buffers do. */
static void
book_queue_event (SpRecorder * r, SpFrame * f, guint64 dur, guint64 self,
    guint64 work)
{
  SpElemRec *rec = f->rec;
  SpThreadRec *th = rec->thread;
  SpElemInfo *info = rec->info;

  SP_ADD (th->busy, work);
  SP_ADD (th->wait_out, self - work);
  SP_ADD (rec->work_ns, work);
  if (g_atomic_int_get (&info->traced))
    emit_split (r, th, info->event_name, f->start, dur, self, work,
        f->child > 0, SLICE_WAIT_OUTPUT, info->name);
}

/* A frame charged to no element, or a buffer list's inner chain:
 * transparent. Its time stays the enclosing frame's own, its children
 * stay that frame's children (decodebin plugging a decoder inside a caps
 * event is the enclosing element's; at the top, the pusher's). */
static void
finish_transparent (SpThreadState * st, SpFrame * f)
{
  charge_enclosing (st, f->child, f->child_cpu);
  if (st->depth > 0 && st->depth <= st->stack_size)
    st->stack[st->depth - 1].timed_children += f->timed_children;
}

/* Closes frame `f` (just popped) at `ts`: books it by its kind, then
 * charges what it cost to the frame around it. */
static void
finish_frame (SpRecorder * r, SpThreadState * st, SpFrame * f, guint64 ts)
{
  guint64 dur = ts > f->start ? ts - f->start : 0;
  guint64 cpu = untimed_cost (f, dur);  /* what this frame cost its parent */
  guint64 self = dur > f->child ? dur - f->child : 0, work = self;
  SpElemRec *rec = f->rec;
  SpThreadRec *th;

  if (f->kind == SP_FRAME_INNER || rec == NULL) {
    finish_transparent (st, f);
    return;
  }
  th = rec->thread;
  if (f->cpu_on) {
    /* Less the CPU its children used, and the clock reads that timed
     * them (the tracer's, not this element's: two a child, calibrated
     * at start). Without this the reads kept a parent of many timed
     * children long enough to stay timed. */
    guint64 sub;

    cpu = sp_thread_cpu_ns () - f->cpu;
    sub = f->child_cpu + 2 * f->timed_children * r->cpu_read_ns;
    work = MIN (cpu > sub ? cpu - sub : 0, self);
  }
  sp_write_begin (th);
  if (f->kind == SP_FRAME_PULL && rec->info->queue)
    book_queue_pull (r, f, dur, self);
  else if (f->kind == SP_FRAME_QUEUE)
    book_queue_put (r, f, ts, dur, self, work);
  else if (f->kind == SP_FRAME_EVENT && rec->info->queue)
    book_queue_event (r, f, dur, self, work);
  else
    book_element (r, f, ts, dur, self, work, f->cpu_on,
        f->kind == SP_FRAME_EVENT);
  SP_SET (th->last_ts, ts);
  sp_write_end (th);
  if (st->depth > 0 && st->depth <= st->stack_size) {
    SpFrame *parent = &st->stack[st->depth - 1];
    /* What the child cost a timed parent includes the bookkeeping above
     * (statistics, the trace slice): the tracer's work, not the parent's.
     * After a child that slept (a sync element) it runs on cold caches:
     * 17 us an invocation on the development VM, which stagetruth's own
     * clock showed as the parent's. */
    if (f->cpu_on && parent->cpu_on)
      cpu = sp_thread_cpu_ns () - f->cpu;
    /* The clock reads of timed frames under an untimed one are the
     * tracer's: the timed frame further out subtracts them. */
    if (!f->cpu_on)
      parent->timed_children += f->timed_children;
  }
  charge_enclosing (st, dur, cpu);
  /* After its figures, so the look is not its work. */
  if (G_UNLIKELY (f->scan))
    look_at_threads (r, st, rec->info, f->scan, f->start, FALSE, NULL);
}

static inline G_ALWAYS_INLINE void
pop_frame (SpRecorder * r, SpThreadState * st, guint64 ts)
{
  SpFrame *f;
  SpElemRec *rec;
  guint64 dur, self;

  if (G_UNLIKELY (st->depth == 0))
    return;                     /* a post whose pre came before tracing */
  st->depth--;
  if (G_UNLIKELY (st->depth >= st->stack_size))
    return;
  f = &st->stack[st->depth];
  rec = f->rec;
  if (G_UNLIKELY (f->kind != SP_FRAME_CHAIN || f->cpu_on || rec == NULL
          || st->depth == 0 || f->scan)) {
    finish_frame (r, st, f, ts);
    return;
  }
  /* The plain nested chain not timed by CPU, nearly every frame:
   * finish_frame() for it, with what it knows constant. Its own time is
   * short, so wall is CPU; its children's is what they cost (less than
   * their wall time when one of them waited, timed). */
  dur = ts > f->start ? ts - f->start : 0;
  self = dur > f->child ? dur - f->child : 0;
  f[-1].child += dur;
  f[-1].child_cpu += self + f->child_cpu;
  f[-1].timed_children += f->timed_children;
  sp_write_begin (rec->thread);
  book_element (r, f, ts, dur, self, self, FALSE, FALSE);
  SP_SET (rec->thread->last_ts, ts);
  sp_write_end (rec->thread);
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

/* Where the element's input comes from and what it is, read once at its
 * first buffer with windows on (cold: a pad lock, a caps ref). */
static G_GNUC_NO_INLINE void
window_name_input (SpElemInfo * info, GstPad * pad)
{
  GstPad *peer = gst_pad_get_peer (pad);
  GstObject *up = peer ? gst_object_get_parent (GST_OBJECT (peer)) : NULL;
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gchar *name;

  /* A ghost's or proxy's peer: name the element that owns it. */
  while (up && GST_IS_PAD (up)) {
    GstObject *next = gst_object_get_parent (up);
    gst_object_unref (up);
    up = next;
  }
  name = g_strdup_printf ("%s:%s", up ? GST_OBJECT_NAME (up) : "?",
      peer ? GST_OBJECT_NAME (peer) : "?");
  if (!g_atomic_pointer_compare_and_exchange (&info->in_pad, NULL, name))
    g_free (name);
  if (caps && gst_caps_get_size (caps) > 0
      && !g_atomic_pointer_get (&info->sink_media))
    g_atomic_pointer_set (&info->sink_media, g_intern_string
        (gst_structure_get_name (gst_caps_get_structure (caps, 0))));
  if (caps)
    gst_caps_unref (caps);
  if (up)
    gst_object_unref (up);
  if (peer)
    gst_object_unref (peer);
}

/* With windows on: the bytes each element takes in (its upstream src
 * pad's bitrate). */
static inline void
window_input (SpElemRec * rec, GstPad * pad, GstBuffer * buf,
    GstBufferList * list)
{
  SP_ADD (rec->bytes, buf ? gst_buffer_get_size (buf) :
      gst_buffer_list_calculate_size (list));
  if (G_UNLIKELY (!g_atomic_pointer_get (&rec->info->in_pad)))
    window_name_input (rec->info, pad);
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
  guint32 scan = 0;

  if (st->depth == 0) {
    rec = top_level (r, st, rec, pad, ts);
  } else if (G_UNLIKELY (st->depth <= st->stack_size
          && st->stack[st->depth - 1].list
          && st->stack[st->depth - 1].rec == rec)) {
    push_frame (st, rec, ts, SP_FRAME_INNER, FALSE);
    return;
  }
  __atomic_store_n (&rec->buffers, rec->buffers + n_buffers,
      __ATOMIC_RELAXED);
  if (G_UNLIKELY (__atomic_load_n (&r->windows, __ATOMIC_RELAXED)))
    window_input (rec, pad, buf, list);
  if (G_UNLIKELY (g_atomic_int_get (&rec->info->chain_scans_left) > 0))
    ts += scan_before (r, st, rec, &rec->info->chain_scans_left, &scan);
  q = rec->info->queue;
  if (q) {
    data_info (buf, list, &bytes, &start, &pts);
    push_frame (st, rec, ts, SP_FRAME_QUEUE,
        sp_queue_put (r, q, ts, n_buffers, bytes, start, pts));
  } else {
    push_frame (st, rec, ts, SP_FRAME_CHAIN, FALSE);
  }
  if (G_UNLIKELY (g_atomic_int_get (&rec->info->split_chain)))
    SP_SET (rec->sample_left, G_MAXUINT);
  if (G_UNLIKELY (g_atomic_int_get (&rec->info->sync_clock)
          && !g_atomic_int_get (&rec->info->playing)
          && st->depth <= st->stack_size))
    st->stack[st->depth - 1].prerolling = TRUE;
  set_scan (st, scan);
  frame_cpu (r, st, rec, FALSE);
  if (list && st->depth <= st->stack_size)
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

  if (G_UNLIKELY (st == NULL || !cached_rec (st, pad, &rec))) {
    chain_pre_hook (r, ts, pad, buf, list);
    return;
  }
  if (G_UNLIKELY (!rec))
    return;
  depth = st->depth;
  /* The common case: one buffer, into a plain element, nested in a chain
   * that did not take a list; what chain_pre_full() would do there. */
  if (G_UNLIKELY (depth == 0 || depth >= st->stack_size || list != NULL
          || st->stack[depth - 1].list || rec->sample_left != 0
          || rec->info->queue != NULL || rec->info->split_chain
          || ((st->stack[depth - 1].cpu_on || st->stack[depth - 1].under_cpu)
              && g_atomic_int_get (&rec->info->multi_input)))) {
    chain_pre_full (r, st, rec, ts, pad, buf, list);
    return;
  }
  __atomic_store_n (&rec->buffers, rec->buffers + 1, __ATOMIC_RELAXED);
  if (G_UNLIKELY (__atomic_load_n (&r->windows, __ATOMIC_RELAXED)))
    window_input (rec, pad, buf, NULL);
  frame_open (st, depth, rec, ts, SP_FRAME_CHAIN, FALSE);
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
    SP_SET (rec->split_next, r->cpu_clock && !info->queue
        && (g_atomic_int_get (&info->split_task) || rec->sample_left != 0));
    st->base_child = st->base_child_cpu = 0;
    return;
  }
  gap = ts - st->last_push_end;
  own = gap > st->base_child ? gap - st->base_child : 0;
  sp_write_begin (th);
  if (info->queue) {
    if (buffer)
      sp_queue_get_wait (r, info->queue, own);
    SP_ADD (th->wait_in, own);
    if (g_atomic_int_get (&info->traced))
      emit_slice (r, th, info->name, st->last_push_end, gap,
          SLICE_WAIT_INPUT);
  } else if (st->have_cpu_end) {
    guint64 cpu = sp_thread_cpu_ns () - st->cpu_push_end;
    guint64 work = cpu > st->base_child_cpu ? cpu - st->base_child_cpu : 0;

    work = MIN (work, own);
    if (buffer)
      add_sample (r, rec, work, ts);
    else
      SP_ADD (rec->work_ns, work);
    SP_ADD (th->busy, work);
    SP_ADD (th->wait_in, own - work);
    /* A live source waits for its clock (or its device's). */
    if (info->live_source)
      SP_ADD (rec->clock_ns, own - work);
    if (g_atomic_int_get (&info->traced))
      emit_split (r, th, info->name, st->last_push_end, gap, own, work,
          st->base_child > 0, SLICE_WAIT_INPUT, info->name);
  } else {
    if (buffer)
      add_sample (r, rec, own, ts);
    else
      SP_ADD (rec->work_ns, own);
    /* Unsplit (short, or no CPU clock): a live source's thread is still
     * waiting for its next frame, not working. */
    if (info->live_source)
      SP_ADD (th->wait_in, own);
    else
      SP_ADD (th->busy, own);
    if (g_atomic_int_get (&info->traced))
      emit_slice (r, th, info->name, st->last_push_end, gap, SLICE_ELEMENT);
  }
  sp_write_end (th);
  if (rec->sample_left != 0 && rec->sample_left != G_MAXUINT)
    SP_SET (rec->sample_left, rec->sample_left - 1);
  if (gap >= r->split_min_ns && !info->queue)
    renew_samples (rec);
  SP_SET (rec->split_next, r->cpu_clock && !info->queue
      && (g_atomic_int_get (&info->split_task) || rec->sample_left != 0));
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
    st->cpu_push_end = sp_thread_cpu_ns ();
  sp_write_begin (rec->thread);
  SP_SET (rec->thread->last_ts, ts);
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
 * pad's own element otherwise. A capsfilter inside a bin does nothing with
 * an event but pass it on, and what runs inside that push is the bin's
 * too: from GStreamer 1.26 decodebin puts a capsfilter after each decoder,
 * and exposes its pads (uridecodebin and the application link and
 * negotiate downstream) while the decoder's caps event crosses it. */
static GstElement *
event_handler (GstPad * pad)
{
  GstObject *parent = pad ? GST_OBJECT_PARENT (pad) : NULL;
  GstObject *bin;

  /* The internal pad of a ghost pad has the ghost pad as its parent. */
  if (parent && GST_IS_PAD (parent))
    parent = GST_OBJECT_PARENT (parent);
  if (!parent || !GST_IS_ELEMENT (parent))
    return NULL;
  bin = GST_OBJECT_PARENT (parent);
  if (bin && GST_OBJECT_PARENT (bin) != NULL
      && sp_is_capsfilter (GST_ELEMENT_CAST (parent)))
    return GST_ELEMENT_CAST (bin);
  return GST_ELEMENT_CAST (parent);
}

/* Events: the element the event is pushed to handles it inside the push,
 * so the push is a frame of that element (a decoder opening on its caps
 * event, a sink draining or waiting for the clock on EOS), timed by CPU
 * like a long chain. Events are few, so the handler is found without the
 * pad cache. */
void
sp_record_event_pre (SpRecorder * r, guint64 ts, GstPad * pad, gboolean eos)
{
  SpThreadState *st = get_state (r, ts);
  GstElement *handler = event_handler (GST_PAD_PEER (pad));
  SpElemRec *rec;
  guint32 scan = 0;

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
  /* A codec that drains on EOS may end its workers there: read them. */
  if (G_UNLIKELY (eos))
    ts += look_at_threads (r, st, NULL, 0, 0, TRUE, NULL);
  if (G_UNLIKELY (rec && g_atomic_int_get (&rec->info->scans_left) > 0))
    ts += scan_before (r, st, rec, &rec->info->scans_left, &scan);
  push_frame (st, rec, ts, SP_FRAME_EVENT, FALSE);
  set_scan (st, scan);
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

/* The trace ids (process, thread) the hooks just used on this thread. */
gboolean
sp_record_thread_ids (SpRecorder * r, guint * pid, guint64 * tid)
{
  SpThreadState *st = sp_tls;

  if (st == NULL || st->r != r || st->thread == NULL)
    return FALSE;
  *pid = st->thread->pid;
  *tid = st->thread->tid;
  return TRUE;
}
