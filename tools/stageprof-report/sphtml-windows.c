/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sphtml-windows: plots over time from interval windows (sphtml-windows.h).
 *
 * Each window is a step: its value holds from its start to its end, and a
 * queue's band spans its lowest to highest level in the window. A run of
 * more windows than the plot has pixels is thinned by merging neighbours
 * (time-weighted mean, lowest of the lows, highest of the highs), so a
 * swing in one window is never dropped: no aliasing. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sphtml-svg.h"
#include "sphtml-windows.h"

#define PLOT_H 220
#define TOP 20
#define BOTTOM 30
#define MAX_SERIES 8
/* one point a pixel of the plot at most */
#define MAX_POINTS (W - LEFT - 20)
#define LIMIT_IN_SCALE 2.0

typedef struct
{
  gdouble t0, t1;               /* running time (s) */
  gdouble v, lo, hi;            /* NAN: nothing in the window */
} WPt;

typedef struct
{
  gchar *label;
  gchar *key;                   /* pipeline, run and name */
  GArray *pts;                  /* WPt by time */
  gdouble limit;                /* a queue's buffer limit, 0: none */
  gdouble weight;               /* for choosing the series shown */
} WSeries;

static void
series_free (gpointer data)
{
  WSeries *s = data;

  g_free (s->label);
  g_free (s->key);
  g_array_free (s->pts, TRUE);
  g_free (s);
}

static WSeries *
series_get (GPtrArray * all, const gchar * pipeline, const gchar * run,
    const gchar * name, gboolean runs)
{
  gchar *key = g_strdup_printf ("%s\x1f%s\x1f%s", pipeline, run, name);
  WSeries *s;

  for (guint i = 0; i < all->len; i++) {
    s = all->pdata[i];
    if (!strcmp (s->key, key)) {
      g_free (key);
      return s;
    }
  }
  s = g_new0 (WSeries, 1);
  s->key = key;
  s->label = runs ? g_strdup_printf ("%s (%s run %s)", name, pipeline, run) :
      g_strdup (name);
  s->pts = g_array_new (FALSE, FALSE, sizeof (WPt));
  g_ptr_array_add (all, s);
  return s;
}

/* Whether the profile holds more than one pipeline run. */
static gboolean
several_runs (const SpProfile * p)
{
  const SpWindowRow *w0 = p->windows->len ? p->windows->pdata[0] : NULL;

  for (guint i = 1; i < p->windows->len; i++) {
    const SpWindowRow *w = p->windows->pdata[i];
    if (g_strcmp0 (w->pipeline, w0->pipeline) || g_strcmp0 (w->run, w0->run))
      return TRUE;
  }
  return FALSE;
}

static void
add_point (const SpProfile * p, WSeries * s, const gchar * pipeline,
    const gchar * run, gdouble window, gdouble v, gdouble lo, gdouble hi)
{
  const SpWindowRow *w = sp_profile_window (p, pipeline, run, window);
  gdouble t0;
  WPt pt;

  if (!w)
    return;
  t0 = sp_window_run_start (p, pipeline, run);
  pt.t0 = w->start_s - t0;
  pt.t1 = w->end_s - t0;
  pt.v = v;
  pt.lo = lo;
  pt.hi = hi;
  g_array_append_val (s->pts, pt);
}

static gint
by_t0 (gconstpointer a, gconstpointer b)
{
  const WPt *x = a, *y = b;

  return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static gint
by_weight (gconstpointer a, gconstpointer b)
{
  const WSeries *x = *(WSeries * const *) a, *y = *(WSeries * const *) b;

  return (x->weight < y->weight) - (x->weight > y->weight);
}

static gdouble
nan_min (gdouble a, gdouble b)
{
  return isnan (a) ? b : isnan (b) ? a : MIN (a, b);
}

static gdouble
nan_max (gdouble a, gdouble b)
{
  return isnan (a) ? b : isnan (b) ? a : MAX (a, b);
}

/* Merges neighbours until at most MAX_POINTS remain. */
static void
thin (GArray * pts)
{
  while (pts->len > MAX_POINTS) {
    guint n = 0;
    for (guint i = 0; i < pts->len; i += 2, n++) {
      WPt a = g_array_index (pts, WPt, i), m = a;
      if (i + 1 < pts->len) {
        const WPt *b = &g_array_index (pts, WPt, i + 1);
        gdouble la = a.t1 - a.t0, lb = b->t1 - b->t0;
        m.t1 = b->t1;
        m.v = isnan (a.v) ? b->v : isnan (b->v) ? a.v :
            la + lb > 0 ? (a.v * la + b->v * lb) / (la + lb) : a.v;
        m.lo = nan_min (a.lo, b->lo);
        m.hi = nan_max (a.hi, b->hi);
      }
      g_array_index (pts, WPt, n) = m;
    }
    g_array_set_size (pts, n);
  }
}

/* A step line of the series' values; a window without one breaks it. */
static void
step_line (GString * o, const WSeries * s, const gchar * c, gdouble tmax,
    gdouble vmax)
{
  gdouble h = PLOT_H - TOP - BOTTOM, base = PLOT_H - BOTTOM,
      sx = (W - LEFT - 20) / tmax;
  gboolean open = FALSE;

  for (guint j = 0; j <= s->pts->len; j++) {
    const WPt *pt = j < s->pts->len ? &g_array_index (s->pts, WPt, j) : NULL;
    if (!pt || isnan (pt->v)) {
      if (open) {
        g_string_append (o, "\"><title>");
        esc (o, s->label);
        g_string_append (o, "</title></polyline>\n");
      }
      open = FALSE;
      continue;
    }
    if (!open)
      g_string_append_printf (o, "<polyline class=\"wline\" fill=\"none\" "
          "stroke=\"%s\" stroke-width=\"1.5\" points=\"", c);
    open = TRUE;
    xy (o, LEFT + pt->t0 * sx, base - h * pt->v / vmax);
    xy (o, LEFT + pt->t1 * sx, base - h * pt->v / vmax);
  }
}

/* The lowest to highest of each window, as a shaded band. */
static void
band (GString * o, const WSeries * s, const gchar * c, gdouble tmax,
    gdouble vmax)
{
  gdouble h = PLOT_H - TOP - BOTTOM, base = PLOT_H - BOTTOM,
      sx = (W - LEFT - 20) / tmax;
  guint n = s->pts->len;

  g_string_append_printf (o, "<polygon class=\"wrange\" fill=\"%s\" "
      "fill-opacity=\"0.25\" stroke=\"none\" points=\"", c);
  for (guint j = 0; j < n; j++) {
    const WPt *pt = &g_array_index (s->pts, WPt, j);
    xy (o, LEFT + pt->t0 * sx, base - h * (isnan (pt->hi) ? 0 : pt->hi) /
        vmax);
    xy (o, LEFT + pt->t1 * sx, base - h * (isnan (pt->hi) ? 0 : pt->hi) /
        vmax);
  }
  for (guint j = n; j > 0; j--) {
    const WPt *pt = &g_array_index (s->pts, WPt, j - 1);
    xy (o, LEFT + pt->t1 * sx, base - h * (isnan (pt->lo) ? 0 : pt->lo) /
        vmax);
    xy (o, LEFT + pt->t0 * sx, base - h * (isnan (pt->lo) ? 0 : pt->lo) /
        vmax);
  }
  g_string_append (o, "\"><title>");
  esc (o, s->label);
  g_string_append (o, ": lowest to highest in each window</title>"
      "</polygon>\n");
}

static void
limit_line (GString * o, const WSeries * s, const gchar * c, gdouble vmax)
{
  gdouble y = PLOT_H - BOTTOM - (PLOT_H - TOP - BOTTOM) * s->limit / vmax;
  gchar *tip = g_strdup_printf ("%s: limit %.0f buffers", s->label,
      s->limit);

  g_string_append_printf (o, "<line class=\"wlimit\" x1=\"%d\" x2=\"%d\" "
      "stroke=\"%s\" stroke-dasharray=\"6 4\" y1=\"", LEFT, W - 20, c);
  num (o, y);
  g_string_append (o, "\" y2=\"");
  num (o, y);
  g_string_append (o, "\"><title>");
  esc (o, tip);
  g_string_append (o, "</title></line>\n");
  g_free (tip);
}

/* One plot of the heaviest MAX_SERIES series, on one time axis. */
static void
plot (GString * o, const gchar * title, const gchar * unit,
    GPtrArray * all, gboolean with_band)
{
  gdouble tmax = 0, vmax = 0, lim = 0;
  guint n;
  gchar *s;

  g_ptr_array_sort (all, by_weight);
  n = MIN (all->len, MAX_SERIES);
  for (guint i = 0; i < n; i++) {
    WSeries *se = all->pdata[i];
    g_array_sort (se->pts, by_t0);
    thin (se->pts);
    for (guint j = 0; j < se->pts->len; j++) {
      const WPt *pt = &g_array_index (se->pts, WPt, j);
      tmax = MAX (tmax, pt->t1);
      vmax = nan_max (vmax, with_band ? nan_max (pt->v, pt->hi) : pt->v);
    }
  }
  /* a limit near the levels is drawn to scale, one far above is named */
  for (guint i = 0; i < n; i++) {
    WSeries *se = all->pdata[i];
    if (se->limit > 0 && se->limit <= LIMIT_IN_SCALE * MAX (vmax, 1))
      lim = MAX (lim, se->limit);
  }
  vmax = MAX (vmax, lim);
  if (n == 0 || tmax <= 0)
    return;
  if (vmax <= 0)
    vmax = 1;
  svg_open (o, PLOT_H, title);
  rect (o, LEFT, TOP, W - LEFT - 20, PLOT_H - TOP - BOTTOM, "#fafafa", NULL);
  s = g_strdup_printf ("%.3g", vmax);
  text (o, LEFT - 6, TOP + 10, "end", s);
  g_free (s);
  text (o, LEFT - 6, PLOT_H - BOTTOM, "end", "0");
  text (o, LEFT - 6, PLOT_H / 2, "end", unit);
  text (o, LEFT, PLOT_H - 8, "start", "0 s");
  s = g_strdup_printf ("%.2f s of running time", tmax);
  text (o, W - 20, PLOT_H - 8, "end", s);
  g_free (s);
  for (guint i = 0; i < n; i++) {
    WSeries *se = all->pdata[i];
    const gchar *c = palette[i % G_N_ELEMENTS (palette)];
    gchar *label = se->limit > vmax ? g_strdup_printf ("%s (of %.0f)",
        se->label, se->limit) : g_strdup (se->label);

    rect (o, 10, TOP + i * 16, 12, 12, c, NULL);
    text (o, 26, TOP + 11 + i * 16, "start", label);
    g_free (label);
    if (with_band)
      band (o, se, c, tmax, vmax);
    step_line (o, se, c, tmax, vmax);
    if (se->limit > 0 && se->limit <= vmax)
      limit_line (o, se, c, vmax);
  }
  g_string_append (o, "</svg>\n");
}

/* A sink's latency histogram over the windows shown: one bar a bucket
 * ([lo, hi) ms, on a log axis: latencies span microseconds to seconds),
 * its height the frames in it. */
typedef struct
{
  gdouble lo, hi, frames;
} Bucket;

static gint
by_lo (gconstpointer a, gconstpointer b)
{
  const Bucket *x = a, *y = b;

  return (x->lo > y->lo) - (x->lo < y->lo);
}

static void
plot_histogram (GString * o, const SpProfile * p, const gchar * sink)
{
  GArray *b = g_array_new (FALSE, FALSE, sizeof (Bucket));
  gdouble lmin = G_MAXDOUBLE, lmax = 0, fmax = 0, total = 0, sx;
  gdouble h = PLOT_H - TOP - BOTTOM, base = PLOT_H - BOTTOM;
  gchar *title, *s;

  for (guint i = 0; i < p->window_latency_hist->len; i++) {
    const SpWinLatencyHistRow *r = p->window_latency_hist->pdata[i];
    Bucket *hit = NULL;

    if (g_strcmp0 (r->name, sink) || isnan (r->frames) || r->lo_ms <= 0)
      continue;
    for (guint j = 0; j < b->len && !hit; j++)
      if (g_array_index (b, Bucket, j).lo == r->lo_ms)
        hit = &g_array_index (b, Bucket, j);
    if (!hit) {
      Bucket nb = { r->lo_ms, r->hi_ms, 0 };
      g_array_append_val (b, nb);
      hit = &g_array_index (b, Bucket, b->len - 1);
    }
    hit->frames += r->frames;
  }
  g_array_sort (b, by_lo);
  for (guint j = 0; j < b->len; j++) {
    const Bucket *k = &g_array_index (b, Bucket, j);
    lmin = MIN (lmin, k->lo);
    lmax = MAX (lmax, k->hi);
    fmax = MAX (fmax, k->frames);
    total += k->frames;
  }
  if (b->len == 0) {
    g_array_free (b, TRUE);
    return;
  }
  /* a decade on each side at least, on a log axis */
  lmin = pow (10, floor (log10 (lmin)));
  lmax = pow (10, ceil (log10 (lmax)));
  sx = (W - LEFT - 20) / log10 (lmax / lmin);
  title = g_strdup_printf ("Latency histogram of %s (%.0f frames)", sink,
      total);
  svg_open (o, PLOT_H, title);
  rect (o, LEFT, TOP, W - LEFT - 20, h, "#fafafa", NULL);
  for (guint j = 0; j < b->len; j++) {
    const Bucket *k = &g_array_index (b, Bucket, j);
    gdouble x0 = LEFT + sx * log10 (k->lo / lmin);
    gdouble x1 = LEFT + sx * log10 (k->hi / lmin);
    gchar *tip = g_strdup_printf ("%.3g to %.3g ms: %.0f frames", k->lo,
        k->hi, k->frames);
    rect (o, x0, base - h * k->frames / fmax, MAX (x1 - x0 - 0.5, 0.5),
        h * k->frames / fmax, palette[2], tip);
    g_free (tip);
  }
  s = g_strdup_printf ("%.0f", fmax);
  text (o, LEFT - 6, TOP + 10, "end", s);
  g_free (s);
  text (o, LEFT - 6, base, "end", "0");
  text (o, LEFT - 6, PLOT_H / 2, "end", "frames");
  s = g_strdup_printf ("%g ms", lmin);
  text (o, LEFT, PLOT_H - 8, "start", s);
  g_free (s);
  s = g_strdup_printf ("%g ms (log)", lmax);
  text (o, W - 20, PLOT_H - 8, "end", s);
  g_free (s);
  g_string_append (o, "</svg>\n");
  g_free (title);
  g_array_free (b, TRUE);
}

static void
section (GString * o, const gchar * title, const gchar * note)
{
  g_string_append (o, "<h2>");
  esc (o, title);
  g_string_append (o, "</h2>\n<p class=\"legend\">");
  esc (o, note);
  g_string_append (o, "</p>\n");
}

void
sp_html_windows (GString * o, const SpProfile * p)
{
  GPtrArray *self = g_ptr_array_new_with_free_func (series_free),
      *fps = g_ptr_array_new_with_free_func (series_free),
      *bits = g_ptr_array_new_with_free_func (series_free),
      *levels = g_ptr_array_new_with_free_func (series_free);
  GPtrArray *lat = g_ptr_array_new_with_free_func (series_free);
  GPtrArray *sinks = g_ptr_array_new ();
  gboolean runs = several_runs (p);

  for (guint i = 0; i < p->window_elements->len; i++) {
    const SpWinElemRow *r = p->window_elements->pdata[i];
    gchar *name = g_strdup_printf ("%s [%s]", r->name, r->thread);
    WSeries *s = series_get (self, r->pipeline, r->run, name, runs);

    add_point (p, s, r->pipeline, r->run, r->window, r->count > 0 ?
        r->mean_ms : NAN, NAN, NAN);
    s->weight += isnan (r->total_s) ? 0 : r->total_s;
    g_free (name);
  }
  for (guint i = 0; i < p->window_pads->len; i++) {
    const SpWinPadRow *r = p->window_pads->pdata[i];
    gboolean frames = !g_strcmp0 (r->unit, "frames");
    gchar *name = g_strdup_printf ("%s%s", r->pad, frames ? "" :
        " (buffers/s)");
    WSeries *s = series_get (fps, r->pipeline, r->run, name, runs);

    add_point (p, s, r->pipeline, r->run, r->window, frames ? r->fps :
        r->buffers_per_s, NAN, NAN);
    s->weight += r->buffers;
    g_free (name);
    s = series_get (bits, r->pipeline, r->run, r->pad, runs);
    add_point (p, s, r->pipeline, r->run, r->window, r->bytes_per_s * 8e-6,
        NAN, NAN);
    s->weight += r->bytes_per_s;
  }
  for (guint i = 0; i < p->window_queues->len; i++) {
    const SpWinQueueRow *r = p->window_queues->pdata[i];
    WSeries *s = series_get (levels, r->pipeline, r->run, r->name, runs);

    add_point (p, s, r->pipeline, r->run, r->window, r->mean_level,
        r->min_level, r->max_level);
    s->limit = isnan (r->limit_buffers) ? 0 : r->limit_buffers;
    s->weight += r->max_level;
  }
  for (guint i = 0; i < p->window_latency->len; i++) {
    const SpWinLatencyRow *r = p->window_latency->pdata[i];
    gchar *name = g_strdup_printf ("%s median", r->name);
    WSeries *s = series_get (lat, r->pipeline, r->run, name, runs);

    add_point (p, s, r->pipeline, r->run, r->window, r->median_ms, NAN, NAN);
    s->weight += r->frames * 2 + 1;     /* each sink's median first */
    g_free (name);
    name = g_strdup_printf ("%s P99", r->name);
    s = series_get (lat, r->pipeline, r->run, name, runs);
    add_point (p, s, r->pipeline, r->run, r->window, r->p99_ms, NAN, NAN);
    s->weight += r->frames * 2;
    g_free (name);
    if (!g_ptr_array_find_with_equal_func (sinks, r->name, g_str_equal,
            NULL))
      g_ptr_array_add (sinks, r->name);
  }
  section (o, "Over time: self time per element", "Mean self time a buffer "
      "in each window (ms), the elements with the most self time.");
  plot (o, "Mean self time per element, window by window", "ms", self,
      FALSE);
  section (o, "Over time: frames per second per src pad", "Buffers each "
      "src pad sent in each window, a second (frames where they are video "
      "frames).");
  plot (o, "Frames per second per src pad, window by window", "fps", fps,
      FALSE);
  section (o, "Over time: bitrate per src pad", "Megabits a second each src "
      "pad sent in each window.");
  plot (o, "Bitrate per src pad, window by window", "Mbit/s", bits, FALSE);
  if (levels->len) {
    section (o, "Over time: queue levels", "Each window's lowest to highest "
        "level (band) and time-weighted mean (line), in buffers; dashed: "
        "the queue's buffer limit.");
    plot (o, "Queue levels, window by window", "buffers", levels, TRUE);
  }
  if (lat->len) {
    section (o, "Over time: latency per sink", "Median and P99 of the "
        "end-to-end latency (ms from a frame's first push) of the frames "
        "that reached each sink in each window (latency=true).");
    plot (o, "Latency per sink, window by window", "ms", lat, FALSE);
    section (o, "Latency histogram", "The frames of the windows shown, by "
        "latency (buckets of an eighth of an octave).");
    for (guint i = 0; i < sinks->len && i < MAX_SERIES; i++)
      plot_histogram (o, p, sinks->pdata[i]);
  }
  g_ptr_array_free (lat, TRUE);
  g_ptr_array_free (sinks, TRUE);
  g_ptr_array_free (self, TRUE);
  g_ptr_array_free (fps, TRUE);
  g_ptr_array_free (bits, TRUE);
  g_ptr_array_free (levels, TRUE);
}
