/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageresize through GstHarness: every format against the double-precision
 * reference, caps negotiation, passthrough, threads, bad input, events. */
#include <gst/check/gstcheck.h>

#include "glib-versions.h"
#include "prop-check.h"
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "resize_ref.h"
#include "lib/stagetest.h"

static const gchar *formats[] = {
  "I420", "YV12", "Y41B", "Y42B", "Y444", "A420", "NV12", "NV21", "NV16",
  "NV61", "NV24", "GRAY8", "RGB", "BGR", "v308", "IYU2", "RGBA", "BGRA",
  "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR", "AYUV",
};

static GstCaps *
video_caps (const gchar * format, gint w, gint h, gint par_n, gint par_d)
{
  return gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, format,
      "width", G_TYPE_INT, w, "height", G_TYPE_INT, h, "framerate",
      GST_TYPE_FRACTION, 30, 1, "pixel-aspect-ratio", GST_TYPE_FRACTION,
      par_n, par_d, NULL);
}

static GstHarness *
harness (const gchar * props, GstCaps * in, const gchar * sink_caps)
{
  gchar *desc = g_strdup_printf ("stageresize %s", props);
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  gst_harness_set_src_caps (h, in);
  gst_harness_set_sink_caps_str (h, sink_caps);
  return h;
}

static GstBuffer *
random_buffer (const GstVideoInfo * info, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GRand *r = g_rand_new_with_seed (seed);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = g_rand_int_range (r, 0, 256);
  gst_buffer_unmap (buf, &map);
  g_rand_free (r);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* Pushes one random frame and checks every plane against the reference.
 * Returns the output buffer. */
static void
check_format (const gchar * format, gint sw, gint sh, gint dw, gint dh,
    const gchar * method)
{
  GstVideoInfo in_info, out_info;
  GstVideoFrame fin, fout;
  GstBuffer *in, *out;
  GstHarness *h;
  gchar *props = g_strdup_printf ("width=%d height=%d method=%s", dw, dh,
      method);
  guint p;

  h = harness (props, video_caps (format, sw, sh, 1, 1), "video/x-raw");
  g_free (props);
  gst_video_info_set_format (&in_info, gst_video_format_from_string (format),
      sw, sh);
  gst_video_info_set_format (&out_info, gst_video_format_from_string (format),
      dw, dh);
  in = random_buffer (&in_info, g_str_hash (format));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (out), out_info.size);

  gst_video_frame_map (&fin, &in_info, in, GST_MAP_READ);
  gst_video_frame_map (&fout, &out_info, out, GST_MAP_READ);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&in_info); p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS], c, pw, ph, ow, oh, y, x, maxd = 0;
    guint8 *plane, *ref;

    gst_video_format_info_component (in_info.finfo, p, comps);
    c = GST_VIDEO_INFO_COMP_PSTRIDE (&in_info, comps[0]);
    pw = GST_VIDEO_INFO_COMP_WIDTH (&in_info, comps[0]);
    ph = GST_VIDEO_INFO_COMP_HEIGHT (&in_info, comps[0]);
    ow = GST_VIDEO_INFO_COMP_WIDTH (&out_info, comps[0]);
    oh = GST_VIDEO_INFO_COMP_HEIGHT (&out_info, comps[0]);
    plane = g_malloc ((gsize) pw * ph * c);
    for (y = 0; y < ph; y++)
      memcpy (plane + (gsize) y * pw * c,
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fin, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fin, p), (gsize) pw * c);
    ref = ref_resize (plane, pw, ph, ow, oh, c,
        g_str_equal (method, "nearest") ? STAGE_RESIZE_NEAREST :
        g_str_equal (method, "area") ? STAGE_RESIZE_AREA :
        g_str_equal (method, "bicubic") ? STAGE_RESIZE_BICUBIC :
        STAGE_RESIZE_BILINEAR);
    for (y = 0; y < oh; y++) {
      const guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fout, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fout, p);
      for (x = 0; x < ow * c; x++)
        maxd = MAX (maxd, ABS ((gint) row[x] - ref[(gsize) y * ow * c + x]));
    }
    fail_unless (maxd <= 1, "%s %s plane %u (%d ch, %dx%d -> %dx%d): max "
        "diff %d", format, method, p, c, pw, ph, ow, oh, maxd);
    g_free (plane);
    g_free (ref);
  }
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_START_TEST (test_every_format)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    check_format (formats[i], 37, 29, 20, 45, "bilinear");
    check_format (formats[i], 64, 48, 31, 17, "area");
  }
}

GST_END_TEST;

GST_START_TEST (test_every_method)
{
  static const gchar *methods[] = { "nearest", "bilinear", "area", "bicubic" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (methods); i++) {
    check_format ("I420", 160, 90, 64, 48, methods[i]);
    check_format ("NV12", 33, 21, 100, 61, methods[i]);
    check_format ("RGBA", 1, 1, 5, 3, methods[i]);
    check_format ("RGB", 7, 5, 1, 1, methods[i]);
  }
}

GST_END_TEST;

/* Negotiates in_caps through `props` and `sink_caps`; returns output caps
 * after one buffer. */
static void
expect_output (const gchar * props, GstCaps * in, const gchar * sink_caps,
    gint want_w, gint want_h, gint want_par_n, gint want_par_d)
{
  GstHarness *h = harness (props, in, sink_caps);
  GstVideoInfo info;
  GstCaps *caps;
  GstStructure *s;
  gint w, h_, pn = 1, pd = 1;

  gst_video_info_from_caps (&info, in);
  fail_unless_equals_int (gst_harness_push (h, random_buffer (&info, 1)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  caps = gst_pad_get_current_caps (h->sinkpad);
  s = gst_caps_get_structure (caps, 0);
  gst_structure_get_int (s, "width", &w);
  gst_structure_get_int (s, "height", &h_);
  gst_structure_get_fraction (s, "pixel-aspect-ratio", &pn, &pd);
  fail_unless (w == want_w && h_ == want_h && pn == want_par_n &&
      pd == want_par_d, "'%s' into '%s': got %dx%d PAR %d/%d, want %dx%d "
      "PAR %d/%d", props, sink_caps, w, h_, pn, pd, want_w, want_h,
      want_par_n, want_par_d);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

#define I420(w, h) video_caps ("I420", w, h, 1, 1)

GST_START_TEST (test_negotiation_properties)
{
  expect_output ("width=320 height=240", I420 (640, 480), "video/x-raw",
      320, 240, 1, 1);
  /* One side set, DAR kept through the PAR (like videoscale). */
  expect_output ("width=320", I420 (640, 480), "video/x-raw", 320, 480, 2, 1);
  /* One side set, preserve-aspect derives the other, PAR stays. */
  expect_output ("width=320 preserve-aspect=true", I420 (640, 480),
      "video/x-raw", 320, 240, 1, 1);
  expect_output ("height=100 preserve-aspect=true", I420 (1920, 1080),
      "video/x-raw", 178, 100, 1, 1);
  /* Both set with preserve-aspect: fit inside the box. */
  expect_output ("width=400 height=400 preserve-aspect=true",
      I420 (1920, 1080), "video/x-raw", 400, 225, 1, 1);
  expect_output ("width=400 height=400 preserve-aspect=true",
      I420 (1080, 1920), "video/x-raw", 225, 400, 1, 1);
  /* Non-square input pixels: preserve-aspect keeps the input PAR. */
  expect_output ("width=360 preserve-aspect=true",
      video_caps ("I420", 720, 576, 16, 15), "video/x-raw", 360, 288, 16, 15);
  /* Both set without preserve-aspect: PAR absorbs the DAR change. */
  expect_output ("width=200 height=100", I420 (640, 480), "video/x-raw",
      200, 100, 2, 3);
}

GST_END_TEST;

GST_START_TEST (test_negotiation_downstream)
{
  /* Size fixed downstream, properties 0. */
  expect_output ("", I420 (640, 480), "video/x-raw,width=200,height=100",
      200, 100, 2, 3);
  /* Width fixed downstream, square pixels demanded: height from DAR. */
  expect_output ("", I420 (640, 480),
      "video/x-raw,width=320,pixel-aspect-ratio=1/1", 320, 240, 1, 1);
  /* Height and PAR fixed downstream. */
  expect_output ("", I420 (1280, 720),
      "video/x-raw,height=360,pixel-aspect-ratio=1/1", 640, 360, 1, 1);
  /* preserve-aspect applies to a dimension downstream fixes, too. */
  expect_output ("preserve-aspect=true", I420 (1280, 720),
      "video/x-raw,width=320", 320, 180, 1, 1);
  /* Downstream PAR fixed to 2/1 with the property width: height derived. */
  expect_output ("width=320", I420 (640, 480),
      "video/x-raw,pixel-aspect-ratio=2/1", 320, 480, 2, 1);
  /* Nothing asks for a change. */
  expect_output ("", I420 (64, 48), "video/x-raw", 64, 48, 1, 1);
}

GST_END_TEST;

GST_START_TEST (test_only_shrink)
{
  /* Larger target: input size kept. */
  expect_output ("width=640 height=480 only-shrink=true", I420 (320, 240),
      "video/x-raw", 320, 240, 1, 1);
  /* Larger in one dimension only: still kept. */
  expect_output ("width=100 height=480 only-shrink=true", I420 (320, 240),
      "video/x-raw", 320, 240, 1, 1);
  /* Smaller target: resized. */
  expect_output ("width=160 height=120 only-shrink=true", I420 (320, 240),
      "video/x-raw", 160, 120, 1, 1);
  expect_output ("width=640 preserve-aspect=true only-shrink=true",
      I420 (1280, 720), "video/x-raw", 640, 360, 1, 1);
  expect_output ("width=1920 preserve-aspect=true only-shrink=true",
      I420 (1280, 720), "video/x-raw", 1280, 720, 1, 1);
}

GST_END_TEST;

GST_START_TEST (test_passthrough)
{
  GstHarness *h = harness ("", I420 (64, 48), "video/x-raw");
  GstVideoInfo info;
  GstBuffer *in, *out;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 48);
  in = random_buffer (&info, 3);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out == in, "same size must pass the buffer through");
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);

  /* only-shrink on a smaller input is passthrough as well. */
  h = harness ("width=640 height=480 only-shrink=true", I420 (64, 48),
      "video/x-raw");
  in = random_buffer (&info, 4);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstBuffer *
resize_with (const gchar * props, const gchar * format, GstBuffer * in,
    gint sw, gint sh)
{
  GstHarness *h = harness (props, video_caps (format, sw, sh, 1, 1),
      "video/x-raw");
  GstBuffer *out;

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  gst_harness_teardown (h);
  return out;
}

/* Compares the visible pixels of two frames (test_padding_zeroed checks
 * the rest of the buffer). */
static gboolean
frames_equal (const gchar * format, gint w, gint h, GstBuffer * a,
    GstBuffer * b)
{
  GstVideoInfo info;
  GstVideoFrame fa, fb;
  gboolean eq = TRUE;
  guint p;
  gint y;

  gst_video_info_set_format (&info, gst_video_format_from_string (format), w,
      h);
  gst_video_frame_map (&fa, &info, a, GST_MAP_READ);
  gst_video_frame_map (&fb, &info, b, GST_MAP_READ);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS], rowbytes, rows;
    gst_video_format_info_component (info.finfo, p, comps);
    rowbytes = GST_VIDEO_INFO_COMP_WIDTH (&info, comps[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&info, comps[0]);
    rows = GST_VIDEO_INFO_COMP_HEIGHT (&info, comps[0]);
    for (y = 0; y < rows; y++)
      eq &= memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p), rowbytes) == 0;
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return eq;
}

GST_START_TEST (test_threads_identical)
{
  static const gchar *methods[] = { "nearest", "bilinear", "area", "bicubic" };
  static const gchar *fmts[] = { "I420", "NV12", "BGRx" };
  guint m, f, t;

  for (f = 0; f < G_N_ELEMENTS (fmts); f++) {
    GstVideoInfo info;
    GstBuffer *in;

    gst_video_info_set_format (&info, gst_video_format_from_string (fmts[f]),
        640, 360);
    in = random_buffer (&info, f);
    for (m = 0; m < G_N_ELEMENTS (methods); m++) {
      gchar *props = g_strdup_printf ("width=301 height=179 method=%s "
          "n-threads=1", methods[m]);
      GstBuffer *one = resize_with (props, fmts[f], in, 640, 360);
      static const guint threads[] = { 2, 3, 0, 7 };
      g_free (props);
      for (t = 0; t < G_N_ELEMENTS (threads); t++) {
        GstBuffer *many;
        props = g_strdup_printf ("width=301 height=179 method=%s "
            "n-threads=%u", methods[m], threads[t]);
        many = resize_with (props, fmts[f], in, 640, 360);
        fail_unless (frames_equal (fmts[f], 301, 179, one, many), "%s %s n-threads=%u differs "
            "from n-threads=1", fmts[f], methods[m], threads[t]);
        gst_buffer_unref (many);
        g_free (props);
      }
      gst_buffer_unref (one);
    }
    gst_buffer_unref (in);
  }
}

GST_END_TEST;


/* Every byte of the output buffer outside the pixels (row padding, the
 * extra luma row of an odd-height I420 frame, the end of the buffer) is
 * zero: otherwise it holds whatever the allocator left, a checksum of the
 * buffer changes from run to run and valgrind flags downstream reads. The
 * allocator is made to fill new memory with 0xaa so that the test cannot
 * pass by luck. */
static void
check_padding (const gchar * format, gint sw, gint sh, gint dw, gint dh,
    const gchar * props, gboolean meta)
{
  GstVideoInfo in_info, out_info;
  GstBuffer *in, *out;
  GstHarness *h;
  GstMapInfo map;
  guint8 *written;
  gchar *all = g_strdup_printf ("width=%d height=%d %s", dw, dh, props);
  guint p;
  gsize i;

  h = harness (all, video_caps (format, sw, sh, 1, 1), "video/x-raw");
  /* downstream that takes GstVideoMeta, or not */
  if (meta)
    gst_harness_add_propose_allocation_meta (h, GST_VIDEO_META_API_TYPE,
        NULL);
  gst_video_info_set_format (&in_info, gst_video_format_from_string (format),
      sw, sh);
  gst_video_info_set_format (&out_info, gst_video_format_from_string (format),
      dw, dh);
  in = random_buffer (&in_info, 5);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (out), out_info.size);
  written = g_malloc0 (out_info.size);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&out_info); p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS], y, rows;
    gsize rb;

    gst_video_format_info_component (out_info.finfo, p, comps);
    rb = (gsize) GST_VIDEO_INFO_COMP_WIDTH (&out_info, comps[0]) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&out_info, comps[0]);
    rows = GST_VIDEO_INFO_COMP_HEIGHT (&out_info, comps[0]);
    for (y = 0; y < rows; y++)
      memset (written + out_info.offset[p] +
          (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (&out_info, p), 1, rb);
  }
  gst_buffer_map (out, &map, GST_MAP_READ);
  for (i = 0; i < map.size; i++)
    fail_unless (written[i] || map.data[i] == 0, "%s %dx%d %s: padding "
        "byte %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " is 0x%02x", format,
        dw, dh, props, i, map.size, map.data[i]);
  gst_buffer_unmap (out, &map);
  g_free (written);
  g_free (all);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_START_TEST (test_padding_zeroed)
{
  gboolean meta;

#ifdef M_PERTURB
  mallopt (M_PERTURB, 0x55);
#endif
  for (meta = FALSE; meta <= TRUE; meta++) {
    check_padding ("GRAY8", 8, 8, 3, 3, "method=bilinear", meta);
    check_padding ("GRAY8", 8, 8, 5, 7, "method=nearest", meta);
    check_padding ("I420", 16, 12, 7, 5, "method=area", meta);
    check_padding ("NV12", 16, 12, 5, 3, "method=bicubic", meta);
    check_padding ("RGB", 16, 12, 5, 3, "method=bilinear", meta);
    check_padding ("Y41B", 16, 12, 9, 5, "method=bilinear", meta);
    /* the slices zero their own rows' padding */
    check_padding ("I420", 64, 64, 37, 67, "n-threads=3", meta);
    check_padding ("GRAY8", 64, 64, 37, 67, "n-threads=0 method=nearest",
        meta);
  }
#ifdef M_PERTURB
  mallopt (M_PERTURB, 0);
#endif
}

GST_END_TEST;

/* n-threads may change while playing: the worker pool is rebuilt between
 * frames, the bytes (padding included) stay those of one thread, and the
 * element runs again after going to NULL. Frames keep flowing in a real
 * pipeline while another thread keeps changing n-threads. */
GST_START_TEST (test_threads_change_playing)
{
  static const guint threads[] = { 4, 0, 2, 1, 3, 3, 64 };
  GstHarness *h = harness ("width=37 height=67 n-threads=1", I420 (64, 64),
      "video/x-raw");
  GstElement *e = gst_harness_find_element (h, "stageresize");
  GstElement *pipe, *src;
  GstVideoInfo info;
  GstBuffer *in, *ref;
  GstMapInfo rm;
  guint t, run, i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 64);
  in = random_buffer (&info, 11);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  ref = gst_harness_pull (h);
  gst_buffer_map (ref, &rm, GST_MAP_READ);
  for (t = 0; t < G_N_ELEMENTS (threads); t++) {
    GstBuffer *out;
    GstMapInfo om;

    g_object_set (e, "n-threads", threads[t], NULL);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    gst_buffer_map (out, &om, GST_MAP_READ);
    fail_unless (om.size == rm.size && memcmp (om.data, rm.data,
            rm.size) == 0, "n-threads=%u changed the bytes", threads[t]);
    gst_buffer_unmap (out, &om);
    gst_buffer_unref (out);
  }
  gst_buffer_unmap (ref, &rm);
  gst_buffer_unref (ref);
  gst_buffer_unref (in);
  gst_object_unref (e);
  gst_harness_teardown (h);

  pipe = gst_parse_launch ("videotestsrc name=src num-buffers=40 pattern=snow ! "
      "video/x-raw,format=I420,width=320,height=240 ! stageresize name=r "
      "width=161 height=119 n-threads=2 ! fakesink sync=false", NULL);
  fail_unless (pipe != NULL);
  e = gst_bin_get_by_name (GST_BIN (pipe), "r");
  for (run = 0; run < 2; run++) {
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *msg = NULL;

    fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    for (i = 0; msg == NULL; i++) {
      g_object_set (e, "n-threads", i % 5, NULL);
      msg = gst_bus_timed_pop_filtered (bus, GST_MSECOND,
          GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
      fail_unless (i < 20000, "pipeline did not finish");
    }
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
    gst_message_unref (msg);
    gst_object_unref (bus);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  /* PLAYING to NULL with frames in flight, threads busy */
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  g_object_set (src, "num-buffers", -1, NULL);
  gst_object_unref (src);
  g_object_set (e, "n-threads", 3, NULL);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
          5 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  g_usleep (20000);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (e);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* New input caps mid-stream: resize, then passthrough (input already the
 * target size), then resize again from another size; every output equals
 * what a fresh element gives for that input. */
GST_START_TEST (test_input_renegotiation)
{
  static const gint sizes[][2] = { {64, 48}, {32, 24}, {128, 96}, {64, 48} };
  GstHarness *h = harness ("width=32 height=24 method=area", I420 (64, 48),
      "video/x-raw");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    GstVideoInfo info;
    GstBuffer *in, *out, *ref;

    gst_harness_set_src_caps (h, I420 (sizes[i][0], sizes[i][1]));
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, sizes[i][0],
        sizes[i][1]);
    in = random_buffer (&info, 20 + i);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    ref = resize_with ("width=32 height=24 method=area", "I420", in,
        sizes[i][0], sizes[i][1]);
    fail_unless_equals_int (gst_buffer_get_size (out), 32 * 24 + 2 * 16 * 12);
    fail_unless (frames_equal ("I420", 32, 24, out, ref), "input %dx%d",
        sizes[i][0], sizes[i][1]);
    if (sizes[i][0] == 32)
      fail_unless (out == in, "same size must pass through");
    gst_buffer_unref (ref);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Error message posted by the element on a harness with a bus. */
static gchar *
push_expect_error (GstHarness * h, GstBuffer * buf)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *text;

  gst_element_set_bus (h->element, bus);
  fail_if (gst_harness_push (h, buf) == GST_FLOW_OK);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message posted");
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  return text;
}

GST_START_TEST (test_bad_values)
{
  GstElement *e = gst_element_factory_make ("stageresize", NULL);
  GError *err = NULL;
  GstElement *pipe;
  gint w;
  guint n;

  /* Out-of-range values read back as given (GObject's range check would
   * only warn and keep the default) and stop the element at start, naming
   * the property and the allowed values. */
  g_object_set (e, "width", -4, NULL);
  g_object_get (e, "width", &w, NULL);
  fail_unless_equals_int (w, -4);
  g_object_set (e, "width", -1, NULL);
  g_object_get (e, "width", &w, "n-threads", &n, NULL);
  fail_unless_equals_int (w, -1);
  fail_unless_equals_int (n, 1);
  gst_object_unref (e);
  expect_prop_refused ("videotestsrc num-buffers=3 ! stageresize width=0 ! "
      "fakesink", "width", "0", "allowed are 1 to 32768 (or -1");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stageresize "
      "height=40000 ! fakesink", "height", "40000", "allowed are 1 to 32768");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stageresize width=-4 ! "
      "fakesink", "width", "-4", "allowed are 1 to 32768");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stageresize "
      "n-threads=65 ! fakesink", "n-threads", "65", "allowed are 0 to 64");

  /* Unknown method names the property and the value. */
  pipe = gst_parse_launch ("fakesrc ! stageresize method=lanczos ! fakesink",
      &err);
  fail_unless (err != NULL);
  fail_unless (strstr (err->message, "method") && strstr (err->message,
          "lanczos"), "%s", err->message);
  g_clear_error (&err);
  if (pipe)
    gst_object_unref (pipe);
}

GST_END_TEST;

/* width, height and n-threads change while playing: a bad value set then
 * is an error at the next frame, not a warning and the old value. */
GST_START_TEST (test_bad_value_while_playing)
{
  GstHarness *h = harness ("width=32", I420 (64, 48),
      "video/x-raw,format=I420");
  GstElement *e = gst_harness_find_element (h, "stageresize");
  GstVideoInfo info;
  gchar *msg;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 48);
  gst_buffer_unref (gst_harness_push_and_pull (h, random_buffer (&info, 1)));
  g_object_set (e, "width", 0, NULL);
  msg = push_expect_error (h, random_buffer (&info, 2));
  fail_unless (strstr (msg, "Invalid value '0' for property 'width'") != NULL,
      "%s", msg);
  g_free (msg);
  g_object_set (e, "width", 32, "n-threads", 100, NULL);
  msg = push_expect_error (h, random_buffer (&info, 3));
  fail_unless (strstr (msg, "Invalid value '100' for property 'n-threads'")
      != NULL, "%s", msg);
  g_free (msg);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_conflicts)
{
  GstHarness *h;
  GstVideoInfo info;
  gchar *msg;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 640, 480);

  /* Property width against a downstream that fixes another width. */
  h = harness ("width=320", I420 (640, 480),
      "video/x-raw,width=200,height=100");
  msg = push_expect_error (h, random_buffer (&info, 1));
  fail_unless (strstr (msg, "width=320") && strstr (msg, "200x100"), "%s",
      msg);
  g_free (msg);
  gst_harness_teardown (h);

  /* only-shrink against a downstream that forces enlarging. */
  h = harness ("only-shrink=true", I420 (640, 480),
      "video/x-raw,width=1280,height=960");
  msg = push_expect_error (h, random_buffer (&info, 1));
  fail_unless (strstr (msg, "only-shrink") && strstr (msg, "1280x960"), "%s",
      msg);
  g_free (msg);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Issue 9: a size conflict found while streaming gives exactly one error
 * and the pipeline stops. The elements are linked without caps checks so
 * the conflict is met while negotiating, not when linking: then either the
 * caps query already fails (the source's not-negotiated error, alone) or
 * the caps event does (ours, saying what to change, and the source adds
 * none). Before the fix there were 2 to 7. */
static void
set_props (GstElement * e, const gchar * props)
{
  gchar **kv = g_strsplit (props, " ", -1), **p;

  for (p = kv; *p; p++) {
    gchar **pair = g_strsplit (*p, "=", 2);

    gst_util_set_object_arg (G_OBJECT (e), pair[0], pair[1]);
    g_strfreev (pair);
  }
  g_strfreev (kv);
}

static GstElement *
capsfilter (const gchar * caps)
{
  GstElement *f = gst_element_factory_make ("capsfilter", NULL);

  gst_util_set_object_arg (G_OBJECT (f), "caps", caps);
  return f;
}

static void
check_one_error (const gchar * in_caps, const gchar * props,
    const gchar * out_caps, const gchar * fragment)
{
  GstElement *pipe = gst_pipeline_new (NULL);
  GstElement *e[5];
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  GError *err = NULL;
  guint i, errors = 1;

  e[0] = gst_element_factory_make ("videotestsrc", NULL);
  e[1] = capsfilter (in_caps);
  e[2] = gst_element_factory_make ("stageresize", NULL);
  e[3] = capsfilter (out_caps);
  e[4] = gst_element_factory_make ("fakesink", NULL);
  gst_util_set_object_arg (G_OBJECT (e[0]), "num-buffers", "5");
  set_props (e[2], props);
  for (i = 0; i < 5; i++)
    gst_bin_add (GST_BIN (pipe), e[i]);
  for (i = 0; i < 4; i++)
    fail_unless (gst_element_link_pads_full (e[i], "src", e[i + 1], "sink",
            GST_PAD_LINK_CHECK_NOTHING));

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = stage_test_expect_error (pipe, 20 * GST_SECOND, props);
  gst_message_parse_error (msg, &err, NULL);
  if (GST_MESSAGE_SRC (msg) == GST_OBJECT (e[2]))
    fail_unless (strstr (err->message, fragment) != NULL, "%s: '%s'", props,
        err->message);
  else
    fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (e[0]), "%s: error "
        "from %s", props, GST_MESSAGE_SRC_NAME (msg));
  g_error_free (err);
  gst_message_unref (msg);
  /* what the stream still does before the application stops it */
  g_usleep (100 * 1000);
  fail_unless (gst_element_set_state (pipe, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GST_INFO ("extra error %" GST_PTR_FORMAT, msg);
    errors++;
    gst_message_unref (msg);
  }
  fail_unless_equals_int (errors, 1);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

/* Caps that arrive without a query (a harness, a source that does not
 * ask) meet the conflict in the caps event: our error, once, however many
 * buffers follow, and FLUSHING upstream so no second error is posted. */
GST_START_TEST (test_conflict_posted_once)
{
  GstHarness *h = harness ("width=320", I420 (640, 480),
      "video/x-raw,width=200,height=100");
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstMessage *msg;
  guint i, errors = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 640, 480);
  gst_element_set_bus (h->element, bus);
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, random_buffer (&info, i)),
        GST_FLOW_FLUSHING);
  /* a new caps event with the same conflict does not post again */
  gst_harness_set_src_caps (h, I420 (640, 480));
  fail_unless_equals_int (gst_harness_push (h, random_buffer (&info, 9)),
      GST_FLOW_FLUSHING);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    errors++;
    gst_message_unref (msg);
  }
  fail_unless_equals_int (errors, 1);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_conflict_one_error)
{
  guint run;

  for (run = 0; run < 10; run++) {
    check_one_error ("video/x-raw,width=320,height=240", "width=320",
        "video/x-raw,width=200,height=100", "requires 200x100");
    check_one_error ("video/x-raw,width=160,height=120",
        "width=320 height=240 only-shrink=true",
        "video/x-raw,width=320,height=240", "only-shrink=true");
  }
}

GST_END_TEST;

/* The gst-launch-1.0 lines: the conflict is seen when linking, so
 * gst-launch-1.0 says so and exits 1 at once, every time (a conflict first
 * met while prerolling can hit gst-launch-1.0 1.22's own race, which loses
 * an error posted before its main loop runs). */
GST_START_TEST (test_conflict_gst_launch)
{
  static const gchar *lines[] = {
    "videotestsrc num-buffers=5 ! stageresize width=320 ! "
        "video/x-raw,width=200,height=100 ! fakesink",
    "videotestsrc num-buffers=5 ! video/x-raw,width=160,height=120 ! "
        "stageresize width=320 height=240 only-shrink=true ! "
        "video/x-raw,width=320,height=240 ! fakesink",
  };
  guint run, i;

  for (run = 0; run < 15; run++)
    for (i = 0; i < G_N_ELEMENTS (lines); i++) {
      gchar *cmd = g_strdup_printf ("timeout 20 gst-launch-1.0 %s", lines[i]);
      gchar *out = NULL, *errs = NULL;
      gint status = 0;

      fail_unless (g_spawn_command_line_sync (cmd, &out, &errs, &status,
              NULL));
      fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 1,
          "%s: exit %d (124: hang)", lines[i], WEXITSTATUS (status));
      fail_unless (strstr (out, "stageresize") || strstr (errs,
              "stageresize"), "%s: %s %s", lines[i], out, errs);
      g_free (out);
      g_free (errs);
      g_free (cmd);
    }
}

GST_END_TEST;

/* A missing '!' leaves the src pad unlinked: the error says that, not
 * "downstream requires WxH ... relax the downstream caps filter". */
GST_START_TEST (test_unlinked_src)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=5 "
      "! video/x-raw,width=1280,height=720 ! stageresize width=640 "
      "height=360 fakesink", NULL);
  GstMessage *msg;
  GError *err = NULL;

  fail_unless (pipe != NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = stage_test_expect_error (pipe, 20 * GST_SECOND, NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "src pad is not linked") != NULL, "%s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

GST_END_TEST;

static void
check_interlaced_fields (gint sw, gint sh, gint dw, gint dh, guint threads)
{
  GstCaps *caps = I420 (sw, sh);
  GstVideoInfo in_info, out_info;
  GstVideoFrame fin, fout;
  GstBuffer *in, *out;
  GstHarness *h;
  gchar *props = g_strdup_printf ("width=%d height=%d method=bilinear "
      "n-threads=%u", dw, dh, threads);
  guint p;
  gint f;

  gst_caps_set_simple (caps, "interlace-mode", G_TYPE_STRING, "interleaved",
      NULL);
  gst_video_info_from_caps (&in_info, caps);
  h = harness (props, caps, "video/x-raw, interlace-mode=interleaved");
  g_free (props);
  gst_video_info_set_interlaced_format (&out_info, GST_VIDEO_FORMAT_I420,
      GST_VIDEO_INTERLACE_MODE_INTERLEAVED, dw, dh);
  in = random_buffer (&in_info, 7);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  gst_video_frame_map (&fin, &in_info, in, GST_MAP_READ);
  gst_video_frame_map (&fout, &out_info, out, GST_MAP_READ);
  for (p = 0; p < 3; p++)
    for (f = 0; f < 2; f++) {
      gint pw = GST_VIDEO_INFO_COMP_WIDTH (&in_info, p);
      gint ph = GST_VIDEO_INFO_COMP_HEIGHT (&in_info, p);
      gint ow = GST_VIDEO_INFO_COMP_WIDTH (&out_info, p);
      gint oh = GST_VIDEO_INFO_COMP_HEIGHT (&out_info, p);
      gint is = GST_VIDEO_FRAME_PLANE_STRIDE (&fin, p);
      gint os = GST_VIDEO_FRAME_PLANE_STRIDE (&fout, p);
      gint fh = (ph + 1 - f) / 2, foh = (oh + 1 - f) / 2, y;
      guint8 *want = g_malloc ((gsize) ow * foh);

      fail_unless_equals_int (stage_resize_plane ((guint8 *)
              GST_VIDEO_FRAME_PLANE_DATA (&fin, p) + f * is, pw, fh, 2 * is,
              want, ow, foh, ow, 1, STAGE_RESIZE_BILINEAR), 0);
      for (y = 0; y < foh; y++)
        fail_unless (memcmp (want + (gsize) y * ow,
                (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fout, p) +
                (gsize) (2 * y + f) * os, ow) == 0,
            "%dx%d -> %dx%d, %u threads: plane %u field %d line %d differs "
            "from the field resized alone", sw, sh, dw, dh, threads, p, f, y);
      g_free (want);
    }
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* Interlaced frames are resized field by field, as videoscale does: the
 * even output lines are the even input lines resized alone, the odd ones
 * the odd lines (bit for bit what ops gives for each field), also when
 * threads share the frame by slices of rows. */
GST_START_TEST (test_interlaced_fields)
{
  check_interlaced_fields (64, 48, 40, 30, 1);
  check_interlaced_fields (64, 48, 128, 96, 2);
  check_interlaced_fields (90, 70, 50, 110, 3);
  check_interlaced_fields (90, 71, 50, 101, 4);
}

GST_END_TEST;

/* The caps stageresize and videoscale settle on with the same input and
 * the same downstream caps. */
static GstCaps *
negotiated (const gchar * element, const gchar * in_str, const gchar * down)
{
  GstHarness *h = gst_harness_new (element);
  GstCaps *in = gst_caps_from_string (in_str), *got;
  GstVideoInfo info;
  GstBuffer *buf;

  gst_harness_set_src_caps (h, gst_caps_ref (in));
  gst_harness_set_sink_caps_str (h, down);
  fail_unless (gst_video_info_from_caps (&info, in));
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  /* defined bytes, so memory checkers stay quiet */
  gst_buffer_memset (buf, 0, 0x80, info.size);
  if (gst_harness_push (h, buf) != GST_FLOW_OK) {
    got = NULL;
  } else {
    gst_buffer_unref (gst_harness_pull (h));
    got = gst_pad_get_current_caps (h->sinkpad);
  }
  gst_caps_unref (in);
  gst_harness_teardown (h);
  return got;
}

/* Width, height, PAR (absent = 1/1) and interlace mode of @caps. */
static gchar *
geometry (GstCaps * caps)
{
  GstStructure *st;
  gint w = 0, h = 0, pn = 1, pd = 1;
  const gchar *mode;

  if (!caps)
    return g_strdup ("(not negotiated)");
  st = gst_caps_get_structure (caps, 0);
  gst_structure_get_int (st, "width", &w);
  gst_structure_get_int (st, "height", &h);
  gst_structure_get_fraction (st, "pixel-aspect-ratio", &pn, &pd);
  mode = gst_structure_get_string (st, "interlace-mode");
  return g_strdup_printf ("%dx%d par %d/%d %s", w, h, pn, pd,
      mode ? mode : "progressive");
}

GST_START_TEST (test_negotiation_like_videoscale)
{
#define IN(w, h, par) "video/x-raw,format=I420,width=" #w ",height=" #h \
    ",framerate=30/1,pixel-aspect-ratio=" par
#define OUT "video/x-raw,format=I420"
  static const gchar *cases[][3] = {
    /* ranges for both dimensions keep the DAR (a user's case) */
    {IN (854, 480, "1/1"), OUT ",width=[2,512],height=[2,512],"
          "pixel-aspect-ratio=1/1", "512x288 par 1/1 progressive"},
    {IN (480, 854, "1/1"), OUT ",width=[2,512],height=[2,512],"
          "pixel-aspect-ratio=1/1", NULL},
    {IN (854, 480, "1/1"), OUT ",width=[2,512],height=[2,512]", NULL},
    {IN (1920, 1080, "1/1"), OUT ",width=[100,300],height=[100,300],"
          "pixel-aspect-ratio=[1/2,2/1]", NULL},
    {IN (853, 479, "1/1"), OUT ",height=[2,240],pixel-aspect-ratio=1/1",
        NULL},
    /* fixed sizes, PAR fixed or free */
    {IN (1920, 1080, "1/1"), OUT ",width=1280,height=720", NULL},
    {IN (1920, 1080, "1/1"), OUT ",width=1280,height=1024", NULL},
    {IN (1920, 1080, "1/1"), OUT ",width=1280,height=1024,"
          "pixel-aspect-ratio=1/1", NULL},
    {IN (854, 480, "1/1"), OUT ",width=640", NULL},
    {IN (854, 480, "1/1"), OUT ",width=640,pixel-aspect-ratio=1/1", NULL},
    {IN (854, 480, "1/1"), OUT ",height=240,pixel-aspect-ratio=1/1", NULL},
    {IN (854, 480, "1/1"), OUT ",height=240", NULL},
    {IN (854, 480, "1/1"), OUT ",height=240,pixel-aspect-ratio=[1/1,2/1]",
        NULL},
    {IN (720, 576, "16/15"), OUT ",pixel-aspect-ratio=1/1", NULL},
    {IN (720, 576, "16/15"), OUT ",width=[100,400],pixel-aspect-ratio=1/1",
        NULL},
    {IN (640, 480, "4/3"), OUT ",width=320,pixel-aspect-ratio=1/1", NULL},
    {IN (640, 480, "4/3"), OUT ",width=320,height=240", NULL},
    {IN (640, 480, "1/1"), OUT, NULL},
    {IN (640, 480, "4/3"), OUT ",pixel-aspect-ratio=1/1",
        "853x480 par 1/1 progressive"},
    /* lists */
    {IN (1920, 1080, "1/1"), OUT ",width={320,640,1280},"
          "height={240,480,720},pixel-aspect-ratio=1/1", NULL},
    {IN (1280, 720, "1/1"), OUT ",width={320,640},height=[2,1000]", NULL},
    {IN (1280, 720, "1/1"), OUT ",width={320,1280},height={180,720}", NULL},
    /* interlaced input: the fields are resized, the mode kept */
    {IN (720, 576, "16/15") ",interlace-mode=interleaved", OUT
          ",width=360,height=288", NULL},
    {IN (720, 576, "16/15") ",interlace-mode=interleaved", OUT
          ",width=[2,400],height=[2,400],pixel-aspect-ratio=1/1", NULL},
    {IN (1920, 1080, "1/1") ",interlace-mode=mixed", OUT ",height=540",
        NULL},
  };
  /* Where videoscale 1.22 does not keep the DAR it means to keep: with
   * neither dimension fixed and a fixed output PAR other than the input's,
   * it multiplies the DAR by the PAR instead of dividing (853x480 at PAR
   * 4/3 from 640x480 at 1/1: a DAR of 64/27, not 4/3). stageresize keeps
   * the DAR there; docs/stageresize.md says so. */
  static const gchar *deviations[][4] = {
    {IN (640, 480, "1/1"), OUT ",pixel-aspect-ratio=4/3",
        "480x480 par 4/3 progressive", "853x480 par 4/3 progressive"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstCaps *ours = negotiated ("stageresize", cases[i][0], cases[i][1]);
    GstCaps *theirs = negotiated ("videoscale", cases[i][0], cases[i][1]);
    gchar *a = geometry (ours), *b = geometry (theirs);

    GST_INFO ("%s -> %s: stageresize %s, videoscale %s", cases[i][0],
        cases[i][1], a, b);
    fail_unless (theirs != NULL, "case %u: videoscale did not negotiate", i);
    fail_unless_equals_string (a, b);
    /* the expected value, where the table names it, guards the reference */
    if (cases[i][2])
      fail_unless_equals_string (a, cases[i][2]);
    g_free (a);
    g_free (b);
    gst_clear_caps (&ours);
    gst_clear_caps (&theirs);
  }
  for (i = 0; i < G_N_ELEMENTS (deviations); i++) {
    GstCaps *ours = negotiated ("stageresize", deviations[i][0],
        deviations[i][1]);
    GstCaps *theirs = negotiated ("videoscale", deviations[i][0],
        deviations[i][1]);
    gchar *a = geometry (ours), *b = geometry (theirs);

    GST_INFO ("%s -> %s: stageresize %s, videoscale %s (known deviation)",
        deviations[i][0], deviations[i][1], a, b);
    fail_unless_equals_string (a, deviations[i][2]);
    if (deviations[i][3])
      fail_unless_equals_string (b, deviations[i][3]);
    g_free (a);
    g_free (b);
    gst_clear_caps (&ours);
    gst_clear_caps (&theirs);
  }
#undef IN
#undef OUT
}

GST_END_TEST;

GST_START_TEST (test_events_and_timestamps)
{
  GstHarness *h = harness ("width=32 height=24", I420 (64, 48),
      "video/x-raw");
  GstVideoInfo info;
  GstEvent *ev;
  GstSegment seg;
  gint i, got = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 48);
  for (i = 0; i < 5; i++) {
    GstBuffer *b = random_buffer (&info, i);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  for (i = 0; i < 5; i++) {
    GstBuffer *b = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), i * GST_SECOND / 30);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (b), GST_SECOND / 30);
    fail_unless_equals_int (gst_buffer_get_size (b),
        32 * 24 + 2 * 16 * 12);
    gst_buffer_unref (b);
  }

  /* A flush goes through and streaming resumes with the same caps. */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, random_buffer (&info, i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while (gst_harness_buffers_in_queue (h) > 0) {
    gst_buffer_unref (gst_harness_pull (h));
    got++;
  }
  fail_unless_equals_int (got, 3);
  /* EOS reaches downstream after the buffers. */
  while ((ev = gst_harness_try_pull_event (h))) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
    if (eos) {
      got = -1;
      break;
    }
  }
  fail_unless_equals_int (got, -1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Changing method while playing takes effect on the next frame. */
GST_START_TEST (test_method_change_playing)
{
  GstHarness *h = harness ("width=40 height=30 method=nearest", I420 (80, 60),
      "video/x-raw");
  GstVideoInfo info;
  GstBuffer *in, *a, *b, *ref;
  GstElement *e;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 80, 60);
  in = random_buffer (&info, 9);
  gst_harness_push (h, gst_buffer_ref (in));
  a = gst_harness_pull (h);
  e = gst_harness_find_element (h, "stageresize");
  gst_util_set_object_arg (G_OBJECT (e), "method", "area");
  gst_object_unref (e);
  gst_harness_push (h, gst_buffer_ref (in));
  b = gst_harness_pull (h);
  ref = resize_with ("width=40 height=30 method=area", "I420", in, 80, 60);
  fail_if (frames_equal ("I420", 40, 30, a, b));
  fail_unless (frames_equal ("I420", 40, 30, b, ref));
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (ref);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A new width while playing renegotiates on the next buffer. */
GST_START_TEST (test_size_change_playing)
{
  GstHarness *h = harness ("width=32 height=24", I420 (64, 48),
      "video/x-raw");
  GstVideoInfo info;
  GstElement *e;
  GstCaps *caps;
  gint w = 0, h_ = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 48);
  fail_unless_equals_int (gst_harness_push (h, random_buffer (&info, 1)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  e = gst_harness_find_element (h, "stageresize");
  g_object_set (e, "width", 16, "height", 12, NULL);
  gst_object_unref (e);
  fail_unless_equals_int (gst_harness_push (h, random_buffer (&info, 2)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  caps = gst_pad_get_current_caps (h->sinkpad);
  gst_structure_get_int (gst_caps_get_structure (caps, 0), "width", &w);
  gst_structure_get_int (gst_caps_get_structure (caps, 0), "height", &h_);
  fail_unless_equals_int (w, 16);
  fail_unless_equals_int (h_, 12);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
stageresize_suite (void)
{
  Suite *s = suite_create ("stageresize");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_bad_value_while_playing);
  tcase_add_test (tc, test_every_method);
  tcase_add_test (tc, test_negotiation_properties);
  tcase_add_test (tc, test_negotiation_downstream);
  tcase_add_test (tc, test_only_shrink);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_threads_identical);
  tcase_add_test (tc, test_padding_zeroed);
  tcase_add_test (tc, test_threads_change_playing);
  tcase_add_test (tc, test_input_renegotiation);
  tcase_add_test (tc, test_bad_values);
  tcase_add_test (tc, test_conflicts);
  tcase_add_test (tc, test_conflict_posted_once);
  tcase_add_test (tc, test_conflict_one_error);
  tcase_add_test (tc, test_conflict_gst_launch);
  tcase_add_test (tc, test_unlinked_src);
  tcase_add_test (tc, test_interlaced_fields);
  stage_test_add_unless (tc, test_negotiation_like_videoscale,
      stage_test_missing_elements ("videoscale", NULL));
  tcase_add_test (tc, test_events_and_timestamps);
  tcase_add_test (tc, test_method_change_playing);
  tcase_add_test (tc, test_size_change_playing);
  return s;
}

GST_CHECK_MAIN (stageresize);
