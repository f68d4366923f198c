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

#include "sprecord-priv.h"

typedef struct
{
  gchar *name;
  guint64 tid, cpu_ns;
  gboolean alive;
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
  guint64 now = th->ended ? th->sched_delay_end : sp_sched_delay (th->tid);

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

static void
update_locked (SpRecorder * r)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  GHashTableIter iter;
  gpointer v;
  const gchar *ent;

  /* Threads that ended having used under 10 ms are forgotten: a process
   * that starts thousands of short threads keeps a bounded table. */
  g_hash_table_iter_init (&iter, r->os_threads);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpOsThread *t = v;
    if (!t->alive && t->cpu_ns < 10 * GST_MSECOND)
      g_hash_table_iter_remove (&iter);
    else
      t->alive = FALSE;
  }
  while (dir && (ent = g_dir_read_name (dir))) {
    guint64 tid = g_ascii_strtoull (ent, NULL, 10), run, delay;
    gchar *path, *comm = NULL;
    SpOsThread *t;

    if (tid == 0 || !read_schedstat (tid, &run, &delay))
      continue;
    path = g_strdup_printf ("/proc/self/task/%s/comm", ent);
    if (g_file_get_contents (path, &comm, NULL, NULL))
      g_strchomp (comm);
    g_free (path);
    t = g_hash_table_lookup (r->os_threads, GUINT_TO_POINTER (tid));
    if (!t) {
      t = g_new0 (SpOsThread, 1);
      t->tid = tid;
      g_hash_table_insert (r->os_threads, GUINT_TO_POINTER (tid), t);
    }
    t->name = (gchar *) g_intern_string (thread_label_locked (r, tid,
            comm ? comm : "?"));
    t->cpu_ns = run;
    t->alive = TRUE;
    g_free (comm);
  }
  if (dir)
    g_dir_close (dir);
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
  guint64 proc = sp_process_cpu_ns ();
  gdouble elapsed = (g_get_monotonic_time () * 1000.0 - r->t0) / 1e9;
  gdouble used = (proc - MIN (proc, r->proc_cpu_t0)) / 1e9;
  guint cores = g_get_num_processors ();
  guint i;

  g_mutex_lock (&r->lock);
  update_locked (r);
  g_hash_table_iter_init (&iter, r->os_threads);
  while (g_hash_table_iter_next (&iter, NULL, &v))
    g_ptr_array_add (all, v);
  g_ptr_array_sort (all, cmp_cpu);
  for (i = 0; i < all->len; i++) {
    SpOsThread *t = g_ptr_array_index (all, i);
    GValue row = G_VALUE_INIT;
    g_value_init (&row, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&row, gst_structure_new ("os-thread",
            "name", G_TYPE_STRING, t->name,
            "tid", G_TYPE_UINT64, t->tid,
            "cpu_s", G_TYPE_DOUBLE, t->cpu_ns / 1e9,
            "share_pct", G_TYPE_DOUBLE, proc > 0 ?
            MIN (100.0, 100.0 * t->cpu_ns / proc) : 0.0,
            "alive", G_TYPE_BOOLEAN, t->alive, NULL));
    gst_value_array_append_and_take_value (rows, &row);
  }
  g_mutex_unlock (&r->lock);
  g_ptr_array_free (all, TRUE);
  return gst_structure_new ("process",
      "cpu_s", G_TYPE_DOUBLE, proc / 1e9,
      "cores", G_TYPE_UINT, cores,
      "elapsed_s", G_TYPE_DOUBLE, elapsed,
      "cores_used", G_TYPE_DOUBLE, elapsed > 0 ? used / elapsed : 0.0, NULL);
}
