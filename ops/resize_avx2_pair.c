/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the AVX2 two-tap passes of ops/resize.c (bilinear and area
 * enlarging), apart from resize_avx2.c's other kernels; the same
 * exactness contract (the bytes of the scalar kernels). */
#include "resize_x86.h"

#if defined(__x86_64__) || defined(__i386__)

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

void *
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

AVX2 void
hpass_u8_pair_avx2 (const uint8_t * src, const StageResizeTaps * t,
    const void *prep, int C, int16_t * out)
{
  if (C == 4 && t->n_taps == 2)
    hpass_u8_pair_c4_avx2 (src, t, prep, out);
  else
    hpass_u8_avx2 (src, t, C, out);
}

AVX2 void
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
AVX2 int
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

#endif /* x86 */
