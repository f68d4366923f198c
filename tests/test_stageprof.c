/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof: element self time, nesting, skip-first, and the figures on
 * pipelines with tee, funnel, demuxers and decodebin.
 *
 * Every test runs its own named pipeline and reads the rows of that pipeline
 * from the tracer's `get-summary` action. Times use sleeping elements
 * (stagetruth, tests/truth-element.h) whose cost is known; tolerances are
 * wide because the
 * test machine is shared, but a figure that includes a nested element's time
 * or loses one sleep still falls outside them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "stageprof-check.h"
#include "truth-element.h"
#include "lib/stagetest.h"

/* stagetruth us=N burns N µs of CPU per buffer: its mean is N µs plus its
 * own overhead, and the source's production time does not leak into it. */
GST_START_TEST (test_known_cost)
{
  GstStructure *s;
  const GstStructure *r;

  run_pipeline ("known",
      "fakesrc num-buffers=30 sizetype=fixed sizemax=64 ! "
      "stagetruth name=slow5 us=5000 ! fakesink sync=false");
  s = get_summary ();
  r = row (s, "elements", "slow5", "known");
  fail_unless_equals_int (uget (r, "count"), 30);
  /* It burns at least the CPU time asked. */
  fail_unless (dget (r, "median_ms") >= 4.95, "median %f",
      dget (r, "median_ms"));
  fail_unless (dget (r, "median_ms") < 8.0, "median %f",
      dget (r, "median_ms"));
  fail_unless (dget (r, "min_ms") >= 4.95, "min %f", dget (r, "min_ms"));
  fail_unless (dget (r, "total_s") >= 30 * 0.00495, "total %f s",
      dget (r, "total_s"));
  /* Working, or ready to work but waiting for a core (a loaded machine). */
  fail_unless (dget (r, "busy_pct") + dget (thread_of (s, "slow5", "known"),
          "cpu_wait_pct") > 50.0, "busy %f", dget (r, "busy_pct"));
  fail_unless (dget (r, "std_ms") >= 0.0);
  fail_unless (dget (r, "p90_ms") >= dget (r, "median_ms") - 1e-9);
  fail_unless (dget (r, "max_ms") >= dget (r, "p99_ms") - 1e-9);
  /* The verdict names the element that eats the thread. */
  fail_unless (strstr (gst_structure_get_string (s, "verdict"), "slow5"),
      "verdict: %s", gst_structure_get_string (s, "verdict"));
  gst_structure_free (s);
}

GST_END_TEST;

/* a pushes into b on the same thread: a's self time excludes b's. */
GST_START_TEST (test_nesting)
{
  GstStructure *s;
  gdouble a, b;

  run_pipeline ("nest",
      "fakesrc num-buffers=20 ! stagetruth name=nest_a us=4000 ! "
      "stagetruth name=nest_b us=2000 ! fakesink sync=false");
  s = get_summary ();
  a = dget (row (s, "elements", "nest_a", "nest"), "median_ms");
  b = dget (row (s, "elements", "nest_b", "nest"), "median_ms");
  fail_unless (a >= 3.95 && a < 5.9, "a's self time %f ms (4 expected, 6 "
      "if b's were included)", a);
  fail_unless (b >= 1.95 && b < 3.9, "b's self time %f ms", b);
  /* Both run on the source's thread, which is busy all along. */
  fail_unless_equals_string (gst_structure_get_string (row (s, "elements",
              "nest_a", "nest"), "thread"), gst_structure_get_string (row (s,
              "elements", "nest_b", "nest"), "thread"));
  gst_structure_free (s);
}

GST_END_TEST;

/* The source's own time per buffer is measured between its pushes. */
GST_START_TEST (test_source_production)
{
  GstStructure *s;
  const GstStructure *r;

  /* A live source waits for its clock in create(): 5 ms per frame at
   * 200 fps, and 20 intervals before its 20 pushes (the first one starts
   * after the stream-start, caps and segment events). Its row is the CPU time of
   * each gap (a 32x24 frame: microseconds), not the 5 ms. */
  run_pipeline ("prod",
      "videotestsrc name=prodsrc is-live=true num-buffers=20 ! "
      "video/x-raw,width=32,height=24,framerate=200/1 ! fakesink sync=false");
  s = get_summary ();
  r = row (s, "elements", "prodsrc", "prod");
  fail_unless_equals_int (uget (r, "count"), 20);
  fail_unless (dget (r, "median_ms") < 2.0, "median %f",
      dget (r, "median_ms"));
  /* Waiting for the clock is not work: the thread waits on input. */
  fail_unless (dget (r, "busy_pct") < 40.0, "busy %f", dget (r, "busy_pct"));
  fail_unless (dget (thread_of (s, "prodsrc", "prod"), "wait_input_pct") >
      50.0);
  fail_unless (dget (thread_of (s, "prodsrc", "prod"), "busy_pct") < 50.0);
  gst_structure_free (s);
}

GST_END_TEST;

/* Whether the trace copy at `path` has a grey slice `kind` for `element`. */
static gboolean
trace_has_wait (const gchar * path, const gchar * kind, const gchar * element)
{
  gchar *text = NULL, *needle;
  gboolean found = FALSE;
  gchar **lines;
  guint i;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  needle = g_strdup_printf ("\"element\":\"%s\"", element);
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] && !found; i++)
    found = strstr (lines[i], kind) && strstr (lines[i], needle);
  g_strfreev (lines);
  g_free (needle);
  g_free (text);
  return found;
}

/* An aggregator's src task spends most of its time waiting for its inputs:
 * here one input is slowed to 5 ms per frame by an identity on its own
 * thread, and compositing 32x24 frames costs microseconds. The thread's CPU
 * time splits each interval between pushes: the compositor's row is its
 * work, its thread waits on input, and the verdict names the slow
 * identity. */
GST_START_TEST (test_aggregator)
{
  gchar *name = g_strdup_printf ("stageprof-agg-%d.json", (gint) getpid ());
  gchar *path = g_build_filename (g_get_tmp_dir (), name, NULL);
  gchar *copy = g_strconcat (path, ".copy", NULL);
  GstTracer *t = find_prof ();
  GstStructure *s;
  const GstStructure *r, *th;
  const gchar *v;
  gboolean ok = FALSE;

  g_object_set (t, "trace", path, NULL);
  run_pipeline ("agg",
      "compositor name=agg_c ! fakesink name=agg_sink sync=false "
      "videotestsrc num-buffers=30 ! video/x-raw,width=32,height=24 ! "
      "queue ! stagetruth name=agg_slow us=5000 ! agg_c. "
      "videotestsrc num-buffers=30 ! video/x-raw,width=32,height=24 ! "
      "agg_c.");
  g_signal_emit_by_name (t, "write-trace", copy, &ok);
  g_object_set (t, "trace", NULL, NULL);
  gst_object_unref (t);
  fail_unless (ok);
  s = get_summary ();
  /* The row on the compositor's own thread (its src task). */
  r = row (s, "threads", "agg_c", "agg");
  th = r;
  fail_unless (dget (th, "busy_pct") < 30.0, "busy %f",
      dget (th, "busy_pct"));
  fail_unless (dget (th, "wait_input_pct") > 60.0, "wait input %f",
      dget (th, "wait_input_pct"));
  {
    GPtrArray *rs = rows (s, "elements", "agg_c", "agg");
    guint i;
    for (i = 0; i < rs->len; i++) {
      const GstStructure *e = g_ptr_array_index (rs, i);
      if (g_strcmp0 (gst_structure_get_string (e, "thread"), "agg_c"))
        continue;
      fail_unless (uget (e, "count") >= 25);
      fail_unless (dget (e, "median_ms") < 2.5, "median %f",
          dget (e, "median_ms"));
      fail_unless (dget (e, "busy_pct") < 30.0, "busy %f",
          dget (e, "busy_pct"));
    }
    fail_unless (rs->len >= 1);
    g_ptr_array_free (rs, TRUE);
  }
  v = gst_structure_get_string (s, "verdict");
  fail_unless (strstr (v, "agg_slow") != NULL, "verdict: %s", v);
  fail_if (g_str_has_prefix (v, "compute-bound: agg_c"), "verdict: %s", v);
  /* The waiting is a grey slice on the compositor's thread. */
  fail_unless (trace_has_wait (copy, "Wait on Input", "agg_c"));
  gst_structure_free (s);
  g_unlink (path);
  g_unlink (copy);
  g_free (path);
  g_free (copy);
  g_free (name);
}

GST_END_TEST;

/* A GstCollectPads muxer (matroskamux in 1.22) has no task: the audio
 * queue's thread blocks in the muxer's chain until the slow video arrives.
 * That is waiting on output, not the muxer's work. */
GST_START_TEST (test_collectpads_mux)
{
  GstStructure *s;
  const GstStructure *th;
  GPtrArray *rs;
  const gchar *v;
  guint i;

  run_pipeline ("cpmux",
      "matroskamux name=cp_mux ! fakesink sync=false "
      "videotestsrc num-buffers=20 ! "
      "video/x-raw,width=32,height=24,format=I420 ! queue ! "
      "stagetruth name=cp_slow us=5000 ! cp_mux. "
      "audiotestsrc num-buffers=20 samplesperbuffer=441 ! "
      "queue name=cp_aq ! cp_mux.");
  s = get_summary ();
  th = row (s, "threads", "cp_aq", "cpmux");
  fail_unless (dget (th, "busy_pct") < 30.0, "busy %f",
      dget (th, "busy_pct"));
  fail_unless (dget (th, "wait_output_pct") > 50.0, "wait output %f",
      dget (th, "wait_output_pct"));
  rs = rows (s, "elements", "cp_mux", "cpmux");
  fail_unless (rs->len >= 1);
  for (i = 0; i < rs->len; i++)
    fail_unless (dget (g_ptr_array_index (rs, i), "busy_pct") < 30.0,
        "busy %f", dget (g_ptr_array_index (rs, i), "busy_pct"));
  g_ptr_array_free (rs, TRUE);
  v = gst_structure_get_string (s, "verdict");
  fail_unless (strstr (v, "cp_slow") != NULL, "verdict: %s", v);
  gst_structure_free (s);
}

GST_END_TEST;

/* A sink with sync=true waits for the clock inside its chain: at 100 fps
 * that is 10 ms per frame, blocked on the clock, not the sink's work. */
GST_START_TEST (test_sync_sink)
{
  GstStructure *s;
  const GstStructure *r;

  run_pipeline ("syncsink",
      "videotestsrc num-buffers=20 ! "
      "video/x-raw,width=32,height=24,framerate=100/1 ! "
      "fakesink name=ss_sink sync=true");
  s = get_summary ();
  r = row (s, "elements", "ss_sink", "syncsink");
  fail_unless_equals_int (uget (r, "count"), 20);
  fail_unless (dget (r, "median_ms") < 2.0, "median %f",
      dget (r, "median_ms"));
  fail_unless (dget (r, "busy_pct") < 30.0, "busy %f", dget (r, "busy_pct"));
  fail_unless (dget (thread_of (s, "ss_sink", "syncsink"),
          "blocked_pct") > 50.0);
  fail_unless (strstr (gst_structure_get_string (s, "verdict"),
          "paced by the clock") != NULL);
  gst_structure_free (s);
}

GST_END_TEST;

GST_START_TEST (test_skip_first)
{
  GstStructure *s;
  const GstStructure *r;

  set_skip_first (5);
  run_pipeline ("skip",
      "fakesrc name=skipsrc num-buffers=20 ! identity name=skip_id ! "
      "fakesink name=skip_sink sync=false");
  set_skip_first (0);
  s = get_summary ();
  r = row (s, "elements", "skip_id", "skip");
  fail_unless_equals_int (uget (r, "count"), 15);
  fail_unless_equals_int (uget (r, "skipped"), 5);
  /* 20 production intervals (the first after the stream's first events),
   * 5 skipped. */
  fail_unless_equals_int (uget (row (s, "elements", "skipsrc", "skip"),
          "count"), 15);
  /* Frames at the sink are not statistics: all 20 count. */
  /* fakesrc's buffers are no video frames: counted as buffers. */
  fail_unless_equals_int (uget (row (s, "sinks", "skip_sink", NULL),
          "buffers"), 20);
  fail_unless_equals_string (gst_structure_get_string (row (s, "sinks",
              "skip_sink", NULL), "unit"), "buffers");
  gst_structure_free (s);
}

GST_END_TEST;

/* tee into two queues, both into a funnel: every buffer is counted once per
 * path, on the thread that carried it. */
GST_START_TEST (test_tee_funnel)
{
  GstStructure *s;
  GPtrArray *f;

  run_pipeline ("teefun",
      "videotestsrc num-buffers=20 ! video/x-raw,width=64,height=48 ! "
      "tee name=tf_tee ! queue name=tf_q1 ! funnel name=tf_funnel ! "
      "fakesink name=tf_sink sync=false tf_tee. ! queue name=tf_q2 ! "
      "tf_funnel.");
  s = get_summary ();
  fail_unless_equals_int (count_sum (s, "tf_tee", "teefun"), 20);
  f = rows (s, "elements", "tf_funnel", "teefun");
  /* Two queue threads push into the funnel: one row each. */
  fail_unless_equals_int (f->len, 2);
  g_ptr_array_free (f, TRUE);
  fail_unless_equals_int (count_sum (s, "tf_funnel", "teefun"), 40);
  fail_unless_equals_int (uget (row (s, "sinks", "tf_sink", NULL), "frames"),
      40);
  fail_unless_equals_int (uget (row (s, "queues", "tf_q1", "teefun"),
          "items"), 20);
  fail_unless_equals_int (uget (row (s, "queues", "tf_q2", "teefun"),
          "items"), 20);
  gst_structure_free (s);
}

GST_END_TEST;

/* A muxer and a demuxer in push mode, then a decoder. */
GST_START_TEST (test_mux_demux)
{
  GstStructure *s;

  run_pipeline ("muxdemux",
      "videotestsrc num-buffers=15 ! video/x-raw,width=64,height=48 ! "
      "avenc_mjpeg name=md_enc ! matroskamux name=md_mux ! "
      "matroskademux name=md_demux ! avdec_mjpeg name=md_dec ! "
      "fakesink name=md_sink sync=false");
  s = get_summary ();
  fail_unless_equals_int (count_sum (s, "md_enc", "muxdemux"), 15);
  fail_unless_equals_int (count_sum (s, "md_dec", "muxdemux"), 15);
  fail_unless (count_sum (s, "md_mux", "muxdemux") >= 15);
  fail_unless (count_sum (s, "md_demux", "muxdemux") >= 1);
  fail_unless_equals_int (uget (row (s, "sinks", "md_sink", NULL), "frames"),
      15);
  gst_structure_free (s);
}

GST_END_TEST;

/* decodebin from a file: pull-mode demuxer task, multiqueue thread,
 * decoder; every element with its thread, and a verdict. */
GST_START_TEST (test_decodebin)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "stageprof-test-XXXXXX",
      NULL);
  gint fd = g_mkstemp (path);
  gchar *desc;
  GstStructure *s;
  const GValue *threads;
  guint64 decoded = 0;
  guint i;
  const GValue *elems;

  fail_unless (fd >= 0);
  close (fd);
  desc = g_strdup_printf ("videotestsrc num-buffers=20 ! "
      "video/x-raw,width=64,height=48 ! avenc_mpeg4 ! matroskamux ! "
      "filesink location=%s", path);
  run_pipeline ("dbmake", desc);
  g_free (desc);
  desc = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "fakesink name=db_sink sync=false", path);
  run_pipeline ("dbplay", desc);
  g_free (desc);
  g_unlink (path);
  g_free (path);

  s = get_summary ();
  elems = gst_structure_get_value (s, "elements");
  for (i = 0; i < gst_value_array_get_size (elems); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (elems, i));
    if (g_strcmp0 (gst_structure_get_string (r, "pipeline"), "dbplay") == 0
        && strstr (gst_structure_get_string (r, "name"), "/avdec_mpeg4"))
      decoded += uget (r, "count");
  }
  fail_unless_equals_int (decoded, 20);
  fail_unless_equals_int (uget (row (s, "sinks", "db_sink", NULL), "frames"),
      20);
  threads = gst_structure_get_value (s, "threads");
  {
    guint n = 0;
    for (i = 0; i < gst_value_array_get_size (threads); i++) {
      const GstStructure *r =
          gst_value_get_structure (gst_value_array_get_value (threads, i));
      if (g_strcmp0 (gst_structure_get_string (r, "pipeline"), "dbplay") == 0)
        n++;
    }
    /* The demuxer's task and the multiqueue's at least. */
    fail_unless (n >= 2, "%u threads", n);
  }
  gst_structure_free (s);
}

GST_END_TEST;

/* Issue 39: the process's main thread pushing buffers itself (here through
 * a harness from the test's thread, as an application feeding a pad, or
 * gst-launch-1.0 sending EOS at Ctrl-C) is named as such, not after the
 * element it reached first: it read as that element's streaming thread. */
GST_START_TEST (test_main_thread_named)
{
  GstHarness *h = gst_harness_new_parse ("identity name=mt_a ! "
      "identity name=mt_b");
  GstStructure *s;
  const GValue *threads;
  gboolean main_seen = FALSE;
  guint i;

  /* GstCheck runs each test in a child process, on its main thread */
  fail_unless ((pid_t) syscall (SYS_gettid) == getpid ());
  gst_harness_set_src_caps_str (h, "application/x-test");
  for (i = 0; i < 20; i++)
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_new ()),
        GST_FLOW_OK);
  s = get_summary ();
  threads = gst_structure_get_value (s, "threads");
  for (i = 0; i < gst_value_array_get_size (threads); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (threads, i));
    const gchar *name = gst_structure_get_string (r, "name");

    fail_if (g_str_has_prefix (name, "mt_"), "the main thread named %s",
        name);
    main_seen |= g_str_has_prefix (name, "main (application)");
  }
  fail_unless (main_seen);
  gst_structure_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A buffer list is one invocation: GStreamer's default chain-list function
 * feeds identity its buffers one by one, all inside the list's slice. */
GST_START_TEST (test_buffer_lists)
{
  GstElement *p = gst_parse_launch ("appsrc name=bl_src format=time "
      "caps=video/x-raw,format=GRAY8,width=4,height=4,framerate=10/1 ! "
      "stagetruth name=bl_id us=1000 ! fakesink name=bl_sink "
      "sync=false", NULL);
  GstElement *src;
  GstFlowReturn ret;
  GstStructure *s;
  const GstStructure *r;
  guint i, j;

  fail_unless (p != NULL);
  gst_object_set_name (GST_OBJECT (p), "lists");
  src = gst_bin_get_by_name (GST_BIN (p), "bl_src");
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < 5; i++) {
    GstBufferList *list = gst_buffer_list_new ();
    for (j = 0; j < 4; j++) {
      GstBuffer *b = gst_buffer_new_allocate (NULL, 16, NULL);
      GST_BUFFER_PTS (b) = (i * 4 + j) * GST_SECOND / 10;
      gst_buffer_list_add (list, b);
    }
    g_signal_emit_by_name (src, "push-buffer-list", list, &ret);
    gst_buffer_list_unref (list);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  stage_test_expect_eos (p, 30 * GST_SECOND, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (p);

  s = get_summary ();
  r = row (s, "elements", "bl_id", "lists");
  fail_unless_equals_int (uget (r, "count"), 5);
  fail_unless (dget (r, "median_ms") >= 3.95 && dget (r, "median_ms") < 8.0,
      "median %f", dget (r, "median_ms"));
  fail_unless_equals_int (uget (row (s, "sinks", "bl_sink", NULL), "frames"),
      20);
  gst_structure_free (s);
}

GST_END_TEST;

static Suite *
stageprof_suite (void)
{
  Suite *s = suite_create ("stageprof");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_known_cost);
  tcase_add_test (tc, test_nesting);
  tcase_add_test (tc, test_main_thread_named);
  tcase_add_test (tc, test_source_production);
  tcase_add_test (tc, test_aggregator);
  tcase_add_test (tc, test_collectpads_mux);
  tcase_add_test (tc, test_sync_sink);
  tcase_add_test (tc, test_skip_first);
  tcase_add_test (tc, test_tee_funnel);
  tcase_add_test (tc, test_mux_demux);
  tcase_add_test (tc, test_decodebin);
  tcase_add_test (tc, test_buffer_lists);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  /* The tracer is created by gst_init(): the variable must come first. */
  g_setenv ("GST_TRACERS", "stageprof(summary=none)", TRUE);
  gst_check_init (&argc, &argv);
  truth_element_register ();
  s = stageprof_suite ();
  return gst_check_run_suite (s, "stageprof", __FILE__);
}
