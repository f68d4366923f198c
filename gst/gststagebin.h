/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stagebin, replicated queue-connected pipeline stages. */
#ifndef __GST_STAGE_BIN_H__
#define __GST_STAGE_BIN_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_STAGE_BIN (gst_stage_bin_get_type ())
G_DECLARE_FINAL_TYPE (GstStageBin, gst_stage_bin, GST, STAGE_BIN, GstBin)

GST_ELEMENT_REGISTER_DECLARE (stagebin);

/* Key of the g_object_set_data() string on each replica queue that holds
 * the full Scanner name of the thread its source pad task runs,
 * "Pipeline[i]:Ops[y]"; the kernel name (15 bytes) is a shortened form.
 * The stageprof tracer reads it from the queue that owns a thread. */
#define GST_STAGE_THREAD_NAME_KEY "stage-thread-name"

G_END_DECLS

#endif /* __GST_STAGE_BIN_H__ */
