/* gst-stages: the arm64 NEON row kernels of ops/resize.c.
 *
 * NEON is part of every arm64 CPU, so no run-time check is needed. The
 * widening multiply-accumulates (vmlal) sum exact int32 products of the
 * same int16 weights and samples as the scalar kernels; the narrowing steps
 * shift as the contract in resize.h does and saturate as its clamp does,
 * so the bytes are the scalar ones.
 */
#include "resize_kernels.h"

#if defined(__aarch64__)

#include <arm_neon.h>

/* Sixteen columns at a time, four int32x4 accumulators in registers; a
 * width that is not a multiple of 16 recomputes an overlapping last block. */
static void
vpass_u8_neon (const uint8_t * const *rows, const int16_t * w, int T, int n,
    int16_t * out)
{
  int x, k;

  if (n < 16) {
    stage_resize_vpass_u8_scalar (rows, w, T, n, out);
    return;
  }
  for (x = 0; x < n; x += 16) {
    int32x4_t a0, a1, a2, a3;
    if (x > n - 16)
      x = n - 16;
    a0 = a1 = a2 = a3 = vdupq_n_s32 (1 << (SHIFT1 - 1));
    for (k = 0; k < T; k++) {
      uint8x16_t r = vld1q_u8 (rows[k] + x);
      int16x8_t lo = vreinterpretq_s16_u16 (vmovl_u8 (vget_low_u8 (r)));
      int16x8_t hi = vreinterpretq_s16_u16 (vmovl_u8 (vget_high_u8 (r)));
      a0 = vmlal_n_s16 (a0, vget_low_s16 (lo), w[k]);
      a1 = vmlal_n_s16 (a1, vget_high_s16 (lo), w[k]);
      a2 = vmlal_n_s16 (a2, vget_low_s16 (hi), w[k]);
      a3 = vmlal_n_s16 (a3, vget_high_s16 (hi), w[k]);
    }
    /* Q6 values fit int16: the plain narrowing is the scalar cast. */
    vst1q_s16 (out + x, vcombine_s16 (vmovn_s32 (vshrq_n_s32 (a0, SHIFT1)),
            vmovn_s32 (vshrq_n_s32 (a1, SHIFT1))));
    vst1q_s16 (out + x + 8, vcombine_s16 (vmovn_s32 (vshrq_n_s32 (a2,
                    SHIFT1)), vmovn_s32 (vshrq_n_s32 (a3, SHIFT1))));
  }
}

static inline __attribute__((always_inline)) uint8x8_t
narrow_u8 (int32x4_t lo, int32x4_t hi)
{
  /* Saturating twice = clamp to 0..255 of the shifted sum. */
  return vqmovun_s16 (vcombine_s16 (vqmovn_s32 (vshrq_n_s32 (lo, SHIFT2)),
          vqmovn_s32 (vshrq_n_s32 (hi, SHIFT2))));
}

static void
vpass_s16_neon (const int16_t * const *rows, const int16_t * w, int T, int n,
    uint8_t * out)
{
  int x, k;

  if (n < 16) {
    stage_resize_vpass_s16_scalar (rows, w, T, n, out);
    return;
  }
  for (x = 0; x < n; x += 16) {
    int32x4_t a0, a1, a2, a3;
    if (x > n - 16)
      x = n - 16;
    a0 = a1 = a2 = a3 = vdupq_n_s32 (1 << (SHIFT2 - 1));
    for (k = 0; k < T; k++) {
      int16x8_t lo = vld1q_s16 (rows[k] + x);
      int16x8_t hi = vld1q_s16 (rows[k] + x + 8);
      a0 = vmlal_n_s16 (a0, vget_low_s16 (lo), w[k]);
      a1 = vmlal_n_s16 (a1, vget_high_s16 (lo), w[k]);
      a2 = vmlal_n_s16 (a2, vget_low_s16 (hi), w[k]);
      a3 = vmlal_n_s16 (a3, vget_high_s16 (hi), w[k]);
    }
    vst1q_u8 (out + x, vcombine_u8 (narrow_u8 (a0, a1), narrow_u8 (a2, a3)));
  }
}

/* Q6 in, bytes out, C = 1, taps a multiple of 4. */
static void
hpass_s16_neon (const int16_t * src, const StageResizeTaps * t, int C,
    uint8_t * out)
{
  const int T = t->n_taps;
  int x, k;

  if (C != 1 || T % 4 != 0) {
    stage_resize_hpass_s16_scalar (src, t, C, out);
    return;
  }
  for (x = 0; x < t->out_size; x++) {
    const int16_t *s = src + t->start[x];
    const int16_t *w = t->weights + (size_t) x * T;
    int32x4_t acc = vdupq_n_s32 (0);
    for (k = 0; k < T; k += 4)
      acc = vmlal_s16 (acc, vld1_s16 (s + k), vld1_s16 (w + k));
    out[x] = stage_clamp_u8 ((vaddvq_s32 (acc) + (1 << (SHIFT2 - 1))) >>
        SHIFT2);
  }
}

/* Bytes in, Q6 out, C = 1, taps a multiple of 4. */
static void
hpass_u8_neon (const uint8_t * src, const StageResizeTaps * t, int C,
    int16_t * out)
{
  const int T = t->n_taps;
  int x, k;

  if (C != 1 || T % 4 != 0) {
    stage_resize_hpass_u8_scalar (src, t, C, out);
    return;
  }
  for (x = 0; x < t->out_size; x++) {
    const uint8_t *s = src + t->start[x];
    const int16_t *w = t->weights + (size_t) x * T;
    int32x4_t acc = vdupq_n_s32 (0);
    for (k = 0; k < T; k += 4) {
      uint32_t four;
      uint8x8_t b;
      __builtin_memcpy (&four, s + k, 4);
      b = vreinterpret_u8_u32 (vdup_n_u32 (four));
      acc = vmlal_s16 (acc, vget_low_s16 (vreinterpretq_s16_u16 (vmovl_u8
                  (b))), vld1_s16 (w + k));
    }
    out[x] = (int16_t) ((vaddvq_s32 (acc) + (1 << (SHIFT1 - 1))) >> SHIFT1);
  }
}

/* Exact 2:1 box, C = 1: pairwise widening adds (vpaddl), then a rounding
 * narrowing shift by 2 ((s + 2) >> 2, at most 255). */
static void
box2_row_neon (const uint8_t * r0, const uint8_t * r1, int C, int n,
    uint8_t * out)
{
  int x;

  if (C != 1 || n < 8) {
    stage_resize_box2_row_scalar (r0, r1, C, n, out);
    return;
  }
  for (x = 0; x < n; x += 8) {
    uint16x8_t s;
    if (x > n - 8)
      x = n - 8;
    s = vaddq_u16 (vpaddlq_u8 (vld1q_u8 (r0 + 2 * x)),
        vpaddlq_u8 (vld1q_u8 (r1 + 2 * x)));
    vst1_u8 (out + x, vrshrn_n_u16 (s, 2));
  }
}

static void
hpass_u8_pair_neon (const uint8_t * src, const StageResizeTaps * t,
    const void *prep, int C, int16_t * out)
{
  (void) prep;
  hpass_u8_neon (src, t, C, out);
}

const StageResizeKernels stage_resize_kernels_neon = {
  .name = "neon",
  .vpass_u8 = vpass_u8_neon,
  .vpass_s16 = vpass_s16_neon,
  .hpass_u8 = hpass_u8_neon,
  .hpass_s16 = hpass_s16_neon,
  .box2_row = box2_row_neon,
  /* Not vectorised for NEON yet: the portable kernel, same bytes. */
  .tri2_row = stage_resize_tri2_row_scalar,
  /* The general NEON passes: same bytes. */
  .hpass_u8_pair = hpass_u8_pair_neon,
  .vpass_s16_pair = vpass_s16_neon,
};

#else
/* ISO C wants a translation unit to declare something. */
typedef int stage_resize_neon_unused;
#endif /* __aarch64__ */
