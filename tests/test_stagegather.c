/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stagegather: index lists (inline and from a file) over many patterns,
 * unsorted lists, indices past the end, early EOS, seek, caps, and every
 * bad value (inline, empty file, unreadable file, both or neither set). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "selector-check.h"
#include <glib/gstdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "select.h"
#include "tmpdir.h"
#include "lib/stagetest.h"

#define MAX_INDEX 300

/* Runs @frames frames through @desc and checks each against the model
 * (@keep, @last: the largest listed index), including the exact frame at
 * which EOS goes downstream and upstream learns it. */
static void
check_gather (const gchar * desc, guint frames, const gboolean * keep,
    guint64 last)
{
  GstHarness *h = selector_harness (desc, CAPS_30);
  guint64 i;
  guint kept = 0, eos = 0;

  for (i = 0; i < frames; i++) {
    GstFlowReturn want = i >= last ? GST_FLOW_EOS : GST_FLOW_OK;
    GstFlowReturn got = gst_harness_push (h, make_frame (i));
    GstBuffer *b = gst_harness_try_pull (h);

    fail_unless (got == want, "%s: frame %" G_GUINT64_FORMAT ": %s, want %s",
        desc, i, gst_flow_get_name (got), gst_flow_get_name (want));
    if (keep[i] && i <= last) {
      fail_unless (b != NULL, "%s: frame %" G_GUINT64_FORMAT " missing",
          desc, i);
      fail_unless (GST_BUFFER_OFFSET (b) == i);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (b), frame_pts (i));
      fail_unless_equals_uint64 (GST_BUFFER_DTS (b), frame_pts (i));
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (b),
          frame_pts (i + 1) - frame_pts (i));
      kept++;
    } else {
      fail_unless (b == NULL, "%s: frame %" G_GUINT64_FORMAT " passed", desc,
          i);
    }
    if (b)
      gst_buffer_unref (b);
    eos += count_eos (h);
    fail_unless_equals_int (eos, i >= last ? 1 : 0);
  }
  /* upstream's EOS: forwarded when the list was not exhausted, else
   * swallowed (one EOS already went out) */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (eos + count_eos (h), 1);
  fail_unless (selector_counter (h, "stagegather", "in") == frames);
  fail_unless (selector_counter (h, "stagegather", "out") == kept);
  fail_unless (selector_counter (h, "stagegather", "dropped") == frames - kept);
  gst_harness_teardown (h);
}

GST_START_TEST (test_gather_hand)
{
  gboolean keep[MAX_INDEX] = { 0 };

  keep[0] = keep[5] = keep[7] = keep[29] = TRUE;
  check_gather ("stagegather indices=\"0,5,7,29\"", 40, keep, 29);
  /* unsorted with duplicates: the same set, in stream order, once each */
  check_gather ("stagegather indices=\"29,5,0,5,7,29\"", 40, keep, 29);
  check_gather ("stagegather indices=\"29 5 0 7\"", 40, keep, 29);
  /* the stream ends before the last index: all that exist, normal EOS */
  check_gather ("stagegather indices=\"0,5,7,29\"", 20, keep, 29);
  /* a single index that never comes: nothing out, upstream EOS passes */
  memset (keep, 0, sizeof (keep));
  check_gather ("stagegather indices=250", 20, keep, 250);
  /* a single index: EOS right after it */
  keep[0] = TRUE;
  check_gather ("stagegather indices=0", 5, keep, 0);
}

GST_END_TEST;

GST_START_TEST (test_gather_random)
{
  GRand *rand = g_rand_new_with_seed (777);
  guint n;

  for (n = 0; n < 60; n++) {
    gboolean keep[MAX_INDEX] = { 0 };
    guint k = g_rand_int_range (rand, 1, 25), j;
    guint frames = g_rand_int_range (rand, 1, 150);
    guint64 last = 0;
    GString *desc = g_string_new ("stagegather indices=\"");

    for (j = 0; j < k; j++) {
      guint x = g_rand_int_range (rand, 0, 160);

      keep[x] = TRUE;
      last = MAX (last, x);
      g_string_append_printf (desc, "%s%u", j ? "," : "", x);
    }
    g_string_append (desc, "\"");
    check_gather (desc->str, frames, keep, last);
    g_string_free (desc, TRUE);
  }
  g_rand_free (rand);
}

GST_END_TEST;

static gchar *
write_temp (const gchar * contents)
{
  GError *err = NULL;
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("stagegather-XXXXXX.txt", &path, &err);

  fail_unless (fd >= 0, "%s", err ? err->message : "");
  g_close (fd, NULL);
  fail_unless (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

GST_START_TEST (test_indices_file)
{
  gboolean keep[MAX_INDEX] = { 0 };
  gchar *path = write_temp ("# frames to keep\n12\n3 # the first\n\n40, 7\n"
      "# 50 is commented out\n");
  gchar *desc = g_strdup_printf ("stagegather indices-file=\"%s\"", path);

  keep[3] = keep[7] = keep[12] = keep[40] = TRUE;
  check_gather (desc, 60, keep, 40);
  g_unlink (path);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* The input's nominal rate, not 0/1: the dropped frames are gaps. */
GST_START_TEST (test_caps_variable)
{
  GstHarness *h = selector_harness ("stagegather indices=\"0,1,2,3\"", CAPS_30);
  GstCaps *caps;
  gint n = -1, d = -1;

  fail_unless_equals_int (gst_harness_push (h, make_frame (0)), GST_FLOW_OK);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &n, &d));
  fail_unless (n == 30 && d == 1, "%d/%d", n, d);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Downstream insisting on a fixed rate gets it from upstream: the gather
 * keeps the rate (it used to say 0/1, which such a downstream refused). */
GST_START_TEST (test_caps_fixed_rate_accepted)
{
  guint64 in, out;

  run_to_eos_counting ("videotestsrc num-buffers=5 ! stagegather "
      "indices=1 name=g ! video/x-raw,framerate=5/1 ! fakesink", "g", &in,
      &out);
  fail_unless_equals_uint64 (out, 1);
}

GST_END_TEST;

/* After a flushing seek to 0.5 s (frame 15) indices below 15 are skipped. */
GST_START_TEST (test_seek)
{
  GstHarness *h = selector_harness ("stagegather indices=\"2,16,20\"", CAPS_30);
  GstSegment seg;
  GstBuffer *b;
  guint64 i;

  fail_unless_equals_int (gst_harness_push (h, make_frame (0)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = seg.position = GST_SECOND / 2;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  count_eos (h);
  for (i = 15; i < 20; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (i)),
        GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, make_frame (20)),
      GST_FLOW_EOS);
  b = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), 16);
  gst_buffer_unref (b);
  b = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), 20);
  gst_buffer_unref (b);
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless_equals_int (count_eos (h), 1);
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

/* Builds "videotestsrc ! stagegather <props> ! fakesink", expects the
 * start to fail with an ERROR of @code whose text holds every @needles. */
static void
check_refused (const gchar * props, gint want_warnings, gint code,
    const gchar * const *needles)
{
  gchar *line = g_strdup_printf ("videotestsrc num-buffers=10 ! stagegather "
      "%s ! fakesink", props);
  gint hits = 0;
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new ("indices", 0, 0, NULL), note_log,
      &hits, NULL);
  GstElement *pipe = gst_parse_launch (line, NULL);
  GstMessage *msg;
  GError *err = NULL;

  fail_unless_equals_int (hits, want_warnings);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  msg = stage_test_expect_error (pipe, 5 * GST_SECOND, props);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR, code),
      "%s: %s", props, err->message);
  for (; *needles; needles++)
    fail_unless (strstr (err->message, *needles) != NULL,
        "'%s' not in: %s", *needles, err->message);
  GST_INFO ("%s: %s", props, err->message);

  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  gst_check_remove_log_filter (filter);
  g_free (line);
}

GST_START_TEST (test_bad_values)
{
  gchar *empty = write_temp ("# nothing here\n\n");
  gchar *garbage = write_temp ("1\n2\nthree\n");
  gchar *missing = g_build_filename (g_get_tmp_dir (),
      "stagegather-does-not-exist.txt", NULL);
  gchar *props;

  {
    const gchar *n[] = { "'indices'", "abc", NULL };
    check_refused ("indices=abc", 1, GST_RESOURCE_ERROR_SETTINGS, n);
  }
  {
    const gchar *n[] = { "'indices'", "0,5,x,7", "'x'", NULL };
    check_refused ("indices=\"0,5,x,7\"", 1, GST_RESOURCE_ERROR_SETTINGS, n);
  }
  {
    const gchar *n[] = { "'indices'", "-3", NULL };
    check_refused ("indices=-3", 1, GST_RESOURCE_ERROR_SETTINGS, n);
  }
  {
    const gchar *n[] = { "'indices-file'", empty, "no index", NULL };
    props = g_strdup_printf ("indices-file=\"%s\"", empty);
    check_refused (props, 0, GST_RESOURCE_ERROR_SETTINGS, n);
    g_free (props);
  }
  {
    const gchar *n[] = { "'indices-file'", garbage, "'three'", "line 3",
      NULL
    };
    props = g_strdup_printf ("indices-file=\"%s\"", garbage);
    check_refused (props, 0, GST_RESOURCE_ERROR_SETTINGS, n);
    g_free (props);
  }
  {
    const gchar *n[] = { "'indices-file'", missing, NULL };
    props = g_strdup_printf ("indices-file=\"%s\"", missing);
    check_refused (props, 0, GST_RESOURCE_ERROR_OPEN_READ, n);
    g_free (props);
  }
  {
    /* a directory cannot be read as a list either */
    const gchar *n[] = { "'indices-file'", "a directory", NULL };
    props = g_strdup_printf ("indices-file=\"%s\"", g_get_tmp_dir ());
    check_refused (props, 0, GST_RESOURCE_ERROR_OPEN_READ, n);
    g_free (props);
  }
  {
    const gchar *n[] = { "'indices'", "'indices-file'", "only one", NULL };
    props = g_strdup_printf ("indices=1 indices-file=\"%s\"", garbage);
    check_refused (props, 0, GST_RESOURCE_ERROR_SETTINGS, n);
    g_free (props);
  }
  {
    const gchar *n[] = { "'indices'", "'indices-file'", "is set", NULL };
    check_refused ("", 0, GST_RESOURCE_ERROR_SETTINGS, n);
  }

  g_unlink (empty);
  g_unlink (garbage);
  g_free (empty);
  g_free (garbage);
  g_free (missing);
}

GST_END_TEST;

/* An indices file that is not a file, or too big: a clear error at once,
 * not a read without end (/dev/zero took 22 GB in 50 s) or a hang on a
 * FIFO no one writes. Each made in the test's own folder. */
GST_START_TEST (test_file_not_regular_or_too_big)
{
  gchar *dir = g_dir_make_tmp ("stagegather-XXXXXX", NULL);
  gchar *zero = g_build_filename (dir, "zero", NULL);
  gchar *fifo = g_build_filename (dir, "fifo", NULL);
  gchar *big = g_build_filename (dir, "big.txt", NULL);
  gchar *props;
  gint64 start;
  int fd;

  fail_unless (dir != NULL);
  if (mknod (zero, S_IFCHR | 0600, makedev (1, 5)) != 0) {
    /* not root: the system's own, which the element only stats now */
    g_printerr ("mknod: %s: using /dev/zero\n", g_strerror (errno));
    g_free (zero);
    zero = g_strdup ("/dev/zero");
  }
  fail_unless (mkfifo (fifo, 0600) == 0);
  /* sparse: one byte past the limit, of NULs nobody reads */
  fd = g_open (big, O_WRONLY | O_CREAT, 0600);
  fail_unless (fd >= 0);
  fail_unless (ftruncate (fd, STAGE_SELECT_INDICES_DATA_MAX + 1) == 0);
  g_close (fd, NULL);

  start = g_get_monotonic_time ();
  {
    const gchar *n[] = { "'indices-file'", fifo, "a FIFO",
      "not a regular file", NULL
    };
    props = g_strdup_printf ("indices-file=\"%s\"", fifo);
    check_refused (props, 0, GST_RESOURCE_ERROR_OPEN_READ, n);
    g_free (props);
  }
  {
    const gchar *n[] = { "'indices-file'", zero, "a character device",
      "not a regular file", NULL
    };
    props = g_strdup_printf ("indices-file=\"%s\"", zero);
    check_refused (props, 0, GST_RESOURCE_ERROR_OPEN_READ, n);
    g_free (props);
  }
  {
    const gchar *n[] = { "'indices-file'", big, "too large", "64 MiB",
      NULL
    };
    props = g_strdup_printf ("indices-file=\"%s\"", big);
    check_refused (props, 0, GST_RESOURCE_ERROR_SETTINGS, n);
    g_free (props);
  }
  fail_unless (g_get_monotonic_time () - start < 5 * G_USEC_PER_SEC);

  rm_rf (dir);
  g_free (zero);
  g_free (fifo);
  g_free (big);
  g_free (dir);
}

GST_END_TEST;

/* A real pipeline: the source stops right after the last index. */
GST_START_TEST (test_real_pipeline)
{
  guint64 in, out;

  run_to_eos_counting ("videotestsrc num-buffers=500 ! "
      "video/x-raw,width=32,height=24 ! stagegather name=g "
      "indices=\"40,3,17\" ! fakesink sync=false", "g", &in, &out);
  fail_unless_equals_uint64 (out, 3);
  fail_unless_equals_uint64 (in, 41);
}

GST_END_TEST;

/* Dropped frames send GAP events (their PTS and duration), so a
 * selector in a tee branch does not hang the pipeline. */
GST_START_TEST (test_gap_events)
{
  fail_unless_equals_int (check_gaps ("stagegather indices=\"3,1,5\"", 10), 3);
}

GST_END_TEST;

GST_START_TEST (test_tee_branch)
{
  check_tee_branch ("", "stagegather indices=100");
}

GST_END_TEST;

/* indices-file with a NUL byte: refused as binary, naming the file and
 * the byte offset, instead of dropping every index after it. */
GST_START_TEST (test_file_binary)
{
  static const gchar bytes[] = "1\n2\n3\0" "4\n5\n";
  gchar *path = NULL, *m;
  gint fd = g_file_open_tmp ("stagegather-XXXXXX.txt", &path, NULL);

  fail_unless (fd >= 0);
  fail_unless (write (fd, bytes, sizeof (bytes) - 1) ==
      (gssize) sizeof (bytes) - 1);
  close (fd);
  m = refused_utf8 ("stagegather", "indices-file", path, NULL, NULL);
  fail_unless (strstr (m, path) != NULL, "%s", m);
  fail_unless (strstr (m, "NUL byte at byte offset 5") != NULL, "%s", m);
  g_free (m);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

/* Every refused value gives valid UTF-8 messages: inline tokens cut at a
 * multibyte character, raw file bytes, a file name that is not UTF-8, both
 * properties set. */
GST_START_TEST (test_messages_utf8)
{
  gchar *v, *m, *path = NULL, *bad_name;
  guint cut;
  gint fd;

  for (cut = 36; cut <= 41; cut++) {
    v = x_then (cut, "\xc3\xa9\xe2\x82\xac,5");
    g_free (refused_utf8 ("stagegather", "indices", v, NULL, NULL));
    g_free (v);
  }
  m = refused_utf8 ("stagegather", "indices", "1,\xff\xfe,3", NULL, NULL);
  fail_unless (strstr (m, "\\xFF\\xFE") != NULL, "%s", m);
  g_free (m);

  /* raw bytes in a file, a multibyte character across the cut */
  fd = g_file_open_tmp ("stagegather-XXXXXX.txt", &path, NULL);
  fail_unless (fd >= 0);
  v = x_then (39, "\xc3\xa9\n1\n");
  fail_unless (write (fd, "1\n2\n", 4) == 4);
  fail_unless (write (fd, v, strlen (v)) == (gssize) strlen (v));
  close (fd);
  g_free (refused_utf8 ("stagegather", "indices-file", path, NULL, NULL));
  g_free (v);
  fd = open (path, O_WRONLY | O_TRUNC);
  fail_unless (write (fd, "1\n\xff\x80\x01\n", 6) == 6);
  close (fd);
  m = refused_utf8 ("stagegather", "indices-file", path, NULL, NULL);
  fail_unless (strstr (m, "\\xFF\\x80\\x01") != NULL, "%s", m);
  g_free (m);
  g_unlink (path);
  g_free (path);

  /* a file name that is not UTF-8 (it does not exist) */
  bad_name = g_build_filename (g_get_tmp_dir (), "gather-\xff\xfe.txt", NULL);
  g_free (refused_utf8 ("stagegather", "indices-file", bad_name, NULL, NULL));
  /* both set */
  g_free (refused_utf8 ("stagegather", "indices", "1,\xff", "indices-file",
          bad_name));
  g_free (bad_name);
}

GST_END_TEST;

static Suite *
stagegather_suite (void)
{
  Suite *s = suite_create ("stagegather");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_gap_events);
  tcase_add_test (tc, test_file_binary);
  tcase_add_test (tc, test_messages_utf8);
  tcase_add_test (tc, test_tee_branch);
  tcase_add_test (tc, test_gather_hand);
  tcase_add_test (tc, test_gather_random);
  tcase_add_test (tc, test_indices_file);
  tcase_add_test (tc, test_file_not_regular_or_too_big);
  tcase_add_test (tc, test_caps_variable);
  tcase_add_test (tc, test_caps_fixed_rate_accepted);
  tcase_add_test (tc, test_seek);
  tcase_add_test (tc, test_bad_values);
  tcase_add_test (tc, test_real_pipeline);
  return s;
}

GST_CHECK_MAIN (stagegather);
