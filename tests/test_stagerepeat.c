/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stagerepeat and stagerepeatnull (Scanner's Repeat / RepeatNull): counts,
 * contents, timestamps, offsets, GAP events, caps, counters, flush, the
 * bad repeat value, and replication inside stagebin. */
#include <gst/check/gstcheck.h>

#include "glib-versions.h"
#include <gst/check/gstharness.h>
#include <string.h>

#include "selector-check.h"
#include "prop-check.h"
#include "lib/stagetest.h"

/* A numbered frame whose first byte also holds its number, so content can
 * be checked after any copy. */
static GstBuffer *
frame_with_content (guint64 i)
{
  GstBuffer *b = make_frame (i);

  gst_buffer_memset (b, 0, (guint8) i, 4);
  return b;
}

static guint8
first_byte (GstBuffer * b)
{
  guint8 v = 0;

  gst_buffer_extract (b, 0, &v, 1);
  return v;
}

/* Scanner's test_space (Repeat): N frames give N*K outputs, output j is
 * input frame j / K, content and all; the copies tile each input frame's
 * time exactly and the output index is j. */
GST_START_TEST (test_repeat_counts_and_content)
{
  const guint64 N = 7, K = 3;
  GstHarness *h = selector_harness ("stagerepeat repeat=3", CAPS_30);
  GstClockTime expect_pts = 0;
  guint64 i, j = 0;
  GstBuffer *b;

  for (i = 0; i < N; i++)
    fail_unless_equals_int (gst_harness_push (h, frame_with_content (i)),
        GST_FLOW_OK);
  while ((b = gst_harness_try_pull (h))) {
    fail_unless_equals_int (first_byte (b), j / K);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), j);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (b), j + 1);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), expect_pts);
    fail_unless (GST_BUFFER_DURATION (b) > 0);
    /* a regular stream at K times the rate, to the nanosecond */
    fail_unless (GST_BUFFER_DURATION (b) + 1 >= GST_SECOND / 90 &&
        GST_BUFFER_DURATION (b) <= GST_SECOND / 90 + 1);
    expect_pts += GST_BUFFER_DURATION (b);
    if (j % K == K - 1)
      fail_unless_equals_uint64 (expect_pts, frame_pts (j / K + 1));
    gst_buffer_unref (b);
    j++;
  }
  fail_unless_equals_uint64 (j, N * K);
  fail_unless_equals_uint64 (selector_counter (h, "stagerepeat", "in"), N);
  fail_unless_equals_uint64 (selector_counter (h, "stagerepeat", "out"),
      N * K);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The copies share the frame's memory: repeating costs no pixel copies. */
GST_START_TEST (test_repeat_shares_memory)
{
  GstHarness *h = selector_harness ("stagerepeat repeat=4", CAPS_30);
  GstBuffer *in = make_frame (0), *out;
  GstMemory *mem = gst_buffer_peek_memory (in, 0);
  guint n = 0;

  gst_buffer_ref (in);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  while ((out = gst_harness_try_pull (h))) {
    fail_unless (gst_buffer_peek_memory (out, 0) == mem);
    gst_buffer_unref (out);
    n++;
  }
  fail_unless_equals_int (n, 4);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
check_rate (const gchar * desc, const gchar * in_caps, gint want_n,
    gint want_d)
{
  GstHarness *h = selector_harness (desc, in_caps);
  GstCaps *caps;
  gint n = -1, d = -1;

  fail_unless_equals_int (gst_harness_push (h, make_frame (0)), GST_FLOW_OK);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL);
  fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &n, &d));
  fail_unless (n == want_n && d == want_d, "%s: got %d/%d, want %d/%d", desc,
      n, d, want_n, want_d);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_START_TEST (test_caps_framerate)
{
  check_rate ("stagerepeat repeat=4", CAPS_30, 120, 1);
  check_rate ("stagerepeatnull repeat=3", CAPS_30, 90, 1);
  check_rate ("stagerepeat repeat=2",
      "video/x-raw,format=GRAY8,width=2,height=2,framerate=30000/1001",
      60000, 1001);
  check_rate ("stagerepeat repeat=5",
      "video/x-raw,format=GRAY8,width=2,height=2,framerate=0/1", 0, 1);
}

GST_END_TEST;

/* A real source negotiates K times its rate downstream, and a capsfilter
 * after the element constrains the source's rate through it. */
GST_START_TEST (test_caps_negotiation_pipeline)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=4 ! "
      "video/x-raw,width=32,height=24 ! stagerepeat repeat=2 ! "
      "video/x-raw,framerate=50/1 ! fakesink name=sink", NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstCaps *caps;
  gint n, d;

  stage_test_play_to_eos (pipe, 20 * GST_SECOND, NULL);
  caps = gst_pad_get_current_caps (pad);
  fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &n, &d));
  fail_unless (n == 50 && d == 1);
  gst_caps_unref (caps);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* Scanner's test_space (RepeatNull): N*K positions, the frame at every
 * K-th, a GAP over the K-1 nulls after it; positions tile the timeline. */
GST_START_TEST (test_repeatnull_positions)
{
  const guint64 N = 6, K = 4;
  GstHarness *h = selector_harness ("stagerepeatnull repeat=4", CAPS_30);
  GstClockTime next = 0;
  guint64 i, positions = 0, frames = 0, gaps = 0;

  for (i = 0; i < N; i++) {
    GstEvent *ev;
    GstBuffer *b;

    fail_unless_equals_int (gst_harness_push (h, frame_with_content (i)),
        GST_FLOW_OK);
    b = gst_harness_pull (h);
    fail_unless_equals_int (first_byte (b), i);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), i * K);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), next);
    fail_unless_equals_uint64 (positions, i * K);
    next += GST_BUFFER_DURATION (b);
    positions++;
    frames++;
    gst_buffer_unref (b);
    /* the GAP, after the stream-start/caps/segment of the first frame */
    while ((ev = gst_harness_try_pull_event (h))) {
      GstClockTime ts, dur;

      if (GST_EVENT_TYPE (ev) == GST_EVENT_GAP) {
        /* marked as nulls, which stageunslice keeps as positions */
        fail_unless (gst_structure_has_field (gst_event_get_structure (ev),
                "stage-null"));
        gst_event_parse_gap (ev, &ts, &dur);
        fail_unless_equals_uint64 (ts, next);
        fail_unless_equals_uint64 (ts + dur, frame_pts (i + 1));
        /* K-1 positions of one output frame each */
        fail_unless (dur + 3 >= (K - 1) * (GST_SECOND / 120)
            && dur <= (K - 1) * (GST_SECOND / 120) + 3);
        next = ts + dur;
        positions += K - 1;
        gaps++;
      }
      gst_event_unref (ev);
    }
    fail_unless (gst_harness_try_pull (h) == NULL);
  }
  fail_unless_equals_uint64 (positions, N * K);
  fail_unless_equals_uint64 (frames, N);
  fail_unless_equals_uint64 (gaps, N);
  fail_unless_equals_uint64 (selector_counter (h, "stagerepeatnull", "in"),
      N);
  fail_unless_equals_uint64 (selector_counter (h, "stagerepeatnull", "out"),
      N);
  fail_unless_equals_uint64 (selector_counter (h, "stagerepeatnull",
          "nulls"), N * (K - 1));
  gst_harness_teardown (h);
}

GST_END_TEST;

/* repeat=1 is a plain pass: same count, no GAP. */
GST_START_TEST (test_repeat_one)
{
  GstHarness *h = selector_harness ("stagerepeatnull repeat=1", CAPS_30);
  guint i;

  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (i)),
        GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 5);
  {
    GstEvent *ev;

    while ((ev = gst_harness_try_pull_event (h))) {
      fail_if (GST_EVENT_TYPE (ev) == GST_EVENT_GAP);
      gst_event_unref (ev);
    }
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A buffer without duration takes it from the caps; without PTS no GAP. */
GST_START_TEST (test_missing_timing)
{
  GstHarness *h = selector_harness ("stagerepeatnull repeat=2", CAPS_30);
  GstBuffer *b = make_frame (3), *out;
  GstEvent *ev;
  guint gaps = 0;

  GST_BUFFER_DURATION (b) = GST_CLOCK_TIME_NONE;
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), GST_SECOND / 60);
  gst_buffer_unref (out);
  b = make_frame (4);
  GST_BUFFER_PTS (b) = GST_CLOCK_TIME_NONE;
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (!GST_BUFFER_PTS_IS_VALID (out));
  gst_buffer_unref (out);
  while ((ev = gst_harness_try_pull_event (h))) {
    gaps += GST_EVENT_TYPE (ev) == GST_EVENT_GAP;
    gst_event_unref (ev);
  }
  fail_unless_equals_int (gaps, 1);
  fail_unless_equals_uint64 (selector_counter (h, "stagerepeatnull",
          "nulls"), 2);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Flush and EOS pass through and nothing is held back: after a flush the
 * next frame repeats as usual, and EOS follows the last copies. */
GST_START_TEST (test_flush_and_eos)
{
  GstHarness *h = selector_harness ("stagerepeat repeat=2", CAPS_30);
  GstSegment seg;
  guint i;

  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = seg.position = frame_pts (10);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (gst_harness_push (h, make_frame (10)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), 8);
  fail_unless_equals_int (count_eos (h), 1);
  fail_unless_equals_uint64 (selector_counter (h, "stagerepeat", "in"), 4);
  fail_unless_equals_uint64 (selector_counter (h, "stagerepeat", "out"), 8);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gboolean
count_log (const gchar * log_domain, GLogLevelFlags log_level,
    const gchar * message, gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return TRUE;
}

/* repeat=0 on a gst-launch line stops the pipeline at start with an error
 * naming the property (GObject's range check only warned and kept 1). */
GST_START_TEST (test_repeat_zero_refused)
{
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagerepeatnull "
      "repeat=0 ! fakesink", "repeat", "0", "allowed are 1 to 2147483647");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagerepeat "
      "repeat=0 ! fakesink", "repeat", "0", "allowed are 1 to 2147483647");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagerepeat "
      "repeat=2147483648 ! fakesink", "repeat", "2147483648",
      "allowed are 1 to 2147483647");
}

GST_END_TEST;

/* GST_PARAM_MUTABLE_READY is enforced: while PLAYING a new repeat is
 * refused with a warning and the stream keeps its rate. */
GST_START_TEST (test_no_change_while_playing)
{
  GstHarness *h = selector_harness ("stagerepeat repeat=2", CAPS_30);
  GstElement *e = gst_harness_find_element (h, "stagerepeat");
  gint hits = 0;
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new ("'repeat'.*NULL or READY", 0, 0,
          NULL), count_log, &hits, NULL);
  guint k;

  fail_unless_equals_int (gst_harness_push (h, make_frame (0)), GST_FLOW_OK);
  g_object_set (e, "repeat", 5, NULL);
  fail_unless_equals_int (hits, 1);
  g_object_get (e, "repeat", &k, NULL);
  fail_unless_equals_int (k, 2);
  fail_unless_equals_int (gst_harness_push (h, make_frame (1)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 4);
  gst_check_remove_log_filter (filter);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstPadProbeReturn
record_pts (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstClockTime pts = GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info));

  g_array_append_val ((GArray *) user_data, pts);
  return GST_PAD_PROBE_OK;
}

/* Runs `videotestsrc ! OPS ! fakesink` to EOS; the output PTS. */
static GArray *
run_recording (const gchar * ops)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=24 ! "
      "video/x-raw,width=32,height=24,framerate=30/1 ! %s ! "
      "fakesink name=sink", ops);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, record_pts, pts, NULL);
  stage_test_play_to_eos (pipe, 30 * GST_SECOND, ops);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  return pts;
}

/* Each frame is repeated on its own, so stagebin replicates the element
 * and the output is the plain chain's, in order. */
GST_START_TEST (test_in_stagebin)
{
  GArray *plain = run_recording ("stagerepeat repeat=3");
  GArray *staged = run_recording ("stagebin ops=\"stagerepeat repeat=3\" "
      "replicas=2 work-packet-size=2");
  guint i;

  fail_unless_equals_int (plain->len, 72);
  fail_unless_equals_int (staged->len, plain->len);
  for (i = 0; i < plain->len; i++)
    fail_unless_equals_uint64 (g_array_index (staged, GstClockTime, i),
        g_array_index (plain, GstClockTime, i));
  g_array_free (plain, TRUE);
  g_array_free (staged, TRUE);
}

GST_END_TEST;

static Suite *
stagerepeat_suite (void)
{
  Suite *s = suite_create ("stagerepeat");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_repeat_counts_and_content);
  tcase_add_test (tc, test_repeat_shares_memory);
  tcase_add_test (tc, test_caps_framerate);
  tcase_add_test (tc, test_caps_negotiation_pipeline);
  tcase_add_test (tc, test_repeatnull_positions);
  tcase_add_test (tc, test_repeat_one);
  tcase_add_test (tc, test_missing_timing);
  tcase_add_test (tc, test_flush_and_eos);
  tcase_add_test (tc, test_repeat_zero_refused);
  tcase_add_test (tc, test_no_change_while_playing);
  tcase_add_test (tc, test_in_stagebin);
  return s;
}

GST_CHECK_MAIN (stagerepeat);
