/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* splatrows: the latency tables' rows, from what the latency follower
 * measured (recorder/splatency.h). */
#ifndef __SP_LATROWS_H__
#define __SP_LATROWS_H__

#include <gst/gst.h>

#include "splatency.h"

G_BEGIN_DECLS

/* An element's mean self time a buffer (ms; NAN where unknown), by its
 * name and its pipeline's, as the summary's rows spell them. */
typedef gdouble (*SpLatencyWork) (const gchar * name, const gchar * pipeline,
    gpointer data);

/* Appends to `sink_rows` a "latency" row per sink and to `elem_rows` an
 * "element-latency" row per element a frame went through (the schema's
 * tables), for the elements of `pipeline` (NULL: all). */
void sp_summary_latency_rows (SpLatency * l, gpointer pipeline,
    SpLatencyWork work, gpointer work_data, GValue * sink_rows,
    GValue * elem_rows);

G_END_DECLS

#endif /* __SP_LATROWS_H__ */
