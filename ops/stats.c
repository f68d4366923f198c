/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Welford mean/variance and P2 quantiles; see stats.h for why these two.
 *
 * stage_stats_add() is on stageprof's per-buffer path, so its P2 part is
 * laid out for speed: the three estimators are the lanes of StageP2Lanes
 * and one pass of branch-free code (SSE2 on x86-64) updates them all; the
 * divisions of P2's marker adjustment run only for an estimator where a
 * marker has a whole step to go, and no libm function is called. The arithmetic and its
 * order are the paper's, as stage_p2_add() does them, so the estimates are
 * the same to the bit (tests/test_ops_stats.c checks this). */
#include "stats.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Keeps the rare paths out of stage_stats_add, which inlines the common
 * one. */
#if defined(__GNUC__)
#define STATS_NOINLINE __attribute__ ((noinline))
#define STATS_ALWAYS_INLINE __attribute__ ((always_inline))
#else
#define STATS_NOINLINE
#define STATS_ALWAYS_INLINE
#endif

/* The marker arithmetic, on arrays with a stride: 1 for a StageP2, the
 * lane count for StageP2Lanes. */
#define Q(i) q[(i) * st]
#define N(i) n[(i) * st]

/* Exact quantile of the (at most five) raw samples, linear interpolation at
 * rank p * (count - 1), the same definition as numpy's default, so a short
 * run reports what a spreadsheet would. */
static double
p2_exact (const double *q, ptrdiff_t st, unsigned c, double p)
{
  double v[5], rank, frac;
  unsigned i, j, lo;

  if (c == 0)
    return 0.0;
  for (i = 0; i < c; i++) {
    double x = Q (i);
    for (j = i; j > 0 && v[j - 1] > x; j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
  rank = p * (double) (c - 1);
  lo = (unsigned) rank;
  if (lo + 1 >= c)
    return v[c - 1];
  frac = rank - (double) lo;
  return v[lo] + frac * (v[lo + 1] - v[lo]);
}

/* The fifth sample: sort the samples into the markers and place the desired
 * positions (1-based, as in the paper). */
static STATS_NOINLINE void
p2_start (double *q, double *n, double *np, double *dn, ptrdiff_t st,
    double p)
{
  int i, j;

  for (i = 1; i < 5; i++) {
    double x = Q (i);
    for (j = i; j > 0 && Q (j - 1) > x; j--)
      Q (j) = Q (j - 1);
    Q (j) = x;
  }
  for (i = 0; i < 5; i++)
    N (i) = i + 1;
  np[0] = 1.0 + 2.0 * p;
  np[st] = 1.0 + 4.0 * p;
  np[2 * st] = 3.0 + 2.0 * p;
  dn[0] = p / 2.0;
  dn[st] = p;
  dn[2 * st] = (1.0 + p) / 2.0;
}

static double
p2_parabolic (const double *q, const double *n, ptrdiff_t st, int i,
    double d)
{
  return Q (i) + d / (N (i + 1) - N (i - 1)) *
      ((N (i) - N (i - 1) + d) * (Q (i + 1) - Q (i)) / (N (i + 1) - N (i)) +
      (N (i + 1) - N (i) - d) * (Q (i) - Q (i - 1)) / (N (i) - N (i - 1)));
}

static double
p2_linear (const double *q, const double *n, ptrdiff_t st, int i, int d)
{
  return Q (i) + d * (Q (i + d) - Q (i)) / (N (i + d) - N (i));
}

/* Move middle marker i, whose desired position is a whole step or more
 * away, one step towards it, parabolically when that keeps the heights
 * monotonic, else linearly; unless the neighbour on that side is within a
 * step. The paper's test, (d >= 1 and n[i+1] - n[i] > 1) or (d <= -1 and
 * n[i-1] - n[i] < -1), with the direction picked by arithmetic rather
 * than a branch: which way a marker goes is a coin toss for the median's. */
static inline STATS_ALWAYS_INLINE void
p2_move (double *q, double *n, const double *np, ptrdiff_t st, int i)
{
  int up = np[(i - 1) * st] - N (i) > 0, s = 2 * up - 1;
  double side = N (i + s);

  if ((side - N (i)) * s > 1.0) {
    double qp = p2_parabolic (q, n, st, i, s);

    if (Q (i - 1) < qp && qp < Q (i + 1))
      Q (i) = qp;
    else
      Q (i) = p2_linear (q, n, st, i, s);
    N (i) += s;
  }
}

/* Markers in order: a marker's move changes its neighbour's room (not its
 * desired distance, so testing all three first is the same). n[4] is the
 * sample count, which the common path leaves to be set here. */
static STATS_NOINLINE void
p2_adjust (double *q, double *n, const double *np, ptrdiff_t st,
    uint64_t count)
{
  int i;

  N (4) = (double) (int64_t) count;     /* no unsigned fix-up */
  for (i = 1; i < 4; i++)
    if (fabs (np[(i - 1) * st] - N (i)) >= 1.0)
      p2_move (q, n, np, st, i);
}

#undef Q
#undef N

void
stage_p2_init (StageP2 *e, double p)
{
  memset (e, 0, sizeof (*e));
  e->p = p;
}

/* One sample past the fifth. The paper's cell search (below q[0], at or
 * above q[4], else a loop up the middle markers) becomes chained
 * comparisons that each say whether a marker's position moves up one; they
 * count as the search would even where a height is NaN, as one becomes
 * when infinite samples meet. A middle marker can only move where its
 * desired position is a whole step from its position, which three
 * subtractions show; where none is, p2_adjust is skipped. */
void
stage_p2_add (StageP2 *e, double x)
{
  double *q = e->q, *n = e->n;
  int lt0, ge4, ge1, ge2, ge3, i;

  if (e->count < 5) {
    q[e->count++] = x;
    if (e->count == 5)
      p2_start (q, n, e->np, e->dn, 1, e->p);
    return;
  }
  e->count++;
  lt0 = x < q[0];
  ge4 = x >= q[4];
  ge1 = !lt0 && (ge4 || x >= q[1]);
  ge2 = ge1 && (ge4 || x >= q[2]);
  ge3 = ge2 && (ge4 || x >= q[3]);
  q[0] = lt0 ? x : q[0];
  q[4] = x > q[4] ? x : q[4];
  n[1] += !ge1;
  n[2] += !ge2;
  n[3] += !ge3;
  for (i = 0; i < 3; i++)
    e->np[i] += e->dn[i];
  for (i = 0; i < 3; i++)
    if (fabs (e->np[i] - n[i + 1]) >= 1.0)
      break;
  if (i < 3)
    p2_adjust (q, n, e->np, 1, e->count);
}

double
stage_p2_estimate (const StageP2 *e)
{
  if (e->count <= 5)
    return p2_exact (e->q, 1, (unsigned) e->count, e->p);
  return e->q[2];
}

/* ------------------------------------------------------------------ */
/* StageStats: the three estimators as lanes */

#if defined(__GNUC__)
#define ctz(m) __builtin_ctz (m)
#else
static int
ctz (unsigned m)
{
  int b = 0;

  while (!(m & 1)) {
    m >>= 1;
    b++;
  }
  return b;
}
#endif

#define LANES 4                 /* p50, p90, p99, padding */
#define LANES_USED 0x777u       /* markers 1..3 of lanes 0..2 */

static void
lanes_start (StageP2Lanes *e)
{
  int l;

  for (l = 0; l < 3; l++)
    p2_start (&e->q[0][l], &e->n[0][l], &e->np[0][l], &e->dn[0][l], LANES,
        e->p[l]);
}

/* stage_p2_add's common path for all lanes at once, with no branch: SSE2
 * (every x86-64) two lanes to an instruction, else a loop over lanes.
 * Returns bit (i - 1) * LANES + lane for each middle marker i that is a
 * whole step or more from its desired position. */
#if defined(__SSE2__)
/* Lanes l and l + 1, a bit each; stage_p2_add's steps one for one. min and
 * max are x < q0 ? x : q0 and x > q4 ? x : q4 exactly (NaN included) in
 * SSE2's definition; "x >= q" is "q <= x", NaN giving false. */
static inline STATS_ALWAYS_INLINE unsigned
lanes_pair (StageP2Lanes *e, double x, int l)
{
  const __m128d xv = _mm_set1_pd (x), one = _mm_set1_pd (1.0);
  const __m128d sign = _mm_set1_pd (-0.0);
  __m128d q0, q4, lt0, ge4, ge1, ge2, ge3;
  __m128d n1, n2, n3, np0, np1, np2, d1, d2, d3;

  q0 = _mm_loadu_pd (&e->q[0][l]);
  q4 = _mm_loadu_pd (&e->q[4][l]);
  lt0 = _mm_cmplt_pd (xv, q0);
  ge4 = _mm_cmpge_pd (xv, q4);
  ge1 = _mm_andnot_pd (lt0,
      _mm_or_pd (ge4, _mm_cmpge_pd (xv, _mm_loadu_pd (&e->q[1][l]))));
  ge2 = _mm_and_pd (ge1,
      _mm_or_pd (ge4, _mm_cmpge_pd (xv, _mm_loadu_pd (&e->q[2][l]))));
  ge3 = _mm_and_pd (ge2,
      _mm_or_pd (ge4, _mm_cmpge_pd (xv, _mm_loadu_pd (&e->q[3][l]))));
  _mm_storeu_pd (&e->q[0][l], _mm_min_pd (xv, q0));
  _mm_storeu_pd (&e->q[4][l], _mm_max_pd (xv, q4));
  n1 = _mm_add_pd (_mm_loadu_pd (&e->n[1][l]), _mm_andnot_pd (ge1, one));
  n2 = _mm_add_pd (_mm_loadu_pd (&e->n[2][l]), _mm_andnot_pd (ge2, one));
  n3 = _mm_add_pd (_mm_loadu_pd (&e->n[3][l]), _mm_andnot_pd (ge3, one));
  np0 = _mm_add_pd (_mm_loadu_pd (&e->np[0][l]), _mm_loadu_pd (&e->dn[0][l]));
  np1 = _mm_add_pd (_mm_loadu_pd (&e->np[1][l]), _mm_loadu_pd (&e->dn[1][l]));
  np2 = _mm_add_pd (_mm_loadu_pd (&e->np[2][l]), _mm_loadu_pd (&e->dn[2][l]));
  _mm_storeu_pd (&e->n[1][l], n1);
  _mm_storeu_pd (&e->n[2][l], n2);
  _mm_storeu_pd (&e->n[3][l], n3);
  _mm_storeu_pd (&e->np[0][l], np0);
  _mm_storeu_pd (&e->np[1][l], np1);
  _mm_storeu_pd (&e->np[2][l], np2);
  d1 = _mm_andnot_pd (sign, _mm_sub_pd (np0, n1));      /* fabs */
  d2 = _mm_andnot_pd (sign, _mm_sub_pd (np1, n2));
  d3 = _mm_andnot_pd (sign, _mm_sub_pd (np2, n3));
  return (unsigned) _mm_movemask_pd (_mm_cmpge_pd (d1, one)) |
      (unsigned) _mm_movemask_pd (_mm_cmpge_pd (d2, one)) << LANES |
      (unsigned) _mm_movemask_pd (_mm_cmpge_pd (d3, one)) << 2 * LANES;
}

static inline STATS_ALWAYS_INLINE unsigned
lanes_step (StageP2Lanes *e, double x)
{
  return (lanes_pair (e, x, 0) | lanes_pair (e, x, 2) << 2) & LANES_USED;
}
#else
static inline unsigned
lanes_step (StageP2Lanes *e, double x)
{
  unsigned mask = 0;
  int l;

  for (l = 0; l < LANES; l++) {
    double q0 = e->q[0][l], q4 = e->q[4][l];
    int lt0 = x < q0, ge4 = x >= q4;
    int ge1 = !lt0 && (ge4 || x >= e->q[1][l]);
    int ge2 = ge1 && (ge4 || x >= e->q[2][l]);
    int ge3 = ge2 && (ge4 || x >= e->q[3][l]);
    int k;

    e->q[0][l] = x < q0 ? x : q0;
    e->q[4][l] = x > q4 ? x : q4;
    e->n[1][l] += !ge1;
    e->n[2][l] += !ge2;
    e->n[3][l] += !ge3;
    for (k = 0; k < 3; k++) {
      e->np[k][l] += e->dn[k][l];
      if (fabs (e->np[k][l] - e->n[k + 1][l]) >= 1.0)
        mask |= 1u << (k * LANES + l);
    }
  }
  return mask & LANES_USED;
}
#endif

static double
lanes_estimate (const StageStats *s, int l)
{
  if (s->count <= 5)
    return p2_exact (&s->quant.q[0][l], LANES, (unsigned) s->count,
        s->quant.p[l]);
  return s->quant.q[2][l];
}

void
stage_stats_init (StageStats *s)
{
  memset (s, 0, sizeof (*s));
  s->quant.p[0] = 0.5;
  s->quant.p[1] = 0.9;
  s->quant.p[2] = 0.99;
}

void
stage_stats_add (StageStats *s, double x)
{
  StageP2Lanes *e = &s->quant;
  double delta;
  unsigned need;
  int l;

  s->count++;
  delta = x - s->mean;
  /* Signed: one conversion instruction, no fix-up for counts >= 2^63. */
  s->mean += delta / (double) (int64_t) s->count;
  s->m2 += delta * (x - s->mean);
  if (s->count == 1 || x < s->min)
    s->min = x;
  if (s->count == 1 || x > s->max)
    s->max = x;
  s->total += x;
  s->last = x;

  if (s->count <= 5) {
    for (l = 0; l < LANES; l++)
      e->q[s->count - 1][l] = x;
    if (s->count == 5)
      lanes_start (e);
    return;
  }
  /* One iteration per marker a whole step from its desired position
   * (about one per call on noisy data) rather than a test per estimator
   * and marker: fewer mispredicted branches. The bits are marker-major,
   * so each estimator's markers go in order. */
  need = lanes_step (e, x);
  if (need) {
    double c = (double) (int64_t) s->count;

    e->n[4][0] = e->n[4][1] = e->n[4][2] = c;
    do {
      int b = ctz (need);

      l = b % LANES;
      p2_move (&e->q[0][l], &e->n[0][l], &e->np[0][l], LANES, b / LANES + 1);
      need &= need - 1;
    } while (need);
  }
}

double
stage_stats_std (const StageStats *s)
{
  if (s->count < 2)
    return 0.0;
  return sqrt (s->m2 / (double) (s->count - 1));
}

/* The three estimators run apart, and on skewed data P2 can put a higher
 * quantile below a lower one (P99 0.706 under P90 0.902, seen in 24 of 807
 * rows): each is held between the one below it and the maximum, so that
 * min <= median <= P90 <= P99 <= max in every row. */
static double
ordered (double v, double lo, double hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

double
stage_stats_median (const StageStats *s)
{
  if (s->count == 0)
    return 0.0;
  return ordered (lanes_estimate (s, 0), s->min, s->max);
}

double
stage_stats_p90 (const StageStats *s)
{
  if (s->count == 0)
    return 0.0;
  return ordered (lanes_estimate (s, 1), stage_stats_median (s), s->max);
}

double
stage_stats_p99 (const StageStats *s)
{
  if (s->count == 0)
    return 0.0;
  return ordered (lanes_estimate (s, 2), stage_stats_p90 (s), s->max);
}

void
stage_hist_bounds (unsigned idx, double *lo, double *hi)
{
  unsigned e, m;

  if (idx < 8) {
    *lo = idx * 128.0;
    *hi = (idx + 1) * 128.0;
    return;
  }
  e = 10 + (idx - 8) / 8;
  m = (idx - 8) % 8;
  *lo = ldexp (1.0 + m / 8.0, (int) e);
  *hi = ldexp (1.0 + (m + 1) / 8.0, (int) e);
}

/* The sample of rank p * (n - 1), placed inside its bucket as if the
 * bucket's samples were spread evenly over it. */
double
stage_hist_quantile (const uint64_t *counts, double p)
{
  uint64_t n = 0, below = 0;
  double rank, lo, hi;
  unsigned i;

  for (i = 0; i < STAGE_HIST_BUCKETS; i++)
    n += counts[i];
  if (n == 0)
    return 0.0;
  rank = (p < 0 ? 0 : p > 1 ? 1 : p) * (double) (n - 1);
  for (i = 0; i < STAGE_HIST_BUCKETS; i++) {
    if (counts[i] == 0)
      continue;
    if (rank < (double) (below + counts[i])) {
      stage_hist_bounds (i, &lo, &hi);
      return lo + (hi - lo) * (rank - (double) below + 0.5) /
          (double) counts[i];
    }
    below += counts[i];
  }
  stage_hist_bounds (STAGE_HIST_BUCKETS - 1, &lo, &hi);
  return hi;
}
