/* gst-stages: stageresize's CUDA path (built with -Dcuda, used only when a
 * device answers). Loads our kernels (ops/resize_cuda.cu, embedded as a
 * fatbin) through gstcuda's driver-API loader and runs them on CUDA memory.
 */
#ifndef __GST_STAGE_RESIZE_CUDA_H__
#define __GST_STAGE_RESIZE_CUDA_H__

#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>

#include "resize.h"

G_BEGIN_DECLS

typedef struct _StageCudaResizer StageCudaResizer;

/* TRUE when the CUDA driver loads and at least one device answers. */
gboolean stage_cuda_device_available (void);

/* Loads the kernels into `context`. NULL with `error` set on failure. */
StageCudaResizer *stage_cuda_resizer_new (GstCudaContext * context,
    GError ** error);

/* Builds and uploads the taps for every plane of `in` -> `out`. */
gboolean stage_cuda_resizer_configure (StageCudaResizer * r,
    const GstVideoInfo * in, const GstVideoInfo * out,
    StageResizeMethod method, GError ** error);

/* Resizes `inbuf` into `outbuf`, both CUDA memory of the configured
 * formats, and waits for the kernels: the output is complete on return. */
gboolean stage_cuda_resizer_process (StageCudaResizer * r, GstBuffer * inbuf,
    GstBuffer * outbuf, GError ** error);

void stage_cuda_resizer_free (StageCudaResizer * r);

/* The element side: what stageresize keeps when built with CUDA. All of it
 * is touched from the streaming thread or state changes, except
 * `device_id`, which the element guards with its object lock. */
typedef struct
{
  gint device_id;               /* -1: any, or the neighbours' */
  GstCudaContext *context;
  StageCudaResizer *resizer;
  gboolean active;              /* negotiated caps are CUDA memory */
} StageCudaState;

/* The caps both pads offer for CUDA memory. */
#define STAGE_CUDA_CAPS_STR "video/x-raw(memory:CUDAMemory), " \
    "format = (string) { I420, YV12, NV12, NV21, Y42B, Y444, RGBA, BGRA, " \
    "RGBx, BGRx, ARGB, ABGR, RGB, BGR }, " \
    "width = (int) [ 1, 32768 ], height = (int) [ 1, 32768 ], " \
    "framerate = (fraction) [ 0, max ], interlace-mode = (string) progressive"

gboolean stage_cuda_caps_are_cuda (GstCaps * caps);

/* GstElement::set_context and GST_QUERY_CONTEXT: share the context with
 * the neighbours. */
void stage_cuda_state_set_context (StageCudaState * st, GstElement * element,
    GstContext * context);
gboolean stage_cuda_state_query (StageCudaState * st, GstElement * element,
    GstQuery * query);

/* set_info for CUDA caps: finds or makes the context, loads the kernels
 * once, uploads the taps. Posts nothing; `error` says what failed. */
gboolean stage_cuda_state_configure (StageCudaState * st, GstElement * element,
    const GstVideoInfo * in, const GstVideoInfo * out,
    StageResizeMethod method, GError ** error);

/* Allocation queries for CUDA caps: a CUDA buffer pool of our context. */
gboolean stage_cuda_state_decide_allocation (StageCudaState * st,
    GstElement * element, GstQuery * query);
gboolean stage_cuda_state_propose_allocation (StageCudaState * st,
    GstElement * element, GstQuery * query);

void stage_cuda_state_clear (StageCudaState * st);

G_END_DECLS

#endif /* __GST_STAGE_RESIZE_CUDA_H__ */
