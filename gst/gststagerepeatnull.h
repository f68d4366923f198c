/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageRepeatNull: the stagerepeatnull element (see gststagerepeatnull.c). */
#ifndef __GST_STAGE_REPEAT_NULL_H__
#define __GST_STAGE_REPEAT_NULL_H__

#include "gststagerepeatbase.h"

G_BEGIN_DECLS

#define GST_TYPE_STAGE_REPEAT_NULL (gst_stage_repeat_null_get_type ())
G_DECLARE_FINAL_TYPE (GstStageRepeatNull, gst_stage_repeat_null, GST,
    STAGE_REPEAT_NULL, GstStageRepeatBase)

GST_ELEMENT_REGISTER_DECLARE (stagerepeatnull);

G_END_DECLS

#endif /* __GST_STAGE_REPEAT_NULL_H__ */
