/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the sink inside stagesink that writes packets or blobs into
 * a store (internal element, created with g_object_new()). */
#ifndef __GST_STAGE_STORE_WRITER_H__
#define __GST_STAGE_STORE_WRITER_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

#include "stagestore.h"

G_BEGIN_DECLS

#define GST_TYPE_STAGE_STORE_WRITER (gst_stage_store_writer_get_type ())
G_DECLARE_FINAL_TYPE (GstStageStoreWriter, gst_stage_store_writer, GST,
    STAGE_STORE_WRITER, GstBaseSink)

/* Set by stagesink before the writer starts (READY to PAUSED). */
void gst_stage_store_writer_configure (GstStageStoreWriter * self,
    const gchar * store, const gchar * stream, guint io_packet_size,
    StageStoreMode mode);

/* Opens the store and starts the write (stagesink calls it on READY to
 * PAUSED, before data flows); posts an error and returns FALSE when the
 * store cannot be opened or mode=error finds the stream. */
gboolean gst_stage_store_writer_open (GstStageStoreWriter * self);
/* Ends the write: an uncommitted one leaves nothing behind. */
void gst_stage_store_writer_close (GstStageStoreWriter * self);

/* After open: TRUE when mode=ignore found the stream committed already,
 * so nothing will be written (buffers are refused with EOS). */
gboolean gst_stage_store_writer_is_ignoring (GstStageStoreWriter * self);

/* Frames written so far (for stagesink's counter and stage-store). */
guint64 gst_stage_store_writer_get_frames (GstStageStoreWriter * self);

G_END_DECLS

#endif /* __GST_STAGE_STORE_WRITER_H__ */
