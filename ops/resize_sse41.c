/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the SSE4.1 row kernels of ops/resize.c.
 *
 * Compiled for any x86-64 (the functions carry their own target
 * attributes, no -m flags), chosen at run time by resize.c from the CPU's
 * features. They give the bytes of the scalar kernels: pmaddwd sums exact
 * int32 products of the same int16 weights and samples, and the rounding
 * shifts are those of the contract in resize.h; packs never saturate a Q6
 * value (they fit int16) and packus clamps to 0..255 as the scalar code.
 * The helpers that the AVX2 kernels share are in resize_x86.h. */
#include "resize_x86.h"

#if defined(__x86_64__) || defined(__i386__)

#define BLOCK 16
#define FALLBACK stage_resize_vpass_u8_scalar

VPASS_SSE41 (vpass_u8_sse41, uint8_t, load_u8x8, int16_t, 1 << (SHIFT1 - 1),
    _mm_storeu_si128 ((__m128i *) (out + x),
        _mm_packs_epi32 (_mm_srai_epi32 (a0, SHIFT1),
            _mm_srai_epi32 (a1, SHIFT1)));
    _mm_storeu_si128 ((__m128i *) (out + x + 8),
        _mm_packs_epi32 (_mm_srai_epi32 (a2, SHIFT1),
            _mm_srai_epi32 (a3, SHIFT1))))

#undef FALLBACK
#define FALLBACK stage_resize_vpass_s16_scalar
VPASS_SSE41 (vpass_s16_sse41, int16_t, load_s16x8, uint8_t,
    1 << (SHIFT2 - 1),
    _mm_storeu_si128 ((__m128i *) (out + x),
        _mm_packus_epi16 (_mm_packs_epi32 (_mm_srai_epi32 (a0, SHIFT2),
                _mm_srai_epi32 (a1, SHIFT2)),
            _mm_packs_epi32 (_mm_srai_epi32 (a2, SHIFT2),
                _mm_srai_epi32 (a3, SHIFT2)))))

SSE41 static void
hpass_u8_sse41 (const uint8_t * src, const StageResizeTaps * t, int C,
    int16_t * out)
{
  const int T = t->n_taps;

  if (C == 1 && T % 4 == 0)
    hpass_u8_c1_sse41 (src, t, out);
  else if (C == 2 && T % 4 == 0)
    hpass_u8_c2_sse41 (src, t, out);
  else if (C == 4 && T % 2 == 0)
    hpass_u8_c4_sse41 (src, t, out);
  else
    stage_resize_hpass_u8_scalar (src, t, C, out);
}


SSE41 static void
hpass_s16_sse41 (const int16_t * src, const StageResizeTaps * t, int C,
    uint8_t * out)
{
  const int T = t->n_taps;

  if (C == 1 && T % 4 == 0)
    hpass_s16_c1_sse41 (src, t, out, 0);
  else if (C == 2 && T % 4 == 0)
    hpass_s16_c2_sse41 (src, t, out, 0);
  else if (C == 3 && T % 2 == 0)
    hpass_s16_c3_sse41 (src, t, out);
  else if (C == 4 && T % 2 == 0)
    hpass_s16_c4_sse41 (src, t, out);
  else
    stage_resize_hpass_s16_scalar (src, t, C, out);
}

SSE41 void
box2_row_sse41 (const uint8_t * r0, const uint8_t * r1, int C, int n,
    uint8_t * out, ptrdiff_t ahead)
{
  const __m128i ones = _mm_set1_epi8 (1), two = _mm_set1_epi16 (2);
  const __m128i order = box2_order_sse41 (C);
  const int len = n * C;        /* output bytes, 16 per step */
  int x;

  if ((C != 1 && C != 2 && C != 4) || len < 16) {
    stage_resize_box2_row_scalar (r0, r1, C, n, out, ahead);
    return;
  }
  for (x = 0; x < len; x += 16) {
    __m128i a0, a1, b0, b1, lo, hi;
    if (x > len - 16)
      x = len - 16;
    if (ahead && (x & 16) == 0) {
      prefetch_ahead (r0, ahead, 2 * (size_t) x);
      prefetch_ahead (r1, ahead, 2 * (size_t) x);
    }
    a0 = _mm_loadu_si128 ((const __m128i *) (r0 + 2 * x));
    a1 = _mm_loadu_si128 ((const __m128i *) (r0 + 2 * x + 16));
    b0 = _mm_loadu_si128 ((const __m128i *) (r1 + 2 * x));
    b1 = _mm_loadu_si128 ((const __m128i *) (r1 + 2 * x + 16));
    if (C > 1) {
      a0 = _mm_shuffle_epi8 (a0, order);
      a1 = _mm_shuffle_epi8 (a1, order);
      b0 = _mm_shuffle_epi8 (b0, order);
      b1 = _mm_shuffle_epi8 (b1, order);
    }
    lo = _mm_add_epi16 (_mm_maddubs_epi16 (a0, ones), _mm_maddubs_epi16 (b0,
            ones));
    hi = _mm_add_epi16 (_mm_maddubs_epi16 (a1, ones), _mm_maddubs_epi16 (b1,
            ones));
    lo = _mm_srli_epi16 (_mm_add_epi16 (lo, two), 2);
    hi = _mm_srli_epi16 (_mm_add_epi16 (hi, two), 2);
    _mm_storeu_si128 ((__m128i *) (out + x), _mm_packus_epi16 (lo, hi));
  }
}

SSE41 void
tri2_row_sse41 (const uint8_t * const *rows, int C, int n, uint8_t * out0,
    uint8_t * out1, ptrdiff_t ahead)
{
  const int n_rows = out1 ? 6 : 4;
  const __m128i order = box2_order_sse41 (C);
  /* Output bytes of the interior pixels; output byte o reads from input
   * byte 2 o - C on. */
  const int begin = C, end = (n - 1) * C;
  int o;

  if ((C != 1 && C != 2 && C != 4) || end - begin < 16) {
    stage_resize_tri2_row_scalar (rows, C, n, out0, out1, ahead);
    return;
  }
  for (o = begin; o < end; o += 16) {
    __m128i a0, a1, b0, b1;
    size_t in;
    int k;
    if (o > end - 16)
      o = end - 16;
    in = (size_t) 2 * o - C;
    if (ahead && (o & 16) == 0)
      for (k = 2; k < n_rows; k++)
        prefetch_ahead (rows[k], ahead, in);
    tri2_block_sse41 (rows, in, C, order, out1 != NULL, &a0, &a1);
    tri2_block_sse41 (rows, in + 16, C, order, out1 != NULL, &b0, &b1);
    _mm_storeu_si128 ((__m128i *) (out0 + o), _mm_packus_epi16 (a0, b0));
    if (out1)
      _mm_storeu_si128 ((__m128i *) (out1 + o), _mm_packus_epi16 (a1, b1));
  }
}

SSE41 void
near2_row_sse41 (const uint8_t * src, int C, int n, uint8_t * out)
{
  const int end = n * C;
  int o;

  if (C == 3 || end < 16) {
    stage_resize_near2_row_scalar (src, C, n, out);
    return;
  }
  /* Output byte o reads source bytes 2 o .. 2 o + 31. */
  for (o = 0; o < end; o += 16) {
    if (o > end - 16)
      o = end - 16;
    _mm_storeu_si128 ((__m128i *) (out + o), near2_pick_sse41 (_mm_loadu_si128
            ((const __m128i *) (src + 2 * (size_t) o)), _mm_loadu_si128
            ((const __m128i *) (src + 2 * (size_t) o + 16)), C));
  }
}

SSE41 static void
hpass_u8_pair_sse41 (const uint8_t * src, const StageResizeTaps * t,
    const void *prep, int C, int16_t * out)
{
  (void) prep;
  hpass_u8_sse41 (src, t, C, out);
}

const StageResizeKernels stage_resize_kernels_sse41 = {
  .name = "sse41",
  .vpass_u8 = vpass_u8_sse41,
  .vpass_s16 = vpass_s16_sse41,
  .hpass_u8 = hpass_u8_sse41,
  .hpass_s16 = hpass_s16_sse41,
  .box2_row = box2_row_sse41,
  .tri2_row = tri2_row_sse41,
  .hpass_u8_pair = hpass_u8_pair_sse41,
  .vpass_s16_pair = vpass_s16_sse41,
  .near2_row = near2_row_sse41,
};

#endif /* x86 */
