/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stagesink, writes a named stream into a store. */
#ifndef __GST_STAGE_SINK_H__
#define __GST_STAGE_SINK_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_STAGE_SINK (gst_stage_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstStageSink, gst_stage_sink, GST, STAGE_SINK, GstBin)

#define GST_TYPE_STAGE_SINK_MODE (gst_stage_sink_mode_get_type ())
GType gst_stage_sink_mode_get_type (void);

GST_ELEMENT_REGISTER_DECLARE (stagesink);

G_END_DECLS

#endif /* __GST_STAGE_SINK_H__ */
