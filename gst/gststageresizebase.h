/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: size and caps negotiation shared by the resize elements.
 *
 * GstStageResizeBase owns the properties that decide the output size
 * (width, height, preserve-aspect, only-shrink) and the method, negotiates
 * like videoscale, and turns passthrough on when nothing changes. Subclasses
 * (the CPU `stageresize`, later a CUDA one) chain up in set_info and do the
 * pixels in transform_frame.
 */
#ifndef __GST_STAGE_RESIZE_BASE_H__
#define __GST_STAGE_RESIZE_BASE_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

#include "resize.h"

G_BEGIN_DECLS

#define GST_TYPE_STAGE_RESIZE_METHOD (gst_stage_resize_method_get_type ())
GType gst_stage_resize_method_get_type (void);

#define GST_TYPE_STAGE_RESIZE_BASE (gst_stage_resize_base_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstStageResizeBase, gst_stage_resize_base,
    GST, STAGE_RESIZE_BASE, GstVideoFilter)

struct _GstStageResizeBaseClass
{
  GstVideoFilterClass parent_class;

  /* FALSE and @error when a property holds a value outside what it allows
   * (the param specs take any, see gst_stage_check_uint_prop); checked at
   * start and, for the properties changeable while playing, at every
   * buffer. Subclasses chain up. */
  gboolean (*check_settings) (GstStageResizeBase * self, GError ** error);

  gpointer _gst_reserved[GST_PADDING];
};

/* The method now selected (the property may change while playing). */
StageResizeMethod gst_stage_resize_base_get_method (GstStageResizeBase * self);

G_END_DECLS

#endif /* __GST_STAGE_RESIZE_BASE_H__ */
