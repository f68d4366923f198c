/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spmetrics: a "stageprof-summary" structure as Prometheus text exposition
 * (format 0.0.4, which Prometheus and OpenMetrics scrapers both read).
 *
 * A plain function of the summary's rows (schema/spschema.h): counters,
 * gauges and summaries named after Prometheus' conventions
 * (stageprof_<what>_<unit>[_total]), labelled by pipeline, element and
 * thread. Only each pipeline's latest run is shown: a new run restarts its
 * counters, which Prometheus' rate() reads as a counter reset. The
 * endpoint that serves it is spendpoint.c; docs/tracer.md, "Monitoring a
 * running pipeline", lists every name.
 */
#ifndef __SP_METRICS_H__
#define __SP_METRICS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The content type of what sp_metrics_render() returns. */
#define SP_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* The exposition of `summary` (sp_summary_build over every pipeline).
 * `cores_used`: the process's CPU time per wall second over the last
 * stretch the caller measured, or a negative number when not known yet. */
gchar *sp_metrics_render (const GstStructure * summary, gdouble cores_used);

G_END_DECLS

#endif /* __SP_METRICS_H__ */
