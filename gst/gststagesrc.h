/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stagesrc, reads frames of a named stream from a store. */
#ifndef __GST_STAGE_SRC_H__
#define __GST_STAGE_SRC_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_STAGE_SRC (gst_stage_src_get_type ())
G_DECLARE_FINAL_TYPE (GstStageSrc, gst_stage_src, GST, STAGE_SRC, GstBin)

GST_ELEMENT_REGISTER_DECLARE (stagesrc);

G_END_DECLS

#endif /* __GST_STAGE_SRC_H__ */
