/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageUnslice: the stageunslice element (see gststageunslice.c). */
#ifndef __GST_STAGE_UNSLICE_H__
#define __GST_STAGE_UNSLICE_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_STAGE_UNSLICE (gst_stage_unslice_get_type ())
G_DECLARE_FINAL_TYPE (GstStageUnslice, gst_stage_unslice, GST, STAGE_UNSLICE,
    GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (stageunslice);

G_END_DECLS

#endif /* __GST_STAGE_UNSLICE_H__ */
