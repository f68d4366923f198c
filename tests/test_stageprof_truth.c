/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof against ground truth, one case per topology our users run.
 *
 * Each case puts `stagetruth` elements (tests/truth-element.h) in a
 * topology: burners cost a known CPU time per buffer and measure it
 * themselves, sleepers and clock waiters block. Each case then asserts, on
 * the summary of the same run:
 *  - a burner's self time is its own measured CPU time within 2 % (or
 *    0.1 ms);
 *  - an element that blocks (sleep, clock, another pad's turn) reports
 *    little self time;
 *  - every thread's shares add up to 100 % +- 1 %;
 *  - the verdict names the stage that sets the rate, or says the clock
 *    paces the pipeline.
 * Only measurements of the same run are compared, so a loaded machine
 * (waiting for a CPU stretches wall times) does not change the outcome.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>

#include "stageprof-check.h"
#include "truth-element.h"
#include "spsummary.h"
#include "spverdict.h"
#include "lib/stagetest.h"

static GstElement *
run_keep (const gchar * name, const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  fail_unless (p != NULL, "cannot parse '%s': %s", desc,
      err ? err->message : "?");
  gst_object_set_name (GST_OBJECT (p), name);
  stage_test_play_to_eos (p, 90 * GST_SECOND, name);
  /* Stopped before the summary is read: an invocation still blocked at
   * EOS (an inactive selector pad) ends with the flush, as it does in the
   * element's own measurement. */
  gst_element_set_state (p, GST_STATE_NULL);
  return p;
}

static void
stop (GstElement * p)
{
  gst_object_unref (p);
}

static guint64
truth (GstElement * p, const gchar * name, const gchar * what)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), name);
  guint64 v = 0;

  fail_unless (e != NULL, "no element %s", name);
  g_object_get (e, what, &v, NULL);
  gst_object_unref (e);
  return v;
}

/* Sum of a field over an element's rows (one per thread it ran on). */
static gdouble
elem_sum (const GstStructure * s, const gchar * pipe, const gchar * name,
    const gchar * field)
{
  GPtrArray *r = rows (s, "elements", name, pipe);
  gdouble sum = 0;
  guint i;

  fail_unless (r->len > 0, "no row for %s in %s", name, pipe);
  for (i = 0; i < r->len; i++)
    sum += dget (g_ptr_array_index (r, i), field);
  g_ptr_array_free (r, TRUE);
  return sum;
}

/* A burner's self time is the CPU time it measured itself, within 2 % or
 * 0.1 ms, plus 10 µs a buffer: the element measures inside transform_ip,
 * the tracer around the whole chain (GstBaseTransform's own work and the
 * tracer's clock reads of nested elements, which no element can see).
 * Under ASan the tracer's own hooks are instrumented and run several times
 * slower, on cold caches after a child that slept: 17 to 42 µs a buffer
 * were measured around clocksync's identity sync=true in CI runs, so the
 * allowance is 60 µs a buffer there. */
#ifdef __SANITIZE_ADDRESS__
#define PER_BUFFER_S 60e-6
#define BLOCKING_SHARE 0.08
#else
#define PER_BUFFER_S 10e-6
#define BLOCKING_SHARE 0.05
#endif

static void
assert_self (const GstStructure * s, GstElement * p, const gchar * pipe,
    const gchar * name)
{
  gdouble want = truth (p, name, "cpu-ns") / 1e9;
  gdouble got = elem_sum (s, pipe, name, "total_s");
  gdouble tol = MAX (0.02 * want, 0.0001) +
      truth (p, name, "count") * PER_BUFFER_S;

  fail_unless (ABS (got - want) <= tol,
      "%s/%s: self %.6f s, truth %.6f s (tolerance %.6f)", pipe, name, got,
      want, tol);
}

/* An element that blocks reports a small self time: its own CPU time plus
 * at most 5 % of the pipeline's running time (8 % under ASan, see
 * PER_BUFFER_S). On the development VM the funnel of test_funnel showed
 * 3.6 % to 4.1 % in three runs in a row (67 us a buffer it spends blocked
 * on its stream lock; where that CPU time comes from is not known yet). */
static void
assert_blocking (const GstStructure * s, const gchar * pipe,
    const gchar * name, gdouble cpu_s)
{
  gdouble got = elem_sum (s, pipe, name, "total_s");
  gdouble wall = dget (s, "wall_s");
  gdouble bound = cpu_s + BLOCKING_SHARE * wall + 0.0005;

  fail_unless (got <= bound, "%s/%s blocks but shows %.6f s of self time "
      "(bound %.6f, running time %.3f s)", pipe, name, got, bound, wall);
}

static const gchar *const share_fields[] = {
  "busy_pct", "wait_input_pct", "wait_output_pct", "blocked_pct",
  "cpu_wait_pct"
};

static void
check_shares (const GstStructure * s, const gchar * pipe, gboolean need_rows)
{
  const GValue *arr = gst_structure_get_value (s, "threads");
  guint i, j, n = 0;

  for (i = 0; i < gst_value_array_get_size (arr); i++) {
    const GstStructure *t =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    gdouble sum = 0;

    if (g_strcmp0 (gst_structure_get_string (t, "pipeline"), pipe))
      continue;
    n++;
    for (j = 0; j < G_N_ELEMENTS (share_fields); j++) {
      gdouble v = dget (t, share_fields[j]);
      fail_unless (v >= 0 && v <= 100.0 + 1e-9, "%s %s: %s = %f", pipe,
          gst_structure_get_string (t, "name"), share_fields[j], v);
      sum += v;
    }
    fail_unless (sum >= 99.0 && sum <= 101.0,
        "%s thread %s: shares add up to %.2f %%", pipe,
        gst_structure_get_string (t, "name"), sum);
  }
  fail_unless (n > 0 || !need_rows, "no thread rows for %s", pipe);
}

static void
assert_shares (const GstStructure * s, const gchar * pipe)
{
  check_shares (s, pipe, TRUE);
}

static void
assert_verdict (const GstStructure * s, const gchar * want)
{
  const gchar *v = gst_structure_get_string (s, "verdict");

  if (v == NULL || strstr (v, want) == NULL) {
    gchar *text = sp_summary_to_text (s, NULL);
    fail ("verdict '%s' does not say '%s'\n%s", v, want, text);
  }
}

static GstStructure *
summary_of (void)
{
  return get_summary ();
}

/* All on the source's thread: every element's time is its own. */
GST_START_TEST (test_linear)
{
  GstElement *p = run_keep ("t_linear",
      "fakesrc num-buffers=40 sizetype=fixed sizemax=64 ! "
      "stagetruth name=lin_a us=1500 ! stagetruth name=lin_b us=500 ! "
      "stagetruth name=lin_s mode=sleep us=500 ! fakesink sync=false");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_linear", "lin_a");
  assert_self (s, p, "t_linear", "lin_b");
  assert_blocking (s, "t_linear", "lin_s", truth (p, "lin_s", "cpu-ns") / 1e9);
  assert_shares (s, "t_linear");
  assert_verdict (s, "lin_a");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* An element's time stays its own when a caps filter, identity, a
 * converter or videorate sits between it and a full queue: their frames,
 * not timed by CPU, used to pass the queue's waiting up as if it were CPU
 * work, and the element upstream lost it (0.1-0.2 ms of 1.0). */
GST_START_TEST (test_behind_filters)
{
  GstElement *p = run_keep ("t_filters",
      "videotestsrc num-buffers=60 ! video/x-raw,width=64,height=48 "
      "! stagetruth name=bf_a us=1000 ! video/x-raw,width=64 ! identity "
      "! queue max-size-buffers=2 ! stagetruth name=bf_b us=3000 "
      "! fakesink sync=false");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_filters", "bf_a");
  assert_self (s, p, "t_filters", "bf_b");
  assert_shares (s, "t_filters");
  assert_verdict (s, "bf_b");
  gst_structure_free (s);
  stop (p);
  p = run_keep ("t_convert",
      "videotestsrc num-buffers=60 ! video/x-raw,width=64,height=48 "
      "! stagetruth name=bc_a us=1000 ! videoconvert ! videorate "
      "! video/x-raw,format=I420 ! queue max-size-buffers=2 "
      "! stagetruth name=bc_b us=3000 ! fakesink sync=false");
  s = summary_of ();
  assert_self (s, p, "t_convert", "bc_a");
  assert_self (s, p, "t_convert", "bc_b");
  assert_shares (s, "t_convert");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

static gint burn_stop;

static gpointer
burn_cpu (gpointer data)
{
  volatile guint64 x = 0;

  while (!g_atomic_int_get (&burn_stop))
    x++;
  return NULL;
}

/* One thread, under load from two threads that spin beside it (on two
 * cores the pipeline's thread is preempted): the elements' self times are
 * still their CPU time, not their wall time. */
GST_START_TEST (test_under_load)
{
  GThread *t1, *t2;
  GstElement *p;
  GstStructure *s;

  g_atomic_int_set (&burn_stop, 0);
  t1 = g_thread_new ("burn1", burn_cpu, NULL);
  t2 = g_thread_new ("burn2", burn_cpu, NULL);
  p = run_keep ("t_load", "fakesrc num-buffers=60 sizetype=fixed sizemax=64 "
      "! stagetruth name=ld_a us=1000 ! identity "
      "! stagetruth name=ld_b us=3000 ! fakesink sync=false");
  g_atomic_int_set (&burn_stop, 1);
  g_thread_join (t1);
  g_thread_join (t2);
  s = summary_of ();
  assert_self (s, p, "t_load", "ld_a");
  assert_self (s, p, "t_load", "ld_b");
  /* Preempted, a burner waits for a CPU: not "blocked" (before: 40 to 67 %
   * of its CPU time; what is left is the delay the thread's counters
   * could not place, on a machine loaded beyond the test's own load). */
  {
    gdouble b = elem_sum (s, "t_load", "ld_b", "blocked_s");
    gdouble w = elem_sum (s, "t_load", "ld_b", "cpu_wait_s");
    gdouble cpu = truth (p, "ld_b", "cpu-ns") / 1e9;

    fail_unless (b <= 0.2 * cpu + 0.005, "ld_b: blocked %.4f s, waiting "
        "for a CPU %.4f s, CPU %.4f s", b, w, cpu);
  }
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* A sink's rate is over the pipeline's running time: an audio branch that
 * ran through its buffers in a burst beside a slow video branch reads the
 * pipeline's rate, not thousands a second. */
GST_START_TEST (test_sink_rate_span)
{
  GstElement *p = run_keep ("t_span",
      "videotestsrc num-buffers=30 ! video/x-raw,width=64,height=48 "
      "! stagetruth name=sp_v us=10000 ! fakesink name=sp_vs sync=false "
      "audiotestsrc num-buffers=30 ! fakesink name=sp_as sync=false");
  GstStructure *s = summary_of ();
  GPtrArray *a = rows (s, "sinks", "sp_as", "t_span");
  GPtrArray *v = rows (s, "sinks", "sp_vs", "t_span");
  gdouble afps, vfps;

  fail_unless (a->len == 1 && v->len == 1);
  afps = dget (g_ptr_array_index (a, 0), "fps");
  vfps = dget (g_ptr_array_index (v, 0), "fps");
  /* Both 30 buffers over the same running time. */
  fail_unless (afps > 0 && afps < 1.5 * vfps, "audio %.1f/s, video %.1f/s",
      afps, vfps);
  g_ptr_array_free (a, TRUE);
  g_ptr_array_free (v, TRUE);
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* The verdict follows the rate: a live source ahead of a queue
 * and a stage that cannot keep up is that stage's, not the clock's. */
GST_START_TEST (test_live_queue_verdict)
{
  GstElement *p = run_keep ("t_liveq",
      "videotestsrc is-live=true num-buffers=40 "
      "! video/x-raw,width=64,height=48,framerate=30/1 ! queue "
      "! stagetruth name=lq_b us=45000 ! fakesink sync=false");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_liveq", "lq_b");
  assert_verdict (s, "lq_b");
  fail_if (strstr (gst_structure_get_string (s, "verdict"), "paced by the "
          "clock") != NULL, "%s", gst_structure_get_string (s, "verdict"));
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* Two branches of a tee: the one whose thread is held longest sets the
 * rate, here by sleeping (4 ms a buffer beside 1 ms of work), not the
 * other's 3 ms of work. */
GST_START_TEST (test_tee_blocked_branch)
{
  GstElement *p = run_keep ("t_teeb",
      "fakesrc num-buffers=60 sizetype=fixed sizemax=64 ! tee name=t "
      "t. ! queue ! stagetruth name=tb_a us=1000 "
      "! stagetruth name=tb_s mode=sleep us=4000 ! fakesink sync=false "
      "t. ! queue ! stagetruth name=tb_b us=3000 ! fakesink sync=false");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_teeb", "tb_b");
  assert_verdict (s, "blocked: tb_s");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* A sink that waits in its chain for the pipeline to preroll (the other
 * branch of the tee never gets data: its valve drops everything) is not
 * waiting for the clock: it read "paced by the clock at 0.7 fps". */
GST_START_TEST (test_sink_stuck_in_preroll)
{
  GstElement *p = gst_parse_launch ("videotestsrc "
      "! video/x-raw,width=64,height=48 ! tee name=t "
      "t. ! queue ! fakesink name=ok sync=true "
      "t. ! queue ! valve drop=true ! fakesink name=starved sync=true", NULL);
  GstStructure *s;

  gst_object_set_name (GST_OBJECT (p), "t_preroll");
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PLAYING),
      GST_STATE_CHANGE_ASYNC);
  g_usleep (G_USEC_PER_SEC);
  /* still prerolling: the starved sink has nothing */
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL, 0),
      GST_STATE_CHANGE_ASYNC);
  gst_element_set_state (p, GST_STATE_NULL);
  s = summary_of ();
  assert_verdict (s, "blocked: ok on thread");
  fail_if (strstr (gst_structure_get_string (s, "verdict"), "paced by the "
          "clock") != NULL, "%s", gst_structure_get_string (s, "verdict"));
  gst_structure_free (s);
  gst_object_unref (p);
}

GST_END_TEST;

/* An appsrc the application pushes into slowly (a producer that sleeps
 * before each buffer): the application sets the rate, and the verdict
 * says so (it named nothing, and the appsrc's thread's CPU was lost). */
GST_START_TEST (test_appsrc_slow_push)
{
  GstElement *p = gst_parse_launch ("appsrc name=as format=time "
      "caps=video/x-raw,format=GRAY8,width=8,height=8,framerate=0/1 "
      "! stagetruth name=as_a us=500 ! fakesink sync=false", NULL);
  GstElement *as = gst_bin_get_by_name (GST_BIN (p), "as");
  GstStructure *s;
  GstFlowReturn ret;
  guint n;

  gst_object_set_name (GST_OBJECT (p), "t_appsrc");
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (n = 0; n < 30; n++) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, 64, NULL);
    GST_BUFFER_PTS (b) = n * 10 * GST_MSECOND;
    g_usleep (10000);
    g_signal_emit_by_name (as, "push-buffer", b, &ret);
    gst_buffer_unref (b);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (as, "end-of-stream", &ret);
  stage_test_expect_eos (p, 10 * GST_SECOND, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  s = summary_of ();
  assert_verdict (s, "paced by the application: appsrc `as` waited for the "
      "application to push");
  gst_structure_free (s);
  gst_object_unref (as);
  gst_object_unref (p);
}

GST_END_TEST;

/* An appsink the application pulls from slowly: the application sets the
 * rate, and the verdict says so instead of blaming the appsink. */
GST_START_TEST (test_appsink_slow_pull)
{
  GstElement *p = gst_parse_launch ("fakesrc num-buffers=30 sizetype=fixed "
      "sizemax=64 ! stagetruth name=ap_a us=500 "
      "! appsink name=ap max-buffers=1 sync=false", NULL);
  GstElement *ap = gst_bin_get_by_name (GST_BIN (p), "ap");
  GstSample *sample = NULL;
  GstStructure *s;
  guint n = 0;

  gst_object_set_name (GST_OBJECT (p), "t_appsink");
  gst_element_set_state (p, GST_STATE_PLAYING);
  do {
    g_signal_emit_by_name (ap, "pull-sample", &sample);
    if (sample) {
      n++;
      gst_sample_unref (sample);
      g_usleep (10000);
    }
  } while (sample);
  stage_test_expect_eos (p, 10 * GST_SECOND, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless_equals_int (n, 30);
  s = summary_of ();
  assert_verdict (s, "paced by the application: appsink `ap`");
  gst_structure_free (s);
  gst_object_unref (ap);
  gst_object_unref (p);
}

GST_END_TEST;

/* Sum of the OS-thread rows' CPU against the process's: with codec workers
 * read before their element stops, the rows hold nearly all of it. */
static void
assert_threads_cover_process (const GstStructure * s)
{
  const GValue *rows = gst_structure_get_value (s, "os_threads");
  const GstStructure *proc = gst_value_get_structure (gst_structure_get_value
      (s, "process"));
  gdouble sum = 0, cpu = dget (proc, "cpu_s");
  guint i;

  for (i = 0; i < gst_value_array_get_size (rows); i++)
    sum += dget (gst_value_get_structure (gst_value_array_get_value (rows,
                i)), "cpu_s");
  fail_unless (sum >= 0.9 * cpu && sum <= cpu * 1.02 + 0.01,
      "OS-thread rows hold %.3f s of the process's %.3f s of CPU", sum, cpu);
}

/* A decoder that works in its own threads (libav's frame threads): they
 * are its workers, and the verdict names it (it said "blocked"
 * and named a cheaper stage). The clip is made here with x264enc. */
GST_START_TEST (test_codec_workers_decode)
{
  gchar *dir = g_dir_make_tmp ("stageprof-truth-XXXXXX", NULL);
  gchar *clip = g_build_filename (dir, "clip.mp4", NULL);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=150 "
      "pattern=smpte horizontal-speed=3 ! video/x-raw,width=1280,height=720 "
      "! x264enc speed-preset=ultrafast key-int-max=30 ! h264parse ! mp4mux "
      "! filesink location=%s", clip);
  GstElement *p = run_keep ("t_mkclip", desc);
  GstStructure *s;
  GPtrArray *r;
  guint64 workers = 0;

  stop (p);
  g_free (desc);
  desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse "
      "! avdec_h264 name=wd_dec max-threads=2 ! fakesink sync=false", clip);
  p = run_keep ("t_decw", desc);
  s = summary_of ();
  r = rows (s, "elements", "wd_dec", "t_decw");
  fail_unless (r->len > 0);
  gst_structure_get_uint64 (g_ptr_array_index (r, 0), "workers", &workers);
  fail_unless (workers >= 1, "avdec_h264 with max-threads=2 has no workers");
  fail_unless (dget (g_ptr_array_index (r, 0), "worker_cpu_s") > 0);
  assert_verdict (s, "decode-bound: wd_dec");
  assert_threads_cover_process (s);
  g_ptr_array_free (r, TRUE);
  gst_structure_free (s);
  stop (p);
  g_unlink (clip);
  g_rmdir (dir);
  g_free (clip);
  g_free (dir);
  g_free (desc);
}

GST_END_TEST;

/* An encoder with threads of its own behind a cheaper element: it sets the
 * rate and is named, and the element ahead keeps its own time. */
GST_START_TEST (test_codec_workers_encode)
{
  GstElement *p = run_keep ("t_encw",
      "videotestsrc num-buffers=40 ! video/x-raw,width=1280,height=720 "
      "! stagetruth name=we_s us=2000 ! x264enc name=we_enc threads=2 "
      "speed-preset=medium ! fakesink sync=false");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_encw", "we_s");
  assert_verdict (s, "we_enc");
  assert_threads_cover_process (s);
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* Two encoders that open at the same moment on two streaming threads
 * (a tee into two queues): each one's threads are its own. Adopted by a
 * look at /proc around each element's first invocations, the threads one
 * started went to the other when their looks overlapped. A thread carries
 * the kernel name of the thread that started it ("qa:src"): that decides,
 * and the guess mark ('?') never appears where the names differ. */
GST_START_TEST (test_codec_workers_parallel_start)
{
  guint run;

  for (run = 0; run < 3; run++) {
    gchar *name = g_strdup_printf ("t_wpar%u", run);
    GstElement *p = run_keep (name,
        "videotestsrc num-buffers=30 ! video/x-raw,width=640,height=360 "
        "! tee name=t t. ! queue name=qa ! x264enc name=pa threads=2 "
        "speed-preset=superfast ! fakesink sync=false "
        "t. ! queue name=qb ! x264enc name=pb threads=3 "
        "speed-preset=superfast ! fakesink sync=false");
    GstStructure *s = summary_of ();
    const GValue *os = gst_structure_get_value (s, "os_threads");
    guint i, na = 0, nb = 0;

    for (i = 0; i < gst_value_array_get_size (os); i++) {
      const gchar *n = gst_structure_get_string (gst_value_get_structure
          (gst_value_array_get_value (os, i)), "name");
      /* "OWNER:COMM", COMM the creating thread's kernel name */
      if (g_str_has_suffix (n, ":qa:src")) {
        fail_unless (g_str_has_suffix (n, "pa:qa:src"),
            "run %u: a thread started on qa's thread is %s's", run, n);
        na++;
      } else if (g_str_has_suffix (n, ":qb:src")) {
        fail_unless (g_str_has_suffix (n, "pb:qb:src"),
            "run %u: a thread started on qb's thread is %s's", run, n);
        nb++;
      }
      fail_if (strchr (n, '?') != NULL, "run %u: %s is a guess", run, n);
    }
    fail_unless (na >= 2 && nb >= 3, "run %u: pa has %u threads (threads=2), "
        "pb %u (threads=3)", run, na, nb);
    gst_structure_free (s);
    stop (p);
    g_free (name);
  }
}

GST_END_TEST;

/* videoconvert n-threads=2 works on GLib's shared pool ("pool-" and the
 * program's name, as GLib names them), which any element's task pool runs
 * on: stageprof gives those threads to no element (the kernel's name is
 * GLib's, not the streaming thread's), and says how much CPU they used as
 * the shared pool's. Their CPU is there: the converter's second half. */
GST_START_TEST (test_shared_pool)
{
  GstElement *p = run_keep ("t_pool", "videotestsrc num-buffers=60 ! "
      "video/x-raw,format=I420,width=640,height=360 ! videoconvert "
      "name=pc n-threads=2 ! video/x-raw,format=RGB ! fakesink sync=false");
  GstStructure *s = summary_of ();
  const GstStructure *proc = gst_value_get_structure
      (gst_structure_get_value (s, "process"));
  const GValue *os = gst_structure_get_value (s, "os_threads");
  GPtrArray *r = rows (s, "elements", "pc", "t_pool");
  gdouble pool = dget (proc, "shared_pool_cpu_s"), listed = 0;
  guint n = 0;

  fail_unless (r->len > 0);
  for (guint i = 0; i < gst_value_array_get_size (os); i++) {
    const GstStructure *t = gst_value_get_structure
        (gst_value_array_get_value (os, i));
    const gchar *name = gst_structure_get_string (t, "name");

    if (g_str_has_prefix (name, "pool-") && dget (t, "cpu_s") >= 0.001)
      listed += dget (t, "cpu_s");
    fail_if (g_str_has_prefix (name, "pc:"), "%s is videoconvert's", name);
  }
  fail_unless (gst_structure_get_uint (proc, "shared_pool_threads", &n));
  fail_unless (n >= 1 && pool > 0.001, "%u pool threads, %.3f s", n, pool);
  fail_unless (fabs (pool - listed) < 1e-6, "%.3f s against rows %.3f s",
      pool, listed);
  g_ptr_array_free (r, TRUE);
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* A replicated op sets the rate: named once, with its replica count, not
 * as one of its copies at half the load each. */
GST_START_TEST (test_stagebin_replicas_verdict)
{
  GstElement *p = run_keep ("t_sbrep",
      "videotestsrc num-buffers=60 ! video/x-raw,width=64,height=48 "
      "! stagebin name=sbr replicas=2 work-packet-size=1 "
      "ops=\"stagetruth us=4000\" ! fakesink sync=false");
  GstStructure *s = summary_of ();

  assert_verdict (s, "sbr/replica*/stagetruth");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* Three stages behind queues: the slowest sets the rate. */
GST_START_TEST (test_queues)
{
  GstElement *p = run_keep ("t_queues",
      "fakesrc num-buffers=40 sizetype=fixed sizemax=64 ! "
      "stagetruth name=q_a us=500 ! queue ! stagetruth name=q_b us=2000 ! "
      "queue ! stagetruth name=q_c us=1000 ! fakesink sync=false");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_queues", "q_a");
  assert_self (s, p, "t_queues", "q_b");
  assert_self (s, p, "t_queues", "q_c");
  assert_shares (s, "t_queues");
  assert_verdict (s, "q_b");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* A tee with a queued and an unqueued branch. */
GST_START_TEST (test_tee)
{
  GstElement *p = run_keep ("t_tee",
      "fakesrc num-buffers=40 sizetype=fixed sizemax=64 ! tee name=t "
      "t. ! queue ! stagetruth name=tee_q us=2000 ! fakesink sync=false "
      "t. ! stagetruth name=tee_u us=500 ! fakesink sync=false");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_tee", "tee_q");
  assert_self (s, p, "t_tee", "tee_u");
  assert_shares (s, "t_tee");
  assert_verdict (s, "tee_q");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* Two threads merge in a funnel: the one waiting for the other's turn
 * waits, the funnel does not work. */
GST_START_TEST (test_funnel)
{
  GstElement *p = run_keep ("t_funnel",
      "funnel name=f ! stagetruth name=fn_sink us=1500 ! fakesink sync=false "
      "fakesrc num-buffers=30 sizetype=fixed sizemax=64 ! "
      "stagetruth name=fn_a us=200 ! f. "
      "fakesrc num-buffers=30 sizetype=fixed sizemax=64 ! "
      "stagetruth name=fn_b us=200 ! f.");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_funnel", "fn_sink");
  assert_self (s, p, "t_funnel", "fn_a");
  assert_blocking (s, "t_funnel", "f", 0);
  assert_shares (s, "t_funnel");
  assert_verdict (s, "fn_sink");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* input-selector: the inactive pad's thread blocks in the selector. */
GST_START_TEST (test_input_selector)
{
  GstElement *p = run_keep ("t_isel",
      "input-selector name=sel sync-streams=true sync-mode=clock ! "
      "stagetruth name=is_sink us=1000 ! fakesink sync=false "
      "videotestsrc num-buffers=30 ! video/x-raw,width=64,height=48,"
      "framerate=200/1 ! stagetruth name=is_a us=300 ! sel.sink_0 "
      "videotestsrc num-buffers=30 ! video/x-raw,width=64,height=48,"
      "framerate=200/1 ! stagetruth name=is_b us=300 ! sel.sink_1");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_isel", "is_sink");
  assert_self (s, p, "t_isel", "is_a");
  assert_self (s, p, "t_isel", "is_b");
  assert_blocking (s, "t_isel", "sel", 0);
  assert_shares (s, "t_isel");
  assert_verdict (s, "is_sink");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* compositor: an aggregator; its sink pads wait for the others' data. */
GST_START_TEST (test_compositor)
{
  GstElement *p = run_keep ("t_comp",
      "compositor name=c ! video/x-raw,width=64,height=48 ! "
      "stagetruth name=co_out us=2000 ! fakesink sync=false "
      "videotestsrc num-buffers=30 ! video/x-raw,width=64,height=48 ! "
      "stagetruth name=co_a us=300 ! c. "
      "videotestsrc num-buffers=30 ! video/x-raw,width=64,height=48 ! "
      "stagetruth name=co_b us=300 ! c.");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_comp", "co_out");
  assert_self (s, p, "t_comp", "co_a");
  assert_self (s, p, "t_comp", "co_b");
  assert_shares (s, "t_comp");
  assert_verdict (s, "co_out");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* clocksync and identity sync=true wait on the clock: not work, and the
 * clock paces the pipeline. */
GST_START_TEST (test_clocksync)
{
  GstElement *p = run_keep ("t_csync",
      "videotestsrc num-buffers=15 ! video/x-raw,width=64,height=48,"
      "framerate=50/1 ! clocksync name=cs ! stagetruth name=cs_b us=300 ! "
      "identity name=cs_id sync=true ! fakesink sync=false");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_csync", "cs_b");
  assert_blocking (s, "t_csync", "cs", 0);
  assert_blocking (s, "t_csync", "cs_id", 0);
  assert_shares (s, "t_csync");
  assert_verdict (s, "paced by the clock");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* A sync sink at a low framerate: its clock wait is not work. */
GST_START_TEST (test_sync_sink)
{
  GstElement *p = run_keep ("t_ssink",
      "videotestsrc num-buffers=10 ! video/x-raw,width=64,height=48,"
      "framerate=25/1 ! stagetruth name=ss_b us=1000 ! "
      "fakesink name=ss_sink sync=true");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_ssink", "ss_b");
  assert_blocking (s, "t_ssink", "ss_sink", 0);
  assert_shares (s, "t_ssink");
  assert_verdict (s, "paced by the clock");
  assert_verdict (s, "ss_sink");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* A live source waits for its clock between frames. */
GST_START_TEST (test_live_source)
{
  GstElement *p = run_keep ("t_live",
      "videotestsrc name=lv_src is-live=true num-buffers=10 ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! "
      "stagetruth name=lv_b us=1000 ! fakesink sync=false");
  GstStructure *s = summary_of ();

  assert_self (s, p, "t_live", "lv_b");
  assert_shares (s, "t_live");
  assert_verdict (s, "paced by the clock");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* A leaky queue before a slow stage. */
GST_START_TEST (test_leaky_queue)
{
  GstElement *p = run_keep ("t_leaky",
      "fakesrc num-buffers=60 sizetype=fixed sizemax=64 ! "
      "stagetruth name=lk_a us=200 ! queue name=lk_q leaky=downstream "
      "max-size-buffers=2 max-size-bytes=0 max-size-time=0 ! "
      "stagetruth name=lk_b us=2000 ! fakesink sync=false");
  GstStructure *s = summary_of ();
  const GstStructure *q;

  assert_self (s, p, "t_leaky", "lk_a");
  assert_self (s, p, "t_leaky", "lk_b");
  assert_shares (s, "t_leaky");
  assert_verdict (s, "lk_b");
  /* The drops are counted: what reached lk_b plus what the queue dropped
   * is what went in. */
  q = row (s, "queues", "lk_q", "t_leaky");
  fail_unless (uget (q, "dropped") > 0);
  fail_unless_equals_int (uget (q, "dropped") + truth (p, "lk_b", "count"),
      60);
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* A queue limited by time only. */
GST_START_TEST (test_time_queue)
{
  GstElement *p = run_keep ("t_tq",
      "videotestsrc num-buffers=40 ! video/x-raw,width=64,height=48,"
      "framerate=100/1 ! queue name=tq_q max-size-buffers=0 "
      "max-size-bytes=0 max-size-time=50000000 ! "
      "stagetruth name=tq_b us=2000 ! fakesink sync=false");
  GstStructure *s = summary_of ();
  const GstStructure *q;

  assert_self (s, p, "t_tq", "tq_b");
  assert_shares (s, "t_tq");
  assert_verdict (s, "tq_b");
  q = row (s, "queues", "tq_q", "t_tq");
  /* 50 ms at 100 fps: 5 buffers, never more, from the first buffer on. */
  fail_unless (uget (q, "max_level") <= 5, "max level %" G_GUINT64_FORMAT,
      uget (q, "max_level"));
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

/* stagebin's replicas and reorder wait for each other; a slow element
 * after the bin sets the rate. */
GST_START_TEST (test_stagebin)
{
  GstElement *p;
  GstStructure *s;
  const gchar *v;

  p = run_keep ("t_sbin",
      "videotestsrc num-buffers=30 ! video/x-raw,width=64,height=48 ! "
      "stagebin replicas=2 work-packet-size=1 ops=\"videoflip "
      "method=clockwise\" ! stagetruth name=sb_slow mode=sleep us=5000 ! "
      "fakesink sync=false");
  s = summary_of ();
  assert_blocking (s, "t_sbin", "sb_slow",
      truth (p, "sb_slow", "cpu-ns") / 1e9);
  assert_shares (s, "t_sbin");
  v = gst_structure_get_string (s, "verdict");
  /* The slow one blocks: its thread sets the rate; never the reorder. */
  fail_if (strstr (v, "reorder") != NULL, "verdict: %s", v);
  assert_verdict (s, "sb_slow");
  gst_structure_free (s);
  stop (p);
}

GST_END_TEST;

static gchar *
make_clip (gchar ** dir)
{
  gchar *path, *desc;
  GstElement *p;

  *dir = g_dir_make_tmp ("sptruth-XXXXXX", NULL);
  fail_unless (*dir != NULL);
  path = g_build_filename (*dir, "clip.mp4", NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=30 ! "
      "video/x-raw,width=160,height=120,framerate=30/1 ! x264enc "
      "speed-preset=ultrafast ! mp4mux ! filesink location=\"%s\"", path);
  p = run_keep ("t_clip", desc);
  stop (p);
  {
    /* The clip's own pipeline is not part of the case. */
    GstTracer *t = find_prof ();
    g_signal_emit_by_name (t, "reset");
    gst_object_unref (t);
  }
  g_free (desc);
  return path;
}

static void
drop_clip (gchar * dir, gchar * path)
{
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

/* qtdemux's task, a decoder on a queue thread. */
GST_START_TEST (test_demux_decode)
{
  gchar *dir, *path, *desc;
  GstElement *p;
  GstStructure *s;

  path = make_clip (&dir);
  desc = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux name=dd_demux ! "
      "h264parse ! queue ! avdec_h264 ! stagetruth name=dd_b us=2000 ! "
      "fakesink sync=false", path);
  p = run_keep ("t_dd", desc);
  s = summary_of ();
  /* The demuxer's own work between its pushes is its row, one sample per
   * frame it pushed (it pushes a new pad's first events before adding the
   * pad to itself: that pad must still be found as its pad later). */
  fail_unless (count_sum (s, "dd_demux", "t_dd") >= 30,
      "qtdemux has %" G_GUINT64_FORMAT " samples for 30 frames",
      count_sum (s, "dd_demux", "t_dd"));
  assert_self (s, p, "t_dd", "dd_b");
  assert_shares (s, "t_dd");
  assert_verdict (s, "dd_b");
  gst_structure_free (s);
  stop (p);
  g_free (desc);
  drop_clip (dir, path);
}

GST_END_TEST;

/* uridecodebin: events through ghost pads are charged to the element
 * handling them, so the shares still add up. */
GST_START_TEST (test_uridecodebin)
{
  gchar *dir, *path, *uri, *desc;
  GstElement *p;
  GstStructure *s;

  path = make_clip (&dir);
  uri = gst_filename_to_uri (path, NULL);
  desc = g_strdup_printf ("uridecodebin uri=\"%s\" ! "
      "stagetruth name=ud_b us=2000 ! fakesink sync=false", uri);
  p = run_keep ("t_ud", desc);
  s = summary_of ();
  assert_self (s, p, "t_ud", "ud_b");
  assert_shares (s, "t_ud");
  assert_verdict (s, "ud_b");
  gst_structure_free (s);
  stop (p);
  g_free (desc);
  g_free (uri);
  drop_clip (dir, path);
}

GST_END_TEST;

/* A pipeline played twice is two runs: each with its own rows and
 * verdict, names the same in both (a nested bin's element by its path). */
GST_START_TEST (test_restart)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch ("fakesrc num-buffers=20 sizetype=fixed "
      "sizemax=64 ! queue name=rs_q ! bin.( name=rs_bin stagetruth name=rs_b "
      "us=500 ) ! fakesink sync=false", &err);
  GstStructure *s;
  GPtrArray *r;
  const GValue *pipes;
  guint i, run, n = 0;

  fail_unless (p != NULL);
  gst_object_set_name (GST_OBJECT (p), "t_restart");
  /* Plays, stops at READY, plays, goes to NULL, plays again. */
  for (run = 1; run <= 3; run++) {
    stage_test_play_to_eos (p, 90 * GST_SECOND, NULL);
    gst_element_set_state (p, run == 1 ? GST_STATE_READY : GST_STATE_NULL);
  }
  s = summary_of ();
  r = rows (s, "elements", "rs_bin/rs_b", "t_restart");
  fail_unless_equals_int (r->len, 3);
  for (i = 0; i < r->len; i++) {
    const GstStructure *e = g_ptr_array_index (r, i);
    guint er = 0;
    fail_unless (gst_structure_get_uint (e, "run", &er));
    fail_unless (er >= 1 && er <= 3);
    fail_unless_equals_int (uget (e, "count"), 20);
  }
  g_ptr_array_free (r, TRUE);
  pipes = gst_structure_get_value (s, "pipelines");
  for (i = 0; i < gst_value_array_get_size (pipes); i++) {
    const GstStructure *pr =
        gst_value_get_structure (gst_value_array_get_value (pipes, i));
    if (g_strcmp0 (gst_structure_get_string (pr, "pipeline"),
            "t_restart") == 0) {
      n++;
      fail_unless (strstr (gst_structure_get_string (pr, "verdict"),
              "rs_bin/rs_b") != NULL, "%s",
          gst_structure_get_string (pr, "verdict"));
    }
  }
  fail_unless_equals_int (n, 3);
  /* Runs are whole: a queue row and a sink row per run, and each run's
   * process CPU is its own (less than the process's, together no more). */
  r = rows (s, "queues", "rs_q", "t_restart");
  fail_unless_equals_int (r->len, 3);
  g_ptr_array_free (r, TRUE);
  r = rows (s, "sinks", "fakesink0", "t_restart");
  fail_unless_equals_int (r->len, 3);
  for (i = 0; i < r->len; i++) {
    guint sr = 0;
    fail_unless (gst_structure_get_uint (g_ptr_array_index (r, i), "run",
            &sr));
    fail_unless_equals_int (uget (g_ptr_array_index (r, i), "buffers"), 20);
  }
  g_ptr_array_free (r, TRUE);
  {
    gdouble sum = 0, all = dget (gst_value_get_structure
        (gst_structure_get_value (s, "process")), "cpu_s");
    for (i = 0; i < gst_value_array_get_size (pipes); i++) {
      const GstStructure *pr =
          gst_value_get_structure (gst_value_array_get_value (pipes, i));
      if (g_strcmp0 (gst_structure_get_string (pr, "pipeline"),
              "t_restart") == 0)
        sum += dget (pr, "process_cpu_s");
    }
    fail_unless (sum > 0 && sum <= all + 0.001,
        "the runs' process CPU %.3f s, the process's %.3f s", sum, all);
  }
  gst_structure_free (s);
  gst_object_unref (p);
}

GST_END_TEST;

/* Live summaries while three streaming threads write: every snapshot is
 * consistent (statistics of one moment, shares adding up). */
GST_START_TEST (test_live_snapshots)
{
  GstElement *p = gst_parse_launch ("fakesrc num-buffers=40000 sizetype=empty "
      "! identity name=ls_a ! queue ! identity name=ls_b ! queue ! "
      "stagetruth name=ls_c us=5 ! fakesink sync=false", NULL);
  GstBus *bus;
  GstMessage *msg = NULL;
  guint n = 0;

  fail_unless (p != NULL);
  gst_object_set_name (GST_OBJECT (p), "t_live_snap");
  bus = gst_element_get_bus (p);
  fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  while (!msg && n < 2000) {
    GstStructure *s = summary_of ();
    const GValue *el = gst_structure_get_value (s, "elements");
    guint i;

    for (i = 0; i < gst_value_array_get_size (el); i++) {
      const GstStructure *e =
          gst_value_get_structure (gst_value_array_get_value (el, i));
      if (uget (e, "count") == 0)
        continue;
      fail_unless (dget (e, "min_ms") <= dget (e, "mean_ms") + 1e-9
          && dget (e, "mean_ms") <= dget (e, "max_ms") + 1e-9,
          "%s: min %f mean %f max %f", gst_structure_get_string (e, "name"),
          dget (e, "min_ms"), dget (e, "mean_ms"), dget (e, "max_ms"));
      fail_unless (ABS (dget (e, "total_s") * 1e3 - dget (e, "mean_ms") *
              uget (e, "count")) <= 1e-6 * MAX (1.0, dget (e, "total_s") *
              1e3), "%s: total and mean disagree",
          gst_structure_get_string (e, "name"));
    }
    check_shares (s, "t_live_snap", FALSE);
    gst_structure_free (s);
    n++;
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  }
  if (!msg)
    stage_test_expect_eos (p, 90 * GST_SECOND, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  fail_unless (n > 1);
}

GST_END_TEST;

/* An element name with a newline and a byte that is not UTF-8 is escaped
 * once, where it is recorded: every output carries the same safe name. */
GST_START_TEST (test_odd_names)
{
  GstElement *p = gst_pipeline_new ("t_odd");
  GstElement *src = gst_element_factory_make ("fakesrc", NULL);
  GstElement *id = gst_element_factory_make ("identity", "bad\nna,me\xff");
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstStructure *s;
  gchar *text, *csv, **lines;
  guint i;

  g_object_set (src, "num-buffers", 5, NULL);
  gst_bin_add_many (GST_BIN (p), src, id, sink, NULL);
  fail_unless (gst_element_link_many (src, id, sink, NULL));
  gst_element_set_state (p, GST_STATE_PLAYING);
  stage_test_expect_eos (p, 90 * GST_SECOND, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  s = summary_of ();
  fail_unless_equals_int (count_sum (s, "bad\\nna,me\\xff", "t_odd"), 5);
  text = sp_summary_to_text (s, NULL);
  fail_unless (g_utf8_validate (text, -1, NULL));
  fail_unless (strstr (text, "bad\\nna,me\\xff") != NULL, "%s", text);
  csv = sp_summary_to_csv (s);
  fail_unless (g_utf8_validate (csv, -1, NULL));
  lines = g_strsplit (csv, "\n", -1);
  for (i = 0; lines[i]; i++)
    if (strstr (lines[i], "bad\\nna,me"))
      fail_unless (g_str_has_prefix (lines[i], "\"bad\\nna,me\\xff\","),
          "%s", lines[i]);
  g_strfreev (lines);
  g_free (text);
  g_free (csv);
  gst_structure_free (s);
  gst_object_unref (p);
}

GST_END_TEST;

static gsize
rss_bytes (void)
{
  gchar *text = NULL;
  gsize pages = 0;

  if (g_file_get_contents ("/proc/self/statm", &text, NULL, NULL))
    sscanf (text, "%*s %" G_GSIZE_FORMAT, &pages);
  g_free (text);
  return pages * sysconf (_SC_PAGESIZE);
}

static void
cycles (guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstElement *p = gst_parse_launch ("fakesrc num-buffers=3 ! queue ! "
        "identity ! fakesink sync=false", NULL);

    gst_element_set_state (p, GST_STATE_PLAYING);
    stage_test_expect_eos (p, 30 * GST_SECOND, NULL);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
  }
}

/* Records of pipelines that were destroyed (after their summary) are
 * freed: memory stays flat over many create/destroy cycles (it grew by
 * about 10 KB a pipeline). */
#ifdef __SANITIZE_ADDRESS__
/* ASan keeps freed memory in quarantine: RSS says nothing there. */
#define MEMORY_FLAT_SKIP g_strdup ("it measures RSS, meaningless under ASan")
#else
#define MEMORY_FLAT_SKIP NULL
#endif

GST_START_TEST (test_memory_flat)
{
  gsize before, after;

  cycles (150);                 /* warm up: pools, caches, registries */
  before = rss_bytes ();
  cycles (600);
  after = rss_bytes ();
  fail_unless (after < before + 1024 * 1024,
      "RSS grew by %" G_GSIZE_FORMAT " KB over 600 pipelines",
      (after - before) / 1024);
}

GST_END_TEST;

/* Pipelines and elements with names never seen before (an application
 * that numbers them, or gst_parse_launch's own counters): the names the
 * records carried go with the records. Interned with g_intern_string(),
 * which never frees, they grew the process by their size each pipeline
 * (about 2 KB a pipeline here, with long names to make it plain). */
static void
named_cycles (guint first, guint n)
{
  gchar *pad = g_strnfill (200, 'x');
  guint i;

  for (i = first; i < first + n; i++) {
    gchar *desc = g_strdup_printf ("fakesrc name=src%u_%s num-buffers=1 "
        "sizetype=empty ! identity name=id%u_%s ! fakesink name=sink%u_%s "
        "sync=false", i, pad, i, pad, i, pad);
    gchar *name = g_strdup_printf ("names%u_%s", i, pad);
    GstElement *p = gst_parse_launch (desc, NULL);

    fail_unless (p != NULL);
    gst_object_set_name (GST_OBJECT (p), name);
    gst_element_set_state (p, GST_STATE_PLAYING);
    stage_test_expect_eos (p, 30 * GST_SECOND, NULL);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    g_free (name);
    g_free (desc);
  }
  g_free (pad);
}

GST_START_TEST (test_memory_flat_names)
{
  gsize before, after;

  named_cycles (0, 300);        /* warm up */
  before = rss_bytes ();
  named_cycles (300, 3000);
  after = rss_bytes ();
  fail_unless (after < before + 1024 * 1024,
      "RSS grew by %" G_GSIZE_FORMAT " KB over 3000 pipelines of new names",
      (after - before) / 1024);
}

GST_END_TEST;

/* Elements nested deeper than the tracer's first 64 frames on one thread
 * (a long chain of in-place elements, all on the source's thread) are
 * timed too: the frame stack grows. At 64 frames it stopped, every deeper
 * element had no time and its time went to the 64th, which the verdict
 * then named. */
#define DEEP_ELEMENTS 200

GST_START_TEST (test_deep_nesting)
{
  GString *desc = g_string_new ("fakesrc num-buffers=5 sizetype=empty");
  const guint check[] = { 0, 62, 63, 64, 65, 130, DEEP_ELEMENTS - 1 };
  GstElement *p;
  GstStructure *s;
  guint i;

  for (i = 0; i < DEEP_ELEMENTS; i++)
    g_string_append_printf (desc, " ! stagetruth name=deep%u us=100", i);
  g_string_append (desc, " ! fakesink sync=false");
  p = run_keep ("t_deep", desc->str);
  s = summary_of ();
  for (i = 0; i < G_N_ELEMENTS (check); i++) {
    gchar *name = g_strdup_printf ("deep%u", check[i]);
    assert_self (s, p, "t_deep", name);
    g_free (name);
  }
  gst_structure_free (s);
  stop (p);
  g_string_free (desc, TRUE);
}

GST_END_TEST;

/* The verdict's rules on records made up for each kind (spverdict.c), so
 * every kind is checked whatever the machine: a CPU-starved process, for
 * one, cannot be staged on a shared test machine. */
#define T_NS (1000 * GST_MSECOND)

typedef struct
{
  SpPipe pipe;
  SpElemInfo info[3];
  SpThreadRec th[2];
  SpElemRec rec[3];
  SpShares sh[2];
  GPtrArray *recs, *threads;
  GValue sinks;
  SpVerdictInput in;
} VerdictCase;

static void
vcase_init (VerdictCase * c)
{
  static const gchar *names[] = { "src", "conv", "sink" };
  static const SpKind kinds[] = { SP_KIND_SOURCE, SP_KIND_CONVERT,
    SP_KIND_SINK
  };
  GstStructure *sink;
  GValue v = G_VALUE_INIT;
  guint i;

  memset (c, 0, sizeof (*c));
  c->pipe.name = "p";
  c->recs = g_ptr_array_new ();
  c->threads = g_ptr_array_new ();
  for (i = 0; i < 2; i++) {
    c->th[i].pipe = &c->pipe;
    c->th[i].name = i ? "t1" : "t0";
    c->th[i].busy = T_NS / 10;
    c->sh[i].wall = T_NS;
    c->sh[i].busy = T_NS / 10;
    g_ptr_array_add (c->threads, &c->th[i]);
  }
  for (i = 0; i < 3; i++) {
    c->info[i].name = names[i];
    c->info[i].kind = kinds[i];
    c->info[i].pipe = &c->pipe;
    c->rec[i].info = &c->info[i];
    c->rec[i].thread = &c->th[i ? 1 : 0];
    c->rec[i].work_ns = T_NS / 20;
    g_ptr_array_add (c->recs, &c->rec[i]);
  }
  c->info[2].is_sink = TRUE;
  g_value_init (&c->sinks, GST_TYPE_ARRAY);
  sink = gst_structure_new ("sink", "name", G_TYPE_STRING, "sink",
      "fps", G_TYPE_DOUBLE, 25.0, NULL);
  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&v, sink);
  gst_value_array_append_and_take_value (&c->sinks, &v);
  c->in.running_s = 1.0;
  c->in.process_cpu_s = 0.2;
  c->in.cores = 2;
}

static void
vcase_expect (VerdictCase * c, const gchar * want, const gchar * not_named)
{
  gchar *v = sp_verdict (&c->in, c->recs, c->threads, c->sh, &c->sinks);

  fail_unless (strstr (v, want) != NULL, "verdict '%s' does not say '%s'",
      v, want);
  if (not_named)
    fail_if (strstr (v, not_named) != NULL, "verdict '%s' names %s", v,
        not_named);
  g_free (v);
  g_ptr_array_free (c->recs, TRUE);
  g_ptr_array_free (c->threads, TRUE);
  g_value_unset (&c->sinks);
}

GST_START_TEST (test_verdict_kinds)
{
  VerdictCase c;

  /* The sink waits for the clock 80 % of the time. */
  vcase_init (&c);
  g_atomic_int_set (&c.info[2].sync_clock, TRUE);
  c.rec[2].clock_ns = T_NS * 8 / 10;
  vcase_expect (&c, "paced by the clock at 25.0 fps (sink `sink` sync=true",
      NULL);

  /* Both cores used, threads waiting for a CPU. */
  vcase_init (&c);
  c.in.process_cpu_s = 1.9;
  c.sh[0].cpu_wait = c.sh[1].cpu_wait = T_NS * 3 / 10;
  vcase_expect (&c, "CPU-starved: the process used 1.9 of 2 cores", NULL);

  /* conv works 90 % of the running time. */
  vcase_init (&c);
  c.rec[1].work_ns = c.th[1].busy = T_NS * 9 / 10;
  c.sh[1].busy = T_NS * 9 / 10;
  vcase_expect (&c, "convert-bound: conv on thread t1", NULL);

  /* conv works 40 %, and waits for a core another 40 %: it would work. */
  vcase_init (&c);
  c.rec[1].work_ns = c.th[1].busy = c.sh[1].busy = T_NS * 4 / 10;
  c.sh[1].cpu_wait = T_NS * 4 / 10;
  vcase_expect (&c, "convert-bound: conv", NULL);

  /* conv blocks 90 % in its own code. */
  vcase_init (&c);
  c.rec[1].blocked_ns = T_NS * 9 / 10;
  vcase_expect (&c, "blocked: conv on thread t1", NULL);

  /* Nothing stands out; conv waits 90 % for another input's turn: never
   * named for it. */
  vcase_init (&c);
  c.rec[1].wait_ns = T_NS * 9 / 10;
  c.rec[0].work_ns = T_NS / 5;
  vcase_expect (&c, "no single bottleneck: busiest stage src at 20 %",
      "conv");

  /* CPU-starved, and conv's own thread works 5 % while its 4 threads
   * use 1.7 cores: the busiest stage is conv, by its workers. */
  vcase_init (&c);
  c.in.process_cpu_s = 1.9;
  c.sh[0].cpu_wait = c.sh[1].cpu_wait = T_NS * 3 / 10;
  c.rec[0].work_ns = T_NS / 5;
  c.info[1].workers = 4;
  c.info[1].worker_cpu_ns = T_NS * 17 / 10;
  vcase_expect (&c, "CPU-starved: the process used 1.9 of 2 cores and its "
      "threads waited 0.6 s for a CPU; busiest stage conv: its thread at 5 % "
      "of the running time and its 4 threads at 1.7 cores", NULL);

  /* conv and sink each work 45 % on thread t1, which works 90 %: no one
   * element sets the rate, the thread does. */
  vcase_init (&c);
  c.rec[1].work_ns = c.rec[2].work_ns = T_NS * 45 / 100;
  c.th[1].busy = c.sh[1].busy = T_NS * 9 / 10;
  vcase_expect (&c, "compute-bound: thread t1 works 90 % of the running "
      "time, for 2 elements that together set the rate (conv 45 %, sink "
      "45 %)", NULL);

  /* The same at 30 % each: the thread has room, no bottleneck. */
  vcase_init (&c);
  c.rec[1].work_ns = c.rec[2].work_ns = T_NS * 3 / 10;
  c.th[1].busy = c.sh[1].busy = T_NS * 6 / 10 - 1;
  vcase_expect (&c, "no single bottleneck: busiest stage conv at 30 %",
      NULL);

  /* src works 90 %, but ahead of a leaky queue that dropped: the sink's
   * rate is conv's. */
  vcase_init (&c);
  c.rec[0].work_ns = c.th[0].busy = c.sh[0].busy = T_NS * 9 / 10;
  c.rec[1].work_ns = c.th[1].busy = c.sh[1].busy = T_NS * 7 / 10;
  c.in.ahead = g_hash_table_new (NULL, NULL);
  g_hash_table_add (c.in.ahead, &c.th[0]);
  vcase_expect (&c, "convert-bound: conv", NULL);
  g_hash_table_destroy (c.in.ahead);
}

GST_END_TEST;

static Suite *
stageprof_truth_suite (void)
{
  Suite *s = suite_create ("stageprof_truth");
  TCase *tc = tcase_create ("truth");

  tcase_set_timeout (tc, 180);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_linear);
  tcase_add_test (tc, test_queues);
  tcase_add_test (tc, test_behind_filters);
  tcase_add_test (tc, test_under_load);
  tcase_add_test (tc, test_sink_rate_span);
  tcase_add_test (tc, test_live_queue_verdict);
  tcase_add_test (tc, test_tee_blocked_branch);
  tcase_add_test (tc, test_appsink_slow_pull);
  tcase_add_test (tc, test_appsrc_slow_push);
  tcase_add_test (tc, test_sink_stuck_in_preroll);
  tcase_add_test (tc, test_codec_workers_decode);
  tcase_add_test (tc, test_codec_workers_encode);
  tcase_add_test (tc, test_codec_workers_parallel_start);
  tcase_add_test (tc, test_shared_pool);
  tcase_add_test (tc, test_stagebin_replicas_verdict);
  tcase_add_test (tc, test_tee);
  tcase_add_test (tc, test_funnel);
  tcase_add_test (tc, test_input_selector);
  tcase_add_test (tc, test_compositor);
  tcase_add_test (tc, test_clocksync);
  tcase_add_test (tc, test_sync_sink);
  tcase_add_test (tc, test_live_source);
  tcase_add_test (tc, test_leaky_queue);
  tcase_add_test (tc, test_time_queue);
  tcase_add_test (tc, test_stagebin);
  /* make_clip's encoder and muxer, and the decoder both tests run */
  stage_test_add_unless (tc, test_demux_decode,
      stage_test_missing_elements ("x264enc", "avdec_h264", "mp4mux", NULL));
  stage_test_add_unless (tc, test_uridecodebin,
      stage_test_missing_elements ("x264enc", "avdec_h264", "mp4mux", NULL));
  tcase_add_test (tc, test_restart);
  tcase_add_test (tc, test_live_snapshots);
  tcase_add_test (tc, test_odd_names);
  tcase_add_test (tc, test_deep_nesting);
  stage_test_add_unless (tc, test_memory_flat, MEMORY_FLAT_SKIP);
  stage_test_add_unless (tc, test_memory_flat_names, MEMORY_FLAT_SKIP);
  tcase_add_test (tc, test_verdict_kinds);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  g_setenv ("GST_TRACERS", "stageprof(summary=none)", TRUE);
  gst_check_init (&argc, &argv);
  truth_element_register ();
  s = stageprof_truth_suite ();
  return gst_check_run_suite (s, "stageprof_truth", __FILE__);
}
