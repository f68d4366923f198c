/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spcuda: see spcuda.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "spcuda.h"

#include <dlfcn.h>
#include <string.h>

/* The head of gstcuda's GstCudaMemory (gst/cuda/gstcudamemory.h, public
 * fields, the same from 1.20 to 1.28): the GstMemory, then its
 * GstCudaContext. */
typedef struct
{
  GstMemory mem;
  gpointer context;
} SpCudaMemoryHead;

typedef gboolean (*CtxPushFunc) (gpointer ctx);
typedef gboolean (*CtxPopFunc) (gpointer * ctx);
typedef int (*CuSyncFunc) (void);

static struct
{
  gsize once;
  CtxPushFunc push;
  CtxPopFunc pop;
  CuSyncFunc sync;
} cu;

static gpointer
loaded_symbol (const gchar * const *libs, const gchar * name)
{
  guint i;

  for (i = 0; libs[i]; i++) {
    void *h = dlopen (libs[i], RTLD_NOW | RTLD_NOLOAD);
    if (h) {
      gpointer sym = dlsym (h, name);
      dlclose (h);
      if (sym)
        return sym;
    }
  }
  return NULL;
}

static gboolean
load (void)
{
  static const gchar *const gstcuda[] = { "libgstcuda-1.0.so.0", NULL };
  static const gchar *const libcuda[] = { "libcuda.so.1", NULL };

  if (g_once_init_enter (&cu.once)) {
    cu.push = loaded_symbol (gstcuda, "gst_cuda_context_push");
    cu.pop = loaded_symbol (gstcuda, "gst_cuda_context_pop");
    cu.sync = loaded_symbol (libcuda, "cuCtxSynchronize");
    if (!cu.push || !cu.pop || !cu.sync)
      g_warning ("stageprof: cuda-sync: CUDA buffers seen but %s not found "
          "in the process; GPU work is not waited for",
          !cu.sync ? "libcuda.so.1's cuCtxSynchronize" :
          "libgstcuda-1.0's context functions");
    g_once_init_leave (&cu.once, 1);
  }
  return cu.push && cu.pop && cu.sync;
}

guint64
sp_cuda_sync_buffer (GstBuffer * buf)
{
  GstMemory *mem;
  SpCudaMemoryHead *head;
  GstClockTime t0;

  if (!buf || gst_buffer_n_memory (buf) == 0)
    return 0;
  mem = gst_buffer_peek_memory (buf, 0);
  if (!mem->allocator || !mem->allocator->mem_type
      || strcmp (mem->allocator->mem_type, "gst.cuda.memory") != 0)
    return 0;
  head = (SpCudaMemoryHead *) mem;
  if (!head->context || !load ())
    return 0;
  t0 = gst_util_get_timestamp ();
  if (cu.push (head->context)) {
    cu.sync ();
    cu.pop (NULL);
  }
  return gst_util_get_timestamp () - t0;
}
