/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stageresize's CUDA kernels timed alone, against the GPU's
 * own memory bandwidth measured in the same run.
 *
 *   nvcc -O3 -Iops bench/cuda-kernel.cu ops/resize*.o -o cuda-kernel
 *   ./cuda-kernel [REPS]
 *
 * Built by scripts/gpu-test.sh pack (static CUDA runtime: it needs only the
 * driver there). For each case (1080p -> 720p, 4K -> 1080p; NV12, I420,
 * RGBA; nearest, bilinear, area, bicubic) it launches the kernels exactly
 * as the element does (same taps from the CPU plan, same grid, pitch-padded
 * frames from cudaMallocPitch), times REPS frames with CUDA events, and
 * counts the bytes a resizer cannot avoid: every source byte read once and
 * every output byte written once. The ceiling is a device-to-device
 * cudaMemcpy of 1 GiB, counted the same way (read + write). */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "resize.h"
}
#include "../ops/resize_cuda.cu"

#define BLOCK_X 32
#define BLOCK_Y 8

#define CHECK(x) do {                                                        \
    cudaError_t e_ = (x);                                                    \
    if (e_ != cudaSuccess) {                                                 \
      fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,            \
          cudaGetErrorString (e_));                                          \
      exit (1);                                                              \
    }                                                                        \
  } while (0)

typedef struct
{
  int w, h, channels;           /* of the plane, in pixels */
  uint8_t *src, *dst;
  size_t src_pitch, dst_pitch;
  int dw, dh;
  int32_t *xs, *ys;
  int16_t *xw, *yw;
  int tx, ty, order;
} Plane;

typedef struct
{
  const char *name;
  int n_planes;
  int channels[3];
  int sub[3];                   /* chroma subsampling shift of the plane */
} Format;

static const Format formats[] = {
  {"NV12", 2, {1, 2, 0}, {0, 1, 0}},
  {"I420", 3, {1, 1, 1}, {0, 1, 1}},
  {"RGBA", 1, {4, 0, 0}, {0, 0, 0}},
};

static void *
upload (const void *host, size_t size)
{
  void *d;

  CHECK (cudaMalloc (&d, size > 0 ? size : 1));
  CHECK (cudaMemcpy (d, host, size, cudaMemcpyHostToDevice));
  return d;
}

static void
plane_init (Plane * p, int w, int h, int dw, int dh, int channels,
    StageResizeMethod m)
{
  StageResizePlan *plan = stage_resize_plan_new (w, h, dw, dh, channels, m);
  const StageResizeTaps *tx, *ty;

  if (!plan) {
    fprintf (stderr, "no plan for %dx%d -> %dx%d\n", w, h, dw, dh);
    exit (1);
  }
  p->w = w;
  p->h = h;
  p->dw = dw;
  p->dh = dh;
  p->channels = channels;
  CHECK (cudaMallocPitch ((void **) &p->src, &p->src_pitch,
          (size_t) w * channels, h));
  CHECK (cudaMallocPitch ((void **) &p->dst, &p->dst_pitch,
          (size_t) dw * channels, dh));
  CHECK (cudaMemset2D (p->src, p->src_pitch, 0x5a, (size_t) w * channels,
          h));
  tx = stage_resize_plan_taps (plan, 0);
  ty = stage_resize_plan_taps (plan, 1);
  p->order = stage_resize_plan_order (plan);
  p->tx = tx->n_taps;
  p->ty = ty->n_taps;
  p->xs = (int32_t *) upload (tx->start, sizeof (int32_t) * tx->out_size);
  p->xw = (int16_t *) upload (tx->weights,
      sizeof (int16_t) * (size_t) tx->out_size * tx->n_taps);
  p->ys = (int32_t *) upload (ty->start, sizeof (int32_t) * ty->out_size);
  p->yw = (int16_t *) upload (ty->weights,
      sizeof (int16_t) * (size_t) ty->out_size * ty->n_taps);
  stage_resize_plan_free (plan);
}

static void
plane_clear (Plane * p)
{
  cudaFree (p->src);
  cudaFree (p->dst);
  cudaFree (p->xs);
  cudaFree (p->xw);
  cudaFree (p->ys);
  cudaFree (p->yw);
}

/* As gststageresizecuda.c launch_plane: the grid covers the pitch. px 1:
 * one pixel per thread (stage_resize_cN), else stage_resize_cN_xPX.
 * Returns 0 when that kernel does not exist. */
static int
plane_launch (const Plane * p, int px)
{
  int cover_w = p->dw;
  int pitch_px = (int) ((p->dst_pitch + p->channels - 1) / p->channels);
  dim3 block (BLOCK_X, BLOCK_Y);
  dim3 grid;

  if (pitch_px > cover_w)
    cover_w = pitch_px;
  grid = dim3 (((cover_w + px - 1) / px + BLOCK_X - 1) / BLOCK_X,
      (p->dh + BLOCK_Y - 1) / BLOCK_Y);
#define ARGS (p->src, (int) p->src_pitch, p->dst, (int) p->dst_pitch, p->dw, \
      p->dh, p->xs, p->xw, p->tx, p->ys, p->yw, p->ty, p->order)
#define K(name) do { name <<< grid, block >>> ARGS; return 1; } while (0)
  switch (p->channels * 100 + px) {
    case 101: K (stage_resize_c1);
    case 102: K (stage_resize_c1_x2);
    case 104: K (stage_resize_c1_x4);
    case 108: K (stage_resize_c1_x8);
    case 201: K (stage_resize_c2);
    case 202: K (stage_resize_c2_x2);
    case 204: K (stage_resize_c2_x4);
    case 301: K (stage_resize_c3);
    case 302: K (stage_resize_c3_x2);
    case 304: K (stage_resize_c3_x4);
    case 401: K (stage_resize_c4);
    case 402: K (stage_resize_c4_x2);
    case 404: K (stage_resize_c4_x4);
    default: return 0;
  }
#undef K
#undef ARGS
}

/* NPP's resize, where the machine has it (dlopen: nothing to build
 * against here). Prototypes and the stream context as NPP 12/13 declare
 * them; interpolation modes NN 1, LINEAR 2, CUBIC 4, SUPER 8. */
typedef struct { int width, height; } NppiSize;
typedef struct { int x, y, width, height; } NppiRect;
typedef struct
{
  cudaStream_t hStream;
  int nCudaDeviceId;
  int nMultiProcessorCount;
  int nMaxThreadsPerMultiProcessor;
  int nMaxThreadsPerBlock;
  size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor;
  int nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
} NppStreamContext;
typedef int (*NppResizeFunc) (const uint8_t *, int, NppiSize, NppiRect,
    uint8_t *, int, NppiSize, NppiRect, int, NppStreamContext);
static NppResizeFunc npp_c1, npp_c4;
static NppStreamContext npp_ctx;

static void
npp_open (const cudaDeviceProp * prop)
{
  const char *names[] = { "libnppig.so.13", "libnppig.so.12", "libnppig.so" };
  void *h = NULL;
  unsigned i;

  for (i = 0; !h && i < sizeof (names) / sizeof (names[0]); i++)
    h = dlopen (names[i], RTLD_NOW);
  if (!h)
    return;
  npp_c1 = (NppResizeFunc) dlsym (h, "nppiResize_8u_C1R_Ctx");
  npp_c4 = (NppResizeFunc) dlsym (h, "nppiResize_8u_C4R_Ctx");
  npp_ctx.hStream = 0;
  npp_ctx.nCudaDeviceId = 0;
  npp_ctx.nMultiProcessorCount = prop->multiProcessorCount;
  npp_ctx.nMaxThreadsPerMultiProcessor = prop->maxThreadsPerMultiProcessor;
  npp_ctx.nMaxThreadsPerBlock = prop->maxThreadsPerBlock;
  npp_ctx.nSharedMemPerBlock = prop->sharedMemPerBlock;
  npp_ctx.nCudaDevAttrComputeCapabilityMajor = prop->major;
  npp_ctx.nCudaDevAttrComputeCapabilityMinor = prop->minor;
}

/* -1: NPP cannot do this plane (no library, 2 channels, area upscale). */
static int
npp_launch (const Plane * p, StageResizeMethod m)
{
  NppResizeFunc f = p->channels == 1 ? npp_c1 : p->channels == 4 ? npp_c4 : NULL;
  int mode = m == STAGE_RESIZE_NEAREST ? 1 : m == STAGE_RESIZE_BILINEAR ? 2 :
      m == STAGE_RESIZE_BICUBIC ? 4 : 8;
  NppiSize ss = { p->w, p->h }, ds = { p->dw, p->dh };
  NppiRect sr = { 0, 0, p->w, p->h }, dr = { 0, 0, p->dw, p->dh };

  if (!f)
    return -1;
  return f (p->src, (int) p->src_pitch, ss, sr, p->dst, (int) p->dst_pitch, ds,
      dr, mode, npp_ctx);
}

/* GB/s of a D2D copy of 1 GiB, counting bytes read and written. */
static double
copy_bandwidth (int reps)
{
  size_t size = (size_t) 1 << 30;
  void *a, *b;
  cudaEvent_t e0, e1;
  float ms;
  int i;

  CHECK (cudaMalloc (&a, size));
  CHECK (cudaMalloc (&b, size));
  CHECK (cudaMemset (a, 1, size));
  CHECK (cudaEventCreate (&e0));
  CHECK (cudaEventCreate (&e1));
  CHECK (cudaMemcpy (b, a, size, cudaMemcpyDeviceToDevice));
  CHECK (cudaEventRecord (e0));
  for (i = 0; i < reps; i++)
    CHECK (cudaMemcpy (b, a, size, cudaMemcpyDeviceToDevice));
  CHECK (cudaEventRecord (e1));
  CHECK (cudaEventSynchronize (e1));
  CHECK (cudaEventElapsedTime (&ms, e0, e1));
  cudaFree (a);
  cudaFree (b);
  return 2.0 * size * reps / (ms * 1e-3) / 1e9;
}

int
main (int argc, char **argv)
{
  static const int sizes[][4] = {
    {1920, 1080, 1280, 720}, {3840, 2160, 1920, 1080},
  };
  static const StageResizeMethod methods[] = {
    STAGE_RESIZE_NEAREST, STAGE_RESIZE_BILINEAR, STAGE_RESIZE_AREA,
    STAGE_RESIZE_BICUBIC,
  };
  int reps = argc > 1 ? atoi (argv[1]) : 200;
  cudaDeviceProp prop;
  double peak;
  unsigned s, f, m, i;

  CHECK (cudaGetDeviceProperties (&prop, 0));
  npp_open (&prop);
  peak = copy_bandwidth (20);
  printf ("GPU: %s, %d SMs; device-to-device copy: %.0f GB/s (read + "
      "write); NPP: %s\n", prop.name, prop.multiProcessorCount, peak,
      npp_c1 ? "yes" : "not found");
  printf ("us per frame by kernel variant (x1: one output pixel per thread, "
      "xN: N per thread), NPP's nppiResize; %%copy of the best of ours\n");
  printf ("%-24s %-4s %-8s %8s %8s %8s %8s %8s %7s %6s\n", "case", "fmt",
      "method", "x1", "x2", "x4", "x8", "NPP", "GB/s", "%copy");
  for (s = 0; s < sizeof (sizes) / sizeof (sizes[0]); s++)
    for (f = 0; f < sizeof (formats) / sizeof (formats[0]); f++)
      for (m = 0; m < sizeof (methods) / sizeof (methods[0]); m++) {
        const Format *fmt = &formats[f];
        static const int variants[] = { 1, 2, 4, 8, 0 };
        Plane planes[3];
        size_t bytes = 0;
        cudaEvent_t e0, e1;
        char name[64], col[5][16];
        double best = 0;
        unsigned v;
        int r;

        for (i = 0; i < (unsigned) fmt->n_planes; i++) {
          int sh = fmt->sub[i];
          plane_init (&planes[i], (sizes[s][0] + sh) >> sh,
              (sizes[s][1] + sh) >> sh, (sizes[s][2] + sh) >> sh,
              (sizes[s][3] + sh) >> sh, fmt->channels[i], methods[m]);
          bytes += (size_t) planes[i].w * planes[i].h * planes[i].channels +
              (size_t) planes[i].dw * planes[i].dh * planes[i].channels;
        }
        CHECK (cudaEventCreate (&e0));
        CHECK (cudaEventCreate (&e1));
        for (v = 0; v < 5; v++) {
          int ok = 1;
          float ms;

          for (r = 0; ok && r < 10 + reps; r++) {
            if (r == 10)
              CHECK (cudaEventRecord (e0));
            for (i = 0; ok && i < (unsigned) fmt->n_planes; i++)
              ok = variants[v] ? plane_launch (&planes[i], variants[v]) :
                  npp_launch (&planes[i], methods[m]) == 0;
          }
          snprintf (col[v], sizeof (col[v]), "-");
          if (!ok) {
            cudaGetLastError ();
            continue;
          }
          CHECK (cudaEventRecord (e1));
          CHECK (cudaEventSynchronize (e1));
          CHECK (cudaGetLastError ());
          CHECK (cudaEventElapsedTime (&ms, e0, e1));
          snprintf (col[v], sizeof (col[v]), "%.2f", ms * 1e3 / reps);
          if (variants[v] && (best == 0 || ms * 1e3 / reps < best))
            best = ms * 1e3 / reps;
        }
        snprintf (name, sizeof (name), "%dx%d -> %dx%d", sizes[s][0],
            sizes[s][1], sizes[s][2], sizes[s][3]);
        printf ("%-24s %-4s %-8s %8s %8s %8s %8s %8s %7.0f %5.1f%%\n", name,
            fmt->name, stage_resize_method_name (methods[m]), col[0], col[1],
            col[2], col[3], col[4], bytes / (best * 1e-6) / 1e9,
            100.0 * bytes / (best * 1e-6) / 1e9 / peak);
        cudaEventDestroy (e0);
        cudaEventDestroy (e1);
        for (i = 0; i < (unsigned) fmt->n_planes; i++)
          plane_clear (&planes[i]);
      }
  return 0;
}
