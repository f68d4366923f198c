/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageRepeatBase: base class of stagerepeat and stagerepeatnull. It owns
 * the `repeat` property, the counters, caps (framerate * repeat) and the
 * slot timing; a subclass only says whether the positions after the first
 * carry the frame again (Repeat) or are empty (RepeatNull: a GAP event).
 */
#ifndef __GST_STAGE_REPEAT_BASE_H__
#define __GST_STAGE_REPEAT_BASE_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_STAGE_REPEAT_BASE (gst_stage_repeat_base_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstStageRepeatBase, gst_stage_repeat_base, GST,
    STAGE_REPEAT_BASE, GstBaseTransform)

/**
 * GstStageRepeatBaseClass:
 * @null_fill: FALSE: every position gets the frame (Scanner's Repeat);
 *   TRUE: the first position gets it and one GAP event covers the others
 *   (Scanner's RepeatNull).
 */
struct _GstStageRepeatBaseClass
{
  GstBaseTransformClass parent_class;

  gboolean null_fill;

  gpointer _gst_reserved[GST_PADDING];
};

/* Null positions covered by GAP events since start (stagerepeatnull). */
guint64 gst_stage_repeat_base_get_nulls (GstStageRepeatBase * self);

G_END_DECLS

#endif /* __GST_STAGE_REPEAT_BASE_H__ */
