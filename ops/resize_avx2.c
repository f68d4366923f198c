/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the AVX2 row kernels of ops/resize.c, over the SSE4.1
 * helpers of resize_x86.h (the same exactness contract as
 * resize_sse41.c: the bytes of the scalar kernels). */
#include "resize_x86.h"

#if defined(__x86_64__) || defined(__i386__)

/* ---- AVX2 ----------------------------------------------------------------
 * The vertical passes take 32 columns at a time. The in-lane unpacks of
 * AVX2 put columns 0-3 and 8-11 in one accumulator, 4-7 and 12-15 in the
 * other; packs undoes exactly that, so the results come out in order. */

AVX2_INLINE __m256i
load_s16x16 (const int16_t * p)
{
  return _mm256_loadu_si256 ((const __m256i *) p);
}

#define VPASS_AVX2(NAME, IN_T, LOAD, OUT_T, ROUND, FINISH)                    \
AVX2_INLINE void                                                              \
NAME##_body (const IN_T * const *rp, const int32_t * wp, const int np,       \
    int n, OUT_T * out)                                                       \
{                                                                             \
  const __m256i round = _mm256_set1_epi32 (ROUND);                            \
  int x, k;                                                                   \
                                                                              \
  for (x = 0; x < n; x += BLOCK) {                                            \
    __m256i a0 = round, a1 = round, a2 = round, a3 = round;                   \
    if (x > n - BLOCK)                                                        \
      x = n - BLOCK;                                                          \
    for (k = 0; k < np; k++) {                                                \
      const __m256i wk = _mm256_set1_epi32 (wp[k]);                           \
      const IN_T *p0 = rp[2 * k] + x, *p1 = rp[2 * k + 1] + x;                \
      __m256i r0 = LOAD (p0), r0b = LOAD (p0 + 16);                           \
      __m256i r1 = LOAD (p1), r1b = LOAD (p1 + 16);                           \
      a0 = _mm256_add_epi32 (a0,                                              \
          _mm256_madd_epi16 (_mm256_unpacklo_epi16 (r0, r1), wk));            \
      a1 = _mm256_add_epi32 (a1,                                              \
          _mm256_madd_epi16 (_mm256_unpackhi_epi16 (r0, r1), wk));            \
      a2 = _mm256_add_epi32 (a2,                                              \
          _mm256_madd_epi16 (_mm256_unpacklo_epi16 (r0b, r1b), wk));          \
      a3 = _mm256_add_epi32 (a3,                                              \
          _mm256_madd_epi16 (_mm256_unpackhi_epi16 (r0b, r1b), wk));          \
    }                                                                         \
    FINISH;                                                                   \
  }                                                                           \
}                                                                             \
VPASS_WRAPPER (AVX2 static, NAME, IN_T, OUT_T)

/* Bytes in: the two rows' bytes are interleaved first (one unpack for 16
 * columns of both), then widened to the (r_k, r_k+1) word pairs by unpacks
 * with zero: fewer shuffles than widening each row and interleaving the
 * words, and the shuffle ports set the pace of this loop. The columns come
 * out as 0-7 16-23 | 8-15 24-31; two lane permutes restore the order. */
AVX2_INLINE void
vpass_u8_avx2_body (const uint8_t * const *rp, const int32_t * wp,
    const int np, int n, int16_t * out)
{
  const __m256i round = _mm256_set1_epi32 (1 << (SHIFT1 - 1));
  const __m256i zero = _mm256_setzero_si256 ();
  int x, k;

  for (x = 0; x < n; x += 32) {
    __m256i a0 = round, a1 = round, a2 = round, a3 = round, p01, p23;
    if (x > n - 32)
      x = n - 32;
    for (k = 0; k < np; k++) {
      const __m256i wk = _mm256_set1_epi32 (wp[k]);
      const __m256i r0 = _mm256_loadu_si256 ((const __m256i *) (rp[2 * k] +
              x));
      const __m256i r1 = _mm256_loadu_si256 ((const __m256i *) (rp[2 * k +
                  1] + x));
      const __m256i lo = _mm256_unpacklo_epi8 (r0, r1);
      const __m256i hi = _mm256_unpackhi_epi8 (r0, r1);
      a0 = _mm256_add_epi32 (a0,
          _mm256_madd_epi16 (_mm256_unpacklo_epi8 (lo, zero), wk));
      a1 = _mm256_add_epi32 (a1,
          _mm256_madd_epi16 (_mm256_unpackhi_epi8 (lo, zero), wk));
      a2 = _mm256_add_epi32 (a2,
          _mm256_madd_epi16 (_mm256_unpacklo_epi8 (hi, zero), wk));
      a3 = _mm256_add_epi32 (a3,
          _mm256_madd_epi16 (_mm256_unpackhi_epi8 (hi, zero), wk));
    }
    /* (0-7 | 16-23) and (8-15 | 24-31) */
    p01 = _mm256_packs_epi32 (_mm256_srai_epi32 (a0, SHIFT1),
        _mm256_srai_epi32 (a1, SHIFT1));
    p23 = _mm256_packs_epi32 (_mm256_srai_epi32 (a2, SHIFT1),
        _mm256_srai_epi32 (a3, SHIFT1));
    _mm256_storeu_si256 ((__m256i *) (out + x),
        _mm256_permute2x128_si256 (p01, p23, 0x20));
    _mm256_storeu_si256 ((__m256i *) (out + x + 16),
        _mm256_permute2x128_si256 (p01, p23, 0x31));
  }
}

#undef BLOCK
#undef FALLBACK
#define BLOCK 32
#define FALLBACK vpass_u8_sse41
VPASS_WRAPPER (AVX2 static, vpass_u8_avx2, uint8_t, int16_t)

#undef FALLBACK
#define FALLBACK vpass_s16_sse41
/* packus mixes the lanes of its two inputs (0-7 16-23 | 8-15 24-31); the
 * 64-bit permute puts them back in order. */
VPASS_AVX2 (vpass_s16_avx2, int16_t, load_s16x16, uint8_t,
    1 << (SHIFT2 - 1),
    _mm256_storeu_si256 ((__m256i *) (out + x),
        _mm256_permute4x64_epi64 (_mm256_packus_epi16 (_mm256_packs_epi32
                (_mm256_srai_epi32 (a0, SHIFT2), _mm256_srai_epi32 (a1,
                        SHIFT2)), _mm256_packs_epi32 (_mm256_srai_epi32 (a2,
                        SHIFT2), _mm256_srai_epi32 (a3, SHIFT2))),
            _MM_SHUFFLE (3, 1, 2, 0))))

AVX2_INLINE __m256i
load2x128 (const void *lo, const void *hi)
{
  return _mm256_inserti128_si256 (_mm256_castsi128_si256 (_mm_loadu_si128
          ((const __m128i *) lo)), _mm_loadu_si128 ((const __m128i *) hi), 1);
}

/* Q6 in, bytes out, C = 1, taps a multiple of 8: outputs x and x+1 share a
 * register; eight outputs are reduced with three hadds, one permute. The
 * tap tables come in as restrict locals: through the StageResizeTaps
 * pointer the compiler would reload them after every store. */
AVX2_INLINE __m256i
dot2_taps8 (const int16_t * src, const int32_t * restrict st,
    const int16_t * restrict w, int T)
{
  const int16_t *s0 = src + st[0], *s1 = src + st[1];
  __m256i acc = _mm256_setzero_si256 ();
  int k;

  for (k = 0; k < T; k += 8)
    acc = _mm256_add_epi32 (acc, _mm256_madd_epi16 (load2x128 (s0 + k,
                s1 + k), load2x128 (w + k, w + T + k)));
  return acc;
}

/* Exactly 8 taps (3:1 bilinear): the weights of two outputs are one load. */
AVX2_INLINE __m256i
dot2_taps8_exact (const int16_t * src, const int32_t * restrict st,
    const int16_t * restrict w)
{
  return _mm256_madd_epi16 (load2x128 (src + st[0], src + st[1]),
      _mm256_loadu_si256 ((const __m256i *) w));
}

/* Taps = 4: four outputs per register, their weights one load. */
AVX2_INLINE __m256i
dot4_taps4 (const int16_t * src, const int32_t * restrict st,
    const int16_t * restrict w)
{
  __m128i lo = _mm_loadl_epi64 ((const __m128i *) (src + st[0]));
  __m128i hi = _mm_loadl_epi64 ((const __m128i *) (src + st[2]));

  lo = _mm_castpd_si128 (_mm_loadh_pd (_mm_castsi128_pd (lo),
          (const double *) (src + st[1])));
  hi = _mm_castpd_si128 (_mm_loadh_pd (_mm_castsi128_pd (hi),
          (const double *) (src + st[3])));
  return _mm256_madd_epi16 (_mm256_inserti128_si256 (_mm256_castsi128_si256
          (lo), hi, 1), _mm256_loadu_si256 ((const __m256i *) w));
}

AVX2_INLINE void
store8_u8 (uint8_t * out, __m256i v)
{
  const __m256i round = _mm256_set1_epi32 (1 << (SHIFT2 - 1));
  __m128i p;

  v = _mm256_srai_epi32 (_mm256_add_epi32 (v, round), SHIFT2);
  p = _mm_packs_epi32 (_mm256_castsi256_si128 (v),
      _mm256_extracti128_si256 (v, 1));
  _mm_storel_epi64 ((__m128i *) out, _mm_packus_epi16 (p, p));
}

AVX2 static void
hpass_s16_c1_avx2 (const int16_t * src, const StageResizeTaps * t,
    uint8_t * restrict out)
{
  const int T = t->n_taps, n = t->out_size;
  const int32_t *restrict st = t->start;
  const int16_t *restrict wt = t->weights;
  /* hadd of pairs leaves (x0 x2 x4 x6 | x1 x3 x5 x7) */
  const __m256i pairs = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  /* hadd of quads leaves (x0 x1 x4 x5 | x2 x3 x6 x7) */
  const __m256i quads = _mm256_setr_epi32 (0, 1, 4, 5, 2, 3, 6, 7);
  int x = 0;

  if (T == 8) {
    for (; x + 8 <= n; x += 8) {
      const int16_t *w = wt + (size_t) x * 8;
      __m256i ab = _mm256_hadd_epi32 (dot2_taps8_exact (src, st + x, w),
          dot2_taps8_exact (src, st + x + 2, w + 16));
      __m256i cd = _mm256_hadd_epi32 (dot2_taps8_exact (src, st + x + 4,
              w + 32), dot2_taps8_exact (src, st + x + 6, w + 48));
      store8_u8 (out + x, _mm256_permutevar8x32_epi32 (_mm256_hadd_epi32 (ab,
                  cd), pairs));
    }
  } else if (T % 8 == 0) {
    for (; x + 8 <= n; x += 8) {
      const int16_t *w = wt + (size_t) x * T;
      __m256i ab = _mm256_hadd_epi32 (dot2_taps8 (src, st + x, w, T),
          dot2_taps8 (src, st + x + 2, w + 2 * T, T));
      __m256i cd = _mm256_hadd_epi32 (dot2_taps8 (src, st + x + 4,
              w + 4 * T, T), dot2_taps8 (src, st + x + 6, w + 6 * T, T));
      store8_u8 (out + x, _mm256_permutevar8x32_epi32 (_mm256_hadd_epi32 (ab,
                  cd), pairs));
    }
  } else if (T == 4) {
    for (; x + 8 <= n; x += 8)
      store8_u8 (out + x, _mm256_permutevar8x32_epi32 (_mm256_hadd_epi32
              (dot4_taps4 (src, st + x, wt + (size_t) x * 4),
                  dot4_taps4 (src, st + x + 4, wt + (size_t) x * 4 + 16)),
              quads));
  }
  hpass_s16_c1_sse41 (src, t, out, x);
}

/* C = 2 (NV12's chroma), four taps: outputs x and x+1 share a register;
 * a byte shuffle makes (c0 c0 c1 c1) tap pairs as in dot_c2, and the two
 * pairs of partial sums of a channel are added across 64-bit halves. */
AVX2_INLINE __m256i
dot2_c2_taps4 (const int16_t * src, const int32_t * restrict t_start,
    const int16_t * restrict t_weights, int x)
{
  const __m256i order = _mm256_setr_epi8 (0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12,
      13, 10, 11, 14, 15, 0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14,
      15);
  __m256i v = _mm256_shuffle_epi8 (load2x128 (src + (size_t) t_start[x] * 2,
          src + (size_t) t_start[x + 1] * 2), order);
  /* (x: w0..w3 w0..w3 | x+1: w0..w3 w0..w3), then (w01 w01 w23 w23) */
  __m256i w = _mm256_permute4x64_epi64 (_mm256_castsi128_si256
      (_mm_loadu_si128 ((const __m128i *) (t_weights + (size_t) x * 4))),
      _MM_SHUFFLE (1, 1, 0, 0));
  __m256i m = _mm256_madd_epi16 (v, _mm256_unpacklo_epi32 (w, w));

  /* lanes: c0 taps 0-1, c1 taps 0-1, c0 taps 2-3, c1 taps 2-3 */
  return _mm256_add_epi32 (m, _mm256_shuffle_epi32 (m, _MM_SHUFFLE (1, 0, 3,
              2)));
}

AVX2 static void
hpass_s16_c2_t4_avx2 (const int16_t * src, const StageResizeTaps * t,
    uint8_t * out)
{
  TAPS_LOCALS (t);
  int x;

  for (x = 0; x + 4 <= t_out; x += 4) {
    /* (x, x+2 | x+1, x+3) in 64-bit units after the unpack */
    __m256i s = _mm256_unpacklo_epi64 (dot2_c2_taps4 (src, t_start, t_weights, x),
        dot2_c2_taps4 (src, t_start, t_weights, x + 2));
    store8_u8 (out + x * 2, _mm256_permute4x64_epi64 (s, _MM_SHUFFLE (3, 1,
                2, 0)));
  }
  hpass_s16_c2_sse41 (src, t, out, x);
}

AVX2 static void
hpass_s16_avx2 (const int16_t * src, const StageResizeTaps * t, int C,
    uint8_t * out)
{
  const int T = t->n_taps;

  if (C == 1 && T % 4 == 0)
    hpass_s16_c1_avx2 (src, t, out);
  else if (C == 2 && T == 4)
    hpass_s16_c2_t4_avx2 (src, t, out);
  else if (C == 2 && T % 4 == 0)
    hpass_s16_c2_sse41 (src, t, out, 0);
  else if (C == 3 && T % 2 == 0)
    hpass_s16_c3_sse41 (src, t, out);
  else if (C == 4 && T % 2 == 0)
    hpass_s16_c4_sse41 (src, t, out);
  else
    stage_resize_hpass_s16_scalar (src, t, C, out);
}

/* Bytes in, Q6 out, C = 4, two taps (enlarging up to 2x): four outputs per
 * iteration. A byte shuffle interleaves the two pixels of each output by
 * channel, so pmaddwd's pairs are (tap 0, tap 1) of one channel. */
AVX2_INLINE __m256i
c4_t2_pair (const uint8_t * src, const int32_t * st, __m256i wv)
{
  const __m256i order = _mm256_setr_epi8 (0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9,
      13, 10, 14, 11, 15, 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11,
      15);
  __m128i v = _mm_loadl_epi64 ((const __m128i *) (src + (size_t) st[0] * 4));
  __m256i p;

  v = _mm_castpd_si128 (_mm_loadh_pd (_mm_castsi128_pd (v),
          (const double *) (src + (size_t) st[1] * 4)));
  /* (x: c0 pairs ... | x+1: c0 pairs ...) after the shuffle and widening. */
  p = _mm256_cvtepu8_epi16 (_mm_shuffle_epi8 (v,
          _mm256_castsi256_si128 (order)));
  return _mm256_srai_epi32 (_mm256_add_epi32 (_mm256_madd_epi16 (p, wv),
          _mm256_set1_epi32 (1 << (SHIFT1 - 1))), SHIFT1);
}

AVX2 static void
hpass_u8_c4_t2_avx2 (const uint8_t * src, const StageResizeTaps * t,
    int16_t * out)
{
  TAPS_LOCALS (t);
  const __m256i first = _mm256_setr_epi32 (0, 0, 0, 0, 1, 1, 1, 1);
  const __m256i second = _mm256_setr_epi32 (2, 2, 2, 2, 3, 3, 3, 3);
  int x;

  for (x = 0; x + 4 <= t_out; x += 4) {
    /* Weights of the four outputs: one (w0, w1) pair each. */
    __m256i w = _mm256_castsi128_si256 (_mm_loadu_si128 ((const __m128i *)
            (t_weights + (size_t) x * 2)));
    __m256i a = c4_t2_pair (src, t_start + x,
        _mm256_permutevar8x32_epi32 (w, first));
    __m256i b = c4_t2_pair (src, t_start + x + 2,
        _mm256_permutevar8x32_epi32 (w, second));
    /* packs leaves (x, x+2 | x+1, x+3). */
    _mm256_storeu_si256 ((__m256i *) (out + x * 4),
        _mm256_permute4x64_epi64 (_mm256_packs_epi32 (a, b),
            _MM_SHUFFLE (3, 1, 2, 0)));
  }
  if (x < t_out) {
    StageResizeTaps rest = *t;
    rest.out_size = t_out - x;
    rest.start = t->start + x;
    rest.weights = t->weights + (size_t) x * 2;
    hpass_u8_c4_sse41 (src, &rest, out + x * 4);
  }
}

AVX2 static void
hpass_u8_avx2 (const uint8_t * src, const StageResizeTaps * t, int C,
    int16_t * out)
{
  const int T = t->n_taps;

  if (C == 1 && T % 4 == 0)
    hpass_u8_c1_sse41 (src, t, out);
  else if (C == 2 && T % 4 == 0)
    hpass_u8_c2_sse41 (src, t, out);
  else if (C == 4 && T == 2)
    hpass_u8_c4_t2_avx2 (src, t, out);
  else if (C == 4 && T % 2 == 0)
    hpass_u8_c4_sse41 (src, t, out);
  else
    stage_resize_hpass_u8_scalar (src, t, C, out);
}

/* 32 output bytes per step; packus interleaves the lanes of its inputs,
 * the 64-bit permute restores the order. */
AVX2 static void
box2_row_avx2 (const uint8_t * r0, const uint8_t * r1, int C, int n,
    uint8_t * out, ptrdiff_t ahead)
{
  const __m256i ones = _mm256_set1_epi8 (1), two = _mm256_set1_epi16 (2);
  const __m256i order = _mm256_broadcastsi128_si256 (box2_order_sse41 (C));
  const int len = n * C;
  int x;

  if ((C != 1 && C != 2 && C != 4) || len < 32) {
    box2_row_sse41 (r0, r1, C, n, out, ahead);
    return;
  }
  for (x = 0; x < len; x += 32) {
    __m256i a0, a1, b0, b1, lo, hi;
    if (x > len - 32)
      x = len - 32;
    if (ahead) {
      prefetch_ahead (r0, ahead, 2 * (size_t) x);
      prefetch_ahead (r1, ahead, 2 * (size_t) x);
    }
    a0 = _mm256_loadu_si256 ((const __m256i *) (r0 + 2 * x));
    a1 = _mm256_loadu_si256 ((const __m256i *) (r0 + 2 * x + 32));
    b0 = _mm256_loadu_si256 ((const __m256i *) (r1 + 2 * x));
    b1 = _mm256_loadu_si256 ((const __m256i *) (r1 + 2 * x + 32));
    if (C > 1) {
      a0 = _mm256_shuffle_epi8 (a0, order);
      a1 = _mm256_shuffle_epi8 (a1, order);
      b0 = _mm256_shuffle_epi8 (b0, order);
      b1 = _mm256_shuffle_epi8 (b1, order);
    }
    lo = _mm256_add_epi16 (_mm256_maddubs_epi16 (a0, ones),
        _mm256_maddubs_epi16 (b0, ones));
    hi = _mm256_add_epi16 (_mm256_maddubs_epi16 (a1, ones),
        _mm256_maddubs_epi16 (b1, ones));
    lo = _mm256_srli_epi16 (_mm256_add_epi16 (lo, two), 2);
    hi = _mm256_srli_epi16 (_mm256_add_epi16 (hi, two), 2);
    _mm256_storeu_si256 ((__m256i *) (out + x), _mm256_permute4x64_epi64
        (_mm256_packus_epi16 (lo, hi), _MM_SHUFFLE (3, 1, 2, 0)));
  }
}

AVX2_INLINE __m256i
tri2_h_avx2 (const uint8_t * p, int C, __m256i order)
{
  __m256i ab = _mm256_loadu_si256 ((const __m256i *) p);
  __m256i cd = _mm256_loadu_si256 ((const __m256i *) (p + 2 * C));

  if (C > 1) {
    ab = _mm256_shuffle_epi8 (ab, order);
    cd = _mm256_shuffle_epi8 (cd, order);
  }
  return _mm256_add_epi16 (_mm256_maddubs_epi16 (ab,
          _mm256_set1_epi16 (0x0301)), _mm256_maddubs_epi16 (cd,
          _mm256_set1_epi16 (0x0103)));
}

AVX2_INLINE __m256i
tri2_v_avx2 (__m256i h0, __m256i h1, __m256i h2, __m256i h3)
{
  __m256i sum = _mm256_add_epi16 (_mm256_add_epi16 (h0, h3),
      _mm256_mullo_epi16 (_mm256_add_epi16 (h1, h2), _mm256_set1_epi16 (3)));

  return _mm256_mulhrs_epi16 (sum, _mm256_set1_epi16 (512));
}

AVX2_INLINE void
tri2_block_avx2 (const uint8_t * const *rows, size_t in, int C,
    __m256i order, int two, __m256i * o0, __m256i * o1)
{
  __m256i h2 = tri2_h_avx2 (rows[2] + in, C, order);
  __m256i h3 = tri2_h_avx2 (rows[3] + in, C, order);

  *o0 = tri2_v_avx2 (tri2_h_avx2 (rows[0] + in, C, order),
      tri2_h_avx2 (rows[1] + in, C, order), h2, h3);
  if (two)
    *o1 = tri2_v_avx2 (h2, h3, tri2_h_avx2 (rows[4] + in, C, order),
        tri2_h_avx2 (rows[5] + in, C, order));
}

/* packus interleaves the lanes of its inputs, the permute restores the
 * order. */
AVX2_INLINE void
store_packed_avx2 (uint8_t * out, __m256i lo, __m256i hi)
{
  _mm256_storeu_si256 ((__m256i *) out, _mm256_permute4x64_epi64
      (_mm256_packus_epi16 (lo, hi), _MM_SHUFFLE (3, 1, 2, 0)));
}

/* 32 output bytes per step (the groups of 2C bytes the shuffle works on
 * never straddle a 16-byte lane). Two output rows share the loop so that
 * their two common input rows are loaded and filtered once. */
AVX2_INLINE void
tri2_rows_avx2 (const uint8_t * const *rows, int C, int n, uint8_t * out0,
    uint8_t * out1, const int two, ptrdiff_t ahead)
{
  const __m256i order = _mm256_broadcastsi128_si256 (box2_order_sse41 (C));
  const int begin = C, end = (n - 1) * C;
  int o, k;

  for (o = begin; o < end; o += 32) {
    __m256i a0, a1, b0, b1;
    size_t in;
    if (o > end - 32)
      o = end - 32;
    in = (size_t) 2 * o - C;
    if (ahead)
      for (k = 2; k < (two ? 6 : 4); k++)
        prefetch_ahead (rows[k], ahead, in);
    tri2_block_avx2 (rows, in, C, order, two, &a0, &a1);
    tri2_block_avx2 (rows, in + 32, C, order, two, &b0, &b1);
    store_packed_avx2 (out0 + o, a0, b0);
    if (two)
      store_packed_avx2 (out1 + o, a1, b1);
  }
}

/* Four output rows from rows[0..9]: six of the ten rows' horizontal sums
 * serve two output rows each (a pair of output rows shares two). */
AVX2_INLINE void
tri2_block4_avx2 (const uint8_t * const *rows, size_t in, int C,
    __m256i order, __m256i * o)
{
  __m256i h0 = tri2_h_avx2 (rows[0] + in, C, order);
  __m256i h1 = tri2_h_avx2 (rows[1] + in, C, order);
  __m256i h2 = tri2_h_avx2 (rows[2] + in, C, order);
  __m256i h3 = tri2_h_avx2 (rows[3] + in, C, order);

  o[0] = tri2_v_avx2 (h0, h1, h2, h3);
  h0 = tri2_h_avx2 (rows[4] + in, C, order);
  h1 = tri2_h_avx2 (rows[5] + in, C, order);
  o[1] = tri2_v_avx2 (h2, h3, h0, h1);
  h2 = tri2_h_avx2 (rows[6] + in, C, order);
  h3 = tri2_h_avx2 (rows[7] + in, C, order);
  o[2] = tri2_v_avx2 (h0, h1, h2, h3);
  h0 = tri2_h_avx2 (rows[8] + in, C, order);
  h1 = tri2_h_avx2 (rows[9] + in, C, order);
  o[3] = tri2_v_avx2 (h2, h3, h0, h1);
}

/* The loop of tri2_rows4_avx2, C a constant once inlined. The row and
 * output pointers come in as locals: read through the caller's arrays,
 * they would be reloaded after every store (bytes may alias anything). */
AVX2_INLINE void
tri2_rows4_body (const uint8_t * const *rows_in, const int C, int n,
    uint8_t * const *out_in, ptrdiff_t ahead)
{
  const __m256i order = _mm256_broadcastsi128_si256 (box2_order_sse41 (C));
  const int begin = C, end = (n - 1) * C;
  const uint8_t *rows[10];
  uint8_t *out[4];
  int o, k;

  memcpy (rows, rows_in, sizeof (rows));
  memcpy (out, out_in, sizeof (out));
  for (o = begin; o < end; o += 32) {
    __m256i a[4], b[4];
    size_t in;
    if (o > end - 32)
      o = end - 32;
    in = (size_t) 2 * o - C;
    if (ahead)
      for (k = 2; k < 10; k++)
        prefetch_ahead (rows[k], ahead, in);
    tri2_block4_avx2 (rows, in, C, order, a);
    tri2_block4_avx2 (rows, in + 32, C, order, b);
    for (k = 0; k < 4; k++)
      store_packed_avx2 (out[k] + o, a[k], b[k]);
  }
}

AVX2 static int
tri2_rows4_avx2 (const uint8_t * const *rows, int C, int n,
    uint8_t * const *out, ptrdiff_t ahead)
{
  if ((C != 1 && C != 2 && C != 4) || (n - 2) * C < 32)
    return 0;
  if (C == 1)
    tri2_rows4_body (rows, 1, n, out, ahead);
  else if (C == 2)
    tri2_rows4_body (rows, 2, n, out, ahead);
  else
    tri2_rows4_body (rows, 4, n, out, ahead);
  return 1;
}

AVX2 static void
tri2_row_avx2 (const uint8_t * const *rows, int C, int n, uint8_t * out0,
    uint8_t * out1, ptrdiff_t ahead)
{
  if ((C != 1 && C != 2 && C != 4) || (n - 2) * C < 32)
    tri2_row_sse41 (rows, C, n, out0, out1, ahead);
  else if (out1)
    tri2_rows_avx2 (rows, C, n, out0, out1, 1, ahead);
  else
    tri2_rows_avx2 (rows, C, n, out0, NULL, 0, ahead);
}

/* ---- two-tap passes (bilinear and area enlarging) -----------------------
 * With w0 + w1 = 1 << 14 the contract's sums reduce to 16-bit arithmetic:
 *  - bytes to Q6: (w0 p0 + w1 p1 + 128) >> 8 = (p0 << 6) + ((w1 d + 128)
 *    >> 8) with d = p1 - p0, and pmulhrsw (d << 7, w1) is exactly
 *    (128 d w1 + (1 << 14)) >> 15, the second term (|d << 7| <= 32640);
 *  - Q6 to bytes: (w0 a + w1 b + (1 << 19)) >> 20 = (a + 32 + m) >> 6 with
 *    m = (w1 (b - a)) >> 14 = pmulhw (2 (b - a), 2 w1): the floor of the
 *    inner quotient can go first because a + 32 is an integer. 2 (b - a)
 *    fits int16 for rows in 0 .. 255 << 6, 2 w1 for w1 < 1 << 14 (w1 equal
 *    to it is row b alone). */

/* Pick shuffles of hpass_u8_pair_c4_avx2: each lane holds the 16 source
 * bytes from the start of an output pixel; the next output starts d = 0,
 * 1 or 2 pixels further. The shuffle puts each channel's (p0, p1) side by
 * side, for two outputs per lane. Index dlo + 3 dhi, dlo and dhi the steps
 * in the low and high lane. */
#define PICK_CH(b, c) (b) + (c), (b) + 4 + (c)
#define PICK_PIX(b) PICK_CH (b, 0), PICK_CH (b, 1), PICK_CH (b, 2), PICK_CH (b, 3)
#define PICK_LANE(d) PICK_PIX (0), PICK_PIX (4 * (d))
#define PICK(dlo, dhi) { PICK_LANE (dlo), PICK_LANE (dhi) }
static const uint8_t pair_pick[9][32] __attribute__((aligned (32))) = {
  PICK (0, 0), PICK (1, 0), PICK (2, 0),
  PICK (0, 1), PICK (1, 1), PICK (2, 1),
  PICK (0, 2), PICK (1, 2), PICK (2, 2),
};
#undef PICK
#undef PICK_LANE
#undef PICK_PIX
#undef PICK_CH

/* The outputs [0, n) of hpass_u8_pair_c4_avx2's vector loop: its loads
 * read 16 bytes from the starts of outputs x and x + 2, so it stops where
 * that would pass the end of the row. */
static int
pair_c4_vector_outputs (const StageResizeTaps * t)
{
  int n = t->out_size & ~3;

  while (n >= 4 && t->start[n - 2] > t->in_size - 4)
    n -= 4;
  return n;
}

/* hpass_u8_pair_c4_avx2's tables: per group of four outputs, the byte
 * offsets of the starts of outputs x and x + 2 and of the pick shuffles,
 * and the four outputs' w1 in their channels' lanes. */
typedef struct
{
  int n;                        /* outputs the groups cover */
  const int32_t *offsets;       /* three per group */
  /* Groups [rep_from, rep_to) repeat every rep_every (1 to 3) groups: the
   * same picks and weights, the loads rep_shift bytes further (the starts
   * of an enlargement by 2, 3/2, 4/3... step in a pattern). rep_every = 0:
   * no such run. */
  int rep_from, rep_to, rep_every;
  int32_t rep_shift;
  __m256i w1[];                 /* one per group */
} PairPrepC4;

/* Whether group g + every is group g, rep_shift bytes further. */
static int
pair_c4_repeats (const PairPrepC4 * pp, int g, int every, int32_t shift)
{
  const int32_t *o = pp->offsets + 3 * g, *r = o + 3 * every;

  return r[0] == o[0] + shift && r[1] == o[1] + shift && r[2] == o[2] &&
      !memcmp (&pp->w1[g + every], &pp->w1[g], sizeof (__m256i));
}

/* The longest run of repeating groups, over periods of 1 to 3 groups (as
 * many as the kernel keeps in registers), at least two periods long. */
static void
pair_c4_find_repeat (PairPrepC4 * pp)
{
  const int groups = pp->n / 4;
  const int32_t *off = pp->offsets;
  int every, g;

  pp->rep_from = pp->rep_to = pp->rep_every = 0;
  pp->rep_shift = 0;
  for (every = 1; every <= 3; every++) {
    int from = -1;              /* first g of the current run, or -1 */
    int32_t run_shift = 0;
    for (g = 0; g + every < groups; g++) {
      const int32_t shift = off[3 * (g + every)] - off[3 * g];
      int len;
      if (!pair_c4_repeats (pp, g, every, shift)) {
        from = -1;
        continue;
      }
      if (from < 0 || shift != run_shift) {
        from = g;
        run_shift = shift;
      }
      /* groups [from, g + every] */
      len = g + every + 1 - from;
      if (len >= 2 * every && len > pp->rep_to - pp->rep_from) {
        pp->rep_from = from;
        pp->rep_to = g + every + 1;
        pp->rep_every = every;
        pp->rep_shift = shift;
      }
    }
  }
}

static void *
hpass_u8_pair_prepare_avx2 (const StageResizeTaps * t, int C)
{
  const int n = C == 4 && t->n_taps == 2 ? pair_c4_vector_outputs (t) : 0;
  const size_t groups = (size_t) n / 4;
  const size_t head = (sizeof (PairPrepC4) + 31) & ~(size_t) 31;
  size_t g, size = head + groups * (sizeof (__m256i) + 3 * sizeof (int32_t));
  PairPrepC4 *pp;
  int32_t *off;

  if (groups == 0 || !(pp = aligned_alloc (32, (size + 31) & ~(size_t) 31)))
    return NULL;
  off = (int32_t *) ((uint8_t *) pp + head + groups * sizeof (__m256i));
  pp->n = n;
  pp->offsets = off;
  for (g = 0; g < groups; g++) {
    const int32_t *st = t->start + 4 * g;
    const int16_t *w = t->weights + 8 * g;
    int16_t lanes[16];
    int j, c;

    off[3 * g] = st[0] * 4;
    off[3 * g + 1] = st[2] * 4;
    off[3 * g + 2] = (int32_t) sizeof (pair_pick[0]) *
        ((st[1] - st[0]) + 3 * (st[3] - st[2]));
    for (j = 0; j < 4; j++)
      for (c = 0; c < 4; c++)
        lanes[4 * j + c] = w[2 * j + 1];
    memcpy (&pp->w1[g], lanes, sizeof (lanes));
  }
  pair_c4_find_repeat (pp);
  return pp;
}

/* Q6 in, bytes out, two rows: 32 samples of rows a and b at x, blended
 * with 2 w1 = w2 into out, and where out_b is set also with w2b into out_b
 * (two output rows between the same source rows share the loads and the
 * differences). */
AVX2_INLINE void
pair_v32 (const int16_t * a, const int16_t * b, int x, __m256i w2,
    uint8_t * out, __m256i w2b, uint8_t * out_b)
{
  const __m256i c32 = _mm256_set1_epi16 (32);
  __m256i a0 = load_s16x16 (a + x), a1 = load_s16x16 (a + x + 16);
  __m256i d0 = _mm256_sub_epi16 (load_s16x16 (b + x), a0);
  __m256i d1 = _mm256_sub_epi16 (load_s16x16 (b + x + 16), a1);

  d0 = _mm256_add_epi16 (d0, d0);
  d1 = _mm256_add_epi16 (d1, d1);
  a0 = _mm256_add_epi16 (a0, c32);
  a1 = _mm256_add_epi16 (a1, c32);
  store_packed_avx2 (out + x, _mm256_srai_epi16 (_mm256_add_epi16 (a0,
              _mm256_mulhi_epi16 (d0, w2)), 6),
      _mm256_srai_epi16 (_mm256_add_epi16 (a1, _mm256_mulhi_epi16 (d1, w2)),
          6));
  if (out_b)
    store_packed_avx2 (out_b + x, _mm256_srai_epi16 (_mm256_add_epi16 (a0,
                _mm256_mulhi_epi16 (d0, w2b)), 6),
        _mm256_srai_epi16 (_mm256_add_epi16 (a1, _mm256_mulhi_epi16 (d1,
                    w2b)), 6));
}

/* The rows and 2 w1 of a two-row blend; w1 = 1 << 14 is row b alone. */
AVX2_INLINE __m256i
pair_v_setup (const int16_t * const *rows, const int16_t * w,
    const int16_t ** a, const int16_t ** b)
{
  *a = rows[w[1] == WONE];
  *b = rows[1];
  return _mm256_set1_epi16 ((int16_t) (w[1] == WONE ? 0 : 2 * w[1]));
}

/* The last samples [x, n) of a two-row blend, n >= 32: 32 at a time, the
 * last block overlapping the one before (same bytes again). */
AVX2_INLINE void
pair_v_rest (const int16_t * a, const int16_t * b, int x, int n,
    __m256i w2, uint8_t * out, __m256i w2b, uint8_t * out_b)
{
  for (; x < n; x += 32)
    pair_v32 (a, b, x > n - 32 ? n - 32 : x, w2, out, w2b, out_b);
}

/* Bytes in, Q6 out, C = 4: four outputs per step, from two 16-byte loads
 * (outputs x and x + 2) and the byte shuffle chosen by the two steps;
 * pmaddubsw of the (p0, p1) pairs with (64, 0) and (-1, 1) makes p0 << 6
 * and p1 - p0. */
AVX2_INLINE __m256i
pair_c4_step (const uint8_t * s0, const uint8_t * s2, __m256i pick,
    __m256i w1)
{
  __m256i q = _mm256_shuffle_epi8 (load2x128 (s0, s2), pick);
  __m256i p0 = _mm256_maddubs_epi16 (q, _mm256_set1_epi16 (0x0040));
  __m256i d = _mm256_maddubs_epi16 (q, _mm256_set1_epi16 (0x01ff));

  return _mm256_add_epi16 (p0, _mm256_mulhrs_epi16 (_mm256_slli_epi16 (d, 7),
          w1));
}

/* two_tap_rows' blend, run beside the horizontal pass of the next row
 * (none where out is NULL). Passed by value and the position returned: held
 * in memory, the loop would reload it after every store of bytes. */
typedef struct
{
  const int16_t *a, *b;
  __m256i w2, w2b;
  uint8_t *out, *out_b;
} PairBlend;

/* The blend's blocks of 32 from sample x up to sample `upto`; returns
 * where it stopped. */
AVX2_INLINE int
pair_blend_upto (const PairBlend bl, int x, int upto)
{
  if (bl.out)
    for (; x + 32 <= upto; x += 32)
      pair_v32 (bl.a, bl.b, x, bl.w2, bl.out, bl.w2b, bl.out_b);
  return x;
}

/* Groups [g0, g1) from the tables, the blend keeping up from x; returns
 * the blend's position. */
AVX2_INLINE int
pair_c4_table (const uint8_t * src, const PairPrepC4 * pp, int16_t * out,
    int g0, int g1, const PairBlend bl, int x)
{
  const uint8_t *pick = (const uint8_t *) pair_pick;
  const int32_t *restrict off = pp->offsets + 3 * g0;
  int g;

  for (g = g0; g < g1; g++, off += 3) {
    _mm256_storeu_si256 ((__m256i *) (out + (size_t) g * 16),
        pair_c4_step (src + off[0], src + off[1],
            _mm256_load_si256 ((const __m256i *) (pick + off[2])),
            _mm256_load_si256 (&pp->w1[g])));
    x = pair_blend_upto (bl, x, (g + 1) * 16);
  }
  return x;
}

/* Groups [rep_from, end) of the repeating run, `every` (1 to 3, a
 * constant once inlined) at a time: their offsets from the run's first
 * load, shuffles and weights stay in registers. Returns the blend's
 * position. */
AVX2_INLINE int
pair_c4_repeat (const uint8_t * src, const PairPrepC4 * pp, int16_t * out,
    const int every, int end, const PairBlend bl, int x)
{
  const int32_t *off = pp->offsets + 3 * pp->rep_from;
  const uint8_t *pick = (const uint8_t *) pair_pick;
  const uint8_t *base = src + off[0];
  const ptrdiff_t shift = pp->rep_shift;
  ptrdiff_t r0[3], r2[3];
  __m256i pk[3], w1[3];
  int g, j;

  for (j = 0; j < every; j++) {
    r0[j] = off[3 * j] - off[0];
    r2[j] = off[3 * j + 1] - off[0];
    pk[j] = _mm256_load_si256 ((const __m256i *) (pick + off[3 * j + 2]));
    w1[j] = _mm256_load_si256 (&pp->w1[pp->rep_from + j]);
  }
  for (g = pp->rep_from; g < end; g += every) {
    for (j = 0; j < every; j++)
      _mm256_storeu_si256 ((__m256i *) (out + (size_t) (g + j) * 16),
          pair_c4_step (base + r0[j], base + r2[j], pk[j], w1[j]));
    base += shift;
    x = pair_blend_upto (bl, x, (g + every) * 16);
  }
  return x;
}

/* All the groups of a row, the repeating run without tables; returns the
 * blend's position. */
AVX2_INLINE int
pair_c4_groups (const uint8_t * src, const PairPrepC4 * pp, int16_t * out,
    const PairBlend bl)
{
  const int every = pp->rep_every;
  int x = 0, g = 0;

  if (every) {
    /* the whole periods of the run */
    g = pp->rep_from + (pp->rep_to - pp->rep_from) / every * every;
    x = pair_c4_table (src, pp, out, 0, pp->rep_from, bl, x);
    if (every == 1)
      x = pair_c4_repeat (src, pp, out, 1, g, bl, x);
    else if (every == 2)
      x = pair_c4_repeat (src, pp, out, 2, g, bl, x);
    else
      x = pair_c4_repeat (src, pp, out, 3, g, bl, x);
  }
  return pair_c4_table (src, pp, out, g, pp->n / 4, bl, x);
}

/* The outputs past the groups (or all, without tables: rows shorter than
 * a group, or no memory for them), by the general pass. */
SSE41_INLINE void
pair_c4_tail (const uint8_t * src, const StageResizeTaps * t, int n,
    int16_t * out)
{
  if (n < t->out_size) {
    StageResizeTaps rest = *t;
    rest.out_size = t->out_size - n;
    rest.start = t->start + n;
    rest.weights = t->weights + (size_t) n * 2;
    hpass_u8_c4_sse41 (src, &rest, out + (size_t) n * 4);
  }
}

AVX2 static void
hpass_u8_pair_c4_avx2 (const uint8_t * src, const StageResizeTaps * t,
    const PairPrepC4 * pp, int16_t * out)
{
  const PairBlend none = { 0 };

  if (pp)
    pair_c4_groups (src, pp, out, none);
  pair_c4_tail (src, t, pp ? pp->n : 0, out);
}

AVX2 static void
hpass_u8_pair_avx2 (const uint8_t * src, const StageResizeTaps * t,
    const void *prep, int C, int16_t * out)
{
  if (C == 4 && t->n_taps == 2)
    hpass_u8_pair_c4_avx2 (src, t, prep, out);
  else
    hpass_u8_avx2 (src, t, C, out);
}

AVX2 static void
vpass_s16_pair_avx2 (const int16_t * const *rows, const int16_t * w, int T,
    int n, uint8_t * out)
{
  const int16_t *a, *b;
  __m256i w2;

  if (T != 2 || n < 32) {
    vpass_s16_avx2 (rows, w, T, n, out);
    return;
  }
  w2 = pair_v_setup (rows, w, &a, &b);
  pair_v_rest (a, b, 0, n, w2, out, w2, NULL);
}

/* vpass_s16_pair (n samples of C = 4) into out, with out_b also with
 * weights w_b, and hpass_u8_pair of the next source row into new_row
 * where src is set, in one loop: the blend waits on memory (it writes
 * the output), the horizontal pass on arithmetic, and in one loop the CPU
 * overlaps the two. */
AVX2 static int
two_tap_rows_avx2 (const int16_t * const *rows, const int16_t * w, int n,
    uint8_t * out, const int16_t * w_b, uint8_t * out_b, const uint8_t * src,
    const StageResizeTaps * t, const void *prep, int16_t * new_row)
{
  const PairPrepC4 *pp = prep;
  PairBlend bl;
  int x = 0;

  if (!pp || n != t->out_size * 4 || n < 32)
    return 0;
  /* Two rows share row a only where neither is row b alone. */
  if (out_b && (w[1] == WONE || w_b[1] == WONE))
    return 0;
  bl.w2 = pair_v_setup (rows, w, &bl.a, &bl.b);
  bl.w2b = _mm256_set1_epi16 ((int16_t) (out_b ? 2 * w_b[1] : 0));
  bl.out = out;
  bl.out_b = out_b;
  if (src)
    x = pair_c4_groups (src, pp, new_row, bl);
  pair_v_rest (bl.a, bl.b, x, n, bl.w2, out, bl.w2b, out_b);
  if (src)
    pair_c4_tail (src, t, pp->n, new_row);
  return 1;
}

/* As near2_row_sse41, 32 output bytes a step: the packs and the shuffle
 * work within lanes, a 64-bit permute puts the halves in order. */
AVX2 static void
near2_row_avx2 (const uint8_t * src, int C, int n, uint8_t * out)
{
  const int end = n * C;
  int o;

  if (C == 3 || end < 32) {
    near2_row_sse41 (src, C, n, out);
    return;
  }
  for (o = 0; o < end; o += 32) {
    __m256i a, b, v;
    if (o > end - 32)
      o = end - 32;
    a = _mm256_loadu_si256 ((const __m256i *) (src + 2 * (size_t) o));
    b = _mm256_loadu_si256 ((const __m256i *) (src + 2 * (size_t) o + 32));
    if (C == 1)
      v = _mm256_packus_epi16 (_mm256_srli_epi16 (a, 8),
          _mm256_srli_epi16 (b, 8));
    else if (C == 2)
      v = _mm256_packus_epi32 (_mm256_srli_epi32 (a, 16),
          _mm256_srli_epi32 (b, 16));
    else
      v = _mm256_castps_si256 (_mm256_shuffle_ps (_mm256_castsi256_ps (a),
              _mm256_castsi256_ps (b), _MM_SHUFFLE (3, 1, 3, 1)));
    _mm256_storeu_si256 ((__m256i *) (out + o),
        _mm256_permute4x64_epi64 (v, _MM_SHUFFLE (3, 1, 2, 0)));
  }
}

/* ---- 3:1 across with one set of taps (hpass_s16_step3) ----------------
 * Each 128-bit lane makes 8 outputs from the 26 samples they read, held in
 * four vectors of 8 (A B C D). Tap j of output i is sample 3i + j: in a
 * lane, those eight samples sit at eight different word positions of A, B,
 * C and D, so two or three word blends gather them into one vector and a
 * byte shuffle puts them in output order. Then pmaddwd on taps (0 1),
 * (2 3), (4 -), as in the other kernels: no gathers of start offsets, no
 * weight loads, no horizontal adds. */

/* Word shuffles (as bytes) of the blends below: tap j's samples in output
 * order. */
#define W2B(a) (2 * (a)), (2 * (a) + 1)
#define STEP3_ORDER(a, b, c, d, e, f, g, h) \
  _mm256_setr_epi8 (W2B (a), W2B (b), W2B (c), W2B (d), W2B (e), W2B (f),   \
      W2B (g), W2B (h), W2B (a), W2B (b), W2B (c), W2B (d), W2B (e), W2B (f), \
      W2B (g), W2B (h))

AVX2_INLINE __m256i
step3_pairs (__m256i a, __m256i b, int lo)
{
  return lo ? _mm256_unpacklo_epi16 (a, b) : _mm256_unpackhi_epi16 (a, b);
}

/* 16 outputs from src[0 .. 56): lane 0 outputs 0-7, lane 1 outputs 8-15;
 * tap 4 only where `five` (else its weight is 0). w4_ is (w4, 0). */
AVX2_INLINE void
step3_block_avx2 (const int16_t * src, __m256i w01, __m256i w23, __m256i w4_,
    const int five, uint8_t * out)
{
  const __m256i round = _mm256_set1_epi32 (1 << (SHIFT2 - 1));
  const __m256i a = load2x128 (src, src + 24), b = load2x128 (src + 8,
      src + 32), c = load2x128 (src + 16, src + 40);
  /* A B C at the word positions where taps 0, 1 and 2 find them; taps 3
   * and 4 are taps 0 and 1 of the next output: the same, with D's first
   * or second word filling the one hole. */
  const __m256i m0 = _mm256_blend_epi16 (_mm256_blend_epi16 (a, b, 0x92), c,
      0x24);
  const __m256i m1 = _mm256_blend_epi16 (_mm256_blend_epi16 (a, b, 0x24), c,
      0x49);
  const __m256i m2 = _mm256_blend_epi16 (_mm256_blend_epi16 (a, b, 0x49), c,
      0x92);
  __m256i d = load2x128 (src + 24, src + 48), q[5], sum[2];
  int h;

  q[0] = _mm256_shuffle_epi8 (m0, STEP3_ORDER (0, 3, 6, 1, 4, 7, 2, 5));
  q[1] = _mm256_shuffle_epi8 (m1, STEP3_ORDER (1, 4, 7, 2, 5, 0, 3, 6));
  q[2] = _mm256_shuffle_epi8 (m2, STEP3_ORDER (2, 5, 0, 3, 6, 1, 4, 7));
  q[3] = _mm256_shuffle_epi8 (_mm256_blend_epi16 (m0, d, 0x01),
      STEP3_ORDER (3, 6, 1, 4, 7, 2, 5, 0));
  if (five)
    q[4] = _mm256_shuffle_epi8 (_mm256_blend_epi16 (m1, d, 0x02),
        STEP3_ORDER (4, 7, 2, 5, 0, 3, 6, 1));
  for (h = 0; h < 2; h++) {
    sum[h] = _mm256_add_epi32 (_mm256_add_epi32 (round,
            _mm256_madd_epi16 (step3_pairs (q[0], q[1], !h), w01)),
        _mm256_madd_epi16 (step3_pairs (q[2], q[3], !h), w23));
    if (five)
      sum[h] = _mm256_add_epi32 (sum[h],
          _mm256_madd_epi16 (step3_pairs (q[4], q[4], !h), w4_));
  }
  /* (0-3 4-7 | 8-11 12-15) as words, then bytes twice per lane */
  d = _mm256_packs_epi32 (_mm256_srai_epi32 (sum[0], SHIFT2),
      _mm256_srai_epi32 (sum[1], SHIFT2));
  d = _mm256_permute4x64_epi64 (_mm256_packus_epi16 (d, d),
      _MM_SHUFFLE (3, 1, 2, 0));
  _mm_storeu_si128 ((__m128i *) out, _mm256_castsi256_si128 (d));
}

AVX2 static void
hpass_s16_step3_avx2 (const int16_t * src, const int16_t * w, int n,
    uint8_t * out)
{
  const __m256i w01 = _mm256_set1_epi32 ((int32_t) weight_pair (w, 0, 5)),
      w23 = _mm256_set1_epi32 ((int32_t) weight_pair (w, 2, 5)),
      w4_ = _mm256_set1_epi32 ((int32_t) weight_pair (w, 4, 5));
  int i;

  for (i = 0; i < n; i += 16) {
    if (i > n - 16)
      i = n - 16;
    if (w[4])
      step3_block_avx2 (src + 3 * i, w01, w23, w4_, 1, out + i);
    else
      step3_block_avx2 (src + 3 * i, w01, w23, w4_, 0, out + i);
  }
}

const StageResizeKernels stage_resize_kernels_avx2 = {
  .name = "avx2",
  .vpass_u8 = vpass_u8_avx2,
  .vpass_s16 = vpass_s16_avx2,
  .hpass_u8 = hpass_u8_avx2,
  .hpass_s16 = hpass_s16_avx2,
  .box2_row = box2_row_avx2,
  .tri2_row = tri2_row_avx2,
  .hpass_u8_pair = hpass_u8_pair_avx2,
  .vpass_s16_pair = vpass_s16_pair_avx2,
  .hpass_u8_pair_prepare = hpass_u8_pair_prepare_avx2,
  .two_tap_rows = two_tap_rows_avx2,
  .near2_row = near2_row_avx2,
  .tri2_rows4 = tri2_rows4_avx2,
  .hpass_s16_step3 = hpass_s16_step3_avx2,
};

#endif /* x86 */
