/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stageresize's CUDA path: kernel module loading, taps upload,
 * kernel launches. Built as its own loadable module (libgststages-cuda.mod)
 * that links gstcuda and, through it, GL, X11 and Wayland: the stages plugin
 * opens it only when a pipeline hands stageresize CUDA memory or a CUDA
 * context (gststageresizecudaload.c), so CPU-only hosts never load them. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include "gststageresizecudamodule.h"

#include <dlfcn.h>
#include <gmodule.h>
#include <gst/cuda/gstcudacontext.h>

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "common/stagegputiming.h"

GST_DEBUG_CATEGORY_STATIC (stage_cuda_debug);
#define GST_CAT_DEFAULT stage_cuda_debug

/* The fatbin nvcc made of ops/resize_cuda.cu (generated C array). */
extern const unsigned char stage_resize_cuda_fatbin[];

/* The element keeps the context as a plain pointer (it never sees gstcuda's
 * types); only this module dereferences it. */
static void mod_resizer_free (StageCudaResizer * r);

#define CTX(st) ((GstCudaContext *) (st)->context)
#define CTXP(st) ((GstCudaContext **) &(st)->context)

#define BLOCK_X 32
#define BLOCK_Y 8

/* Output pixels per thread by channel count: 1 is stage_resize_cN, else
 * stage_resize_cN_xPX (ops/resize_cuda.cu). Chosen with bench/cuda.sh on
 * an H200 (docs/cuda.md): 2 a thread gained 10-30 % on 1- and 2-byte
 * planes (bicubic most), and lost up to 80 % on RGBA. */
static const guint px_by_channels[4] = { 2, 2, 1, 1 };

typedef struct
{
  CUdeviceptr xs, xw, ys, yw;
  gint tx, ty, order;
  gint out_w, out_h, channels;
} CudaPlane;

struct _StageCudaResizer
{
  GstCudaContext *context;
  CUmodule module;
  CUfunction fn[4];             /* by channel count - 1 */
  CUstream stream;
  CudaPlane planes[GST_VIDEO_MAX_PLANES];
  guint n_planes;
  GstVideoInfo in_info, out_info;
  /* Set when stageprof asked for GPU times (common/stagegputiming.h):
   * kernel time by two events around each frame's launches. */
  const StageGpuTiming *timing;
  GstElement *element;          /* not reffed: it owns us */
  CUevent ev[2];
};

/* CUDA events from libcuda itself: gstcuda 1.22's loader has none. */
static struct
{
  gsize once;
  CUresult (*create) (CUevent *, unsigned int);
  CUresult (*record) (CUevent, CUstream);
  CUresult (*elapsed) (float *, CUevent, CUevent);
  CUresult (*destroy) (CUevent);
} ev_api;

static gboolean
events_available (void)
{
  if (g_once_init_enter (&ev_api.once)) {
    void *h = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (h) {
      ev_api.create = dlsym (h, "cuEventCreate");
      ev_api.record = dlsym (h, "cuEventRecord");
      ev_api.elapsed = dlsym (h, "cuEventElapsedTime");
      ev_api.destroy = dlsym (h, "cuEventDestroy_v2");
      dlclose (h);
    }
    g_once_init_leave (&ev_api.once, 1);
  }
  return ev_api.create && ev_api.record && ev_api.elapsed && ev_api.destroy;
}

static void
debug_init (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (stage_cuda_debug, "stageresizecuda", 0,
        "stageresize CUDA path");
    g_once_init_leave (&once, 1);
  }
}

static gboolean
mod_device_available (void)
{
  int count = 0;

  debug_init ();
  if (!gst_cuda_load_library ())
    return FALSE;
  if (CuInit (0) != CUDA_SUCCESS || CuDeviceGetCount (&count) != CUDA_SUCCESS)
    return FALSE;
  return count > 0;
}

static gboolean
cuda_check (CUresult res, const gchar * what, GError ** error)
{
  const gchar *name = NULL;

  if (res == CUDA_SUCCESS)
    return TRUE;
  CuGetErrorName (res, &name);
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
      "CUDA %s failed: %s (%d)", what, name ? name : "unknown error", res);
  return FALSE;
}

static StageCudaResizer *
mod_resizer_new (GstCudaContext * context, GError ** error)
{
  StageCudaResizer *r = g_new0 (StageCudaResizer, 1);
  gboolean ok;
  guint c;

  debug_init ();
  r->context = gst_object_ref (context);
  if (!gst_cuda_context_push (context)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "could not make the CUDA context current");
    mod_resizer_free (r);
    return NULL;
  }
  ok = cuda_check (CuModuleLoadData (&r->module, stage_resize_cuda_fatbin),
      "loading the resize kernels (does the fatbin cover this GPU?)", error);
  for (c = 0; ok && c < 4; c++) {
    gchar name[32];
    if (px_by_channels[c] == 1)
      g_snprintf (name, sizeof (name), "stage_resize_c%u", c + 1);
    else
      g_snprintf (name, sizeof (name), "stage_resize_c%u_x%u", c + 1,
          px_by_channels[c]);
    ok = cuda_check (CuModuleGetFunction (&r->fn[c], r->module, name),
        name, error);
  }
  if (ok)
    /* A blocking stream: it waits for work on the legacy default stream.
     * gstcuda 1.22 uploads a frame written on the host (cuMemcpy2D from
     * pageable staging memory) there, and such a copy may still be in
     * flight when the call returns; a non-blocking stream let our kernels
     * run beside it and the copy land on their output (seen on an H200:
     * stale padding in reused pool buffers). */
    ok = cuda_check (CuStreamCreate (&r->stream, CU_STREAM_DEFAULT),
        "stream creation", error);
  gst_cuda_context_pop (NULL);
  if (!ok) {
    mod_resizer_free (r);
    return NULL;
  }
  return r;
}

static void
free_planes (StageCudaResizer * r)
{
  guint i;

  for (i = 0; i < r->n_planes; i++) {
    CudaPlane *p = &r->planes[i];
    CUdeviceptr *ptrs[] = { &p->xs, &p->xw, &p->ys, &p->yw };
    guint k;
    for (k = 0; k < G_N_ELEMENTS (ptrs); k++) {
      if (*ptrs[k])
        CuMemFree (*ptrs[k]);
      *ptrs[k] = 0;
    }
  }
  r->n_planes = 0;
}

static void
mod_resizer_free (StageCudaResizer * r)
{
  if (!r)
    return;
  if (gst_cuda_context_push (r->context)) {
    free_planes (r);
    if (r->ev[0])
      ev_api.destroy (r->ev[0]);
    if (r->ev[1])
      ev_api.destroy (r->ev[1]);
    if (r->stream)
      CuStreamDestroy (r->stream);
    if (r->module)
      CuModuleUnload (r->module);
    gst_cuda_context_pop (NULL);
  }
  gst_object_unref (r->context);
  g_free (r);
}

/* stageprof's request for GPU times, if it made one (at element-new). */
static void
resizer_set_timing (StageCudaResizer * r, GstElement * element)
{
  const StageGpuTiming *t = g_object_get_data (G_OBJECT (element),
      STAGE_GPU_TIMING_KEY);

  if (!t || t->abi != STAGE_GPU_TIMING_ABI || !t->report
      || !events_available () || !gst_cuda_context_push (r->context))
    return;
  if (ev_api.create (&r->ev[0], 0) == 0 && ev_api.create (&r->ev[1], 0) == 0) {
    r->timing = t;
    r->element = element;
  } else {
    GST_WARNING_OBJECT (element, "no CUDA events: GPU time not reported");
    if (r->ev[0])
      ev_api.destroy (r->ev[0]);
    r->ev[0] = r->ev[1] = NULL;
  }
  gst_cuda_context_pop (NULL);
}

static gboolean
upload (CUdeviceptr * dst, const void *src, gsize size, GError ** error)
{
  CUDA_MEMCPY2D copy = { 0, };

  if (!cuda_check (CuMemAlloc (dst, MAX (size, 1)), "allocation", error))
    return FALSE;
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = src;
  copy.srcPitch = size;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = *dst;
  copy.dstPitch = size;
  copy.WidthInBytes = size;
  copy.Height = 1;
  return cuda_check (CuMemcpy2D (&copy), "taps upload", error);
}

static gboolean
upload_taps (const StageResizeTaps * t, CUdeviceptr * start,
    CUdeviceptr * weights, GError ** error)
{
  return upload (start, t->start, sizeof (int32_t) * t->out_size, error) &&
      upload (weights, t->weights,
      sizeof (int16_t) * (gsize) t->out_size * t->n_taps, error);
}

static gboolean
configure_plane (CudaPlane * p, const GstVideoInfo * in,
    const GstVideoInfo * out, guint plane, StageResizeMethod method,
    GError ** error)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  StageResizePlan *plan;
  gboolean ok;

  gst_video_format_info_component (in->finfo, plane, comps);
  p->channels = GST_VIDEO_INFO_COMP_PSTRIDE (in, comps[0]);
  p->out_w = GST_VIDEO_INFO_COMP_WIDTH (out, comps[0]);
  p->out_h = GST_VIDEO_INFO_COMP_HEIGHT (out, comps[0]);
  if (p->channels < 1 || p->channels > 4) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "format %s has %d bytes per pixel in plane %u: not supported on CUDA",
        GST_VIDEO_INFO_NAME (in), p->channels, plane);
    return FALSE;
  }
  /* The CPU plan decides the taps and the pass order, so both paths give
   * the same bytes. */
  plan = stage_resize_plan_new (GST_VIDEO_INFO_COMP_WIDTH (in, comps[0]),
      GST_VIDEO_INFO_COMP_HEIGHT (in, comps[0]), p->out_w, p->out_h,
      p->channels, method);
  if (!plan) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "cannot resize plane %u of %dx%d to %dx%d", plane,
        GST_VIDEO_INFO_COMP_WIDTH (in, comps[0]),
        GST_VIDEO_INFO_COMP_HEIGHT (in, comps[0]), p->out_w, p->out_h);
    return FALSE;
  }
  p->order = stage_resize_plan_order (plan);
  p->tx = stage_resize_plan_taps (plan, 0)->n_taps;
  p->ty = stage_resize_plan_taps (plan, 1)->n_taps;
  ok = upload_taps (stage_resize_plan_taps (plan, 0), &p->xs, &p->xw, error) &&
      upload_taps (stage_resize_plan_taps (plan, 1), &p->ys, &p->yw, error);
  stage_resize_plan_free (plan);
  return ok;
}

static gboolean
mod_resizer_configure (StageCudaResizer * r, const GstVideoInfo * in,
    const GstVideoInfo * out, StageResizeMethod method, GError ** error)
{
  gboolean ok = TRUE;
  guint i;

  if (!gst_cuda_context_push (r->context)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "could not make the CUDA context current");
    return FALSE;
  }
  free_planes (r);
  r->in_info = *in;
  r->out_info = *out;
  for (i = 0; ok && i < GST_VIDEO_INFO_N_PLANES (in); i++) {
    r->n_planes = i + 1;
    ok = configure_plane (&r->planes[i], in, out, i, method, error);
  }
  gst_cuda_context_pop (NULL);
  return ok;
}

static gboolean
launch_plane (StageCudaResizer * r, const CudaPlane * p,
    GstVideoFrame * in, GstVideoFrame * out, guint plane, GError ** error)
{
  CUdeviceptr src = (CUdeviceptr) GST_VIDEO_FRAME_PLANE_DATA (in, plane);
  CUdeviceptr dst = (CUdeviceptr) GST_VIDEO_FRAME_PLANE_DATA (out, plane);
  gint src_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (in, plane);
  gint dst_pitch = GST_VIDEO_FRAME_PLANE_STRIDE (out, plane);
  gint out_w = p->out_w, out_h = p->out_h, tx = p->tx, ty = p->ty;
  gint order = p->order;
  CUdeviceptr xs = p->xs, xw = p->xw, ys = p->ys, yw = p->yw;
  void *args[] = { &src, &src_pitch, &dst, &dst_pitch, &out_w, &out_h,
    &xs, &xw, &tx, &ys, &yw, &ty, &order
  };

  /* Threads cover the whole pitch: those past the picture zero the row's
   * padding. */
  gint cover_w = MAX (out_w, (dst_pitch + p->channels - 1) / p->channels);
  gint px = px_by_channels[p->channels - 1];

  return cuda_check (CuLaunchKernel (r->fn[p->channels - 1],
          ((cover_w + px - 1) / px + BLOCK_X - 1) / BLOCK_X,
          (out_h + BLOCK_Y - 1) / BLOCK_Y, 1,
          BLOCK_X, BLOCK_Y, 1, 0, r->stream, args, NULL), "kernel launch",
      error);
}

static gboolean
mod_resizer_process (StageCudaResizer * r, GstBuffer * inbuf,
    GstBuffer * outbuf, GError ** error)
{
  GstVideoFrame in, out;
  gboolean ok = TRUE, timed;
  gfloat ms = 0;
  guint i;

  if (!gst_video_frame_map (&in, &r->in_info, inbuf, GST_MAP_READ | GST_MAP_CUDA))
    goto map_failed;
  if (!gst_video_frame_map (&out, &r->out_info, outbuf,
          GST_MAP_WRITE | GST_MAP_CUDA)) {
    gst_video_frame_unmap (&in);
    goto map_failed;
  }
  if (!gst_cuda_context_push (r->context)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "could not make the CUDA context current");
    ok = FALSE;
  }
  timed = ok && r->ev[1] && ev_api.record (r->ev[0], r->stream) == 0;
  for (i = 0; ok && i < r->n_planes; i++)
    ok = launch_plane (r, &r->planes[i], &in, &out, i, error);
  timed = timed && ok && ev_api.record (r->ev[1], r->stream) == 0;
  /* gstcuda 1.22 has no stream on its memory: downstream may read it on
   * any stream, so the frame must be complete before it leaves. */
  if (ok)
    ok = cuda_check (CuStreamSynchronize (r->stream), "synchronisation",
        error);
  /* The kernels' time, placed to end when the host saw them done. */
  if (ok && timed && ev_api.elapsed (&ms, r->ev[0], r->ev[1]) == 0) {
    guint64 end = gst_util_get_timestamp ();
    guint64 dur = (guint64) (ms * 1e6);
    r->timing->report (r->timing->data, r->element, end - MIN (dur, end),
        end);
  }
  gst_cuda_context_pop (NULL);
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  return ok;

map_failed:
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "could not map a buffer as CUDA memory");
  return FALSE;
}

/* ---- element side ------------------------------------------------------ */

/* The property is written under the element's object lock. */
static gint
device_id_of (StageCudaState * st, GstElement * element)
{
  gint id;

  GST_OBJECT_LOCK (element);
  id = st->device_id;
  GST_OBJECT_UNLOCK (element);
  return id;
}


static void
mod_state_set_context (StageCudaState * st, GstElement * element,
    GstContext * context)
{
  debug_init ();
  /* The kernels are loaded into the first context: keep it. */
  if (CTX (st))
    return;
  gst_cuda_handle_set_context (element, context, device_id_of (st, element),
      CTXP (st));
}

static gboolean
mod_state_query (StageCudaState * st, GstElement * element,
    GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  return gst_cuda_handle_context_query (element, query, CTX (st));
}

static gboolean
mod_state_configure (StageCudaState * st, GstElement * element,
    const GstVideoInfo * in, const GstVideoInfo * out,
    StageResizeMethod method, GError ** error)
{
  gint device_id = device_id_of (st, element);

  debug_init ();
  /* gstcuda's context code calls the driver unchecked: load it first. */
  if (!gst_cuda_load_library ()) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "the CUDA driver library (libcuda.so.1) cannot be loaded: is an "
        "NVIDIA driver installed?");
    return FALSE;
  }
  if (!CTX (st) && !gst_cuda_ensure_element_context (element,
          device_id, CTXP (st))) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "no CUDA context for cuda-device-id=%d (is there a GPU with that "
        "index and a working driver?)", device_id);
    return FALSE;
  }
  if (!st->resizer) {
    st->resizer = mod_resizer_new (CTX (st), error);
    if (!st->resizer)
      return FALSE;
    resizer_set_timing (st->resizer, element);
  }
  st->active = mod_resizer_configure (st->resizer, in, out, method,
      error);
  return st->active;
}

/* A CUDA pool of our context for `caps`, configured; its size in `size`. */
static GstBufferPool *
cuda_pool_for (StageCudaState * st, GstBufferPool * pool, GstCaps * caps,
    guint min, guint max, guint * size)
{
  GstVideoInfo info;
  GstStructure *config;

  if (!gst_video_info_from_caps (&info, caps))
    return NULL;
  /* Only an inactive CUDA pool of our context can take our config. */
  if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool) ||
          GST_CUDA_BUFFER_POOL (pool)->context != CTX (st) ||
          gst_buffer_pool_is_active (pool)))
    gst_clear_object (&pool);
  if (!pool)
    pool = gst_cuda_buffer_pool_new (CTX (st));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info),
      min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  /* The pool pads rows for the GPU: report the size it really uses. */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

static gboolean
mod_state_decide_allocation (StageCudaState * st, GstElement * element,
    GstQuery * query)
{
  GstCaps *caps = NULL;
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean have = gst_query_get_n_allocation_pools (query) > 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !CTX (st))
    return FALSE;
  if (have)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  pool = cuda_pool_for (st, pool, caps, min, max, &size);
  if (!pool) {
    GST_WARNING_OBJECT (element, "cannot configure a CUDA buffer pool");
    return FALSE;
  }
  if (have)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

static gboolean
mod_state_propose_allocation (StageCudaState * st, GstElement * element,
    GstQuery * query)
{
  GstCaps *caps = NULL;
  GstBufferPool *pool;
  guint size = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_cuda_load_library ())
    return FALSE;
  if (!CTX (st) && !gst_cuda_ensure_element_context (element,
          device_id_of (st, element), CTXP (st)))
    return FALSE;
  if (gst_query_get_n_allocation_pools (query) == 0) {
    pool = cuda_pool_for (st, NULL, caps, 0, 0, &size);
    if (!pool)
      return FALSE;
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
    gst_object_unref (pool);
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

static void
mod_state_clear (StageCudaState * st)
{
  g_clear_pointer (&st->resizer, mod_resizer_free);
  gst_clear_object (CTXP (st));
  st->active = FALSE;
}

static gboolean
resizer_process (gpointer r, GstBuffer * inbuf, GstBuffer * outbuf,
    GError ** error)
{
  return mod_resizer_process (r, inbuf, outbuf, error);
}

/* The one symbol the module exports: its functions, for the plugin. */
G_MODULE_EXPORT const StageCudaModule *
stage_cuda_module_get (void)
{
  static const StageCudaModule module = {
    STAGE_CUDA_MODULE_ABI,
    mod_device_available,
    mod_state_set_context,
    mod_state_query,
    mod_state_configure,
    mod_state_decide_allocation,
    mod_state_propose_allocation,
    mod_state_clear,
    resizer_process,
  };

  return &module;
}
