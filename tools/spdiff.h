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
  SpChange change;
} SpDiffElem;

typedef struct
{
  const SpProfile *a, *b;
  GArray *elems;                /* SpDiffElem, by |total change|, largest first */
  GPtrArray *only_a, *only_b;   /* const SpElemRow* */
  GPtrArray *threads;           /* pairs: a, b (either may be NULL) */
  GPtrArray *queues;            /* pairs: a, b (either may be NULL) */
} SpDiff;

SpDiff *sp_diff_new (const SpProfile * a, const SpProfile * b);
void sp_diff_free (SpDiff * d);

/* Whether a change of mean is beyond the noise of the two runs: larger
 * than 3 standard errors of the difference, than the larger of the two
 * standard deviations (the element's own spread: runs on a shared machine
 * differ by more than their standard errors), than 5 % and than 10 us per
 * buffer (the tracer's own jitter). Without a spread (one sample), only a
 * change of 20 % or more. */
#define SP_DIFF_MIN_PCT 5.0
#define SP_DIFF_MIN_MS 0.010
SpChange sp_diff_judge (const SpElemRow * a, const SpElemRow * b);

gchar *sp_diff_render (const SpDiff * d, SpFormat format);

/* Elements whose total self time grew by more than `pct` %, among those
 * with at least `min_share` % of either run's total self time (tiny
 * elements double by chance). Appends one line per element to `why`;
 * returns how many. */
guint sp_diff_regressions (const SpDiff * d, gdouble pct, gdouble min_share,
    GString * why);

G_END_DECLS

#endif /* __SP_DIFF_H__ */
