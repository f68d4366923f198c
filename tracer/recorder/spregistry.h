/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spregistry: the recorder (its settings and lifecycle) and its registry
 * of pipelines, runs, elements and threads: the cold path, under the
 * recorder lock. docs/tracer.md describes what it records.
 */
#ifndef __SP_REGISTRY_H__
#define __SP_REGISTRY_H__

#include <gst/gst.h>

#include "sprecorder.h"
#include "sptrace.h"

G_BEGIN_DECLS

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

/* GPU work of `element` for one frame, [start_ts, end_ts] in hook time
 * (any thread; takes the recorder lock): counted for its summary rows and
 * drawn on its pipeline's GPU track. */
void sp_record_gpu (SpRecorder * r, gpointer element, guint64 start_ts, guint64 end_ts);

/* Cold path. */
void sp_record_flush_stop (SpRecorder * r, guint64 ts, GstPad * srcpad);
void sp_record_state_changed (SpRecorder * r, guint64 ts, GstElement * element, GstStateChange transition);
void sp_record_element_destroyed (SpRecorder * r, gpointer element);
void sp_record_pad_destroyed (SpRecorder * r, gpointer pad);

/* `pipeline` arguments of the recorder: a top-level pipeline (or lone
 * element), NULL for all of them, or SP_RECORDER_PENDING for those not
 * marked summarized. */
#define SP_RECORDER_PENDING ((gpointer) 1)

void sp_recorder_mark_summarized (SpRecorder * r, gpointer pipeline, gboolean summarized);

/* latency=true: the frame follower (splatency.h, which starts it with
 * sp_recorder_enable_latency); NULL until then. */
SpLatency *sp_recorder_latency (SpRecorder * r);

/* For the hot path and the other parts of the recorder. */
SpElemInfo *sp_info_get (SpRecorder * r, GstElement * e);
/* A name escaped for tables (control characters, bytes not UTF-8), from
 * the recorder's table of names with a reference the caller drops with
 * sp_names_unref (r->names, ...) (r->lock held; interned, never freed,
 * when `r` is NULL): what the summary's rows carry. */
const gchar *sp_display_name (SpRecorder * r, const gchar * name);
gboolean sp_is_capsfilter (GstElement * e);
/* An element's name in every table: its path below its top-level pipeline
 * ("vconv/conv"), escaped, referenced as sp_display_name(). */
const gchar *sp_element_path (SpRecorder * r, GstElement * e);
void sp_limbo_collect_locked (SpRecorder * r);
/* Names the trace process of the pipeline's current run ("NAME", or
 * "NAME (run N)" after a restart). r->lock held. */
void sp_pipe_name_process (SpRecorder * r, SpPipe * p);
/* What a sink's input is (SpElemInfo.sink_media). */
void sp_read_sink_media (SpElemInfo * info, GstElement * e);
/* The recorders alive, for threads that exit after theirs: while
 * sp_live_lock() is held, a recorder sp_recorder_is_live() says is alive
 * is not freed. */
void sp_live_lock (void);
void sp_live_unlock (void);
gboolean sp_recorder_is_live (SpRecorder * r);

G_END_DECLS

#endif /* __SP_REGISTRY_H__ */
