/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spdiff: two profiles side by side, element by element (matched by element
 * path), with changes marked where they exceed the run-to-run noise. */
#ifndef __SP_DIFF_H__
#define __SP_DIFF_H__

#include "spreport.h"
#include "spshow.h"

G_BEGIN_DECLS

typedef enum { SP_CHANGE_NOISE = 0, SP_CHANGE_SLOWER = 1,
  SP_CHANGE_FASTER = -1 } SpChange;

typedef struct
{
  const SpElemRow *a, *b;
  gdouble d_mean_pct, d_p90_pct, d_total_pct;
  /* Its workers' CPU per buffer (a codec's threads), NAN without; and the
   * change of that alone. `change` is the element's: its own thread's
   * time, else its workers'. */
  gdouble d_workers_pct;
  SpChange workers_change;
  SpChange change;
} SpDiffElem;

typedef struct
{
  const SpProfile *a, *b;       /* the first run of each side */
  GPtrArray *runs_a, *runs_b;   /* const SpProfile*: every run, a / b first */
  GArray *elems;                /* SpDiffElem, by |total change|, largest first */
  GPtrArray *only_a, *only_b;   /* const SpElemRow* */
  GPtrArray *threads;           /* pairs: a, b (either may be NULL) */
  GPtrArray *queues;            /* pairs: a, b (either may be NULL) */
  GPtrArray *latency;           /* SpLatencyRow pairs, as threads */
  GPtrArray *element_latency;   /* SpElemLatencyRow pairs, as threads */
} SpDiff;

SpDiff *sp_diff_new (const SpProfile * a, const SpProfile * b);
/* Several runs per side (each side's runs of one setting): rows shown are
 * those of each side's first run; an element counts as changed only when
 * its per-run values (median per buffer, else mean) of the two sides do
 * not overlap, and the ratio of the sides' medians exceeds the largest
 * ratio between runs of one side (max / min: what the machine's noise
 * does to runs of the same setting), 5 % and 10 us per buffer. With 5
 * runs a side, lognormal noise of 10-20 % gives a false mark about once
 * in 500 elements and finds a 2x change 70-100 % of the time. With one run on
 * a side, sp_diff_judge() decides. */
SpDiff *sp_diff_new_runs (GPtrArray * runs_a, GPtrArray * runs_b);
/* The share of the run's thread time spent waiting for a CPU (the mean of
 * its threads'), NAN where the input does not say: how loaded the machine
 * was. */
gdouble sp_diff_cpu_wait_pct (const SpProfile * p);
void sp_diff_free (SpDiff * d);

/* Whether the typical per-buffer time changed beyond the noise, judged
 * from the element's own spread in the two runs. The change of the median
 * (of the mean where an input has no median) must exceed 3 standard errors
 * of the difference and half the spread, and also 5 % and 10 us per buffer
 * (the tracer's own jitter). The spread is the larger of the two runs' core
 * spreads, min (P90 - median, median - min): a loaded machine gives per-
 * buffer times a long tail of preempted buffers, which moves a mean and a
 * standard deviation a lot and a median not at all. Without medians, the
 * larger standard deviation; without any spread (one sample), a change of
 * 20 % or more counts. */
#define SP_DIFF_MIN_PCT 5.0
#define SP_DIFF_MIN_MS 0.010
/* From one run a side, an element's workers' CPU per buffer counts as
 * changed past this (%): no spread is known. */
#define SP_DIFF_WORKERS_PCT 20.0
SpChange sp_diff_judge (const SpElemRow * a, const SpElemRow * b);

gchar *sp_diff_render (const SpDiff * d, SpFormat format);

/* Elements judged SLOWER (or called more than `pct` % more often) whose
 * total self time grew by more than `pct` %,
 * and by at least `min_share` % of the larger run's total self time (tiny elements
 * double by chance: a capsfilter going from 1 to 2 us is no regression). Appends one line per element to `why`;
 * returns how many. */
guint sp_diff_regressions (const SpDiff * d, gdouble pct, gdouble min_share,
    GString * why);

G_END_DECLS

#endif /* __SP_DIFF_H__ */
