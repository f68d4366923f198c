/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageStride: the stagestride element (see gststagestride.c). */
#ifndef __GST_STAGE_STRIDE_H__
#define __GST_STAGE_STRIDE_H__

#include "gststageselector.h"

G_BEGIN_DECLS

#define GST_TYPE_STAGE_STRIDE (gst_stage_stride_get_type ())
G_DECLARE_FINAL_TYPE (GstStageStride, gst_stage_stride, GST, STAGE_STRIDE,
    GstStageSelector)

GST_ELEMENT_REGISTER_DECLARE (stagestride);

G_END_DECLS

#endif /* __GST_STAGE_STRIDE_H__ */
