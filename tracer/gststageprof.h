/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof: per-element time, queue occupancy and waits, as a Chrome trace
 * and summary tables. See docs/tracer.md. */
#ifndef __GST_STAGE_PROF_H__
#define __GST_STAGE_PROF_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_STAGE_PROF (gst_stage_prof_get_type ())
G_DECLARE_FINAL_TYPE (GstStageProf, gst_stage_prof, GST, STAGE_PROF, GstTracer)

G_END_DECLS

#endif /* __GST_STAGE_PROF_H__ */
