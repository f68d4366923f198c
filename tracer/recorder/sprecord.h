/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sprecord: stageprof's hot path, one call per tracer hook.
 *
 * Each streaming thread keeps its own state (a stack of open chain/pull
 * invocations, a cache of element records) in thread-local storage, and
 * each (element, thread) pair has its own record written by that thread
 * only, so the hot path needs no lock. Records are created on first sight
 * in the registry (spregistry.h), under its mutex; queue records, which
 * two threads update (the producer putting, the queue's task getting),
 * carry their own small mutex (spqueue.h).
 */
#ifndef __SP_RECORD_H__
#define __SP_RECORD_H__

#include <gst/gst.h>

#include "sprecorder.h"

G_BEGIN_DECLS

/* Hot path: one call per tracer hook, `ts` from the hook. */
/* Exactly one of `buf` and `list` is set. */
void sp_record_chain_pre (SpRecorder * r, guint64 ts, GstPad * pad, GstBuffer * buf, GstBufferList * list);
void sp_record_chain_post (SpRecorder * r, guint64 ts, GstPad * pad);
void sp_record_push_pre (SpRecorder * r, guint64 ts, GstPad * pad, GstBuffer * buf, GstBufferList * list);
void sp_record_push_post (SpRecorder * r, guint64 ts, GstPad * pad);
void sp_record_pull_pre (SpRecorder * r, guint64 ts, GstPad * pad);
void sp_record_pull_post (SpRecorder * r, guint64 ts, GstPad * pad);
/* `eos`: the event is an EOS; the threads' CPU is read first (a codec
 * ending its workers when it drains), charged to nobody. */
void sp_record_event_pre (SpRecorder * r, guint64 ts, GstPad * pad, gboolean eos);
void sp_record_event_post (SpRecorder * r, guint64 ts, GstPad * pad);

/* The trace's process and thread ids of this thread's last hook (FALSE:
 * none yet): where other records of the same moment belong. */
gboolean sp_record_thread_ids (SpRecorder * r, guint * pid, guint64 * tid);

G_END_DECLS

#endif /* __SP_RECORD_H__ */
