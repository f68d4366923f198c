/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof interval windows (docs/tracer.md, "Windows"): a pipeline whose
 * rate changes on a schedule the test sets (identity sleep-time: about 30
 * buffers/s, then about 10), and each window, read from the database, the
 * trace's counter tracks and the get-window signal, holds the rate of its
 * own interval; stageprof-report's --from/--till on that database and
 * trace count what arrived in the range, and its html plots the windows.
 *
 * Ground truth is the test's own: a tracer object of its own (no stageprof
 * code) takes the hook time of every buffer the sink receives, on the
 * same clock as stageprof's windows. A window [start, end] then holds the
 * buffers that arrived in it. stageprof books a buffer at that same hook
 * and copies its counters when a window closes, a few microseconds after
 * `end` was read: a buffer arriving in between lands in the neighbouring
 * window. At 30 buffers/s (33 ms apart) that is at most one buffer at each
 * end of a window, so a window's count is within 2 of the truth.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <sqlite3.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <json-glib/json-glib.h>

#include "lib/stagetest.h"
#include "spschema.h"
#include "tmpdir.h"

#define INTERVAL_S 1.0
#define FAST_US 33333           /* identity sleep-time: ~30 buffers/s */
#define SLOW_US 100000          /* ~10 buffers/s */
#define FAST_FOR_MS 3500
#define SLOW_FOR_MS 4000
/* the queue's src pad feeds the sink, whose arrivals are the truth */
#define PAD "queue0:src"
#define TOOL TESTS_BUILD_DIR "/../tools/stageprof-report"

/* ---- the truth: arrivals at the sink, in hook time -------------------- */

typedef struct
{
  GstTracer parent;
} ArrivalTracer;

typedef struct
{
  GstTracerClass parent_class;
} ArrivalTracerClass;

static GType arrival_tracer_get_type (void);
G_DEFINE_TYPE (ArrivalTracer, arrival_tracer, GST_TYPE_TRACER);

static GMutex arrivals_lock;
static GArray *arrivals;        /* guint64 hook ts */
static GstPad *watched;         /* the sink's pad (identity only) */

static void
on_chain_pre (GObject * self, GstClockTime ts, GstPad * pad, GstBuffer * buf)
{
  if (pad != watched)
    return;
  g_mutex_lock (&arrivals_lock);
  g_array_append_val (arrivals, ts);
  g_mutex_unlock (&arrivals_lock);
}

static void
arrival_tracer_class_init (ArrivalTracerClass * klass)
{
}

static void
arrival_tracer_init (ArrivalTracer * self)
{
  gst_tracing_register_hook (GST_TRACER (self), "pad-chain-pre",
      G_CALLBACK (on_chain_pre));
}

/* Buffers that arrived in (start, end] (ns of hook time). */
static guint
truth_count (gdouble start_s, gdouble end_s)
{
  guint64 start = (guint64) (start_s * 1e9), end = (guint64) (end_s * 1e9);
  guint n = 0;

  g_mutex_lock (&arrivals_lock);
  for (guint i = 0; i < arrivals->len; i++) {
    guint64 ts = g_array_index (arrivals, guint64, i);
    n += ts > start && ts <= end;
  }
  g_mutex_unlock (&arrivals_lock);
  return n;
}

/* ---- the tracer under test -------------------------------------------- */

static GstTracer *
find_prof (void)
{
  GList *list = gst_tracing_get_active_tracers (), *l;
  GstTracer *found = NULL;

  for (l = list; l; l = l->next)
    if (!found && strcmp (G_OBJECT_TYPE_NAME (l->data), "GstStageProf") == 0)
      found = gst_object_ref (l->data);
  g_list_free_full (list, gst_object_unref);
  fail_unless (found != NULL, "stageprof is not among the active tracers");
  return found;
}

/* One window as the three outputs show it. */
typedef struct
{
  guint window;
  gdouble start_s, end_s, length_s;
  guint64 buffers;
  gdouble buffers_per_s, fps, bytes_per_s;
} Win;

static gboolean
win_from_structure (const GstStructure * w, Win * out)
{
  const GValue *pads = gst_structure_get_value (w, "window_pads");

  memset (out, 0, sizeof (Win));
  fail_unless (gst_structure_get_uint (w, "window", &out->window));
  fail_unless (gst_structure_get_double (w, "start_s", &out->start_s));
  fail_unless (gst_structure_get_double (w, "end_s", &out->end_s));
  fail_unless (gst_structure_get_double (w, "length_s", &out->length_s));
  fail_unless (pads != NULL && GST_VALUE_HOLDS_ARRAY (pads));
  for (guint i = 0; i < gst_value_array_get_size (pads); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (pads, i));
    if (g_strcmp0 (gst_structure_get_string (r, "pad"), PAD) != 0)
      continue;
    fail_unless (gst_structure_get_uint64 (r, "buffers", &out->buffers));
    gst_structure_get_double (r, "buffers_per_s", &out->buffers_per_s);
    gst_structure_get_double (r, "fps", &out->fps);
    gst_structure_get_double (r, "bytes_per_s", &out->bytes_per_s);
    fail_unless_equals_string (gst_structure_get_string (r, "unit"),
        "frames");
    return TRUE;
  }
  return FALSE;
}

/* The rows of `s` have the columns of `t` (schema/spschema.h), in its
 * order, and no others; optional ones may be left out. */
static void
check_row_columns (const SpSchema * t, const GstStructure * row,
    const gchar * extra)
{
  guint c = 0;

  for (guint i = 0; i < (guint) gst_structure_n_fields (row); i++) {
    const gchar *f = gst_structure_nth_field_name (row, i);

    if (extra && !strcmp (f, extra))
      continue;
    while (c < t->n_cols && strcmp (t->cols[c].key, f) != 0) {
      fail_unless (t->cols[c].flags & SP_COL_OPTIONAL, "%s: no column %s "
          "before %s", t->name, t->cols[c].key, f);
      c++;
    }
    fail_unless (c < t->n_cols, "%s: field %s is not a column (or out of "
        "order)", t->name, f);
    c++;
  }
  for (; c < t->n_cols; c++)
    fail_unless (t->cols[c].flags & SP_COL_OPTIONAL, "%s: no column %s",
        t->name, t->cols[c].key);
}

/* A window's fields and every row of its tables are the schema's. */
static void
check_window_columns (const GstStructure * w)
{
  GstStructure *top = gst_structure_copy (w);
  guint rows = 0;

  for (guint i = 0; sp_schema_window_tables[i]; i++) {
    const SpSchema *t = sp_schema_window_tables[i];
    const GValue *a = gst_structure_get_value (w, t->name);

    fail_unless (a && GST_VALUE_HOLDS_ARRAY (a), "window: no %s", t->name);
    for (guint r = 0; r < gst_value_array_get_size (a); r++, rows++)
      check_row_columns (t, gst_value_get_structure
          (gst_value_array_get_value (a, r)), NULL);
    gst_structure_remove_field (top, t->name);
  }
  check_row_columns (&sp_schema_windows, top, "trace_pid");
  fail_unless (rows > 0);
  gst_structure_free (top);
}

/* The window holds what arrived in its own interval, and that is the
 * rate of the phase it lies in. `switch_s`: when the rate changed. */
static void
check_window (const gchar * from, const Win * w, gdouble switch_s)
{
  guint truth = truth_count (w->start_s, w->end_s);
  gdouble len = w->end_s - w->start_s;

  fail_unless (len > 0 && ABS (w->length_s - len) < 1e-6,
      "%s window %u: length %g s, bounds %g..%g", from, w->window,
      w->length_s, w->start_s, w->end_s);
  fail_unless (ABS ((gint64) w->buffers - (gint64) truth) <= 2,
      "%s window %u (%.3f..%.3f s): %" G_GUINT64_FORMAT " buffers, %u "
      "arrived", from, w->window, w->start_s, w->end_s, w->buffers, truth);
  fail_unless (ABS (w->fps - w->buffers / len) < 1e-6 * MAX (w->fps, 1),
      "%s window %u: fps %g, %" G_GUINT64_FORMAT " buffers in %g s", from,
      w->window, w->fps, w->buffers, len);
  fail_unless (ABS (w->buffers_per_s - w->fps) < 1e-9);
  /* 64x48 I420: 4608 bytes a frame */
  fail_unless (ABS (w->bytes_per_s - 4608 * w->fps) < 1e-3 * w->fps + 1e-6,
      "%s window %u: %g bytes/s at %g fps", from, w->window, w->bytes_per_s,
      w->fps);
  /* Windows of at least half a second, wholly in one phase: its rate, not
   * the run's (19 fps over the whole run, above 20 until well after the
   * switch). Up to the count's 2 buffers; below it, a loaded machine's
   * late wake-ups may slow the sleeps (to 20 fps at 17 ms late). */
  if (len >= 0.5 && w->end_s < switch_s - 0.05)
    fail_unless (w->fps > 20.0 - 2 / len && w->fps < 30.2 + 2 / len,
        "%s window %u before the switch: %g fps", from, w->window, w->fps);
  if (len >= 0.5 && w->start_s > switch_s + 0.15)
    fail_unless (w->fps > 6.0 - 2 / len && w->fps < 10.05 + 2 / len,
        "%s window %u after the switch: %g fps", from, w->window, w->fps);
}

static void
windows_from_db (const gchar * path, GArray * out)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;

  fail_unless (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL)
      == SQLITE_OK, "cannot open %s", path);
  fail_unless (sqlite3_prepare_v2 (db, "SELECT w.window, w.start_s, "
          "w.end_s, w.length_s, p.buffers, p.buffers_per_s, p.fps, "
          "p.bytes_per_s FROM windows w JOIN window_pads p "
          "ON p.window_id = w.window_id WHERE p.pad = '" PAD "' "
          "ORDER BY w.window", -1, &st, NULL) == SQLITE_OK,
      "%s", sqlite3_errmsg (db));
  while (sqlite3_step (st) == SQLITE_ROW) {
    Win w = {
      (guint) sqlite3_column_int (st, 0), sqlite3_column_double (st, 1),
      sqlite3_column_double (st, 2), sqlite3_column_double (st, 3),
      (guint64) sqlite3_column_int64 (st, 4), sqlite3_column_double (st, 5),
      sqlite3_column_double (st, 6), sqlite3_column_double (st, 7)
    };
    g_array_append_val (out, w);
  }
  sqlite3_finalize (st);
  sqlite3_close (db);
}

/* Each window's median latency at the sink (latency=true): a frame's
 * time from its first push is the identity's hold (its sleep-time) and a
 * queue it leaves at once, so the window's median is within a bucket
 * (9 %) of the hold of its phase, plus the sleep's overshoot (up to
 * 10 ms on a loaded machine). */
static void
check_latency (const gchar * path, GArray * stored, gdouble switch_s)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  guint checked = 0, rows = 0;

  fail_unless (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL)
      == SQLITE_OK);
  fail_unless (sqlite3_prepare_v2 (db, "SELECT w.window, l.frames, "
          "l.median_ms, l.p90_ms, (SELECT SUM(h.frames) FROM "
          "window_latency_hist h WHERE h.window_id = w.window_id AND "
          "h.name = l.name) FROM windows w JOIN window_latency l USING "
          "(window_id) WHERE l.name = 'fakesink0' ORDER BY w.window", -1, &st,
          NULL) == SQLITE_OK, "%s", sqlite3_errmsg (db));
  while (sqlite3_step (st) == SQLITE_ROW) {
    guint n = sqlite3_column_int (st, 0);
    Win *w = &g_array_index (stored, Win, n - 1);
    gdouble med = sqlite3_column_double (st, 2), hold = 0;

    rows++;
    /* as many frames as reached the sink, and all in the histogram */
    fail_unless (ABS ((gint64) sqlite3_column_int64 (st, 1) -
            (gint64) w->buffers) <= 1, "window %u: latency of %d frames, "
        "%" G_GUINT64_FORMAT " arrived", n, sqlite3_column_int (st, 1),
        w->buffers);
    fail_unless_equals_int (sqlite3_column_int64 (st, 4),
        sqlite3_column_int64 (st, 1));
    fail_unless (sqlite3_column_double (st, 3) >= med);
    if (w->length_s >= 0.5 && w->end_s < switch_s - 0.05)
      hold = FAST_US / 1e3;
    else if (w->length_s >= 0.5 && w->start_s > switch_s + 0.15)
      hold = SLOW_US / 1e3;
    if (hold == 0)
      continue;
    checked++;
    fail_unless (med >= 0.95 * hold && med <= 1.1 * hold + 10,
        "window %u: median latency %g ms, the hold is %g ms", n, med, hold);
  }
  sqlite3_finalize (st);
  sqlite3_close (db);
  fail_unless (rows >= stored->len - 1 && checked >= 4, "%u windows with "
      "latency, %u checked", rows, checked);
}

/* The trace's "fps PAD" counter track: ts (us) -> fps. */
static GHashTable *
fps_track (const gchar * path)
{
  JsonParser *p = json_parser_new ();
  GHashTable *track = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, g_free);
  GError *err = NULL;
  JsonArray *a;

  fail_unless (json_parser_load_from_file (p, path, &err), "%s: %s", path,
      err ? err->message : "");
  a = json_node_get_array (json_parser_get_root (p));
  for (guint i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    gint64 *ts;
    gdouble *v;

    if (g_strcmp0 (json_object_get_string_member_with_default (o, "ph", ""),
            "C") != 0
        || g_strcmp0 (json_object_get_string_member_with_default (o, "cat",
                ""), "window") != 0
        || g_strcmp0 (json_object_get_string_member (o, "name"),
            "fps " PAD) != 0)
      continue;
    ts = g_new (gint64, 1);
    v = g_new (gdouble, 1);
    /* to the microsecond */
    *ts = (gint64) (json_object_get_double_member (o, "ts") + 0.5);
    *v = json_object_get_double_member (json_object_get_object_member (o,
            "args"), "fps");
    g_hash_table_insert (track, ts, v);
  }
  g_object_unref (p);
  return track;
}

/* ---- stageprof-report on the same outputs ------------------------------ */

/* stageprof-report ARGS... (NULL-terminated): its exit status. */
static gint
report (gchar ** out, gchar ** err, const gchar * first, ...)
{
  GPtrArray *argv = g_ptr_array_new ();
  const gchar *a;
  GError *e = NULL;
  gint status = 0;
  va_list ap;

  g_ptr_array_add (argv, (gpointer) TOOL);
  va_start (ap, first);
  for (a = first; a; a = va_arg (ap, const gchar *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  fail_unless (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL, 0, NULL,
          NULL, out, err, &status, &e), "cannot run %s: %s", TOOL,
      e ? e->message : "");
  g_ptr_array_free (argv, TRUE);
  fail_unless (WIFEXITED (status), "stageprof-report died");
  return WEXITSTATUS (status);
}

/* Column `col` of the CSV row whose first field is `name`. */
static gdouble
csv_value (const gchar * csv, const gchar * name, guint col)
{
  gchar **lines = g_strsplit (csv, "\n", -1);
  gdouble v = NAN;

  for (guint i = 1; lines[i] && isnan (v); i++) {
    gchar **f = g_strsplit (lines[i], ",", -1);
    if (f[0] && !strcmp (f[0], name) && g_strv_length (f) > col)
      v = g_ascii_strtod (f[col], NULL);
    g_strfreev (f);
  }
  g_strfreev (lines);
  return v;
}

/* The first event of the trace (its running time 0), us. */
static gdouble
trace_start_us (const gchar * path)
{
  JsonParser *p = json_parser_new ();
  JsonArray *a;
  gdouble t = G_MAXDOUBLE;

  fail_unless (json_parser_load_from_file (p, path, NULL));
  a = json_node_get_array (json_parser_get_root (p));
  for (guint i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    const gchar *ph = json_object_get_string_member_with_default (o, "ph",
        "");
    if ((!strcmp (ph, "X") || !strcmp (ph, "C"))
        && json_object_has_member (o, "ts"))
      t = MIN (t, json_object_get_double_member (o, "ts"));
  }
  g_object_unref (p);
  return t;
}

#define FROM_S 1.0
#define TILL_S 4.5

/* show --from/--till: a database sums the windows whose middle is in the
 * range, a trace counts the slices inside it; both against the arrivals
 * the test saw there. */
static void
check_report_range (const gchar * db, const gchar * trace, GArray * stored)
{
  gdouble t0 = g_array_index (stored, Win, 0).start_s, first = -1, last = 0;
  gdouble len = 0, base;
  guint64 in_windows = 0;
  gchar *out = NULL, *err = NULL;
  guint truth;

  for (guint i = 0; i < stored->len; i++) {
    Win *w = &g_array_index (stored, Win, i);
    gdouble mid = (w->start_s + w->end_s) / 2 - t0;
    if (mid < FROM_S || mid > TILL_S)
      continue;
    if (first < 0)
      first = w->start_s;
    last = w->end_s;
    in_windows += w->buffers;
    len += w->length_s;
  }
  truth = truth_count (first, last);
  fail_unless_equals_int (report (&out, &err, "show", db, "--from",
          G_STRINGIFY (FROM_S), "--till", G_STRINGIFY (TILL_S), "--format",
          "csv", "--table", "sinks", NULL), 0);
  fail_unless_equals_float (csv_value (out, "fakesink0", 1),
      (gdouble) in_windows);
  fail_unless (ABS (csv_value (out, "fakesink0", 1) - truth) <= 2,
      "show db --from/--till: %g frames, %u arrived in %.3f..%.3f s",
      csv_value (out, "fakesink0", 1), truth, first, last);
  fail_unless (ABS (csv_value (out, "fakesink0", 2) - in_windows / len)
      < 0.01, "show db: %g per second, %" G_GUINT64_FORMAT " in %g s",
      csv_value (out, "fakesink0", 2), in_windows, len);
  g_free (out);
  g_free (err);

  /* A slice across a bound is cut there but counts: one buffer at most at
   * each end. */
  base = trace_start_us (trace) / 1e6;
  truth = truth_count (base + FROM_S, base + TILL_S);
  fail_unless_equals_int (report (&out, &err, "show", trace, "--from",
          G_STRINGIFY (FROM_S), "--till", G_STRINGIFY (TILL_S), "--format",
          "csv", "--table", "elements", NULL), 0);
  fail_unless (ABS (csv_value (out, "fakesink0", 2) - truth) <= 1,
      "show trace --from/--till: fakesink0 %g buffers, %u arrived",
      csv_value (out, "fakesink0", 2), truth);
  g_free (out);
  g_free (err);
}

/* Values that are no time, an empty range and a summary (no time axis)
 * are usage errors, exit 2, with a message that says what is wrong. */
static void
check_report_refusals (const gchar * db, const gchar * dir)
{
  static const gchar *const bad[][3] = {
    {"--from", "abc", "is not a time"},
    {"--from", "-1", "is not a time"},
    {"--till", "nan", "is not a time"},
    {"--till", "1e999", "is not a time"},
  };
  gchar *summary = g_build_filename (dir, "s.json", NULL);
  gchar *err = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    fail_unless_equals_int (report (NULL, &err, "show", db, bad[i][0],
            bad[i][1], NULL), 2);
    fail_unless (strstr (err, bad[i][2]) != NULL, "%s %s: %s", bad[i][0],
        bad[i][1], err);
    g_free (err);
  }
  fail_unless_equals_int (report (NULL, &err, "diff", db, db, "--from", "3",
          "--till", "2", NULL), 2);
  fail_unless (strstr (err, "is not after") != NULL, "%s", err);
  g_free (err);
  fail_unless_equals_int (report (NULL, &err, "show", db, "--from", "1000",
          NULL), 2);
  fail_unless (strstr (err, "no window in the range") != NULL, "%s", err);
  g_free (err);
  fail_unless (g_file_set_contents (summary, "{\"elements\": []}", -1,
          NULL));
  fail_unless_equals_int (report (NULL, &err, "show", summary, "--from",
          "1", NULL), 2);
  fail_unless (strstr (err, "no time axis") != NULL, "%s", err);
  g_free (err);
  g_free (summary);
}

/* html of the database: the windows drawn over time, the sink's pad among
 * the rates and the queue as a band with its mean. */
static void
check_report_html (const gchar * db, const gchar * dir)
{
  gchar *html = g_build_filename (dir, "r.html", NULL), *text = NULL;

  fail_unless_equals_int (report (NULL, NULL, "html", "-o", html, db,
          "--from", "0.5", NULL), 0);
  fail_unless (g_file_get_contents (html, &text, NULL, NULL));
  fail_unless (strstr (text, "Frames per second per src pad, window by "
          "window") != NULL);
  fail_unless (strstr (text, PAD "</title></polyline>") != NULL);
  fail_unless (strstr (text, "Queue levels, window by window") != NULL);
  fail_unless (strstr (text, "class=\"wrange\"") != NULL);
  fail_unless (strstr (text, "Latency per sink, window by window") != NULL);
  fail_unless (strstr (text, "fakesink0 median</title></polyline>") != NULL);
  fail_unless (strstr (text, "Latency histogram of fakesink0") != NULL);
  g_free (text);
  g_free (html);
}

/* Runs the pipeline on its schedule, polling get-window as an
 * application would; returns when the rate changed (hook time, s). */
static gdouble
run_schedule (GstTracer * prof, GArray * polled)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc ! "
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! "
      "identity sleep-time=" G_STRINGIFY (FAST_US) " ! queue ! fakesink", NULL);
  GstElement *ident = gst_bin_get_by_name (GST_BIN (pipe), "identity0");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "fakesink0");
  gint64 t0, switched = 0;
  gdouble switch_s = 0;

  fail_unless (pipe && ident && sink);
  watched = gst_element_get_static_pad (sink, "sink");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  t0 = g_get_monotonic_time ();
  while (g_get_monotonic_time () - t0 < (FAST_FOR_MS + SLOW_FOR_MS) * 1000) {
    GstStructure *w = NULL;
    Win win;

    g_usleep (50 * 1000);
    if (!switched && g_get_monotonic_time () - t0 >= FAST_FOR_MS * 1000) {
      g_object_set (ident, "sleep-time", SLOW_US, NULL);
      switched = g_get_monotonic_time ();
      /* the last buffer that came at the fast rate */
      g_mutex_lock (&arrivals_lock);
      fail_unless (arrivals->len > 0);
      switch_s = g_array_index (arrivals, guint64, arrivals->len - 1) / 1e9;
      g_mutex_unlock (&arrivals_lock);
    }
    g_signal_emit_by_name (prof, "get-window", "pipeline0", &w);
    if (w)
      check_window_columns (w);
    if (w && win_from_structure (w, &win) && (polled->len == 0
            || g_array_index (polled, Win, polled->len - 1).window !=
            win.window))
      g_array_append_val (polled, win);
    if (w)
      gst_structure_free (w);
  }
  fail_unless (gst_element_set_state (pipe, GST_STATE_NULL)
      == GST_STATE_CHANGE_SUCCESS);
  gst_clear_object (&watched);
  gst_object_unref (ident);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return switch_s;
}

/* The windows' rows logged in the GST_TRACER channel (GST_DEBUG=
 * GST_TRACER:7): the `stageprof-window-pad` rows of PAD, by window. */
static GMutex logged_lock;
static GHashTable *logged;      /* window -> buffers (guint64*) */

static void
log_window_rows (GstDebugCategory * cat, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * obj,
    GstDebugMessage * msg, gpointer data)
{
  const gchar *text;
  GstStructure *s;
  const gchar *pad;
  guint window = 0;
  guint64 buffers = 0;

  if (level != GST_LEVEL_TRACE
      || g_strcmp0 (gst_debug_category_get_name (cat), "GST_TRACER") != 0
      || !(text = gst_debug_message_get (msg))
      || !g_str_has_prefix (text, "stageprof-window-pad,")
      || !(s = gst_structure_from_string (text, NULL)))
    return;
  pad = gst_structure_get_string (s, "pad");
  if (g_strcmp0 (pad, PAD) == 0 && gst_structure_get_uint (s, "window",
          &window) && gst_structure_get_uint64 (s, "buffers", &buffers)) {
    g_mutex_lock (&logged_lock);
    g_hash_table_insert (logged, GUINT_TO_POINTER (window),
        g_memdup2 (&buffers, sizeof (buffers)));
    g_mutex_unlock (&logged_lock);
  }
  gst_structure_free (s);
}

GST_START_TEST (test_windows_follow_rate)
{
  gchar *dir = g_dir_make_tmp ("stageprof-windows-XXXXXX", NULL);
  gchar *db = g_build_filename (dir, "w.db", NULL);
  gchar *trace = g_build_filename (dir, "t.json", NULL);
  gchar *copy = g_build_filename (dir, "copy.json", NULL);
  GstTracer *prof = find_prof (), *truth;
  GArray *polled = g_array_new (FALSE, FALSE, sizeof (Win));
  GArray *stored = g_array_new (FALSE, FALSE, sizeof (Win));
  GHashTable *track;
  gboolean ok = FALSE;
  gdouble switch_s;
  guint before = 0, after = 0;

  arrivals = g_array_new (FALSE, FALSE, sizeof (guint64));
  logged = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  gst_debug_set_threshold_for_name ("GST_TRACER", GST_LEVEL_TRACE);
  gst_debug_add_log_function (log_window_rows, NULL, NULL);
  truth = g_object_new (arrival_tracer_get_type (), NULL);
  g_object_set (prof, "db", db, "trace", trace, "latency", TRUE, NULL);

  switch_s = run_schedule (prof, polled);

  /* db=NULL drains and closes the database; write-trace copies the trace
   * as strict JSON. */
  g_object_set (prof, "db", NULL, NULL);
  g_signal_emit_by_name (prof, "write-trace", copy, &ok);
  fail_unless (ok);
  windows_from_db (db, stored);
  track = fps_track (copy);

  /* ~7.5 s in windows of 1 s, and the last one cut at the stop. */
  fail_unless (stored->len >= 6, "%u windows in the database", stored->len);
  fail_unless (polled->len >= 5, "get-window gave %u windows", polled->len);
  for (guint i = 0; i < stored->len; i++) {
    Win *w = &g_array_index (stored, Win, i);
    gint64 ts = (gint64) (w->start_s * 1e6 + 0.5);
    gdouble *v = g_hash_table_lookup (track, &ts);

    fail_unless_equals_int (w->window, i + 1);
    if (i > 0)
      fail_unless (ABS (w->start_s - g_array_index (stored, Win,
                  i - 1).end_s) < 1e-9, "window %u does not start where %u "
          "ended", w->window, w->window - 1);
    check_window ("db", w, switch_s);
    fail_unless (v != NULL, "no counter at %" G_GINT64_FORMAT " us for "
        "window %u in the trace", ts, w->window);
    fail_unless (ABS (*v - w->fps) <= 1e-5 * MAX (w->fps, 1),
        "trace says %g fps for window %u, the database %g", *v, w->window,
        w->fps);
    before += w->length_s >= 0.5 && w->end_s < switch_s - 0.05;
    after += w->length_s >= 0.5 && w->start_s > switch_s + 0.15;
  }
  /* The same windows in GStreamer's tracer channel. */
  gst_debug_remove_log_function (log_window_rows);
  gst_debug_set_threshold_for_name ("GST_TRACER", GST_LEVEL_NONE);
  for (guint i = 0; i < stored->len; i++) {
    Win *w = &g_array_index (stored, Win, i);
    guint64 *b = g_hash_table_lookup (logged, GUINT_TO_POINTER (w->window));
    fail_unless (b != NULL && *b == w->buffers, "window %u: %"
        G_GUINT64_FORMAT " buffers in the database, %s in GST_TRACER",
        w->window, w->buffers, b ? "other" : "none");
  }
  g_hash_table_destroy (logged);
  /* Both phases have whole windows of their own. */
  fail_unless (before >= 2 && after >= 2, "%u windows before the switch, "
      "%u after", before, after);
  for (guint i = 0; i < polled->len; i++) {
    Win *w = &g_array_index (polled, Win, i), *s;

    check_window ("get-window", w, switch_s);
    fail_unless (w->window >= 1 && w->window <= stored->len);
    s = &g_array_index (stored, Win, w->window - 1);
    fail_unless (s->buffers == w->buffers && s->end_s == w->end_s,
        "get-window's window %u differs from the database's", w->window);
  }

  check_latency (db, stored, switch_s);
  check_report_range (db, copy, stored);
  check_report_refusals (db, dir);
  check_report_html (db, dir);

  g_hash_table_destroy (track);
  g_array_free (polled, TRUE);
  g_array_free (stored, TRUE);
  g_object_set (prof, "trace", NULL, NULL);
  gst_object_unref (prof);
  gst_object_unref (truth);
  rm_rf (dir);
  g_free (db);
  g_free (trace);
  g_free (copy);
  g_free (dir);
}

GST_END_TEST;

/* A queue before a consumer slower than its producer fills up to the
 * limit that binds, which the test sets: in buffers (5 of them), or in
 * bytes (3 frames' worth, with 200 buffers allowed). Each window after
 * the first holds it full: its highest level at that limit, its lowest
 * one buffer under at most (the consumer takes one out, the producer puts
 * the next in), and names the limit that binds. */
static void
check_queue_binding (GstTracer * prof, const gchar * limits,
    const gchar * binding, gint64 max_level, guint64 limit_bytes)
{
  gchar *desc = g_strdup_printf ("videotestsrc ! video/x-raw,format=I420,"
      "width=64,height=48,framerate=30/1 ! queue name=q %s "
      "max-size-time=0 ! identity sleep-time=50000 ! fakesink", limits);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstStructure *w = NULL;
  guint seen = 0, last = 0;
  gint64 t0;

  fail_unless (pipe != NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  t0 = g_get_monotonic_time ();
  while (g_get_monotonic_time () - t0 < 3500 * 1000) {
    const GValue *qs;
    guint n = 0;

    g_usleep (100 * 1000);
    g_signal_emit_by_name (prof, "get-window", GST_OBJECT_NAME (pipe), &w);
    if (!w)
      continue;
    fail_unless (gst_structure_get_uint (w, "window", &n));
    qs = gst_structure_get_value (w, "window_queues");
    for (guint i = 0; n > 1 && n != last && i < gst_value_array_get_size (qs);
        i++) {
      const GstStructure *q =
          gst_value_get_structure (gst_value_array_get_value (qs, i));
      gint64 lo = -1, hi = -1;
      gdouble full = 0;
      guint lb = 0, ly = 0;

      if (g_strcmp0 (gst_structure_get_string (q, "name"), "q"))
        continue;
      gst_structure_get_int64 (q, "min_level", &lo);
      gst_structure_get_int64 (q, "max_level", &hi);
      gst_structure_get_double (q, "full_pct", &full);
      gst_structure_get_uint (q, "limit_buffers", &lb);
      gst_structure_get_uint (q, "limit_bytes", &ly);
      fail_unless_equals_string (gst_structure_get_string (q, "binding"),
          binding);
      fail_unless (hi == max_level && lo >= max_level - 1, "window %u: "
          "queue level %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT ", its "
          "limit %" G_GINT64_FORMAT " buffers", n, lo, hi, max_level);
      fail_unless (full >= 99.9, "window %u: %g %% full", n, full);
      fail_unless_equals_int (ly, limit_bytes);
      seen++;
    }
    last = n;
    gst_structure_free (w);
  }
  fail_unless (gst_element_set_state (pipe, GST_STATE_NULL)
      == GST_STATE_CHANGE_SUCCESS);
  fail_unless (seen >= 1, "no window after the first of %s",
      GST_OBJECT_NAME (pipe));
  gst_object_unref (pipe);
  g_free (desc);
}

GST_START_TEST (test_window_queue_binding)
{
  GstTracer *prof = find_prof ();

  /* 5 buffers of 4608 bytes: buffers bind */
  check_queue_binding (prof, "max-size-buffers=5 max-size-bytes=0",
      "buffers", 5, 0);
  /* 3 frames of bytes, 200 buffers: bytes bind; a queue takes a buffer
   * while under its byte limit, so it holds 3 frames at most */
  check_queue_binding (prof, "max-size-buffers=200 max-size-bytes=13824",
      "bytes", 3, 13824);
  gst_object_unref (prof);
}

GST_END_TEST;

/* Without interval= there are no windows: get-window says so. */
GST_START_TEST (test_no_window_before_first)
{
  GstTracer *prof = find_prof ();
  GstStructure *w = NULL;

  g_signal_emit_by_name (prof, "get-window", "no-such-pipeline", &w);
  fail_unless (w == NULL);
  gst_object_unref (prof);
}

GST_END_TEST;

static Suite *
stageprof_windows_suite (void)
{
  Suite *s = suite_create ("stageprof_windows");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_no_window_before_first);
  tcase_add_test (tc, test_windows_follow_rate);
  tcase_add_test (tc, test_window_queue_binding);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  g_setenv ("GST_TRACERS", "stageprof(summary=none,progress=false,"
      "interval=" G_STRINGIFY (INTERVAL_S) ")", TRUE);
  g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);
  s = stageprof_windows_suite ();
  return gst_check_run_suite (s, "stageprof_windows", __FILE__);
}
