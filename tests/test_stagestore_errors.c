/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The store under stress and bad input: kill -9 during a write, two
 * writers at once with readers meanwhile, and every bad input
 * (unknown stream, missing or non-store directory, corrupt catalog,
 * truncated or corrupt chunk, index past the end, mode=error, unsupported
 * caps, a write failing midway). */
#include "stagestore-check.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "select.h"
#include "prop-check.h"
#include "lib/stagetest.h"

GST_START_TEST (test_kill9_mid_write)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *desc;
  GPid pid;
  GPtrArray *list, *orphans;
  StageStore *st;
  gint waited;

  desc = g_strdup_printf ("videotestsrc num-buffers=40 ! video/x-raw,"
      "width=%d,height=%d ! stagesink store=%s stream=old", W, H, store);
  run_sink (desc, NULL);
  g_free (desc);
  fail_unless_equals_int (count_data_dirs (store), 1);

  pid = spawn_writer (store, "half", 100000, TRUE);
  /* wait until it has written a few chunks */
  for (waited = 0; waited < 600; waited++) {
    gchar *p = g_build_filename (store, "data", NULL);
    GDir *d = g_dir_open (p, 0, NULL);
    const gchar *n;
    gint chunks = 0;

    while (d && (n = g_dir_read_name (d))) {
      if (g_str_has_prefix (n, "half.")) {
        gchar *c = g_build_filename (p, n, "chunk-000002.bin", NULL);

        chunks = g_file_test (c, G_FILE_TEST_EXISTS);
        g_free (c);
      }
    }
    if (d)
      g_dir_close (d);
    g_free (p);
    if (chunks)
      break;
    g_usleep (100 * 1000);
  }
  fail_unless (waited < 600, "the writer never wrote 3 chunks");
  kill (pid, SIGKILL);
  wait_child (pid);

  st = stage_store_open (store, FALSE, NULL);
  fail_unless (st != NULL);
  list = stage_store_list (st, NULL);
  fail_unless_equals_int (list->len, 1);
  fail_unless_equals_string (((StageStreamInfo *) list->pdata[0])->name,
      "old");
  fail_unless (stage_store_verify_stream (st, list->pdata[0], NULL));
  orphans = stage_store_orphans (st, NULL);
  fail_unless_equals_int (orphans->len, 1);
  g_ptr_array_unref (orphans);
  g_ptr_array_unref (list);
  stage_store_close (st);
  fail_unless_equals_int (count_frames (store, "old"), 40);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* Two writers into one store at once, and a reader meanwhile. */
GST_START_TEST (test_two_writers)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *desc;
  GPid a, b;
  StageStore *st;
  GPtrArray *list;
  guint i;

  desc = g_strdup_printf ("videotestsrc num-buffers=30 ! video/x-raw,"
      "width=%d,height=%d ! stagesink store=%s stream=base", W, H, store);
  run_sink (desc, NULL);
  g_free (desc);
  a = spawn_writer (store, "one", 150, FALSE);
  b = spawn_writer (store, "two", 150, FALSE);
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (count_frames (store, "base"), 30);
  fail_unless_equals_int (wait_child (a), 0);
  fail_unless_equals_int (wait_child (b), 0);
  st = stage_store_open (store, FALSE, NULL);
  list = stage_store_list (st, NULL);
  fail_unless_equals_int (list->len, 3);
  for (i = 0; i < list->len; i++)
    fail_unless (stage_store_verify_stream (st, list->pdata[i], NULL));
  g_ptr_array_unref (list);
  stage_store_close (st);
  fail_unless_equals_int (count_frames (store, "one"), 150);
  fail_unless_equals_int (count_frames (store, "two"), 150);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* Writers (processes: SQLite's locks are per process) that create one
 * new store at the same moment, as a batch of stagesink jobs into a fresh
 * store does, all get it: the catalog's setup failed with "database is
 * locked" for all but one. */
GST_START_TEST (test_writers_create_store)
{
  gchar *dir = make_tmp ();
  guint round, i, failed = 0;

  for (round = 0; round < 5; round++) {
    gchar *store = g_strdup_printf ("%s/store%u", dir, round);
    pid_t pid[6];
    int gate[2];

    fail_unless (pipe (gate) == 0);
    for (i = 0; i < G_N_ELEMENTS (pid); i++) {
      pid[i] = fork ();
      fail_unless (pid[i] >= 0);
      if (pid[i] == 0) {
        GError *err = NULL;
        StageStore *st;
        char c;

        close (gate[1]);
        /* all start at once: the parent closes the gate */
        if (read (gate[0], &c, 1) < 0)
          _exit (2);
        st = stage_store_open (store, TRUE, &err);

        if (err)
          g_printerr ("writer %u: %s\n", i, err->message);
        _exit (st ? 0 : 1);
      }
    }
    close (gate[0]);
    g_usleep (20000);
    close (gate[1]);
    for (i = 0; i < G_N_ELEMENTS (pid); i++) {
      int status = 0;

      fail_unless (waitpid (pid[i], &status, 0) == pid[i]);
      failed += !WIFEXITED (status) || WEXITSTATUS (status) != 0;
    }
    g_free (store);
  }
  fail_unless_equals_int (failed, 0);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* A selected frame that the decoder does not give (here a decoder bin
 * that drops every other frame) is an error naming it; with
 * on-missing=warn, a warning per hole, the frames that exist, and the
 * count in 'missing'. Never a silent gap. */
GST_START_TEST (test_missing_frames)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *desc;
  GstElement *pipe, *src;
  GstBus *bus;
  GstMessage *msg;
  guint warnings = 0;
  guint64 missing = 0, out = 0;
  GArray *got;

  desc = g_strdup_printf ("videotestsrc num-buffers=40 ! video/x-raw,"
      "width=%d,height=%d,framerate=30/1 ! x264enc speed-preset=ultrafast "
      "bframes=2 key-int-max=10 ! h264parse ! stagesink store=%s stream=clip",
      W, H, store);
  run_sink (desc, NULL);
  g_free (desc);

  desc = g_strdup_printf ("stagesrc store=%s stream=clip ranges=0:12 "
      "decoder=\"avdec_h264 ! stagestride stride=2\"", store);
  expect_error (desc, "Frame 1 of stream 'clip' could not be decoded: the "
      "decoder dropped it");
  g_free (desc);

  /* all of them: the decoder ends first */
  desc = g_strdup_printf ("stagesrc store=%s stream=clip indices=\"5,7,9\" "
      "decoder=\"avdec_h264 ! stagegather indices=0\"", store);
  expect_error (desc, "3 selected frames (5 to 9) of stream 'clip' could "
      "not be decoded: the decoder ended before giving it");
  g_free (desc);

  desc = g_strdup_printf ("stagesrc name=src store=%s stream=clip "
      "ranges=0:12 on-missing=warn decoder=\"avdec_h264 ! stagestride "
      "stride=2\" ! fakesink", store);
  pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GstMessageType t = GST_MESSAGE_TYPE (msg);

    fail_if (t == GST_MESSAGE_ERROR, "error with on-missing=warn");
    gst_message_unref (msg);
    if (t == GST_MESSAGE_EOS)
      break;
    warnings++;
  }
  g_object_get (src, "missing", &missing, "out", &out, NULL);
  fail_unless_equals_int (warnings, 6);
  fail_unless_equals_uint64 (missing, 6);
  fail_unless_equals_uint64 (out, 6);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipe);
  g_free (desc);

  /* the control: the same read with the plain decoder misses nothing */
  desc = g_strdup_printf ("stagesrc store=%s stream=clip ranges=0:12", store);
  got = run (desc, NULL);
  fail_unless_equals_int (got->len, 12);
  g_array_unref (got);
  g_free (desc);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* A store with one stream, 'clip-one', of 40 frames in chunks of 10
 * packets, in a new temporary folder (*dir). */
static gchar *
clip_one_store (gchar ** dir)
{
  gchar *store, *desc;

  *dir = make_tmp ();
  store = g_build_filename (*dir, "store", NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=40 ! video/x-raw,"
      "width=%d,height=%d ! stagesink store=%s stream=clip-one "
      "io-packet-size=10", W, H, store);
  run_sink (desc, NULL);
  g_free (desc);
  return store;
}

/* Runs @desc to its error; waits @settle_ms before stopping it, as a
 * slow application would, which lets an EOS sent after the error reach
 * the sink (upstream elements send one after a fatal flow return). */
static void
run_to_error (const gchar * desc, guint settle_ms)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);

  fail_unless (pipe != NULL, "%s", desc);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  gst_message_unref (stage_test_expect_error (pipe, 120 * GST_SECOND, desc));
  g_usleep (settle_ms * 1000);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

static gboolean
store_has (const gchar * store, const gchar * stream)
{
  StageStore *st = stage_store_open (store, FALSE, NULL);
  gboolean exists = FALSE;

  fail_unless (st != NULL, "no store %s", store);
  fail_unless (stage_store_has_stream (st, stream, &exists, NULL));
  stage_store_close (st);
  return exists;
}

/* An error upstream (identity error-after) is followed by an EOS from the
 * demuxer: no run may commit the 49 frames before it, whether the
 * application stops at once or a while later; a retry with mode=error
 * then writes the stream. */
GST_START_TEST (test_error_upstream_not_committed)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *clip = make_clip (dir, "clip.mp4", 90, "x264enc bframes=0");
  gchar *desc;
  guint i;

  desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse ! "
      "identity error-after=50 ! stagesink store=%s stream=e", clip, store);
  for (i = 0; i < 20; i++) {
    run_to_error (desc, i % 2 ? 100 : 0);
    fail_if (store_has (store, "e"), "run %u committed a partial stream", i);
    fail_unless_equals_int (count_data_dirs (store), 0);
  }
  g_free (desc);
  desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse ! "
      "stagesink store=%s stream=e mode=error", clip, store);
  fail_unless (run_sink (desc, NULL));
  fail_unless_equals_int (count_frames (store, "e"), 90);
  g_free (desc);
  g_free (clip);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* A write that fails midway (a full disk: the file size limit with
 * SIGXFSZ ignored, as `ulimit -f` does) commits nothing, even with the
 * EOS the source sends after the error, and leaves nothing that a retry
 * with mode=error counts as existing. */
GST_START_TEST (test_write_failure_not_committed)
{
  gchar *dir, *store = clip_one_store (&dir);
  gchar *desc, *cmd, *out = NULL, *errout = NULL;
  gchar *argv[] = { (gchar *) "sh", (gchar *) "-c", NULL, NULL };
  GError *err = NULL;
  gint status = 0, i;

  /* 600 blobs of 1000 bytes (stdio buffers them) in one chunk, 501
   * blocks of 512 bytes allowed: a flush stops partway, stdio drops the
   * rest of its buffer and the next flush "succeeds" */
  desc = g_strdup_printf ("fakesrc num-buffers=600 sizetype=fixed "
      "sizemax=1000 filltype=pattern-span ! application/x-blob ! stagesink "
      "store=%s stream=big io-packet-size=1000", store);
  cmd = g_strdup_printf ("trap '' XFSZ; ulimit -f 501; exec gst-launch-1.0 "
      "%s", desc);
  argv[2] = cmd;
  for (i = 0; i < 5; i++) {
    fail_unless (g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
            NULL, &out, &errout, &status, &err), "%s",
        err ? err->message : "");
    fail_if (g_spawn_check_wait_status (status, NULL),
        "the write under a 256 KiB file limit succeeded:\n%s%s", out, errout);
    assert_contains (errout, "writing chunk");
    g_free (out);
    g_free (errout);
    fail_if (store_has (store, "big"), "run %d committed a partial stream",
        i);
    fail_unless_equals_int (count_data_dirs (store), 1);
  }
  fail_unless (run_sink (desc, NULL));
  fail_unless_equals_int (count_frames (store, "big"), 600);
  g_free (cmd);
  g_free (desc);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* An unknown stream (with the nearest names), a missing folder, a folder
 * that is not a store: each named. */
GST_START_TEST (test_unknown_store_or_stream)
{
  gchar *dir, *store = clip_one_store (&dir);
  gchar *desc, *err;

  /* unknown stream: named, with the nearest names */
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-on", store);
  err = run_error (desc);
  assert_contains (err, "clip-on");
  assert_contains (err, "nearest names: 'clip-one'");
  g_free (err);
  g_free (desc);

  /* missing directory, and a directory that is not a store */
  desc = g_strdup_printf ("stagesrc store=%s/nope stream=x", dir);
  err = run_error (desc);
  assert_contains (err, "does not exist");
  g_free (err);
  g_free (desc);
  desc = g_strdup_printf ("stagesrc store=%s stream=x", dir);
  err = run_error (desc);
  assert_contains (err, "is not a store");
  g_free (err);
  g_free (desc);

  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* Frames past the end are refused at start, naming the first and the
 * count, for each kind of selection; the last frame is fine. */
GST_START_TEST (test_frames_past_end)
{
  gchar *dir, *store = clip_one_store (&dir);
  gchar *desc;
  GArray *got;

  /* frames past the end: refused at start, naming the first and the
   * count (the catalog knows it), for each kind of selection */
  {
    const gchar *cases[][2] = {
      {"indices=\"39,40,1000\"", "Frame 40 is past the end of stream "
            "'clip-one': it has 40 frames (indices 0 to 39)"},
      {"ranges=\"0:10,30:45\"", "Frame 40 is past the end"},
      {"stride=3 offset=41", "Frame 41 is past the end"},
      {"decode=false indices=40", "Frame 40 is past the end"},
    };
    guint c;

    for (c = 0; c < G_N_ELEMENTS (cases); c++) {
      desc = g_strdup_printf ("stagesrc store=%s stream=clip-one %s", store,
          cases[c][0]);
      expect_error (desc, cases[c][1]);
      g_free (desc);
    }
  }
  /* the last frame and a stride that runs off the end are fine */
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one "
      "ranges=\"35:40\" stride=2", store);
  got = run (desc, NULL);
  fail_unless_equals_int (got->len, 3);
  g_array_unref (got);
  g_free (desc);

  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* Invalid selections: the selectors' messages. */
GST_START_TEST (test_invalid_selections)
{
  gchar *dir, *store = clip_one_store (&dir);
  gchar *desc, *err, *bad;

  /* invalid selections: the selectors' messages */
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one indices=abc",
      store);
  err = run_error (desc);
  assert_contains (err, "Invalid value 'abc' for property 'indices'");
  g_free (err);
  g_free (desc);
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one ranges=5:3",
      store);
  err = run_error (desc);
  assert_contains (err, "Invalid value '5:3' for property 'ranges'");
  g_free (err);
  g_free (desc);
  /* an indices file is text: a NUL byte is refused, naming where, rather
   * than ending the list early (stagegather's rule) */
  bad = g_build_filename (dir, "nul.txt", NULL);
  fail_unless (g_file_set_contents (bad, "1,2\0" "3", 5, NULL));
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one "
      "indices-file=%s", store, bad);
  err = run_error (desc);
  assert_contains (err, "Invalid property 'indices-file'");
  assert_contains (err, "NUL byte at byte offset 3");
  g_free (err);
  g_free (desc);
  g_unlink (bad);
  g_free (bad);
  /* only regular files are read, at most 64 MiB: /dev/zero grew stagesrc
   * to 22 GB, a FIFO with no writer hung it */
  bad = g_build_filename (dir, "zero", NULL);
  if (mknod (bad, S_IFCHR | 0600, makedev (1, 5)) != 0) {
    g_free (bad);
    bad = g_strdup ("/dev/zero");     /* not root: only stat'd now */
  }
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one "
      "indices-file=%s", store, bad);
  err = run_error (desc);
  assert_contains (err, "a character device, not a regular file");
  g_free (err);
  g_free (desc);
  if (g_str_has_prefix (bad, dir))
    g_unlink (bad);
  g_free (bad);
  bad = g_build_filename (dir, "fifo", NULL);
  fail_unless (mkfifo (bad, 0600) == 0);
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one "
      "indices-file=%s", store, bad);
  err = run_error (desc);
  assert_contains (err, "a FIFO, not a regular file");
  g_free (err);
  g_free (desc);
  g_unlink (bad);
  g_free (bad);
  bad = g_build_filename (dir, "big.txt", NULL);
  fail_unless (g_file_set_contents (bad, "", 0, NULL));
  fail_unless (truncate (bad, STAGE_SELECT_INDICES_DATA_MAX + 1) == 0);
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one "
      "indices-file=%s", store, bad);
  err = run_error (desc);
  assert_contains (err, "too large: 67108865 bytes");
  g_free (err);
  g_free (desc);
  g_unlink (bad);
  g_free (bad);
  /* numbers out of range: an error at start naming the property, not a
   * GObject warning and every frame */
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one stride=0 ! "
      "fakesink", store);
  expect_prop_refused (desc, "stride", "0", "allowed are 1 to 2147483647");
  g_free (desc);
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one "
      "offset=18446744073709551615 ! fakesink", store);
  expect_prop_refused (desc, "offset", "18446744073709551615",
      "allowed are 0 to 18446744073709551614");
  g_free (desc);
  desc = g_strdup_printf ("videotestsrc num-buffers=3 ! stagesink store=%s "
      "stream=zero io-packet-size=0", store);
  expect_prop_refused (desc, "io-packet-size", "0",
      "allowed are 1 to 2147483647");
  g_free (desc);
  fail_unless_equals_int (count_data_dirs (store), 1);
  /* a long invalid value is quoted shortened, as the selectors do */
  {
    gchar *lng = g_strnfill (300, '7');

    desc = g_strdup_printf ("stagesrc store=%s stream=clip-one "
        "indices=\"x%s\"", store, lng);
    err = run_error (desc);
    assert_contains (err, "for property 'indices'");
    fail_if (strstr (err, lng) != NULL, "the whole value was quoted: %s",
        err);
    g_free (err);
    g_free (desc);
    g_free (lng);
  }

  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* mode=error, ignore on a stream that exists. */
GST_START_TEST (test_existing_stream_modes)
{
  gchar *dir, *store = clip_one_store (&dir);
  gchar *desc, *err;

  /* mode=error on an existing stream: refused before writing */
  desc = g_strdup_printf ("videotestsrc num-buffers=5 ! stagesink store=%s "
      "stream=clip-one", store);
  err = NULL;
  fail_if (run_sink (desc, &err));
  assert_contains (err, "already has a stream 'clip-one'");
  fail_unless_equals_int (count_data_dirs (store), 1);
  g_free (err);
  g_free (desc);
  /* mode=ignore keeps it, overwrite replaces it */
  desc = g_strdup_printf ("videotestsrc num-buffers=5 ! stagesink store=%s "
      "stream=clip-one mode=ignore", store);
  fail_unless (run_sink (desc, NULL));
  fail_unless_equals_int (count_frames (store, "clip-one"), 40);
  fail_unless_equals_int (count_data_dirs (store), 1);
  g_free (desc);

  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* A stream with no data at all. */
GST_START_TEST (test_empty_stream)
{
  gchar *dir, *store = clip_one_store (&dir);
  gchar *desc;

  /* a stream with no data at all is committed empty (no hang) */
  desc = g_strdup_printf ("fakesrc num-buffers=0 ! stagesink store=%s "
      "stream=empty", store);
  fail_unless (run_sink (desc, NULL));
  fail_unless_equals_int (count_frames (store, "empty"), 0);
  g_free (desc);

  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* Caps stagesink cannot store. */
GST_START_TEST (test_unsupported_caps)
{
  gchar *dir, *store = clip_one_store (&dir);

  /* unsupported caps: not-negotiated, naming what is supported */
  {
    GstElement *pipe = gst_pipeline_new (NULL);
    GstElement *sink = gst_element_factory_make ("stagesink", NULL);
    GstPad *src = gst_pad_new ("src", GST_PAD_SRC), *sinkpad;
    GstBus *bus = gst_element_get_bus (pipe);
    GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:NVMM),"
        "format=I420,width=64,height=48,framerate=30/1");
    GstMessage *msg;
    GError *gerr = NULL;
    GstSegment seg;

    g_object_set (sink, "store", store, "stream", "gpu", NULL);
    gst_bin_add (GST_BIN (pipe), sink);
    sinkpad = gst_element_get_static_pad (sink, "sink");
    gst_pad_set_active (src, TRUE);
    fail_unless (gst_pad_link (src, sinkpad) == GST_PAD_LINK_OK);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    gst_pad_push_event (src, gst_event_new_stream_start ("s"));
    gst_pad_push_event (src, gst_event_new_caps (gst_caps_ref (caps)));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_pad_push_event (src, gst_event_new_segment (&seg));
    fail_unless_equals_int (gst_pad_push (src, gst_buffer_new ()),
        GST_FLOW_NOT_NEGOTIATED);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL);
    gst_message_parse_error (msg, &gerr, NULL);
    fail_unless (g_error_matches (gerr, GST_CORE_ERROR,
            GST_CORE_ERROR_NEGOTIATION));
    assert_contains (gerr->message, "supported are video/x-h264");
    g_error_free (gerr);
    gst_message_unref (msg);
    gst_caps_unref (caps);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (sinkpad);
    gst_object_unref (src);
    gst_object_unref (bus);
    gst_object_unref (pipe);
  }

  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* A truncated or corrupt chunk: named on read; a copy from it leaves
 * nothing; frames of other chunks still read. */
GST_START_TEST (test_corrupt_chunks)
{
  gchar *dir, *store = clip_one_store (&dir);
  gchar *desc, *err, *chunk;
  StageStore *st;
  StageStreamInfo *info;
  GArray *got;
  FILE *f;

  /* a truncated chunk, then a corrupt one: store, stream and chunk named */
  st = stage_store_open (store, FALSE, NULL);
  info = stage_store_lookup (st, "clip-one", NULL);
  chunk = stage_store_chunk_path (st, info, 2);
  stage_store_close (st);
  f = fopen (chunk, "r+b");
  fseek (f, 100, SEEK_SET);
  fputc (0x5a, f);
  fputc (0xa5, f);
  fclose (f);
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one indices=25",
      store);
  err = run_error (desc);
  assert_contains (err, "clip-one");
  assert_contains (err, store);
  assert_contains (err, "chunk-000002.bin");
  assert_contains (err, "checksum");
  g_free (err);
  fail_unless (truncate (chunk, 50) == 0);
  err = run_error (desc);
  assert_contains (err, "chunk-000002.bin");
  assert_contains (err, "truncated");
  g_free (err);
  /* a write that fails midway (its source errors) leaves nothing: no
   * stream, no data */
  g_free (desc);
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one ! stagesink "
      "store=%s stream=copy", store, store);
  err = NULL;
  fail_if (run_sink (desc, &err));
  assert_contains (err, "chunk-000002.bin");
  g_free (err);
  fail_unless_equals_int (count_data_dirs (store), 1);   /* clip-one's */
  /* ... even when the application lets the pipeline run on after the
   * error: stagesrc sends no EOS after it, so nothing commits a copy */
  {
    GstElement *pipe = gst_parse_launch (desc, NULL);
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *msg;
    gboolean exists = TRUE;

    gst_element_set_state (pipe, GST_STATE_PLAYING);
    gst_message_unref (stage_test_expect_error (pipe, 20 * GST_SECOND,
            desc));
    msg = gst_bus_timed_pop_filtered (bus, GST_SECOND / 2, GST_MESSAGE_EOS);
    fail_if (msg != NULL, "EOS after the read error");
    st = stage_store_open (store, FALSE, NULL);
    fail_unless (stage_store_has_stream (st, "copy", &exists, NULL));
    fail_if (exists, "a truncated copy was committed");
    stage_store_close (st);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (pipe);
  }
  /* frames in other chunks still read */
  g_free (desc);
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one indices=5,35",
      store);
  got = run (desc, NULL);
  fail_unless_equals_int (got->len, 2);
  g_array_unref (got);
  g_free (desc);
  stage_stream_info_free (info);
  g_free (chunk);

  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* A catalog that is not a database, for reading and writing. */
GST_START_TEST (test_corrupt_catalog)
{
  gchar *dir, *store = clip_one_store (&dir);
  gchar *desc, *err, *notstore, *bad;

  /* a corrupt catalog */
  bad = g_build_filename (dir, "bad", NULL);
  g_mkdir (bad, 0777);
  notstore = g_build_filename (bad, "catalog.db", NULL);
  g_file_set_contents (notstore, "this is not a database, it is a file that "
      "is long enough to look like a header of something", -1, NULL);
  desc = g_strdup_printf ("stagesrc store=%s stream=x", bad);
  err = run_error (desc);
  assert_contains (err, "catalog");
  assert_contains (err, bad);
  g_free (err);
  g_free (desc);
  desc = g_strdup_printf ("videotestsrc num-buffers=5 ! stagesink store=%s "
      "stream=x", bad);
  err = NULL;
  fail_if (run_sink (desc, &err));
  assert_contains (err, "catalog");
  g_free (err);
  g_free (desc);
  g_free (notstore);
  g_free (bad);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* Issue 30: what the catalog says is never taken on trust. The reader
 * refuses an index whose packets lie outside the bytes it read (a size of
 * -5 made the CRC read past its buffer); names with DEL, C1 or a NUL
 * inside are refused; removing an orphan that is a link removes the link,
 * not what it points to. */
GST_START_TEST (test_catalog_values)
{
  gchar *dir, *store = clip_one_store (&dir);
  gchar *outside, *keep, *link;
  GError *err = NULL;
  StageStore *st;
  StageStreamInfo *info;
  StageStoreReader *r;
  StageFrame *frames, *bad;
  GPtrArray *orphans;
  gboolean removed = FALSE;
  GBytes *b;
  gsize n;

  st = stage_store_open (store, FALSE, NULL);
  fail_unless (st != NULL);
  info = stage_store_lookup (st, "clip-one", NULL);
  frames = stage_store_load_frames (st, info, &n, NULL);
  fail_unless (frames != NULL && n == 40);
  r = stage_store_reader_new (st, info);
  bad = g_memdup2 (frames, n * sizeof (StageFrame));
  bad[1].size = -5;
  b = stage_store_reader_read (r, bad, 0, 2, &err);
  fail_unless (b == NULL && err != NULL);
  assert_contains (err->message, "packet 1");
  g_clear_error (&err);
  bad[1].size = frames[1].size + 100000;
  b = stage_store_reader_read (r, bad, 0, 2, &err);
  fail_unless (b == NULL && err != NULL);
  g_clear_error (&err);
  bad[1].size = frames[1].size;
  bad[2].offset = G_MAXINT64 - 2;
  b = stage_store_reader_read (r, bad, 0, 2, &err);
  fail_unless (b == NULL && err != NULL);
  g_clear_error (&err);
  b = stage_store_reader_read (r, frames, 0, 2, NULL);
  fail_unless (b != NULL);
  g_bytes_unref (b);
  stage_store_reader_free (r);
  g_free (bad);
  g_free (frames);
  stage_stream_info_free (info);

  fail_if (stage_store_check_name_len ("a\0b", 3, &err));
  assert_contains (err->message, "NUL");
  g_clear_error (&err);
  fail_if (stage_store_check_name ("a\x7f", NULL));
  fail_if (stage_store_check_name ("a\xc2\x85", NULL));
  fail_unless (stage_store_check_name ("caf\xc3\xa9 -x", NULL));
  fail_unless (stage_store_check_name_len ("ab", 2, NULL));

  outside = g_build_filename (dir, "outside", NULL);
  g_mkdir (outside, 0777);
  keep = g_build_filename (outside, "keep", NULL);
  g_file_set_contents (keep, "keep", -1, NULL);
  link = g_build_filename (store, "data", "evil", NULL);
  fail_unless (symlink (outside, link) == 0);
  orphans = stage_store_orphans (st, NULL);
  fail_unless_equals_int (orphans->len, 1);
  fail_unless (stage_store_remove_orphan (st, orphans->pdata[0], &removed,
          NULL));
  fail_unless (removed);
  fail_unless (g_file_test (keep, G_FILE_TEST_EXISTS));
  fail_if (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  fail_if (stage_store_remove_orphan (st, "data/.", &removed, NULL));
  fail_if (stage_store_remove_orphan (st, "data/..", &removed, NULL));
  g_ptr_array_unref (orphans);
  stage_store_close (st);
  g_free (outside);
  g_free (keep);
  g_free (link);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;


/* H.265 from x265: B-frames and open GOPs (CRA pictures with RASL leading
 * pictures) by default. */
static Suite *
stagestore_errors_suite (void)
{
  Suite *s = suite_create ("stagestore_errors");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  tcase_add_unchecked_fixture (tc, tmp_base_setup, tmp_base_teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_kill9_mid_write);
  tcase_add_test (tc, test_two_writers);
  tcase_add_test (tc, test_writers_create_store);
  tcase_add_test (tc, test_unknown_store_or_stream);
  tcase_add_test (tc, test_frames_past_end);
  tcase_add_test (tc, test_invalid_selections);
  tcase_add_test (tc, test_existing_stream_modes);
  tcase_add_test (tc, test_empty_stream);
  tcase_add_test (tc, test_unsupported_caps);
  tcase_add_test (tc, test_corrupt_chunks);
  tcase_add_test (tc, test_corrupt_catalog);
  tcase_add_test (tc, test_catalog_values);
  tcase_add_test (tc, test_missing_frames);
  tcase_add_test (tc, test_error_upstream_not_committed);
  tcase_add_test (tc, test_write_failure_not_committed);
  return s;
}

GST_CHECK_MAIN (stagestore_errors);
