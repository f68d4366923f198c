/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spthreads: what the kernel knows about the process's threads. The hooks
 * only see GStreamer's streaming threads; a decoder's own worker threads
 * (libav's frame threads) and the kernel's run-queue delay (time a thread
 * was ready but waited for a CPU) come from /proc. Read on the cold path
 * only: at summaries, at a thread's first sight and at its exit.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "spregistry.h"
#include "sprowgst.h"
#include "spthreads.h"

typedef struct
{
  gchar *name;                  /* owned */
  guint64 tid, cpu_ns;
  gboolean alive;
  /* The element whose invocation it appeared in (its codec's worker), or
   * NULL. Infos live as long as the recorder. */
  SpElemInfo *owner;
  gchar *comm;                  /* the kernel's name, owned */
  gboolean was_alive;           /* at the look before the last */
  guint32 seen;                 /* the look that saw it first */
  /* Its owner is a guess: another streaming thread had the kernel name
   * of the one that started it. */
  gboolean guess;
} SpOsThread;

/* /proc/self/task/TID/schedstat: "run_ns delay_ns slices" (ns). */
static gboolean
read_schedstat (guint64 tid, guint64 * run, guint64 * delay)
{
  gchar path[64], buf[128];
  FILE *f;
  gboolean ok;
  unsigned long long a = 0, b = 0;

  g_snprintf (path, sizeof (path), "/proc/self/task/%" G_GUINT64_FORMAT
      "/schedstat", tid);
  f = fopen (path, "re");
  if (!f)
    return FALSE;
  ok = fgets (buf, sizeof (buf), f) != NULL
      && sscanf (buf, "%llu %llu", &a, &b) == 2;
  fclose (f);
  *run = a;
  *delay = b;
  return ok;
}

guint64
sp_sched_delay (guint64 tid)
{
  guint64 run, delay;

  return read_schedstat (tid, &run, &delay) ? delay : 0;
}

guint64
sp_process_cpu_ns (void)
{
  struct timespec t;

  if (clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t) != 0)
    return 0;
  return (guint64) t.tv_sec * GST_SECOND + (guint64) t.tv_nsec;
}

/* The run-queue delay of a thread record so far (or up to its exit). */
guint64
sp_thread_cpu_wait (SpThreadRec * th)
{
  guint64 now = th->ended || th->run_over ? th->sched_delay_end :
      sp_sched_delay (th->tid);

  return now > th->sched_delay0 ? now - th->sched_delay0 : 0;
}

/* Kernel thread names are at most 15 bytes; GStreamer's streaming threads
 * are named better by the element that drives them. */
static const gchar *
thread_label_locked (SpRecorder * r, guint64 tid, const gchar * comm)
{
  guint i;

  for (i = r->threads->len; i > 0; i--) {
    SpThreadRec *th = g_ptr_array_index (r->threads, i - 1);
    if (th->tid == tid && !th->ended)
      return th->name;
  }
  return comm;
}

/* Whether thread `tid` ran an element since `since_ts` (the hooks'
 * clock): a thread GStreamer's pool keeps after a pipeline stopped still
 * has the name of the task it ran, and starts nothing. */
static gboolean
streaming_since_locked (SpRecorder * r, guint64 tid, guint64 since_ts)
{
  guint i;

  for (i = r->threads->len; i > 0; i--) {
    SpThreadRec *th = g_ptr_array_index (r->threads, i - 1);
    if (th->tid == tid && !th->ended
        && __atomic_load_n (&th->last_ts, __ATOMIC_RELAXED) >= since_ts)
      return TRUE;
  }
  return FALSE;
}

static gchar *
read_comm (const gchar * tid)
{
  gchar *path = g_strdup_printf ("/proc/self/task/%s/comm", tid);
  gchar *comm = NULL;

  if (g_file_get_contents (path, &comm, NULL, NULL))
    g_strchomp (comm);
  g_free (path);
  return comm;
}

/* A worker is named after the element that started it. A copy: the rows
 * it names live as long as the process's threads are listed, longer than
 * the records of a pipeline. */
static gchar *
os_thread_label (SpRecorder * r, SpOsThread * t, const gchar * comm)
{
  if (!t->owner)
    return g_strdup (thread_label_locked (r, t->tid, comm));
  return g_strdup_printf ("%s%s:%s", t->owner->name, t->guess ? "?" : "",
      comm);
}

static void
set_name (SpOsThread * t, gchar * name)
{
  g_free (t->name);
  t->name = name;
}

void
sp_os_thread_free (gpointer data)
{
  SpOsThread *t = data;

  g_free (t->name);
  g_free (t->comm);
  g_free (t);
}

/* What the kernel says of thread `ent` now: its name and, read by the
 * caller, its CPU time. A worker whose element was forgotten keeps the
 * name it had. */
static void
note_thread_locked (SpRecorder * r, SpOsThread * t, const gchar * ent,
    guint64 run)
{
  gchar *comm = read_comm (ent);

  g_free (t->comm);
  t->comm = comm ? comm : g_strdup ("?");
  if (t->owner || !t->name || !strchr (t->name, ':'))
    set_name (t, os_thread_label (r, t, t->comm));
  t->cpu_ns = run;
  t->alive = TRUE;
}

/* FFmpeg (from 6.1) names its codecs' threads "av:CODEC:df0" (frame
 * threads) or "av:CODEC:sw0" (slice threads), CODEC cut to 7 bytes;
 * gst-libav names its elements avdec_CODEC / avenc_CODEC, but for the
 * codecs it renames (hevc: avdec_h265). */
static gboolean
libav_thread_of (const gchar * comm, const SpElemInfo * owner)
{
  static const gchar *const renamed[][2] = {
    {"hevc", "h265"}, {"mpeg2vi", "mpeg2video"},
  };
  const gchar *type = owner->type_name, *end;
  gchar codec[16];
  guint i;

  if (!g_str_has_prefix (comm, "av:") || !type
      || !(g_str_has_prefix (type, "avdec_")
          || g_str_has_prefix (type, "avenc_")))
    return FALSE;
  comm += 3;
  end = strchr (comm, ':');
  if (!end || end == comm || (gsize) (end - comm) >= sizeof (codec))
    return FALSE;
  memcpy (codec, comm, end - comm);
  codec[end - comm] = '\0';
  type += 6;
  for (i = 0; i < G_N_ELEMENTS (renamed); i++)
    if (strcmp (codec, renamed[i][0]) == 0)
      return g_str_has_prefix (type, renamed[i][1]);
  /* "av:mpeg4:" for avdec_mpeg4, "av:h264:" for avdec_h264; a cut name
   * ("av:libdav1:") still names the start of the element's. */
  return strlen (codec) == 7 ? g_str_has_prefix (type, codec)
      : strcmp (type, codec) == 0;
}

/* A thread knows no more of where it came from than the kernel name it
 * was given: its creator's at the time (glibc and GLib copy it), unless
 * it renamed itself. So a thread seen since `since` (the look before the
 * claimer's invocation began) is `owner`'s when it carries the claiming
 * thread's name, or a codec library's name for `owner`'s codec. When
 * another streaming thread that ran meanwhile has the claimer's name too
 * (the kernel cuts names at 15 bytes: "multiqueue0:src_0" and "_1"), it
 * may be that one's: the owner is then a guess, and is shown as one. */
static gboolean
started_by_locked (SpRecorder * r, SpOsThread * t, SpElemInfo * owner,
    guint64 claimer, const gchar * claimer_comm, guint64 since_ts,
    gboolean * guess)
{
  GHashTableIter iter;
  gpointer v;

  *guess = FALSE;
  if (t->comm && libav_thread_of (t->comm, owner))
    return TRUE;
  if (!t->comm || !claimer_comm || strcmp (t->comm, claimer_comm) != 0)
    return FALSE;
  g_hash_table_iter_init (&iter, r->os_threads);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpOsThread *o = v;
    gchar id[24], *now;

    if (o->tid == claimer || !o->alive || !o->comm
        || strcmp (o->comm, claimer_comm) != 0
        || !streaming_since_locked (r, o->tid, since_ts))
      continue;
    /* its name now: a pooled thread takes the name of each task it runs */
    g_snprintf (id, sizeof (id), "%" G_GUINT64_FORMAT, o->tid);
    now = read_comm (id);
    if (now && strcmp (now, claimer_comm) == 0)
      *guess = TRUE;
    g_free (now);
  }
  return TRUE;
}

guint32
sp_threads_claim (SpRecorder * r, SpElemInfo * owner, guint32 since,
    guint64 since_ts, guint64 claimer)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  gchar *claimer_comm = NULL;
  const gchar *ent;
  guint32 look;

  if (!dir)
    return 0;
  if (owner) {
    gchar tid[24];
    g_snprintf (tid, sizeof (tid), "%" G_GUINT64_FORMAT, claimer);
    claimer_comm = read_comm (tid);
  }
  g_mutex_lock (&r->lock);
  look = ++r->thread_looks;
  while ((ent = g_dir_read_name (dir))) {
    guint64 tid = g_ascii_strtoull (ent, NULL, 10), run = 0, delay;
    SpOsThread *t;

    if (tid == 0 || g_hash_table_contains (r->os_threads,
            GUINT_TO_POINTER (tid)))
      continue;
    t = g_new0 (SpOsThread, 1);
    t->tid = tid;
    t->seen = look;
    read_schedstat (tid, &run, &delay);
    note_thread_locked (r, t, ent, run);
    g_hash_table_insert (r->os_threads, GUINT_TO_POINTER (tid), t);
  }
  /* Threads first seen after the claimer's look before: seen by this look
   * or by another element's meanwhile (elements that start in parallel). */
  if (owner && since > 0) {
    GHashTableIter iter;
    gpointer v;

    g_hash_table_iter_init (&iter, r->os_threads);
    while (g_hash_table_iter_next (&iter, NULL, &v)) {
      SpOsThread *t = v;
      gboolean guess;

      if (t->owner || t->seen <= since || !t->alive
          || thread_label_locked (r, t->tid, NULL) != NULL
          || !started_by_locked (r, t, owner, claimer, claimer_comm,
              since_ts, &guess))
        continue;
      t->owner = owner;
      t->guess = guess;
      set_name (t, os_thread_label (r, t, t->comm));
    }
  }
  g_mutex_unlock (&r->lock);
  g_dir_close (dir);
  g_free (claimer_comm);
  return look;
}

void
sp_threads_forget_owners_locked (SpRecorder * r, SpPipe * p)
{
  GHashTableIter iter;
  gpointer v;

  g_hash_table_iter_init (&iter, r->os_threads);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpOsThread *t = v;
    if (t->owner && t->owner->pipe == p)
      t->owner = NULL;
  }
}


/* A codec may start more threads after its first invocations (x264's
 * lookahead after some frames). Such a thread gets its creator's name from
 * the kernel, as the element's known workers did: where every known worker
 * of that name is one element's, the newcomer is that element's too. */
static void
adopt_siblings_locked (SpRecorder * r)
{
  GHashTable *by_comm = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTable *guessed = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer v;
  static gchar ambiguous;

  g_hash_table_iter_init (&iter, r->os_threads);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpOsThread *t = v;
    gpointer o;

    if (!t->owner || !t->comm)
      continue;
    o = g_hash_table_lookup (by_comm, t->comm);
    g_hash_table_insert (by_comm, (gpointer) t->comm,
        o == NULL || o == t->owner ? (gpointer) t->owner : &ambiguous);
    if (t->guess)
      g_hash_table_add (guessed, (gpointer) t->comm);
  }
  g_hash_table_iter_init (&iter, r->os_threads);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpOsThread *t = v;
    gpointer o;

    if (t->owner || !t->comm || !t->alive
        || thread_label_locked (r, t->tid, NULL) != NULL)
      continue;
    o = g_hash_table_lookup (by_comm, t->comm);
    if (o && o != &ambiguous) {
      t->owner = o;
      t->guess = g_hash_table_contains (guessed, t->comm);
      set_name (t, os_thread_label (r, t, t->comm));
    }
  }
  g_hash_table_destroy (guessed);
  g_hash_table_destroy (by_comm);
}

/* Threads that ended keep their row (their CPU time) up to this many; the
 * least busy of the rest that belong to no element are forgotten, their
 * CPU then in the process's unlisted total. Bounded over days of an
 * application that starts threads. */
#define SP_MAX_ENDED_THREADS 256

static gint
cmp_cpu_asc (gconstpointer a, gconstpointer b)
{
  const SpOsThread *x = *(SpOsThread * const *) a;
  const SpOsThread *y = *(SpOsThread * const *) b;

  return x->cpu_ns < y->cpu_ns ? -1 : x->cpu_ns > y->cpu_ns;
}

static guint64
bound_ended_locked (SpRecorder * r)
{
  GPtrArray *ended = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer v;
  guint64 dropped = 0;
  guint i;

  g_hash_table_iter_init (&iter, r->os_threads);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpOsThread *t = v;
    if (!t->alive && !t->owner)
      g_ptr_array_add (ended, t);
  }
  if (ended->len > SP_MAX_ENDED_THREADS) {
    g_ptr_array_sort (ended, cmp_cpu_asc);
    for (i = 0; i < ended->len - SP_MAX_ENDED_THREADS; i++) {
      SpOsThread *t = g_ptr_array_index (ended, i);
      dropped += t->cpu_ns;
      g_hash_table_remove (r->os_threads, GUINT_TO_POINTER (t->tid));
    }
  }
  g_ptr_array_free (ended, TRUE);
  return dropped;
}

static void
update_locked (SpRecorder * r)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  GHashTableIter iter;
  gpointer v;
  const gchar *ent;

  guint64 proc = sp_process_cpu_ns (), listed = 0, gone;
  SpElemInfo *died_owner = NULL;
  guint died = 0;
  gboolean one_owner = TRUE;

  /* Threads that ended having used under 10 ms are forgotten: a process
   * that starts thousands of short threads keeps a bounded table. */
  g_hash_table_iter_init (&iter, r->os_threads);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpOsThread *t = v;
    t->was_alive = t->alive;
    if (!t->alive && t->cpu_ns < 10 * GST_MSECOND && !t->owner)
      g_hash_table_iter_remove (&iter);
    else
      t->alive = FALSE;
  }
  while (dir && (ent = g_dir_read_name (dir))) {
    guint64 tid = g_ascii_strtoull (ent, NULL, 10), run, delay;
    SpOsThread *t;

    if (tid == 0 || !read_schedstat (tid, &run, &delay))
      continue;
    t = g_hash_table_lookup (r->os_threads, GUINT_TO_POINTER (tid));
    if (!t) {
      t = g_new0 (SpOsThread, 1);
      t->tid = tid;
      t->seen = r->thread_looks + 1;    /* after the last claim's look */
      g_hash_table_insert (r->os_threads, GUINT_TO_POINTER (tid), t);
    }
    /* A thread that became a streaming thread is no worker. */
    if (t->owner && thread_label_locked (r, tid, NULL) != NULL)
      t->owner = NULL;
    note_thread_locked (r, t, ent, run);
  }
  if (dir)
    g_dir_close (dir);
  adopt_siblings_locked (r);

  /* Threads that ended since the last look used CPU after it that no row
   * holds: the process's CPU grew by more than the rows did. When every
   * thread that ended is one element's (a codec closing its workers as it
   * drains), that is theirs. */
  g_hash_table_iter_init (&iter, r->os_threads);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpOsThread *t = v;
    listed += t->cpu_ns;
    if (t->was_alive && !t->alive) {
      died++;
      if (died == 1)
        died_owner = t->owner;
      else if (t->owner != died_owner)
        one_owner = FALSE;
    }
  }
  gone = proc > listed ? proc - listed : 0;
  if (died > 0 && one_owner && died_owner && gone > r->unlisted_ns) {
    guint64 extra = gone - r->unlisted_ns;
    g_hash_table_iter_init (&iter, r->os_threads);
    while (g_hash_table_iter_next (&iter, NULL, &v)) {
      SpOsThread *t = v;
      if (t->was_alive && !t->alive)
        t->cpu_ns += extra / died;
    }
    gone = r->unlisted_ns;
  }
  /* what it forgets is unlisted from now on, not CPU that appeared */
  r->unlisted_ns = gone + bound_ended_locked (r);
}

void
sp_threads_refresh (SpRecorder * r)
{
  g_mutex_lock (&r->lock);
  update_locked (r);
  g_mutex_unlock (&r->lock);
}

/* A thread of GLib's shared thread pool ("pool-" and the program's name,
 * as GLib names them) that belongs to no element and never streamed.
 * Every non-exclusive GThreadPool of the process runs its work on these
 * threads, one task on one, the next on another: GstTaskPool's default
 * (videoconvert's n-threads, GstVideoConverter's parallel runner) as any
 * other library's. The kernel's name is GLib's, not its creator's, and a
 * thread runs whichever pool's task comes next: whose work it did is not
 * known, only that it is the shared pool's. */
static gboolean
shared_pool_thread_locked (SpRecorder * r, const SpOsThread * t)
{
  return !t->owner && t->comm && g_str_has_prefix (t->comm, "pool-")
      && thread_label_locked (r, t->tid, NULL) == NULL;
}

static gint
cmp_cpu (gconstpointer a, gconstpointer b)
{
  const SpOsThread *x = *(SpOsThread * const *) a;
  const SpOsThread *y = *(SpOsThread * const *) b;

  if (x->cpu_ns != y->cpu_ns)
    return x->cpu_ns < y->cpu_ns ? 1 : -1;
  return g_strcmp0 (x->name, y->name);
}

/* Fills `rows` (a GST_TYPE_ARRAY) with one "os-thread" row per thread the
 * process has had since the tracer started, busiest first, and returns the
 * process totals. Threads that ended keep the CPU time last seen. */
GstStructure *
sp_os_threads (SpRecorder * r, GValue * rows)
{
  GPtrArray *all = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer v;
  guint64 proc = sp_process_cpu_ns (), listed = 0, pool = 0;
  guint pool_threads = 0;
  gdouble elapsed = (g_get_monotonic_time () * 1000.0 - r->t0) / 1e9;
  gdouble used = (proc - MIN (proc, r->proc_cpu_t0)) / 1e9;
  guint cores = g_get_num_processors ();
  guint i;

  g_mutex_lock (&r->lock);
  update_locked (r);
  for (i = 0; i < r->all_infos->len; i++) {
    SpElemInfo *info = g_ptr_array_index (r->all_infos, i);
    info->worker_cpu_ns = 0;
    info->workers = 0;
  }
  g_hash_table_iter_init (&iter, r->os_threads);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpOsThread *t = v;
    g_ptr_array_add (all, v);
    listed += t->cpu_ns;
    /* Workers that did something: a codec's idle pool threads do not
     * make the others' share smaller. */
    if (t->owner && t->cpu_ns >= GST_MSECOND) {
      t->owner->worker_cpu_ns += t->cpu_ns;
      t->owner->workers++;
    } else if (shared_pool_thread_locked (r, t) && t->cpu_ns >= GST_MSECOND) {
      pool += t->cpu_ns;
      pool_threads++;
    }
  }
  g_ptr_array_sort (all, cmp_cpu);
  for (i = 0; i < all->len; i++) {
    SpOsThread *t = g_ptr_array_index (all, i);
    GValue v = G_VALUE_INIT;
    SpOsThreadRow *row = sp_row_new (&sp_os_thread_kind);

    row->name = g_strdup (t->name);
    row->tid = t->tid;
    row->cpu_s = t->cpu_ns / 1e9;
    row->share_pct = proc > 0 ? MIN (100.0, 100.0 * t->cpu_ns / proc) : 0.0;
    row->alive = t->alive;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, sp_row_into_structure (&sp_os_thread_kind, row));
    gst_value_array_append_and_take_value (rows, &v);
  }
  g_mutex_unlock (&r->lock);
  g_ptr_array_free (all, TRUE);
  return gst_structure_new ("process",
      "cpu_s", G_TYPE_DOUBLE, proc / 1e9,
      /* CPU of threads that ended before any look at them (and of short
       * ones forgotten): what the rows above do not hold. */
      "unlisted_cpu_s", G_TYPE_DOUBLE, proc > listed ? (proc - listed) / 1e9 :
      0.0,
      /* GLib's shared pool's threads that worked: whose work they did
       * is not known (shared_pool_thread_locked) */
      "shared_pool_cpu_s", G_TYPE_DOUBLE, pool / 1e9,
      "shared_pool_threads", G_TYPE_UINT, pool_threads,
      "cores", G_TYPE_UINT, cores,
      "elapsed_s", G_TYPE_DOUBLE, elapsed,
      "cores_used", G_TYPE_DOUBLE, elapsed > 0 ? used / elapsed : 0.0, NULL);
}

