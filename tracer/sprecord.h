/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sprecord: stageprof's per-thread recording and accounting.
 *
 * Streaming threads call the sp_record_* hot-path functions from the tracer
 * hooks. Each thread keeps its own state (a stack of open chain/pull
 * invocations, a cache of element records) in thread-local storage, and
 * each (element, thread) pair has its own record written by that thread
 * only, so the hot path needs no lock. Records are created on first sight
 * (the cold path) in a registry protected by a mutex; queue records, which
 * two threads update (the producer putting, the queue's task getting), carry
 * their own small mutex.
 *
 * sp_recorder_summary() turns the records into the "stageprof-summary"
 * GstStructure documented in docs/tracer.md.
 */
#ifndef __SP_RECORD_H__
#define __SP_RECORD_H__

#include <gst/gst.h>

#include "sptrace.h"

G_BEGIN_DECLS

typedef struct _SpRecorder SpRecorder;

SpRecorder *sp_recorder_new (void);
void        sp_recorder_free (SpRecorder * r);

/* Settings; cheap to change at any time. */
void        sp_recorder_set_skip_first (SpRecorder * r, guint n);
/* NULL clears the filter. Only matching elements get trace slices. */
void        sp_recorder_set_filter (SpRecorder * r, GRegex * filter);
/* The trace the hot path records into, or NULL. The recorder does not own
 * it; the caller keeps a replaced trace alive until sp_recorder_free()
 * because a streaming thread may still be inside sp_trace_slice(). On
 * setting, process and thread names already known are written to it. */
void        sp_recorder_set_trace (SpRecorder * r, SpTrace * trace);

/* Forget all statistics (the `reset` action); names and threads stay. */
void        sp_recorder_reset (SpRecorder * r);

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

/* GPU work of `element` for one frame, [start_ts, end_ts] in hook time
 * (any thread; takes the recorder lock): counted for its summary rows and
 * drawn on its pipeline's GPU track. */
void sp_record_gpu (SpRecorder * r, gpointer element, guint64 start_ts, guint64 end_ts);

/* Cold path. */
/* Reads now the CPU time of every thread of the process: before an
 * element stops and joins its threads (a codec's workers). */
void sp_threads_refresh (SpRecorder * r);
void sp_record_flush_stop (SpRecorder * r, guint64 ts, GstPad * srcpad);
void sp_record_state_changed (SpRecorder * r, guint64 ts, GstElement * element, GstStateChange transition);
void sp_record_element_destroyed (SpRecorder * r, gpointer element);
void sp_record_pad_destroyed (SpRecorder * r, gpointer pad);

/* `pipeline` arguments below: a top-level pipeline (or lone element), NULL
 * for all of them, or SP_RECORDER_PENDING for those not marked summarized. */
#define SP_RECORDER_PENDING ((gpointer) 1)

/* Whether any record belongs to `pipeline`. */
gboolean sp_recorder_has_data (SpRecorder * r, gpointer pipeline);
void sp_recorder_mark_summarized (SpRecorder * r, gpointer pipeline, gboolean summarized);

/* The "stageprof-summary" structure for one top-level pipeline, or for
 * every pipeline when `pipeline` is NULL. */
GstStructure *sp_recorder_summary (SpRecorder * r, gpointer pipeline, gboolean final);

/* The run a pipeline's own summary is about (the one going on, or the one
 * that just stopped); 0 for a pipeline never seen. */
gint sp_recorder_latest_run (SpRecorder * r, gpointer pipeline);

/* Name of the top-level pipeline as the trace knows it (for messages). */
gchar *sp_recorder_pipeline_name (SpRecorder * r, gpointer pipeline);

G_END_DECLS

#endif /* __SP_RECORD_H__ */
