/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spguard: see spguard.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "spguard.h"

#include <unistd.h>
#ifdef __linux__
#include <linux/membarrier.h>
#include <sys/syscall.h>
#endif

__thread SpGuardThread *sp_guard_self
    __attribute__ ((tls_model ("initial-exec")));
gboolean sp_guard_need_fence = TRUE;

static GMutex sp_guard_lock;
static GPtrArray *sp_guard_threads;     /* SpGuardThread *, under the lock */
static gboolean sp_guard_memb;

static void
sp_guard_thread_free (gpointer data)
{
  g_mutex_lock (&sp_guard_lock);
  g_ptr_array_remove_fast (sp_guard_threads, data);
  g_mutex_unlock (&sp_guard_lock);
  g_free (data);
  sp_guard_self = NULL;
}

static GPrivate sp_guard_key = G_PRIVATE_INIT (sp_guard_thread_free);

void
sp_guard_init (void)
{
  static gsize done = 0;

  if (!g_once_init_enter (&done))
    return;
  sp_guard_threads = g_ptr_array_new ();
#if defined(__linux__) && defined(__NR_membarrier)
  if (syscall (__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
          0, 0) == 0)
    sp_guard_memb = TRUE;
#endif
  /* Published before any hook runs (the tracer calls this at
   * construction, before registering its hooks). */
  sp_guard_need_fence = !sp_guard_memb;
  g_once_init_leave (&done, 1);
}

SpGuardThread *
sp_guard_register (void)
{
  SpGuardThread *g = g_new0 (SpGuardThread, 1);

  g_mutex_lock (&sp_guard_lock);
  g_ptr_array_add (sp_guard_threads, g);
  g_mutex_unlock (&sp_guard_lock);
  g_private_set (&sp_guard_key, g);
  sp_guard_self = g;
  return g;
}

/* Every running thread of the process passes a full barrier: a thread's
 * store of an odd `seq` is then visible here, or its load of the pointer
 * comes after our store of the new one. */
static void
sp_guard_barrier (void)
{
#if defined(__linux__) && defined(__NR_membarrier)
  if (sp_guard_memb && syscall (__NR_membarrier,
          MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
    return;
#endif
  __atomic_thread_fence (__ATOMIC_SEQ_CST);
}

void
sp_guard_synchronize (void)
{
  guint i;

  __atomic_thread_fence (__ATOMIC_SEQ_CST);
  sp_guard_barrier ();
  /* Threads registering or exiting wait on the lock meanwhile: neither is
   * inside a hook, and the wait is one hook invocation long. */
  g_mutex_lock (&sp_guard_lock);
  for (i = 0; i < sp_guard_threads->len; i++) {
    SpGuardThread *g = g_ptr_array_index (sp_guard_threads, i);
    guint64 seq = __atomic_load_n (&g->seq, __ATOMIC_ACQUIRE);

    if (g == sp_guard_self)
      continue;
    while ((seq & 1) && __atomic_load_n (&g->seq, __ATOMIC_ACQUIRE) == seq)
      g_usleep (20);
  }
  g_mutex_unlock (&sp_guard_lock);
  __atomic_thread_fence (__ATOMIC_SEQ_CST);
}
