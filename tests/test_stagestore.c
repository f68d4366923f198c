/* stagesink, stagesrc and the store: exact sparse decoding against a full
 * decode, round trips (encoded, raw, bytes), kill -9 during a write, two
 * writers at once, and every bad input of issue 10. Clips are made here
 * (x264enc with and without B-frames, open GOP, openh264enc) in a temp
 * directory that each test removes. */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
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
  f.pts = GST_BUFFER_PTS (buf);
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
make_clip (const gchar * dir, const gchar * name, guint n, const gchar * enc)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
      "motion=sweep ! video/x-raw,format=I420,width=%d,height=%d,"
      "framerate=30/1 ! %s ! h264parse ! mp4mux ! filesink location=%s", n,
      W, H, enc, path);

  run_sink (desc, NULL);
  g_free (desc);
  return path;
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
full_decode (const gchar * clip)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse "
      "! avdec_h264", clip);
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
exact_case (const gchar * enc, guint n, guint gop)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *clip = make_clip (dir, "clip.mp4", n, enc);
  GArray *ref;

  ingest (store, "clip", clip);
  ref = full_decode (clip);
  fail_unless_equals_int (ref->len, n);
  check_patterns (store, "clip", ref, gop);
  g_array_unref (ref);
  g_free (clip);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
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

static Suite *
stagestore_suite (void)
{
  Suite *s = suite_create ("stagestore");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_exact_bframes_gop30);
  tcase_add_test (tc, test_exact_bframes_gop250);
  tcase_add_test (tc, test_exact_open_gop);
  tcase_add_test (tc, test_exact_no_bframes);
  return s;
}

GST_CHECK_MAIN (stagestore);
