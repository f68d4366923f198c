/* stagesink, stagesrc and the store: exact sparse decoding against a full
 * decode, round trips (encoded, raw, bytes), kill -9 during a write, two
 * writers at once, and every bad input of issue 10. Clips are made here
 * (x264enc with and without B-frames, open GOP, openh264enc) in a temp
 * directory that each test removes. */
#include <gst/check/gstcheck.h>
#include <gst/base/gstbasesink.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stagestore.h"

#define W 160
#define H 120

typedef struct
{
  guint64 offset;
  GstClockTime pts;
  gchar *md5;
  GBytes *data;
} Frame;

static void
frame_clear (Frame * f)
{
  g_free (f->md5);
  if (f->data)
    g_bytes_unref (f->data);
}

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, GArray * out)
{
  GstMapInfo map;
  Frame f;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  f.offset = GST_BUFFER_OFFSET (buf);
  /* stream time, as the store keeps it (an MP4 edit list, say, moves
   * buffer times but not stream times) */
  f.pts = gst_segment_to_stream_time (&GST_BASE_SINK (sink)->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
  f.md5 = g_compute_checksum_for_data (G_CHECKSUM_MD5, map.data, map.size);
  f.data = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (buf, &map);
  g_array_append_val (out, f);
}

/* Runs "@desc ! fakesink" to EOS. Returns the buffers, or NULL with the
 * error text in *error (may be NULL). */
static GArray *
run (const gchar * desc, gchar ** error)
{
  gchar *full = g_strdup_printf ("%s ! fakesink name=out sync=false "
      "signal-handoffs=true", desc);
  GError *perr = NULL;
  GstElement *pipe = gst_parse_launch (full, &perr);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Frame));

  g_array_set_clear_func (out, (GDestroyNotify) frame_clear);
  fail_unless (pipe != NULL, "%s: %s", full, perr ? perr->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), out);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "timeout: %s", full);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err;

    gst_message_parse_error (msg, &err, NULL);
    if (error)
      *error = g_strdup (err->message);
    else
      fail ("%s: %s", full, err->message);
    g_error_free (err);
    g_array_unref (out);
    out = NULL;
  } else if (error) {
    *error = NULL;
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (full);
  return out;
}

/* Runs a pipeline that ends in a sink to EOS; FALSE and *error on error. */
static gboolean
run_sink (const gchar * desc, gchar ** error)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstBus *bus;
  GstMessage *msg;
  gboolean ok;

  fail_unless (pipe != NULL, "%s", desc);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "timeout: %s", desc);
  ok = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (!ok) {
    GError *err;

    gst_message_parse_error (msg, &err, NULL);
    if (error)
      *error = g_strdup (err->message);
    else
      fail ("%s: %s", desc, err->message);
    g_error_free (err);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return ok;
}

static gchar *
make_tmp (void)
{
  gchar *d = g_dir_make_tmp ("stagestore-XXXXXX", NULL);

  fail_unless (d != NULL);
  return d;
}

static void
rm_rf (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const gchar *n;

  while (d && (n = g_dir_read_name (d))) {
    gchar *p = g_build_filename (path, n, NULL);

    if (g_file_test (p, G_FILE_TEST_IS_DIR))
      rm_rf (p);
    else
      g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (path);
}

/* An MP4 clip of @n frames; @enc is the encoder description. */
static gchar *
make_clip_codec (const gchar * dir, const gchar * name, guint n,
    const gchar * enc, const gchar * codec)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
      "motion=sweep ! video/x-raw,format=I420,width=%d,height=%d,"
      "framerate=30/1 ! %s ! %sparse ! mp4mux ! filesink location=%s", n,
      W, H, enc, codec, path);

  run_sink (desc, NULL);
  g_free (desc);
  return path;
}

static gchar *
make_clip (const gchar * dir, const gchar * name, guint n, const gchar * enc)
{
  return make_clip_codec (dir, name, n, enc, "h264");
}

static void
ingest_codec (const gchar * store, const gchar * stream, const gchar * clip,
    const gchar * codec)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! %sparse "
      "! stagesink store=%s stream=%s io-packet-size=30", clip, codec, store,
      stream);

  run_sink (desc, NULL);
  g_free (desc);
}

static void
ingest (const gchar * store, const gchar * stream, const gchar * clip)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse "
      "! stagesink store=%s stream=%s io-packet-size=30", clip, store, stream);

  run_sink (desc, NULL);
  g_free (desc);
}

static GArray *
full_decode_codec (const gchar * clip, const gchar * codec)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! %sparse "
      "! avdec_%s", clip, codec, codec);
  GArray *a = run (desc, NULL);

  g_free (desc);
  return a;
}

/* stagesrc with @sel (properties) against the full decode @ref and the
 * index list @want (sorted, unique, < ref->len). */
static void
check_exact (const gchar * store, const gchar * stream, GArray * ref,
    const gchar * sel, const guint64 * want, guint n_want)
{
  gchar *desc = g_strdup_printf ("stagesrc store=%s stream=%s %s", store,
      stream, sel);
  GArray *got = run (desc, NULL);
  guint i;

  fail_unless_equals_int (got->len, n_want);
  for (i = 0; i < got->len; i++) {
    Frame *g = &g_array_index (got, Frame, i);
    Frame *r = &g_array_index (ref, Frame, want[i]);

    fail_unless_equals_uint64 (g->offset, want[i]);
    fail_unless (g->pts == r->pts, "%s: frame %" G_GUINT64_FORMAT " pts %"
        GST_TIME_FORMAT " != %" GST_TIME_FORMAT, sel, want[i],
        GST_TIME_ARGS (g->pts), GST_TIME_ARGS (r->pts));
    fail_unless (g_str_equal (g->md5, r->md5), "%s: frame %" G_GUINT64_FORMAT
        " differs from the full decode", sel, want[i]);
  }
  g_array_unref (got);
  g_free (desc);
}

static int
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* indices="..." from a list (any order); checks the sorted unique set. */
static void
check_list (const gchar * store, const gchar * stream, GArray * ref,
    const guint64 * idx, guint n)
{
  GString *s = g_string_new ("indices=\"");
  guint64 *want = g_new (guint64, n);
  guint i, k = 0;

  for (i = 0; i < n; i++) {
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? "," : "", idx[i]);
    if (idx[i] < ref->len)
      want[k++] = idx[i];
  }
  g_string_append_c (s, '"');
  qsort (want, k, sizeof (guint64), cmp_u64);
  for (i = 1; i < k;) {
    if (want[i] == want[i - 1]) {
      memmove (want + i, want + i + 1, (k - i - 1) * sizeof (guint64));
      k--;
    } else {
      i++;
    }
  }
  check_exact (store, stream, ref, s->str, want, k);
  g_string_free (s, TRUE);
  g_free (want);
}

/* The patterns of the issue: sorted, single, first/last, dense, every GOP
 * boundary (and the frames around it), random (unsorted), past the end,
 * and the stride and ranges forms. */
static void
check_patterns (const gchar * store, const gchar * stream, GArray * ref,
    guint gop)
{
  guint n = ref->len, i, k;
  guint64 idx[400], want[400];
  GRand *rand = g_rand_new_with_seed (gop * 7 + n);

  idx[0] = n / 2;
  check_list (store, stream, ref, idx, 1);
  idx[0] = 0;
  check_list (store, stream, ref, idx, 1);
  idx[0] = n - 1;
  check_list (store, stream, ref, idx, 1);
  idx[0] = 0;
  idx[1] = n - 1;
  check_list (store, stream, ref, idx, 2);
  for (k = 0, i = 0; i < n; i += gop) {
    idx[k++] = i;
    if (i > 0)
      idx[k++] = i - 1;
    if (i + 1 < n)
      idx[k++] = i + 1;
  }
  check_list (store, stream, ref, idx, k);
  for (k = 0; k < 25; k++)      /* random, unsorted, maybe repeated */
    idx[k] = g_rand_int_range (rand, 0, n);
  check_list (store, stream, ref, idx, k);
  for (k = 0; k < 3; k++)
    idx[k] = g_rand_int_range (rand, 0, n);
  idx[k++] = n + 5;             /* past the end: the stream just ends */
  check_list (store, stream, ref, idx, k);
  for (k = 0, i = 3; i < n; i += 7)
    want[k++] = i;
  check_exact (store, stream, ref, "stride=7 offset=3", want, k);
  for (k = 0, i = 10; i < 20; i++)
    want[k++] = i;
  for (i = 100; i < MIN (140, n); i++)
    want[k++] = i;
  check_exact (store, stream, ref, "ranges=\"10:20,100:140\"", want, k);
  for (k = 0, i = 100; i < MIN (140, n); i += 3)
    want[k++] = i;
  check_exact (store, stream, ref, "ranges=\"100:140\" stride=3", want, k);
  for (k = 0; k < n; k++)
    want[k] = k;
  check_exact (store, stream, ref, "", want, n);
  g_rand_free (rand);
}

static void
exact_case_codec (const gchar * enc, guint n, guint gop, const gchar * codec)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *clip = make_clip_codec (dir, "clip.mp4", n, enc, codec);
  GArray *ref;

  ingest_codec (store, "clip", clip, codec);
  ref = full_decode_codec (clip, codec);
  fail_unless_equals_int (ref->len, n);
  check_patterns (store, "clip", ref, gop);
  g_array_unref (ref);
  g_free (clip);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

static void
exact_case (const gchar * enc, guint n, guint gop)
{
  exact_case_codec (enc, n, gop, "h264");
}

GST_START_TEST (test_exact_bframes_gop30)
{
  exact_case ("x264enc speed-preset=ultrafast bframes=2 key-int-max=30 "
      "b-adapt=false", 240, 30);
}

GST_END_TEST;

GST_START_TEST (test_exact_bframes_gop250)
{
  exact_case ("x264enc speed-preset=ultrafast bframes=2 key-int-max=250 "
      "b-adapt=false", 300, 250);
}

GST_END_TEST;

GST_START_TEST (test_exact_open_gop)
{
  exact_case ("x264enc speed-preset=ultrafast bframes=2 key-int-max=30 "
      "b-adapt=false option-string=open-gop=1", 240, 30);
}

GST_END_TEST;

GST_START_TEST (test_exact_no_bframes)
{
  exact_case ("openh264enc gop-size=30", 150, 30);
}

GST_END_TEST;


/* Encoded round trip: decode=false gives back the ingested packets, with
 * their timestamps, in decode order. */
GST_START_TEST (test_roundtrip_packets)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *clip = make_clip (dir, "clip.mp4", 90, "x264enc speed-preset="
      "ultrafast bframes=2 key-int-max=30");
  gchar *desc;
  GArray *ref, *got;
  guint i;

  ingest (store, "clip", clip);
  desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse ! "
      "video/x-h264,stream-format=avc,alignment=au", clip);
  ref = run (desc, NULL);
  g_free (desc);
  desc = g_strdup_printf ("stagesrc store=%s stream=clip decode=false",
      store);
  got = run (desc, NULL);
  fail_unless_equals_int (got->len, ref->len);
  for (i = 0; i < got->len; i++) {
    Frame *g = &g_array_index (got, Frame, i), *r = &g_array_index (ref,
        Frame, i);

    fail_unless (g_str_equal (g->md5, r->md5), "packet %u differs", i);
    fail_unless_equals_uint64 (g->pts, r->pts);
  }
  g_array_unref (got);
  g_free (desc);
  /* a selection gives only those frames' packets */
  desc = g_strdup_printf ("stagesrc store=%s stream=clip decode=false "
      "indices=0,45", store);
  got = run (desc, NULL);
  fail_unless_equals_int (got->len, 2);
  fail_unless_equals_uint64 (g_array_index (got, Frame, 0).offset, 0);
  fail_unless_equals_uint64 (g_array_index (got, Frame, 1).offset, 45);
  g_array_unref (got);
  g_array_unref (ref);
  g_free (desc);
  g_free (clip);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

static gdouble
mean_abs_diff (GBytes * a, GBytes * b, gsize n)
{
  const guint8 *x = g_bytes_get_data (a, NULL), *y = g_bytes_get_data (b,
      NULL);
  guint64 sum = 0;
  gsize i;

  for (i = 0; i < n; i++)
    sum += ABS ((gint) x[i] - (gint) y[i]);
  return (gdouble) sum / n;
}

/* Raw round trip: encoded with a keyframe at every chunk start (chunks of
 * io-packet-size), decoded back close to the input, same timestamps. */
GST_START_TEST (test_roundtrip_raw)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *desc;
  GArray *ref, *got;
  StageStore *st;
  StageStreamInfo *info;
  StageFrame *frames;
  gsize n, i;

  desc = g_strdup_printf ("videotestsrc num-buffers=75 pattern=ball ! "
      "video/x-raw,format=I420,width=%d,height=%d,framerate=25/1 ! "
      "stagesink store=%s stream=raw io-packet-size=20", W, H, store);
  run_sink (desc, NULL);
  g_free (desc);
  st = stage_store_open (store, FALSE, NULL);
  info = stage_store_lookup (st, "raw", NULL);
  fail_unless (info != NULL);
  fail_unless_equals_int (info->frames, 75);
  fail_unless_equals_int (info->chunks, 4);
  fail_unless_equals_string (info->codec, "h264");
  frames = stage_store_load_frames (st, info, &n, NULL);
  for (i = 0; i < n; i++) {
    fail_unless_equals_int (frames[i].index, i);        /* no B-frames */
    fail_unless_equals_int (frames[i].chunk, i / 20);
    if (i % 20 == 0)
      fail_unless (frames[i].keyframe, "no keyframe at chunk start %u",
          (guint) i);
  }
  g_free (frames);
  stage_stream_info_free (info);
  stage_store_close (st);

  desc = g_strdup_printf ("videotestsrc num-buffers=75 pattern=ball ! "
      "video/x-raw,format=I420,width=%d,height=%d,framerate=25/1", W, H);
  ref = run (desc, NULL);
  g_free (desc);
  desc = g_strdup_printf ("stagesrc store=%s stream=raw", store);
  got = run (desc, NULL);
  fail_unless_equals_int (got->len, 75);
  for (i = 0; i < got->len; i++) {
    Frame *g = &g_array_index (got, Frame, i), *r = &g_array_index (ref,
        Frame, i);

    fail_unless_equals_uint64 (g->offset, i);
    fail_unless_equals_uint64 (g->pts, r->pts);
    fail_unless (mean_abs_diff (g->data, r->data, W * H) < 4.0,
        "frame %u: mean difference %f", (guint) i,
        mean_abs_diff (g->data, r->data, W * H));
  }
  g_array_unref (got);
  g_array_unref (ref);
  g_free (desc);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* Bytes round trip: any other caps are stored one blob per buffer, and
 * come back (selected by index) with their timestamps. */
GST_START_TEST (test_roundtrip_bytes)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  const gchar *src = "videotestsrc num-buffers=12 pattern=ball ! "
      "video/x-raw,width=64,height=48,framerate=10/1 ! jpegenc";
  gchar *desc;
  GArray *ref, *got;
  guint64 want[] = { 1, 4, 5, 11 };
  guint i;

  desc = g_strdup_printf ("%s ! stagesink store=%s stream=blobs "
      "io-packet-size=5", src, store);
  run_sink (desc, NULL);
  g_free (desc);
  ref = run (src, NULL);
  desc = g_strdup_printf ("stagesrc store=%s stream=blobs "
      "indices=\"11,5,4,1,99\"", store);
  got = run (desc, NULL);
  fail_unless_equals_int (got->len, 4);
  for (i = 0; i < got->len; i++) {
    Frame *g = &g_array_index (got, Frame, i);
    Frame *r = &g_array_index (ref, Frame, want[i]);

    fail_unless_equals_uint64 (g->offset, want[i]);
    fail_unless_equals_uint64 (g->pts, r->pts);
    fail_unless (g_bytes_equal (g->data, r->data));
  }
  g_array_unref (got);
  g_array_unref (ref);
  g_free (desc);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

static gint
count_data_dirs (const gchar * store)
{
  gchar *p = g_build_filename (store, "data", NULL);
  GDir *d = g_dir_open (p, 0, NULL);
  gint n = 0;

  while (d && g_dir_read_name (d))
    n++;
  if (d)
    g_dir_close (d);
  g_free (p);
  return n;
}

static GPid
spawn_writer (const gchar * store, const gchar * stream, guint frames,
    gboolean live)
{
  gchar *argv[16];
  gchar *nb = g_strdup_printf ("num-buffers=%u", frames);
  gchar *caps = g_strdup_printf ("video/x-raw,width=%d,height=%d,"
      "framerate=%s", W, H, live ? "50/1" : "30/1");
  gchar *st = g_strdup_printf ("store=%s", store);
  gchar *sn = g_strdup_printf ("stream=%s", stream);
  GPid pid;
  GError *err = NULL;
  gint i = 0;

  argv[i++] = (gchar *) "gst-launch-1.0";
  argv[i++] = (gchar *) "-q";
  argv[i++] = (gchar *) "videotestsrc";
  argv[i++] = nb;
  argv[i++] = (gchar *) (live ? "is-live=true" : "is-live=false");
  argv[i++] = (gchar *) "!";
  argv[i++] = caps;
  argv[i++] = (gchar *) "!";
  argv[i++] = (gchar *) "stagesink";
  argv[i++] = st;
  argv[i++] = sn;
  argv[i++] = (gchar *) "io-packet-size=10";
  argv[i] = NULL;
  fail_unless (g_spawn_async (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &err), "%s",
      err ? err->message : "");
  g_free (nb);
  g_free (caps);
  g_free (st);
  g_free (sn);
  return pid;
}

static gint
wait_child (GPid pid)
{
  int status = 0;

  fail_unless (waitpid (pid, &status, 0) == pid);
  g_spawn_close_pid (pid);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static guint
count_frames (const gchar * store, const gchar * stream)
{
  gchar *desc = g_strdup_printf ("stagesrc store=%s stream=%s", store,
      stream);
  GArray *got = run (desc, NULL);
  guint n = got->len;

  g_array_unref (got);
  g_free (desc);
  return n;
}

/* kill -9 in the middle of a write: the catalog is as before, the older
 * stream reads, no half stream is listed, the leftover data is an orphan
 * that verify reports and gc removes. */
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

static gchar *
run_error (const gchar * desc)
{
  gchar *err = NULL;
  GArray *got = run (desc, &err);

  if (got)
    g_array_unref (got);
  fail_unless (err != NULL, "no error from %s", desc);
  return err;
}

static void
assert_contains (const gchar * text, const gchar * part)
{
  fail_unless (strstr (text, part) != NULL, "'%s' not in '%s'", part, text);
}

/* Every bad input of the issue: a clear error, no crash, no hang. */
GST_START_TEST (test_bad_input)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *desc, *err, *chunk, *notstore, *bad;
  StageStore *st;
  StageStreamInfo *info;
  GArray *got;
  FILE *f;

  desc = g_strdup_printf ("videotestsrc num-buffers=40 ! video/x-raw,"
      "width=%d,height=%d ! stagesink store=%s stream=clip-one "
      "io-packet-size=10", W, H, store);
  run_sink (desc, NULL);
  g_free (desc);

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

  /* an index past the end: the stream ends after the last frame */
  desc = g_strdup_printf ("stagesrc store=%s stream=clip-one "
      "indices=\"39,40,1000\"", store);
  got = run (desc, NULL);
  fail_unless_equals_int (got->len, 1);
  fail_unless_equals_uint64 (g_array_index (got, Frame, 0).offset, 39);
  g_array_unref (got);
  g_free (desc);

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

  /* a stream with no data at all is committed empty (no hang) */
  desc = g_strdup_printf ("fakesrc num-buffers=0 ! stagesink store=%s "
      "stream=empty", store);
  fail_unless (run_sink (desc, NULL));
  fail_unless_equals_int (count_frames (store, "empty"), 0);
  g_free (desc);

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
  fail_unless_equals_int (count_data_dirs (store), 2);
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

/* H.265 from x265: B-frames and open GOPs (CRA pictures with RASL leading
 * pictures) by default. */
GST_START_TEST (test_exact_h265_open_gop)
{
  if (!gst_registry_check_feature_version (gst_registry_get (), "x265enc", 1,
          0, 0)) {
    g_printerr ("SKIP test_exact_h265_open_gop: no x265enc\n");
    return;
  }
  exact_case_codec ("x265enc speed-preset=ultrafast key-int-max=30 "
      "option-string=bframes=3:open-gop=1:scenecut=0", 120, 30, "h265");
}

GST_END_TEST;


/* The random access point test behind the keyframe flag, on hand-made
 * access units (4-byte NAL lengths). */
static gboolean
rap264 (const guint8 * const *nals, const gsize * sizes, guint n)
{
  guint8 au[256];
  gsize len = 0;
  guint i;

  for (i = 0; i < n; i++) {
    au[len++] = 0;
    au[len++] = 0;
    au[len++] = 0;
    au[len++] = sizes[i];
    memcpy (au + len, nals[i], sizes[i]);
    len += sizes[i];
  }
  return stage_store_h264_is_rap (au, len, 4);
}

GST_START_TEST (test_rap_parser)
{
  static const guint8 idr[] = { 0x65, 0x88, 0x80 };
  static const guint8 islice[] = { 0x41, 0x88, 0x80 };
  static const guint8 pslice[] = { 0x41, 0x98, 0x80 };
  static const guint8 sei_rp0[] = { 0x06, 0x06, 0x01, 0xc0, 0x80 };
  static const guint8 sei_rp2[] = { 0x06, 0x06, 0x01, 0x70, 0x80 };
  static const guint8 aud[] = { 0x09, 0x10 };
  static const guint8 cra[] = { 0x00, 0x00, 0x00, 0x04, 0x2a, 0x01, 0xaf,
    0x00
  };
  static const guint8 trail[] = { 0x00, 0x00, 0x00, 0x04, 0x02, 0x01, 0xaf,
    0x00
  };
  const guint8 *a[3];
  gsize sz[3];

  a[0] = aud, sz[0] = sizeof (aud);
  a[1] = idr, sz[1] = sizeof (idr);
  fail_unless (rap264 (a, sz, 2));      /* IDR */
  a[1] = islice, sz[1] = sizeof (islice);
  fail_if (rap264 (a, sz, 2));  /* a plain I picture is not enough */
  a[1] = sei_rp0, sz[1] = sizeof (sei_rp0);
  a[2] = islice, sz[2] = sizeof (islice);
  fail_unless (rap264 (a, sz, 3));      /* open GOP I picture */
  a[2] = pslice, sz[2] = sizeof (pslice);
  fail_if (rap264 (a, sz, 3));  /* recovery point on a P picture */
  a[1] = sei_rp2, sz[1] = sizeof (sei_rp2);
  a[2] = islice, sz[2] = sizeof (islice);
  fail_if (rap264 (a, sz, 3));  /* gradual refresh: not exact */
  fail_if (stage_store_h264_is_rap (idr, sizeof (idr), 4));    /* garbage */
  fail_unless (stage_store_h265_is_rap (cra, sizeof (cra), 4));
  fail_if (stage_store_h265_is_rap (trail, sizeof (trail), 4));
}

GST_END_TEST;

static Suite *
stagestore_suite (void)
{
  Suite *s = suite_create ("stagestore");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rap_parser);
  tcase_add_test (tc, test_exact_bframes_gop30);
  tcase_add_test (tc, test_exact_bframes_gop250);
  tcase_add_test (tc, test_exact_open_gop);
  tcase_add_test (tc, test_exact_no_bframes);
  tcase_add_test (tc, test_exact_h265_open_gop);
  tcase_add_test (tc, test_roundtrip_packets);
  tcase_add_test (tc, test_roundtrip_raw);
  tcase_add_test (tc, test_roundtrip_bytes);
  tcase_add_test (tc, test_kill9_mid_write);
  tcase_add_test (tc, test_two_writers);
  tcase_add_test (tc, test_bad_input);
  return s;
}

GST_CHECK_MAIN (stagestore);
