/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stageresize, Scanner's Resize op on the CPU. */
#ifndef __GST_STAGE_RESIZE_H__
#define __GST_STAGE_RESIZE_H__

#include "gststageresizebase.h"

G_BEGIN_DECLS

#define GST_TYPE_STAGE_RESIZE (gst_stage_resize_get_type ())
G_DECLARE_FINAL_TYPE (GstStageResize, gst_stage_resize, GST, STAGE_RESIZE,
    GstStageResizeBase)

GST_ELEMENT_REGISTER_DECLARE (stageresize);

G_END_DECLS

#endif /* __GST_STAGE_RESIZE_H__ */
