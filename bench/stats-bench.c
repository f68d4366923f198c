/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Cost of stage_stats_add() per call, the stageprof tracer's hot path.
 *
 *   bench/stats.sh                       (compiles this against ops/stats.c)
 *   stats-bench [CALLS] [REPS] [DIST]    (CALLS per rep, default 4000000)
 *
 * The calls go round-robin over ten StageStats, as the tracer's worst case
 * (ten elements) does, on data made up front so that generating it is not
 * timed. DIST: lognormal (default; per-buffer times look like this),
 * ticks (the same around 200 ns, in whole ns as the tracer's are, so with
 * many ties), uniform, sorted, bimodal (2 % of 100x stalls) or all. Prints the best and
 * the median ns per call (thread CPU time) over REPS timed passes, and a checksum of the
 * results so that two builds of stats.c can be compared for equal output.
 * Plain C, no GLib, like ops/. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"

#define N_STATS 10
#define N_DATA (1 << 16)        /* 512 KiB of samples: L2, as in a real run */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double
rnd (void)                      /* xorshift64*, uniform in (0, 1) */
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return ((rng_state * 0x2545f4914f6cdd1dull >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static void
make_data (double *d, const char *dist)
{
  int i;

  for (i = 0; i < N_DATA; i++) {
    if (!strcmp (dist, "uniform"))
      d[i] = 1.0 + rnd ();
    else if (!strcmp (dist, "sorted"))
      d[i] = 1.0 + i * 1e-3;
    else if (!strcmp (dist, "bimodal"))
      d[i] = (1.0 + 0.2 * rnd ()) * (rnd () < 0.02 ? 100.0 : 1.0);
    else if (!strcmp (dist, "ticks"))   /* whole ns, as ms: many ties */
      d[i] = floor (200.0 * exp (0.3 * sqrt (-2.0 * log (rnd ())) *
              cos (6.283185307179586 * rnd ()))) * 1e-6;
    else                        /* lognormal around 2 us, in ms */
      d[i] = 0.002 * exp (0.5 * sqrt (-2.0 * log (rnd ())) *
          cos (6.283185307179586 * rnd ()));
  }
}

/* This thread's CPU time: on a shared machine, time spent waiting for a
 * core would count in wall time but is not the function's cost. */
static double
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
run (const char *dist, long calls, int reps)
{
  static StageStats s[N_STATS];
  static double d[N_DATA];
  double *t = calloc (reps, sizeof (double)), sum = 0;
  long c;
  int r, j;

  make_data (d, dist);
  for (r = 0; r < reps; r++) {
    double t0;

    for (j = 0; j < N_STATS; j++)
      stage_stats_init (&s[j]);
    t0 = now_ns ();
    for (c = 0, j = 0; c < calls; c++) {
      stage_stats_add (&s[j], d[c & (N_DATA - 1)]);
      if (++j == N_STATS)
        j = 0;
    }
    t[r] = (now_ns () - t0) / calls;
  }
  for (j = 0; j < N_STATS; j++)
    sum += s[j].mean + stage_stats_std (&s[j]) + stage_stats_median (&s[j]) +
        stage_stats_p90 (&s[j]) + stage_stats_p99 (&s[j]);
  qsort (t, reps, sizeof (double), cmp_double);
  printf ("%-9s %10ld calls x %d: best %6.2f ns/call  median %6.2f ns/call"
      "  p50 %.9g p90 %.9g p99 %.9g  checksum %.17g\n", dist, calls, reps,
      t[0], t[reps / 2], stage_stats_median (&s[0]), stage_stats_p90 (&s[0]),
      stage_stats_p99 (&s[0]), sum);
  free (t);
}

int
main (int argc, char **argv)
{
  static const char *all[] = { "lognormal", "ticks", "uniform", "sorted",
    "bimodal"
  };
  long calls = argc > 1 ? atol (argv[1]) : 4000000;
  int reps = argc > 2 ? atoi (argv[2]) : 7, i;
  const char *dist = argc > 3 ? argv[3] : "lognormal";

  if (calls < 1 || reps < 1) {
    fprintf (stderr, "usage: %s [CALLS] [REPS] [lognormal|ticks|uniform|"
        "sorted|bimodal|all]\n", argv[0]);
    return 2;
  }
  for (i = 0; i < 5; i++)
    if (!strcmp (dist, "all") || !strcmp (dist, all[i]))
      run (all[i], calls, reps);
  return 0;
}
