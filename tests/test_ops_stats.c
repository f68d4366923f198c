/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests for ops/stats: Welford mean/std against a two-pass computation,
 * P2 quantiles against exact quantiles on data shapes that trip estimators
 * (sorted, reversed, constant, heavy-tailed). */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "stats.h"

#define N_BIG 100000

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Same definition as stats.c's exact path: linear interpolation at rank
 * p * (n - 1) of the sorted samples. */
static double
exact_quantile (const double *data, size_t n, double p)
{
  double *v = g_memdup2 (data, n * sizeof (double));
  double rank = p * (double) (n - 1), r;
  size_t lo = (size_t) rank;

  qsort (v, n, sizeof (double), cmp_double);
  r = lo + 1 < n ? v[lo] + (rank - lo) * (v[lo + 1] - v[lo]) : v[n - 1];
  g_free (v);
  return r;
}

/* Fraction of samples below x: how far off an estimate is in rank, which is
 * what "within a few %" means where values are heavy-tailed. */
static double
rank_of (const double *data, size_t n, double x)
{
  size_t i, below = 0;
  for (i = 0; i < n; i++)
    below += data[i] < x;
  return (double) below / (double) n;
}

static void
check_quantiles (const gchar * what, const double *data, size_t n,
    double rel_tol, double rank_tol)
{
  StageStats s;
  const double ps[3] = { 0.5, 0.9, 0.99 };
  double est[3];
  size_t i;
  int j;

  stage_stats_init (&s);
  for (i = 0; i < n; i++)
    stage_stats_add (&s, data[i]);
  est[0] = stage_stats_median (&s);
  est[1] = stage_stats_p90 (&s);
  est[2] = stage_stats_p99 (&s);

  for (j = 0; j < 3; j++) {
    double ex = exact_quantile (data, n, ps[j]);
    double rel = fabs (est[j] - ex) / MAX (fabs (ex), 1e-12);
    double rk = rank_of (data, n, est[j]);

    GST_INFO ("%s p%g: estimate %g exact %g rel.err %.4f rank %.4f", what,
        ps[j] * 100, est[j], ex, rel, rk);
    /* The value must be close, and so must its rank (a value can be close
     * at a very different rank where the distribution is flat). */
    fail_unless (rel <= rel_tol && fabs (rk - ps[j]) <= rank_tol,
        "%s: p%g estimate %g vs exact %g (rel.err %.4f, rank %.4f)", what,
        ps[j] * 100, est[j], ex, rel, rk);
    fail_unless (est[j] >= s.min && est[j] <= s.max);
  }
}

static double *
make_uniform (GRand * r, size_t n)
{
  double *d = g_new (double, n);
  size_t i;
  for (i = 0; i < n; i++)
    d[i] = g_rand_double_range (r, 1.0, 2.0);
  return d;
}

GST_START_TEST (test_welford_vs_two_pass)
{
  GRand *r = g_rand_new_with_seed (42);
  StageStats s;
  double *d = g_new (double, N_BIG), sum = 0, mean, ss = 0, std;
  size_t i;

  /* A large offset with small spread: the case where sum-of-squares
   * cancels and Welford does not. */
  stage_stats_init (&s);
  for (i = 0; i < N_BIG; i++) {
    d[i] = 1e6 + g_rand_double_range (r, 0.0, 1.0);
    stage_stats_add (&s, d[i]);
    sum += d[i];
  }
  mean = sum / N_BIG;
  for (i = 0; i < N_BIG; i++)
    ss += (d[i] - mean) * (d[i] - mean);
  std = sqrt (ss / (N_BIG - 1));

  fail_unless_equals_uint64 (s.count, N_BIG);
  fail_unless (fabs (s.mean - mean) < 1e-6, "mean %f vs %f", s.mean, mean);
  fail_unless (fabs (stage_stats_std (&s) - std) / std < 1e-6,
      "std %.9f vs two-pass %.9f", stage_stats_std (&s), std);
  fail_unless (fabs (s.total - sum) / sum < 1e-12);
  fail_unless_equals_float (s.last, d[N_BIG - 1]);
  g_free (d);
  g_rand_free (r);
}

GST_END_TEST;

GST_START_TEST (test_small_counts)
{
  StageStats s;
  const double v[5] = { 5.0, 1.0, 4.0, 2.0, 3.0 };
  int i;

  stage_stats_init (&s);
  fail_unless_equals_float (stage_stats_std (&s), 0.0);
  fail_unless_equals_float (stage_stats_median (&s), 0.0);

  stage_stats_add (&s, 7.0);
  fail_unless_equals_float (stage_stats_std (&s), 0.0);
  fail_unless_equals_float (stage_stats_median (&s), 7.0);
  fail_unless_equals_float (stage_stats_p99 (&s), 7.0);
  fail_unless_equals_float (s.min, 7.0);
  fail_unless_equals_float (s.max, 7.0);

  /* Exact for up to five samples, whatever their order. */
  stage_stats_init (&s);
  for (i = 0; i < 5; i++) {
    stage_stats_add (&s, v[i]);
    fail_unless_equals_float (stage_stats_median (&s),
        exact_quantile (v, i + 1, 0.5));
    fail_unless_equals_float (stage_stats_p90 (&s),
        exact_quantile (v, i + 1, 0.9));
    fail_unless_equals_float (stage_stats_p99 (&s),
        exact_quantile (v, i + 1, 0.99));
  }
  fail_unless_equals_float (stage_stats_median (&s), 3.0);
  fail_unless_equals_float (s.min, 1.0);
  fail_unless_equals_float (s.max, 5.0);
  fail_unless_equals_float (s.mean, 3.0);
  fail_unless (fabs (stage_stats_std (&s) - sqrt (2.5)) < 1e-12);
}

GST_END_TEST;

GST_START_TEST (test_p2_random)
{
  GRand *r = g_rand_new_with_seed (7);
  double *d = make_uniform (r, N_BIG);
  size_t i;

  check_quantiles ("uniform", d, N_BIG, 0.01, 0.005);
  for (i = 0; i < N_BIG; i++)   /* normal-ish: sum of 4 uniforms */
    d[i] = g_rand_double (r) + g_rand_double (r) + g_rand_double (r) +
        g_rand_double (r);
  check_quantiles ("irwin-hall", d, N_BIG, 0.02, 0.005);
  g_free (d);
  g_rand_free (r);
}

GST_END_TEST;

GST_START_TEST (test_p2_sorted_reversed)
{
  double *d = g_new (double, N_BIG);
  size_t i;

  for (i = 0; i < N_BIG; i++)
    d[i] = 1.0 + (double) i;
  check_quantiles ("sorted", d, N_BIG, 0.03, 0.01);
  for (i = 0; i < N_BIG; i++)
    d[i] = (double) (N_BIG - i);
  check_quantiles ("reversed", d, N_BIG, 0.03, 0.01);
  g_free (d);
}

GST_END_TEST;

GST_START_TEST (test_p2_constant)
{
  StageStats s;
  int i;

  stage_stats_init (&s);
  for (i = 0; i < N_BIG; i++)
    stage_stats_add (&s, 2.5);
  fail_unless_equals_float (stage_stats_median (&s), 2.5);
  fail_unless_equals_float (stage_stats_p90 (&s), 2.5);
  fail_unless_equals_float (stage_stats_p99 (&s), 2.5);
  fail_unless_equals_float (stage_stats_std (&s), 0.0);
  fail_unless (!isnan (stage_stats_p99 (&s)));
}

GST_END_TEST;

GST_START_TEST (test_p2_heavy_tailed)
{
  GRand *r = g_rand_new_with_seed (1985);
  double *d = g_new (double, N_BIG);
  size_t i;

  /* Pareto (alpha 1.5, infinite variance) and log-normal: the shapes of
   * real per-buffer times (rare stalls far above the median). */
  for (i = 0; i < N_BIG; i++)
    d[i] = pow (1.0 - g_rand_double (r), -1.0 / 1.5);
  check_quantiles ("pareto", d, N_BIG, 0.05, 0.005);
  for (i = 0; i < N_BIG; i++) {
    double u1 = 1.0 - g_rand_double (r), u2 = g_rand_double (r);
    d[i] = exp (sqrt (-2.0 * log (u1)) * cos (2 * G_PI * u2));
  }
  check_quantiles ("lognormal", d, N_BIG, 0.05, 0.005);
  /* Mostly fast with a 2 % population of 100x stalls. */
  for (i = 0; i < N_BIG; i++)
    d[i] = g_rand_double_range (r, 1.0, 1.2) *
        (g_rand_double (r) < 0.02 ? 100.0 : 1.0);
  check_quantiles ("bimodal", d, N_BIG, 0.05, 0.02);
  g_free (d);
  g_rand_free (r);
}

GST_END_TEST;

/* Issue 39: the three P2 estimators run apart and P99 came out under P90
 * (24 of 807 rows of a real pipeline zoo). Short and skewed series of
 * every shape: the quantiles read back in order, within min and max. */
GST_START_TEST (test_quantiles_ordered)
{
  GRand *r = g_rand_new_with_seed (39);
  guint run, i, bad = 0;

  for (run = 0; run < 20000; run++) {
    guint n = g_rand_int_range (r, 1, 300), shape = run % 4;
    StageStats s;
    double med, p90, p99;

    stage_stats_init (&s);
    for (i = 0; i < n; i++) {
      double u = g_rand_double (r), x;

      if (shape == 0)
        x = pow (1.0 - u, -1.0 / 1.2);  /* Pareto */
      else if (shape == 1)
        x = u < 0.05 ? 100.0 * u : 1.0 + 0.01 * u;     /* rare stalls */
      else if (shape == 2)
        x = i < n / 2 ? 10.0 - 0.01 * i : 0.5;  /* a step down */
      else
        x = (i % 7 == 0) ? 5.0 : 0.1 * u;     /* periodic spikes */
      stage_stats_add (&s, x);
    }
    med = stage_stats_median (&s);
    p90 = stage_stats_p90 (&s);
    p99 = stage_stats_p99 (&s);
    if (!(s.min <= med && med <= p90 && p90 <= p99 && p99 <= s.max))
      bad++;
  }
  fail_unless_equals_int (bad, 0);
  g_rand_free (r);
}

GST_END_TEST;

GST_START_TEST (test_no_nan_on_duplicates)
{
  StageStats s;
  int i;

  /* Many equal values then a jump: marker positions collide, the parabolic
   * step must not divide by zero. */
  stage_stats_init (&s);
  for (i = 0; i < 1000; i++)
    stage_stats_add (&s, (i % 3) ? 1.0 : 2.0);
  for (i = 0; i < 1000; i++)
    stage_stats_add (&s, 10.0);
  fail_if (isnan (stage_stats_median (&s)) || isinf (stage_stats_median (&s)));
  fail_if (isnan (stage_stats_p99 (&s)));
  fail_unless (stage_stats_p99 (&s) <= 10.0 && stage_stats_p99 (&s) >= 1.0);
}

GST_END_TEST;

/* The P2 update as the paper states it (cell search by loop, every desired
 * position advanced, every marker tested each sample), the way stats.c did
 * it before its hot path was made branch-free and vectorised: both of
 * stats.c's paths must give the same estimates to the bit, so the accuracy
 * checked above is the paper's. */
typedef struct
{
  double q[5], n[5], np[5], dn[5], p;
  guint64 count;
} RefP2;

static void
ref_p2_add (RefP2 * e, double x)
{
  int i, j, k;

  if (e->count < 5) {
    e->q[e->count++] = x;
    if (e->count < 5)
      return;
    for (i = 1; i < 5; i++) {
      double v = e->q[i];
      for (j = i; j > 0 && e->q[j - 1] > v; j--)
        e->q[j] = e->q[j - 1];
      e->q[j] = v;
    }
    for (i = 0; i < 5; i++)
      e->n[i] = i + 1;
    e->np[0] = 1.0;
    e->np[1] = 1.0 + 2.0 * e->p;
    e->np[2] = 1.0 + 4.0 * e->p;
    e->np[3] = 3.0 + 2.0 * e->p;
    e->np[4] = 5.0;
    e->dn[0] = 0.0;
    e->dn[1] = e->p / 2.0;
    e->dn[2] = e->p;
    e->dn[3] = (1.0 + e->p) / 2.0;
    e->dn[4] = 1.0;
    return;
  }
  e->count++;
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
  for (i = 1; i < 4; i++) {
    double d = e->np[i] - e->n[i], *q = e->q, *n = e->n;

    if ((d >= 1.0 && n[i + 1] - n[i] > 1.0) ||
        (d <= -1.0 && n[i - 1] - n[i] < -1.0)) {
      int s = d > 0 ? 1 : -1;
      double qp = q[i] + s / (n[i + 1] - n[i - 1]) *
          ((n[i] - n[i - 1] + s) * (q[i + 1] - q[i]) / (n[i + 1] - n[i]) +
          (n[i + 1] - n[i] - s) * (q[i] - q[i - 1]) / (n[i] - n[i - 1]));

      if (q[i - 1] < qp && qp < q[i + 1])
        q[i] = qp;
      else
        q[i] = q[i] + s * (q[i + s] - q[i]) / (n[i + s] - n[i]);
      n[i] += s;
    }
  }
}

static double
ref_p2_estimate (const RefP2 * e)
{
  double v[5];
  guint i;

  if (e->count > 5)
    return e->q[2];
  /* stats.c's exact path is tested against exact_quantile above. */
  for (i = 0; i < e->count; i++)
    v[i] = e->q[i];
  return e->count ? exact_quantile (v, e->count, e->p) : 0.0;
}

/* Same bits, NaN equal to NaN. */
static gboolean
same_double (double a, double b)
{
  return memcmp (&a, &b, sizeof (a)) == 0 || (isnan (a) && isnan (b));
}

static void
check_same_as_paper (const gchar * what, const double *data, size_t n)
{
  const double ps[3] = { 0.5, 0.9, 0.99 };
  RefP2 ref[3];
  StageP2 one[3];
  StageStats s;
  size_t i;
  int j;

  stage_stats_init (&s);
  for (j = 0; j < 3; j++) {
    memset (&ref[j], 0, sizeof (ref[j]));
    ref[j].p = ps[j];
    stage_p2_init (&one[j], ps[j]);
  }
  for (i = 0; i < n; i++) {
    double lanes[3], lo;

    stage_stats_add (&s, data[i]);
    lanes[0] = stage_stats_median (&s);
    lanes[1] = stage_stats_p90 (&s);
    lanes[2] = stage_stats_p99 (&s);
    /* StageStats holds each estimate between the one below and max (the
     * paper's three estimators, run apart, can cross) */
    lo = s.min;
    for (j = 0; j < 3; j++) {
      double r, e, want;

      ref_p2_add (&ref[j], data[i]);
      stage_p2_add (&one[j], data[i]);
      r = ref_p2_estimate (&ref[j]);
      e = stage_p2_estimate (&one[j]);
      want = isnan (r) ? r : r < lo ? lo : r > s.max ? s.max : r;
      fail_unless (same_double (e, r) && same_double (lanes[j], want),
          "%s, sample %" G_GSIZE_FORMAT ", p%g: paper %.17g, stage_p2 %.17g,"
          " stage_stats %.17g", what, i, ps[j] * 100, r, e, lanes[j]);
      lo = want;
    }
  }
}

GST_START_TEST (test_p2_same_as_paper)
{
  GRand *r = g_rand_new_with_seed (2024);
  const size_t n = 20000;
  double *d = g_new (double, n);
  size_t i;

  for (i = 0; i < n; i++)
    d[i] = g_rand_double_range (r, 1.0, 2.0);
  check_same_as_paper ("uniform", d, n);
  for (i = 0; i < n; i++)
    d[i] = exp (2.0 * g_rand_double (r)) *
        (g_rand_double (r) < 0.02 ? 100.0 : 1.0);
  check_same_as_paper ("stalls", d, n);
  for (i = 0; i < n; i++)       /* whole nanoseconds in ms: many ties */
    d[i] = g_rand_int_range (r, 100, 130) * 1e-6;
  check_same_as_paper ("ties", d, n);
  for (i = 0; i < n; i++)
    d[i] = (double) (i % 1000) - (double) (i / 1000);
  check_same_as_paper ("saw", d, n);
  g_free (d);
  g_rand_free (r);
}

GST_END_TEST;

/* Inputs no tracer sends but a caller could: infinities, NaN, signed
 * zeros, before and after the fifth sample. Whatever the paper's update
 * makes of them, both paths make the same. */
GST_START_TEST (test_p2_same_as_paper_edges)
{
  const double edge[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0 };
  GRand *r = g_rand_new_with_seed (99);
  const size_t n = 3000;
  double *d = g_new (double, n);
  size_t i;
  int k;

  for (k = 0; k < (int) G_N_ELEMENTS (edge); k++) {
    gchar *what = g_strdup_printf ("edge %g", edge[k]);

    for (i = 0; i < n; i++)
      d[i] = g_rand_double (r) < 0.01 || i == 2 || i == 7 ? edge[k] :
          g_rand_double_range (r, -1.0, 1.0);
    check_same_as_paper (what, d, n);
    g_free (what);
  }
  g_free (d);
  g_rand_free (r);
}

GST_END_TEST;

/* Every duration lies in the bucket stage_hist_bucket() gives it, and the
 * buckets tile the axis without gaps. */
GST_START_TEST (test_hist_buckets)
{
  double lo, hi, plo, phi;
  uint64_t v;
  unsigned i;

  for (v = 0; v < G_GUINT64_CONSTANT (1) << 37; v = v * 1.01 + 1) {
    i = stage_hist_bucket (v);
    stage_hist_bounds (i, &lo, &hi);
    if (i < STAGE_HIST_BUCKETS - 1)
      fail_unless (lo <= (double) v && (double) v < hi,
          "%" G_GUINT64_FORMAT " ns in bucket %u [%g, %g)", v, i, lo, hi);
  }
  for (i = 1; i < STAGE_HIST_BUCKETS; i++) {
    stage_hist_bounds (i - 1, &plo, &phi);
    stage_hist_bounds (i, &lo, &hi);
    fail_unless (phi == lo, "bucket %u starts at %g, %u ends at %g", i, lo,
        i - 1, phi);
  }
  fail_unless_equals_int (stage_hist_bucket (G_MAXUINT64),
      STAGE_HIST_BUCKETS - 1);
}

GST_END_TEST;

/* Quantiles of log-uniform durations (1 us to 100 ms) and of a two-valued
 * set, against the exact ones: within one bucket width (9 %). */
GST_START_TEST (test_hist_quantiles)
{
  const double ps[] = { 0.5, 0.9, 0.99 };
  GRand *r = g_rand_new_with_seed (7);
  const size_t n = 20000;
  double *d = g_new (double, n);
  uint64_t counts[STAGE_HIST_BUCKETS] = { 0 };
  size_t i, k;

  for (i = 0; i < n; i++) {
    d[i] = floor (pow (10.0, g_rand_double_range (r, 3.0, 8.0)));
    counts[stage_hist_bucket ((uint64_t) d[i])]++;
  }
  for (k = 0; k < G_N_ELEMENTS (ps); k++) {
    double exact = exact_quantile (d, n, ps[k]);
    double got = stage_hist_quantile (counts, ps[k]);
    fail_unless (fabs (got - exact) <= 0.09 * exact,
        "p%g: %g ns, exact %g ns", ps[k] * 100, got, exact);
  }
  /* 90 samples of 2 ms and 10 of 20 ms: the median is 2 ms, P99 20 ms. */
  memset (counts, 0, sizeof counts);
  counts[stage_hist_bucket (2000000)] = 90;
  counts[stage_hist_bucket (20000000)] = 10;
  fail_unless (fabs (stage_hist_quantile (counts, 0.5) - 2e6) < 0.09 * 2e6);
  fail_unless (fabs (stage_hist_quantile (counts, 0.99) - 2e7) < 0.09 * 2e7);
  memset (counts, 0, sizeof counts);
  fail_unless_equals_float (stage_hist_quantile (counts, 0.5), 0.0);
  g_free (d);
  g_rand_free (r);
}

GST_END_TEST;

static Suite *
ops_stats_suite (void)
{
  Suite *s = suite_create ("ops_stats");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_welford_vs_two_pass);
  tcase_add_test (tc, test_small_counts);
  tcase_add_test (tc, test_p2_random);
  tcase_add_test (tc, test_quantiles_ordered);
  tcase_add_test (tc, test_p2_sorted_reversed);
  tcase_add_test (tc, test_p2_constant);
  tcase_add_test (tc, test_p2_heavy_tailed);
  tcase_add_test (tc, test_no_nan_on_duplicates);
  tcase_add_test (tc, test_p2_same_as_paper);
  tcase_add_test (tc, test_p2_same_as_paper_edges);
  tcase_add_test (tc, test_hist_buckets);
  tcase_add_test (tc, test_hist_quantiles);
  return s;
}

GST_CHECK_MAIN (ops_stats);
