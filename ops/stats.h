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

/* One P2 quantile estimator. q: marker heights, n: actual marker positions,
 * np: desired positions, dn: increments of np per sample, p: the quantile,
 * count: samples seen. While count < 5, q holds the raw samples. */
typedef struct { double q[5]; double n[5]; double np[5]; double dn[5]; double p; uint64_t count; } StageP2;

typedef struct {
  uint64_t count;
  double mean, m2, min, max, total, last;
  StageP2 p50, p90, p99;
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

#ifdef __cplusplus
}
#endif

#endif /* __STAGE_STATS_H__ */
