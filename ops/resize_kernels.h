/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the row kernels of ops/resize.c, one table per instruction
 * set. Internal to ops/: resize.c picks a table at run time (CPU features,
 * or STAGES_RESIZE_SIMD) and its row drivers call through it.
 *
 * Every table computes exactly the integer contract of resize.h, so all
 * give the same bytes: the sums are exact in int32 whatever the order of
 * the additions, and the only rounding steps (the two shifts) are the same.
 */
#ifndef __RESIZE_KERNELS_H__
#define __RESIZE_KERNELS_H__

#include <stddef.h>
#include <stdint.h>

#include "resize.h"

#define WBITS STAGE_RESIZE_WEIGHT_BITS
#define WONE (1 << WBITS)
/* The intermediate rows keep 6 fractional bits: 255 << 6 plus bicubic
 * overshoot still fits an int16, and the rounding error it adds stays far
 * below one 8-bit step. */
#define MID_BITS 6
#define SHIFT1 (WBITS - MID_BITS)
#define SHIFT2 (WBITS + MID_BITS)
/* Bytes after the Q6 row of vertical-first plans that SIMD loads may read
 * (never used in a result). */
#define MID_SLACK 16

#define STAGE_INLINE static inline __attribute__((always_inline))
#define STAGE_HIDDEN __attribute__((visibility ("hidden")))

typedef struct
{
  const char *name;
  /* Vertical pass: n samples of output from T rows. */
  void (*vpass_u8) (const uint8_t * const *rows, const int16_t * w, int T,
      int n, int16_t * out);
  void (*vpass_s16) (const int16_t * const *rows, const int16_t * w, int T,
      int n, uint8_t * out);
  /* Horizontal pass over one row of C-channel pixels. */
  void (*hpass_u8) (const uint8_t * src, const StageResizeTaps * t, int C,
      int16_t * out);
  void (*hpass_s16) (const int16_t * src, const StageResizeTaps * t, int C,
      uint8_t * out);
  /* The 2:1 kernels read whole frames at the memory's pace, and the
   * hardware prefetchers follow the rows being read, not the jump to the
   * rows of the next call: with `ahead` not 0 a kernel also prefetches,
   * as it goes, the rows the next call adds, at `ahead` bytes from the
   * ones it reads (what "adds" means is said per kernel). 0: no next
   * call. Prefetches never change a result. */
  /* Exact 2:1 box (area at half size on both axes): out has n pixels of C
   * channels, each (a + b + c + d + 2) >> 2 of the 2x2 pixels below it in
   * rows r0 and r1. The next call reads r0 + ahead and r1 + ahead. */
  void (*box2_row) (const uint8_t * r0, const uint8_t * r1, int C, int n,
      uint8_t * out, ptrdiff_t ahead);
  /* Exact 2:1 triangle (bilinear at half size on both axes, taps 1 3 3 1
   * over 8): for the interior pixels 1 <= x <= n - 2 of an output row of n
   * pixels of C channels, (S + 32) >> 6 with S = sum over the 4x4 pixels
   * 2x-1 .. 2x+2 of rows[0..3] weighted (1 3 3 1) x (1 3 3 1). Pixels 0
   * and n - 1 are left alone. With out1 set, also the next output row
   * into out1, from rows[2..5]: the two share rows 2 and 3. The next call
   * adds the rows rows[2..] + ahead (as many as this call reads, less
   * two). */
  void (*tri2_row) (const uint8_t * const *rows, int C, int n,
      uint8_t * out0, uint8_t * out1, ptrdiff_t ahead);
  /* The two passes of horizontal-first plans with two taps per axis
   * (bilinear and area enlarging), same results as hpass_u8 and vpass_s16
   * under stronger promises that allow exact 16-bit arithmetic:
   *  - hpass_u8_pair: t has two taps, both weights >= 0, and its starts
   *    never step by more than 2 from one output to the next;
   *  - vpass_s16_pair: T = 2, both weights >= 0, and every row sample is
   *    in 0 .. 255 << 6 (rows made by a pass with weights >= 0). */
  void (*hpass_u8_pair) (const uint8_t * src, const StageResizeTaps * t,
      const void *prep, int C, int16_t * out);
  /* hpass_u8_pair's own tables for taps t and C channels (start offsets,
   * shuffles, weights laid out for its loads), made once per plan and
   * released with free(); NULL (also as the member) where it needs none
   * or memory ran out: it then works from t alone. */
  void *(*hpass_u8_pair_prepare) (const StageResizeTaps * t, int C);
  /* Optional (NULL: not in this table): vpass_s16_pair of n samples into
   * out; where out_b is set, also with weights w_b into out_b (a second
   * output row between the same two rows); and where src is set, in the
   * same loop hpass_u8_pair of the source row src into new_row, which is
   * neither rows[0] nor rows[1]. Returns 0, having done nothing, where it
   * does not handle the case (the caller then runs the passes). */
  int (*two_tap_rows) (const int16_t * const *rows, const int16_t * w,
      int n, uint8_t * out, const int16_t * w_b, uint8_t * out_b,
      const uint8_t * src, const StageResizeTaps * t, const void *prep,
      int16_t * new_row);
  /* Nearest at exactly 2:1 across: output pixel x of n (C channels) is
   * source pixel 2x + 1. */
  void (*near2_row) (const uint8_t * src, int C, int n, uint8_t * out);
  /* Optional (NULL: not in this table): tri2_row for four output rows at
   * once, out[k] from rows[2k .. 2k + 3] of rows[0..9], the next call
   * adding rows[2..9] + ahead. Returns 0, having done nothing, where it
   * does not handle the case. */
  int (*tri2_rows4) (const uint8_t * const *rows, int C, int n,
      uint8_t * const *out, ptrdiff_t ahead);
  void (*vpass_s16_pair) (const int16_t * const *rows, const int16_t * w,
      int T, int n, uint8_t * out);
  /* Optional (NULL: not in this table): hpass_s16 for C = 1 where every
   * output has the same five taps w[0..4] and the windows step by exactly
   * 3 (3:1 across, away from the borders): output i of n >= 16 is the
   * contract's byte from src[3i .. 3i + 4]. Reads src[0 .. 3n + 8). */
  void (*hpass_s16_step3) (const int16_t * src, const int16_t * w, int n,
      uint8_t * out);
} StageResizeKernels;

STAGE_HIDDEN extern const StageResizeKernels stage_resize_kernels_scalar;
#if defined(__x86_64__) || defined(__i386__)
STAGE_HIDDEN extern const StageResizeKernels stage_resize_kernels_sse41;
STAGE_HIDDEN extern const StageResizeKernels stage_resize_kernels_avx2;
#endif
#if defined(__aarch64__)
STAGE_HIDDEN extern const StageResizeKernels stage_resize_kernels_neon;
#endif

/* The scalar kernels, for the SIMD tables' leftovers. */
STAGE_HIDDEN void stage_resize_vpass_u8_scalar (const uint8_t * const *rows,
    const int16_t * w, int T, int n, int16_t * out);
STAGE_HIDDEN void stage_resize_vpass_s16_scalar (const int16_t * const *rows,
    const int16_t * w, int T, int n, uint8_t * out);
STAGE_HIDDEN void stage_resize_hpass_u8_scalar (const uint8_t * src,
    const StageResizeTaps * t, int C, int16_t * out);
STAGE_HIDDEN void stage_resize_hpass_s16_scalar (const int16_t * src,
    const StageResizeTaps * t, int C, uint8_t * out);
STAGE_HIDDEN void stage_resize_box2_row_scalar (const uint8_t * r0,
    const uint8_t * r1, int C, int n, uint8_t * out, ptrdiff_t ahead);
STAGE_HIDDEN void stage_resize_hpass_u8_pair_scalar (const uint8_t * src,
    const StageResizeTaps * t, const void *prep, int C, int16_t * out);
STAGE_HIDDEN void stage_resize_near2_row_scalar (const uint8_t * src, int C,
    int n, uint8_t * out);
STAGE_HIDDEN void stage_resize_tri2_row_scalar (const uint8_t * const *rows,
    int C, int n, uint8_t * out0, uint8_t * out1, ptrdiff_t ahead);

STAGE_INLINE uint8_t
stage_clamp_u8 (int32_t v)
{
  return v < 0 ? 0 : v > 255 ? 255 : (uint8_t) v;
}

#endif /* __RESIZE_KERNELS_H__ */
