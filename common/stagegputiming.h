/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: how an element tells stageprof what its GPU did.
 *
 * An element class that can time its GPU work sets the metadata key
 * STAGE_GPU_TIMING_KEY (any value: what it times, e.g. "CUDA events").
 * stageprof hands each such element a StageGpuTiming as the object data
 * STAGE_GPU_TIMING_KEY when the element is created (element-new). An
 * element that finds it times its kernels with CUDA events and, once per
 * frame, after its work is known complete, calls report() from its
 * streaming thread with when the GPU ran it, in gst_util_get_timestamp()
 * time. Without stageprof the data is absent and nothing is timed. Header
 * only: the plugin and the tracer never link each other. */
#ifndef __STAGE_GPU_TIMING_H__
#define __STAGE_GPU_TIMING_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define STAGE_GPU_TIMING_KEY "stageprof-gpu-timing"
#define STAGE_GPU_TIMING_ABI 1

typedef struct
{
  guint abi;                    /* STAGE_GPU_TIMING_ABI */
  /* start_ns, end_ns: gst_util_get_timestamp() time of the element's GPU
   * work for one frame (kernel time by CUDA events, placed to end where
   * the host saw it complete). */
  void (*report) (gpointer data, GstElement * element, guint64 start_ns,
      guint64 end_ns);
  gpointer data;
} StageGpuTiming;

G_END_DECLS

#endif /* __STAGE_GPU_TIMING_H__ */
