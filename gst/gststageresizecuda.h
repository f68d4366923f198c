/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stageresize's CUDA path, as the element sees it (built with
 * -Dcuda). The work is done by a module of its own, opened on first use
 * (gststageresizecudaload.c), so this header needs none of gstcuda's types.
 */
#ifndef __GST_STAGE_RESIZE_CUDA_H__
#define __GST_STAGE_RESIZE_CUDA_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "resize.h"

G_BEGIN_DECLS

typedef struct _StageCudaResizer StageCudaResizer;

/* What stageresize keeps when built with CUDA. All of it is touched from
 * the streaming thread or state changes, except `device_id`, which the
 * element guards with its object lock. */
typedef struct
{
  gint device_id;               /* -1: any, or the neighbours' */
  gpointer context;             /* GstCudaContext, owned by the module */
  StageCudaResizer *resizer;
  gboolean active;              /* negotiated caps are CUDA memory */
} StageCudaState;

/* The caps feature of CUDA memory (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY). */
#define STAGE_CUDA_MEMORY_FEATURE "memory:CUDAMemory"

/* The caps both pads offer for CUDA memory. */
#define STAGE_CUDA_CAPS_STR "video/x-raw(" STAGE_CUDA_MEMORY_FEATURE "), " \
    "format = (string) { I420, YV12, NV12, NV21, Y42B, Y444, RGBA, BGRA, " \
    "RGBx, BGRx, ARGB, ABGR, RGB, BGR }, " \
    "width = (int) [ 1, 32768 ], height = (int) [ 1, 32768 ], " \
    "framerate = (fraction) [ 0, max ], interlace-mode = (string) progressive"

/* Where the module lives: the folder of the stages plugin file. Called by
 * plugin_init; STAGES_CUDA_MODULE (a path) overrides it. */
void stage_cuda_set_module_dir (const gchar * plugin_filename);

/* TRUE when the module loads, the CUDA driver loads and a device answers. */
gboolean stage_cuda_device_available (void);

gboolean stage_cuda_caps_are_cuda (GstCaps * caps);

/* GstElement::set_context and GST_QUERY_CONTEXT: share the context with
 * the neighbours. Only CUDA contexts open the module. */
void stage_cuda_state_set_context (StageCudaState * st, GstElement * element,
    GstContext * context);
gboolean stage_cuda_state_query (StageCudaState * st, GstElement * element,
    GstQuery * query);

/* set_info for CUDA caps: opens the module, finds or makes the context,
 * loads the kernels once, uploads the taps. Posts nothing; `error` says
 * what failed (a missing module or libgstcuda included). */
gboolean stage_cuda_state_configure (StageCudaState * st, GstElement * element,
    const GstVideoInfo * in, const GstVideoInfo * out,
    StageResizeMethod method, GError ** error);

/* Allocation queries for CUDA caps: a CUDA buffer pool of our context. */
gboolean stage_cuda_state_decide_allocation (StageCudaState * st,
    GstElement * element, GstQuery * query);
gboolean stage_cuda_state_propose_allocation (StageCudaState * st,
    GstElement * element, GstQuery * query);

/* Resizes `inbuf` into `outbuf`, both CUDA memory of the configured
 * formats, and waits for the kernels: the output is complete on return. */
gboolean stage_cuda_resizer_process (StageCudaResizer * r, GstBuffer * inbuf,
    GstBuffer * outbuf, GError ** error);

void stage_cuda_state_clear (StageCudaState * st);

G_END_DECLS

#endif /* __GST_STAGE_RESIZE_CUDA_H__ */
