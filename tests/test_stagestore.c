/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stagesink, stagesrc and the store: exact sparse decoding against a full
 * decode (H.264 with and without B-frames, GOP 30 and 250, open GOP; H.265
 * open GOP), the random access point parser, and round trips (encoded,
 * raw, bytes). Clips are made here in a temp directory each test removes.
 * Errors, crashes and concurrency: test_stagestore_errors.c. */
#include "stagestore-check.h"
#include "lib/stagetest.h"

/* more stagesrc properties for every read (a decoder setting, say) */
static const gchar *extra_props = "";

/* @div: the stride of a regular selection (its frames are numbered
 * index / stride in OFFSET), else 1. */
static void
check_exact_div (const gchar * store, const gchar * stream, GArray * ref,
    const gchar * sel, const guint64 * want, guint n_want, guint div)
{
  gchar *desc = g_strdup_printf ("stagesrc store=%s stream=%s %s %s", store,
      stream, extra_props, sel);
  GArray *got = run (desc, NULL);
  guint i;

  fail_unless_equals_int (got->len, n_want);
  for (i = 0; i < got->len; i++) {
    Frame *g = &g_array_index (got, Frame, i);
    Frame *r = &g_array_index (ref, Frame, want[i]);

    fail_unless_equals_uint64 (g->offset, want[i] / div);
    fail_unless (g->pts == r->pts, "%s: frame %" G_GUINT64_FORMAT " pts %"
        GST_TIME_FORMAT " != %" GST_TIME_FORMAT, sel, want[i],
        GST_TIME_ARGS (g->pts), GST_TIME_ARGS (r->pts));
    fail_unless (g_str_equal (g->md5, r->md5), "%s: frame %" G_GUINT64_FORMAT
        " differs from the full decode", sel, want[i]);
  }
  g_array_unref (got);
  g_free (desc);
}

static void
check_exact (const gchar * store, const gchar * stream, GArray * ref,
    const gchar * sel, const guint64 * want, guint n_want)
{
  check_exact_div (store, stream, ref, sel, want, n_want, 1);
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

/* The patterns users read: sorted, single, first/last, dense, every GOP
 * boundary (and the frames around it), random (unsorted), and the stride
 * and ranges forms (past the end: test_stagestore_errors.c). */
static void
check_patterns (const gchar * store, const gchar * stream, GArray * ref,
    guint gop)
{
  guint n = ref->len, i, k;
  guint64 idx[400] = { 0 }, want[400] = { 0 };
  gchar *text;
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
  for (k = 0, i = 3; i < n; i += 7)
    want[k++] = i;
  check_exact_div (store, stream, ref, "stride=7 offset=3", want, k, 7);
  for (k = 0, i = 10; i < 20; i++)
    want[k++] = i;
  for (i = 100; i < MIN (140, n); i++)
    want[k++] = i;
  text = g_strdup_printf ("ranges=\"10:20,100:%u\"", MIN (140, n));
  check_exact (store, stream, ref, text, want, k);
  g_free (text);
  for (k = 0, i = 100; i < MIN (140, n); i += 3)
    want[k++] = i;
  text = g_strdup_printf ("ranges=\"100:%u\" stride=3", MIN (140, n));
  check_exact_div (store, stream, ref, text, want, k, 3);
  g_free (text);
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

/* Whether the stored stream's SPS says frames only (stagesrc skips
 * unwanted non-reference pictures only then). */
static gboolean
stored_frames_only (const gchar * store, const gchar * stream)
{
  StageStore *st = stage_store_open_read (store, NULL);
  StageStreamInfo *info = st ? stage_store_lookup (st, stream, NULL) : NULL;
  gboolean res = FALSE;

  fail_unless (info != NULL && info->codec_data != NULL);
  {
    gsize len;
    const guint8 *cd = g_bytes_get_data (info->codec_data, &len);
    res = stage_store_h264_frames_only (cd, len);
  }
  stage_stream_info_free (info);
  stage_store_close (st);
  return res;
}

/* Interlaced (x264's MBAFF on interleaved input: frame_mbs_only_flag 0):
 * no picture is skipped, every frame exact; a progressive stream is
 * frames only. */
GST_START_TEST (test_exact_interlaced)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *clip = make_clip_codec (dir, "i.mp4", 150, "capssetter "
      "caps=video/x-raw,interlace-mode=interleaved ! x264enc "
      "speed-preset=ultrafast bframes=2 key-int-max=30 b-adapt=false",
      "h264");
  gchar *prog = make_clip_codec (dir, "p.mp4", 10, "x264enc "
      "speed-preset=ultrafast bframes=2", "h264");
  GArray *ref;

  ingest_codec (store, "i", clip, "h264");
  ingest_codec (store, "p", prog, "h264");
  fail_if (stored_frames_only (store, "i"));
  fail_unless (stored_frames_only (store, "p"));
  ref = full_decode_codec (clip, "h264");
  fail_unless_equals_int (ref->len, 150);
  check_patterns (store, "i", ref, 30);
  g_array_unref (ref);
  g_free (clip);
  g_free (prog);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

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

/* The same with a one-thread decoder (a one-core machine's default):
 * libav then treats a decode that starts at a recovery point differently. */
GST_START_TEST (test_exact_open_gop_one_thread)
{
  extra_props = "decoder=\"avdec_h264 max-threads=1\"";
  exact_case ("x264enc speed-preset=ultrafast bframes=2 key-int-max=30 "
      "b-adapt=false option-string=open-gop=1", 240, 30);
  extra_props = "";
}

GST_END_TEST;

/* stagesrc's "skipped" after reading @sel with @dec ("" for the default
 * decoder); the frames must be the full decode's. */
static guint64
skipped_with (const gchar * store, GArray * ref, const gchar * dec,
    const gchar * sel, const guint64 * want, guint n_want)
{
  gchar *desc = g_strdup_printf ("stagesrc name=src store=%s stream=clip %s "
      "%s ! fakesink sync=false", store, dec, sel);
  GstElement *pipe = gst_parse_launch (desc, NULL), *src;
  guint64 skipped = 0;

  fail_unless (pipe != NULL, "%s", desc);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  stage_test_expect_eos (pipe, 120 * GST_SECOND, desc);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  g_object_get (src, "skipped", &skipped, NULL);
  gst_object_unref (src);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_free (desc);
  extra_props = dec;
  check_exact (store, "clip", ref, sel, want, n_want);
  extra_props = "";
  return skipped;
}

/* Unwanted non-reference pictures are left out only where the decoder is
 * known to take it: gst-libav before 1.24 with any thread count, or with
 * one thread (from 1.24 its ghost-frame clean-up races its frame threads
 * once pictures are missing: gststagesrc.c, decoder_allows_skipping);
 * never with a decoder it does not know. Every read stays exact. */
GST_START_TEST (test_skip_policy)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *clip = make_clip (dir, "clip.mp4", 120, "x264enc speed-preset="
      "ultrafast bframes=3 b-adapt=false key-int-max=60");
  GstPlugin *libav = gst_registry_find_plugin (gst_registry_get (), "libav");
  const guint64 want[] = { 5, 40, 41, 90 };
  const gchar *sel = "indices=\"5,40,41,90\"";
  guint major = 0, minor = 0;
  GArray *ref;

  fail_unless (libav != NULL);
  fail_unless (sscanf (gst_plugin_get_version (libav), "%u.%u", &major,
          &minor) == 2);
  gst_object_unref (libav);
  ingest (store, "clip", clip);
  ref = full_decode_codec (clip, "h264");
  fail_unless (skipped_with (store, ref, "decoder=\"avdec_h264 "
          "max-threads=1\"", sel, want, 4) > 0);
  fail_unless_equals_uint64 (skipped_with (store, ref, "decoder=\"avdec_h264 "
          "! identity\"", sel, want, 4), 0);
  if (major == 1 && minor < 24)
    fail_unless (skipped_with (store, ref, "", sel, want, 4) > 0);
  else
    fail_unless_equals_uint64 (skipped_with (store, ref, "", sel, want, 4),
        0);
  g_array_unref (ref);
  g_free (clip);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* NULL when ffmpeg with libx264 is in PATH, else why the open-GOP case
 * that needs it cannot run (g_free it). */
static gchar *
ffmpeg_x264_missing (void)
{
  gchar *argv[] = { (gchar *) "ffmpeg", (gchar *) "-hide_banner",
    (gchar *) "-encoders", NULL
  };
  gchar *out = NULL;
  gint status = -1;
  gboolean found;

  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, NULL))
    return g_strdup ("no ffmpeg in PATH");
  found = g_spawn_check_wait_status (status, NULL) && out &&
      strstr (out, " libx264 ") != NULL;
  g_free (out);
  return found ? NULL : g_strdup ("ffmpeg has no libx264 encoder");
}

/* An open-GOP H.264 clip made by ffmpeg's libx264 (not GStreamer's
 * x264enc): with @cuts, four different sources one after the other, so
 * x264's scene cut detection adds recovery-point I pictures without
 * leading pictures between the periodic ones. NULL if ffmpeg failed. */
static gchar *
make_ffmpeg_clip (const gchar * dir, guint keyint, gboolean cuts)
{
  gchar *path = g_build_filename (dir, "ff.mp4", NULL);
  gchar *graph = cuts ?
      g_strdup_printf ("testsrc2=s=%dx%d:r=30:d=2,format=yuv420p,setsar=1[a];"
      "mandelbrot=s=%dx%d:r=30,trim=end_frame=70,format=yuv420p,setsar=1[b];"
      "life=s=%dx%d:r=30:mold=10:ratio=0.5,trim=end_frame=60,"
      "format=yuv420p,setsar=1[c];testsrc=s=%dx%d:r=30:d=3,format=yuv420p,"
      "setsar=1[d];[a][b][c][d]concat=n=4[v]", W, H, W, H, W, H, W, H) :
      g_strdup_printf ("testsrc2=s=%dx%d:r=30:d=10,format=yuv420p[v]", W, H);
  gchar *params = g_strdup_printf ("open-gop=1:keyint=%u", keyint);
  gchar *argv[] = { (gchar *) "ffmpeg", (gchar *) "-v", (gchar *) "error",
    (gchar *) "-y", (gchar *) "-filter_complex", graph, (gchar *) "-map",
    (gchar *) "[v]", (gchar *) "-c:v", (gchar *) "libx264", (gchar *) "-preset",
    (gchar *) "veryfast", (gchar *) "-x264-params", params, path, NULL
  };
  gint status = -1;

  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
          NULL, &status, NULL) || !g_spawn_check_wait_status (status, NULL))
    g_clear_pointer (&path, g_free);
  g_free (graph);
  g_free (params);
  return path;
}

/* Every keyframe of the stored stream and two frames either side, one
 * read each, against the full decode; returns how many keyframes are not
 * IDR pictures (what the clip is for). */
static guint
check_around_keyframes (const gchar * store, GArray * ref)
{
  StageStore *st = stage_store_open (store, FALSE, NULL);
  StageStreamInfo *info = stage_store_lookup (st, "clip", NULL);
  StageFrame *frames;
  gsize n, i;
  guint non_idr = 0;
  gint64 d;

  fail_unless (info != NULL);
  frames = stage_store_load_frames (st, info, &n, NULL);
  fail_unless_equals_int (n, ref->len);
  for (i = 0; i < n; i++) {
    if (!frames[i].keyframe)
      continue;
    non_idr += i > 0;
    for (d = -2; d <= 2; d++) {
      guint64 idx = frames[i].index + d;

      if (frames[i].index + d >= 0 && idx < n)
        check_list (store, "clip", ref, &idx, 1);
    }
  }
  g_free (frames);
  stage_stream_info_free (info);
  stage_store_close (st);
  return non_idr;
}

/* Open GOP as ffmpeg's libx264 writes it (keyint 60 and 250, with and
 * without scene cuts): every RAP after the first is a recovery-point I
 * picture, most without leading pictures. Single-frame reads around each
 * are exact with the decoder's default threads and with one thread (where
 * gst-libav gave wrong frames until the next RAP). */
static void
ffmpeg_open_gop_case (guint keyint, gboolean cuts)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *clip = make_ffmpeg_clip (dir, keyint, cuts);
  GArray *ref;
  guint t;

  /* The test is only registered where ffmpeg has libx264. */
  fail_unless (clip != NULL, "ffmpeg with libx264 did not make the clip");
  ingest (store, "clip", clip);
  ref = full_decode_codec (clip, "h264");
  for (t = 0; t < 2; t++) {
    extra_props = t ? "decoder=\"avdec_h264 max-threads=1\"" : "";
    fail_unless (check_around_keyframes (store, ref) >= (cuts ? 3 : 2),
        "the clip has too few recovery-point keyframes to test");
  }
  extra_props = "";
  g_array_unref (ref);
  g_free (clip);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_START_TEST (test_exact_ffmpeg_open_gop)
{
  ffmpeg_open_gop_case (60, TRUE);
  ffmpeg_open_gop_case (60, FALSE);
  ffmpeg_open_gop_case (250, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_exact_no_bframes)
{
  exact_case ("openh264enc gop-size=30", 150, 30);
}

GST_END_TEST;


/* Frames that stagesrc selects survive an encoder and each muxer: the
 * caps keep a framerate (a stride divides it), so every muxer takes the
 * stream and every frame comes back. */
GST_START_TEST (test_selection_muxes)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *clip = make_clip (dir, "clip.mp4", 300, "x264enc speed-preset="
      "ultrafast bframes=2 key-int-max=30");
  const gchar *sels[] = { "indices=\"3,75,149,200,279\"",
    "ranges=\"0:10,100:110\"", "stride=4", "ranges=\"20:80\" stride=3"
  };
  const guint counts[] = { 5, 20, 75, 20 };
  const gchar *muxes[][2] = { {"mp4mux", "mp4"}, {"avimux", "avi"},
  {"matroskamux", "mkv"}
  };
  guint i, m;

  ingest (store, "clip", clip);
  for (i = 0; i < G_N_ELEMENTS (sels); i++) {
    for (m = 0; m < G_N_ELEMENTS (muxes); m++) {
      gchar *out = g_strdup_printf ("%s/out.%s", dir, muxes[m][1]);
      gchar *desc = g_strdup_printf ("stagesrc store=%s stream=clip %s ! "
          "x264enc speed-preset=ultrafast ! h264parse ! %s ! filesink "
          "location=%s", store, sels[i], muxes[m][0], out);
      gchar *err = NULL;
      GArray *back;

      fail_unless (run_sink (desc, &err), "%s: %s", desc, err);
      g_free (desc);
      desc = g_strdup_printf ("filesrc location=%s ! decodebin", out);
      back = run (desc, NULL);
      fail_unless (back->len == counts[i], "%s into %s: %u frames back, "
          "not %u", sels[i], muxes[m][0], back->len, counts[i]);
      g_array_unref (back);
      g_free (desc);
      g_unlink (out);
      g_free (out);
    }
  }
  g_free (clip);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* A source whose caps carry a rate its frames do not have (a demuxer of
 * a variable-rate file reported 1000000/1): the stream records the frames'
 * mean rate, in its caps too, so decoded reads and listings say 30. */
GST_START_TEST (test_bogus_rate)
{
  gchar *dir = make_tmp (), *store = g_build_filename (dir, "store", NULL);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=60 ! video/x-raw,"
      "width=%d,height=%d,framerate=30/1 ! x264enc speed-preset=ultrafast ! "
      "h264parse ! capssetter caps=\"video/x-h264,framerate=(fraction)"
      "1000000/1\" ! stagesink store=%s stream=v", W, H, store);
  StageStore *st;
  StageStreamInfo *info;

  run_sink (desc, NULL);
  st = stage_store_open (store, FALSE, NULL);
  info = stage_store_lookup (st, "v", NULL);
  fail_unless (info != NULL);
  fail_unless_equals_int (info->fps_n, 30);
  fail_unless_equals_int (info->fps_d, 1);
  fail_unless (strstr (info->caps, "framerate=(fraction)30/1") != NULL, "%s",
      info->caps);
  stage_stream_info_free (info);
  stage_store_close (st);
  g_free (desc);
  g_free (store);
  rm_rf (dir);
  g_free (dir);
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
      "indices=\"11,5,4,1\"", store);
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

GST_START_TEST (test_exact_h265_open_gop)
{
  exact_case_codec ("x265enc speed-preset=ultrafast key-int-max=30 "
      "option-string=bframes=3:open-gop=1:scenecut=0", 120, 30, "h265");
}

GST_END_TEST;


/* The random access point test behind the keyframe flag (and the
 * non-reference test behind stagesrc's skipping), on hand-made access
 * units (4-byte NAL lengths). */
static gsize
make_au (guint8 * au, const guint8 * const *nals, const gsize * sizes,
    guint n)
{
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
  return len;
}

static gboolean
rap264 (const guint8 * const *nals, const gsize * sizes, guint n)
{
  guint8 au[256];

  return stage_store_h264_is_rap (au, make_au (au, nals, sizes, n), 4);
}

static gboolean
disposable264 (const guint8 * const *nals, const gsize * sizes, guint n)
{
  guint8 au[256];

  return stage_store_is_disposable ("h264", au, make_au (au, nals, sizes,
          n), 4);
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

  /* Pictures no other picture refers to (stagesrc skips them when not
   * asked for): slices with nal_ref_idc 0 only, no parameter set. */
  {
    static const guint8 b_nonref[] = { 0x01, 0x9e, 0x80 };     /* ref_idc 0 */
    static const guint8 b_ref[] = { 0x21, 0x9e, 0x80 };        /* ref_idc 1 */
    static const guint8 sps[] = { 0x67, 0x42, 0x00 };

    a[0] = aud, sz[0] = sizeof (aud);
    a[1] = b_nonref, sz[1] = sizeof (b_nonref);
    fail_unless (disposable264 (a, sz, 2));
    a[2] = b_ref, sz[2] = sizeof (b_ref);
    fail_if (disposable264 (a, sz, 3)); /* one slice is a reference */
    a[1] = b_ref, sz[1] = sizeof (b_ref);
    fail_if (disposable264 (a, sz, 2));
    a[1] = sps, sz[1] = sizeof (sps);
    a[2] = b_nonref, sz[2] = sizeof (b_nonref);
    fail_if (disposable264 (a, sz, 3)); /* carries a parameter set */
    a[1] = idr, sz[1] = sizeof (idr);
    fail_if (disposable264 (a, sz, 2));
    fail_if (disposable264 (a, sz, 1)); /* no slice */
    fail_if (stage_store_is_disposable ("h264", b_nonref, sizeof (b_nonref),
            4));                /* garbage lengths */
    fail_if (stage_store_is_disposable ("h265", trail, sizeof (trail), 4));
  }
}

GST_END_TEST;

static Suite *
stagestore_suite (void)
{
  Suite *s = suite_create ("stagestore");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  tcase_add_unchecked_fixture (tc, tmp_base_setup, tmp_base_teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rap_parser);
  tcase_add_test (tc, test_exact_bframes_gop30);
  tcase_add_test (tc, test_exact_interlaced);
  tcase_add_test (tc, test_exact_bframes_gop250);
  tcase_add_test (tc, test_exact_open_gop);
  tcase_add_test (tc, test_exact_open_gop_one_thread);
  tcase_add_test (tc, test_exact_no_bframes);
  stage_test_add_unless (tc, test_exact_ffmpeg_open_gop,
      ffmpeg_x264_missing ());
  tcase_add_test (tc, test_skip_policy);
  stage_test_add_unless (tc, test_exact_h265_open_gop,
      stage_test_missing_elements ("x265enc", NULL));
  tcase_add_test (tc, test_selection_muxes);
  tcase_add_test (tc, test_bogus_rate);
  tcase_add_test (tc, test_roundtrip_packets);
  tcase_add_test (tc, test_roundtrip_raw);
  tcase_add_test (tc, test_roundtrip_bytes);
  return s;
}

GST_CHECK_MAIN (stagestore);
