/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: what the x86 row kernels of ops/resize.c share: the target
 * attributes, the SSE4.1 helpers (always inlined, so that the AVX2 kernels
 * of resize_avx2.c use them in their own code) and the SSE4.1 kernels
 * that the AVX2 ones fall back to (resize_sse41.c). Internal to the ops
 * library. */
#ifndef __STAGE_RESIZE_X86_H__
#define __STAGE_RESIZE_X86_H__

#include "resize_kernels.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>
#include <string.h>

#define SSE41 __attribute__((target ("sse4.1")))
#define AVX2 __attribute__((target ("avx2")))
#define SSE41_INLINE static inline __attribute__((always_inline, \
      target ("sse4.1")))
#define AVX2_INLINE static inline __attribute__((always_inline, \
      target ("avx2")))

/* The tap tables as restrict locals: read through the StageResizeTaps
 * pointer, GCC reloads them after every store to the output. */
#define TAPS_LOCALS(t)                                                        \
  const int32_t *restrict const t_start = (t)->start;                         \
  const int16_t *restrict const t_weights = (t)->weights;                     \
  const int t_out = (t)->out_size

/* ---- SSE4.1 helpers ---------------------------------------------------- */
/* The 2:1 kernels' prefetch of the rows the next call adds (see `ahead` in
 * resize_kernels.h): the line this far past the column being read, at
 * `ahead` bytes. Measured on 4K -> 1080p NV12 bilinear (AVX2, AMD Zen 3):
 * 64 to 1024 bytes all gave 1.22 -> 0.92-0.96 ms a frame. */
#define AHEAD_SKIP 256

static inline __attribute__((always_inline)) void
prefetch_ahead (const uint8_t * row, ptrdiff_t ahead, size_t at)
{
  _mm_prefetch ((const char *) (row + ahead + at + AHEAD_SKIP), _MM_HINT_T0);
}

SSE41_INLINE __m128i
load_u8x8 (const uint8_t * p)
{
  return _mm_cvtepu8_epi16 (_mm_loadl_epi64 ((const __m128i *) p));
}

SSE41_INLINE __m128i
load_u8x4 (const uint8_t * p)
{
  int32_t v;

  memcpy (&v, p, 4);
  return _mm_cvtepu8_epi16 (_mm_cvtsi32_si128 (v));
}

SSE41_INLINE __m128i
load_s16x8 (const int16_t * p)
{
  return _mm_loadu_si128 ((const __m128i *) p);
}

/* Weights k and k+1 in every 32-bit lane, for pmaddwd on row pairs. */
SSE41_INLINE int32_t
weight_pair (const int16_t * w, int k, int T)
{
  uint32_t lo = (uint16_t) w[k], hi = k + 1 < T ? (uint16_t) w[k + 1] : 0;

  return (int32_t) (lo | hi << 16);
}

/* ---- vertical passes ----------------------------------------------------
 * Sixteen columns at a time; taps two by two: the samples of rows k and
 * k+1 are interleaved so that pmaddwd computes r_k * w_k + r_k+1 * w_k+1
 * per column. The accumulators stay in registers through all taps. A
 * width that is not a multiple of the block recomputes an overlapping last
 * block (same bytes again). */
/* Row pointers and weight pairs of up to MAX_FAST_TAPS taps (a 128:1
 * shrink; more go to the scalar kernel), made once per
 * output row; an odd last tap pairs with itself at weight 0 (exact, and no
 * branch in the column loop). */
#define MAX_FAST_TAPS 256

/* The column loop, with np known at compile time for the common tap
 * counts (switch below): the weights and row pointers then stay in
 * registers for the whole row. */
#define VPASS_WRAPPER(ATTR, NAME, IN_T, OUT_T)                                \
ATTR void                                                                     \
NAME (const IN_T * const *rows, const int16_t * w, int T, int n,             \
    OUT_T * out)                                                              \
{                                                                             \
  const IN_T *rp[MAX_FAST_TAPS + 1];                                          \
  int32_t wp[MAX_FAST_TAPS / 2];                                              \
  const int np = (T + 1) / 2;                                                 \
  int k;                                                                      \
                                                                              \
  if (T > MAX_FAST_TAPS || n < BLOCK) {                                       \
    FALLBACK (rows, w, T, n, out);                                            \
    return;                                                                   \
  }                                                                           \
  for (k = 0; k < T; k++)                                                     \
    rp[k] = rows[k];                                                          \
  rp[T] = rows[T - 1];                                                        \
  for (k = 0; k < np; k++)                                                    \
    wp[k] = weight_pair (w, 2 * k, T);                                        \
  switch (np) {                                                               \
    case 1:                                                                   \
      NAME##_body (rp, wp, 1, n, out);                                        \
      break;                                                                  \
    case 2:                                                                   \
      NAME##_body (rp, wp, 2, n, out);                                        \
      break;                                                                  \
    case 3:                                                                   \
      NAME##_body (rp, wp, 3, n, out);                                        \
      break;                                                                  \
    case 4:                                                                   \
      NAME##_body (rp, wp, 4, n, out);                                        \
      break;                                                                  \
    default:                                                                  \
      NAME##_body (rp, wp, np, n, out);                                       \
      break;                                                                  \
  }                                                                           \
}

#define VPASS_SSE41(NAME, IN_T, LOAD, OUT_T, ROUND, FINISH)                   \
SSE41_INLINE void                                                             \
NAME##_body (const IN_T * const *rp, const int32_t * wp, const int np,       \
    int n, OUT_T * out)                                                       \
{                                                                             \
  const __m128i round = _mm_set1_epi32 (ROUND);                               \
  int x, k;                                                                   \
                                                                              \
  for (x = 0; x < n; x += BLOCK) {                                            \
    __m128i a0 = round, a1 = round, a2 = round, a3 = round;                   \
    if (x > n - BLOCK)                                                        \
      x = n - BLOCK;                                                          \
    for (k = 0; k < np; k++) {                                                \
      const __m128i wk = _mm_set1_epi32 (wp[k]);                              \
      const IN_T *p0 = rp[2 * k] + x, *p1 = rp[2 * k + 1] + x;                \
      __m128i r0 = LOAD (p0), r0b = LOAD (p0 + 8);                            \
      __m128i r1 = LOAD (p1), r1b = LOAD (p1 + 8);                            \
      a0 = _mm_add_epi32 (a0, _mm_madd_epi16 (_mm_unpacklo_epi16 (r0, r1),    \
              wk));                                                           \
      a1 = _mm_add_epi32 (a1, _mm_madd_epi16 (_mm_unpackhi_epi16 (r0, r1),    \
              wk));                                                           \
      a2 = _mm_add_epi32 (a2, _mm_madd_epi16 (_mm_unpacklo_epi16 (r0b, r1b),  \
              wk));                                                           \
      a3 = _mm_add_epi32 (a3, _mm_madd_epi16 (_mm_unpackhi_epi16 (r0b, r1b),  \
              wk));                                                           \
    }                                                                         \
    FINISH;                                                                   \
  }                                                                           \
}                                                                             \
VPASS_WRAPPER (SSE41, NAME, IN_T, OUT_T)

/* ---- horizontal passes, bytes in, Q6 out (enlarging) ------------------ */
SSE41_INLINE int16_t
q6 (__m128i sum)
{
  return (int16_t) ((_mm_cvtsi128_si32 (sum) + (1 << (SHIFT1 - 1))) >>
      SHIFT1);
}

/* C = 1, taps a multiple of 4. */
SSE41_INLINE void
hpass_u8_c1_sse41 (const uint8_t * src, const StageResizeTaps * t,
    int16_t * out)
{
  TAPS_LOCALS (t);
  const int T = t->n_taps;
  int x, k;

  for (x = 0; x < t_out; x++) {
    const uint8_t *s = src + t_start[x];
    const int16_t *w = t_weights + (size_t) x * T;
    __m128i acc = _mm_setzero_si128 ();
    for (k = 0; k + 8 <= T; k += 8)
      acc = _mm_add_epi32 (acc, _mm_madd_epi16 (load_u8x8 (s + k),
              _mm_loadu_si128 ((const __m128i *) (w + k))));
    if (k < T)
      acc = _mm_add_epi32 (acc, _mm_madd_epi16 (load_u8x4 (s + k),
              _mm_loadl_epi64 ((const __m128i *) (w + k))));
    acc = _mm_add_epi32 (acc, _mm_shuffle_epi32 (acc, 0x4e));
    acc = _mm_add_epi32 (acc, _mm_shuffle_epi32 (acc, 0xb1));
    out[x] = q6 (acc);
  }
}

/* C = 2, taps a multiple of 4: reorder each pixel pair to (c0 c0 c1 c1). */
SSE41_INLINE void
hpass_u8_c2_sse41 (const uint8_t * src, const StageResizeTaps * t,
    int16_t * out)
{
  TAPS_LOCALS (t);
  const int T = t->n_taps;
  int x, k;

  for (x = 0; x < t_out; x++) {
    const uint8_t *s = src + (size_t) t_start[x] * 2;
    const int16_t *w = t_weights + (size_t) x * T;
    __m128i acc = _mm_setzero_si128 ();
    for (k = 0; k < T; k += 4) {
      __m128i v = load_u8x8 (s + k * 2);
      __m128i wv = _mm_loadl_epi64 ((const __m128i *) (w + k));
      v = _mm_shufflelo_epi16 (v, _MM_SHUFFLE (3, 1, 2, 0));
      v = _mm_shufflehi_epi16 (v, _MM_SHUFFLE (3, 1, 2, 0));
      acc = _mm_add_epi32 (acc, _mm_madd_epi16 (v,
              _mm_unpacklo_epi32 (wv, wv)));
    }
    acc = _mm_add_epi32 (acc, _mm_srli_si128 (acc, 8));
    out[x * 2] = q6 (acc);
    out[x * 2 + 1] = q6 (_mm_srli_si128 (acc, 4));
  }
}

/* C = 4, taps a multiple of 2: one load holds two pixels; interleaving
 * their halves pairs tap k and k+1 of each channel for pmaddwd. */
SSE41_INLINE void
hpass_u8_c4_sse41 (const uint8_t * src, const StageResizeTaps * t,
    int16_t * out)
{
  TAPS_LOCALS (t);
  const int T = t->n_taps;
  const __m128i round = _mm_set1_epi32 (1 << (SHIFT1 - 1));
  int x, k;

  for (x = 0; x < t_out; x++) {
    const uint8_t *s = src + (size_t) t_start[x] * 4;
    const int16_t *w = t_weights + (size_t) x * T;
    __m128i acc = round;
    for (k = 0; k < T; k += 2) {
      __m128i v = load_u8x8 (s + k * 4);
      int32_t wp;
      memcpy (&wp, w + k, 4);
      acc = _mm_add_epi32 (acc,
          _mm_madd_epi16 (_mm_unpacklo_epi16 (v, _mm_srli_si128 (v, 8)),
              _mm_set1_epi32 (wp)));
    }
    acc = _mm_srai_epi32 (acc, SHIFT1);
    _mm_storel_epi64 ((__m128i *) (out + x * 4), _mm_packs_epi32 (acc, acc));
  }
}

/* ---- horizontal passes, Q6 in, bytes out (shrinking) ------------------ */
/* Sum of the taps of one output, in the four lanes of a vector. */
SSE41_INLINE __m128i
dot_taps (const int16_t * s, const int16_t * w, int T)
{
  __m128i acc = _mm_setzero_si128 ();
  int k;

  for (k = 0; k + 8 <= T; k += 8)
    acc = _mm_add_epi32 (acc, _mm_madd_epi16 (load_s16x8 (s + k),
            load_s16x8 (w + k)));
  if (k < T)
    acc = _mm_add_epi32 (acc,
        _mm_madd_epi16 (_mm_loadl_epi64 ((const __m128i *) (s + k)),
            _mm_loadl_epi64 ((const __m128i *) (w + k))));
  return acc;
}

SSE41_INLINE uint8_t
u8_of (int32_t sum)
{
  return stage_clamp_u8 ((sum + (1 << (SHIFT2 - 1))) >> SHIFT2);
}

/* C = 1, taps a multiple of 4: four outputs are reduced, rounded and
 * saturated together. */
SSE41_INLINE void
hpass_s16_c1_sse41 (const int16_t * src, const StageResizeTaps * t,
    uint8_t * out, int x)
{
  TAPS_LOCALS (t);
  const int T = t->n_taps;
  const __m128i round = _mm_set1_epi32 (1 << (SHIFT2 - 1));

  for (; x + 4 <= t_out; x += 4) {
    const int16_t *w = t_weights + (size_t) x * T;
    __m128i a = dot_taps (src + t_start[x], w, T);
    __m128i b = dot_taps (src + t_start[x + 1], w + T, T);
    __m128i c = dot_taps (src + t_start[x + 2], w + 2 * T, T);
    __m128i d = dot_taps (src + t_start[x + 3], w + 3 * T, T);
    __m128i v = _mm_hadd_epi32 (_mm_hadd_epi32 (a, b), _mm_hadd_epi32 (c,
            d));
    uint32_t packed;

    v = _mm_srai_epi32 (_mm_add_epi32 (v, round), SHIFT2);
    v = _mm_packs_epi32 (v, v);
    packed = (uint32_t) _mm_cvtsi128_si32 (_mm_packus_epi16 (v, v));
    memcpy (out + x, &packed, 4);
  }
  for (; x < t_out; x++) {
    __m128i a = dot_taps (src + t_start[x], t_weights + (size_t) x * T, T);
    a = _mm_hadd_epi32 (a, a);
    a = _mm_hadd_epi32 (a, a);
    out[x] = u8_of (_mm_cvtsi128_si32 (a));
  }
}

/* C = 2, taps a multiple of 4: one load holds four pixels; a byte shuffle
 * makes (c0 c0 c1 c1) pairs of taps for pmaddwd. */
SSE41_INLINE __m128i
dot_c2 (const int16_t * s, const int16_t * w, int T)
{
  const __m128i order = _mm_setr_epi8 (0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13,
      10, 11, 14, 15);
  __m128i acc = _mm_setzero_si128 ();
  int k;

  for (k = 0; k < T; k += 4) {
    __m128i v = _mm_shuffle_epi8 (load_s16x8 (s + k * 2), order);
    __m128i wv = _mm_loadl_epi64 ((const __m128i *) (w + k));
    acc = _mm_add_epi32 (acc, _mm_madd_epi16 (v, _mm_unpacklo_epi32 (wv,
                wv)));
  }
  /* lanes: c0 taps 0-1, c1 taps 0-1, c0 taps 2-3, c1 taps 2-3 */
  return _mm_add_epi32 (acc, _mm_srli_si128 (acc, 8));
}

SSE41_INLINE void
hpass_s16_c2_sse41 (const int16_t * src, const StageResizeTaps * t,
    uint8_t * out, int x)
{
  TAPS_LOCALS (t);
  const int T = t->n_taps;
  const __m128i round = _mm_set1_epi32 (1 << (SHIFT2 - 1));

  for (; x + 2 <= t_out; x += 2) {
    const int16_t *w = t_weights + (size_t) x * T;
    __m128i a = dot_c2 (src + (size_t) t_start[x] * 2, w, T);
    __m128i b = dot_c2 (src + (size_t) t_start[x + 1] * 2, w + T, T);
    __m128i v = _mm_unpacklo_epi64 (a, b);
    uint32_t packed;

    v = _mm_srai_epi32 (_mm_add_epi32 (v, round), SHIFT2);
    v = _mm_packs_epi32 (v, v);
    packed = (uint32_t) _mm_cvtsi128_si32 (_mm_packus_epi16 (v, v));
    memcpy (out + x * 2, &packed, 4);
  }
  for (; x < t_out; x++) {
    __m128i a = dot_c2 (src + (size_t) t_start[x] * 2,
        t_weights + (size_t) x * T, T);
    out[x * 2] = u8_of (_mm_cvtsi128_si32 (a));
    out[x * 2 + 1] = u8_of (_mm_cvtsi128_si32 (_mm_srli_si128 (a, 4)));
  }
}

/* C = 4 (shift 8 bytes) or C = 3 (shift 6 bytes), taps a multiple of 2:
 * pixel k+1 is shifted under pixel k and the two interleaved, so lanes
 * 0..C-1 accumulate the channels. With C = 3 the load reads two samples
 * past the tap window: the Q6 row has MID_SLACK bytes of slack for that. */
#define HPASS_S16_C34(NAME, C)                                                \
SSE41_INLINE void                                                             \
NAME (const int16_t * src, const StageResizeTaps * t, uint8_t * out)          \
{                                                                             \
  TAPS_LOCALS (t);                                                            \
  const int T = t->n_taps;                                                    \
  const __m128i round = _mm_set1_epi32 (1 << (SHIFT2 - 1));                   \
  int x, k;                                                                   \
                                                                              \
  for (x = 0; x < t_out; x++) {                                         \
    const int16_t *s = src + (size_t) t_start[x] * C;                        \
    const int16_t *w = t_weights + (size_t) x * T;                           \
    __m128i acc = round;                                                      \
    uint32_t packed;                                                          \
    for (k = 0; k < T; k += 2) {                                              \
      __m128i v = load_s16x8 (s + k * C);                                     \
      int32_t wp;                                                             \
      memcpy (&wp, w + k, 4);                                                 \
      acc = _mm_add_epi32 (acc, _mm_madd_epi16 (_mm_unpacklo_epi16 (v,        \
                  _mm_srli_si128 (v, 2 * C)), _mm_set1_epi32 (wp)));          \
    }                                                                         \
    acc = _mm_srai_epi32 (acc, SHIFT2);                                       \
    acc = _mm_packs_epi32 (acc, acc);                                         \
    packed = (uint32_t) _mm_cvtsi128_si32 (_mm_packus_epi16 (acc, acc));      \
    memcpy (out + x * C, &packed, C);                                         \
  }                                                                           \
}

HPASS_S16_C34 (hpass_s16_c3_sse41, 3)
HPASS_S16_C34 (hpass_s16_c4_sse41, 4)

/* ---- exact 2:1 box ------------------------------------------------------
 * pmaddubsw with ones adds horizontal neighbours into 16 bits (a + b at
 * most 510); a shuffle first brings the two pixels' samples of a channel
 * side by side when C > 1. (sum + 2) >> 2 never exceeds 255. */
SSE41_INLINE __m128i
box2_order_sse41 (int C)
{
  return C == 2 ? _mm_setr_epi8 (0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12,
      14, 13, 15) : _mm_setr_epi8 (0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10,
      14, 11, 15);
}

/* ---- exact 2:1 triangle -------------------------------------------------
 * Per row, pmaddubsw with (1, 3) on the pixel pairs (2x-1, 2x) and with
 * (3, 1) on (2x+1, 2x+2) gives a + 3b + 3c + d (at most 2040) in 16 bits;
 * the four rows combine as H0 + 3 (H1 + H2) + H3, at most 16320, still
 * exact in 16 bits. The same shuffle as the box brings a channel's two
 * samples side by side when C > 1. */
SSE41_INLINE __m128i
tri2_h_sse41 (const uint8_t * p, int C, __m128i order)
{
  __m128i ab = _mm_loadu_si128 ((const __m128i *) p);
  __m128i cd = _mm_loadu_si128 ((const __m128i *) (p + 2 * C));

  if (C > 1) {
    ab = _mm_shuffle_epi8 (ab, order);
    cd = _mm_shuffle_epi8 (cd, order);
  }
  return _mm_add_epi16 (_mm_maddubs_epi16 (ab, _mm_set1_epi16 (0x0301)),
      _mm_maddubs_epi16 (cd, _mm_set1_epi16 (0x0103)));
}

/* (H0 + 3 (H1 + H2) + H3 + 32) >> 6, the last step as pmulhrsw (S, 512)
 * = (512 S + (1 << 14)) >> 15. */
SSE41_INLINE __m128i
tri2_v_sse41 (__m128i h0, __m128i h1, __m128i h2, __m128i h3)
{
  __m128i sum = _mm_add_epi16 (_mm_add_epi16 (h0, h3),
      _mm_mullo_epi16 (_mm_add_epi16 (h1, h2), _mm_set1_epi16 (3)));

  return _mm_mulhrs_epi16 (sum, _mm_set1_epi16 (512));
}

/* 8 outputs of one or two rows from the 16 input bytes at byte offset `in`
 * of each input row: rows 2 and 3 are filtered once for both. */
SSE41_INLINE void
tri2_block_sse41 (const uint8_t * const *rows, size_t in, int C,
    __m128i order, int two, __m128i * o0, __m128i * o1)
{
  __m128i h2 = tri2_h_sse41 (rows[2] + in, C, order);
  __m128i h3 = tri2_h_sse41 (rows[3] + in, C, order);

  *o0 = tri2_v_sse41 (tri2_h_sse41 (rows[0] + in, C, order),
      tri2_h_sse41 (rows[1] + in, C, order), h2, h3);
  if (two)
    *o1 = tri2_v_sse41 (h2, h3, tri2_h_sse41 (rows[4] + in, C, order),
        tri2_h_sse41 (rows[5] + in, C, order));
}

/* ---- nearest at 2:1 ------------------------------------------------------
 * The odd C-byte units of 32 source bytes: shifted down into the even ones
 * and packed (bytes, words), or picked by a float shuffle (dwords). */
SSE41_INLINE __m128i
near2_pick_sse41 (__m128i a, __m128i b, int C)
{
  if (C == 1)
    return _mm_packus_epi16 (_mm_srli_epi16 (a, 8), _mm_srli_epi16 (b, 8));
  if (C == 2)
    return _mm_packus_epi32 (_mm_srli_epi32 (a, 16), _mm_srli_epi32 (b, 16));
  return _mm_castps_si128 (_mm_shuffle_ps (_mm_castsi128_ps (a),
          _mm_castsi128_ps (b), _MM_SHUFFLE (3, 1, 3, 1)));
}

/* ---- AVX2 helpers shared by resize_avx2.c and resize_avx2_pair.c ---- */

AVX2_INLINE __m256i
load_s16x16 (const int16_t * p)
{
  return _mm256_loadu_si256 ((const __m256i *) p);
}

AVX2_INLINE __m256i
load2x128 (const void *lo, const void *hi)
{
  return _mm256_inserti128_si256 (_mm256_castsi128_si256 (_mm_loadu_si128
          ((const __m128i *) lo)), _mm_loadu_si128 ((const __m128i *) hi), 1);
}

/* packus interleaves the lanes of its inputs, the permute restores the
 * order. */
AVX2_INLINE void
store_packed_avx2 (uint8_t * out, __m256i lo, __m256i hi)
{
  _mm256_storeu_si256 ((__m256i *) out, _mm256_permute4x64_epi64
      (_mm256_packus_epi16 (lo, hi), _MM_SHUFFLE (3, 1, 2, 0)));
}

/* The SSE4.1 kernels that the AVX2 ones hand small or odd rows to. */
SSE41 void vpass_u8_sse41 (const uint8_t * const *rows, const int16_t * w,
    int T, int n, int16_t * out);
SSE41 void vpass_s16_sse41 (const int16_t * const *rows, const int16_t * w,
    int T, int n, uint8_t * out);
SSE41 void box2_row_sse41 (const uint8_t * r0, const uint8_t * r1, int C,
    int n, uint8_t * out, ptrdiff_t ahead);
SSE41 void near2_row_sse41 (const uint8_t * src, int C, int n,
    uint8_t * out);
SSE41 void tri2_row_sse41 (const uint8_t * const *rows, int C, int n,
    uint8_t * out0, uint8_t * out1, ptrdiff_t ahead);

/* The AVX2 kernels that the two-tap passes hand other rows to. */
AVX2 void hpass_u8_avx2 (const uint8_t * src, const StageResizeTaps * t,
    int C, int16_t * out);
AVX2 void vpass_s16_avx2 (const int16_t * const *rows, const int16_t * w,
    int T, int n, uint8_t * out);

/* The AVX2 two-tap passes (resize_avx2_pair.c), for resize_avx2.c's
 * kernel table. */
AVX2 void hpass_u8_pair_avx2 (const uint8_t * src, const StageResizeTaps * t,
    const void *prep, int C, int16_t * out);
AVX2 void vpass_s16_pair_avx2 (const int16_t * const *rows,
    const int16_t * w, int T, int n, uint8_t * out);
void *hpass_u8_pair_prepare_avx2 (const StageResizeTaps * t, int C);
AVX2 int two_tap_rows_avx2 (const int16_t * const *rows, const int16_t * w,
    int n, uint8_t * out, const int16_t * w_b, uint8_t * out_b,
    const uint8_t * src, const StageResizeTaps * t, const void *prep,
    int16_t * new_row);

#endif /* x86 */

#endif /* __STAGE_RESIZE_X86_H__ */
