/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spthreads: every OS thread of the process, its CPU time and its
 * run-queue delay, and which element started it. */
#ifndef __SP_THREADS_H__
#define __SP_THREADS_H__

#include <gst/gst.h>

#include "sprecorder.h"

G_BEGIN_DECLS

/* Reads now the CPU time of every thread of the process: before an
 * element stops and joins its threads (a codec's workers). */
void sp_threads_refresh (SpRecorder * r);
/* Frees an entry of r->os_threads. */
void sp_os_thread_free (gpointer data);
guint64 sp_sched_delay (guint64 tid);
guint64 sp_process_cpu_ns (void);
guint64 sp_thread_cpu_wait (SpThreadRec * th);
/* spthreads.c: every OS thread of the process. */
GstStructure *sp_os_threads (SpRecorder * r, GValue * rows);
/* Notes the threads the process has now; with an `owner`, those first
 * seen after look number `since` that thread `claimer` (a tid) started
 * become `owner`'s. Returns this look's number (not 0). Takes r->lock. */
guint32 sp_threads_claim (SpRecorder * r, SpElemInfo * owner, guint32 since,
    guint64 claimer);
/* The elements of `p` are about to be freed: their threads become
 * nobody's (their names stay). r->lock held. */
void sp_threads_forget_owners_locked (SpRecorder * r, SpPipe * p);

G_END_DECLS

#endif /* __SP_THREADS_H__ */
