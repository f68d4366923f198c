/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the portable row kernels of ops/resize.c (plain C, any CPU).
 * The reference for the SIMD tables, which must give the same bytes.
 */
#include "resize_kernels.h"

/* GCC's unroll-and-jam fuses pairs of taps in the vertical pass and then
 * gives up vectorising the fused loop: twice slower. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize ("no-loop-unroll-and-jam")
#endif

/* Columns per vertical-pass block: the int32 accumulators stay in L1. */
#define VBLOCK 512

/* One output row from T source rows of 8-bit samples: Q6 result, rounded
 * once from the exact 32-bit sum (the CUDA kernels do the same). */
void
stage_resize_vpass_u8_scalar (const uint8_t * const *rows, const int16_t * w,
    int T, int n, int16_t * restrict out)
{
  int x0, j, k;

  for (x0 = 0; x0 < n; x0 += VBLOCK) {
    int len = n - x0 < VBLOCK ? n - x0 : VBLOCK;
    int32_t acc[VBLOCK];

    for (j = 0; j < len; j++)
      acc[j] = 1 << (SHIFT1 - 1);
    for (k = 0; k < T; k++) {
      const uint8_t *restrict r = rows[k] + x0;
      int32_t wk = w[k];
      for (j = 0; j < len; j++)
        acc[j] += wk * r[j];
    }
    for (j = 0; j < len; j++)
      out[x0 + j] = (int16_t) (acc[j] >> SHIFT1);
  }
}

/* One output row from T intermediate Q6 rows: rounded, saturated bytes. */
void
stage_resize_vpass_s16_scalar (const int16_t * const *rows, const int16_t * w,
    int T, int n, uint8_t * restrict out)
{
  int x0, j, k;

  for (x0 = 0; x0 < n; x0 += VBLOCK) {
    int len = n - x0 < VBLOCK ? n - x0 : VBLOCK;
    int32_t acc[VBLOCK];

    for (j = 0; j < len; j++)
      acc[j] = 1 << (SHIFT2 - 1);
    for (k = 0; k < T; k++) {
      const int16_t *restrict r = rows[k] + x0;
      int32_t wk = w[k];
      for (j = 0; j < len; j++)
        acc[j] += wk * r[j];
    }
    for (j = 0; j < len; j++)
      out[x0 + j] = stage_clamp_u8 (acc[j] >> SHIFT2);
  }
}

/* Horizontal pass, bytes in, Q6 out; C is a constant after inlining. */
STAGE_INLINE void
hpass_u8 (const uint8_t * src, const StageResizeTaps * t, int C,
    int16_t * restrict out)
{
  const int T = t->n_taps;
  int x, k, c;

  for (x = 0; x < t->out_size; x++) {
    const uint8_t *s = src + (size_t) t->start[x] * C;
    const int16_t *w = t->weights + (size_t) x * T;
    for (c = 0; c < C; c++) {
      int32_t acc = 1 << (SHIFT1 - 1);
      for (k = 0; k < T; k++)
        acc += w[k] * s[k * C + c];
      out[x * C + c] = (int16_t) (acc >> SHIFT1);
    }
  }
}

/* Horizontal pass, Q6 in, bytes out. */
STAGE_INLINE void
hpass_s16 (const int16_t * src, const StageResizeTaps * t, int C,
    uint8_t * restrict out)
{
  const int T = t->n_taps;
  int x, k, c;

  for (x = 0; x < t->out_size; x++) {
    const int16_t *s = src + (size_t) t->start[x] * C;
    const int16_t *w = t->weights + (size_t) x * T;
    for (c = 0; c < C; c++) {
      int32_t acc = 1 << (SHIFT2 - 1);
      for (k = 0; k < T; k++)
        acc += w[k] * s[k * C + c];
      out[x * C + c] = stage_clamp_u8 (acc >> SHIFT2);
    }
  }
}

/* Constant channel counts let the compiler unroll the channel loop. */
void
stage_resize_hpass_u8_scalar (const uint8_t * src, const StageResizeTaps * t,
    int C, int16_t * out)
{
  switch (C) {
    case 1:
      hpass_u8 (src, t, 1, out);
      break;
    case 2:
      hpass_u8 (src, t, 2, out);
      break;
    case 3:
      hpass_u8 (src, t, 3, out);
      break;
    default:
      hpass_u8 (src, t, 4, out);
      break;
  }
}

/* The general pass: the promises of hpass_u8_pair change nothing here. */
void
stage_resize_hpass_u8_pair_scalar (const uint8_t * src,
    const StageResizeTaps * t, const void *prep, int C, int16_t * out)
{
  (void) prep;
  stage_resize_hpass_u8_scalar (src, t, C, out);
}

void
stage_resize_hpass_s16_scalar (const int16_t * src, const StageResizeTaps * t,
    int C, uint8_t * out)
{
  switch (C) {
    case 1:
      hpass_s16 (src, t, 1, out);
      break;
    case 2:
      hpass_s16 (src, t, 2, out);
      break;
    case 3:
      hpass_s16 (src, t, 3, out);
      break;
    default:
      hpass_s16 (src, t, 4, out);
      break;
  }
}

void
stage_resize_box2_row_scalar (const uint8_t * r0, const uint8_t * r1, int C,
    int n, uint8_t * out, ptrdiff_t ahead)
{
  int x, c;

  (void) ahead;                 /* no prefetching in the portable code */
  for (x = 0; x < n; x++)
    for (c = 0; c < C; c++) {
      const int i = 2 * x * C + c;
      out[x * C + c] = (uint8_t) ((r0[i] + r0[i + C] + r1[i] + r1[i + C] +
              2) >> 2);
    }
}

STAGE_INLINE void
near2_row (const uint8_t * restrict src, const int C, int n,
    uint8_t * restrict out)
{
  int x, c;

  for (x = 0; x < n; x++)
    for (c = 0; c < C; c++)
      out[x * C + c] = src[(2 * x + 1) * C + c];
}

void
stage_resize_near2_row_scalar (const uint8_t * src, int C, int n,
    uint8_t * out)
{
  switch (C) {
    case 1:
      near2_row (src, 1, n, out);
      break;
    case 2:
      near2_row (src, 2, n, out);
      break;
    case 3:
      near2_row (src, 3, n, out);
      break;
    default:
      near2_row (src, 4, n, out);
      break;
  }
}

/* Horizontal (1 3 3 1) of the four pixels from byte s on, per channel. */
STAGE_INLINE int
tri2_h (const uint8_t * r, int s, int C)
{
  return r[s] + 3 * (r[s + C] + r[s + 2 * C]) + r[s + 3 * C];
}

static void
tri2_row (const uint8_t * const *rows, int C, int n, uint8_t * out)
{
  const uint8_t *r0 = rows[0], *r1 = rows[1], *r2 = rows[2], *r3 = rows[3];
  int x, c;

  for (x = 1; x < n - 1; x++)
    for (c = 0; c < C; c++) {
      const int s = (2 * x - 1) * C + c;
      /* At most 64 * 255: the shift needs no clamp. */
      out[x * C + c] = (uint8_t) ((tri2_h (r0, s, C) + 3 * (tri2_h (r1, s,
                      C) + tri2_h (r2, s, C)) + tri2_h (r3, s, C) + 32) >> 6);
    }
}

void
stage_resize_tri2_row_scalar (const uint8_t * const *rows, int C, int n,
    uint8_t * out0, uint8_t * out1, ptrdiff_t ahead)
{
  (void) ahead;
  tri2_row (rows, C, n, out0);
  if (out1)
    tri2_row (rows + 2, C, n, out1);
}

const StageResizeKernels stage_resize_kernels_scalar = {
  .name = "scalar",
  .vpass_u8 = stage_resize_vpass_u8_scalar,
  .vpass_s16 = stage_resize_vpass_s16_scalar,
  .hpass_u8 = stage_resize_hpass_u8_scalar,
  .hpass_s16 = stage_resize_hpass_s16_scalar,
  .box2_row = stage_resize_box2_row_scalar,
  .tri2_row = stage_resize_tri2_row_scalar,
  .hpass_u8_pair = stage_resize_hpass_u8_pair_scalar,
  .vpass_s16_pair = stage_resize_vpass_s16_scalar,
  .near2_row = stage_resize_near2_row_scalar,
};
