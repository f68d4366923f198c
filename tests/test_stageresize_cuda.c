/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageresize on CUDA memory: the same bytes as the CPU path, frames that
 * stay on the GPU in a CUDA pool, a context shared with the neighbours, and
 * a clear error for a bad cuda-device-id.
 *
 * Needs a GPU: without one (or without nvcodec's cudaupload, or a build
 * without CUDA) the suite says why and exits 77, which meson counts as a
 * skip. scripts/gpu-test.sh runs it on a GPU machine. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>

#include "lib/stagetest.h"

#define CUDA_MEMORY_TYPE "gst.cuda.memory"
#define CUDA_CONTEXT_TYPE "gst.cuda.context"

static const gchar *formats[] = {
  "I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "RGBA", "BGRA", "RGBx",
  "BGRx", "ARGB", "ABGR", "RGB", "BGR",
};

static const gchar *methods[] = { "nearest", "bilinear", "area", "bicubic" };

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

/* One CUDA context for the many small runs of test_matches_cpu: the first
 * cudaupload's, handed to every later harness (making a context takes
 * longer than resizing a frame). */
static GstContext *shared_context;

static GstElement *
find_factory_child (GstBin * bin, const gchar * factory)
{
  GstIterator *it = gst_bin_iterate_elements (bin);
  GValue v = G_VALUE_INIT;
  GstElement *found = NULL;

  while (!found && gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&v);
    GstElementFactory *f = gst_element_get_factory (e);
    if (f && g_str_equal (GST_OBJECT_NAME (f), factory))
      found = gst_object_ref (e);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return found;
}

static void
keep_context (GstHarness * h)
{
  GstElement *up;
  GstQuery *q;
  GstContext *ctx = NULL;

  if (shared_context || !GST_IS_BIN (h->element))
    return;
  up = find_factory_child (GST_BIN (h->element), "cudaupload");
  if (!up)
    return;
  q = gst_query_new_context (CUDA_CONTEXT_TYPE);
  if (gst_element_query (up, q)) {
    gst_query_parse_context (q, &ctx);
    if (ctx)
      shared_context = gst_context_ref (ctx);
  }
  gst_query_unref (q);
  gst_object_unref (up);
}

static GstBuffer *
run_once (const gchar * desc, const gchar * format, gint sw, gint sh,
    gint dw, gint dh, GstBuffer * in)
{
  GstHarness *h = gst_harness_new_parse (desc);
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1", format, sw, sh);
  gchar *out_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d", format, dw, dh);
  GstBuffer *out;

  if (shared_context && strstr (desc, "cudaupload"))
    gst_element_set_context (h->element, shared_context);
  gst_harness_set_src_caps_str (h, caps);
  gst_harness_set_sink_caps_str (h, out_caps);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  if (strstr (desc, "cudaupload"))
    keep_context (h);
  out = gst_harness_pull (h);
  fail_unless (out != NULL, "%s gave no output", desc);
  gst_harness_teardown (h);
  g_free (caps);
  g_free (out_caps);
  return out;
}

/* Plane by plane, the visible bytes only (row padding differs by pool). */
static void
assert_frames_equal (const gchar * what, const gchar * format, gint w, gint h,
    GstBuffer * a, GstBuffer * b)
{
  GstVideoInfo info;
  GstVideoFrame fa, fb;
  guint p;

  gst_video_info_set_format (&info, gst_video_format_from_string (format), w,
      h);
  fail_unless (gst_video_frame_map (&fa, &info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, &info, b, GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS], y;
    gsize row;

    gst_video_format_info_component (info.finfo, p, comps);
    row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&fa, comps[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, comps[0]);
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, comps[0]); y++) {
      const guint8 *ra = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      fail_unless (memcmp (ra, rb, row) == 0,
          "%s: plane %u row %d differs from the CPU path", what, p, y);
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
}

static void
compare_with_cpu (const gchar * format, const gchar * method, gint sw, gint sh,
    gint dw, gint dh)
{
  GstVideoInfo info;
  GstBuffer *in, *cpu, *gpu;
  gchar *cpu_desc, *gpu_desc, *what;

  gst_video_info_set_format (&info, gst_video_format_from_string (format), sw,
      sh);
  in = random_buffer (&info, sw * 31 + sh);
  cpu_desc = g_strdup_printf ("stageresize width=%d height=%d method=%s",
      dw, dh, method);
  /* The caps make sure the frames really are on the GPU around us. */
  gpu_desc = g_strdup_printf ("cudaupload ! video/x-raw(memory:CUDAMemory) "
      "! stageresize width=%d height=%d method=%s "
      "! video/x-raw(memory:CUDAMemory) ! cudadownload", dw, dh, method);
  cpu = run_once (cpu_desc, format, sw, sh, dw, dh, in);
  gpu = run_once (gpu_desc, format, sw, sh, dw, dh, in);
  what = g_strdup_printf ("%s %s %dx%d -> %dx%d", format, method, sw, sh, dw,
      dh);
  assert_frames_equal (what, format, dw, dh, cpu, gpu);
  g_free (what);
  g_free (cpu_desc);
  g_free (gpu_desc);
  gst_buffer_unref (in);
  gst_buffer_unref (cpu);
  gst_buffer_unref (gpu);
}

GST_START_TEST (test_matches_cpu)
{
  static const gint sizes[][4] = {
    {1920, 1080, 640, 480}, {640, 360, 1283, 719}, {18, 10, 6, 4},
    {64, 64, 64, 31},
  };
  guint f, m, s;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (m = 0; m < G_N_ELEMENTS (methods); m++)
      for (s = 0; s < G_N_ELEMENTS (sizes); s++)
        compare_with_cpu (formats[f], methods[m], sizes[s][0], sizes[s][1],
            sizes[s][2], sizes[s][3]);
}

GST_END_TEST;

typedef struct
{
  guint buffers, cuda_buffers;
  GstBufferPool *pool;
  gboolean one_pool;
  GHashTable *memories;
} Seen;

static GstPadProbeReturn
count_output (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Seen *seen = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);

  seen->buffers++;
  if (gst_memory_is_type (mem, CUDA_MEMORY_TYPE))
    seen->cuda_buffers++;
  if (!seen->pool)
    seen->pool = buf->pool;
  else if (seen->pool != buf->pool)
    seen->one_pool = FALSE;
  g_hash_table_add (seen->memories, mem);
  return GST_PAD_PROBE_OK;
}

static gboolean
pad_caps_are_cuda (GstElement * e, const gchar * pad_name)
{
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean ret = caps && gst_caps_features_contains (gst_caps_get_features
      (caps, 0), "memory:CUDAMemory");

  gst_clear_caps (&caps);
  gst_object_unref (pad);
  return ret;
}

/* Frames stay on the GPU between cudaupload and cudadownload: both pads
 * negotiate CUDA memory and every output buffer is CUDA memory from one
 * CUDA pool that recycles its buffers. The caps after cudaupload are
 * needed: GstBaseTransform passes its input through whenever downstream
 * takes it, and stageresize takes system memory too (docs/cuda.md). */
GST_START_TEST (test_stays_on_gpu)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=30 "
      "! video/x-raw,format=NV12,width=1280,height=720 ! cudaupload "
      "! video/x-raw(memory:CUDAMemory) "
      "! stageresize name=r width=640 height=360 ! cudadownload "
      "! fakesink", NULL);
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipe), "r");
  GstPad *src = gst_element_get_static_pad (r, "src");
  Seen seen = { 0, 0, NULL, TRUE, g_hash_table_new (NULL, NULL) };

  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, count_output, &seen,
      NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  stage_test_expect_eos (pipe, 30 * GST_SECOND, NULL);
  fail_unless (pad_caps_are_cuda (r, "sink"));
  fail_unless (pad_caps_are_cuda (r, "src"));
  fail_unless_equals_int (seen.buffers, 30);
  fail_unless_equals_int (seen.cuda_buffers, 30);
  fail_unless (seen.pool != NULL && seen.one_pool);
  fail_unless_equals_string (G_OBJECT_TYPE_NAME (seen.pool),
      "GstCudaBufferPool");
  /* A pool reuses its buffers: far fewer memories than frames. */
  fail_unless (g_hash_table_size (seen.memories) < 30);
  gst_element_set_state (pipe, GST_STATE_NULL);
  g_hash_table_unref (seen.memories);
  gst_object_unref (src);
  gst_object_unref (r);
  gst_object_unref (pipe);
}

GST_END_TEST;

static GObject *
cuda_context_of (GstElement * e)
{
  GstQuery *q = gst_query_new_context (CUDA_CONTEXT_TYPE);
  GstContext *ctx = NULL;
  GObject *obj = NULL;

  if (gst_element_query (e, q)) {
    gst_query_parse_context (q, &ctx);
    if (ctx) {
      const GValue *v = gst_structure_get_value (gst_context_get_structure
          (ctx), CUDA_CONTEXT_TYPE);
      if (v)
        obj = g_value_get_object (v);
    }
  }
  gst_query_unref (q);
  return obj;
}

GST_START_TEST (test_context_shared)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=3 "
      "! video/x-raw,format=RGBA,width=320,height=240 ! cudaupload name=up "
      "! video/x-raw(memory:CUDAMemory) "
      "! stageresize name=r width=160 height=120 ! cudadownload ! fakesink",
      NULL);
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipe), "up");
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipe), "r");

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  stage_test_expect_eos (pipe, 30 * GST_SECOND, NULL);
  fail_unless (cuda_context_of (r) != NULL);
  fail_unless (cuda_context_of (r) == cuda_context_of (up),
      "stageresize made its own CUDA context instead of sharing cudaupload's");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (up);
  gst_object_unref (r);
  gst_object_unref (pipe);
}

GST_END_TEST;

GST_START_TEST (test_bad_device)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=3 "
      "! video/x-raw,format=NV12,width=320,height=240 ! cudaupload "
      "! video/x-raw(memory:CUDAMemory) "
      "! stageresize cuda-device-id=4096 width=160 height=120 ! cudadownload "
      "! fakesink", NULL);
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = stage_test_expect_error (pipe, 30 * GST_SECOND, NULL);
  gst_message_parse_error (msg, &err, &dbg);
  fail_unless (strstr (err->message, "cuda-device-id=4096") != NULL,
      "error does not name the device id: %s", err->message);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* The CUDA pool pads rows to its pitch: those bytes are zeroed like the CPU
 * path's, so a host map of a frame (a filesink writing it whole) reads no
 * stale data. Each output is dirtied on the host (0xAB over the padding,
 * uploaded again at the next CUDA map) and handed back to the pool; a
 * reused buffer shows whether the kernel zeroed the padding again. */
GST_START_TEST (test_padding_zeroed)
{
  GstHarness *h = gst_harness_new_parse ("cudaupload ! stageresize "
      "width=1283 height=719 method=bilinear");
  GstVideoInfo in_info, out_info;
  GHashTable *dirtied = g_hash_table_new (NULL, NULL);
  guint i, reused = 0, padded_rows = 0;

  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_RGB, 640, 360);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGB, 1283, 719);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGB,width=640,"
      "height=360,framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw(memory:CUDAMemory),"
      "format=RGB,width=1283,height=719");
  for (i = 0; i < 12; i++) {
    GstBuffer *in = random_buffer (&in_info, i), *out;
    GstMemory *mem;
    GstVideoFrame f;
    gint y;

    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    mem = gst_buffer_peek_memory (out, 0);
    fail_unless (gst_memory_is_type (mem, CUDA_MEMORY_TYPE));
    fail_unless (gst_video_frame_map (&f, &out_info, out,
            GST_MAP_READ | GST_MAP_WRITE));
    for (y = 0; y < GST_VIDEO_FRAME_HEIGHT (&f); y++) {
      guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
      gsize used = GST_VIDEO_FRAME_WIDTH (&f) * 3, k;
      /* gstcuda copies rows between the GPU and a host map only up to the
       * caps' own stride (3852 here), not to the pool's pitch: the bytes
       * past it live on one side only. Ours are those a host map reads. */
      gsize stride = MIN ((gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0),
          (gsize) GST_VIDEO_INFO_PLANE_STRIDE (&out_info, 0));

      if (stride > used)
        padded_rows++;
      for (k = used; k < stride; k++)
        fail_unless (row[k] == 0, "frame %u row %d: padding byte %"
            G_GSIZE_FORMAT " is 0x%02x, not 0 (memory %s)", i, y, k, row[k],
            g_hash_table_contains (dirtied, mem) ? "reused" : "fresh");
      memset (row + used, 0xAB, stride - used);
    }
    gst_video_frame_unmap (&f);
    if (g_hash_table_contains (dirtied, mem))
      reused++;
    g_hash_table_add (dirtied, mem);
    gst_buffer_unref (out);
  }
  /* Both must hold, or the test proved nothing. */
  fail_unless (padded_rows > 0, "the CUDA pool gave rows without padding");
  fail_unless (reused > 0, "the pool never reused a dirtied buffer");
  g_hash_table_unref (dirtied);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Zero copy: frames decoded by NVDEC go through stageresize (and into
 * NVENC where the GPU has one) without touching system memory.
 *
 * How host copies are counted: gstcuda memory written on the device
 * carries GST_CUDA_MEMORY_TRANSFER_NEED_DOWNLOAD until something maps it
 * for the host, which downloads it and clears the flag; a host write sets
 * GST_CUDA_MEMORY_TRANSFER_NEED_UPLOAD. So a frame that still has the first
 * flag and not the second once the next element is done with it never went
 * through system memory. Each frame is checked at stageresize's input (when
 * its output leaves) and at its output (when the next output leaves: by
 * then the sink or the encoder has had it). */
static gboolean
have_factory (const gchar * name)
{
  GstElementFactory *f = gst_element_factory_find (name);

  if (f)
    gst_object_unref (f);
  return f != NULL;
}

typedef struct
{
  GstBuffer *input;             /* stageresize's current input */
  GstBuffer *last_output;       /* held until the next output */
  guint frames, inputs_copied, outputs_copied, not_cuda;
} Copies;

static gboolean
went_to_host (GstBuffer * buf)
{
  guint i;

  for (i = 0; i < gst_buffer_n_memory (buf); i++) {
    GstMemory *m = gst_buffer_peek_memory (buf, i);
    if (!GST_MEMORY_FLAG_IS_SET (m, GST_MEMORY_FLAG_LAST << 0) ||
        GST_MEMORY_FLAG_IS_SET (m, GST_MEMORY_FLAG_LAST << 1))
      return TRUE;
  }
  return FALSE;
}

static GstPadProbeReturn
note_input (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Copies *c = user_data;

  gst_buffer_replace (&c->input, GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
check_copies (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Copies *c = user_data;
  GstBuffer *out = GST_PAD_PROBE_INFO_BUFFER (info);

  c->frames++;
  if (!gst_memory_is_type (gst_buffer_peek_memory (out, 0), CUDA_MEMORY_TYPE)
      || (c->input && !gst_memory_is_type (gst_buffer_peek_memory (c->input,
                  0), CUDA_MEMORY_TYPE)))
    c->not_cuda++;
  if (c->input && went_to_host (c->input))
    c->inputs_copied++;
  if (c->last_output && went_to_host (c->last_output))
    c->outputs_copied++;
  gst_buffer_replace (&c->input, NULL);
  gst_buffer_replace (&c->last_output, out);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_zero_copy_decode)
{
  gboolean enc = have_factory ("nvh264enc");
  gchar *desc;
  GstElement *pipe, *r;
  GstPad *sink, *src;
  Copies c = { 0, };

  if (!have_factory ("nvh264dec") || !have_factory ("x264enc")) {
    g_print ("test_zero_copy_decode: not run: no nvh264dec (NVDEC, "
        "libnvcuvid) or no x264enc here\n");
    return;
  }
  /* x264enc makes the stream on the CPU; everything after h264parse is
   * on the GPU. H100 and H200 have no NVENC: then a fakesink ends it. */
  desc = g_strdup_printf ("videotestsrc num-buffers=60 pattern=ball "
      "! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 "
      "! x264enc speed-preset=ultrafast key-int-max=15 ! h264parse "
      "! nvh264dec ! stageresize name=r width=640 height=360 %s ! fakesink",
      enc ? "! nvh264enc ! h264parse" : "");
  g_print ("test_zero_copy_decode: %s\n", desc);
  pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  r = gst_bin_get_by_name (GST_BIN (pipe), "r");
  sink = gst_element_get_static_pad (r, "sink");
  src = gst_element_get_static_pad (r, "src");
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, note_input, &c, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, check_copies, &c, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  stage_test_expect_eos (pipe, 60 * GST_SECOND, desc);
  fail_unless (pad_caps_are_cuda (r, "sink"));
  fail_unless (pad_caps_are_cuda (r, "src"));
  g_print ("test_zero_copy_decode: %u frames, %u not in CUDA memory, %u "
      "inputs and %u outputs copied to the host\n", c.frames, c.not_cuda,
      c.inputs_copied, c.outputs_copied);
  fail_unless_equals_int (c.frames, 60);
  fail_unless_equals_int (c.not_cuda, 0);
  fail_unless_equals_int (c.inputs_copied, 0);
  fail_unless_equals_int (c.outputs_copied, 0);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_replace (&c.input, NULL);
  gst_buffer_replace (&c.last_output, NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (r);
  gst_object_unref (pipe);
  g_free (desc);
}

GST_END_TEST;

/* The check of the zero-copy test must be able to fail: a sink that reads
 * each frame on the host (as an application mapping an appsink sample
 * does) makes every output count as copied. */
static void
read_on_host (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer u)
{
  GstMapInfo map;

  if (gst_buffer_map (buf, &map, GST_MAP_READ))
    gst_buffer_unmap (buf, &map);
}

GST_START_TEST (test_copy_count_sees_host_reads)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=10 "
      "! video/x-raw,format=NV12,width=320,height=240 ! cudaupload "
      "! video/x-raw(memory:CUDAMemory) "
      "! stageresize name=r width=160 height=120 "
      "! fakesink name=s signal-handoffs=true", NULL);
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipe), "r");
  GstElement *sk = gst_bin_get_by_name (GST_BIN (pipe), "s");
  GstPad *sink = gst_element_get_static_pad (r, "sink");
  GstPad *src = gst_element_get_static_pad (r, "src");
  Copies c = { 0, };

  g_signal_connect (sk, "handoff", G_CALLBACK (read_on_host), NULL);
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, note_input, &c, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, check_copies, &c, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  stage_test_expect_eos (pipe, 30 * GST_SECOND, NULL);
  fail_unless_equals_int (c.frames, 10);
  /* All but the last output were checked after the sink had read them. */
  fail_unless_equals_int (c.outputs_copied, 9);
  fail_unless_equals_int (c.inputs_copied, 0);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_replace (&c.input, NULL);
  gst_buffer_replace (&c.last_output, NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (sk);
  gst_object_unref (r);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* stageprof reads our kernel time from CUDA events (common/stagegputiming.h):
 * one GPU figure per frame, more than nothing and less than the running
 * time a frame. The suite runs under stageprof (main) where the tracer
 * plugin is there. */
static GstTracer *
stageprof_tracer (void)
{
  GList *list = gst_tracing_get_active_tracers (), *l;
  GstTracer *found = NULL;

  for (l = list; l; l = l->next)
    if (!found && strcmp (G_OBJECT_TYPE_NAME (l->data), "GstStageProf") == 0)
      found = gst_object_ref (l->data);
  g_list_free_full (list, gst_object_unref);
  return found;
}

static const GstStructure *
summary_row (const GstStructure * s, const gchar * table, const gchar * name)
{
  const GValue *rows = gst_structure_get_value (s, table);
  guint i;

  for (i = 0; rows && i < gst_value_array_get_size (rows); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (rows, i));
    if (g_strcmp0 (gst_structure_get_string (r, "name"), name) == 0)
      return r;
  }
  return NULL;
}

static void
run_to_eos (const gchar * desc)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);

  fail_unless (pipe != NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  stage_test_expect_eos (pipe, 60 * GST_SECOND, desc);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

GST_START_TEST (test_stageprof_gpu_time)
{
  GstTracer *t = stageprof_tracer ();
  GstStructure *s = NULL;
  const GstStructure *g, *e;
  guint64 frames = 0;
  gdouble gpu = 0, wall = 0, run = 0;
  guint pass;

  if (!t) {
    g_print ("test_stageprof_gpu_time: not run: no stageprof tracer\n");
    return;
  }
  /* Then with cuda-sync=true: the same figures, the element's time now
   * waited for its GPU work at the push (ours already waits). */
  for (pass = 0; pass < 2; pass++) {
    g_object_set (t, "cuda-sync", pass == 1, NULL);
    g_signal_emit_by_name (t, "reset");
    run_to_eos ("videotestsrc num-buffers=60 "
        "! video/x-raw,format=NV12,width=3840,height=2160 ! cudaupload "
        "! video/x-raw(memory:CUDAMemory) "
        "! stageresize name=r width=1920 height=1080 method=bicubic "
        "! cudadownload ! fakesink");
    g_signal_emit_by_name (t, "get-summary", &s);
    fail_unless (s != NULL);
    g = summary_row (s, "gpu", "r");
    e = summary_row (s, "elements", "r");
    fail_unless (g != NULL, "no GPU row for stageresize: %" GST_PTR_FORMAT, s);
    fail_unless (e != NULL);
    fail_unless (gst_structure_get_uint64 (g, "frames", &frames));
    fail_unless (gst_structure_get_double (g, "mean_ms", &gpu));
    fail_unless (gst_structure_get_double (e, "mean_ms", &wall));
    g_print ("test_stageprof_gpu_time (cuda-sync=%s): %" G_GUINT64_FORMAT
        " frames, GPU %.4f ms a frame, element %.4f ms a frame\n",
        pass ? "true" : "false", frames, gpu, wall);
    fail_unless (gst_structure_get_double (s, "wall_s", &run));
    fail_unless_equals_int (frames, 60);
    /* More than nothing, less than the running time a frame. */
    fail_unless (gpu > 0.0005 && gpu * frames < run * 1e3,
        "GPU %f ms a frame, running time %f s", gpu, run);
    gst_structure_free (s);
  }
  g_object_set (t, "cuda-sync", FALSE, NULL);
  gst_object_unref (t);
}

GST_END_TEST;

/* stagebin with a GPU device group: replicas of a CUDA chain (each
 * stageresize on its own CUDA stream) give the plain chain's frames, in
 * order, byte for byte; from system memory through cudaupload, and from
 * NVDEC's CUDA frames. */
static GstPadProbeReturn
hash_frame (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GPtrArray *hashes = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  g_ptr_array_add (hashes, g_compute_checksum_for_data (G_CHECKSUM_SHA1,
          map.data, map.size));
  gst_buffer_unmap (buf, &map);
  return GST_PAD_PROBE_OK;
}

static GPtrArray *
frame_hashes (const gchar * desc)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink;
  GstPad *pad;
  GPtrArray *hashes = g_ptr_array_new_with_free_func (g_free);

  fail_unless (pipe != NULL, "%s", desc);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, hash_frame, hashes,
      NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  stage_test_expect_eos (pipe, 60 * GST_SECOND, desc);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return hashes;
}

static void
assert_same_frames (const gchar * plain, const gchar * replicated,
    guint frames)
{
  GPtrArray *a = frame_hashes (plain), *b = frame_hashes (replicated);
  guint i;

  fail_unless_equals_int (a->len, frames);
  fail_unless_equals_int (b->len, frames);
  for (i = 0; i < frames; i++)
    fail_unless_equals_string (g_ptr_array_index (b, i),
        g_ptr_array_index (a, i));
  g_ptr_array_unref (a);
  g_ptr_array_unref (b);
}

GST_START_TEST (test_stagebin_gpu_group)
{
  const gchar *src = "videotestsrc num-buffers=40 pattern=ball "
      "! video/x-raw,format=NV12,width=640,height=360,framerate=30/1";
  const gchar *ops = "cudaupload ! video/x-raw(memory:CUDAMemory) "
      "! stageresize width=321 height=179 "
      "method=bicubic ! cudadownload";
  gchar *plain = g_strdup_printf ("%s ! %s ! fakesink name=out", src, ops);
  gchar *rep = g_strdup_printf ("%s ! stagebin replicas=3 "
      "work-packet-size=2 ops=\"%s\" ! fakesink name=out", src, ops);

  assert_same_frames (plain, rep, 40);
  g_free (plain);
  g_free (rep);
  if (have_factory ("nvh264dec") && have_factory ("x264enc")) {
    const gchar *dec = "videotestsrc num-buffers=40 pattern=ball "
        "! video/x-raw,format=I420,width=640,height=360,framerate=30/1 "
        "! x264enc threads=1 speed-preset=ultrafast key-int-max=10 "
        "! h264parse ! nvh264dec";
    plain = g_strdup_printf ("%s ! stageresize width=320 height=180 "
        "! cudadownload ! fakesink name=out", dec);
    rep = g_strdup_printf ("%s ! stagebin replicas=2 work-packet-size=4 "
        "ops=\"stageresize width=320 height=180\" queue-size=2 ! cudadownload "
        "! fakesink name=out", dec);
    assert_same_frames (plain, rep, 40);
    g_free (plain);
    g_free (rep);
  } else {
    g_print ("test_stagebin_gpu_group: the nvh264dec part not run: no "
        "nvh264dec or x264enc\n");
  }
}

GST_END_TEST;

static const gchar *
why_no_gpu (void)
{
  GstElementFactory *f = gst_element_factory_find ("stageresize");
  const GList *l;
  gboolean cuda_caps = FALSE;

  if (!f)
    return "stageresize is not built";
  for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;
    if (strstr (t->static_caps.string, "memory:CUDAMemory"))
      cuda_caps = TRUE;
  }
  gst_object_unref (f);
  if (!cuda_caps)
    return "built without CUDA (-Dcuda=disabled or no nvcc)";
  f = gst_element_factory_find ("cudaupload");
  if (!f)
    return "no CUDA device or driver (nvcodec registered no cudaupload)";
  gst_object_unref (f);
  return NULL;
}

static Suite *
stageresize_cuda_suite (void)
{
  Suite *s = suite_create ("stageresize_cuda");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_matches_cpu);
  tcase_add_test (tc, test_stays_on_gpu);
  tcase_add_test (tc, test_context_shared);
  tcase_add_test (tc, test_bad_device);
  tcase_add_test (tc, test_padding_zeroed);
  tcase_add_test (tc, test_zero_copy_decode);
  tcase_add_test (tc, test_copy_count_sees_host_reads);
  tcase_add_test (tc, test_stageprof_gpu_time);
  tcase_add_test (tc, test_stagebin_gpu_group);
  return s;
}

int
main (int argc, char **argv)
{
  const gchar *why;

  /* Under stageprof, for test_stageprof_gpu_time (nothing else reads it). */
  g_setenv ("GST_TRACERS", "stageprof(summary=none)", FALSE);
  gst_check_init (&argc, &argv);
  why = why_no_gpu ();
  if (why) {
    g_print ("SKIP: stageresize CUDA suite not run: %s\n", why);
    return 77;
  }
  return gst_check_run_suite (stageresize_cuda_suite (), "stageresize_cuda",
      __FILE__);
}
