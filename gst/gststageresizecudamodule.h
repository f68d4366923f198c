/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the table of functions the CUDA module (libgststages-cuda.mod,
 * gststageresizecuda.c) gives the stages plugin. Both sides are built from
 * one tree; the ABI number only catches a stale module left beside a newer
 * plugin. */
#ifndef __GST_STAGE_RESIZE_CUDA_MODULE_H__
#define __GST_STAGE_RESIZE_CUDA_MODULE_H__

#include "gststageresizecuda.h"

#include <gmodule.h>

G_BEGIN_DECLS

#define STAGE_CUDA_MODULE_ABI 1
#define STAGE_CUDA_MODULE_SYMBOL "stage_cuda_module_get"

typedef struct
{
  guint abi;
  gboolean (*device_available) (void);
  void (*set_context) (StageCudaState * st, GstElement * element,
      GstContext * context);
  gboolean (*query) (StageCudaState * st, GstElement * element,
      GstQuery * query);
  gboolean (*configure) (StageCudaState * st, GstElement * element,
      const GstVideoInfo * in, const GstVideoInfo * out,
      StageResizeMethod method, GError ** error);
  gboolean (*decide_allocation) (StageCudaState * st, GstElement * element,
      GstQuery * query);
  gboolean (*propose_allocation) (StageCudaState * st, GstElement * element,
      GstQuery * query);
  void (*clear) (StageCudaState * st);
  gboolean (*process) (gpointer resizer, GstBuffer * inbuf,
      GstBuffer * outbuf, GError ** error);
} StageCudaModule;

typedef const StageCudaModule *(*StageCudaModuleGetFunc) (void);

/* Defined by the module only. */
G_MODULE_EXPORT const StageCudaModule *stage_cuda_module_get (void);

G_END_DECLS

#endif /* __GST_STAGE_RESIZE_CUDA_MODULE_H__ */
