/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
    uint8_t * out, ptrdiff_t ahead)
{
  int x;

  if (C != 1 || n < 8) {
    stage_resize_box2_row_scalar (r0, r1, C, n, out, ahead);
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

/* ---- exact 2:1 triangle ------------------------------------------------
 * A structure load of C-byte units (vld2 of bytes, halfwords or words)
 * splits the source pixels 2x - 1 and 2x of 16 / C outputs, channels in
 * output order; the same load two pixels on gives 2x + 1 and 2x + 2. Per
 * row a + 3 (b + c) + d (at most 2040), then H0 + 3 (H1 + H2) + H3 (at
 * most 16320) in 16 bits, and (S + 32) >> 6 is a rounding narrowing
 * shift. */

static inline __attribute__((always_inline)) uint8x16x2_t
tri2_load_neon (const uint8_t * p, int C)
{
  uint8x16x2_t r;

  if (C == 1)
    return vld2q_u8 (p);
  if (C == 2) {
    uint16x8x2_t v = vld2q_u16 ((const uint16_t *) (const void *) p);
    r.val[0] = vreinterpretq_u8_u16 (v.val[0]);
    r.val[1] = vreinterpretq_u8_u16 (v.val[1]);
  } else {
    uint32x4x2_t v = vld2q_u32 ((const uint32_t *) (const void *) p);
    r.val[0] = vreinterpretq_u8_u32 (v.val[0]);
    r.val[1] = vreinterpretq_u8_u32 (v.val[1]);
  }
  return r;
}

/* One row's horizontal sums for 16 output bytes: low and high halves. */
static inline __attribute__((always_inline)) uint16x8x2_t
tri2_h_neon (const uint8_t * p, int C)
{
  uint8x16x2_t ab = tri2_load_neon (p, C), cd = tri2_load_neon (p + 2 * C, C);
  uint16x8x2_t h;

  h.val[0] = vmlaq_n_u16 (vaddl_u8 (vget_low_u8 (ab.val[0]),
          vget_low_u8 (cd.val[1])), vaddl_u8 (vget_low_u8 (ab.val[1]),
          vget_low_u8 (cd.val[0])), 3);
  h.val[1] = vmlaq_n_u16 (vaddl_high_u8 (ab.val[0], cd.val[1]),
      vaddl_high_u8 (ab.val[1], cd.val[0]), 3);
  return h;
}

static inline __attribute__((always_inline)) uint8x16_t
tri2_v_neon (uint16x8x2_t h0, uint16x8x2_t h1, uint16x8x2_t h2,
    uint16x8x2_t h3)
{
  uint16x8_t lo = vmlaq_n_u16 (vaddq_u16 (h0.val[0], h3.val[0]),
      vaddq_u16 (h1.val[0], h2.val[0]), 3);
  uint16x8_t hi = vmlaq_n_u16 (vaddq_u16 (h0.val[1], h3.val[1]),
      vaddq_u16 (h1.val[1], h2.val[1]), 3);

  return vcombine_u8 (vrshrn_n_u16 (lo, 6), vrshrn_n_u16 (hi, 6));
}

/* 16 output bytes per step; the rows 2 and 3 shared by the two output rows
 * are filtered once. */
static inline __attribute__((always_inline)) void
tri2_rows_neon (const uint8_t * const *rows, const int C, int n,
    uint8_t * out0, uint8_t * out1)
{
  /* Output bytes of the interior pixels; output byte o reads from input
   * byte 2 o - C on, up to 2 o + C + 32 (the end of the row at most). */
  const int begin = C, end = (n - 1) * C;
  int o;

  for (o = begin; o < end; o += 16) {
    size_t in;
    uint16x8x2_t h2, h3;
    if (o > end - 16)
      o = end - 16;
    in = (size_t) 2 * o - C;
    h2 = tri2_h_neon (rows[2] + in, C);
    h3 = tri2_h_neon (rows[3] + in, C);
    vst1q_u8 (out0 + o, tri2_v_neon (tri2_h_neon (rows[0] + in, C),
            tri2_h_neon (rows[1] + in, C), h2, h3));
    if (out1)
      vst1q_u8 (out1 + o, tri2_v_neon (h2, h3, tri2_h_neon (rows[4] + in, C),
              tri2_h_neon (rows[5] + in, C)));
  }
}

static void
tri2_row_neon (const uint8_t * const *rows, int C, int n, uint8_t * out0,
    uint8_t * out1, ptrdiff_t ahead)
{
  /* Not measured on arm64 hardware yet: no prefetching. */
  (void) ahead;
  if ((C != 1 && C != 2 && C != 4) || (n - 2) * C < 16)
    stage_resize_tri2_row_scalar (rows, C, n, out0, out1, 0);
  else if (C == 1)
    tri2_rows_neon (rows, 1, n, out0, out1);
  else if (C == 2)
    tri2_rows_neon (rows, 2, n, out0, out1);
  else
    tri2_rows_neon (rows, 4, n, out0, out1);
}

/* ---- two-tap passes (bilinear and area enlarging) -----------------------
 * The 16-bit forms of resize_sse41.c and resize_avx2.c (see there): bytes to Q6 is (p0 << 6)
 * + vqrdmulh ((p1 - p0) << 7, w1), which is (d w1 + 128) >> 8 exactly;
 * Q6 to bytes is (a + 32 + vqdmulh (2 (b - a), w1)) >> 6, vqdmulh giving
 * (2 x y) >> 16 = (w1 (b - a)) >> 14. Neither can saturate: no operand is
 * -32768. */

/* Bytes in, Q6 out, C = 4: two outputs per 8 + 8 byte loads (each output's
 * two pixels), four per step. */
static void
hpass_u8_pair_neon (const uint8_t * src, const StageResizeTaps * t,
    const void *prep, int C, int16_t * out)
{
  const int32_t *st = t->start;
  const int16_t *w = t->weights;
  int x;

  (void) prep;
  if (C != 4 || t->n_taps != 2) {
    hpass_u8_neon (src, t, C, out);
    return;
  }
  for (x = 0; x + 4 <= t->out_size; x += 4) {
    /* (p0 p1) of outputs x, x + 1 and of x + 2, x + 3; unzipping the
     * 32-bit units separates the p0s from the p1s. */
    uint32x4_t q01 = vreinterpretq_u32_u8 (vcombine_u8 (vld1_u8 (src +
                (size_t) st[x] * 4), vld1_u8 (src + (size_t) st[x + 1] * 4)));
    uint32x4_t q23 = vreinterpretq_u32_u8 (vcombine_u8 (vld1_u8 (src +
                (size_t) st[x + 2] * 4), vld1_u8 (src + (size_t) st[x + 3] *
                4)));
    uint8x16_t p0 = vreinterpretq_u8_u32 (vuzp1q_u32 (q01, q23));
    uint8x16_t p1 = vreinterpretq_u8_u32 (vuzp2q_u32 (q01, q23));
    int16x8_t w01 = vcombine_s16 (vdup_n_s16 (w[2 * x + 1]),
        vdup_n_s16 (w[2 * x + 3]));
    int16x8_t w23 = vcombine_s16 (vdup_n_s16 (w[2 * x + 5]),
        vdup_n_s16 (w[2 * x + 7]));
    int16x8_t a_lo = vreinterpretq_s16_u16 (vmovl_u8 (vget_low_u8 (p0)));
    int16x8_t a_hi = vreinterpretq_s16_u16 (vmovl_high_u8 (p0));
    int16x8_t d_lo = vreinterpretq_s16_u16 (vsubl_u8 (vget_low_u8 (p1),
            vget_low_u8 (p0)));
    int16x8_t d_hi = vreinterpretq_s16_u16 (vsubl_high_u8 (p1, p0));

    vst1q_s16 (out + (size_t) x * 4, vaddq_s16 (vshlq_n_s16 (a_lo, 6),
            vqrdmulhq_s16 (vshlq_n_s16 (d_lo, 7), w01)));
    vst1q_s16 (out + (size_t) x * 4 + 8, vaddq_s16 (vshlq_n_s16 (a_hi, 6),
            vqrdmulhq_s16 (vshlq_n_s16 (d_hi, 7), w23)));
  }
  if (x < t->out_size) {
    StageResizeTaps rest = *t;
    rest.out_size = t->out_size - x;
    rest.start = t->start + x;
    rest.weights = t->weights + (size_t) x * 2;
    stage_resize_hpass_u8_scalar (src, &rest, 4, out + (size_t) x * 4);
  }
}

/* Q6 in, bytes out, two rows: 16 samples per step. */
static void
vpass_s16_pair_neon (const int16_t * const *rows, const int16_t * w, int T,
    int n, uint8_t * out)
{
  const int16_t *a = rows[0], *b = rows[1];
  const int16_t w1 = w[1];
  const int16x8_t c32 = vdupq_n_s16 (32);
  int x;

  if (T != 2 || n < 16) {
    vpass_s16_neon (rows, w, T, n, out);
    return;
  }
  for (x = 0; x < n; x += 16) {
    int16x8_t a0, a1, d0, d1;
    if (x > n - 16)
      x = n - 16;
    a0 = vld1q_s16 (a + x);
    a1 = vld1q_s16 (a + x + 8);
    d0 = vsubq_s16 (vld1q_s16 (b + x), a0);
    d1 = vsubq_s16 (vld1q_s16 (b + x + 8), a1);
    a0 = vaddq_s16 (vaddq_s16 (a0, c32), vqdmulhq_n_s16 (vaddq_s16 (d0, d0),
            w1));
    a1 = vaddq_s16 (vaddq_s16 (a1, c32), vqdmulhq_n_s16 (vaddq_s16 (d1, d1),
            w1));
    vst1q_u8 (out + x, vcombine_u8 (vqshrun_n_s16 (a0, 6),
            vqshrun_n_s16 (a1, 6)));
  }
}

/* Nearest at 2:1: the odd units of a structure load of C-byte units. */
static void
near2_row_neon (const uint8_t * src, int C, int n, uint8_t * out)
{
  const int end = n * C;
  int o;

  if (C == 3 || end < 16) {
    stage_resize_near2_row_scalar (src, C, n, out);
    return;
  }
  for (o = 0; o < end; o += 16) {
    if (o > end - 16)
      o = end - 16;
    vst1q_u8 (out + o, tri2_load_neon (src + 2 * (size_t) o, C).val[1]);
  }
}

/* 3:1 across with one set of five taps (hpass_s16_step3): vld3 splits 24
 * samples into the three phases, which are taps 0 1 2 of eight outputs;
 * the same from three samples further gives taps 3 and 4. */
static void
hpass_s16_step3_neon (const int16_t * src, const int16_t * w, int n,
    uint8_t * out)
{
  int i, k;

  for (i = 0; i < n; i += 8) {
    int16x8x3_t p, q;
    int16x8_t tap[5];
    int32x4_t lo = vdupq_n_s32 (1 << (SHIFT2 - 1)), hi = lo;

    if (i > n - 8)
      i = n - 8;
    p = vld3q_s16 (src + 3 * i);
    q = vld3q_s16 (src + 3 * i + 3);
    tap[0] = p.val[0];
    tap[1] = p.val[1];
    tap[2] = p.val[2];
    tap[3] = q.val[0];
    tap[4] = q.val[1];
    for (k = 0; k < 5; k++) {
      lo = vmlal_n_s16 (lo, vget_low_s16 (tap[k]), w[k]);
      hi = vmlal_n_s16 (hi, vget_high_s16 (tap[k]), w[k]);
    }
    vst1_u8 (out + i, narrow_u8 (lo, hi));
  }
}

const StageResizeKernels stage_resize_kernels_neon = {
  .name = "neon",
  .vpass_u8 = vpass_u8_neon,
  .vpass_s16 = vpass_s16_neon,
  .hpass_u8 = hpass_u8_neon,
  .hpass_s16 = hpass_s16_neon,
  .box2_row = box2_row_neon,
  .tri2_row = tri2_row_neon,
  .hpass_u8_pair = hpass_u8_pair_neon,
  .vpass_s16_pair = vpass_s16_pair_neon,
  .near2_row = near2_row_neon,
  .hpass_s16_step3 = hpass_s16_step3_neon,
};

#else
/* ISO C wants a translation unit to declare something. */
typedef int stage_resize_neon_unused;
#endif /* __aarch64__ */
