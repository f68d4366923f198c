/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* splatrows: the latency tables' rows. The follower (recorder/splatency.c)
 * hands out its statistics; what a row says of them (a sink is late, an
 * element's time through is work and dwell) is decided here. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "splatrows.h"
#include "sprowgst.h"
#include "spsummary.h"

/* The columns the two tables share: who and the distribution of `s`
 * (ms); how many is the caller's (frames, count). */
#define SP_LATENCY_STATS(row, le, s) G_STMT_START { \
  (row)->name = g_strdup ((le)->name); \
  (row)->pipeline = g_strdup ((le)->pipeline); \
  (row)->mean_ms = (s)->mean; \
  (row)->median_ms = stage_stats_median (s); \
  (row)->p90_ms = stage_stats_p90 (s); \
  (row)->p99_ms = stage_stats_p99 (s); \
  (row)->max_ms = (s)->max; \
} G_STMT_END

static GstStructure *
sink_row (const SpLatencyStat * le)
{
  const StageStats *s = &le->e2e;
  SpLatencyRow *row = sp_row_new (&sp_latency_kind);

  SP_LATENCY_STATS (row, le, s);
  row->frames = s->count;
  if (le->unmatched > 0)
    row->unmatched = le->unmatched;
  if (le->render.count > 0) {
    row->render_median_ms = stage_stats_median (&le->render);
    row->render_p99_ms = stage_stats_p99 (&le->render);
  }
  if (le->reported) {
    row->live = le->live;
    row->reported_min_ms = le->rmin / 1e6;
    if (GST_CLOCK_TIME_IS_VALID (le->rmax))
      row->reported_max_ms = le->rmax / 1e6;
    /* A live pipeline renders each frame its reported latency after its
     * capture: a frame that takes longer arrives late. Not known where no
     * frame of known origin arrived (all unmatched): no `late` then. */
    if (s->count > 0)
      row->late = le->live && stage_stats_p99 (s) > le->rmin / 1e6;
  }
  return sp_row_into_structure (&sp_latency_kind, row);
}

static GstStructure *
elem_row (const SpLatencyStat * le, gdouble work)
{
  const StageStats *s = &le->through;
  SpElemLatencyRow *row = sp_row_new (&sp_elem_latency_kind);

  SP_LATENCY_STATS (row, le, s);
  row->count = s->count;
  /* Work: its self time; dwell: the rest of its time through, waiting
   * inside (a queue's buffering, a decoder's reorder delay). */
  if (le->unmatched > 0)
    row->unmatched = le->unmatched;
  if (isnan (work) && le->is_queue)
    work = 0.0;
  if (!isnan (work)) {
    row->work_ms = MIN (work, s->mean);
    row->dwell_ms = MAX (s->mean - work, 0.0);
  }
  return sp_row_into_structure (&sp_elem_latency_kind, row);
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
