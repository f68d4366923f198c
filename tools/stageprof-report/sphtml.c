/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sphtml: the HTML report. Plots are drawn here as SVG, so the file needs
 * nothing but a browser. One small inline script only checks that every
 * plot was laid out (the tests read its verdict from the DOM). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "sphtml.h"
#include "sphtml-svg.h"
#include "sphtml-windows.h"
#include "spdiff.h"
#include "spshow.h"

/* ---- plots ---------------------------------------------------------- */

static void
plot_self_time (GString * o, const SpProfile * p)
{
  guint n = MIN (p->elements->len, MAX_ROWS), i;
  gdouble max = 0;

  for (i = 0; i < n; i++) {
    gdouble t = ((SpElemRow *) p->elements->pdata[i])->total_s;
    if (!isnan (t))
      max = MAX (max, t);
  }
  svg_open (o, 30 + n * ROW, "Self time per element");
  for (i = 0; i < n; i++) {
    const SpElemRow *r = p->elements->pdata[i];
    gchar *label = elem_label (r), *val = sp_fmt (r->total_s, 3);
    gchar *tip = g_strdup_printf ("%s: %s s self time", label, val);
    gdouble w = max > 0 && !isnan (r->total_s) ? (W - LEFT - 90) *
        r->total_s / max : 0;
    text (o, LEFT - 6, 24 + i * ROW, "end", label);
    rect (o, LEFT, 11 + i * ROW, w, ROW - 4, palette[0], tip);
    g_free (tip);
    tip = g_strdup_printf ("%s s", val);
    text (o, LEFT + w + 4, 24 + i * ROW, "start", tip);
    g_free (tip);
    g_free (label);
    g_free (val);
  }
  g_string_append (o, "</svg>\n");
}

static void
plot_threads (GString * o, const SpProfile * p)
{
  static const gchar *const names[] = { "busy", "wait on input",
    "wait on output", "blocked", "wait for a CPU", "other"
  };
  static const gchar *const colors[] = { "#e15759", "#76b7b2", "#edc948",
    "#b07aa1", "#9c755f", "#dddddd"
  };
  guint n = MIN (p->threads->len, MAX_ROWS), i, k;
  gdouble span = W - LEFT - 20;

  svg_open (o, 50 + n * ROW, "Thread shares");
  for (k = 0; k < 6; k++) {
    rect (o, 10 + k * 145, 6, 12, 12, colors[k], NULL);
    text (o, 10 + k * 145 + 16, 17, "start", names[k]);
  }
  for (i = 0; i < n; i++) {
    const SpThreadRow *t = p->threads->pdata[i];
    gdouble v[6], x = LEFT, y = 30 + i * ROW;
    v[0] = isnan (t->busy_pct) ? 0 : t->busy_pct;
    v[1] = isnan (t->wait_input_pct) ? 0 : t->wait_input_pct;
    v[2] = isnan (t->wait_output_pct) ? 0 : t->wait_output_pct;
    v[3] = isnan (t->blocked_pct) ? 0 : t->blocked_pct;
    v[4] = isnan (t->cpu_wait_pct) ? 0 : t->cpu_wait_pct;
    v[5] = MAX (0, 100 - v[0] - v[1] - v[2] - v[3] - v[4]);
    text (o, LEFT - 6, y + 13, "end", t->name);
    for (k = 0; k < 6; k++) {
      gchar *tip = g_strdup_printf ("%s: %s %.1f%%", t->name, names[k], v[k]);
      gdouble w = span * MIN (v[k], 100) / 100;
      if (x + w > LEFT + span)
        w = MAX (LEFT + span - x, 0);
      rect (o, x, y, w, ROW - 4, colors[k], tip);
      x += w;
      g_free (tip);
    }
  }
  g_string_append (o, "</svg>\n");
}

/* How far above the highest level a queue's limit still sets the scale. */
#define LIMIT_IN_SCALE 2.0

/* Where a point of a queue's series goes: x of time `t`, y of level `v`. */
static gdouble
qx (gdouble t, gdouble tmax)
{
  return LEFT + (W - LEFT - 20) * (tmax > 0 ? t / tmax : 0);
}

static gdouble
qy (gdouble v, gdouble lmax, gdouble h, gdouble base)
{
  return base - h * v / lmax;
}

/* The range each point stands for, lowest to highest sample, as a shaded
 * band: a queue swinging between 0 and 1 faster than the points shows as
 * a band 0..1, never as one of the two (thinning kept only one). */
static void
queue_band (GString * o, const SpQueueRow * q, const gchar * c,
    gdouble tmax, gdouble lmax, gdouble h, gdouble base)
{
  guint j, n = q->series->len;

  g_string_append_printf (o, "<polygon class=\"qrange\" fill=\"%s\" "
      "fill-opacity=\"0.25\" stroke=\"none\" points=\"", c);
  for (j = 0; j < n; j++) {
    const SpPoint *pt = &g_array_index (q->series, SpPoint, j);
    xy (o, qx (pt->t_s, tmax), qy (pt->max, lmax, h, base));
    xy (o, qx (pt->t_s + pt->span_s, tmax), qy (pt->max, lmax, h, base));
  }
  for (j = n; j > 0; j--) {
    const SpPoint *pt = &g_array_index (q->series, SpPoint, j - 1);
    xy (o, qx (pt->t_s + pt->span_s, tmax), qy (pt->min, lmax, h, base));
    xy (o, qx (pt->t_s, tmax), qy (pt->min, lmax, h, base));
  }
  g_string_append (o, "\"><title>");
  esc (o, q->name);
  g_string_append (o, ": lowest to highest level</title></polygon>\n");
}

/* The mean level of each point, as a step line: it holds until the next. */
static void
queue_mean_line (GString * o, const SpQueueRow * q, const gchar * c,
    gdouble tmax, gdouble lmax, gdouble h, gdouble base)
{
  guint j;
  gdouble py = 0;

  g_string_append_printf (o, "<polyline class=\"qmean\" fill=\"none\" "
      "stroke=\"%s\" stroke-width=\"1.5\" points=\"", c);
  for (j = 0; j < q->series->len; j++) {
    const SpPoint *pt = &g_array_index (q->series, SpPoint, j);
    gdouble x = qx (pt->t_s, tmax), y = qy (pt->level, lmax, h, base);
    if (j)
      xy (o, x, py);
    xy (o, x, y);
    py = y;
  }
  g_string_append (o, "\"><title>");
  esc (o, q->name);
  g_string_append (o, ": mean level</title></polyline>\n");
}

static void
plot_queues (GString * o, const SpProfile * p)
{
  const gint H = 260, top = 30, bottom = 30;
  gdouble tmax = 0, lmax = 1, lim;
  guint i, j, nseries = 0;

  for (i = 0; i < p->queues->len; i++) {
    const SpQueueRow *q = p->queues->pdata[i];
    if (!q->series || q->series->len == 0)
      continue;
    nseries++;
    for (j = 0; j < q->series->len; j++) {
      const SpPoint *pt = &g_array_index (q->series, SpPoint, j);
      tmax = MAX (tmax, pt->t_s + pt->span_s);
      lmax = MAX (lmax, pt->max);
    }
  }
  /* A limit near the levels is drawn to scale; one far above them (a
   * queue of 200 buffers holding 2) would flatten the levels into the
   * axis: it is named beside the queue instead. */
  for (i = 0, lim = lmax; i < p->queues->len; i++) {
    const SpQueueRow *q = p->queues->pdata[i];
    if (q->series && q->series->len && q->limit_buffers > 0
        && q->limit_buffers <= LIMIT_IN_SCALE * lmax)
      lim = MAX (lim, q->limit_buffers);
  }
  lmax = lim;
  if (nseries == 0) {
    /* A summary or db: mean and max level only. */
    guint n = MIN (p->queues->len, MAX_ROWS);
    for (i = 0; i < n; i++) {
      const SpQueueRow *q = p->queues->pdata[i];
      if (!isnan (q->max_level))
        lmax = MAX (lmax, q->max_level);
    }
    g_string_append (o, "<p class=\"note\">Levels over time are in a trace "
        "only; this input has each queue's mean (bar) and max (line).</p>");
    svg_open (o, 30 + n * ROW, "Queue levels");
    for (i = 0; i < n; i++) {
      const SpQueueRow *q = p->queues->pdata[i];
      gdouble sc = (W - LEFT - 90) / lmax, y = 11 + i * ROW;
      gchar *tip = g_strdup_printf ("%s: mean %.2f, max %.0f buffers",
          q->name, q->mean_level, q->max_level);
      text (o, LEFT - 6, y + 13, "end", q->name);
      rect (o, LEFT, y, isnan (q->mean_level) ? 0 : q->mean_level * sc,
          ROW - 4, palette[1], tip);
      if (!isnan (q->max_level))
        rect (o, LEFT + q->max_level * sc - 1, y - 2, 2, ROW, "#333333",
            tip);
      g_free (tip);
    }
    g_string_append (o, "</svg>\n");
    return;
  }
  svg_open (o, H, "Queue levels over time");
  rect (o, LEFT, top, W - LEFT - 20, H - top - bottom, "#fafafa", NULL);
  {
    gchar *s = g_strdup_printf ("%.0f", lmax);
    text (o, LEFT - 6, top + 10, "end", s);
    g_free (s);
    text (o, LEFT - 6, H - bottom, "end", "0");
    text (o, LEFT, H - 8, "start", "0 s");
    s = g_strdup_printf ("%.2f s", tmax);
    text (o, W - 20, H - 8, "end", s);
    g_free (s);
    text (o, LEFT - 6, H / 2, "end", "buffers");
  }
  for (i = 0, nseries = 0; i < p->queues->len; i++) {
    const SpQueueRow *q = p->queues->pdata[i];
    const gchar *c = palette[nseries % G_N_ELEMENTS (palette)];
    if (!q->series || q->series->len == 0)
      continue;
    rect (o, 10, top + nseries * ROW, 12, 12, c, NULL);
    if (q->limit_buffers > 0 && q->limit_buffers > lmax) {
      gchar *label = g_strdup_printf ("%s (of %.0f)", q->name,
          q->limit_buffers);
      text (o, 26, top + 11 + nseries * ROW, "start", label);
      g_free (label);
    } else {
      text (o, 26, top + 11 + nseries * ROW, "start", q->name);
    }
    nseries++;
    queue_band (o, q, c, tmax, lmax, H - top - bottom, H - bottom);
    queue_mean_line (o, q, c, tmax, lmax, H - top - bottom, H - bottom);
    if (q->limit_buffers > 0 && q->limit_buffers <= lmax) {
      gdouble y = H - bottom - (H - top - bottom) * q->limit_buffers / lmax;
      gchar *tip = g_strdup_printf ("%s: limit %.0f buffers", q->name,
          q->limit_buffers);
      g_string_append_printf (o, "<line class=\"qlimit\" x1=\"%d\" "
          "x2=\"%d\" stroke=\"%s\" stroke-dasharray=\"6 4\" y1=\"", LEFT,
          W - 20, c);
      num (o, y);
      g_string_append (o, "\" y2=\"");
      num (o, y);
      g_string_append (o, "\"><title>");
      esc (o, tip);
      g_string_append (o, "</title></line>\n");
      g_free (tip);
    }
  }
  g_string_append (o, "</svg>\n");
}

/* Median, P90 and P99 of each element on a log axis: per-buffer times span
 * microseconds to tens of milliseconds in one pipeline. */
static void
plot_latency (GString * o, const SpProfile * p)
{
  guint n = MIN (p->elements->len, MAX_ROWS), i;
  gdouble lo = G_MAXDOUBLE, hi = 0, l0, l1;
  gdouble span = W - LEFT - 30;

  for (i = 0; i < n; i++) {
    const SpElemRow *r = p->elements->pdata[i];
    if (!isnan (r->median_ms) && r->median_ms > 0)
      lo = MIN (lo, r->median_ms);
    if (!isnan (r->p99_ms))
      hi = MAX (hi, r->p99_ms);
  }
  if (hi <= 0 || lo == G_MAXDOUBLE) {
    g_string_append (o, "<p class=\"note\">No per-buffer times.</p>");
    return;
  }
  l0 = floor (log10 (lo));
  l1 = ceil (log10 (hi));
  if (l1 <= l0)
    l1 = l0 + 1;
  svg_open (o, 50 + n * ROW, "Per-buffer time: median, P90, P99");
  for (gdouble d = l0; d <= l1; d += 1) {
    gdouble x = LEFT + span * (d - l0) / (l1 - l0);
    gchar *s = g_strdup_printf ("%g ms", pow (10, d));
    rect (o, x, 20, 1, n * ROW + 4, "#cccccc", NULL);
    text (o, x, 14, "middle", s);
    g_free (s);
  }
#define X(v) (LEFT + span * ((log10 (MAX ((v), pow (10, l0))) - l0) / (l1 - l0)))
  for (i = 0; i < n; i++) {
    const SpElemRow *r = p->elements->pdata[i];
    gdouble y = 26 + i * ROW;
    gchar *label = elem_label (r);
    gchar *tip = g_strdup_printf ("%s: median %.3f ms, P90 %.3f ms, P99 "
        "%.3f ms", label, r->median_ms, r->p90_ms, r->p99_ms);
    text (o, LEFT - 6, y + 12, "end", label);
    if (!isnan (r->median_ms) && !isnan (r->p99_ms) && r->p99_ms > 0) {
      gdouble xm = X (r->median_ms), x9 = X (r->p90_ms), x99 = X (r->p99_ms);
      rect (o, xm, y + 6, x99 - xm, 4, "#9c755f", tip);
      rect (o, x9 - 1, y + 1, 3, 14, "#f28e2b", tip);
      rect (o, x99 - 1, y + 1, 3, 14, "#e15759", tip);
      g_string_append (o, "<circle cx=\"");
      num (o, xm);
      g_string_append (o, "\" cy=\"");
      num (o, y + 8);
      g_string_append (o, "\" r=\"5\" fill=\"#4e79a7\"><title>");
      esc (o, tip);
      g_string_append (o, "</title></circle>\n");
    }
    g_free (tip);
    g_free (label);
  }
#undef X
  g_string_append (o, "</svg>\n<p class=\"legend\"><span style=\"color:"
      "#4e79a7\">&#9679;</span> median &#160; <span style=\"color:#f28e2b\">"
      "|</span> P90 &#160; <span style=\"color:#e15759\">|</span> P99</p>\n");
}

static void
plot_diff (GString * o, const SpDiff * d)
{
  guint n = MIN (d->elems->len, MAX_ROWS), i;
  /* 50 px each side for the figure at a full bar's end */
  gdouble mid = LEFT + (W - LEFT - 20) / 2.0, half = (W - LEFT - 120) / 2.0;
  gdouble lim = 10;

  for (i = 0; i < n; i++) {
    gdouble v = g_array_index (d->elems, SpDiffElem, i).d_total_pct;
    if (!isnan (v))
      lim = MAX (lim, MIN (fabs (v), 400));
  }
  svg_open (o, 40 + n * ROW, "Change of total self time, B against A");
  rect (o, mid, 4, 1, n * ROW + 24, "#333333", NULL);
  {
    gchar *s = g_strdup_printf ("-%.0f%%", lim);
    text (o, mid - half, 14, "start", s);
    g_free (s);
    s = g_strdup_printf ("+%.0f%%", lim);
    text (o, mid + half, 14, "end", s);
    g_free (s);
  }
  for (i = 0; i < n; i++) {
    const SpDiffElem *e = &g_array_index (d->elems, SpDiffElem, i);
    gdouble v = isnan (e->d_total_pct) ? 0 : CLAMP (e->d_total_pct, -lim,
        lim);
    gdouble w = half * fabs (v) / lim, y = 22 + i * ROW;
    const gchar *c = e->change == SP_CHANGE_SLOWER ? "#e15759" :
        e->change == SP_CHANGE_FASTER ? "#59a14f" : "#bab0ac";
    gchar *label = elem_label (e->b);
    gchar *tip = g_strdup_printf ("%s: total %.3f s -> %.3f s (%+.1f%%), "
        "mean %+.1f%%: %s", label, e->a->total_s, e->b->total_s,
        e->d_total_pct, e->d_mean_pct, e->change == SP_CHANGE_SLOWER ?
        "slower beyond noise" : e->change == SP_CHANGE_FASTER ?
        "faster beyond noise" : "within noise");
    text (o, LEFT - 6, y + 12, "end", label);
    rect (o, v < 0 ? mid - w : mid, y, w, ROW - 4, c, tip);
    g_free (tip);
    /* the figure on the bar's end */
    tip = isnan (e->d_total_pct) ? g_strdup ("-") :
        g_strdup_printf ("%+.0f%%", e->d_total_pct);
    text (o, v < 0 ? mid - w - 4 : mid + w + 4, y + 12, v < 0 ? "end" :
        "start", tip);
    g_free (tip);
    g_free (label);
  }
  g_string_append (o, "</svg>\n<p class=\"legend\"><span style=\"color:"
      "#e15759\">&#9632;</span> slower beyond noise &#160; <span style=\""
      "color:#59a14f\">&#9632;</span> faster beyond noise &#160; <span style="
      "\"color:#bab0ac\">&#9632;</span> within noise</p>\n");
}

/* Each matched element's total self time in A and in B, two bars a row
 * on one scale, with their figures: what the change plot's percentages
 * are percentages of. */
static void
plot_pair (GString * o, const SpDiff * d)
{
  guint n = MIN (d->elems->len, MAX_ROWS), i;
  gdouble max = 0, row = 2 * ROW + 4;

  for (i = 0; i < n; i++) {
    const SpDiffElem *e = &g_array_index (d->elems, SpDiffElem, i);
    if (!isnan (e->a->total_s))
      max = MAX (max, e->a->total_s);
    if (!isnan (e->b->total_s))
      max = MAX (max, e->b->total_s);
  }
  svg_open (o, 30 + n * row, "Total self time per element, A and B on one "
      "scale");
  for (i = 0; i < n; i++) {
    const SpDiffElem *e = &g_array_index (d->elems, SpDiffElem, i);
    const SpElemRow *side[2] = { e->a, e->b };
    gchar *label = elem_label (e->b);
    guint k;

    text (o, LEFT - 6, 24 + i * row + ROW / 2, "end", label);
    for (k = 0; k < 2; k++) {
      const SpElemRow *r = side[k];
      gdouble y = 11 + i * row + k * ROW;
      gdouble w = max > 0 && !isnan (r->total_s) ? (W - LEFT - 110) *
          r->total_s / max : 0;
      gchar *val = sp_fmt (r->total_s, 3);
      gchar *tip = g_strdup_printf ("%s in %s: %s s self time", label,
          k ? "B" : "A", val);
      gchar *fig = g_strdup_printf ("%s %s s", k ? "B" : "A", val);

      rect (o, LEFT, y, w, ROW - 4, palette[k], tip);
      text (o, LEFT + w + 4, y + 13, "start", fig);
      g_free (fig);
      g_free (tip);
      g_free (val);
    }
    g_free (label);
  }
  g_string_append_printf (o, "</svg>\n<p class=\"legend\"><span style=\""
      "color:%s\">&#9632;</span> A &#160; <span style=\"color:%s\">"
      "&#9632;</span> B</p>\n", palette[0], palette[1]);
}

/* ---- the page ------------------------------------------------------- */

static void
section (GString * o, const gchar * title)
{
  g_string_append (o, "<h2>");
  esc (o, title);
  g_string_append (o, "</h2>\n");
}

static void
profile_part (GString * o, const SpProfile * p, const gchar * tag)
{
  gchar *pipes = sp_profile_pipelines (p), *wall = sp_fmt (p->wall_s, 3);
  gchar *t;
  guint i;

  t = g_strdup_printf ("%s%s", tag ? tag : "", p->path);
  g_string_append (o, "<h1>");
  esc (o, t);
  g_string_append (o, "</h1>\n<p>");
  g_free (t);
  t = g_strdup_printf ("Pipeline %s, %s s, read from a %s.", *pipes ? pipes :
      "-", wall, p->kind == SP_SOURCE_TRACE ? (p->rows_from_summary ?
          "Chrome trace (figures from the runs' summaries it carries, "
          "timeline from its slices)" : "Chrome trace (figures "
          "recomputed from its slices)") : p->kind == SP_SOURCE_DB ?
      "stageprof database" : "stageprof summary");
  esc (o, t);
  g_free (t);
  g_string_append (o, "</p>\n<p class=\"verdict\">Verdict: ");
  esc (o, p->verdict ? p->verdict : "-");
  g_string_append (o, "</p>\n");
  for (i = 0; i < p->notes->len; i++) {
    g_string_append (o, "<p class=\"note\">Note: ");
    esc (o, p->notes->pdata[i]);
    g_string_append (o, "</p>\n");
  }
  section (o, "Self time per element");
  if (p->elements->len > MAX_ROWS)
    g_string_append_printf (o, "<p class=\"legend\">The %d elements with "
        "the most self time of %u; the table below has them all.</p>\n",
        MAX_ROWS, p->elements->len);
  plot_self_time (o, p);
  section (o, "Threads: where their time went");
  plot_threads (o, p);
  if (p->queues->len) {
    section (o, "Queue levels");
    plot_queues (o, p);
  }
  section (o, "Per-buffer time distribution");
  plot_latency (o, p);
  if (p->windows->len)
    sp_html_windows (o, p);
  section (o, "Elements (times in ms, Total in s)");
  sp_show_table (p, "elements", SP_FORMAT_HTML, 0, o);
  if (p->queues->len) {
    section (o, "Queues");
    sp_show_table (p, "queues", SP_FORMAT_HTML, 0, o);
  }
  section (o, "Threads (share of wall time, %)");
  sp_show_table (p, "threads", SP_FORMAT_HTML, 0, o);
  if (p->sinks->len) {
    section (o, "Sinks");
    sp_show_table (p, "sinks", SP_FORMAT_HTML, 0, o);
  }
  if (p->latency->len) {
    section (o, "Latency (ms from a frame's origin to the sink; render: "
        "to the return of a sink on the clock)");
    sp_show_table (p, "latency", SP_FORMAT_HTML, 0, o);
  }
  if (p->element_latency->len) {
    section (o, "Latency through elements (ms; work: self time a buffer; "
        "dwell: waiting inside)");
    sp_show_table (p, "element_latency", SP_FORMAT_HTML, 0, o);
  }
  if (p->pools->len) {
    section (o, "Buffer pools (wait: its user waiting for a free buffer; "
        "held when empty: where its buffers were)");
    sp_show_table (p, "pools", SP_FORMAT_HTML, 0, o);
  }
  if (p->memory->len) {
    section (o, "Memory by element (bytes it allocated, pool buffers it "
        "handed out, alive now and at most)");
    sp_show_table (p, "memory", SP_FORMAT_HTML, 0, o);
  }
  g_free (pipes);
  g_free (wall);
}

gchar *
sp_html_render (const SpProfile * a, const SpProfile * b)
{
  GString *o = g_string_new (NULL);

  g_string_append (o, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
      "<meta charset=\"utf-8\"><title>stageprof report</title>\n<style>\n"
      "body{font:14px sans-serif;margin:20px;color:#222;max-width:1160px}\n"
      "h1{font-size:20px;border-bottom:2px solid #4e79a7}"
      "h2{font-size:16px;margin-top:24px}\n"
      "table{border-collapse:collapse;font:11px monospace;margin:6px 0}\n"
      "td,th{border:1px solid #ccc;padding:1px 4px;text-align:right;"
      "white-space:nowrap}\n"
      ".l{text-align:left}th{background:#eef}\n"
      ".verdict{font-weight:bold;background:#fff6d5;padding:6px}\n"
      ".note{color:#a33}.legend{font-size:12px}\n"
      "svg{display:block;font:11px sans-serif;margin:4px 0}\n"
      "</style></head><body>\n");
  if (b) {
    SpDiff *d = sp_diff_new (a, b);
    gchar *t;
    g_string_append (o, "<h1>stageprof diff</h1>\n<p>A: ");
    esc (o, a->path);
    g_string_append (o, "<br>B: ");
    esc (o, b->path);
    g_string_append (o, "</p>\n<p class=\"verdict\">Verdict A: ");
    esc (o, a->verdict ? a->verdict : "-");
    g_string_append (o, "<br>Verdict B: ");
    esc (o, b->verdict ? b->verdict : "-");
    g_string_append (o, "</p>\n");
    section (o, "Change of total self time per element");
    plot_diff (o, d);
    section (o, "Total self time, A and B side by side");
    plot_pair (o, d);
    section (o, "Elements, A and B");
    t = sp_diff_render (d, SP_FORMAT_HTML);
    g_string_append (o, t);
    g_free (t);
    sp_diff_free (d);
    profile_part (o, a, "A: ");
    profile_part (o, b, "B: ");
  } else {
    profile_part (o, a, NULL);
  }
  g_string_append (o, "<p id=\"selfcheck\"></p>\n<script>\n"
      "(function () {\n"
      "  var s = document.querySelectorAll('svg'), ok = 0, i, r;\n"
      "  for (i = 0; i < s.length; i++) {\n"
      "    r = s[i].getBoundingClientRect();\n"
      "    if (r.width > 0 && r.height > 0 &&\n"
      "        s[i].querySelectorAll('rect,polyline,circle').length > 0)\n"
      "      ok++;\n"
      "  }\n"
      "  var e = document.getElementById('selfcheck');\n"
      "  e.textContent = 'plots drawn: ' + ok + ' of ' + s.length;\n"
      "  e.setAttribute('data-ok', ok === s.length && ok > 0 ? '1' : '0');\n"
      "})();\n</script>\n</body></html>\n");
  return g_string_free (o, FALSE);
}
