/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Streaming statistics in constant memory, for the stageprof tracer.
 *
 * Plain C, no GLib: the tracer calls stage_stats_add() from streaming
 * threads on every buffer, so it is O(1), allocation-free and lock-free
 * (the caller owns the StageStats and serialises access to it).
 *
 * Mean and variance use Welford's update, which stays accurate where the
 * naive sum-of-squares cancels catastrophically (many samples of similar
 * size, as per-buffer times are). Quantiles use the P2 estimator of Jain and
 * Chlamtac (1985): five markers per quantile, no stored samples. P2 is exact
 * while count <= 5 (the markers are then the samples themselves).
 */
#ifndef __STAGE_STATS_H__
#define __STAGE_STATS_H__

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One P2 quantile estimator. q: marker heights, n: actual marker positions
 * (n[0] stays 1; n[4], which is count, is only brought up to date where a
 * marker moves), np and dn: desired positions of the middle markers 1..3
 * and their increments per sample (the outer markers' are never read), p:
 * the quantile, count: samples seen. While count < 5, q holds the raw
 * samples. */
typedef struct { double q[5]; double n[5]; double np[3]; double dn[3]; uint64_t count; double p; } StageP2;

/* StageStats' three estimators (p50, p90, p99) side by side, one lane each:
 * they see the same samples, so one pass of vector instructions updates all
 * three. The same fields as StageP2, indexed [marker][lane]; the fourth lane
 * only pads the rows to whole SSE2 registers and is never read. */
typedef struct {
  double q[5][4], n[5][4], np[3][4], dn[3][4], p[4];
} StageP2Lanes;

typedef struct {
  uint64_t count;
  double mean, m2, min, max, total, last;
  StageP2Lanes quant;          /* count is theirs too */
} StageStats;

void   stage_stats_init   (StageStats *s);
void   stage_stats_add    (StageStats *s, double x);     /* O(1), no allocation */
double stage_stats_std    (const StageStats *s);          /* sample std (n-1), 0 when count < 2 */
double stage_stats_median (const StageStats *s);          /* P2 estimate; exact when count <= 5 */
double stage_stats_p90    (const StageStats *s);
double stage_stats_p99    (const StageStats *s);

/* The building blocks, for callers that want another quantile. */
void   stage_p2_init     (StageP2 *e, double p);
void   stage_p2_add      (StageP2 *e, double x);
double stage_p2_estimate (const StageP2 *e);              /* 0 when empty */

/* A log-linear histogram of durations in nanoseconds, for quantiles of a
 * time window: the tracer keeps cumulative bucket counts on the hot path
 * (one increment, no reset that could race the writer) and a window's
 * quantiles come from the difference of two copies. Eight linear buckets
 * of 128 ns below 1.024 us, then eight buckets per octave up to 2^36 ns
 * (69 s; longer samples go in the last bucket): a quantile read from it,
 * interpolated inside its bucket, is within one bucket width (under 9 %
 * of the value) of the exact one. */
#define STAGE_HIST_BUCKETS 224

static inline unsigned
stage_hist_bucket (uint64_t ns)
{
  unsigned e, idx;

  if (ns < 1024)
    return (unsigned) (ns >> 7);
  e = 63u - (unsigned) __builtin_clzll (ns);
  idx = 8u + (e - 10u) * 8u + (unsigned) ((ns >> (e - 3u)) & 7u);
  return idx < STAGE_HIST_BUCKETS ? idx : STAGE_HIST_BUCKETS - 1;
}

/* The bounds [lo, hi) of bucket `idx` in ns. */
void     stage_hist_bounds   (unsigned idx, double *lo, double *hi);
/* Quantile p (0..1) of the samples in `counts` (STAGE_HIST_BUCKETS of
 * them), in ns; 0 when there are none. */
double   stage_hist_quantile (const uint64_t *counts, double p);

#ifdef __cplusplus
}
#endif

#endif /* __STAGE_STATS_H__ */
