/* Welford mean/variance and P2 quantiles; see stats.h for why these two. */
#include "stats.h"

#include <math.h>
#include <string.h>

void
stage_p2_init (StageP2 *e, double p)
{
  memset (e, 0, sizeof (*e));
  e->p = p;
}

/* Exact quantile of the (at most five) raw samples, linear interpolation at
 * rank p * (count - 1), the same definition as numpy's default, so a short
 * run reports what a spreadsheet would. */
static double
p2_exact (const StageP2 *e)
{
  double v[5], rank, frac;
  unsigned c = (unsigned) e->count, i, j, lo;

  if (c == 0)
    return 0.0;
  memcpy (v, e->q, sizeof (v));
  for (i = 1; i < c; i++) {
    double x = v[i];
    for (j = i; j > 0 && v[j - 1] > x; j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
  rank = e->p * (double) (c - 1);
  lo = (unsigned) rank;
  if (lo + 1 >= c)
    return v[c - 1];
  frac = rank - (double) lo;
  return v[lo] + frac * (v[lo + 1] - v[lo]);
}

/* The fifth sample: sort the samples into the markers and place the desired
 * positions (1-based, as in the paper). */
static void
p2_start (StageP2 *e)
{
  double p = e->p;
  int i, j;

  for (i = 1; i < 5; i++) {
    double x = e->q[i];
    for (j = i; j > 0 && e->q[j - 1] > x; j--)
      e->q[j] = e->q[j - 1];
    e->q[j] = x;
  }
  for (i = 0; i < 5; i++)
    e->n[i] = i + 1;
  e->np[0] = 1.0;
  e->np[1] = 1.0 + 2.0 * p;
  e->np[2] = 1.0 + 4.0 * p;
  e->np[3] = 3.0 + 2.0 * p;
  e->np[4] = 5.0;
  e->dn[0] = 0.0;
  e->dn[1] = p / 2.0;
  e->dn[2] = p;
  e->dn[3] = (1.0 + p) / 2.0;
  e->dn[4] = 1.0;
}

static double
p2_parabolic (const StageP2 *e, int i, double d)
{
  const double *q = e->q, *n = e->n;

  return q[i] + d / (n[i + 1] - n[i - 1]) *
      ((n[i] - n[i - 1] + d) * (q[i + 1] - q[i]) / (n[i + 1] - n[i]) +
      (n[i + 1] - n[i] - d) * (q[i] - q[i - 1]) / (n[i] - n[i - 1]));
}

static double
p2_linear (const StageP2 *e, int i, int d)
{
  return e->q[i] + d * (e->q[i + d] - e->q[i]) / (e->n[i + d] - e->n[i]);
}

void
stage_p2_add (StageP2 *e, double x)
{
  int i, k;

  if (e->count < 5) {
    e->q[e->count++] = x;
    if (e->count == 5)
      p2_start (e);
    return;
  }
  e->count++;

  /* Find the cell k with q[k] <= x < q[k+1], stretching the extremes. */
  if (x < e->q[0]) {
    e->q[0] = x;
    k = 0;
  } else if (x >= e->q[4]) {
    if (x > e->q[4])
      e->q[4] = x;
    k = 3;
  } else {
    k = 0;
    while (k < 3 && x >= e->q[k + 1])
      k++;
  }

  for (i = k + 1; i < 5; i++)
    e->n[i] += 1.0;
  for (i = 0; i < 5; i++)
    e->np[i] += e->dn[i];

  /* Move the middle markers towards their desired positions by one step,
   * parabolically when that keeps the heights monotonic, else linearly. */
  for (i = 1; i < 4; i++) {
    double d = e->np[i] - e->n[i];

    if ((d >= 1.0 && e->n[i + 1] - e->n[i] > 1.0) ||
        (d <= -1.0 && e->n[i - 1] - e->n[i] < -1.0)) {
      int s = d > 0 ? 1 : -1;
      double qp = p2_parabolic (e, i, s);

      if (e->q[i - 1] < qp && qp < e->q[i + 1])
        e->q[i] = qp;
      else
        e->q[i] = p2_linear (e, i, s);
      e->n[i] += s;
    }
  }
}

double
stage_p2_estimate (const StageP2 *e)
{
  if (e->count <= 5)
    return p2_exact (e);
  return e->q[2];
}

void
stage_stats_init (StageStats *s)
{
  memset (s, 0, sizeof (*s));
  stage_p2_init (&s->p50, 0.5);
  stage_p2_init (&s->p90, 0.9);
  stage_p2_init (&s->p99, 0.99);
}

void
stage_stats_add (StageStats *s, double x)
{
  double delta;

  s->count++;
  delta = x - s->mean;
  s->mean += delta / (double) s->count;
  s->m2 += delta * (x - s->mean);
  if (s->count == 1 || x < s->min)
    s->min = x;
  if (s->count == 1 || x > s->max)
    s->max = x;
  s->total += x;
  s->last = x;
  stage_p2_add (&s->p50, x);
  stage_p2_add (&s->p90, x);
  stage_p2_add (&s->p99, x);
}

double
stage_stats_std (const StageStats *s)
{
  if (s->count < 2)
    return 0.0;
  return sqrt (s->m2 / (double) (s->count - 1));
}

double
stage_stats_median (const StageStats *s)
{
  return stage_p2_estimate (&s->p50);
}

double
stage_stats_p90 (const StageStats *s)
{
  return stage_p2_estimate (&s->p90);
}

double
stage_stats_p99 (const StageStats *s)
{
  return stage_p2_estimate (&s->p99);
}
