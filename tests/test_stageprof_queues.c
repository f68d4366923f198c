/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof: queue occupancy counted from the hooks, wait on input and wait
 * on output per thread.
 *
 * Output-bound: a slow element behind a small queue keeps it full, so the
 * producer's thread waits inside the queue's chain. Input-bound: a slow
 * element before the queue keeps it empty, so the queue's task waits.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>

#include "stageprof-check.h"
#include "truth-element.h"

GST_START_TEST (test_output_bound)
{
  GstStructure *s;
  const GstStructure *q, *src_th, *q_th;

  run_pipeline ("outb",
      "videotestsrc name=ob_src num-buffers=60 ! "
      "video/x-raw,width=64,height=48 ! queue name=ob_q max-size-buffers=3 "
      "max-size-bytes=0 max-size-time=0 ! stagetruth name=ob_slow "
      "us=2000 ! fakesink sync=false");
  s = get_summary ();
  q = row (s, "queues", "ob_q", "outb");
  fail_unless_equals_int (uget (q, "items"), 60);
  /* Never above the limit, and the slow consumer keeps it at the limit. */
  fail_unless (uget (q, "max_level") <= 3, "max level %" G_GUINT64_FORMAT,
      uget (q, "max_level"));
  fail_unless (uget (q, "max_level") >= 2);
  fail_unless (dget (q, "mean_level") <= 3.0 && dget (q, "mean_level") > 1.0,
      "mean level %f", dget (q, "mean_level"));
  fail_unless (dget (q, "full_pct") > 20.0, "full %f", dget (q, "full_pct"));
  fail_unless (dget (q, "ave_put_ms") > 0.3, "put %f",
      dget (q, "ave_put_ms"));
  fail_unless (uget (q, "max_bytes") > 0);

  src_th = thread_of (s, "ob_src", "outb");
  /* Waiting for room, or woken but waiting for a core to go on. */
  fail_unless (dget (src_th, "wait_output_pct") + dget (src_th,
          "cpu_wait_pct") > 40.0, "wait output %f",
      dget (src_th, "wait_output_pct"));
  q_th = thread_of (s, "ob_slow", "outb");
  fail_unless_equals_string (gst_structure_get_string (q_th, "name"), "ob_q");
  /* Working, or ready to work but waiting for a core (a loaded machine). */
  fail_unless (dget (q_th, "busy_pct") + dget (q_th, "cpu_wait_pct") > 60.0,
      "busy %f", dget (q_th, "busy_pct"));
  fail_unless (dget (q_th, "wait_input_pct") < 30.0, "wait input %f",
      dget (q_th, "wait_input_pct"));
  gst_structure_free (s);
}

GST_END_TEST;

GST_START_TEST (test_input_bound)
{
  GstStructure *s;
  const GstStructure *q, *src_th, *q_th;

  run_pipeline ("inb",
      "videotestsrc name=ib_src num-buffers=40 ! "
      "video/x-raw,width=64,height=48 ! stagetruth name=ib_slow "
      "us=3000 ! queue name=ib_q ! fakesink name=ib_sink sync=false");
  s = get_summary ();
  q = row (s, "queues", "ib_q", "inb");
  fail_unless_equals_int (uget (q, "items"), 40);
  /* Empty most of the time; on a loaded machine the consumer waits for a
   * core before it takes each buffer out, so not always. */
  fail_unless (dget (q, "empty_pct") > 30.0, "empty %f",
      dget (q, "empty_pct"));
  fail_unless (dget (q, "full_pct") == 0.0);
  fail_unless (dget (q, "ave_get_ms") > 1.0, "get %f",
      dget (q, "ave_get_ms"));
  q_th = thread_of (s, "ib_sink", "inb");
  fail_unless_equals_string (gst_structure_get_string (q_th, "name"), "ib_q");
  /* Waiting for data, or woken and waiting for a core (a loaded machine). */
  fail_unless (dget (q_th, "wait_input_pct") + dget (q_th, "cpu_wait_pct") >
      60.0, "wait input %f", dget (q_th, "wait_input_pct"));
  src_th = thread_of (s, "ib_slow", "inb");
  fail_unless (dget (src_th, "busy_pct") + dget (src_th, "cpu_wait_pct") >
      60.0, "busy %f", dget (src_th, "busy_pct"));
  fail_unless (dget (src_th, "wait_output_pct") < 20.0, "wait output %f",
      dget (src_th, "wait_output_pct"));
  fail_unless (strstr (gst_structure_get_string (s, "verdict"), "ib_slow"),
      "verdict: %s", gst_structure_get_string (s, "verdict"));
  gst_structure_free (s);
}

GST_END_TEST;

/* A leaky queue drops instead of blocking: the level still never exceeds
 * the limit and the producer never waits. */
GST_START_TEST (test_leaky)
{
  GstStructure *s;
  const GstStructure *q;

  run_pipeline ("leaky",
      "videotestsrc name=lk_src num-buffers=40 ! "
      "video/x-raw,width=64,height=48 ! queue name=lk_q max-size-buffers=2 "
      "max-size-bytes=0 max-size-time=0 leaky=downstream ! stagetruth "
      "us=2000 ! fakesink sync=false");
  s = get_summary ();
  q = row (s, "queues", "lk_q", "leaky");
  fail_unless (uget (q, "max_level") <= 2, "max level %" G_GUINT64_FORMAT,
      uget (q, "max_level"));
  fail_unless (uget (q, "items") < 40, "items %" G_GUINT64_FORMAT,
      uget (q, "items"));
  gst_structure_free (s);
}

GST_END_TEST;

/* queue2 and multiqueue are queues too; a byte limit is honoured. */
GST_START_TEST (test_queue2_multiqueue)
{
  GstStructure *s;
  const GstStructure *q;

  run_pipeline ("q2mq",
      "videotestsrc num-buffers=30 ! "
      "video/x-raw,format=I420,width=64,height=48 ! "
      "queue2 name=qm_q2 ! multiqueue name=qm_mq ! stagetruth us=1000 "
      "! queue name=qm_bytes max-size-buffers=0 max-size-time=0 "
      "max-size-bytes=10000 ! stagetruth us=2000 ! fakesink sync=false");
  s = get_summary ();
  fail_unless_equals_int (uget (row (s, "queues", "qm_q2", "q2mq"), "items"),
      30);
  fail_unless_equals_int (uget (row (s, "queues", "qm_mq", "q2mq"), "items"),
      30);
  q = row (s, "queues", "qm_bytes", "q2mq");
  fail_unless_equals_int (uget (q, "items"), 30);
  /* 64x48 I420 is 4608 bytes: full at 3 buffers (>= 10000 bytes). */
  fail_unless (uget (q, "max_bytes") <= 3 * 4608, "max bytes %"
      G_GUINT64_FORMAT, uget (q, "max_bytes"));
  fail_unless (dget (q, "full_pct") > 10.0, "full %f", dget (q, "full_pct"));
  gst_structure_free (s);
}

GST_END_TEST;

static Suite *
stageprof_queues_suite (void)
{
  Suite *s = suite_create ("stageprof_queues");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_output_bound);
  tcase_add_test (tc, test_input_bound);
  tcase_add_test (tc, test_leaky);
  tcase_add_test (tc, test_queue2_multiqueue);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  g_setenv ("GST_TRACERS", "stageprof(summary=none)", TRUE);
  gst_check_init (&argc, &argv);
  truth_element_register ();
  s = stageprof_queues_suite ();
  return gst_check_run_suite (s, "stageprof_queues", __FILE__);
}
