/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the fan-in half of stagebin (internal element). */
#ifndef __GST_STAGE_REORDER_H__
#define __GST_STAGE_REORDER_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_STAGE_REORDER (gst_stage_reorder_get_type ())
G_DECLARE_FINAL_TYPE (GstStageReorder, gst_stage_reorder, GST,
    STAGE_REORDER, GstElement)

GstPad *gst_stage_reorder_add_input (GstStageReorder * self);

/* @pad (a replica queue's source pad) stopping with a fatal flow means
 * the replica feeding @input is dead; waiting inputs then give up. */
void gst_stage_reorder_watch_pad (GstStageReorder * self, GstPad * input,
    GstPad * pad);

G_END_DECLS

#endif /* __GST_STAGE_REORDER_H__ */
