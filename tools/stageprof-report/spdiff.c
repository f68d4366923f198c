/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spdiff: matching and judging two profiles. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "spdiff.h"

static gdouble
pct (gdouble a, gdouble b)
{
  if (isnan (a) || isnan (b) || a == 0)
    return NAN;
  return 100.0 * (b - a) / a;
}

/* An element's own spread around its typical buffer: the smaller of
 * P90 - median and median - min. On a loaded machine per-buffer times have
 * a long right tail (buffers whose thread was preempted) that says nothing
 * about how precisely the median is known; the near side does. */
static gdouble
core_spread (const SpElemRow * r)
{
  gdouble up = r->p90_ms - r->median_ms, down = r->median_ms - r->min_ms;

  if (isnan (down) || down < 0)
    return MAX (up, 0);
  return MAX (MIN (up, down), 0);
}

SpChange
sp_diff_judge (const SpElemRow * a, const SpElemRow * b)
{
  gboolean med = !isnan (a->median_ms) && !isnan (b->median_ms)
      && !isnan (a->p90_ms) && !isnan (b->p90_ms) && a->count >= 5
      && b->count >= 5;
  gdouble va = med ? a->median_ms : a->mean_ms;
  gdouble vb = med ? b->median_ms : b->mean_ms;
  gdouble d = vb - va, rel = pct (va, vb), spread, se;

  if (isnan (d) || isnan (rel))
    return SP_CHANGE_NOISE;
  if (fabs (rel) < SP_DIFF_MIN_PCT || fabs (d) < SP_DIFF_MIN_MS)
    return SP_CHANGE_NOISE;
  if (med) {
    spread = MAX (core_spread (a), core_spread (b));
    /* Standard error of a median: 1.2533 sigma / sqrt (n), with sigma
     * from the spread as if it were P90 - median = 1.2816 sigma. */
    se = 1.2533 * spread / 1.2816 * sqrt (1.0 / a->count + 1.0 / b->count);
  } else if (!isnan (a->std_ms) && !isnan (b->std_ms) && a->count >= 2
      && b->count >= 2) {
    spread = MAX (a->std_ms, b->std_ms);
    se = sqrt (a->std_ms * a->std_ms / a->count +
        b->std_ms * b->std_ms / b->count);
  } else {
    /* No spread known (one sample): only a large change counts. */
    return fabs (rel) < 20.0 ? SP_CHANGE_NOISE : d > 0 ? SP_CHANGE_SLOWER :
        SP_CHANGE_FASTER;
  }
  if (fabs (d) <= 3 * se || fabs (d) <= 0.5 * spread)
    return SP_CHANGE_NOISE;
  return d > 0 ? SP_CHANGE_SLOWER : SP_CHANGE_FASTER;
}

static guint
count_name (const SpProfile * p, const gchar * name)
{
  guint i, n = 0;

  for (i = 0; i < p->elements->len; i++)
    n += !g_strcmp0 (((SpElemRow *) p->elements->pdata[i])->name, name);
  return n;
}

static gint
cmp_change (gconstpointer x, gconstpointer y)
{
  const SpDiffElem *a = x, *b = y;
  gdouble da = fabs ((isnan (a->b->total_s) ? 0 : a->b->total_s) -
      (isnan (a->a->total_s) ? 0 : a->a->total_s));
  gdouble db = fabs ((isnan (b->b->total_s) ? 0 : b->b->total_s) -
      (isnan (b->a->total_s) ? 0 : b->a->total_s));

  return da < db ? 1 : da > db ? -1 : g_strcmp0 (a->a->name, b->a->name);
}

static void
pair_rows (GPtrArray * out, GPtrArray * ra, GPtrArray * rb, gsize name_off)
{
  gboolean *used = g_new0 (gboolean, rb->len + 1);
  guint i, j;

  for (i = 0; i < ra->len; i++) {
    const gchar *n = *(gchar **) ((gchar *) ra->pdata[i] + name_off);
    gpointer match = NULL;
    for (j = 0; j < rb->len; j++)
      if (!used[j] && !g_strcmp0 (n,
              *(gchar **) ((gchar *) rb->pdata[j] + name_off))) {
        used[j] = TRUE;
        match = rb->pdata[j];
        break;
      }
    g_ptr_array_add (out, ra->pdata[i]);
    g_ptr_array_add (out, match);
  }
  for (j = 0; j < rb->len; j++)
    if (!used[j]) {
      g_ptr_array_add (out, NULL);
      g_ptr_array_add (out, rb->pdata[j]);
    }
  g_free (used);
}

/* The row of @p that matches @e of another run: by name when the name is
 * unique in both, else by name and thread. */
static const SpElemRow *
find_elem (const SpProfile * p, const SpProfile * ep, const SpElemRow * e)
{
  gboolean single = count_name (p, e->name) == 1
      && count_name (ep, e->name) == 1;
  guint j;

  for (j = 0; j < p->elements->len; j++) {
    const SpElemRow *r = p->elements->pdata[j];

    if (!g_strcmp0 (r->name, e->name)
        && (single || !g_strcmp0 (r->thread, e->thread)))
      return r;
  }
  return NULL;
}

/* The per-buffer value a run gives an element: its median, else mean. */
static gdouble
typical (const SpElemRow * r)
{
  return !isnan (r->median_ms) && r->count >= 5 ? r->median_ms : r->mean_ms;
}

static gint
cmp_double (gconstpointer x, gconstpointer y)
{
  gdouble a = *(const gdouble *) x, b = *(const gdouble *) y;

  return a < b ? -1 : a > b;
}

static gdouble
median_of (GArray * v)
{
  g_array_sort (v, cmp_double);
  if (v->len == 0)
    return NAN;
  return v->len % 2 ? g_array_index (v, gdouble, v->len / 2) :
      (g_array_index (v, gdouble, v->len / 2 - 1) +
      g_array_index (v, gdouble, v->len / 2)) / 2;
}

/* The values of element @e (of side A's first run) in each run of @runs;
 * FALSE when a run lacks it. */
static gboolean
run_values (GPtrArray * runs, const SpProfile * ep, const SpElemRow * e,
    GArray * out)
{
  guint i;

  for (i = 0; i < runs->len; i++) {
    const SpElemRow *r = find_elem (runs->pdata[i], ep, e);
    gdouble v;

    if (!r || isnan (v = typical (r)))
      return FALSE;
    g_array_append_val (out, v);
  }
  return TRUE;
}

/* The CPU time of an element's workers (its codec's threads) per buffer
 * it handled, in ms; NAN when it has none. */
static gdouble
worker_ms (const SpElemRow * r)
{
  if (!r || isnan (r->worker_cpu_s) || r->worker_cpu_s <= 0
      || isnan (r->count) || r->count < 1)
    return NAN;
  return 1000.0 * r->worker_cpu_s / r->count;
}

/* The lowest and highest of element `e`'s workers' CPU per buffer over
 * `runs`; FALSE when a run lacks it. */
static gboolean
worker_range (GPtrArray * runs, const SpProfile * ep, const SpElemRow * e,
    gdouble * lo, gdouble * hi)
{
  *lo = INFINITY;
  *hi = 0;
  for (guint i = 0; i < runs->len; i++) {
    gdouble v = worker_ms (find_elem (runs->pdata[i], ep, e));
    if (isnan (v))
      return FALSE;
    *lo = MIN (*lo, v);
    *hi = MAX (*hi, v);
  }
  return TRUE;
}

/* Whether an element's workers changed: x264enc's own thread does the
 * same at preset medium and slow, its threads use 60 % more. Over runs,
 * as judge_runs; from one run a side (no spread known), only a change of
 * SP_DIFF_WORKERS_PCT. */
static SpChange
judge_workers (const SpDiff * d, const SpElemRow * ea, const SpElemRow * eb)
{
  gdouble ma = worker_ms (ea), mb = worker_ms (eb), rel = pct (ma, mb);

  if (isnan (rel) || fabs (mb - ma) < SP_DIFF_MIN_MS)
    return SP_CHANGE_NOISE;
  if (d->runs_a->len >= 2 && d->runs_b->len >= 2) {
    gdouble lo_a, hi_a, lo_b, hi_b;
    if (!worker_range (d->runs_a, d->a, ea, &lo_a, &hi_a)
        || !worker_range (d->runs_b, d->a, ea, &lo_b, &hi_b)
        || fabs (rel) < SP_DIFF_MIN_PCT)
      return SP_CHANGE_NOISE;
    return lo_b > hi_a ? SP_CHANGE_SLOWER : hi_b < lo_a ? SP_CHANGE_FASTER
        : SP_CHANGE_NOISE;
  }
  if (fabs (rel) < SP_DIFF_WORKERS_PCT)
    return SP_CHANGE_NOISE;
  return rel > 0 ? SP_CHANGE_SLOWER : SP_CHANGE_FASTER;
}

/* The judgement of sp_diff_new_runs() with two or more runs a side. */
static SpChange
judge_runs (const SpDiff * d, const SpElemRow * ea, const SpElemRow * eb)
{
  GArray *va = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GArray *vb = g_array_new (FALSE, FALSE, sizeof (gdouble));
  SpChange c = SP_CHANGE_NOISE;

  if (run_values (d->runs_a, d->a, ea, va)
      && run_values (d->runs_b, d->b, eb, vb)) {
    gdouble ma = median_of (va), mb = median_of (vb), dd = mb - ma;
    gdouble lo_a = g_array_index (va, gdouble, 0);
    gdouble hi_a = g_array_index (va, gdouble, va->len - 1);
    gdouble lo_b = g_array_index (vb, gdouble, 0);
    gdouble hi_b = g_array_index (vb, gdouble, vb->len - 1);
    gdouble rel = pct (ma, mb), spread;

    /* A loaded machine's noise is a factor (a run 30 % slower at any
     * size), so spreads and change compare as ratios. */
    spread = lo_a > 0 && lo_b > 0 ? MAX (log (hi_a / lo_a), log (hi_b / lo_b))
        : INFINITY;
    if (!isnan (rel) && fabs (rel) >= SP_DIFF_MIN_PCT
        && fabs (dd) >= SP_DIFF_MIN_MS && ma > 0 && mb > 0
        && fabs (log (mb / ma)) > spread) {
      if (lo_b > hi_a)
        c = SP_CHANGE_SLOWER;
      else if (hi_b < lo_a)
        c = SP_CHANGE_FASTER;
    }
  } else {
    c = sp_diff_judge (ea, eb);
  }
  g_array_free (va, TRUE);
  g_array_free (vb, TRUE);
  return c;
}

gdouble
sp_diff_cpu_wait_pct (const SpProfile * p)
{
  gdouble sum = 0;
  guint i, n = 0;

  for (i = 0; i < p->threads->len; i++) {
    gdouble v = ((SpThreadRow *) p->threads->pdata[i])->cpu_wait_pct;

    if (!isnan (v)) {
      sum += v;
      n++;
    }
  }
  return n ? sum / n : NAN;
}

SpDiff *
sp_diff_new (const SpProfile * a, const SpProfile * b)
{
  GPtrArray *ra = g_ptr_array_new (), *rb = g_ptr_array_new ();
  SpDiff *d;

  g_ptr_array_add (ra, (gpointer) a);
  g_ptr_array_add (rb, (gpointer) b);
  d = sp_diff_new_runs (ra, rb);
  g_ptr_array_unref (ra);
  g_ptr_array_unref (rb);
  return d;
}

SpDiff *
sp_diff_new_runs (GPtrArray * runs_a, GPtrArray * runs_b)
{
  SpDiff *d = g_new0 (SpDiff, 1);
  const SpProfile *a = runs_a->pdata[0], *b = runs_b->pdata[0];
  gboolean *used = g_new0 (gboolean, b->elements->len + 1);
  guint i, j;

  d->a = a;
  d->b = b;
  d->runs_a = g_ptr_array_ref (runs_a);
  d->runs_b = g_ptr_array_ref (runs_b);
  d->elems = g_array_new (FALSE, TRUE, sizeof (SpDiffElem));
  d->only_a = g_ptr_array_new ();
  d->only_b = g_ptr_array_new ();
  d->threads = g_ptr_array_new ();
  d->queues = g_ptr_array_new ();
  d->latency = g_ptr_array_new ();
  d->element_latency = g_ptr_array_new ();

  /* By element path; an element that ran on several threads is matched
   * thread by thread, one that ran on one thread in each run whatever the
   * threads are called. */
  for (i = 0; i < a->elements->len; i++) {
    const SpElemRow *ea = a->elements->pdata[i];
    gboolean single = count_name (a, ea->name) == 1
        && count_name (b, ea->name) == 1;
    const SpElemRow *m = NULL;
    for (j = 0; j < b->elements->len && !m; j++) {
      const SpElemRow *eb = b->elements->pdata[j];
      if (used[j] || g_strcmp0 (ea->name, eb->name))
        continue;
      if (single || !g_strcmp0 (ea->thread, eb->thread)) {
        used[j] = TRUE;
        m = eb;
      }
    }
    if (m) {
      SpDiffElem de = { ea, m };
      de.d_mean_pct = pct (ea->mean_ms, m->mean_ms);
      de.d_p90_pct = pct (ea->p90_ms, m->p90_ms);
      de.d_total_pct = pct (ea->total_s, m->total_s);
      de.change = runs_a->len >= 2 && runs_b->len >= 2 ?
          judge_runs (d, ea, m) : sp_diff_judge (ea, m);
      de.d_workers_pct = pct (worker_ms (ea), worker_ms (m));
      de.workers_change = judge_workers (d, ea, m);
      if (de.change == SP_CHANGE_NOISE)
        de.change = de.workers_change;
      g_array_append_val (d->elems, de);
    } else {
      g_ptr_array_add (d->only_a, (gpointer) ea);
    }
  }
  for (j = 0; j < b->elements->len; j++)
    if (!used[j])
      g_ptr_array_add (d->only_b, b->elements->pdata[j]);
  g_free (used);
  g_array_sort (d->elems, cmp_change);
  pair_rows (d->threads, a->threads, b->threads,
      G_STRUCT_OFFSET (SpThreadRow, name));
  pair_rows (d->queues, a->queues, b->queues,
      G_STRUCT_OFFSET (SpQueueRow, name));
  pair_rows (d->latency, a->latency, b->latency,
      G_STRUCT_OFFSET (SpLatencyRow, name));
  pair_rows (d->element_latency, a->element_latency, b->element_latency,
      G_STRUCT_OFFSET (SpElemLatencyRow, name));
  return d;
}

void
sp_diff_free (SpDiff * d)
{
  if (!d)
    return;
  g_array_free (d->elems, TRUE);
  g_ptr_array_unref (d->runs_a);
  g_ptr_array_unref (d->runs_b);
  g_ptr_array_free (d->only_a, TRUE);
  g_ptr_array_free (d->only_b, TRUE);
  g_ptr_array_free (d->threads, TRUE);
  g_ptr_array_free (d->queues, TRUE);
  g_ptr_array_free (d->latency, TRUE);
  g_ptr_array_free (d->element_latency, TRUE);
  g_free (d);
}

static gdouble
all_self (const SpProfile * p)
{
  gdouble s = 0;
  guint i;

  for (i = 0; i < p->elements->len; i++) {
    gdouble t = ((SpElemRow *) p->elements->pdata[i])->total_s;
    if (!isnan (t))
      s += t;
  }
  return s;
}

guint
sp_diff_regressions (const SpDiff * d, gdouble limit, gdouble min_share,
    GString * why)
{
  gdouble sb = MAX (all_self (d->a), all_self (d->b));
  guint i, n = 0;

  for (i = 0; i < d->elems->len; i++) {
    const SpDiffElem *e = &g_array_index (d->elems, SpDiffElem, i);
    gdouble grew = e->b->total_s - e->a->total_s;
    /* a growth within the noise blames nothing: the element is slower per
     * buffer beyond the noise, or it was called more often */
    gboolean more_calls = pct (e->a->count, e->b->count) > limit;

    gdouble wa = isnan (e->a->worker_cpu_s) ? 0 : e->a->worker_cpu_s;
    gdouble wb = isnan (e->b->worker_cpu_s) ? 0 : e->b->worker_cpu_s;

    /* its workers' CPU grew beyond the limit: a regression of its own */
    if (e->workers_change == SP_CHANGE_SLOWER && wa > 0
        && 100.0 * (wb - wa) / wa > limit
        && sb > 0 && 100 * (wb - wa) / sb >= min_share) {
      n++;
      if (why)
        g_string_append_printf (why, "%s: its threads' CPU %.3f s -> %.3f s, "
            "+%.1f %% (limit %.1f %%)\n", e->b->name, wa, wb,
            100.0 * (wb - wa) / wa, limit);
      continue;
    }
    if ((e->change != SP_CHANGE_SLOWER && !more_calls)
        || isnan (e->d_total_pct) || e->d_total_pct <= limit
        || !(sb > 0 && 100 * grew / sb >= min_share))
      continue;
    n++;
    if (why)
      g_string_append_printf (why, "%s (thread %s): total self time %.3f s "
          "-> %.3f s, +%.1f %% (limit %.1f %%)\n", e->b->name,
          e->b->thread ? e->b->thread : "-", e->a->total_s, e->b->total_s,
          e->d_total_pct, limit);
  }
  return n;
}

/* ---- rendering ------------------------------------------------------ */

static gchar *
fmt_pct (gdouble v)
{
  if (isnan (v))
    return g_strdup ("-");
  return g_strdup_printf ("%+.1f%%", v);
}

static const gchar *
change_word (SpChange c)
{
  return c == SP_CHANGE_SLOWER ? "SLOWER" : c == SP_CHANGE_FASTER ? "faster"
      : "~ noise";
}

static const gchar *
kind_word (const SpProfile * p)
{
  return p->kind == SP_SOURCE_DB ? "db" : p->kind == SP_SOURCE_TRACE ?
      "trace" : "summary";
}


/* The columns `keys` of a paired table (rows A, B in turn; a side missing
 * is NULL) as JSON: "TABLE":[{"name":..,"KEY_a":..,"KEY_b":..}, ...],
 * opened after the section before it. */
static void
json_pairs (GString * o, const gchar * table, const SpRowKind * k,
    GPtrArray * pairs, const gchar * const *keys)
{
  gint name = sp_schema_column_index (k->schema, "name");
  guint i, j;

  g_string_append_printf (o, "],\n\"%s\":[", table);
  for (i = 0; i < pairs->len; i += 2) {
    gconstpointer a = pairs->pdata[i], b = pairs->pdata[i + 1];

    g_string_append (o, i ? ",\n {\"name\":" : "\n {\"name\":");
    stage_json_str (o, sp_row_text (k, a ? a : b, name));
    for (j = 0; keys[j]; j++) {
      gint c = sp_schema_column_index (k->schema, keys[j]);

      g_string_append_printf (o, ",\"%s_a\":", keys[j]);
      stage_json_num (o, a ? sp_row_num (k, a, c) : NAN, 10);
      g_string_append_printf (o, ",\"%s_b\":", keys[j]);
      stage_json_num (o, b ? sp_row_num (k, b, c) : NAN, 10);
    }
    g_string_append_c (o, '}');
  }
}

static const gchar *const thread_keys[] = { SP_KEY (threads, busy_pct),
  NULL
};
static const gchar *const latency_keys[] = { SP_KEY (latency, median_ms),
  SP_KEY (latency, p99_ms), NULL
};
static const gchar *const elem_latency_keys[] = {
  SP_KEY (element_latency, mean_ms), SP_KEY (element_latency, dwell_ms), NULL
};

static void
render_json (const SpDiff * d, GString * o)
{
  guint i;

  g_string_append (o, "{\"a\":");
  stage_json_str (o, d->a->path);
  g_string_append (o, ",\"b\":");
  stage_json_str (o, d->b->path);
  g_string_append_printf (o, ",\"runs_a\":%u,\"runs_b\":%u",
      d->runs_a->len, d->runs_b->len);
  g_string_append (o, ",\"cpu_wait_pct_a\":[");
  for (i = 0; i < d->runs_a->len; i++) {
    if (i)
      g_string_append_c (o, ',');
    stage_json_num (o, sp_diff_cpu_wait_pct (d->runs_a->pdata[i]), 10);
  }
  g_string_append (o, "],\"cpu_wait_pct_b\":[");
  for (i = 0; i < d->runs_b->len; i++) {
    if (i)
      g_string_append_c (o, ',');
    stage_json_num (o, sp_diff_cpu_wait_pct (d->runs_b->pdata[i]), 10);
  }
  g_string_append (o, "]");
  g_string_append (o, ",\"verdict_a\":");
  stage_json_str (o, d->a->verdict);
  g_string_append (o, ",\"verdict_b\":");
  stage_json_str (o, d->b->verdict);
  g_string_append (o, ",\n\"elements\":[");
  for (i = 0; i < d->elems->len; i++) {
    const SpDiffElem *e = &g_array_index (d->elems, SpDiffElem, i);
    g_string_append (o, i ? ",\n {\"name\":" : "\n {\"name\":");
    stage_json_str (o, e->a->name);
    g_string_append (o, ",\"thread_a\":");
    stage_json_str (o, e->a->thread);
    g_string_append (o, ",\"thread_b\":");
    stage_json_str (o, e->b->thread);
#define PAIR(f) \
    g_string_append (o, ",\"" #f "_a\":"); stage_json_num (o, e->a->f, 10); \
    g_string_append (o, ",\"" #f "_b\":"); stage_json_num (o, e->b->f, 10);
    PAIR (count);
    PAIR (mean_ms);
    PAIR (std_ms);
    PAIR (median_ms);
    PAIR (p90_ms);
    PAIR (total_s);
#undef PAIR
    g_string_append (o, ",\"mean_change_pct\":");
    stage_json_num (o, e->d_mean_pct, 10);
    g_string_append (o, ",\"median_change_pct\":");
    stage_json_num (o, pct (e->a->median_ms, e->b->median_ms), 10);
    g_string_append (o, ",\"p90_change_pct\":");
    stage_json_num (o, e->d_p90_pct, 10);
    g_string_append (o, ",\"total_change_pct\":");
    stage_json_num (o, e->d_total_pct, 10);
    g_string_append (o, ",\"worker_cpu_s_a\":");
    stage_json_num (o, e->a->worker_cpu_s, 10);
    g_string_append (o, ",\"worker_cpu_s_b\":");
    stage_json_num (o, e->b->worker_cpu_s, 10);
    g_string_append (o, ",\"workers_change_pct\":");
    stage_json_num (o, e->d_workers_pct, 10);
    g_string_append_printf (o, ",\"change\":\"%s\"}",
        e->change == SP_CHANGE_SLOWER ? "slower" :
        e->change == SP_CHANGE_FASTER ? "faster" : "noise");
  }
  g_string_append (o, "],\n\"only_a\":[");
  for (i = 0; i < d->only_a->len; i++) {
    if (i)
      g_string_append_c (o, ',');
    stage_json_str (o, ((SpElemRow *) d->only_a->pdata[i])->name);
  }
  g_string_append (o, "],\"only_b\":[");
  for (i = 0; i < d->only_b->len; i++) {
    if (i)
      g_string_append_c (o, ',');
    stage_json_str (o, ((SpElemRow *) d->only_b->pdata[i])->name);
  }
  json_pairs (o, "threads", &sp_thread_kind, d->threads, thread_keys);
  json_pairs (o, "latency", &sp_latency_kind, d->latency, latency_keys);
  json_pairs (o, "element_latency", &sp_elem_latency_kind,
      d->element_latency, elem_latency_keys);
  g_string_append (o, "]}\n");
}

/* A section title: in Markdown a level-3 heading set apart by blank
 * lines, in text a line of its own. */
static void
append_heading (GString * o, SpFormat f, const gchar * title)
{
  if (f == SP_FORMAT_MARKDOWN)
    g_string_append_printf (o, "\n### %s\n\n", title);
  else
    g_string_append_printf (o, "%s\n", title);
}

/* The elements of @rows, found in input @which only. */
static void
append_only (GString * o, SpFormat f, const gchar * which, GPtrArray * rows)
{
  guint i;

  for (i = 0; i < rows->len; i++) {
    const SpElemRow *r = rows->pdata[i];
    gchar *tot = sp_fmt (r->total_s, 3);
    g_string_append_printf (o, "%s only in %s: %s (thread %s, total %s s)\n",
        f == SP_FORMAT_MARKDOWN ? "-" : " ", which, r->name, r->thread, tot);
    g_free (tot);
  }
}

/* Each run of a side with its CPU-wait share, so that a loaded machine
 * (and a run taken while it was) shows. */
static void
append_runs (GString * o, SpFormat f, const gchar * side, GPtrArray * runs)
{
  guint i;

  g_string_append_printf (o, "%s%s: %u run%s; waiting for a CPU:",
      f == SP_FORMAT_MARKDOWN ? "- " : "  ", side, runs->len,
      runs->len == 1 ? "" : "s");
  for (i = 0; i < runs->len; i++) {
    gdouble w = sp_diff_cpu_wait_pct (runs->pdata[i]);

    if (isnan (w))
      g_string_append_printf (o, "%s -", i ? "," : "");
    else
      g_string_append_printf (o, "%s %.1f %%", i ? "," : "", w);
  }
  g_string_append (o, runs->len >= 2 ? " (changes judged against the "
      "spread between these runs)\n" : "\n");
}

/* The two inputs, their runs, and a note when they are different
 * pipelines (text and Markdown). */
static void
render_intro (const SpDiff * d, SpFormat f, const gchar * pa,
    const gchar * pb, GString * o)
{
  gchar *wa = sp_fmt (d->a->wall_s, 3), *wb = sp_fmt (d->b->wall_s, 3);

  g_string_append_printf (o, "%s=== stageprof diff ===\n",
      f == SP_FORMAT_MARKDOWN ? "## " : "");
  g_string_append_printf (o, "%sA: %s (%s, pipeline %s, %s s)\n",
      f == SP_FORMAT_MARKDOWN ? "\n- " : "", d->a->path, kind_word (d->a),
      pa, wa);
  g_string_append_printf (o, "%sB: %s (%s, pipeline %s, %s s)\n",
      f == SP_FORMAT_MARKDOWN ? "- " : "", d->b->path, kind_word (d->b),
      pb, wb);
  append_runs (o, f, "A", d->runs_a);
  append_runs (o, f, "B", d->runs_b);
  g_free (wa);
  g_free (wb);
  if (g_strcmp0 (pa, pb))
    g_string_append_printf (o, "%sNote: the inputs come from different "
        "pipelines (%s / %s); elements are matched by path\n",
        f == SP_FORMAT_MARKDOWN ? "\n" : "", pa, pb);
  append_heading (o, f, "Elements (ms, Total in s; change of B against "
      "A; SLOWER/faster: beyond the noise of each element's own spread)");
}

/* The matched elements side by side; returns how many changed beyond the
 * noise. */
static guint
render_elements (const SpDiff * d, SpFormat f, GString * o)
{
  static const gchar *const hdr[] = { "Node", "Thread", "Count A",
    "Count B", "Mean A", "Mean B", "Mean", "Median", "P90 A", "P90 B", "P90",
    "Total A", "Total B", "Total", "Workers", "Change", NULL
  };
  SpTable *t = sp_table_new (2, hdr);
  guint nflag = 0;

  for (guint i = 0; i < d->elems->len; i++) {
    const SpDiffElem *e = &g_array_index (d->elems, SpDiffElem, i);
    sp_table_add (t, g_strdup (e->a->name));
    sp_table_add (t, g_strcmp0 (e->a->thread, e->b->thread) ?
        g_strdup_printf ("%s / %s", e->a->thread, e->b->thread) :
        g_strdup (e->a->thread ? e->a->thread : "-"));
    sp_table_add (t, sp_fmt (e->a->count, 0));
    sp_table_add (t, sp_fmt (e->b->count, 0));
    sp_table_add (t, sp_fmt (e->a->mean_ms, 3));
    sp_table_add (t, sp_fmt (e->b->mean_ms, 3));
    sp_table_add (t, fmt_pct (e->d_mean_pct));
    sp_table_add (t, fmt_pct (pct (e->a->median_ms, e->b->median_ms)));
    sp_table_add (t, sp_fmt (e->a->p90_ms, 3));
    sp_table_add (t, sp_fmt (e->b->p90_ms, 3));
    sp_table_add (t, fmt_pct (e->d_p90_pct));
    sp_table_add (t, sp_fmt (e->a->total_s, 3));
    sp_table_add (t, sp_fmt (e->b->total_s, 3));
    sp_table_add (t, fmt_pct (e->d_total_pct));
    sp_table_add (t, fmt_pct (e->d_workers_pct));
    sp_table_add (t, g_strdup (change_word (e->change)));
    nflag += e->change != SP_CHANGE_NOISE;
  }
  sp_table_render (t, f, o);
  return nflag;
}

static void
render_only_html (const GPtrArray * rows, const gchar * side, GString * o)
{
  for (guint i = 0; i < rows->len; i++) {
    gchar *e = g_markup_printf_escaped ("<p>Only in %s: %s</p>\n", side,
        ((SpElemRow *) rows->pdata[i])->name);
    g_string_append (o, e);
    g_free (e);
  }
}

/* Threads, paired A and B (either may be NULL: only in the other). */
static void
render_threads (const SpDiff * d, SpFormat f, GString * o)
{
  static const gchar *const hdr[] = { "Thread", "%Busy A", "%Busy B",
    "%Wait in A", "%Wait in B", "%Wait out A", "%Wait out B", NULL
  };
  SpTable *t;

  if (!d->threads->len)
    return;
  append_heading (o, f, "Threads (share of each thread's wall time)");
  t = sp_table_new (1, hdr);
  for (guint i = 0; i < d->threads->len; i += 2) {
    const SpThreadRow *ta = d->threads->pdata[i], *tb =
        d->threads->pdata[i + 1];
    sp_table_add (t, g_strdup (ta ? ta->name : tb->name));
    sp_table_add (t, sp_fmt (ta ? ta->busy_pct : NAN, 1));
    sp_table_add (t, sp_fmt (tb ? tb->busy_pct : NAN, 1));
    sp_table_add (t, sp_fmt (ta ? ta->wait_input_pct : NAN, 1));
    sp_table_add (t, sp_fmt (tb ? tb->wait_input_pct : NAN, 1));
    sp_table_add (t, sp_fmt (ta ? ta->wait_output_pct : NAN, 1));
    sp_table_add (t, sp_fmt (tb ? tb->wait_output_pct : NAN, 1));
  }
  sp_table_render (t, f, o);
}

/* Queues, paired A and B as the threads. */
static void
render_queues (const SpDiff * d, SpFormat f, GString * o)
{
  static const gchar *const hdr[] = { "Queue", "Mean lvl A", "Mean lvl B",
    "Max lvl A", "Max lvl B", "%Empty A", "%Empty B", "%Full A", "%Full B",
    NULL
  };
  SpTable *t;

  if (!d->queues->len)
    return;
  append_heading (o, f, "Queues");
  t = sp_table_new (1, hdr);
  for (guint i = 0; i < d->queues->len; i += 2) {
    const SpQueueRow *qa = d->queues->pdata[i], *qb =
        d->queues->pdata[i + 1];
    sp_table_add (t, g_strdup (qa ? qa->name : qb->name));
    sp_table_add (t, sp_fmt (qa ? qa->mean_level : NAN, 2));
    sp_table_add (t, sp_fmt (qb ? qb->mean_level : NAN, 2));
    sp_table_add (t, sp_fmt (qa ? qa->max_level : NAN, 0));
    sp_table_add (t, sp_fmt (qb ? qb->max_level : NAN, 0));
    sp_table_add (t, sp_fmt (qa ? qa->empty_pct : NAN, 1));
    sp_table_add (t, sp_fmt (qb ? qb->empty_pct : NAN, 1));
    sp_table_add (t, sp_fmt (qa ? qa->full_pct : NAN, 1));
    sp_table_add (t, sp_fmt (qb ? qb->full_pct : NAN, 1));
  }
  sp_table_render (t, f, o);
}

/* Latency a sink (median and P99 end to end), and through each element
 * (mean, and its dwell), paired A and B. */
static void
render_latency (const SpDiff * d, SpFormat f, GString * o)
{
  static const gchar *const shdr[] = { "Sink", "Median A", "Median B",
    "Median", "P99 A", "P99 B", "P99", NULL
  };
  static const gchar *const ehdr[] = { "Node", "Mean A", "Mean B", "Mean",
    "Dwell A", "Dwell B", NULL
  };
  SpTable *t;

  if (d->latency->len) {
    append_heading (o, f, "Latency (ms from a frame's origin to the "
        "sink; change of B against A)");
    t = sp_table_new (1, shdr);
    for (guint i = 0; i < d->latency->len; i += 2) {
      const SpLatencyRow *a = d->latency->pdata[i], *b =
          d->latency->pdata[i + 1];
      sp_table_add (t, g_strdup (a ? a->name : b->name));
      sp_table_add (t, sp_fmt (a ? a->median_ms : NAN, 3));
      sp_table_add (t, sp_fmt (b ? b->median_ms : NAN, 3));
      sp_table_add (t, fmt_pct (a && b ? pct (a->median_ms, b->median_ms) :
              NAN));
      sp_table_add (t, sp_fmt (a ? a->p99_ms : NAN, 3));
      sp_table_add (t, sp_fmt (b ? b->p99_ms : NAN, 3));
      sp_table_add (t, fmt_pct (a && b ? pct (a->p99_ms, b->p99_ms) : NAN));
    }
    sp_table_render (t, f, o);
  }
  if (d->element_latency->len) {
    append_heading (o, f, "Latency through elements (ms)");
    t = sp_table_new (1, ehdr);
    for (guint i = 0; i < d->element_latency->len; i += 2) {
      const SpElemLatencyRow *a = d->element_latency->pdata[i], *b =
          d->element_latency->pdata[i + 1];
      sp_table_add (t, g_strdup (a ? a->name : b->name));
      sp_table_add (t, sp_fmt (a ? a->mean_ms : NAN, 3));
      sp_table_add (t, sp_fmt (b ? b->mean_ms : NAN, 3));
      sp_table_add (t, fmt_pct (a && b ? pct (a->mean_ms, b->mean_ms) :
              NAN));
      sp_table_add (t, sp_fmt (a ? a->dwell_ms : NAN, 3));
      sp_table_add (t, sp_fmt (b ? b->dwell_ms : NAN, 3));
    }
    sp_table_render (t, f, o);
  }
}

gchar *
sp_diff_render (const SpDiff * d, SpFormat f)
{
  GString *o = g_string_new (NULL);
  gchar *pa = sp_profile_pipelines (d->a), *pb = sp_profile_pipelines (d->b);
  guint nflag;

  if (f == SP_FORMAT_JSON) {
    render_json (d, o);
    goto out;
  }
  if (f != SP_FORMAT_CSV && f != SP_FORMAT_HTML)
    render_intro (d, f, pa, pb, o);
  nflag = render_elements (d, f, o);
  if (f == SP_FORMAT_CSV)
    goto out;
  if (f == SP_FORMAT_HTML) {
    render_only_html (d->only_a, "A", o);
    render_only_html (d->only_b, "B", o);
    goto out;
  }
  if (d->only_a->len || d->only_b->len) {
    append_heading (o, f, "Only in one run");
    append_only (o, f, "A", d->only_a);
    append_only (o, f, "B", d->only_b);
  }
  render_threads (d, f, o);
  render_queues (d, f, o);
  render_latency (d, f, o);
  g_string_append_printf (o, "%sVerdict A: %s\n%sVerdict B: %s\n",
      f == SP_FORMAT_MARKDOWN ? "\n- " : "",
      d->a->verdict ? d->a->verdict : "-",
      f == SP_FORMAT_MARKDOWN ? "- " : "",
      d->b->verdict ? d->b->verdict : "-");
  g_string_append_printf (o, "%s%u of %u matched elements changed beyond "
      "the noise\n", f == SP_FORMAT_MARKDOWN ? "\n" : "", nflag,
      d->elems->len);
out:
  g_free (pa);
  g_free (pb);
  return g_string_free (o, FALSE);
}
