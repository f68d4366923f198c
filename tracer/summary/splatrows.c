/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* splatrows: the latency tables' rows. The follower (recorder/splatency.c)
 * hands out its statistics; what a row says of them (a sink is late, an
 * element's time through is work and dwell) is decided here. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "splatrows.h"
#include "spsummary.h"

/* The columns the two tables share: who, how many, and the distribution
 * of `s` (ms). */
static GstStructure *
stats_row (const gchar * kind, const gchar * count_key,
    const SpLatencyStat * le, const StageStats * s)
{
  return gst_structure_new (kind,
      "name", G_TYPE_STRING, le->name,
      "pipeline", G_TYPE_STRING, le->pipeline,
      count_key, G_TYPE_UINT64, (guint64) s->count,
      "mean_ms", G_TYPE_DOUBLE, s->mean,
      "median_ms", G_TYPE_DOUBLE, stage_stats_median (s),
      "p90_ms", G_TYPE_DOUBLE, stage_stats_p90 (s),
      "p99_ms", G_TYPE_DOUBLE, stage_stats_p99 (s),
      "max_ms", G_TYPE_DOUBLE, s->max, NULL);
}

static GstStructure *
sink_row (const SpLatencyStat * le)
{
  const StageStats *s = &le->e2e;
  GstStructure *row = stats_row ("latency", "frames", le, s);

  if (le->unmatched > 0)
    gst_structure_set (row, "unmatched", G_TYPE_UINT64, le->unmatched, NULL);
  if (le->render.count > 0)
    gst_structure_set (row,
        "render_median_ms", G_TYPE_DOUBLE, stage_stats_median (&le->render),
        "render_p99_ms", G_TYPE_DOUBLE, stage_stats_p99 (&le->render), NULL);
  if (le->reported) {
    gst_structure_set (row, "live", G_TYPE_BOOLEAN, le->live,
        "reported_min_ms", G_TYPE_DOUBLE, le->rmin / 1e6, NULL);
    if (GST_CLOCK_TIME_IS_VALID (le->rmax))
      gst_structure_set (row, "reported_max_ms", G_TYPE_DOUBLE,
          le->rmax / 1e6, NULL);
    /* A live pipeline renders each frame its reported latency after its
     * capture: a frame that takes longer arrives late. Not known where no
     * frame of known origin arrived (all unmatched): no `late` then. */
    if (s->count > 0)
      gst_structure_set (row, "late", G_TYPE_BOOLEAN, le->live
          && stage_stats_p99 (s) > le->rmin / 1e6, NULL);
  }
  return row;
}

static GstStructure *
elem_row (const SpLatencyStat * le, gdouble work)
{
  const StageStats *s = &le->through;
  GstStructure *row = stats_row ("element-latency", "count", le, s);

  /* Work: its self time; dwell: the rest of its time through, waiting
   * inside (a queue's buffering, a decoder's reorder delay). */
  if (le->unmatched > 0)
    gst_structure_set (row, "unmatched", G_TYPE_UINT64, le->unmatched, NULL);
  if (isnan (work) && le->is_queue)
    work = 0.0;
  if (!isnan (work))
    gst_structure_set (row, "work_ms", G_TYPE_DOUBLE, MIN (work, s->mean),
        "dwell_ms", G_TYPE_DOUBLE, MAX (s->mean - work, 0.0), NULL);
  return row;
}

void
sp_summary_latency_rows (SpLatency * l, gpointer pipeline,
    SpLatencyWork work, gpointer work_data, GValue * sink_rows,
    GValue * elem_rows)
{
  GArray *stats = sp_latency_stats (l, pipeline);

  for (guint i = 0; i < stats->len; i++) {
    const SpLatencyStat *le = &g_array_index (stats, SpLatencyStat, i);

    if (le->is_sink)
      sp_summary_take_row (sink_rows, sink_row (le));
    else
      sp_summary_take_row (elem_rows, elem_row (le, work (le->name, le->pipeline,
                  work_data)));
  }
  g_array_free (stats, TRUE);
}
