/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the source inside stagesrc that reads a stored stream
 * (internal element, created with g_object_new()). */
#ifndef __GST_STAGE_STORE_SRC_H__
#define __GST_STAGE_STORE_SRC_H__

#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>

#include "select.h"
#include "stagestore.h"

G_BEGIN_DECLS

#define GST_TYPE_STAGE_STORE_SRC (gst_stage_store_src_get_type ())
G_DECLARE_FINAL_TYPE (GstStageStoreSrc, gst_stage_store_src, GST,
    STAGE_STORE_SRC, GstPushSrc)

/* Opens the store and reads the stream's index (stagesrc calls this on
 * READY to PAUSED, before the reader starts, to know what to plug).
 * Takes @select. @decode: feed a decoder, whose output must then pass
 * through gst_stage_store_src_output(). */
gboolean gst_stage_store_src_open (GstStageStoreSrc * self,
    const gchar * store, const gchar * stream, StageSelect * select,
    gboolean decode, gboolean warn_missing, GError ** error);
/* After open, before the reader starts: whether the plugged decoder
 * copes with unwanted non-reference pictures left out (stagesrc decides,
 * docs/stagesrc.md); without it every packet of an interval is fed. */
void gst_stage_store_src_allow_skipping (GstStageStoreSrc * self,
    gboolean allow);
/* After open: whether the read decodes from the stream's first keyframe
 * and that is an H.265 keyframe that is not an IDR (a CRA or BLA: a cut
 * recording), where gst-libav 1.24+ with frame threads loses a picture
 * now and then (stagesrc then decodes with one thread, docs/store.md). */
gboolean gst_stage_store_src_starts_at_h265_cra (GstStageStoreSrc * self);
/* After open: the stream (owned by the reader). */
const StageStreamInfo *gst_stage_store_src_get_info (GstStageStoreSrc * self);
void gst_stage_store_src_close (GstStageStoreSrc * self);

/* For the decoder's output, in the streaming thread: TRUE keeps *@buf
 * (made writable, its timestamps and offset set from the store), FALSE
 * drops it. *@gap: a GAP event to push before the kept frame, or NULL.
 * Reports selected frames that the decoder skipped. */
gboolean gst_stage_store_src_output (GstStageStoreSrc * self,
    GstBuffer ** buf, GstEvent ** gap);
/* At the decoder's EOS: reports the selected frames that never came out
 * (an error, or a warning with on-missing=warn). FALSE after an error. */
gboolean gst_stage_store_src_finish (GstStageStoreSrc * self);
/* In the streaming thread: whether the read stopped on an error (a read
 * error, or a missing frame with on-missing=error). */
gboolean gst_stage_store_src_failed (GstStageStoreSrc * self);
/* Whether @event is one of the flushes the reader sends its decoder
 * between decode intervals (not to go further downstream). */
gboolean gst_stage_store_src_is_internal (GstStageStoreSrc * self,
    GstEvent * event);

guint64 gst_stage_store_src_get_out (GstStageStoreSrc * self);
/* Selected frames skipped with on-missing=warn. */
guint64 gst_stage_store_src_get_missing (GstStageStoreSrc * self);
/* Packets left out of the decode (unwanted non-reference pictures). */
guint64 gst_stage_store_src_get_skipped (GstStageStoreSrc * self);

G_END_DECLS

#endif /* __GST_STAGE_STORE_SRC_H__ */
