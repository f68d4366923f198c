/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stagerange: selection over many range patterns, early EOS, EOS with
 * nothing selected, flush/seek re-arming, caps, and every bad value. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <string.h>
#include <glib/gstdio.h>

#include "selector-check.h"
#include "prop-check.h"
#include "lib/stagetest.h"

#define MAX_FRAMES 400

/* Pushes frames [from, to) and checks, frame by frame, against @keep (the
 * model) and @last (the largest index the selection keeps, possibly beyond
 * the input; G_MAXUINT64 for none): each kept frame comes out at once, the
 * push of frame @last returns EOS and EOS is already downstream before the
 * next frame is pushed; later pushes get EOS too. Returns frames kept. */
static guint
check_frames (GstHarness * h, const gchar * what, guint64 from, guint64 to,
    const gboolean * keep, guint64 last)
{
  guint64 i;
  guint kept = 0, eos = 0;

  for (i = from; i < to; i++) {
    GstFlowReturn want = (last != G_MAXUINT64 && i >= last) ? GST_FLOW_EOS
        : GST_FLOW_OK;
    GstFlowReturn got = gst_harness_push (h, make_frame (i));
    GstBuffer *b = gst_harness_try_pull (h);

    fail_unless (got == want, "%s: frame %" G_GUINT64_FORMAT " returned %s, "
        "expected %s", what, i, gst_flow_get_name (got),
        gst_flow_get_name (want));
    if (keep[i] && (last == G_MAXUINT64 || i <= last)) {
      fail_unless (b != NULL, "%s: frame %" G_GUINT64_FORMAT " not passed",
          what, i);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (b), frame_pts (i));
      kept++;
    } else {
      fail_unless (b == NULL, "%s: frame %" G_GUINT64_FORMAT " passed", what,
          i);
    }
    if (b)
      gst_buffer_unref (b);
    eos += count_eos (h);
    /* EOS is downstream as soon as the last kept frame is out */
    fail_unless_equals_int (eos, (last != G_MAXUINT64 && i >= last) ? 1 : 0);
  }
  return kept;
}

static void
check_pattern (const gchar * ranges, guint stride, guint frames,
    const gboolean * keep, guint64 last)
{
  gchar *desc = g_strdup_printf ("stagerange ranges=\"%s\" stride=%u",
      ranges, stride);
  GstHarness *h = selector_harness (desc, CAPS_30);
  guint kept = check_frames (h, desc, 0, frames, keep, last);
  gboolean early = last != G_MAXUINT64 && last < frames;

  /* upstream's own EOS: forwarded once, or swallowed after an early one */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (count_eos (h), early ? 0 : 1);
  fail_unless (selector_counter (h, "stagerange", "in") == frames);
  fail_unless (selector_counter (h, "stagerange", "out") == kept);
  fail_unless (selector_counter (h, "stagerange", "dropped") == frames - kept);
  gst_harness_teardown (h);
  g_free (desc);
}

GST_START_TEST (test_selection_hand)
{
  gboolean keep[MAX_FRAMES] = { 0 };

  /* 2:5 of 10 frames: 2, 3, 4, then EOS at frame 4 */
  keep[2] = keep[3] = keep[4] = TRUE;
  check_pattern ("2:5", 1, 10, keep, 4);

  /* two ranges with stride 2: 0, 2, 4, 20, 22 */
  memset (keep, 0, sizeof (keep));
  keep[0] = keep[2] = keep[4] = keep[20] = keep[22] = TRUE;
  check_pattern ("0:5,20:23", 2, 30, keep, 22);

  /* overlapping, unsorted: a set in stream order */
  memset (keep, 0, sizeof (keep));
  keep[1] = keep[2] = keep[3] = keep[4] = keep[8] = TRUE;
  check_pattern ("8:9, 3:5 ,1:4", 1, 12, keep, 8);

  /* a range past the end of the stream ends with the stream */
  memset (keep, 0, sizeof (keep));
  for (guint i = 5; i < 20; i++)
    keep[i] = TRUE;
  check_pattern ("5:1000", 1, 20, keep, 999);

  /* nothing selected in the input: EOS from upstream still arrives */
  memset (keep, 0, sizeof (keep));
  check_pattern ("100:200", 1, 20, keep, 199);

  /* unset ranges: the whole stream, strided */
  {
    GstHarness *h = selector_harness ("stagerange stride=4", CAPS_30);

    memset (keep, 0, sizeof (keep));
    keep[0] = keep[4] = keep[8] = TRUE;
    check_frames (h, "unset ranges", 0, 10, keep, G_MAXUINT64);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_selection_random)
{
  GRand *rand = g_rand_new_with_seed (2024);
  guint n;

  for (n = 0; n < 60; n++) {
    gboolean keep[MAX_FRAMES] = { 0 };
    guint nr = g_rand_int_range (rand, 1, 5), r;
    guint stride = g_rand_int_range (rand, 1, 6);
    guint frames = g_rand_int_range (rand, 1, 120);
    guint64 last = 0;
    GString *ranges = g_string_new (NULL);

    for (r = 0; r < nr; r++) {
      guint a = g_rand_int_range (rand, 0, 130);
      guint b = a + g_rand_int_range (rand, 1, 40), i;

      for (i = a; i < b; i += stride) {
        keep[i] = TRUE;
        last = MAX (last, i);
      }
      g_string_append_printf (ranges, "%s%u:%u", r ? "," : "", a, b);
    }
    check_pattern (ranges->str, stride, frames, keep, last);
    g_string_free (ranges, TRUE);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* The early EOS reaches the sink before the input runs out, and upstream is
 * told with GST_FLOW_EOS on the very frame that completed the selection. */
GST_START_TEST (test_early_eos)
{
  GstHarness *h = selector_harness ("stagerange ranges=0:3", CAPS_30);
  GstBuffer *b;

  fail_unless_equals_int (gst_harness_push (h, make_frame (0)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, make_frame (1)), GST_FLOW_OK);
  fail_unless_equals_int (count_eos (h), 0);
  fail_unless_equals_int (gst_harness_push (h, make_frame (2)), GST_FLOW_EOS);
  /* frame 2 was delivered before EOS */
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);
  while ((b = gst_harness_try_pull (h)))
    gst_buffer_unref (b);
  fail_unless_equals_int (count_eos (h), 1);
  fail_unless_equals_int (gst_harness_push (h, make_frame (3)), GST_FLOW_EOS);
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
push_flush_and_segment (GstHarness * h, guint64 start)
{
  GstSegment seg;

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = seg.position = start;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
}

/* A flushing seek after the early EOS re-arms the element: seeking back to
 * 0 replays the range, seeking into it resumes at the segment's frame,
 * seeking past it ends at the first buffer. */
GST_START_TEST (test_seek_rearms)
{
  GstHarness *h = selector_harness ("stagerange ranges=30:36 stride=2", CAPS_30);
  gboolean keep[MAX_FRAMES] = { 0 };

  keep[30] = keep[32] = keep[34] = TRUE;
  fail_unless_equals_int (check_frames (h, "first run", 0, 40, keep, 34), 3);

  push_flush_and_segment (h, 0);
  count_eos (h);
  fail_unless_equals_int (check_frames (h, "seek to 0", 0, 36, keep, 34), 3);

  /* 1.1 s at 30/1 = frame 33: 34 only */
  push_flush_and_segment (h, GST_SECOND + GST_SECOND / 10);
  count_eos (h);
  keep[30] = keep[32] = FALSE;
  fail_unless_equals_int (check_frames (h, "seek to 33", 33, 36, keep, 34), 1);

  /* 2 s = frame 60, past the range: the first buffer ends the stream */
  push_flush_and_segment (h, 2 * GST_SECOND);
  count_eos (h);
  fail_unless_equals_int (gst_harness_push (h, make_frame (60)), GST_FLOW_EOS);
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless_equals_int (count_eos (h), 1);

  /* counters are cumulative: 40 + 36 + 3 + 1 buffers in, 3 + 3 + 1 out */
  fail_unless (selector_counter (h, "stagerange", "in") == 80);
  fail_unless (selector_counter (h, "stagerange", "out") == 7);
  fail_unless (selector_counter (h, "stagerange", "dropped") == 73);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
check_rate (const gchar * desc, gint want_n, gint want_d)
{
  GstHarness *h = selector_harness (desc, CAPS_30);
  GstBuffer *b;
  GstCaps *caps;
  gint n = -1, d = -1;

  gst_harness_push (h, make_frame (0));
  if ((b = gst_harness_try_pull (h)))
    gst_buffer_unref (b);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL);
  fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &n, &d));
  fail_unless (n == want_n && d == want_d, "%s: %d/%d", desc, n, d);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_START_TEST (test_caps_framerate)
{
  check_rate ("stagerange ranges=0:100", 30, 1);
  check_rate ("stagerange ranges=0:100 stride=3", 10, 1);
  /* several ranges: the nominal rate, the skipped frames are gaps */
  check_rate ("stagerange ranges=0:100,200:300", 30, 1);
  check_rate ("stagerange ranges=0:100,200:300 stride=3", 10, 1);
  check_rate ("stagerange stride=6", 5, 1);
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

/* A bad value warns when set, and the pipeline fails to start with an
 * ERROR message that names the property and the value. */
static void
check_bad_value (const gchar * value, const gchar * reason)
{
  gchar *line = g_strdup_printf ("videotestsrc num-buffers=10 ! stagerange "
      "ranges=\"%s\" ! fakesink", value);
  gchar *pattern = g_regex_escape_string (value, -1);
  GRegex *re = g_regex_new (pattern, 0, 0, NULL);
  gint hits = 0;
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, re, note_log, &hits, NULL);
  GstElement *pipe = gst_parse_launch (line, NULL);
  GstMessage *msg;
  GError *err = NULL;

  fail_unless (pipe != NULL);
  fail_unless (hits == 1, "no warning when setting ranges=%s", value);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  msg = stage_test_expect_error (pipe, 5 * GST_SECOND, value);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS));
  fail_unless (strstr (err->message, "'ranges'") != NULL, "%s", err->message);
  fail_unless (strstr (err->message, value) != NULL, "%s", err->message);
  fail_unless (strstr (err->message, reason) != NULL, "%s", err->message);
  GST_INFO ("ranges=%s: %s", value, err->message);

  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  gst_check_remove_log_filter (filter);
  g_free (pattern);
  g_free (line);
}

GST_START_TEST (test_bad_values)
{
  check_bad_value ("5:3", "before the start");
  check_bad_value ("x", "START:END");
  check_bad_value ("4:4", "empty range");
  check_bad_value ("0:10,", "empty");
  check_bad_value ("-1:5", "non-negative");
  check_bad_value ("0:10,abc", "START:END");
}

GST_END_TEST;

/* videotestsrc stops producing once the range is done: it made 20 frames,
 * not 300. */
GST_START_TEST (test_real_pipeline)
{
  guint64 in, out;

  run_to_eos_counting ("videotestsrc num-buffers=300 ! "
      "video/x-raw,width=32,height=24,framerate=25/1 ! stagerange name=r "
      "ranges=10:20 ! fakesink name=sink sync=false", "r", &in, &out);
  fail_unless_equals_uint64 (out, 10);
  fail_unless_equals_uint64 (in, 20);
}

GST_END_TEST;

/* Dropped frames send GAP events (their PTS and duration), so a
 * selector in a tee branch does not hang the pipeline. */
GST_START_TEST (test_gap_events)
{
  fail_unless_equals_int (check_gaps ("stagerange ranges=\"2:4,6:7\"", 10), 4);
}

GST_END_TEST;

GST_START_TEST (test_tee_branch)
{
  check_tee_branch ("", "stagerange ranges=100:110");
  /* on a real decode too */
  check_tee_branch ("video/x-raw,width=320,height=240 ! avenc_mpeg4 ! "
      "avdec_mpeg4 !", "stagerange ranges=100:110");
}

GST_END_TEST;

/* Every message is valid UTF-8: a multibyte character is never cut where
 * a token is shortened, raw bytes are escaped. */
GST_START_TEST (test_messages_utf8)
{
  gchar *v, *m;
  guint cut;

  /* "é" (2 bytes) and "€" (3 bytes) across the 40-byte token cut and the
   * 80-byte value cut, at every offset */
  for (cut = 36; cut <= 41; cut++) {
    v = x_then (cut, "\xc3\xa9\xe2\x82\xac:5");
    g_free (refused_utf8 ("stagerange", "ranges", v, NULL, NULL));
    g_free (v);
  }
  for (cut = 76; cut <= 81; cut++) {
    gchar *x = x_then (cut, "\xe2\x82\xac\xe2\x82\xac");

    v = g_strconcat ("0:5,", x, NULL);
    g_free (refused_utf8 ("stagerange", "ranges", v, NULL, NULL));
    g_free (x);
    g_free (v);
  }
  /* raw bytes that are not UTF-8, control characters */
  m = refused_utf8 ("stagerange", "ranges", "0:5,\xff\xfe:7\x01", NULL, NULL);
  fail_unless (strstr (m, "\\xFF\\xFE") != NULL, "%s", m);
  g_free (m);
}

GST_END_TEST;

/* Issue 13: every selected frame reaches the file through the real
 * muxers and decodes back (mp4mux used to flag the last one discard). */
static void
check_into_muxers (const gchar * encoder)
{
  static const gchar *muxers[][2] = {
    {"mp4mux", "qtdemux"},
    {"matroskamux", "matroskademux"},
    {"avimux", "avidemux"},
  };
  gchar *dir = g_dir_make_tmp ("stagerange-XXXXXX", NULL);
  gchar *factory = g_strndup (encoder, strcspn (encoder, " "));
  guint i;

  if (!gst_registry_check_feature_version (gst_registry_get (), factory,
          1, 0, 0)) {
    g_printerr ("SKIP test_into_muxers with %s: no such element\n", factory);
    g_rmdir (dir);
    g_free (dir);
    g_free (factory);
    return;
  }
  for (i = 0; i < G_N_ELEMENTS (muxers); i++) {
    gchar *path = g_build_filename (dir, "out", NULL);
    gchar *enc = g_strdup_printf ("videotestsrc num-buffers=200 ! "
        "video/x-raw,width=320,height=240,framerate=30/1 ! "
        "stagerange ranges=\"0:50,100:150\" name=sel ! %s ! "
        "h264parse ! %s ! filesink location=\"%s\"", encoder, muxers[i][0],
        path);
    gchar *dec = g_strdup_printf ("filesrc location=\"%s\" ! %s ! h264parse "
        "! avdec_h264 ! stagestride name=count ! fakesink", path,
        muxers[i][1]);
    guint64 in, out;

    run_to_eos_counting (enc, "sel", &in, &out);
    fail_unless_equals_uint64 (out, 100);
    run_to_eos_counting (dec, "count", &in, &out);
    fail_unless (in == 100, "%s ! %s: %" G_GUINT64_FORMAT " frames decoded "
        "of 100", encoder, muxers[i][0], in);
    g_unlink (path);
    g_free (path);
    g_free (enc);
    g_free (dec);
  }
  g_rmdir (dir);
  g_free (dir);
  g_free (factory);
}

GST_START_TEST (test_into_muxers)
{
  check_into_muxers ("openh264enc");
  check_into_muxers ("x264enc speed-preset=ultrafast");
}

GST_END_TEST;

/* stride=0 on a gst-launch line stops the pipeline at start with an error
 * naming the property (GObject's range check only warned and kept 1). */
GST_START_TEST (test_stride_zero_refused)
{
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagerange "
      "ranges=0:2 stride=0 ! fakesink", "stride", "0",
      "allowed are 1 to 2147483647");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagerange "
      "stride=2147483648 ! fakesink", "stride", "2147483648",
      "allowed are 1 to 2147483647");
}

GST_END_TEST;

static Suite *
stagerange_suite (void)
{
  Suite *s = suite_create ("stagerange");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_gap_events);
  tcase_add_test (tc, test_into_muxers);
  tcase_add_test (tc, test_messages_utf8);
  tcase_add_test (tc, test_tee_branch);
  tcase_add_test (tc, test_selection_hand);
  tcase_add_test (tc, test_selection_random);
  tcase_add_test (tc, test_early_eos);
  tcase_add_test (tc, test_stride_zero_refused);
  tcase_add_test (tc, test_seek_rearms);
  tcase_add_test (tc, test_caps_framerate);
  tcase_add_test (tc, test_bad_values);
  tcase_add_test (tc, test_real_pipeline);
  return s;
}

GST_CHECK_MAIN (stagerange);
