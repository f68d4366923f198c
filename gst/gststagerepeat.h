/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageRepeat: the stagerepeat element (see gststagerepeat.c). */
#ifndef __GST_STAGE_REPEAT_H__
#define __GST_STAGE_REPEAT_H__

#include "gststagerepeatbase.h"

G_BEGIN_DECLS

#define GST_TYPE_STAGE_REPEAT (gst_stage_repeat_get_type ())
G_DECLARE_FINAL_TYPE (GstStageRepeat, gst_stage_repeat, GST, STAGE_REPEAT,
    GstStageRepeatBase)

GST_ELEMENT_REGISTER_DECLARE (stagerepeat);

G_END_DECLS

#endif /* __GST_STAGE_REPEAT_H__ */
