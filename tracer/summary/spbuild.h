/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spbuild: the "stageprof-summary" GstStructure (docs/tracer.md), built
 * from the recorder's records; its columns are the schema's
 * (schema/spschema.h). */
#ifndef __SP_BUILD_H__
#define __SP_BUILD_H__

#include <gst/gst.h>

#include "spregistry.h"
#include "spverdict.h"

G_BEGIN_DECLS

/* `pipeline`: as for spregistry.h. */

/* Whether any record belongs to `pipeline`. */
gboolean sp_summary_has_data (SpRecorder * r, gpointer pipeline);

/* The "stageprof-summary" structure for one top-level pipeline, or for
 * every pipeline when `pipeline` is NULL. */
GstStructure *sp_summary_build (SpRecorder * r, gpointer pipeline,
    gboolean final);

/* The run a pipeline's own summary is about (the one going on, or the one
 * that just stopped); 0 for a pipeline never seen. */
gint sp_summary_latest_run (SpRecorder * r, gpointer pipeline);

/* Name of the top-level pipeline as the trace knows it (for messages). */
gchar *sp_summary_pipeline_name (SpRecorder * r, gpointer pipeline);

/* What the summary knows and slices cannot show, into the trace as
 * metadata events: each streaming thread's run-queue delay so far
 * ("stageprof_thread") and each element's worker threads and their CPU
 * time ("stageprof_workers"), for `pipeline` (as for spregistry.h).
 * Readers take the last event of each. Call after its summary (the
 * workers' figures are its). Takes r->lock. */
void sp_summary_trace_meta (SpRecorder * r, SpTrace * t,
    gpointer pipeline);

/* Consistent copies of what streaming threads write (SpThreadRec.seq),
 * taken under r->lock: what summaries and windows (spwindow.c) work on,
 * never the live records. */
typedef struct
{
  GPtrArray *threads;           /* SpThreadRec copies, owned */
  GPtrArray *elems;             /* SpElemRec copies, owned; ->thread: copy */
} SpSnapshot;

SpSnapshot *sp_snapshot_locked (SpRecorder * r);
/* The run a pipeline's own summary is about: the one going on, or the
 * one that just stopped (the next is numbered at the stop). */
gint sp_pipe_latest_run (SpPipe * p);
void sp_snapshot_free (SpSnapshot * snap);

/* Whether buffers of `media` (a caps name) are video frames, one a buffer
 * (raw or a parsed elementary stream; not a container). */
gboolean sp_media_is_video_frames (const gchar * media);

/* A thread's shares of its wall time (ns). */
void sp_summary_thread_shares (SpThreadRec * th, SpShares * out);

G_END_DECLS

#endif /* __SP_BUILD_H__ */
