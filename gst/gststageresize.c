/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stageresize, Scanner's Resize op on the CPU.
 *
 * The negotiation lives in GstStageResizeBase; this file owns the pixels:
 * one resampling plan per plane (ops/resize.c) and persistent worker
 * threads that each compute a slice of rows of every plane.
 */
/**
 * SECTION:element-stageresize
 * @title: stageresize
 *
 * Resizes raw video with separable, fixed-point filters: nearest, bilinear
 * and bicubic (both antialiased when shrinking) and area (exact box
 * average). Pixel centres are aligned: output x samples the source at
 * (x + 0.5) * in / out - 0.5.
 *
 * The output size comes from #GstStageResize:width and
 * #GstStageResize:height, else from downstream caps, else the input size,
 * keeping the display aspect ratio like videoscale. preserve-aspect derives
 * the dimension left unset (-1); only-shrink never enlarges (Scanner's `min`).
 * Equal input and output sizes pass buffers through untouched. Interlaced
 * frames (interlace-mode interleaved, and the frames flagged interlaced of
 * mixed) are resized field by field, so the fields never blend.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,width=1920,height=1080 ! stageresize width=640 preserve-aspect=true method=area ! videoconvert ! autovideosink
 * ]| Shrinks 1080p to 640x360 with the exact box filter.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageresize.h"
#include "gststageutil.h"
#ifdef HAVE_CUDA
#include "gststageresizecuda.h"
#include "common/stagegputiming.h"
#endif

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_stage_resize_debug);
#define GST_CAT_DEFAULT gst_stage_resize_debug

#define DEFAULT_PROP_N_THREADS 1
#define DEFAULT_PROP_CUDA_DEVICE_ID -1
#define MAX_THREADS 64
/* Fewer rows than this per slice cost more in hand-offs than they save. */
#define MIN_ROWS_PER_SLICE 16
/* Waking a sleeping thread takes tens of microseconds, and on a virtual
 * machine often more (61 us on average, 2.5 ms at worst, measured on a
 * 2-vCPU cloud VM): a frame of 1080p -> 640x480 split in two then took
 * longer than on one thread. So a worker that finished its slice watches
 * for the next frame this long before it sleeps (frames that come back to
 * back, as when a file is processed, then start at once), and the
 * streaming thread watches for the workers' slices to end before it
 * sleeps (they end at about the same time as its own). */
#define WORKER_SPIN_US 200
#define DONE_SPIN_US 2000

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause ()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__ ("yield")
#else
#define CPU_RELAX() do { } while (0)
#endif

enum
{
  PROP_0,
  PROP_N_THREADS,
  PROP_CUDA_DEVICE_ID,
};

#define FORMATS "{ I420, YV12, Y41B, Y42B, Y444, A420, NV12, NV21, NV16, " \
    "NV61, NV24, GRAY8, RGB, BGR, v308, IYU2, RGBA, BGRA, ARGB, ABGR, RGBx, " \
    "BGRx, xRGB, xBGR, AYUV }"
/* Sizes up to the kernels' limit. Interlaced frames (both fields in one
 * buffer) are resized field by field, as videoscale does; CUDA memory is
 * progressive only. */
#define CAPS_STR "video/x-raw, format = (string) " FORMATS ", " \
    "width = (int) [ 1, 32768 ], height = (int) [ 1, 32768 ], " \
    "framerate = (fraction) [ 0, max ], " \
    "interlace-mode = (string) { progressive, interleaved, mixed }"

#ifdef HAVE_CUDA
/* Built with CUDA, both pads also take CUDA memory: frames stay on the GPU
 * and our kernels (ops/resize_cuda.cu) resize them there. CUDA memory comes
 * first: where a neighbour offers both (cudaupload, cudadownload, nvcodec's
 * decoders) the GPU path wins, as a user who put cudaupload before us
 * expects; where one side takes system memory only, both sides get it. */
#define TEMPLATE_CAPS STAGE_CUDA_CAPS_STR "; " CAPS_STR
#else
#define TEMPLATE_CAPS CAPS_STR
#endif

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (TEMPLATE_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (TEMPLATE_CAPS));

typedef struct _Slice Slice;

struct _GstStageResize
{
  GstStageResizeBase parent;

  /* Set under the object lock. */
  guint n_threads;

  /* Streaming thread only. plans: whole frames; field_plans: the top and
   * bottom fields of interlaced frames (interleaved lines). */
  StageResizePlan *plans[GST_VIDEO_MAX_PLANES];
  StageResizePlan *field_plans[2][GST_VIDEO_MAX_PLANES];
  guint n_planes;
  StageResizeMethod plan_method;
  GstVideoInfo in_info, out_info;

  /* The slices of a frame: the streaming thread computes slice 0, worker
   * i slice i. Both sets change only between frames. */
  guint pool_slices;
  Slice *slices;
  gsize scratch_size;
  GThread *workers[MAX_THREADS];
  guint n_workers;
  /* work_lock guards quit and the sleeps on the two conds; generation
   * (frames handed out) and pending (slices of this frame not done yet)
   * are atomic, for the watching before a sleep. */
  GMutex work_lock;
  GCond work_cond, done_cond;
  gint generation;
  gint pending;
  gint quit;
  /* Per frame, per output plane: padding bytes after each row's pixels
   * that a slice zeroes, and the same for the last row, which may end at
   * the end of the buffer. */
  gsize tail[GST_VIDEO_MAX_PLANES], last_tail[GST_VIDEO_MAX_PLANES];

#ifdef HAVE_CUDA
  /* device_id under the object lock, the rest streaming thread only. */
  StageCudaState cuda;
#endif
};

struct _Slice
{
  GstStageResize *self;
  GstVideoFrame *in, *out;
  gboolean fields;
  guint index, count;
  gpointer scratch;
};

/* What a worker thread starts with. */
typedef struct
{
  GstStageResize *self;
  guint index;
  gint generation;
} WorkerStart;

#define gst_stage_resize_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstStageResize, gst_stage_resize,
    GST_TYPE_STAGE_RESIZE_BASE,
    GST_DEBUG_CATEGORY_INIT (gst_stage_resize_debug, "stageresize", 0,
        "stageresize element"));
GST_ELEMENT_REGISTER_DEFINE (stageresize, "stageresize", GST_RANK_NONE,
    GST_TYPE_STAGE_RESIZE);

static void
free_plans (GstStageResize * self)
{
  guint i;

  for (i = 0; i < GST_VIDEO_MAX_PLANES; i++) {
    stage_resize_plan_free (self->plans[i]);
    stage_resize_plan_free (self->field_plans[0][i]);
    stage_resize_plan_free (self->field_plans[1][i]);
    self->plans[i] = NULL;
    self->field_plans[0][i] = self->field_plans[1][i] = NULL;
  }
  self->n_planes = 0;
  self->scratch_size = 0;
}

static void
free_slices (GstStageResize * self)
{
  guint i;

  for (i = 0; i < self->pool_slices; i++)
    free (self->slices[i].scratch);
  g_free (self->slices);
  self->slices = NULL;
  self->pool_slices = 0;
}

/* Samples per pixel of `plane`: all our formats have 8-bit samples. */
static gint
plane_channels (const GstVideoInfo * info, guint plane, gint * comp)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, plane, comps);
  *comp = comps[0];
  return GST_VIDEO_INFO_COMP_PSTRIDE (info, comps[0]);
}

static gboolean
build_plans (GstStageResize * self, StageResizeMethod method)
{
  const GstVideoInfo *in = &self->in_info, *out = &self->out_info;
  guint p;

  free_plans (self);
  GST_DEBUG_OBJECT (self, "kernels: %s", stage_resize_simd_path ());
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (in); p++) {
    gint comp, ch = plane_channels (in, p, &comp), f;
    gint iw = GST_VIDEO_INFO_COMP_WIDTH (in, comp);
    gint ih = GST_VIDEO_INFO_COMP_HEIGHT (in, comp);
    gint ow = GST_VIDEO_INFO_COMP_WIDTH (out, comp);
    gint oh = GST_VIDEO_INFO_COMP_HEIGHT (out, comp);

    self->plans[p] = stage_resize_plan_new (iw, ih, ow, oh, ch, method);
    if (!self->plans[p])
      goto failed;
    GST_DEBUG_OBJECT (self, "plane %u: %dx%d -> %dx%d, %d channels, %s", p,
        iw, ih, ow, oh, ch, stage_resize_plan_kernel (self->plans[p]));
    self->scratch_size = MAX (self->scratch_size,
        stage_resize_plan_scratch_size (self->plans[p]));
    if (!GST_VIDEO_INFO_IS_INTERLACED (in))
      continue;
    /* The top field has the even lines, the bottom one the odd lines. */
    for (f = 0; f < 2; f++) {
      self->field_plans[f][p] = stage_resize_plan_new (iw, (ih + 1 - f) / 2,
          ow, (oh + 1 - f) / 2, ch, method);
      if (!self->field_plans[f][p])
        goto failed;
      self->scratch_size = MAX (self->scratch_size,
          stage_resize_plan_scratch_size (self->field_plans[f][p]));
    }
  }
  self->n_planes = GST_VIDEO_INFO_N_PLANES (in);
  self->plan_method = method;
  /* Scratch sizes changed: reallocate per-slice buffers on next frame. */
  free_slices (self);
  return TRUE;

failed:
  free_plans (self);
  return FALSE;
}

#ifdef HAVE_CUDA
static gboolean
configure_cuda (GstStageResize * self, StageResizeMethod method)
{
  GError *err = NULL;

  if (stage_cuda_state_configure (&self->cuda, GST_ELEMENT (self),
          &self->in_info, &self->out_info, method, &err)) {
    self->plan_method = method;
    return TRUE;
  }
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
      ("Cannot resize CUDA memory: %s.", err->message),
      ("%dx%d %s to %dx%d", GST_VIDEO_INFO_WIDTH (&self->in_info),
          GST_VIDEO_INFO_HEIGHT (&self->in_info),
          GST_VIDEO_INFO_NAME (&self->in_info),
          GST_VIDEO_INFO_WIDTH (&self->out_info),
          GST_VIDEO_INFO_HEIGHT (&self->out_info)));
  g_clear_error (&err);
  return FALSE;
}

/* CUDA memory never goes through GstVideoFilter's host mapping. */
static GstFlowReturn
gst_stage_resize_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstStageResize *self = GST_STAGE_RESIZE (trans);
  StageResizeMethod method;
  GError *err = NULL;

  if (!self->cuda.active)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->transform (trans, inbuf,
        outbuf);
  method = gst_stage_resize_base_get_method (GST_STAGE_RESIZE_BASE (self));
  /* configure_cuda posted the error */
  if (method != self->plan_method && !configure_cuda (self, method))
    return GST_FLOW_ERROR;
  if (stage_cuda_resizer_process (self->cuda.resizer, inbuf, outbuf, &err))
    return GST_FLOW_OK;
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("CUDA resize failed."),
      ("%s", err->message));
  g_clear_error (&err);
  return GST_FLOW_ERROR;
}

static gboolean
gst_stage_resize_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstStageResize *self = GST_STAGE_RESIZE (trans);
  GstCaps *caps = NULL;

  gst_query_parse_allocation (query, &caps, NULL);
  if (stage_cuda_caps_are_cuda (caps))
    return stage_cuda_state_decide_allocation (&self->cuda, GST_ELEMENT (self),
        query);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

static gboolean
gst_stage_resize_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstStageResize *self = GST_STAGE_RESIZE (trans);
  GstCaps *caps = NULL;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!gst_base_transform_is_passthrough (trans) &&
      stage_cuda_caps_are_cuda (caps))
    return stage_cuda_state_propose_allocation (&self->cuda,
        GST_ELEMENT (self), query);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
      decide_query, query);
}

static gboolean
gst_stage_resize_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstStageResize *self = GST_STAGE_RESIZE (trans);

  if (stage_cuda_state_query (&self->cuda, GST_ELEMENT (self), query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static void
gst_stage_resize_set_context (GstElement * element, GstContext * context)
{
  GstStageResize *self = GST_STAGE_RESIZE (element);

  stage_cuda_state_set_context (&self->cuda, element, context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}
#endif

static gboolean
gst_stage_resize_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstStageResize *self = GST_STAGE_RESIZE (filter);
  StageResizeMethod method;

  if (!GST_VIDEO_FILTER_CLASS (parent_class)->set_info (filter, incaps,
          in_info, outcaps, out_info))
    return FALSE;

  free_plans (self);
  if (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (filter)))
    return TRUE;

  self->in_info = *in_info;
  self->out_info = *out_info;
  method = gst_stage_resize_base_get_method (GST_STAGE_RESIZE_BASE (self));
#ifdef HAVE_CUDA
  self->cuda.active = FALSE;
  if (stage_cuda_caps_are_cuda (incaps))
    return configure_cuda (self, method);
#endif
  if (!build_plans (self, method)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot resize %dx%d to %dx%d.", GST_VIDEO_INFO_WIDTH (in_info),
            GST_VIDEO_INFO_HEIGHT (in_info), GST_VIDEO_INFO_WIDTH (out_info),
            GST_VIDEO_INFO_HEIGHT (out_info)),
        ("Sizes must be 1..%d, or out of memory.", STAGE_RESIZE_MAX_SIZE));
    return FALSE;
  }
  return TRUE;
}

/* Bytes of pixels in one row of output plane p, and its row count. */
static gsize
plane_row_bytes (const GstVideoInfo * info, guint p, gint * rows)
{
  gint comp, ch = plane_channels (info, p, &comp);

  *rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
  return (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp) * ch;
}

/* Rows [i * h / n, (i + 1) * h / n) of every plane, with their padding
 * zeroed (see zero_padding). */
static void
run_slice (Slice * s)
{
  GstStageResize *self = s->self;
  guint p;

  for (p = 0; p < self->n_planes; p++) {
    gint h, y, y0, y1, f, stride = GST_VIDEO_FRAME_PLANE_STRIDE (s->out, p);
    gint in_stride = GST_VIDEO_FRAME_PLANE_STRIDE (s->in, p);
    gsize rb = plane_row_bytes (&self->out_info, p, &h);
    guint8 *out = GST_VIDEO_FRAME_PLANE_DATA (s->out, p);
    const guint8 *in = GST_VIDEO_FRAME_PLANE_DATA (s->in, p);

    y0 = (gint) ((gint64) h * s->index / s->count);
    y1 = (gint) ((gint64) h * (s->index + 1) / s->count);
    if (!s->fields) {
      stage_resize_plan_run (self->plans[p], in, in_stride, out, stride, y0,
          y1, s->scratch);
    } else {
      /* Each field is a plane of every other line: the output rows
       * [y0, y1) hold field rows [(y0 + 1 - f) / 2, (y1 + 1 - f) / 2). */
      for (f = 0; f < 2; f++)
        stage_resize_plan_run (self->field_plans[f][p], in + f * in_stride,
            2 * in_stride, out + f * stride, 2 * stride, (y0 + 1 - f) / 2,
            (y1 + 1 - f) / 2, s->scratch);
    }
    for (y = y0; y < y1; y++) {
      gsize tail = y == h - 1 ? self->last_tail[p] : self->tail[p];

      if (tail)
        memset (out + (gsize) y * stride + rb, 0, tail);
    }
  }
}

/* Bytes from plane p's first byte to the end of the memory it lies in,
 * or 0 when it is not inside it. */
static gsize
plane_room (const GstVideoFrame * f, guint p, const GstMapInfo ** map)
{
  const guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (f, p);

  *map = f->meta ? &f->map[p] : &f->map[0];
  if (d < (*map)->data || d >= (*map)->data + (*map)->size)
    return 0;
  return (gsize) ((*map)->data + (*map)->size - d);
}

/* The kernels write only pixels. The rest of the output buffer (row
 * padding, gaps between planes such as the extra luma row of an I420
 * frame of odd height, the end of the buffer) would keep whatever the
 * allocator left there: a checksum of the whole buffer would differ from
 * run to run, and memory checkers flag the downstream element that reads
 * it (a filesink writing the buffer). So it is zeroed: the row padding by
 * the slices (set up here, in self->tail), the gaps here. A layout this
 * does not understand (planes outside the mapping, a stride shorter than
 * a row) is left as it is. */
static gboolean
prepare_padding (GstStageResize * self, const GstVideoFrame * f)
{
  guint p;

  for (p = 0; p < self->n_planes; p++) {
    const GstMapInfo *map;
    gint rows, stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, p);
    gsize rb = plane_row_bytes (&self->out_info, p, &rows);
    gsize room = plane_room (f, p, &map), last;

    if (stride < 0 || (gsize) stride < rb || rows < 1)
      goto unknown;
    last = (gsize) (rows - 1) * stride + rb;
    if (room < last)
      goto unknown;
    self->tail[p] = (gsize) stride - rb;
    self->last_tail[p] = MIN (self->tail[p], room - last);
  }
  return TRUE;

unknown:
  memset (self->tail, 0, sizeof (self->tail));
  memset (self->last_tail, 0, sizeof (self->last_tail));
  return FALSE;
}

static void
zero_gaps (GstStageResize * self, const GstVideoFrame * f)
{
  guint n = self->n_planes, p, q, k;

  for (p = 0; p < n; p++) {
    const GstMapInfo *map, *other;
    gsize start[GST_VIDEO_MAX_PLANES], end[GST_VIDEO_MAX_PLANES], pos = 0;
    guint count = 0;
    gboolean seen = FALSE;

    plane_room (f, p, &map);
    for (q = 0; q < p; q++) {
      plane_room (f, q, &other);
      seen |= other->data == map->data;
    }
    if (seen)
      continue;
    /* The planes in this memory, in address order. */
    for (q = p; q < n; q++) {
      gint rows, stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, q);
      gsize rb = plane_row_bytes (&self->out_info, q, &rows), s;

      plane_room (f, q, &other);
      if (other->data != map->data)
        continue;
      s = (gsize) ((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, q) -
          map->data);
      for (k = count; k > 0 && start[k - 1] > s; k--) {
        start[k] = start[k - 1];
        end[k] = end[k - 1];
      }
      start[k] = s;
      end[k] = s + (gsize) (rows - 1) * stride + rb + self->last_tail[q];
      count++;
    }
    for (k = 0; k < count; k++) {
      if (start[k] > pos)
        memset (map->data + pos, 0, start[k] - pos);
      pos = MAX (pos, end[k]);
    }
    if (pos < map->size)
      memset (map->data + pos, 0, map->size - pos);
  }
}

/* The next frame's generation once it differs from seen, or seen when
 * the worker is to quit: watched for WORKER_SPIN_US, then slept for. */
static gint
wait_for_frame (GstStageResize * self, gint seen)
{
  gint64 until = g_get_monotonic_time () + WORKER_SPIN_US;
  gint g;
  guint i;

  do {
    for (i = 0; i < 64; i++) {
      g = g_atomic_int_get (&self->generation);
      if (g != seen || g_atomic_int_get (&self->quit))
        return g_atomic_int_get (&self->quit) ? seen : g;
      CPU_RELAX ();
    }
  } while (g_get_monotonic_time () < until);
  g_mutex_lock (&self->work_lock);
  while ((g = g_atomic_int_get (&self->generation)) == seen &&
      !g_atomic_int_get (&self->quit))
    g_cond_wait (&self->work_cond, &self->work_lock);
  if (g_atomic_int_get (&self->quit))
    g = seen;
  g_mutex_unlock (&self->work_lock);
  return g;
}

static gpointer
worker_main (gpointer data)
{
  WorkerStart *start = data;
  GstStageResize *self = start->self;
  const guint index = start->index;
  gint seen = start->generation, g;

  g_free (start);
  while ((g = wait_for_frame (self, seen)) != seen) {
    seen = g;
    run_slice (&self->slices[index]);
    if (g_atomic_int_dec_and_test (&self->pending)) {
      g_mutex_lock (&self->work_lock);
      g_cond_signal (&self->done_cond);
      g_mutex_unlock (&self->work_lock);
    }
  }
  return NULL;
}

static void
stop_workers (GstStageResize * self)
{
  guint i;

  g_mutex_lock (&self->work_lock);
  g_atomic_int_set (&self->quit, 1);
  g_cond_broadcast (&self->work_cond);
  g_mutex_unlock (&self->work_lock);
  for (i = 0; i < self->n_workers; i++)
    g_thread_join (self->workers[i]);
  self->n_workers = 0;
  g_atomic_int_set (&self->quit, 0);
}

/* Workers for slices 1 .. n - 1. */
static gboolean
start_workers (GstStageResize * self, guint n)
{
  guint i;

  for (i = 1; i < n; i++) {
    WorkerStart *start = g_new (WorkerStart, 1);
    GError *err = NULL;
    gchar *name = g_strdup_printf ("stageresize-%u", i);

    start->self = self;
    start->index = i;
    start->generation = g_atomic_int_get (&self->generation);
    self->workers[i - 1] = g_thread_try_new (name, worker_main, start, &err);
    g_free (name);
    if (!self->workers[i - 1]) {
      GST_WARNING_OBJECT (self, "cannot start a worker thread: %s",
          err->message);
      g_error_free (err);
      g_free (start);
      return FALSE;
    }
    self->n_workers = i;
  }
  return TRUE;
}

static gboolean
gst_stage_resize_check_settings (GstStageResizeBase * base, GError ** error)
{
  GstStageResize *self = GST_STAGE_RESIZE (base);
  guint n;
#ifdef HAVE_CUDA
  gint dev;
#endif

  if (!GST_STAGE_RESIZE_BASE_CLASS (parent_class)->check_settings (base,
          error))
    return FALSE;
  GST_OBJECT_LOCK (self);
  n = self->n_threads;
#ifdef HAVE_CUDA
  dev = self->cuda.device_id;
#endif
  GST_OBJECT_UNLOCK (self);
  if (!gst_stage_check_uint_prop ("n-threads", n, 0, MAX_THREADS,
          "(0 = one per CPU core)", error))
    return FALSE;
#ifdef HAVE_CUDA
  if (!gst_stage_check_int_prop ("cuda-device-id", dev, -1, G_MAXINT,
          "(-1 = the one the neighbouring CUDA elements use)", error))
    return FALSE;
#endif
  return TRUE;
}

static guint
wanted_slices (GstStageResize * self)
{
  guint n, max_n;

  GST_OBJECT_LOCK (self);
  n = self->n_threads;
  GST_OBJECT_UNLOCK (self);
  if (n == 0)
    n = g_get_num_processors ();
  max_n = MAX (1, GST_VIDEO_INFO_HEIGHT (&self->out_info) /
      MIN_ROWS_PER_SLICE);
  return CLAMP (n, 1, MIN (max_n, MAX_THREADS));
}

/* (Re)creates the workers and the per-slice scratch for n slices. The
 * workers persist across frames. */
static gboolean
ensure_slices (GstStageResize * self, guint n)
{
  guint i;

  if (self->slices && self->pool_slices == n)
    return TRUE;
  free_slices (self);
  if (self->n_workers != n - 1) {
    stop_workers (self);
    if (!start_workers (self, n)) {
      stop_workers (self);
      return FALSE;
    }
  }
  self->slices = g_new0 (Slice, n);
  self->pool_slices = n;
  for (i = 0; i < n; i++) {
    self->slices[i].scratch = aligned_alloc (64,
        (self->scratch_size + 63) & ~(gsize) 63);
    if (!self->slices[i].scratch) {
      /* not a half-made set that the next frame would take as ready */
      free_slices (self);
      return FALSE;
    }
  }
  return TRUE;
}

static GstFlowReturn
gst_stage_resize_transform_frame (GstVideoFilter * filter,
    GstVideoFrame * in_frame, GstVideoFrame * out_frame)
{
  GstStageResize *self = GST_STAGE_RESIZE (filter);
  StageResizeMethod method;
  guint i, n;

  method = gst_stage_resize_base_get_method (GST_STAGE_RESIZE_BASE (self));
  if ((self->n_planes == 0 || method != self->plan_method) &&
      !build_plans (self, method))
    goto no_plan;
  n = wanted_slices (self);
  if (!ensure_slices (self, n))
    goto no_memory;
  if (prepare_padding (self, out_frame))
    zero_gaps (self, out_frame);

  for (i = 0; i < n; i++) {
    Slice *s = &self->slices[i];
    s->self = self;
    s->in = in_frame;
    s->out = out_frame;
    /* Interleaved frames always, mixed ones when flagged. */
    s->fields = GST_VIDEO_FRAME_IS_INTERLACED (in_frame) &&
        self->field_plans[0][0] != NULL;
    s->index = i;
    s->count = n;
  }
  if (n > 1) {
    g_atomic_int_set (&self->pending, n - 1);
    g_mutex_lock (&self->work_lock);
    g_atomic_int_inc (&self->generation);
    g_cond_broadcast (&self->work_cond);
    g_mutex_unlock (&self->work_lock);
  }
  /* The streaming thread computes the first slice itself. */
  run_slice (&self->slices[0]);
  if (n > 1) {
    gint64 until = g_get_monotonic_time () + DONE_SPIN_US;
    while (g_atomic_int_get (&self->pending) > 0 &&
        g_get_monotonic_time () < until)
      for (i = 0; i < 64; i++)
        CPU_RELAX ();
    g_mutex_lock (&self->work_lock);
    while (g_atomic_int_get (&self->pending) > 0)
      g_cond_wait (&self->done_cond, &self->work_lock);
    g_mutex_unlock (&self->work_lock);
  }
  return GST_FLOW_OK;

no_plan:
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Resize not configured."),
      ("No caps were negotiated before the first buffer, or out of memory."));
  return GST_FLOW_NOT_NEGOTIATED;
no_memory:
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("Cannot allocate %u worker slices.", n), (NULL));
  return GST_FLOW_ERROR;
}

static gboolean
gst_stage_resize_stop (GstBaseTransform * trans)
{
  GstStageResize *self = GST_STAGE_RESIZE (trans);

  free_plans (self);
  stop_workers (self);
  free_slices (self);
#ifdef HAVE_CUDA
  stage_cuda_state_clear (&self->cuda);
#endif
  return TRUE;
}

static void
gst_stage_resize_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageResize *self = GST_STAGE_RESIZE (object);

  switch (prop_id) {
    case PROP_N_THREADS:
      GST_OBJECT_LOCK (self);
      self->n_threads = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
#ifdef HAVE_CUDA
    case PROP_CUDA_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      self->cuda.device_id = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      break;
#endif
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_stage_resize_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageResize *self = GST_STAGE_RESIZE (object);

  switch (prop_id) {
    case PROP_N_THREADS:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->n_threads);
      GST_OBJECT_UNLOCK (self);
      break;
#ifdef HAVE_CUDA
    case PROP_CUDA_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      g_value_set_int (value, self->cuda.device_id);
      GST_OBJECT_UNLOCK (self);
      break;
#endif
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_stage_resize_finalize (GObject * object)
{
  GstStageResize *self = GST_STAGE_RESIZE (object);

  gst_stage_resize_stop (GST_BASE_TRANSFORM (object));
  g_mutex_clear (&self->work_lock);
  g_cond_clear (&self->work_cond);
  g_cond_clear (&self->done_cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_stage_resize_class_init (GstStageResizeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  GST_STAGE_RESIZE_BASE_CLASS (klass)->check_settings =
      GST_DEBUG_FUNCPTR (gst_stage_resize_check_settings);
  gobject_class->set_property = gst_stage_resize_set_property;
  gobject_class->get_property = gst_stage_resize_get_property;
  gobject_class->finalize = gst_stage_resize_finalize;

  g_object_class_install_property (gobject_class, PROP_N_THREADS,
      g_param_spec_uint ("n-threads", "Threads",
          "Threads that share each frame, by slices of rows (0 = one per "
          "CPU core); idle workers watch 200 us for the next frame before "
          "they sleep; 0 to 64, more is an error at start or at the next "
          "frame", 0, G_MAXUINT, DEFAULT_PROP_N_THREADS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
#ifdef HAVE_CUDA
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device",
          "GPU to use for CUDA memory caps (-1 = the one the neighbouring "
          "CUDA elements use, else the first; below -1 is an error at "
          "start)", G_MININT, G_MAXINT,
          DEFAULT_PROP_CUDA_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
#endif

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Stage resize",
      "Filter/Converter/Video/Scaler",
      "Resizes video (nearest, bilinear, area, bicubic) with fast separable "
      "fixed-point filters, Scanner's Resize op",
      "gst-stages developers");

  trans_class->stop = GST_DEBUG_FUNCPTR (gst_stage_resize_stop);
#ifdef HAVE_CUDA
  /* stageprof then asks for our kernel time (common/stagegputiming.h). */
  gst_element_class_add_static_metadata (element_class, STAGE_GPU_TIMING_KEY,
      "CUDA events");
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_stage_resize_set_context);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_stage_resize_transform);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_stage_resize_decide_allocation);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_stage_resize_propose_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_stage_resize_query);
#endif
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_stage_resize_set_info);
  filter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_stage_resize_transform_frame);
}

static void
gst_stage_resize_init (GstStageResize * self)
{
  self->n_threads = DEFAULT_PROP_N_THREADS;
#ifdef HAVE_CUDA
  self->cuda.device_id = DEFAULT_PROP_CUDA_DEVICE_ID;
#endif
  g_mutex_init (&self->work_lock);
  g_cond_init (&self->work_cond);
  g_cond_init (&self->done_cond);
}
