/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageGather: the stagegather element (see gststagegather.c). */
#ifndef __GST_STAGE_GATHER_H__
#define __GST_STAGE_GATHER_H__

#include "gststageselector.h"

G_BEGIN_DECLS

#define GST_TYPE_STAGE_GATHER (gst_stage_gather_get_type ())
G_DECLARE_FINAL_TYPE (GstStageGather, gst_stage_gather, GST, STAGE_GATHER,
    GstStageSelector)

GST_ELEMENT_REGISTER_DECLARE (stagegather);

G_END_DECLS

#endif /* __GST_STAGE_GATHER_H__ */
