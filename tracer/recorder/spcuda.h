/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spcuda: stageprof's cuda-sync: wait for the GPU work behind a CUDA buffer
 * before its push is timed, without linking CUDA or gstcuda (both are found
 * in the process, where CUDA buffers exist, by dlopen RTLD_NOLOAD). */
#ifndef __SP_CUDA_H__
#define __SP_CUDA_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* When `buf` holds CUDA memory (gstcuda's "gst.cuda.memory"): synchronises
 * its CUDA context and returns the nanoseconds that took; else 0. */
guint64 sp_cuda_sync_buffer (GstBuffer * buf);

G_END_DECLS

#endif /* __SP_CUDA_H__ */
