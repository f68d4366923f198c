/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the resize kernels for CUDA memory.
 *
 * Same definitions and the same fixed-point arithmetic as ops/resize.c, so
 * the GPU path gives the CPU path's bytes: the host builds the taps with
 * stage_resize_taps_init() and uploads them; each thread computes one output
 * pixel (all channels) by the two passes fused, in the order the CPU plan
 * chose (STAGE_RESIZE_ORDER_*), rounding the intermediate to Q6 exactly as
 * the CPU does.
 *
 * Compiled by nvcc into a fatbin embedded in the plugin and loaded through
 * gstcuda's driver-API loader, so the plugin never links libcudart.
 */
#include <stdint.h>

#define WBITS 14
#define MID_BITS 6
#define SHIFT1 (WBITS - MID_BITS)
#define SHIFT2 (WBITS + MID_BITS)

struct Taps
{
  const int32_t *start;
  const int16_t *weights;
  int n_taps;
};

__device__ __forceinline__ uint8_t
clamp_u8 (int32_t v)
{
  return v < 0 ? 0 : v > 255 ? 255 : (uint8_t) v;
}

/* Rows first: blend Ty source rows per source column, then Tx columns. */
template < int C > __device__ __forceinline__ void
pixel_vertical_first (const uint8_t * __restrict__ src, int src_pitch,
    uint8_t * __restrict__ dst, int x, int y,
    const int32_t * __restrict__ xs, const int16_t * __restrict__ xw, int Tx,
    const int32_t * __restrict__ ys, const int16_t * __restrict__ yw, int Ty)
{
  int32_t acc[C];
  const int16_t *wx = xw + (size_t) x * Tx;
  const int16_t *wy = yw + (size_t) y * Ty;
  const uint8_t *s0 = src + (size_t) ys[y] * src_pitch;
  int sx = xs[x];

  for (int c = 0; c < C; c++)
    acc[c] = 1 << (SHIFT2 - 1);
  for (int i = 0; i < Tx; i++) {
    const uint8_t *col = s0 + (size_t) (sx + i) * C;
    int32_t m[C];
    for (int c = 0; c < C; c++)
      m[c] = 1 << (SHIFT1 - 1);
    for (int k = 0; k < Ty; k++) {
      int32_t w = wy[k];
      for (int c = 0; c < C; c++)
        m[c] += w * __ldg (col + (size_t) k * src_pitch + c);
    }
    for (int c = 0; c < C; c++)
      acc[c] += wx[i] * (int32_t) (int16_t) (m[c] >> SHIFT1);
  }
  for (int c = 0; c < C; c++)
    dst[c] = clamp_u8 (acc[c] >> SHIFT2);
}

/* Columns first: filter Ty source rows horizontally, then blend them. */
template < int C > __device__ __forceinline__ void
pixel_horizontal_first (const uint8_t * __restrict__ src, int src_pitch,
    uint8_t * __restrict__ dst, int x, int y,
    const int32_t * __restrict__ xs, const int16_t * __restrict__ xw, int Tx,
    const int32_t * __restrict__ ys, const int16_t * __restrict__ yw, int Ty)
{
  int32_t acc[C];
  const int16_t *wx = xw + (size_t) x * Tx;
  const int16_t *wy = yw + (size_t) y * Ty;
  const uint8_t *s0 = src + (size_t) ys[y] * src_pitch + (size_t) xs[x] * C;

  for (int c = 0; c < C; c++)
    acc[c] = 1 << (SHIFT2 - 1);
  for (int k = 0; k < Ty; k++) {
    const uint8_t *row = s0 + (size_t) k * src_pitch;
    int32_t m[C];
    for (int c = 0; c < C; c++)
      m[c] = 1 << (SHIFT1 - 1);
    for (int i = 0; i < Tx; i++) {
      int32_t w = wx[i];
      for (int c = 0; c < C; c++)
        m[c] += w * __ldg (row + i * C + c);
    }
    for (int c = 0; c < C; c++)
      acc[c] += wy[k] * (int32_t) (int16_t) (m[c] >> SHIFT1);
  }
  for (int c = 0; c < C; c++)
    dst[c] = clamp_u8 (acc[c] >> SHIFT2);
}

template < int C > __device__ __forceinline__ void
pixel_nearest (const uint8_t * __restrict__ src, int src_pitch,
    uint8_t * __restrict__ dst, int x, int y,
    const int32_t * __restrict__ xs, const int32_t * __restrict__ ys)
{
  const uint8_t *s = src + (size_t) ys[y] * src_pitch + (size_t) xs[x] * C;
  for (int c = 0; c < C; c++)
    dst[c] = __ldg (s + c);
}

/* order: 0 nearest, 1 vertical first, 2 horizontal first. */
#define DEFINE_KERNEL(C)                                                      \
extern "C" __global__ void                                                    \
stage_resize_c##C (const uint8_t * __restrict__ src, int src_pitch,           \
    uint8_t * __restrict__ dst, int dst_pitch, int dst_w, int dst_h,          \
    const int32_t * __restrict__ xs, const int16_t * __restrict__ xw, int Tx,  \
    const int32_t * __restrict__ ys, const int16_t * __restrict__ yw, int Ty,  \
    int order)                                                                \
{                                                                             \
  int x = blockIdx.x * blockDim.x + threadIdx.x;                              \
  int y = blockIdx.y * blockDim.y + threadIdx.y;                              \
  uint8_t *d;                                                                 \
  if (y >= dst_h)                                                             \
    return;                                                                   \
  if (x >= dst_w) {                                                           \
    /* The row's padding, zeroed as the CPU path does (the grid covers the   \
     * pitch): a host map of the frame reads no stale bytes. */              \
    size_t b = (size_t) x * C;                                                \
    for (int c = 0; c < C; c++)                                               \
      if (b + c < (size_t) dst_pitch)                                         \
        dst[(size_t) y * dst_pitch + b + c] = 0;                              \
    return;                                                                   \
  }                                                                           \
  d = dst + (size_t) y * dst_pitch + (size_t) x * C;                          \
  if (order == 0)                                                             \
    pixel_nearest < C > (src, src_pitch, d, x, y, xs, ys);                    \
  else if (order == 1)                                                        \
    pixel_vertical_first < C > (src, src_pitch, d, x, y, xs, xw, Tx, ys, yw,  \
        Ty);                                                                  \
  else                                                                        \
    pixel_horizontal_first < C > (src, src_pitch, d, x, y, xs, xw, Tx, ys,    \
        yw, Ty);                                                              \
}

DEFINE_KERNEL (1)
DEFINE_KERNEL (2)
DEFINE_KERNEL (3)
DEFINE_KERNEL (4)

/* ---- several output pixels per thread -------------------------------------
 *
 * The same arithmetic, per pixel in the same order, for PX horizontally
 * adjacent output pixels per thread: the innermost loop runs over the PX
 * pixels, so their loads are independent and in flight together (one pixel
 * per thread left each thread waiting on one load at a time: 9 % of the
 * copy bandwidth at 4K -> 1080p on an H200). Threads past the picture zero
 * the row's padding. The element picks PX by channel count
 * (STAGE_CUDA_PX_Cn in gststageresizecuda.c). */
template < int C, int PX > __device__ __forceinline__ void
span_vertical_first (const uint8_t * __restrict__ src, int src_pitch,
    uint8_t * __restrict__ d, int x0, int n, int y,
    const int32_t * __restrict__ xs, const int16_t * __restrict__ xw, int Tx,
    const int32_t * __restrict__ ys, const int16_t * __restrict__ yw, int Ty)
{
  int32_t acc[PX][C];
  int sx[PX];
  const int16_t *wy = yw + (size_t) y * Ty;
  const uint8_t *s0 = src + (size_t) ys[y] * src_pitch;

#pragma unroll
  for (int p = 0; p < PX; p++) {
    sx[p] = xs[x0 + (p < n ? p : 0)];
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[p][c] = 1 << (SHIFT2 - 1);
  }
  for (int i = 0; i < Tx; i++) {
    int32_t m[PX][C];
#pragma unroll
    for (int p = 0; p < PX; p++)
#pragma unroll
      for (int c = 0; c < C; c++)
        m[p][c] = 1 << (SHIFT1 - 1);
    for (int k = 0; k < Ty; k++) {
      int32_t w = wy[k];
      const uint8_t *row = s0 + (size_t) k * src_pitch;
#pragma unroll
      for (int p = 0; p < PX; p++)
#pragma unroll
        for (int c = 0; c < C; c++)
          m[p][c] += w * __ldg (row + (size_t) (sx[p] + i) * C + c);
    }
#pragma unroll
    for (int p = 0; p < PX; p++) {
      int32_t wx = xw[(size_t) (x0 + (p < n ? p : 0)) * Tx + i];
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[p][c] += wx * (int32_t) (int16_t) (m[p][c] >> SHIFT1);
    }
  }
#pragma unroll
  for (int p = 0; p < PX; p++)
    if (p < n)
#pragma unroll
      for (int c = 0; c < C; c++)
        d[p * C + c] = clamp_u8 (acc[p][c] >> SHIFT2);
}

template < int C, int PX > __device__ __forceinline__ void
span_horizontal_first (const uint8_t * __restrict__ src, int src_pitch,
    uint8_t * __restrict__ d, int x0, int n, int y,
    const int32_t * __restrict__ xs, const int16_t * __restrict__ xw, int Tx,
    const int32_t * __restrict__ ys, const int16_t * __restrict__ yw, int Ty)
{
  int32_t acc[PX][C];
  int sx[PX];
  const int16_t *wy = yw + (size_t) y * Ty;
  const uint8_t *s0 = src + (size_t) ys[y] * src_pitch;

#pragma unroll
  for (int p = 0; p < PX; p++) {
    sx[p] = xs[x0 + (p < n ? p : 0)];
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[p][c] = 1 << (SHIFT2 - 1);
  }
  for (int k = 0; k < Ty; k++) {
    const uint8_t *row = s0 + (size_t) k * src_pitch;
    int32_t m[PX][C];
#pragma unroll
    for (int p = 0; p < PX; p++)
#pragma unroll
      for (int c = 0; c < C; c++)
        m[p][c] = 1 << (SHIFT1 - 1);
    for (int i = 0; i < Tx; i++) {
#pragma unroll
      for (int p = 0; p < PX; p++) {
        int32_t w = xw[(size_t) (x0 + (p < n ? p : 0)) * Tx + i];
#pragma unroll
        for (int c = 0; c < C; c++)
          m[p][c] += w * __ldg (row + (size_t) (sx[p] + i) * C + c);
      }
    }
    int32_t w = wy[k];
#pragma unroll
    for (int p = 0; p < PX; p++)
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[p][c] += w * (int32_t) (int16_t) (m[p][c] >> SHIFT1);
  }
#pragma unroll
  for (int p = 0; p < PX; p++)
    if (p < n)
#pragma unroll
      for (int c = 0; c < C; c++)
        d[p * C + c] = clamp_u8 (acc[p][c] >> SHIFT2);
}

template < int C, int PX > __device__ __forceinline__ void
span_nearest (const uint8_t * __restrict__ src, int src_pitch,
    uint8_t * __restrict__ d, int x0, int n, int y,
    const int32_t * __restrict__ xs, const int32_t * __restrict__ ys)
{
  const uint8_t *s0 = src + (size_t) ys[y] * src_pitch;
  uint8_t v[PX][C];

#pragma unroll
  for (int p = 0; p < PX; p++) {
    const uint8_t *s = s0 + (size_t) xs[x0 + (p < n ? p : 0)] * C;
#pragma unroll
    for (int c = 0; c < C; c++)
      v[p][c] = __ldg (s + c);
  }
#pragma unroll
  for (int p = 0; p < PX; p++)
    if (p < n)
#pragma unroll
      for (int c = 0; c < C; c++)
        d[p * C + c] = v[p][c];
}

/* Grid: x over ceil(max(dst_w, pitch / C) / PX) threads, y over dst_h. */
#define DEFINE_SPAN_KERNEL(C, PX)                                             \
extern "C" __global__ void                                                    \
stage_resize_c##C##_x##PX (const uint8_t * __restrict__ src, int src_pitch,   \
    uint8_t * __restrict__ dst, int dst_pitch, int dst_w, int dst_h,          \
    const int32_t * __restrict__ xs, const int16_t * __restrict__ xw, int Tx,  \
    const int32_t * __restrict__ ys, const int16_t * __restrict__ yw, int Ty,  \
    int order)                                                                \
{                                                                             \
  int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * PX;                      \
  int y = blockIdx.y * blockDim.y + threadIdx.y;                              \
  uint8_t *d;                                                                 \
  int n;                                                                      \
  if (y >= dst_h)                                                             \
    return;                                                                   \
  d = dst + (size_t) y * dst_pitch;                                           \
  if (x0 + PX > dst_w) {                                                      \
    /* this span's bytes past the picture: the row's padding */              \
    size_t b = (size_t) (x0 > dst_w ? x0 : dst_w) * C;                        \
    size_t e = (size_t) (x0 + PX) * C;                                        \
    for (; b < e && b < (size_t) dst_pitch; b++)                              \
      d[b] = 0;                                                               \
    if (x0 >= dst_w)                                                          \
      return;                                                                 \
  }                                                                           \
  n = dst_w - x0 < PX ? dst_w - x0 : PX;                                      \
  d += (size_t) x0 * C;                                                       \
  if (order == 0)                                                             \
    span_nearest < C, PX > (src, src_pitch, d, x0, n, y, xs, ys);             \
  else if (order == 1)                                                        \
    span_vertical_first < C, PX > (src, src_pitch, d, x0, n, y, xs, xw, Tx,   \
        ys, yw, Ty);                                                          \
  else                                                                        \
    span_horizontal_first < C, PX > (src, src_pitch, d, x0, n, y, xs, xw, Tx, \
        ys, yw, Ty);                                                          \
}

DEFINE_SPAN_KERNEL (1, 2)
DEFINE_SPAN_KERNEL (1, 4)
DEFINE_SPAN_KERNEL (1, 8)
DEFINE_SPAN_KERNEL (2, 2)
DEFINE_SPAN_KERNEL (2, 4)
DEFINE_SPAN_KERNEL (3, 2)
DEFINE_SPAN_KERNEL (3, 4)
DEFINE_SPAN_KERNEL (4, 2)
DEFINE_SPAN_KERNEL (4, 4)
