/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageSlice: the stageslice element (see gststageslice.c). */
#ifndef __GST_STAGE_SLICE_H__
#define __GST_STAGE_SLICE_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_STAGE_SLICE (gst_stage_slice_get_type ())
G_DECLARE_FINAL_TYPE (GstStageSlice, gst_stage_slice, GST, STAGE_SLICE,
    GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (stageslice);

G_END_DECLS

#endif /* __GST_STAGE_SLICE_H__ */
