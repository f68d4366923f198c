/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof outputs: the JSON summary file, the Chrome trace (streamed file
 * and write-trace copy), CSV, text tables, name escaping, the element
 * filter, and a trace that survives kill -9.
 *
 * Runs without fork: the trace writer thread lives in this process.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <json-glib/json-glib.h>

#include "spschema.h"
#include "spsummary.h"

#define SUMMARY_PATH TESTS_BUILD_DIR "/stageprof_output-summary.json"
#define TRACE_PATH TESTS_BUILD_DIR "/stageprof_output-trace.json"
#define COPY_PATH TESTS_BUILD_DIR "/stageprof_output-copy.json"
#define CSV_PATH TESTS_BUILD_DIR "/stageprof_output-summary.csv"
#define KILL_PATH TESTS_BUILD_DIR "/stageprof_output-killed.json"

#include "stageprof-check.h"
#include "truth-element.h"
#include "lib/stagetest.h"

static JsonNode *
parse_json_file (const gchar * path, gboolean close_array)
{
  gchar *text = NULL;
  gsize len = 0;
  GError *err = NULL;
  JsonParser *p = json_parser_new ();
  JsonNode *root;
  GString *s;

  fail_unless (g_file_get_contents (path, &text, &len, &err), "%s: %s", path,
      err ? err->message : "");
  s = g_string_new_len (text, len);
  g_free (text);
  /* A trace cut at a flush lacks only its closing bracket. */
  if (close_array) {
    g_strchomp (s->str);
    g_string_set_size (s, strlen (s->str));
    if (s->len == 0 || s->str[s->len - 1] != ']')
      g_string_append (s, "\n]");
  }
  fail_unless (json_parser_load_from_data (p, s->str, -1, &err),
      "%s is not valid JSON: %s", path, err ? err->message : "");
  g_string_free (s, TRUE);
  root = json_node_copy (json_parser_get_root (p));
  g_object_unref (p);
  return root;
}

static JsonObject *
json_row (JsonObject * root, const gchar * table, const gchar * name)
{
  JsonArray *a = json_object_get_array_member (root, table);
  guint i;

  fail_unless (a != NULL, "no %s", table);
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    if (g_strcmp0 (json_object_get_string_member (o, "name"), name) == 0)
      return o;
  }
  fail ("no %s row for %s", table, name);
  return NULL;
}

/* Counts trace events matching ph and name (NULL: any), and on pid. */
static guint
count_events (JsonArray * a, const gchar * ph, const gchar * name,
    gint64 pid)
{
  guint i, n = 0;

  for (i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    if (g_strcmp0 (json_object_get_string_member (o, "ph"), ph) != 0)
      continue;
    if (name && g_strcmp0 (json_object_get_string_member (o, "name"),
            name) != 0)
      continue;
    if (pid >= 0 && json_object_get_int_member (o, "pid") != pid)
      continue;
    n++;
  }
  return n;
}

static gint64
pid_of (JsonArray * a, const gchar * process)
{
  guint i;

  for (i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    if (g_strcmp0 (json_object_get_string_member (o, "name"),
            "process_name") == 0
        && g_strcmp0 (json_object_get_string_member
            (json_object_get_object_member (o, "args"), "name"),
            process) == 0)
      return json_object_get_int_member (o, "pid");
  }
  fail ("no process_name %s", process);
  return -1;
}

static gboolean
has_thread_name (JsonArray * a, gint64 pid, const gchar * name)
{
  guint i;

  for (i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    if (g_strcmp0 (json_object_get_string_member (o, "name"),
            "thread_name") == 0 && json_object_get_int_member (o, "pid") == pid
        && g_strcmp0 (json_object_get_string_member
            (json_object_get_object_member (o, "args"), "name"), name) == 0)
      return TRUE;
  }
  return FALSE;
}

GST_START_TEST (test_json_summary)
{
  JsonNode *root;
  JsonObject *o, *r;
  static const gchar *const el_keys[] = { "name", "thread", "count",
    "mean_ms", "std_ms", "min_ms", "max_ms", "median_ms", "p90_ms", "p99_ms",
    "total_s", NULL
  };
  static const gchar *const q_keys[] = { "name", "items", "qps",
    "mean_level", "max_level", "empty_pct", "full_pct", "ave_put_ms",
    "ave_get_ms", NULL
  };
  guint i;

  g_unlink (SUMMARY_PATH);
  run_pipeline ("jsonp", "videotestsrc num-buffers=30 ! "
      "video/x-raw,width=64,height=48 ! queue name=js_q ! "
      "stagetruth name=js_id us=500 ! fakesink sync=false");
  /* Written when the pipeline went to NULL. */
  root = parse_json_file (SUMMARY_PATH, FALSE);
  o = json_node_get_object (root);
  r = json_row (o, "elements", "js_id");
  for (i = 0; el_keys[i]; i++)
    fail_unless (json_object_has_member (r, el_keys[i]), "no %s", el_keys[i]);
  fail_unless_equals_int (json_object_get_int_member (r, "count"), 30);
  fail_unless (json_object_get_double_member (r, "median_ms") >= 0.49);
  r = json_row (o, "queues", "js_q");
  for (i = 0; q_keys[i]; i++)
    fail_unless (json_object_has_member (r, q_keys[i]), "no %s", q_keys[i]);
  fail_unless_equals_int (json_object_get_int_member (r, "items"), 30);
  r = json_row (o, "threads", "js_q");
  fail_unless (json_object_has_member (r, "busy_pct"));
  fail_unless (json_object_has_member (r, "wait_input_pct"));
  fail_unless (json_object_has_member (r, "wait_output_pct"));
  fail_unless (strlen (json_object_get_string_member (o, "verdict")) > 0);
  fail_unless (json_object_get_double_member (o, "wall_s") > 0);
  json_node_unref (root);
}

GST_END_TEST;

/* A sink's count is of video frames only where video frames reach it:
 * after mp4mux they are the muxer's buffers (headers included), and audio
 * buffers are no frames either. Issue 16. */
GST_START_TEST (test_sink_units)
{
  GstStructure *s;
  const GstStructure *r;
  gchar *text;
  gchar *loc = g_build_filename (g_get_tmp_dir (), "stageprof-units.mp4",
      NULL);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=12 ! "
      "video/x-raw,width=64,height=48 ! fakesink name=u_vid sync=false "
      "audiotestsrc num-buffers=7 ! fakesink name=u_aud sync=false "
      "videotestsrc num-buffers=10 ! video/x-raw,width=64,height=48 ! "
      "x264enc ! h264parse ! mp4mux ! filesink name=u_mux location=%s", loc);

  /* h264parse is in gst-plugins-bad, which the TSan pass leaves out: a
   * pipeline missing it never ends. */
  if (!gst_registry_check_feature_version (gst_registry_get (), "x264enc", 1,
          0, 0) || !gst_registry_check_feature_version (gst_registry_get (),
          "h264parse", 1, 0, 0) || !gst_registry_check_feature_version
      (gst_registry_get (), "mp4mux", 1, 0, 0)) {
    g_printerr ("SKIP part: no x264enc, h264parse or mp4mux\n");
    g_free (desc);
    desc = g_strdup ("videotestsrc num-buffers=12 ! "
        "video/x-raw,width=64,height=48 ! fakesink name=u_vid sync=false "
        "audiotestsrc num-buffers=7 ! fakesink name=u_aud sync=false");
  }
  run_pipeline ("unitsp", desc);
  s = get_summary ();
  r = row (s, "sinks", "u_vid", "unitsp");
  fail_unless_equals_string (gst_structure_get_string (r, "unit"), "frames");
  fail_unless_equals_int (uget (r, "frames"), 12);
  r = row (s, "sinks", "u_aud", "unitsp");
  fail_unless_equals_string (gst_structure_get_string (r, "unit"), "buffers");
  fail_unless_equals_string (gst_structure_get_string (r, "media"),
      "audio/x-raw");
  fail_unless_equals_int (uget (r, "buffers"), 7);
  fail_unless_equals_int (uget (r, "frames"), 0);
  text = sp_summary_to_text (s, NULL);
  fail_unless (strstr (text, "Sink u_vid: 12 frames") != NULL, "%s", text);
  fail_unless (strstr (text, "Sink u_aud: 7 buffers of audio/x-raw (not "
          "video frames)") != NULL, "%s", text);
  if (strstr (desc, "mp4mux")) {
    r = row (s, "sinks", "u_mux", "unitsp");
    fail_unless_equals_string (gst_structure_get_string (r, "media"),
        "video/quicktime");
    fail_unless_equals_int (uget (r, "frames"), 0);
    fail_unless (uget (r, "buffers") > 10, "mp4mux writes headers too");
  }
  g_free (text);
  gst_structure_free (s);
  g_unlink (loc);
  g_free (loc);
  g_free (desc);
}

GST_END_TEST;

GST_START_TEST (test_trace)
{
  JsonNode *root;
  JsonArray *a;
  GstTracer *t = find_prof ();
  gboolean ok = FALSE;
  gint64 pid;
  guint i, slices = 0, waits = 0, counters = 0;

  run_pipeline ("tracep", "videotestsrc name=tr_src num-buffers=20 ! "
      "video/x-raw,width=64,height=48 ! queue name=tr_q max-size-buffers=2 "
      "max-size-bytes=0 max-size-time=0 ! stagetruth name=tr_id "
      "us=1000 ! fakesink sync=false");
  g_unlink (COPY_PATH);
  g_signal_emit_by_name (t, "write-trace", COPY_PATH, &ok);
  fail_unless (ok);
  gst_object_unref (t);

  root = parse_json_file (COPY_PATH, FALSE);
  a = json_node_get_array (root);
  pid = pid_of (a, "tracep");
  fail_unless (has_thread_name (a, pid, "tr_q"));
  fail_unless (has_thread_name (a, pid, "tr_src"));
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    const gchar *ph = json_object_get_string_member (o, "ph");
    const gchar *name = json_object_get_string_member (o, "name");
    if (json_object_get_int_member (o, "pid") != pid)
      continue;
    if (strcmp (ph, "X") == 0 && strcmp (name, "tr_id") == 0) {
      fail_if (json_object_has_member (o, "cat"),
          "element slices carry no category");
      fail_unless (json_object_get_double_member (o, "dur") >= 990.0);
      slices++;
    } else if (strcmp (ph, "X") == 0
        && strcmp (name, "Wait on Output Queue") == 0) {
      fail_unless_equals_string (json_object_get_string_member (o, "cname"),
          "grey");
      fail_unless_equals_string (json_object_get_string_member
          (json_object_get_object_member (o, "args"), "element"), "tr_q");
      waits++;
    } else if (strcmp (ph, "C") == 0 && strcmp (name, "tr_q buffers") == 0) {
      JsonObject *args = json_object_get_object_member (o, "args");
      fail_unless (json_object_get_int_member (args, "buffers") <= 2);
      counters++;
    }
  }
  fail_unless_equals_int (slices, 20);
  /* stream-start, caps, segment, EOS: handled by tr_id, not buffers. */
  fail_unless (count_events (a, "X", "tr_id event", pid) >= 3);
  fail_unless (waits >= 5, "%u wait-on-output slices", waits);
  fail_unless (counters >= 20, "%u counter events", counters);
  json_node_unref (root);

  /* The streamed file is valid up to its last flush (the pipeline stop). */
  root = parse_json_file (TRACE_PATH, TRUE);
  a = json_node_get_array (root);
  fail_unless_equals_int (count_events (a, "X", "tr_id", pid_of (a,
              "tracep")), 20);
  json_node_unref (root);
}

GST_END_TEST;

/* Cells of a CSV line, quotes respected. */
static guint
csv_cells (const gchar * line)
{
  guint n = 1;
  gboolean quoted = FALSE;

  for (; *line; line++) {
    if (*line == '"')
      quoted = !quoted;
    else if (*line == ',' && !quoted)
      n++;
  }
  return n;
}

/* Lines of a tidy CSV file: a header, every row with as many cells. */
static gchar **
csv_lines (const gchar * path)
{
  gchar *text = NULL, **lines;
  guint i, cols;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "no %s", path);
  g_strchomp (text);
  lines = g_strsplit (text, "\n", -1);
  g_free (text);
  fail_unless (lines[0] && lines[1], "%s has no rows", path);
  cols = csv_cells (lines[0]);
  for (i = 1; lines[i]; i++)
    fail_unless_equals_int (csv_cells (lines[i]), cols);
  return lines;
}

GST_START_TEST (test_csv)
{
  GstTracer *t = find_prof ();
  gchar **lines, *path;
  gboolean el = FALSE;
  guint i, k;

  g_unlink (CSV_PATH);
  g_object_set (t, "summary", CSV_PATH, NULL);
  run_pipeline ("csvp", "videotestsrc num-buffers=10 ! "
      "video/x-raw,width=64,height=48 ! identity name=csv_id ! "
      "fakesink sync=false");
  g_object_set (t, "summary", SUMMARY_PATH, NULL);
  gst_object_unref (t);
  /* One tidy table per file: the elements in the file named ... */
  lines = csv_lines (CSV_PATH);
  fail_unless (g_str_has_prefix (lines[0], "name,thread,pipeline,count,"),
      "header %s", lines[0]);
  for (i = 1; lines[i]; i++) {
    if (g_str_has_prefix (lines[i], "\"csv_id\",")) {
      gchar **cells = g_strsplit (lines[i], ",", -1);
      fail_unless_equals_string (cells[2], "\"csvp\"");
      fail_unless_equals_string (cells[3], "10");
      g_strfreev (cells);
      el = TRUE;
    }
  }
  fail_unless (el);
  el = FALSE;
  g_strfreev (lines);
  g_unlink (CSV_PATH);
  /* ... and each other table beside it. */
  for (k = 1; sp_schema_tables[k]; k++) {
    path = sp_summary_csv_path (CSV_PATH, sp_schema_tables[k]->name);
    if (g_str_has_suffix (sp_schema_tables[k]->name, "latency")
        || strcmp (sp_schema_tables[k]->name, "pools") == 0
        || strcmp (sp_schema_tables[k]->name, "memory") == 0) {
      /* latency=true or memory=true only: no rows, no file */
      fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "%s", path);
      g_free (path);
      continue;
    }
    if ((strcmp (sp_schema_tables[k]->name, "queues") == 0
            || strcmp (sp_schema_tables[k]->name, "gpu") == 0)
        && !g_file_test (path, G_FILE_TEST_EXISTS)) {
      g_free (path);            /* no queue (no GPU element): no file */
      continue;
    }
    lines = csv_lines (path);
    if (strcmp (sp_schema_tables[k]->name, "pipelines") == 0) {
      fail_unless (g_str_has_prefix (lines[0], "pipeline,run,"), "%s",
          lines[0]);
      fail_unless (strstr (lines[0], "verdict") != NULL);
      for (i = 1; lines[i]; i++)
        el |= g_str_has_prefix (lines[i], "\"csvp\",1,");
      fail_unless (el, "no csvp row in %s", path);
    }
    if (strcmp (sp_schema_tables[k]->name, "threads") == 0)
      fail_unless (strstr (lines[0], "pipeline") != NULL);
    g_strfreev (lines);
    g_unlink (path);
    g_free (path);
  }
}

GST_END_TEST;

static GstStructure *
fake_summary (const gchar * name)
{
  GstStructure *s = gst_structure_new ("stageprof-summary",
      "wall_s", G_TYPE_DOUBLE, 1.5, "final", G_TYPE_BOOLEAN, TRUE,
      "verdict", G_TYPE_STRING, "decode-bound: x", NULL);
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;

  g_value_init (&arr, GST_TYPE_ARRAY);
  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&v, gst_structure_new ("element",
          "name", G_TYPE_STRING, name, "thread", G_TYPE_STRING, "t0",
          "count", G_TYPE_UINT64, (guint64) 7,
          "mean_ms", G_TYPE_DOUBLE, 1.25, "median_ms", G_TYPE_DOUBLE, 1.0,
          "total_s", G_TYPE_DOUBLE, 0.00875, NULL));
  gst_value_array_append_and_take_value (&arr, &v);
  gst_structure_take_value (s, "elements", &arr);
  return s;
}

/* Names with quotes, backslashes, control characters and non-ASCII stay
 * valid in every form. */
GST_START_TEST (test_render_escaping)
{
  const gchar *name = "we\"ird\\name\n\xc3\xa9\xe2\x82\xac";
  GstStructure *s = fake_summary (name);
  gchar *json = sp_summary_to_json (s), *text, *csv;
  JsonParser *p = json_parser_new ();
  GError *err = NULL;
  JsonObject *o;

  fail_unless (json_parser_load_from_data (p, json, -1, &err), "%s\n%s",
      err ? err->message : "", json);
  o = json_node_get_object (json_parser_get_root (p));
  fail_unless_equals_string (json_object_get_string_member
      (json_array_get_object_element (json_object_get_array_member (o,
                  "elements"), 0), "name"), name);
  fail_unless_equals_int (json_object_get_int_member
      (json_array_get_object_element (json_object_get_array_member (o,
                  "elements"), 0), "count"), 7);
  g_object_unref (p);

  text = sp_summary_to_text (s, "title");
  fail_unless (strstr (text, "Node") && strstr (text, "Median")
      && strstr (text, "P99") && strstr (text, "%Busy"), "%s", text);
  fail_unless (strstr (text, "1.250"), "%s", text);
  fail_unless (strstr (text, "Verdict: decode-bound: x"), "%s", text);
  csv = sp_summary_to_csv (s);
  fail_unless (strstr (csv, "\"we\"\"ird\\name"), "%s", csv);
  fail_unless_equals_int (sp_summary_format_for_path ("a/b.JSON"),
      SP_SUMMARY_JSON);
  fail_unless_equals_int (sp_summary_format_for_path ("b.csv"),
      SP_SUMMARY_CSV);
  fail_unless_equals_int (sp_summary_format_for_path ("b.txt"),
      SP_SUMMARY_TEXT);
  g_free (json);
  g_free (text);
  g_free (csv);
  gst_structure_free (s);
}

GST_END_TEST;

GST_START_TEST (test_filter)
{
  GstTracer *t = find_prof ();
  gboolean ok = FALSE;
  JsonNode *root;
  JsonArray *a;
  GstStructure *s;
  gint64 pid;

  g_object_set (t, "filter", "^flt_keep$", NULL);
  run_pipeline ("filterp", "videotestsrc num-buffers=10 ! "
      "video/x-raw,width=64,height=48 ! identity name=flt_keep ! "
      "identity name=flt_other ! fakesink sync=false");
  g_object_set (t, "filter", NULL, NULL);
  g_signal_emit_by_name (t, "write-trace", COPY_PATH, &ok);
  fail_unless (ok);
  gst_object_unref (t);
  root = parse_json_file (COPY_PATH, FALSE);
  a = json_node_get_array (root);
  pid = pid_of (a, "filterp");
  fail_unless_equals_int (count_events (a, "X", "flt_keep", pid), 10);
  fail_unless_equals_int (count_events (a, "X", "flt_other", pid), 0);
  json_node_unref (root);
  /* The tables still count every element. */
  s = get_summary ();
  fail_unless_equals_int (count_sum (s, "flt_other", "filterp"), 10);
  gst_structure_free (s);
}

GST_END_TEST;

static gint
cmp_ts (gconstpointer a, gconstpointer b)
{
  const gdouble *x = a, *y = b;

  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* A flushing seek empties the queue: its counted level starts again from
 * zero, so the drain at EOS ends at 0 (the stop then resets it anyway, so
 * the level before that last event is the one that tells). */
GST_START_TEST (test_flush_resets_level)
{
  GstElement *p = gst_parse_launch ("videotestsrc ! "
      "video/x-raw,width=32,height=24 ! queue name=fl_q max-size-buffers=5 "
      "max-size-bytes=0 max-size-time=0 ! stagetruth us=2000 ! "
      "fakesink sync=false", NULL);
  GstTracer *t = find_prof ();
  gboolean ok = FALSE;
  JsonNode *root;
  JsonArray *a;
  gint64 pid;
  GArray *levels = g_array_new (FALSE, FALSE, 2 * sizeof (gdouble));
  gint64 max_level = 0;
  guint i;

  fail_unless (p != NULL);
  gst_object_set_name (GST_OBJECT (p), "flushp");
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  g_usleep (100 * 1000);
  fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, 0));
  g_usleep (100 * 1000);
  gst_element_send_event (p, gst_event_new_eos ());
  stage_test_expect_eos (p, 30 * GST_SECOND, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);

  g_signal_emit_by_name (t, "write-trace", COPY_PATH, &ok);
  fail_unless (ok);
  gst_object_unref (t);
  root = parse_json_file (COPY_PATH, FALSE);
  a = json_node_get_array (root);
  pid = pid_of (a, "flushp");
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    gint64 level;
    if (g_strcmp0 (json_object_get_string_member (o, "ph"), "C") != 0
        || g_strcmp0 (json_object_get_string_member (o, "name"),
            "fl_q buffers")
        || json_object_get_int_member (o, "pid") != pid)
      continue;
    level = json_object_get_int_member (json_object_get_object_member (o,
            "args"), "buffers");
    max_level = MAX (max_level, level);
    {
      gdouble e[2] = { json_object_get_double_member (o, "ts"), level };
      g_array_append_val (levels, e);
    }
  }
  fail_unless (max_level <= 5 && max_level >= 3, "max level %" G_GINT64_FORMAT,
      max_level);
  g_array_sort (levels, cmp_ts);
  fail_unless (levels->len > 10);
  fail_unless (((gdouble *) levels->data)[2 * (levels->len - 2) + 1] <= 1.0,
      "level %f before the stop: the flushed buffers were never taken out",
      ((gdouble *) levels->data)[2 * (levels->len - 2) + 1]);
  g_array_free (levels, TRUE);
  json_node_unref (root);
}

GST_END_TEST;

/* kill -9 in the middle of a run: every line up to the last flush is there,
 * and adding the closing bracket makes it strict JSON. */
GST_START_TEST (test_kill9)
{
  gchar *tracers = g_strdup_printf ("stageprof(trace=\"%s\")", KILL_PATH);
  gchar *argv[] = { (gchar *) "gst-launch-1.0", (gchar *) "-q",
    (gchar *) "videotestsrc", (gchar *) "is-live=true", (gchar *) "!",
    (gchar *) "video/x-raw,width=32,height=24,framerate=200/1", (gchar *) "!",
    (gchar *) "identity", (gchar *) "name=k_id", (gchar *) "!",
    (gchar *) "fakesink", NULL
  };
  gchar **envp = g_environ_setenv (g_get_environ (), "GST_TRACERS", tracers,
      TRUE);
  GPid child;
  GError *err = NULL;
  JsonNode *root;
  JsonArray *a;

  g_unlink (KILL_PATH);
  fail_unless (g_spawn_async (NULL, argv, envp, G_SPAWN_SEARCH_PATH |
          G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
          &child, &err), "%s", err ? err->message : "");
  g_usleep (1500 * 1000);
  kill (child, SIGKILL);
  waitpid (child, NULL, 0);
  g_spawn_close_pid (child);
  root = parse_json_file (KILL_PATH, TRUE);
  a = json_node_get_array (root);
  fail_unless (count_events (a, "X", "k_id", -1) >= 20,
      "%u slices before the kill", count_events (a, "X", "k_id", -1));
  json_node_unref (root);
  g_strfreev (envp);
  g_free (tracers);
}

GST_END_TEST;

static Suite *
stageprof_output_suite (void)
{
  Suite *s = suite_create ("stageprof_output");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_json_summary);
  tcase_add_test (tc, test_sink_units);
  tcase_add_test (tc, test_trace);
  tcase_add_test (tc, test_csv);
  tcase_add_test (tc, test_render_escaping);
  tcase_add_test (tc, test_filter);
  tcase_add_test (tc, test_flush_resets_level);
  tcase_add_test (tc, test_kill9);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  g_setenv ("GST_TRACERS", "stageprof(summary=\"" SUMMARY_PATH "\",trace=\""
      TRACE_PATH "\")", TRUE);
  /* The trace writer's thread must be in the process that runs the tests. */
  g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);
  truth_element_register ();
  s = stageprof_output_suite ();
  return gst_check_run_suite (s, "stageprof_output", __FILE__);
}
