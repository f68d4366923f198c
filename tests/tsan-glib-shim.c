/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Preloaded by `scripts/test.sh --sanitize=thread` only.
 *
 * GLib's GMutex, GRecMutex, GRWLock and GCond are futex based on Linux, so
 * ThreadSanitizer sees no synchronisation in them and reports every access
 * that they do order as a race. This library gives the same functions on
 * pthreads, which TSan intercepts: preloaded, it takes the calls that
 * GStreamer, GObject, our plugins and our tests make into GLib (GLib's own
 * internal calls stay inside GLib, on objects only GLib touches).
 *
 * Each lock is allocated on first use and its pointer kept in the GLib
 * object, as GLib's own pthread implementation does, so statically
 * initialised (all-zero) locks work. Not instrumented itself, so it can be
 * preloaded into programs without TSan too (tests spawn some). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <glib.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

typedef struct
{
  pthread_mutex_t m;
} ShimMutex;

static void *
lazy (gpointer * slot, void *(*make) (void), void (*drop) (void *))
{
  void *impl = __atomic_load_n (slot, __ATOMIC_ACQUIRE);

  if (G_LIKELY (impl != NULL))
    return impl;
  impl = make ();
  {
    void *expected = NULL;

    if (!__atomic_compare_exchange_n (slot, &expected, impl, FALSE,
            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      drop (impl);
      impl = expected;
    }
  }
  return impl;
}

static void *
make_mutex (void)
{
  pthread_mutex_t *m = malloc (sizeof *m);

  if (m == NULL)
    abort ();
  pthread_mutex_init (m, NULL);
  return m;
}

static void *
make_rec_mutex (void)
{
  pthread_mutex_t *m = malloc (sizeof *m);
  pthread_mutexattr_t a;

  if (m == NULL)
    abort ();
  pthread_mutexattr_init (&a);
  pthread_mutexattr_settype (&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init (m, &a);
  pthread_mutexattr_destroy (&a);
  return m;
}

static void
drop_mutex (void *p)
{
  pthread_mutex_destroy (p);
  free (p);
}

static void *
make_rw (void)
{
  pthread_rwlock_t *l = malloc (sizeof *l);

  if (l == NULL)
    abort ();
  pthread_rwlock_init (l, NULL);
  return l;
}

static void
drop_rw (void *p)
{
  pthread_rwlock_destroy (p);
  free (p);
}

static void *
make_cond (void)
{
  pthread_cond_t *c = malloc (sizeof *c);
  pthread_condattr_t a;

  if (c == NULL)
    abort ();
  pthread_condattr_init (&a);
  /* g_cond_wait_until() takes g_get_monotonic_time() deadlines */
  pthread_condattr_setclock (&a, CLOCK_MONOTONIC);
  pthread_cond_init (c, &a);
  pthread_condattr_destroy (&a);
  return c;
}

static void
drop_cond (void *p)
{
  pthread_cond_destroy (p);
  free (p);
}

#define MUTEX(x) ((pthread_mutex_t *) lazy (&(x)->p, make_mutex, drop_mutex))
#define REC(x) ((pthread_mutex_t *) lazy (&(x)->p, make_rec_mutex, drop_mutex))
#define RW(x) ((pthread_rwlock_t *) lazy (&(x)->p, make_rw, drop_rw))
#define COND(x) ((pthread_cond_t *) lazy (&(x)->p, make_cond, drop_cond))

static void
clear (gpointer * slot, void (*drop) (void *))
{
  void *impl = __atomic_exchange_n (slot, NULL, __ATOMIC_ACQ_REL);

  if (impl)
    drop (impl);
}

void
g_mutex_init (GMutex * m)
{
  m->p = make_mutex ();
}

void
g_mutex_clear (GMutex * m)
{
  clear (&m->p, drop_mutex);
}

void
g_mutex_lock (GMutex * m)
{
  pthread_mutex_lock (MUTEX (m));
}

void
g_mutex_unlock (GMutex * m)
{
  pthread_mutex_unlock (MUTEX (m));
}

gboolean
g_mutex_trylock (GMutex * m)
{
  return pthread_mutex_trylock (MUTEX (m)) == 0;
}

void
g_rec_mutex_init (GRecMutex * m)
{
  m->p = make_rec_mutex ();
}

void
g_rec_mutex_clear (GRecMutex * m)
{
  clear (&m->p, drop_mutex);
}

void
g_rec_mutex_lock (GRecMutex * m)
{
  pthread_mutex_lock (REC (m));
}

void
g_rec_mutex_unlock (GRecMutex * m)
{
  pthread_mutex_unlock (REC (m));
}

gboolean
g_rec_mutex_trylock (GRecMutex * m)
{
  return pthread_mutex_trylock (REC (m)) == 0;
}

void
g_rw_lock_init (GRWLock * l)
{
  l->p = make_rw ();
}

void
g_rw_lock_clear (GRWLock * l)
{
  clear (&l->p, drop_rw);
}

void
g_rw_lock_writer_lock (GRWLock * l)
{
  pthread_rwlock_wrlock (RW (l));
}

gboolean
g_rw_lock_writer_trylock (GRWLock * l)
{
  return pthread_rwlock_trywrlock (RW (l)) == 0;
}

void
g_rw_lock_writer_unlock (GRWLock * l)
{
  pthread_rwlock_unlock (RW (l));
}

void
g_rw_lock_reader_lock (GRWLock * l)
{
  pthread_rwlock_rdlock (RW (l));
}

gboolean
g_rw_lock_reader_trylock (GRWLock * l)
{
  return pthread_rwlock_tryrdlock (RW (l)) == 0;
}

void
g_rw_lock_reader_unlock (GRWLock * l)
{
  pthread_rwlock_unlock (RW (l));
}

void
g_cond_init (GCond * c)
{
  c->p = make_cond ();
}

void
g_cond_clear (GCond * c)
{
  clear (&c->p, drop_cond);
}

void
g_cond_wait (GCond * c, GMutex * m)
{
  pthread_cond_wait (COND (c), MUTEX (m));
}

void
g_cond_signal (GCond * c)
{
  pthread_cond_signal (COND (c));
}

void
g_cond_broadcast (GCond * c)
{
  pthread_cond_broadcast (COND (c));
}

gboolean
g_cond_wait_until (GCond * c, GMutex * m, gint64 end_time)
{
  struct timespec ts;
  int r;

  ts.tv_sec = end_time / 1000000;
  ts.tv_nsec = (end_time % 1000000) * 1000;
  r = pthread_cond_timedwait (COND (c), MUTEX (m), &ts);
  return r != ETIMEDOUT;
}

/* GThreadPool hands work to its threads through GLib's internal queue,
 * which TSan cannot see either (GstTaskPool runs every GstTask on one):
 * everything the pusher wrote before g_thread_pool_push() must be visible
 * to the thread that runs the item. The pool's function is wrapped so the
 * hand-off is annotated: release on push, acquire before the call. The
 * annotations are weak: absent (a no-op) in programs without TSan. */
extern void __tsan_acquire (void *addr) __attribute__((weak));
extern void __tsan_release (void *addr) __attribute__((weak));

typedef struct
{
  GFunc func;
  gpointer user_data;
} PoolWrap;

static void
pool_trampoline (gpointer data, gpointer user_data)
{
  PoolWrap *w = user_data;

  if (__tsan_acquire)
    __tsan_acquire (data);
  w->func (data, w->user_data);
}

typedef GThreadPool *(*PoolNewFn) (GFunc, gpointer, gint, gboolean,
    GError **);
typedef GThreadPool *(*PoolNewFullFn) (GFunc, gpointer, GDestroyNotify,
    gint, gboolean, GError **);
typedef gboolean (*PoolPushFn) (GThreadPool *, gpointer, GError **);

GThreadPool *
g_thread_pool_new (GFunc func, gpointer user_data, gint max_threads,
    gboolean exclusive, GError ** error)
{
  static PoolNewFn real;
  PoolWrap *w = malloc (sizeof *w);

  if (!real)
    real = (PoolNewFn) dlsym (RTLD_NEXT, "g_thread_pool_new");
  if (w == NULL)
    abort ();
  /* the wrapper lives as long as the process: pools are few */
  w->func = func;
  w->user_data = user_data;
  return real (pool_trampoline, w, max_threads, exclusive, error);
}

GThreadPool *
g_thread_pool_new_full (GFunc func, gpointer user_data,
    GDestroyNotify item_free_func, gint max_threads, gboolean exclusive,
    GError ** error)
{
  static PoolNewFullFn real;
  PoolWrap *w = malloc (sizeof *w);

  if (!real)
    real = (PoolNewFullFn) dlsym (RTLD_NEXT, "g_thread_pool_new_full");
  if (w == NULL)
    abort ();
  w->func = func;
  w->user_data = user_data;
  return real (pool_trampoline, w, item_free_func, max_threads, exclusive,
      error);
}

gboolean
g_thread_pool_push (GThreadPool * pool, gpointer data, GError ** error)
{
  static PoolPushFn real;

  if (!real)
    real = (PoolPushFn) dlsym (RTLD_NEXT, "g_thread_pool_push");
  if (__tsan_release)
    __tsan_release (data);
  return real (pool, data, error);
}
