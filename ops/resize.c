/* gst-stages: separable resampling of 8-bit image planes.
 * See resize.h for the definitions of the methods.
 */
#include "resize.h"

/* GCC's unroll-and-jam fuses pairs of taps in the vertical pass and then
 * gives up vectorising the fused loop: twice slower. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize ("no-loop-unroll-and-jam")
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define WBITS STAGE_RESIZE_WEIGHT_BITS
#define WONE (1 << WBITS)
/* The intermediate rows keep 6 fractional bits: 255 << 6 plus bicubic
 * overshoot still fits an int16, and the rounding error it adds stays far
 * below one 8-bit step. */
#define MID_BITS 6
#define SHIFT1 (WBITS - MID_BITS)
#define SHIFT2 (WBITS + MID_BITS)
/* Columns per vertical-pass block: the int32 accumulators stay in L1. */
#define VBLOCK 512
/* Bytes after the Q6 row of vertical-first plans that SIMD loads may read
 * (never used in a result). */
#define MID_SLACK 16

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__linux__)
#define STAGE_CLONES __attribute__((target_clones ("avx2", "default")))
#else
#define STAGE_CLONES
#endif
#define STAGE_INLINE static inline __attribute__((always_inline))

struct StageResizePlan
{
  int src_w, src_h, dst_w, dst_h, channels;
  StageResizeMethod method;
  StageResizeTaps tx, ty;
  /* Filter columns of each source row first (then rows), or rows first. */
  int horizontal_first;
};

const char *
stage_resize_method_name (StageResizeMethod method)
{
  switch (method) {
    case STAGE_RESIZE_NEAREST:
      return "nearest";
    case STAGE_RESIZE_BILINEAR:
      return "bilinear";
    case STAGE_RESIZE_AREA:
      return "area";
    case STAGE_RESIZE_BICUBIC:
      return "bicubic";
  }
  return NULL;
}

static double
kernel_triangle (double t)
{
  t = fabs (t);
  return t < 1.0 ? 1.0 - t : 0.0;
}

/* Keys (1981) cubic convolution with a = -0.5. */
static double
kernel_keys (double t)
{
  const double a = -0.5;

  t = fabs (t);
  if (t < 1.0)
    return ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
  if (t < 2.0)
    return (((t - 5.0) * t + 8.0) * t - 4.0) * a;
  return 0.0;
}

static int
nearest_index (int in_size, int out_size, int o)
{
  int64_t i = ((2 * (int64_t) o + 1) * in_size) / (2 * (int64_t) out_size);

  return i >= in_size ? in_size - 1 : (int) i;
}

/* Range of inputs [*lo, *hi] that output o may touch (before clamping). */
static void
support_range (int in_size, int out_size, StageResizeMethod method, int o,
    int *lo, int *hi)
{
  double scale = (double) in_size / out_size;

  switch (method) {
    case STAGE_RESIZE_NEAREST:
      *lo = *hi = nearest_index (in_size, out_size, o);
      break;
    case STAGE_RESIZE_AREA:{
      double a = (double) o * in_size / out_size;
      double b = (double) (o + 1) * in_size / out_size;
      *lo = (int) floor (a);
      *hi = (int) ceil (b) - 1;
      break;
    }
    default:{
      double fs = scale > 1.0 ? scale : 1.0;
      double support = (method == STAGE_RESIZE_BICUBIC ? 2.0 : 1.0) * fs;
      double sx = (o + 0.5) * scale - 0.5;
      /* Both kernels vanish at |t| >= support: open interval. */
      *lo = (int) floor (sx - support) + 1;
      *hi = (int) ceil (sx + support) - 1;
      break;
    }
  }
  if (*lo < 0)
    *lo = 0;
  if (*hi > in_size - 1)
    *hi = in_size - 1;
}

static double
raw_weight (int in_size, int out_size, StageResizeMethod method, int o, int i)
{
  double scale = (double) in_size / out_size;

  switch (method) {
    case STAGE_RESIZE_NEAREST:
      return i == nearest_index (in_size, out_size, o) ? 1.0 : 0.0;
    case STAGE_RESIZE_AREA:{
      double a = (double) o * in_size / out_size;
      double b = (double) (o + 1) * in_size / out_size;
      double l = a > i ? a : i, r = b < i + 1 ? b : i + 1;
      return r > l ? (r - l) / scale : 0.0;
    }
    case STAGE_RESIZE_BILINEAR:
    case STAGE_RESIZE_BICUBIC:{
      double fs = scale > 1.0 ? scale : 1.0;
      double t = (i - ((o + 0.5) * scale - 0.5)) / fs;
      return method == STAGE_RESIZE_BILINEAR ? kernel_triangle (t) :
          kernel_keys (t);
    }
  }
  return 0.0;
}

double
stage_resize_weight (int in_size, int out_size, StageResizeMethod method,
    int out_index, int in_index)
{
  int lo, hi, i;
  double sum = 0.0;

  if (in_index < 0 || in_index >= in_size)
    return 0.0;
  support_range (in_size, out_size, method, out_index, &lo, &hi);
  if (in_index < lo || in_index > hi)
    return 0.0;
  for (i = lo; i <= hi; i++)
    sum += raw_weight (in_size, out_size, method, out_index, i);
  if (sum == 0.0)
    return 0.0;
  return raw_weight (in_size, out_size, method, out_index, in_index) / sum;
}

void
stage_resize_taps_clear (StageResizeTaps * taps)
{
  free (taps->start);
  free (taps->weights);
  memset (taps, 0, sizeof (*taps));
}

/* Quantises the weights of one output to Q14 summing to exactly WONE.
 * Rounding the running sum (not each weight) keeps every partial sum within
 * half a step of the exact one, so the error cannot pile up over the
 * thousands of equal taps of a large box filter. */
static void
quantise (const double *w, int n, int16_t * q)
{
  double run = 0.0;
  long prev = 0, cur;
  int k;

  for (k = 0; k < n; k++) {
    run += w[k];
    cur = k == n - 1 ? WONE : lrint (run * WONE);
    q[k] = (int16_t) (cur - prev);
    prev = cur;
  }
}

static int
taps_init (StageResizeTaps * taps, int in_size, int out_size,
    StageResizeMethod method, int pad)
{
  int o, n_taps = 1, lo, hi;
  double *w = NULL;

  memset (taps, 0, sizeof (*taps));
  if (in_size < 1 || out_size < 1 || in_size > STAGE_RESIZE_MAX_SIZE ||
      out_size > STAGE_RESIZE_MAX_SIZE || stage_resize_method_name (method)
      == NULL)
    return -1;

  for (o = 0; o < out_size; o++) {
    support_range (in_size, out_size, method, o, &lo, &hi);
    if (hi - lo + 1 > n_taps)
      n_taps = hi - lo + 1;
  }

  /* Round the tap count up to a multiple of four where the image is wide
   * enough: zero weights cost little and fixed-size tap loops vectorise. */
  if (pad > 1 && n_taps > 1 && (n_taps + pad - 1) / pad * pad <= in_size)
    n_taps = (n_taps + pad - 1) / pad * pad;

  taps->in_size = in_size;
  taps->out_size = out_size;
  taps->n_taps = n_taps;
  taps->start = calloc (out_size, sizeof (int32_t));
  taps->weights = calloc ((size_t) out_size * n_taps, sizeof (int16_t));
  w = calloc (n_taps, sizeof (double));
  if (!taps->start || !taps->weights || !w) {
    free (w);
    stage_resize_taps_clear (taps);
    return -1;
  }

  for (o = 0; o < out_size; o++) {
    int i, first;
    double sum = 0.0;

    support_range (in_size, out_size, method, o, &lo, &hi);
    /* Keep all reads inside the image: a window that would run past the
     * right edge slides left and pads with zero weights. */
    first = lo + n_taps > in_size ? in_size - n_taps : lo;
    memset (w, 0, n_taps * sizeof (double));
    for (i = lo; i <= hi; i++) {
      w[i - first] = raw_weight (in_size, out_size, method, o, i);
      sum += w[i - first];
    }
    for (i = 0; i < n_taps; i++)
      w[i] /= sum;
    taps->start[o] = first;
    quantise (w, n_taps, taps->weights + (size_t) o * n_taps);
  }
  free (w);
  return 0;
}

int
stage_resize_taps_init (StageResizeTaps * taps, int in_size, int out_size,
    StageResizeMethod method)
{
  return taps_init (taps, in_size, out_size, method, 0);
}

/* ---- kernels ---------------------------------------------------------- */

STAGE_INLINE uint8_t
clamp_u8 (int32_t v)
{
  return v < 0 ? 0 : v > 255 ? 255 : (uint8_t) v;
}

/* One output row from T source rows of 8-bit samples: Q6 result, rounded
 * once from the exact 32-bit sum (the CUDA kernels do the same). */
STAGE_INLINE void
vpass_u8 (const uint8_t * const *rows, const int16_t * w, int T, int n,
    int16_t * restrict out)
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
STAGE_INLINE void
vpass_s16 (const int16_t * const *rows, const int16_t * w, int T, int n,
    uint8_t * restrict out)
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
      out[x0 + j] = clamp_u8 (acc[j] >> SHIFT2);
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
      out[x * C + c] = clamp_u8 (acc >> SHIFT2);
    }
  }
}

#if defined(__SSE2__)
/* Horizontal pass on 8-bit source rows (horizontal-first plans, i.e.
 * enlarging): as the Q6 kernels below, with the bytes zero-extended to
 * 16 bits first. Output Q6. Loads never pass the tap window. */
STAGE_INLINE __m128i
load_u8x8 (const uint8_t * p)
{
  return _mm_unpacklo_epi8 (_mm_loadl_epi64 ((const __m128i *) p),
      _mm_setzero_si128 ());
}

STAGE_INLINE __m128i
load_u8x4 (const uint8_t * p)
{
  int32_t v;

  memcpy (&v, p, 4);
  return _mm_unpacklo_epi8 (_mm_cvtsi32_si128 (v), _mm_setzero_si128 ());
}

STAGE_INLINE int16_t
q6 (__m128i sum)
{
  return (int16_t) ((_mm_cvtsi128_si32 (sum) + (1 << (SHIFT1 - 1))) >>
      SHIFT1);
}

STAGE_INLINE void
hpass_u8_c1_sse2 (const uint8_t * src, const StageResizeTaps * t,
    int16_t * restrict out)
{
  const int T = t->n_taps;
  int x, k;

  for (x = 0; x < t->out_size; x++) {
    const uint8_t *s = src + t->start[x];
    const int16_t *w = t->weights + (size_t) x * T;
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

STAGE_INLINE void
hpass_u8_c2_sse2 (const uint8_t * src, const StageResizeTaps * t,
    int16_t * restrict out)
{
  const int T = t->n_taps;
  int x, k;

  for (x = 0; x < t->out_size; x++) {
    const uint8_t *s = src + (size_t) t->start[x] * 2;
    const int16_t *w = t->weights + (size_t) x * T;
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

STAGE_INLINE void
hpass_u8_c4_sse2 (const uint8_t * src, const StageResizeTaps * t,
    int16_t * restrict out)
{
  const int T = t->n_taps;
  const __m128i round = _mm_set1_epi32 (1 << (SHIFT1 - 1));
  int x, k;

  for (x = 0; x < t->out_size; x++) {
    const uint8_t *s = src + (size_t) t->start[x] * 4;
    const int16_t *w = t->weights + (size_t) x * T;
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
#endif

STAGE_INLINE void
hpass_u8_c (const uint8_t * src, const StageResizeTaps * t, int C,
    int16_t * out)
{
  /* Constant channel counts let the compiler unroll the channel loop. */
  switch (C) {
    case 1:
#if defined(__SSE2__)
      if (t->n_taps % 4 == 0)
        hpass_u8_c1_sse2 (src, t, out);
      else
#endif
        hpass_u8 (src, t, 1, out);
      break;
    case 2:
#if defined(__SSE2__)
      if (t->n_taps % 4 == 0)
        hpass_u8_c2_sse2 (src, t, out);
      else
#endif
        hpass_u8 (src, t, 2, out);
      break;
    case 3:
      hpass_u8 (src, t, 3, out);
      break;
    default:
#if defined(__SSE2__)
      if (t->n_taps % 2 == 0)
        hpass_u8_c4_sse2 (src, t, out);
      else
#endif
        hpass_u8 (src, t, 4, out);
      break;
  }
}

#if defined(__SSE2__)
/* Sum of the taps of output x, in the four lanes of a vector. */
STAGE_INLINE __m128i
dot_taps (const int16_t * s, const int16_t * w, int T)
{
  __m128i acc = _mm_setzero_si128 ();
  int k;

  for (k = 0; k + 8 <= T; k += 8)
    acc = _mm_add_epi32 (acc,
        _mm_madd_epi16 (_mm_loadu_si128 ((const __m128i *) (s + k)),
            _mm_loadu_si128 ((const __m128i *) (w + k))));
  if (k < T)
    acc = _mm_add_epi32 (acc,
        _mm_madd_epi16 (_mm_loadl_epi64 ((const __m128i *) (s + k)),
            _mm_loadl_epi64 ((const __m128i *) (w + k))));
  return acc;
}

/* Q6 in, bytes out, C = 1, taps a multiple of 4: pmaddwd multiplies and
 * pairs eight taps at once, four outputs are reduced, rounded and
 * saturated together. The hot loop of every planar shrink; SSE2 is part
 * of x86-64, other targets take the plain C loop. Integer sums are exact,
 * so the bytes equal the plain C loop's. */
STAGE_INLINE void
hpass_s16_c1_sse2 (const int16_t * src, const StageResizeTaps * t,
    uint8_t * restrict out)
{
  const int T = t->n_taps;
  const __m128i round = _mm_set1_epi32 (1 << (SHIFT2 - 1));
  int x = 0;

  for (; x + 4 <= t->out_size; x += 4) {
    const int16_t *w = t->weights + (size_t) x * T;
    __m128i a = dot_taps (src + t->start[x], w, T);
    __m128i b = dot_taps (src + t->start[x + 1], w + T, T);
    __m128i c = dot_taps (src + t->start[x + 2], w + 2 * T, T);
    __m128i d = dot_taps (src + t->start[x + 3], w + 3 * T, T);
    /* Transpose-and-add: lane i of the result is the sum of vector i. */
    __m128i ab = _mm_add_epi32 (_mm_unpacklo_epi32 (a, b),
        _mm_unpackhi_epi32 (a, b));
    __m128i cd = _mm_add_epi32 (_mm_unpacklo_epi32 (c, d),
        _mm_unpackhi_epi32 (c, d));
    __m128i sum = _mm_add_epi32 (_mm_unpacklo_epi64 (ab, cd),
        _mm_unpackhi_epi64 (ab, cd));
    __m128i v = _mm_srai_epi32 (_mm_add_epi32 (sum, round), SHIFT2);
    uint32_t packed;

    v = _mm_packs_epi32 (v, v);
    v = _mm_packus_epi16 (v, v);
    packed = (uint32_t) _mm_cvtsi128_si32 (v);
    memcpy (out + x, &packed, 4);
  }
  for (; x < t->out_size; x++) {
    __m128i a = dot_taps (src + t->start[x], t->weights + (size_t) x * T, T);
    a = _mm_add_epi32 (a, _mm_shuffle_epi32 (a, 0x4e));
    a = _mm_add_epi32 (a, _mm_shuffle_epi32 (a, 0xb1));
    out[x] = clamp_u8 ((_mm_cvtsi128_si32 (a) + (1 << (SHIFT2 - 1))) >>
        SHIFT2);
  }
}
#endif

#if defined(__SSE2__)
/* C = 4, taps a multiple of 2: one load holds two pixels; interleaving
 * their halves pairs tap k and k+1 of each channel for pmaddwd, so the four
 * lanes accumulate the four channels. */
STAGE_INLINE void
hpass_s16_c4_sse2 (const int16_t * src, const StageResizeTaps * t,
    uint8_t * restrict out)
{
  const int T = t->n_taps;
  const __m128i round = _mm_set1_epi32 (1 << (SHIFT2 - 1));
  int x, k;

  for (x = 0; x < t->out_size; x++) {
    const int16_t *s = src + (size_t) t->start[x] * 4;
    const int16_t *w = t->weights + (size_t) x * T;
    __m128i acc = round;
    uint32_t packed;
    for (k = 0; k < T; k += 2) {
      __m128i v = _mm_loadu_si128 ((const __m128i *) (s + k * 4));
      int32_t wp;
      memcpy (&wp, w + k, 4);
      acc = _mm_add_epi32 (acc,
          _mm_madd_epi16 (_mm_unpacklo_epi16 (v, _mm_srli_si128 (v, 8)),
              _mm_set1_epi32 (wp)));
    }
    acc = _mm_srai_epi32 (acc, SHIFT2);
    acc = _mm_packs_epi32 (acc, acc);
    packed = (uint32_t) _mm_cvtsi128_si32 (_mm_packus_epi16 (acc, acc));
    memcpy (out + x * 4, &packed, 4);
  }
}

/* C = 3, taps a multiple of 2: pixel k+1 is shifted under pixel k and the
 * two interleaved, so lanes 0-2 accumulate the three channels (lane 3 is
 * ignored). The load reads two samples past the tap window: the Q6 row
 * has MID_SLACK bytes of slack for that. */
STAGE_INLINE void
hpass_s16_c3_sse2 (const int16_t * src, const StageResizeTaps * t,
    uint8_t * restrict out)
{
  const int T = t->n_taps;
  const __m128i round = _mm_set1_epi32 (1 << (SHIFT2 - 1));
  int x, k;

  for (x = 0; x < t->out_size; x++) {
    const int16_t *s = src + (size_t) t->start[x] * 3;
    const int16_t *w = t->weights + (size_t) x * T;
    __m128i acc = round;
    uint32_t packed;
    for (k = 0; k < T; k += 2) {
      __m128i v = _mm_loadu_si128 ((const __m128i *) (s + k * 3));
      int32_t wp;
      memcpy (&wp, w + k, 4);
      acc = _mm_add_epi32 (acc,
          _mm_madd_epi16 (_mm_unpacklo_epi16 (v, _mm_srli_si128 (v, 6)),
              _mm_set1_epi32 (wp)));
    }
    acc = _mm_srai_epi32 (acc, SHIFT2);
    acc = _mm_packs_epi32 (acc, acc);
    packed = (uint32_t) _mm_cvtsi128_si32 (_mm_packus_epi16 (acc, acc));
    memcpy (out + x * 3, &packed, 3);
  }
}

/* C = 2, taps a multiple of 4: one load holds four pixels; reordering each
 * half to (c0 c0 c1 c1) pairs taps for pmaddwd. */
STAGE_INLINE void
hpass_s16_c2_sse2 (const int16_t * src, const StageResizeTaps * t,
    uint8_t * restrict out)
{
  const int T = t->n_taps;
  int x, k;

  for (x = 0; x < t->out_size; x++) {
    const int16_t *s = src + (size_t) t->start[x] * 2;
    const int16_t *w = t->weights + (size_t) x * T;
    __m128i acc = _mm_setzero_si128 ();
    for (k = 0; k < T; k += 4) {
      __m128i v = _mm_loadu_si128 ((const __m128i *) (s + k * 2));
      __m128i wv = _mm_loadl_epi64 ((const __m128i *) (w + k));
      v = _mm_shufflelo_epi16 (v, _MM_SHUFFLE (3, 1, 2, 0));
      v = _mm_shufflehi_epi16 (v, _MM_SHUFFLE (3, 1, 2, 0));
      /* weights (w0 w1 w0 w1 | w2 w3 w2 w3) */
      wv = _mm_unpacklo_epi32 (wv, wv);
      acc = _mm_add_epi32 (acc, _mm_madd_epi16 (v, wv));
    }
    /* lanes: c0 taps 0-1, c1 taps 0-1, c0 taps 2-3, c1 taps 2-3 */
    acc = _mm_add_epi32 (acc, _mm_srli_si128 (acc, 8));
    out[x * 2] = clamp_u8 ((_mm_cvtsi128_si32 (acc) + (1 << (SHIFT2 - 1)))
        >> SHIFT2);
    out[x * 2 + 1] = clamp_u8 ((_mm_cvtsi128_si32 (_mm_srli_si128 (acc, 4))
            + (1 << (SHIFT2 - 1))) >> SHIFT2);
  }
}
#endif

STAGE_INLINE void
hpass_s16_c (const int16_t * src, const StageResizeTaps * t, int C,
    uint8_t * out)
{
  switch (C) {
    case 1:
#if defined(__SSE2__)
      if (t->n_taps % 4 == 0)
        hpass_s16_c1_sse2 (src, t, out);
      else
#endif
        hpass_s16 (src, t, 1, out);
      break;
    case 2:
#if defined(__SSE2__)
      if (t->n_taps % 4 == 0)
        hpass_s16_c2_sse2 (src, t, out);
      else
#endif
        hpass_s16 (src, t, 2, out);
      break;
    case 3:
#if defined(__SSE2__)
      if (t->n_taps % 2 == 0)
        hpass_s16_c3_sse2 (src, t, out);
      else
#endif
        hpass_s16 (src, t, 3, out);
      break;
    default:
#if defined(__SSE2__)
      if (t->n_taps % 2 == 0)
        hpass_s16_c4_sse2 (src, t, out);
      else
#endif
        hpass_s16 (src, t, 4, out);
      break;
  }
}

/* ---- row drivers -------------------------------------------------------- */

static size_t
align64 (size_t n)
{
  return (n + 63) & ~(size_t) 63;
}

STAGE_CLONES static void
run_nearest (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0, int y1)
{
  const int C = p->channels;
  const int32_t *sx = p->tx.start;
  int y, x, c;

  for (y = y0; y < y1; y++) {
    const uint8_t *s = src + p->ty.start[y] * src_stride;
    uint8_t *d = dst + y * dst_stride;
    for (x = 0; x < p->dst_w; x++)
      for (c = 0; c < C; c++)
        d[x * C + c] = s[sx[x] * C + c];
  }
}

/* Rows first: each output row blends T source rows into one row of src_w
 * pixels, then filters that row horizontally. Cheapest when shrinking. */
STAGE_CLONES static void
run_vertical_first (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0,
    int y1, void *scratch)
{
  const int C = p->channels, T = p->ty.n_taps;
  int16_t *mid = scratch;
  const uint8_t **rows = (const uint8_t **) ((uint8_t *) scratch +
      align64 ((size_t) p->src_w * C * sizeof (int16_t) + MID_SLACK));
  int y, k;

  /* The slack is read by the 3-channel kernel into a lane it discards;
   * defined bytes keep memory checkers quiet. */
  memset (mid + (size_t) p->src_w * C, 0, MID_SLACK);
  for (y = y0; y < y1; y++) {
    const uint8_t *s = src + p->ty.start[y] * src_stride;
    for (k = 0; k < T; k++)
      rows[k] = s + k * src_stride;
    vpass_u8 (rows, p->ty.weights + (size_t) y * T, T, p->src_w * C, mid);
    hpass_s16_c (mid, &p->tx, C, dst + y * dst_stride);
  }
}

/* Columns first: source rows are filtered horizontally once into a ring of
 * T rows, each output row blends the T rows it needs. Cheapest when the
 * height grows. */
STAGE_CLONES static void
run_horizontal_first (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0,
    int y1, void *scratch)
{
  const int C = p->channels, T = p->ty.n_taps;
  const size_t row_len = align64 ((size_t) p->dst_w * C * sizeof (int16_t));
  uint8_t *ring = scratch;
  int32_t *tag = (int32_t *) (ring + row_len * T);
  const int16_t **rows = (const int16_t **) (ring + row_len * T +
      align64 (T * sizeof (int32_t)));
  int y, k;

  for (k = 0; k < T; k++)
    tag[k] = -1;
  for (y = y0; y < y1; y++) {
    int first = p->ty.start[y];
    for (k = 0; k < T; k++) {
      int r = first + k, slot = r % T;
      int16_t *line = (int16_t *) (ring + row_len * slot);
      if (tag[slot] != r) {
        hpass_u8_c (src + r * src_stride, &p->tx, C, line);
        tag[slot] = r;
      }
      rows[k] = line;
    }
    vpass_s16 (rows, p->ty.weights + (size_t) y * T, T, p->dst_w * C,
        dst + y * dst_stride);
  }
}

/* ---- plans -------------------------------------------------------------- */

StageResizePlan *
stage_resize_plan_new (int src_w, int src_h, int dst_w, int dst_h,
    int channels, StageResizeMethod method)
{
  StageResizePlan *p;
  double h_first, v_first;

  if (channels < 1 || channels > 4)
    return NULL;
  p = calloc (1, sizeof (*p));
  if (!p)
    return NULL;
  /* Only the horizontal pass has fixed-size tap loops worth padding for;
   * the vertical pass pays for every extra tap. */
  if (taps_init (&p->tx, src_w, dst_w, method, channels >= 3 ? 2 : 4) < 0 ||
      taps_init (&p->ty, src_h, dst_h, method, 0) < 0) {
    stage_resize_plan_free (p);
    return NULL;
  }
  p->src_w = src_w;
  p->src_h = src_h;
  p->dst_w = dst_w;
  p->dst_h = dst_h;
  p->channels = channels;
  p->method = method;

  /* Estimated work: the horizontal pass is scalar, the vertical pass runs
   * on contiguous rows and vectorises about eight-wide. */
  {
    double rows_needed = (double) dst_h * p->ty.n_taps;
    if (rows_needed > src_h)
      rows_needed = src_h;
    h_first = rows_needed * dst_w * p->tx.n_taps +
        (double) dst_h * dst_w * p->ty.n_taps / 8.0;
    v_first = (double) dst_h * dst_w * p->tx.n_taps +
        (double) dst_h * src_w * p->ty.n_taps / 8.0;
  }
  p->horizontal_first = h_first < v_first;
  return p;
}

void
stage_resize_plan_free (StageResizePlan * plan)
{
  if (!plan)
    return;
  stage_resize_taps_clear (&plan->tx);
  stage_resize_taps_clear (&plan->ty);
  free (plan);
}

StageResizeOrder
stage_resize_plan_order (const StageResizePlan * p)
{
  if (p->method == STAGE_RESIZE_NEAREST)
    return STAGE_RESIZE_ORDER_NEAREST;
  return p->horizontal_first ? STAGE_RESIZE_ORDER_HORIZONTAL_FIRST :
      STAGE_RESIZE_ORDER_VERTICAL_FIRST;
}

const StageResizeTaps *
stage_resize_plan_taps (const StageResizePlan * p, int axis)
{
  return axis == 0 ? &p->tx : &p->ty;
}

size_t
stage_resize_plan_scratch_size (const StageResizePlan * p)
{
  if (p->method == STAGE_RESIZE_NEAREST)
    return 64;
  /* Row pointers for the vertical pass come last in both layouts. */
  if (p->horizontal_first)
    return align64 ((size_t) p->dst_w * p->channels * sizeof (int16_t)) *
        p->ty.n_taps + align64 (p->ty.n_taps * sizeof (int32_t)) +
        p->ty.n_taps * sizeof (void *);
  return align64 ((size_t) p->src_w * p->channels * sizeof (int16_t) +
      MID_SLACK) + p->ty.n_taps * sizeof (void *);
}

void
stage_resize_plan_run (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0,
    int y1, void *scratch)
{
  if (y0 < 0)
    y0 = 0;
  if (y1 > p->dst_h)
    y1 = p->dst_h;
  if (y0 >= y1)
    return;
  if (p->method == STAGE_RESIZE_NEAREST)
    run_nearest (p, src, src_stride, dst, dst_stride, y0, y1);
  else if (p->horizontal_first)
    run_horizontal_first (p, src, src_stride, dst, dst_stride, y0, y1,
        scratch);
  else
    run_vertical_first (p, src, src_stride, dst, dst_stride, y0, y1, scratch);
}

int
stage_resize_plane (const uint8_t * src, int src_w, int src_h,
    ptrdiff_t src_stride, uint8_t * dst, int dst_w, int dst_h,
    ptrdiff_t dst_stride, int channels, StageResizeMethod method)
{
  StageResizePlan *p = stage_resize_plan_new (src_w, src_h, dst_w, dst_h,
      channels, method);
  void *scratch;

  if (!p)
    return -1;
  scratch = aligned_alloc (64, align64 (stage_resize_plan_scratch_size (p)));
  if (!scratch) {
    stage_resize_plan_free (p);
    return -1;
  }
  stage_resize_plan_run (p, src, src_stride, dst, dst_stride, 0, dst_h,
      scratch);
  free (scratch);
  stage_resize_plan_free (p);
  return 0;
}
