/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stagestride: frame selection, timestamps, caps, counters, flush/seek and
 * the bad stride value, through GstHarness and small pipelines. The base
 * class behaviour shared by all selectors (seek resync, counters) is tested
 * here; early EOS lives in the stagerange/stagegather suites, since a stride
 * never ends. */
#include <gst/check/gstcheck.h>

#include "glib-versions.h"
#include <gst/check/gstharness.h>
#include <string.h>

#include "selector-check.h"
#include "prop-check.h"
#include "lib/stagetest.h"


/* Pushes frames [from, to) asserting every push returns OK, and returns the
 * input positions of the buffers that came out. */
static GArray *
push_frames (GstHarness * h, guint64 from, guint64 to)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint64));
  GstBuffer *b;
  guint64 i;

  for (i = from; i < to; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (i)), GST_FLOW_OK);
  while ((b = gst_harness_try_pull (h))) {
    guint64 o = frame_position (b);

    g_array_append_val (out, o);
    gst_buffer_unref (b);
  }
  return out;
}

static void
assert_offsets (GArray * got, const guint64 * want, guint n)
{
  guint i;

  fail_unless_equals_int (got->len, n);
  for (i = 0; i < n; i++)
    fail_unless (g_array_index (got, guint64, i) == want[i],
        "output %u: frame %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
        i, g_array_index (got, guint64, i), want[i]);
}

GST_START_TEST (test_selection_hand)
{
  GstHarness *h = selector_harness ("stagestride stride=3 offset=1", CAPS_30);
  GArray *got = push_frames (h, 0, 11);
  const guint64 want[] = { 1, 4, 7, 10 };

  assert_offsets (got, want, G_N_ELEMENTS (want));
  g_array_free (got, TRUE);
  gst_harness_teardown (h);

  /* the defaults keep everything */
  h = selector_harness ("stagestride", CAPS_30);
  got = push_frames (h, 0, 5);
  {
    const guint64 all[] = { 0, 1, 2, 3, 4 };

    assert_offsets (got, all, 5);
  }
  g_array_free (got, TRUE);
  gst_harness_teardown (h);

  /* an offset beyond the input: nothing, and no early end */
  h = selector_harness ("stagestride stride=2 offset=100", CAPS_30);
  got = push_frames (h, 0, 20);
  fail_unless_equals_int (got->len, 0);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Many (stride, offset) pairs against the definition. */
GST_START_TEST (test_selection_random)
{
  GRand *rand = g_rand_new_with_seed (42);
  guint n;

  for (n = 0; n < 40; n++) {
    guint stride = g_rand_int_range (rand, 1, 12);
    guint offset = g_rand_int_range (rand, 0, 20);
    guint frames = g_rand_int_range (rand, 1, 80);
    gchar *desc = g_strdup_printf ("stagestride stride=%u offset=%u", stride,
        offset);
    GstHarness *h = selector_harness (desc, CAPS_30);
    GArray *got = push_frames (h, 0, frames);
    guint64 i, k = 0;

    for (i = 0; i < frames; i++) {
      if (i >= offset && (i - offset) % stride == 0) {
        fail_unless (k < got->len, "%s: frame %" G_GUINT64_FORMAT " missing",
            desc, i);
        fail_unless (g_array_index (got, guint64, k) == i, "%s", desc);
        k++;
      }
    }
    fail_unless_equals_int (got->len, k);
    fail_unless (selector_counter (h, "stagestride", "in") == frames);
    fail_unless (selector_counter (h, "stagestride", "out") == k);
    fail_unless (selector_counter (h, "stagestride", "dropped") == frames - k);
    g_array_free (got, TRUE);
    gst_harness_teardown (h);
    g_free (desc);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* Kept buffers are the input buffers: same memory, PTS and DTS; each
 * lasts stride input frames and is numbered at the new rate (index /
 * stride), so the output is evenly timed as its caps say. */
GST_START_TEST (test_timestamps_kept)
{
  GstHarness *h = selector_harness ("stagestride stride=2", CAPS_30);
  guint64 i;

  for (i = 0; i < 6; i++) {
    GstBuffer *in = make_frame (i);
    GstMemory *mem = gst_buffer_peek_memory (in, 0);

    GST_BUFFER_DTS (in) = frame_pts (i) - 5;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    if (i % 2 == 0) {
      GstBuffer *out = gst_harness_pull (h);

      fail_unless (gst_buffer_peek_memory (out, 0) == mem);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), frame_pts (i));
      fail_unless_equals_uint64 (GST_BUFFER_DTS (out), frame_pts (i) - 5);
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (out),
          2 * (frame_pts (i + 1) - frame_pts (i)));
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), i / 2);
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (out), i / 2 + 1);
      gst_buffer_unref (out);
    }
    fail_unless (gst_harness_try_pull (h) == NULL);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
check_output_rate (const gchar * desc, const gchar * in_caps,
    gint want_n, gint want_d)
{
  GstHarness *h = selector_harness (desc, in_caps);
  GArray *got = push_frames (h, 0, 1);
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  gint n = -1, d = -1;

  fail_unless (caps != NULL);
  fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &n, &d), "%s: no framerate in %" GST_PTR_FORMAT, desc,
      caps);
  fail_unless (n == want_n && d == want_d, "%s with %s: got %d/%d, want "
      "%d/%d", desc, in_caps, n, d, want_n, want_d);
  gst_caps_unref (caps);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);
}

GST_START_TEST (test_caps_framerate)
{
  check_output_rate ("stagestride stride=3", CAPS_30, 10, 1);
  check_output_rate ("stagestride stride=3 offset=2", CAPS_30, 10, 1);
  check_output_rate ("stagestride stride=1", CAPS_30, 30, 1);
  check_output_rate ("stagestride stride=4", CAPS_30, 15, 2);
  check_output_rate ("stagestride stride=2",
      "video/x-raw,format=GRAY8,width=2,height=2,framerate=30000/1001",
      15000, 1001);
  /* variable stays variable */
  check_output_rate ("stagestride stride=5",
      "video/x-raw,format=GRAY8,width=2,height=2,framerate=0/1", 0, 1);
}

GST_END_TEST;

/* Caps without a framerate pass as they are (the selector counts buffers
 * of any stream), and downstream constraints map back through the stride. */
GST_START_TEST (test_caps_other)
{
  GstHarness *h = selector_harness ("stagestride stride=2",
      "audio/x-raw,format=S16LE,rate=48000,channels=1,layout=interleaved");
  GArray *got = push_frames (h, 0, 4);
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstCaps *want = gst_caps_from_string
      ("audio/x-raw,format=S16LE,rate=48000,channels=1,layout=interleaved");
  GstElement *e;
  GstPad *sink;

  fail_unless (gst_caps_is_equal (caps, want));
  fail_unless_equals_int (got->len, 2);
  gst_caps_unref (caps);
  gst_caps_unref (want);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);

  /* downstream wants 5/1: upstream must offer 15/1 with stride 3 */
  h = gst_harness_new_parse ("stagestride stride=3");
  gst_harness_set_sink_caps_str (h, "video/x-raw,framerate=5/1");
  e = gst_harness_find_element (h, "stagestride");
  sink = gst_element_get_static_pad (e, "sink");
  caps = gst_pad_query_caps (sink, NULL);
  want = gst_caps_from_string ("video/x-raw,framerate=15/1");
  fail_unless (gst_caps_is_equal (caps, want), "got %" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  gst_caps_unref (want);
  gst_object_unref (sink);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
push_flush_and_segment (GstHarness * h, GstFormat format, guint64 start)
{
  GstSegment seg;

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, format);
  seg.start = start;
  seg.time = start;
  seg.position = start;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
}

/* After a flushing seek to 1 s at 30/1 the index continues at 30, so with
 * stride 4 the next kept frame is index 32, the 3rd buffer after the seek.
 * Counters keep counting across the flush. */
GST_START_TEST (test_flush_seek_resync)
{
  GstHarness *h = selector_harness ("stagestride stride=4", CAPS_30);
  GArray *got = push_frames (h, 0, 6);
  const guint64 before[] = { 0, 4 };
  const guint64 after[] = { 32, 36 };

  assert_offsets (got, before, 2);
  g_array_free (got, TRUE);

  push_flush_and_segment (h, GST_FORMAT_TIME, GST_SECOND);
  got = push_frames (h, 30, 38);
  assert_offsets (got, after, 2);
  g_array_free (got, TRUE);

  fail_unless (selector_counter (h, "stagestride", "in") == 14);
  fail_unless (selector_counter (h, "stagestride", "out") == 4);
  fail_unless (selector_counter (h, "stagestride", "dropped") == 10);

  /* a seek to 1.05 s, between frames 31 (1.033 s) and 32 (1.067 s): an
   * accurate seek delivers frame 31 first, clipped to start at 1.05 s, and
   * it is frame 31, not round (1.05 * 30) = 32 */
  push_flush_and_segment (h, GST_FORMAT_TIME, GST_SECOND + GST_SECOND / 20);
  {
    GstBuffer *clipped = make_frame (31);

    GST_BUFFER_PTS (clipped) = GST_SECOND + GST_SECOND / 20;
    GST_BUFFER_DURATION (clipped) = frame_pts (32) - GST_BUFFER_PTS (clipped);
    fail_unless_equals_int (gst_harness_push (h, clipped), GST_FLOW_OK);
  }
  got = push_frames (h, 32, 33);
  assert_offsets (got, after, 1);
  g_array_free (got, TRUE);

  /* timestamps need not start at 0: the index follows stream time */
  {
    GstSegment seg;
    const guint64 ts[] = { 40 };

    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h,
            gst_event_new_flush_stop (TRUE)));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    seg.start = seg.position = 3600 * GST_SECOND + frame_pts (38);
    seg.time = frame_pts (38);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    for (guint64 i = 38; i < 42; i++) {
      GstBuffer *b = make_frame (i);

      GST_BUFFER_PTS (b) += 3600 * GST_SECOND;
      fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    }
    got = push_frames (h, 0, 0);
    assert_offsets (got, ts, 1);
    g_array_free (got, TRUE);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Without a framerate, or with a non-TIME segment, the index restarts at 0. */
GST_START_TEST (test_flush_seek_restart)
{
  GstHarness *h = selector_harness ("stagestride stride=3",
      "video/x-raw,format=GRAY8,width=2,height=2,framerate=0/1");
  GArray *got = push_frames (h, 0, 5);
  const guint64 want[] = { 0, 3 };

  assert_offsets (got, want, 2);
  g_array_free (got, TRUE);
  push_flush_and_segment (h, GST_FORMAT_TIME, 10 * GST_SECOND);
  got = push_frames (h, 0, 5);
  assert_offsets (got, want, 2);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);

  h = selector_harness ("stagestride stride=3", CAPS_30);
  got = push_frames (h, 0, 2);
  g_array_free (got, TRUE);
  push_flush_and_segment (h, GST_FORMAT_BYTES, 12345);
  got = push_frames (h, 0, 5);
  assert_offsets (got, want, 2);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A QoS event saying everything before 10 s is late must not make the base
 * class drop frames behind the selector's back: the index would slip. */
GST_START_TEST (test_qos_does_not_skip)
{
  GstHarness *h = selector_harness ("stagestride stride=2 qos=true", CAPS_30);
  const guint64 want[] = { 0, 2, 4, 6 };
  gboolean qos_seen = FALSE;
  GstEvent *ev;
  GArray *got;

  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 2.0,
              10 * GST_SECOND, 0)));
  /* the event went on upstream (after the harness's own reconfigure and
   * latency events) */
  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    qos_seen |= GST_EVENT_TYPE (ev) == GST_EVENT_QOS;
    gst_event_unref (ev);
  }
  fail_unless (qos_seen);
  got = push_frames (h, 0, 8);
  assert_offsets (got, want, 4);
  g_array_free (got, TRUE);
  fail_unless (selector_counter (h, "stagestride", "in") == 8);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gboolean
note_log (const gchar * domain, GLogLevelFlags level, const gchar * message,
    gpointer user_data)
{
  GST_INFO ("captured: %s", message);
  g_atomic_int_inc ((gint *) user_data);
  return TRUE;
}

/* Reverse playback is refused: the index only counts up, so a stream
 * played backwards would select the wrong frames. A seek with a negative
 * rate fails before it reaches upstream; a segment with a negative rate
 * that arrives anyway stops the stream with an error naming the rate; a
 * flush and a forward segment make the element usable again. */
GST_START_TEST (test_reverse_refused)
{
  GstHarness *h = selector_harness ("stagestride stride=2", CAPS_30);
  GstBus *bus = gst_bus_new ();
  const guint64 want[] = { 0, 2 }, want_fwd[] = { 10, 12 };
  gboolean seek_seen = FALSE;
  GError *err = NULL;
  GstMessage *msg;
  GstSegment seg;
  GstEvent *ev;
  GArray *got;

  gst_element_set_bus (h->element, bus);
  got = push_frames (h, 0, 2);
  g_array_free (got, TRUE);
  while ((ev = gst_harness_try_pull_upstream_event (h)))
    gst_event_unref (ev);
  fail_if (gst_harness_push_upstream_event (h, gst_event_new_seek (-1.0,
              GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 0,
              GST_SEEK_TYPE_SET, GST_SECOND)));
  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    seek_seen |= GST_EVENT_TYPE (ev) == GST_EVENT_SEEK;
    gst_event_unref (ev);
  }
  fail_if (seek_seen, "a reverse seek went upstream");
  /* forward seeks still go through */
  fail_unless (gst_harness_push_upstream_event (h, gst_event_new_seek (2.0,
              GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 0,
              GST_SEEK_TYPE_SET, GST_SECOND)));

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.rate = -1.0;
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  fail_unless_equals_int (gst_harness_push (h, make_frame (9)),
      GST_FLOW_NOT_SUPPORTED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for a reverse segment");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "everse playback") != NULL
      && strstr (err->message, "-1") != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  fail_unless (selector_counter (h, "stagestride", "out") == 1);

  /* a forward segment, even without a flush, ends the refusal; the index
   * follows that segment */
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = frame_pts (10);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  got = push_frames (h, 10, 14);
  assert_offsets (got, want_fwd, 2);
  g_array_free (got, TRUE);

  push_flush_and_segment (h, GST_FORMAT_TIME, 0);
  got = push_frames (h, 0, 4);
  assert_offsets (got, want, 2);
  g_array_free (got, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* stride=0 (or over G_MAXINT) and offset=G_MAXUINT64 on a gst-launch line
 * stop the pipeline at start with an error naming the property: GObject's
 * range check only warned and kept stride=1, so every frame went out. */
GST_START_TEST (test_stride_zero_refused)
{
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagestride stride=0 "
      "! fakesink", "stride", "0", "allowed are 1 to 2147483647");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagestride "
      "stride=3000000000 ! fakesink", "stride", "3000000000",
      "allowed are 1 to 2147483647");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagestride "
      "offset=18446744073709551615 ! fakesink", "offset",
      "18446744073709551615", "allowed are 0 to 18446744073709551614");
}

GST_END_TEST;

/* GST_PARAM_MUTABLE_READY is enforced: while PLAYING a new stride is
 * refused with a warning and the selection goes on unchanged. */
GST_START_TEST (test_no_change_while_playing)
{
  GstHarness *h = selector_harness ("stagestride stride=2", CAPS_30);
  GstElement *e = gst_harness_find_element (h, "stagestride");
  gint hits = 0;
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new ("'stride'.*NULL or READY", 0, 0,
          NULL), note_log, &hits, NULL);
  const guint64 want[] = { 0, 2, 4 };
  GArray *got;
  guint stride;

  g_object_set (e, "stride", 3, NULL);
  fail_unless_equals_int (hits, 1);
  g_object_get (e, "stride", &stride, NULL);
  fail_unless_equals_int (stride, 2);
  got = push_frames (h, 0, 6);
  assert_offsets (got, want, 3);
  g_array_free (got, TRUE);
  gst_check_remove_log_filter (filter);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

static guint64
play_to_eos (GstElement * pipe)
{
  stage_test_play_to_eos (pipe, 20 * GST_SECOND, NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  return 0;
}

static void
count_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad,
    gpointer user_data)
{
  GArray *pts = user_data;
  GstClockTime t = GST_BUFFER_PTS (buf);

  g_array_append_val (pts, t);
}

/* A real pipeline: 100 frames of videotestsrc, stride 3 keeps 34, the sink
 * sees 10/1 caps, and the counters reset when the pipeline runs again. */
GST_START_TEST (test_real_pipeline)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=100 ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! stagestride name=s "
      "stride=3 ! fakesink name=sink signal-handoffs=true sync=false", NULL);
  GstElement *s = gst_bin_get_by_name (GST_BIN (pipe), "s");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  guint64 in, out, dropped;
  guint i, run;

  g_signal_connect (sink, "handoff", G_CALLBACK (count_handoff), pts);
  for (run = 0; run < 2; run++) {
    g_array_set_size (pts, 0);
    play_to_eos (pipe);
    fail_unless_equals_int (pts->len, 34);
    for (i = 0; i < pts->len; i++)
      fail_unless_equals_uint64 (g_array_index (pts, GstClockTime, i),
          frame_pts (3 * i));
    g_object_get (s, "in", &in, "out", &out, "dropped", &dropped, NULL);
    fail_unless_equals_uint64 (in, 100);
    fail_unless_equals_uint64 (out, 34);
    fail_unless_equals_uint64 (dropped, 66);
  }
  g_array_free (pts, TRUE);
  gst_object_unref (s);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* Dropped frames send GAP events (their PTS and duration), so a
 * selector in a tee branch does not hang the pipeline. */
GST_START_TEST (test_gap_events)
{
  /* frame 0 only: each kept frame spans the two dropped after it */
  fail_unless_equals_int (check_gaps ("stagestride stride=3 offset=1", 9), 1);
}

GST_END_TEST;

GST_START_TEST (test_tee_branch)
{
  check_tee_branch ("", "stagestride stride=1 offset=100");
}

GST_END_TEST;

static Suite *
stagestride_suite (void)
{
  Suite *s = suite_create ("stagestride");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_gap_events);
  tcase_add_test (tc, test_tee_branch);
  tcase_add_test (tc, test_selection_hand);
  tcase_add_test (tc, test_selection_random);
  tcase_add_test (tc, test_timestamps_kept);
  tcase_add_test (tc, test_caps_framerate);
  tcase_add_test (tc, test_caps_other);
  tcase_add_test (tc, test_flush_seek_resync);
  tcase_add_test (tc, test_flush_seek_restart);
  tcase_add_test (tc, test_qos_does_not_skip);
  tcase_add_test (tc, test_reverse_refused);
  tcase_add_test (tc, test_stride_zero_refused);
  tcase_add_test (tc, test_no_change_while_playing);
  tcase_add_test (tc, test_real_pipeline);
  return s;
}

GST_CHECK_MAIN (stagestride);
