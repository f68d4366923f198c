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

static Suite *
ops_stats_suite (void)
{
  Suite *s = suite_create ("ops_stats");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_welford_vs_two_pass);
  tcase_add_test (tc, test_small_counts);
  tcase_add_test (tc, test_p2_random);
  tcase_add_test (tc, test_p2_sorted_reversed);
  tcase_add_test (tc, test_p2_constant);
  tcase_add_test (tc, test_p2_heavy_tailed);
  tcase_add_test (tc, test_no_nan_on_duplicates);
  return s;
}

GST_CHECK_MAIN (ops_stats);
