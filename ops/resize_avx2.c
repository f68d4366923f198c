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
VPASS_WRAPPER (AVX2, NAME, IN_T, OUT_T)

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

AVX2 void
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
