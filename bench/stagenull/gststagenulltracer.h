/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageNullTracer: stageprof's hooks with empty bodies, the floor of
 * GStreamer's hook dispatch that bench/tracer.sh measures overheads against. */
#ifndef __GST_STAGE_NULL_TRACER_H__
#define __GST_STAGE_NULL_TRACER_H__

#include <gst/gst.h>
#include <gst/gsttracer.h>

G_BEGIN_DECLS

#define GST_TYPE_STAGE_NULL_TRACER (gst_stage_null_tracer_get_type ())
G_DECLARE_FINAL_TYPE (GstStageNullTracer, gst_stage_null_tracer, GST,
    STAGE_NULL_TRACER, GstTracer)

G_END_DECLS

#endif /* __GST_STAGE_NULL_TRACER_H__ */
