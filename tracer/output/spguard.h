/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spguard: when may a replaced output be freed? (stageprof's hook guard)
 *
 * Streaming threads read the live trace pointer inside the tracer hooks
 * without a lock. Each hook runs between sp_guard_enter() and
 * sp_guard_leave(); sp_guard_synchronize(), called after the pointer was
 * replaced, returns once every thread that was inside a hook at the time
 * has left it. After that nobody can hold the old pointer and it may be
 * freed (read-copy-update with quiescent states at hook exit).
 *
 * The hot path is two plain stores to thread-local memory: the ordering
 * against the pointer load is paid by the rare synchronize side with
 * membarrier(2) (Linux >= 4.14), as liburcu's "memb" flavour does. Where
 * membarrier is unavailable, enter() issues a full fence instead.
 */
#ifndef __SP_GUARD_H__
#define __SP_GUARD_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 seq;                  /* odd while inside a hook; read by others */
  guint depth;                  /* this thread only */
} SpGuardThread;

extern __thread SpGuardThread *sp_guard_self
    __attribute__ ((tls_model ("initial-exec")));
extern gboolean sp_guard_need_fence;

void sp_guard_init (void);
SpGuardThread *sp_guard_register (void);
/* Waits (without holding any lock a hook takes) until every thread inside
 * a guarded section when it was called has left it. The caller must not be
 * inside one itself. */
void sp_guard_synchronize (void);

static inline void
sp_guard_enter (void)
{
  SpGuardThread *g = sp_guard_self;

  if (G_UNLIKELY (g == NULL))
    g = sp_guard_register ();
  if (g->depth++ == 0) {
    __atomic_store_n (&g->seq, g->seq + 1, __ATOMIC_RELAXED);
    if (G_UNLIKELY (sp_guard_need_fence))
      __atomic_thread_fence (__ATOMIC_SEQ_CST);
    else
      __atomic_signal_fence (__ATOMIC_SEQ_CST);
  }
}

static inline void
sp_guard_leave (void)
{
  SpGuardThread *g = sp_guard_self;

  if (--g->depth == 0)
    __atomic_store_n (&g->seq, g->seq + 1, __ATOMIC_RELEASE);
}

G_END_DECLS

#endif /* __SP_GUARD_H__ */
