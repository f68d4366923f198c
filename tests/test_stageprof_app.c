/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof for applications: the get-summary structure, reset,
 * write-trace, two pipelines in one process, and the C and Python examples
 * of docs/examples/ run as a user would.
 *
 * Runs without fork: the trace writer thread lives in this process.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <time.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <json-glib/json-glib.h>

#define TRACE_PATH TESTS_BUILD_DIR "/stageprof_app-trace.json"
#define COPY_PATH TESTS_BUILD_DIR "/stageprof_app-copy.json"
#define EXAMPLE_TRACE TESTS_BUILD_DIR "/stageprof_app-example.json"

#include "stageprof-check.h"
#include "lib/stagetest.h"

static JsonArray *
load_trace (const gchar * path, JsonParser ** parser)
{
  GError *err = NULL;

  *parser = json_parser_new ();
  fail_unless (json_parser_load_from_file (*parser, path, &err),
      "%s: %s", path, err ? err->message : "");
  return json_node_get_array (json_parser_get_root (*parser));
}

static gint64
process_pid (JsonArray * a, const gchar * process)
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
  return -1;
}

static void
check_fields (const GstStructure * r, const gchar * const *fields, GType t)
{
  guint i;

  for (i = 0; fields[i]; i++)
    fail_unless (gst_structure_has_field_typed (r, fields[i], t),
        "%s: field %s missing or not %s", gst_structure_get_name (r),
        fields[i], g_type_name (t));
}

static void
check_table (const GstStructure * s, const gchar * table,
    const gchar * const *strings, const gchar * const *u64s,
    const gchar * const *doubles)
{
  const GValue *arr = gst_structure_get_value (s, table);
  guint i;

  fail_unless (arr && GST_VALUE_HOLDS_ARRAY (arr), "%s is not an array",
      table);
  fail_unless (gst_value_array_get_size (arr) > 0, "%s is empty", table);
  for (i = 0; i < gst_value_array_get_size (arr); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    check_fields (r, strings, G_TYPE_STRING);
    check_fields (r, u64s, G_TYPE_UINT64);
    check_fields (r, doubles, G_TYPE_DOUBLE);
  }
}

/* A thread that burns `data` ms of its own CPU time, then waits for the
 * test to let it end. */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint ready;
  gboolean go;
} Gate;

static gpointer
burner (gpointer data)
{
  Gate *g = data;
  struct timespec t;
  guint64 ns;

  do {
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
    ns = (guint64) t.tv_sec * GST_SECOND + t.tv_nsec;
  } while (ns < 11 * GST_MSECOND);
  g_mutex_lock (&g->lock);
  g->ready++;
  g_cond_broadcast (&g->cond);
  while (!g->go)
    g_cond_wait (&g->cond, &g->lock);
  g_mutex_unlock (&g->lock);
  return NULL;
}

/* An application that starts and ends threads all day: the OS-thread
 * table keeps 256 of those that ended (each used more than the 10 ms below
 * which an ended thread is forgotten anyway), and its rows and the
 * unlisted line still add up to the process's CPU. */
GST_START_TEST (test_os_threads_bounded)
{
  const guint batches = 10, per = 29;
  const GValue *rows;
  const GstStructure *proc;
  GstStructure *s;
  gdouble sum = 0, cpu, unlisted;
  guint b, i;

  /* a pipeline's data, for there to be a summary */
  stage_test_run_launch ("fakesrc num-buffers=5 ! fakesink", 10 * GST_SECOND);
  for (b = 0; b < batches; b++) {
    Gate g = { 0 };
    GThread *th[29];

    g_mutex_init (&g.lock);
    g_cond_init (&g.cond);
    for (i = 0; i < per; i++)
      th[i] = g_thread_new ("burner", burner, &g);
    g_mutex_lock (&g.lock);
    while (g.ready < per)
      g_cond_wait (&g.cond, &g.lock);
    g_mutex_unlock (&g.lock);
    /* the tracer sees them alive, each with 11 ms */
    gst_structure_free (get_summary ());
    g_mutex_lock (&g.lock);
    g.go = TRUE;
    g_cond_broadcast (&g.cond);
    g_mutex_unlock (&g.lock);
    for (i = 0; i < per; i++)
      g_thread_join (th[i]);
    g_mutex_clear (&g.lock);
    g_cond_clear (&g.cond);
  }
  s = get_summary ();
  rows = gst_structure_get_value (s, "os_threads");
  proc = gst_value_get_structure (gst_structure_get_value (s, "process"));
  for (i = 0; i < gst_value_array_get_size (rows); i++)
    sum += dget (gst_value_get_structure (gst_value_array_get_value (rows,
                i)), "cpu_s");
  cpu = dget (proc, "cpu_s");
  unlisted = dget (proc, "unlisted_cpu_s");
  fail_unless (gst_value_array_get_size (rows) <= 256 + 20,
      "%u OS-thread rows after %u threads ended",
      gst_value_array_get_size (rows), batches * per);
  fail_unless (gst_value_array_get_size (rows) >= 256, "%u rows",
      gst_value_array_get_size (rows));
  fail_unless (fabs (sum + unlisted - cpu) <= 0.02 * cpu + 0.01,
      "rows %.3f s + unlisted %.3f s, process %.3f s", sum, unlisted, cpu);
  fail_unless (unlisted >= (batches * per - 256 - 20) * 0.011,
      "the forgotten threads' CPU is not in the unlisted line: %.3f s",
      unlisted);
  gst_structure_free (s);
}

GST_END_TEST;

GST_START_TEST (test_summary_schema)
{
  static const gchar *const el_s[] = { "name", "thread", NULL };
  static const gchar *const el_u[] = { "count", NULL };
  static const gchar *const el_d[] = { "mean_ms", "std_ms", "min_ms",
    "max_ms", "median_ms", "p90_ms", "p99_ms", "total_s", "busy_pct", NULL
  };
  static const gchar *const q_s[] = { "name", NULL };
  static const gchar *const q_u[] = { "items", "max_level", "max_bytes",
    NULL
  };
  static const gchar *const q_d[] = { "qps", "mean_level", "mean_bytes",
    "empty_pct", "full_pct", "ave_put_ms", "ave_get_ms", NULL
  };
  static const gchar *const t_s[] = { "name", NULL };
  static const gchar *const t_d[] = { "busy_pct", "wait_input_pct",
    "wait_output_pct", NULL
  };
  static const gchar *const none[] = { NULL };
  static const gchar *const s_u[] = { "frames", NULL };
  static const gchar *const s_d[] = { "fps", NULL };
  GstStructure *s;
  gboolean final = FALSE;

  run_pipeline ("schema", "videotestsrc num-buffers=10 ! "
      "video/x-raw,width=64,height=48 ! queue ! identity ! fakesink "
      "sync=false");
  s = get_summary ();
  fail_unless (gst_structure_has_field_typed (s, "wall_s", G_TYPE_DOUBLE));
  /* Every pipeline of this process went to NULL: nothing will change. */
  fail_unless (gst_structure_get_boolean (s, "final", &final));
  fail_unless (final);
  fail_unless (gst_structure_has_field_typed (s, "verdict", G_TYPE_STRING));
  check_table (s, "elements", el_s, el_u, el_d);
  check_table (s, "queues", q_s, q_u, q_d);
  check_table (s, "threads", t_s, none, t_d);
  check_table (s, "sinks", q_s, s_u, s_d);
  gst_structure_free (s);
}

GST_END_TEST;

GST_START_TEST (test_reset)
{
  GstTracer *t = find_prof ();
  GstStructure *s;
  const GValue *arr;

  run_pipeline ("rs1", "videotestsrc num-buffers=10 ! queue name=rs1_q ! "
      "identity name=rs1_id ! fakesink sync=false");
  g_signal_emit_by_name (t, "reset");
  s = get_summary ();
  arr = gst_structure_get_value (s, "elements");
  fail_unless_equals_int (gst_value_array_get_size (arr), 0);
  arr = gst_structure_get_value (s, "queues");
  fail_unless_equals_int (gst_value_array_get_size (arr), 0);
  gst_structure_free (s);

  run_pipeline ("rs2", "videotestsrc num-buffers=7 ! identity name=rs2_id ! "
      "fakesink sync=false");
  s = get_summary ();
  fail_unless_equals_int (uget (row (s, "elements", "rs2_id", "rs2"),
          "count"), 7);
  fail_unless_equals_int (count_sum (s, "rs1_id", NULL), 0);
  gst_structure_free (s);
  gst_object_unref (t);
}

GST_END_TEST;

GST_START_TEST (test_write_trace)
{
  GstTracer *t = find_prof ();
  gboolean ok = FALSE;
  JsonParser *p;
  JsonArray *a;

  run_pipeline ("wt", "videotestsrc num-buffers=5 ! identity name=wt_id ! "
      "fakesink sync=false");
  g_unlink (COPY_PATH);
  g_signal_emit_by_name (t, "write-trace", COPY_PATH, &ok);
  fail_unless (ok);
  a = load_trace (COPY_PATH, &p);
  fail_unless (process_pid (a, "wt") > 0);
  g_object_unref (p);

  /* An unwritable path: a warning naming it, FALSE, nothing else. */
  ok = TRUE;
  ASSERT_WARNING (g_signal_emit_by_name (t, "write-trace",
          "/nonexistent-dir/copy.json", &ok));
  fail_if (ok);
  gst_object_unref (t);
}

GST_END_TEST;

static GstElement *
start (const gchar * name, const gchar * desc)
{
  GstElement *p = gst_parse_launch (desc, NULL);

  fail_unless (p != NULL);
  gst_object_set_name (GST_OBJECT (p), name);
  fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  return p;
}

static void
finish (GstElement * p)
{
  stage_test_expect_eos (p, 60 * GST_SECOND, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

/* The `final` of `pipeline`'s last run in the pipelines table. */
static gboolean
pipeline_final (const GstStructure * s, const gchar * pipeline)
{
  const GValue *arr = gst_structure_get_value (s, "pipelines");
  gboolean final = FALSE, found = FALSE;
  guint i;

  for (i = 0; arr && i < gst_value_array_get_size (arr); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    if (g_strcmp0 (gst_structure_get_string (r, "pipeline"), pipeline) == 0) {
      fail_unless (gst_structure_get_boolean (r, "final", &final));
      found = TRUE;
    }
  }
  fail_unless (found, "no pipelines row for %s", pipeline);
  return final;
}

/* get-summary while a pipeline runs is not final; once it went to NULL
 * (stopped and summarized), it is, for that pipeline and as a whole. */
GST_START_TEST (test_summary_final)
{
  GstElement *p = start ("fin", "videotestsrc is-live=true ! "
      "video/x-raw,width=64,height=48,framerate=50/1 ! queue ! "
      "identity name=fin_id ! fakesink sync=true");
  GstStructure *live = NULL, *s;
  gboolean final = TRUE;
  guint i;

  /* Until fin_id has a row (a loaded machine may take a while). */
  for (i = 0; i < 200 && !live; i++) {
    GPtrArray *r;
    g_usleep (50000);
    s = get_summary ();
    r = rows (s, "elements", "fin_id", "fin");
    if (r->len > 0)
      live = s;
    else
      gst_structure_free (s);
    g_ptr_array_free (r, TRUE);
  }
  /* Stopped before any check: a live pipeline left running would keep the
   * failing test's process from exiting. */
  gst_element_set_state (p, GST_STATE_NULL);
  s = get_summary ();
  gst_object_unref (p);

  fail_unless (live != NULL, "fin_id never got a row");
  fail_unless (gst_structure_get_boolean (live, "final", &final));
  fail_if (final, "final while the pipeline runs");
  fail_if (pipeline_final (live, "fin"));
  fail_unless (gst_structure_get_boolean (s, "final", &final));
  fail_unless (final, "not final after the pipeline went to NULL");
  fail_unless (pipeline_final (s, "fin"));
  gst_structure_free (live);
  gst_structure_free (s);
}

GST_END_TEST;

/* Two pipelines running at the same time: rows stay apart, and each is a
 * process of its own in the trace. */
GST_START_TEST (test_two_pipelines)
{
  GstTracer *t = find_prof ();
  GstElement *a = start ("twoA", "videotestsrc num-buffers=20 ! "
      "video/x-raw,width=64,height=48 ! identity name=two_a_id "
      "sleep-time=1000 ! fakesink sync=false");
  GstElement *b = start ("twoB", "videotestsrc num-buffers=30 ! "
      "video/x-raw,width=64,height=48 ! queue ! identity name=two_b_id "
      "sleep-time=1000 ! fakesink sync=false");
  GstStructure *s;
  gboolean ok = FALSE;
  JsonParser *p;
  JsonArray *arr;
  gint64 pa, pb;
  guint i, na = 0, nb = 0;

  finish (a);
  finish (b);
  s = get_summary ();
  fail_unless_equals_int (uget (row (s, "elements", "two_a_id", "twoA"),
          "count"), 20);
  fail_unless_equals_int (uget (row (s, "elements", "two_b_id", "twoB"),
          "count"), 30);
  fail_unless_equals_int (count_sum (s, "two_a_id", "twoB"), 0);
  gst_structure_free (s);

  g_signal_emit_by_name (t, "write-trace", COPY_PATH, &ok);
  fail_unless (ok);
  gst_object_unref (t);
  arr = load_trace (COPY_PATH, &p);
  pa = process_pid (arr, "twoA");
  pb = process_pid (arr, "twoB");
  fail_unless (pa > 0 && pb > 0 && pa != pb);
  for (i = 0; i < json_array_get_length (arr); i++) {
    JsonObject *o = json_array_get_object_element (arr, i);
    const gchar *n = json_object_get_string_member (o, "name");
    if (g_strcmp0 (n, "two_a_id") == 0) {
      fail_unless_equals_int (json_object_get_int_member (o, "pid"), pa);
      na++;
    } else if (g_strcmp0 (n, "two_b_id") == 0) {
      fail_unless_equals_int (json_object_get_int_member (o, "pid"), pb);
      nb++;
    }
  }
  fail_unless_equals_int (na, 20);
  fail_unless_equals_int (nb, 30);
  g_object_unref (p);
}

GST_END_TEST;

/* Runs an example the way a user would: GST_TRACERS unset (the example
 * sets its own), the build's plugin path inherited. */
static void
run_example (gchar ** argv)
{
  gchar **envp = g_environ_unsetenv (g_get_environ (), "GST_TRACERS");
  gchar *out = NULL, *err = NULL;
  gint status = -1;
  GError *e = NULL;
  gchar *copy = g_strdup_printf ("%s.copy.json", EXAMPLE_TRACE);
  JsonParser *p;
  JsonArray *a;

  g_unlink (EXAMPLE_TRACE);
  g_unlink (copy);
  fail_unless (g_spawn_sync (NULL, argv, envp, G_SPAWN_SEARCH_PATH, NULL,
          NULL, &out, &err, &status, &e), "%s", e ? e->message : "");
  fail_unless (g_spawn_check_wait_status (status, NULL), "%s failed:\n%s\n%s",
      argv[0], out, err);
  fail_unless (strstr (out, "ex_work") && strstr (out, "verdict:"), "%s",
      out);
  fail_unless (strstr (out, "written"), "%s", out);
  /* The copy, and the trace itself closed at exit: both strict JSON. */
  a = load_trace (copy, &p);
  fail_unless (json_array_get_length (a) > 10);
  g_object_unref (p);
  a = load_trace (EXAMPLE_TRACE, &p);
  fail_unless (json_array_get_length (a) > 10);
  g_object_unref (p);
  g_free (out);
  g_free (err);
  g_free (copy);
  g_strfreev (envp);
}

#define EXAMPLE_PIPELINE "videotestsrc num-buffers=20 ! " \
  "video/x-raw,width=64,height=48 ! queue ! identity name=ex_work " \
  "sleep-time=500 ! fakesink sync=false"

GST_START_TEST (test_c_example)
{
  gchar *argv[] = { (gchar *) TESTS_BUILD_DIR "/stageprof-app",
    (gchar *) EXAMPLE_PIPELINE, (gchar *) EXAMPLE_TRACE, NULL
  };

  run_example (argv);
}

GST_END_TEST;

static const gchar *
python_with_gst (void)
{
  static const gchar *const candidates[] = { "python3", "/usr/bin/python3",
    NULL
  };
  static const gchar *found;
  static gboolean looked;
  guint i;

  /* Asked when the suite is built and again by the test. */
  if (looked)
    return found;
  looked = TRUE;
  for (i = 0; candidates[i]; i++) {
    gchar *argv[] = { (gchar *) candidates[i], (gchar *) "-c",
      (gchar *) "import gi; gi.require_version('Gst', '1.0'); "
          "from gi.repository import Gst", NULL
    };
    gint status = -1;
    if (g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
            G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
            NULL, NULL, NULL, &status, NULL)
        && g_spawn_check_wait_status (status, NULL))
      return found = candidates[i];
  }
  return NULL;
}

GST_START_TEST (test_python_example)
{
  const gchar *python = python_with_gst ();
  gchar *argv[] = { NULL,
    (gchar *) TESTS_SOURCE_DIR "/../docs/examples/stageprof-app.py",
    (gchar *) EXAMPLE_PIPELINE, (gchar *) EXAMPLE_TRACE, NULL
  };

  /* Only registered where python_with_gst () found one. */
  fail_unless (python != NULL);
  argv[0] = (gchar *) python;
  run_example (argv);
}

GST_END_TEST;

static Suite *
stageprof_app_suite (void)
{
  Suite *s = suite_create ("stageprof_app");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_summary_schema);
  tcase_add_test (tc, test_os_threads_bounded);
  tcase_add_test (tc, test_reset);
  tcase_add_test (tc, test_write_trace);
  tcase_add_test (tc, test_two_pipelines);
  tcase_add_test (tc, test_summary_final);
  tcase_add_test (tc, test_c_example);
  stage_test_add_unless (tc, test_python_example, python_with_gst () ? NULL :
      g_strdup ("no python3 can import gi.repository.Gst (install "
          "python3-gi and python3-gst-1.0)"));
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  g_setenv ("GST_TRACERS", "stageprof(summary=none,trace=\"" TRACE_PATH
      "\")", TRUE);
  g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);
  s = stageprof_app_suite ();
  return gst_check_run_suite (s, "stageprof_app", __FILE__);
}
