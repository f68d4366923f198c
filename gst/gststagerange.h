/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageRange: the stagerange element (see gststagerange.c). */
#ifndef __GST_STAGE_RANGE_H__
#define __GST_STAGE_RANGE_H__

#include "gststageselector.h"

G_BEGIN_DECLS

#define GST_TYPE_STAGE_RANGE (gst_stage_range_get_type ())
G_DECLARE_FINAL_TYPE (GstStageRange, gst_stage_range, GST, STAGE_RANGE,
    GstStageSelector)

GST_ELEMENT_REGISTER_DECLARE (stagerange);

G_END_DECLS

#endif /* __GST_STAGE_RANGE_H__ */
