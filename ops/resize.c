/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: separable resampling of 8-bit image planes.
 * See resize.h for the definitions of the methods.
 */
#include "resize.h"

#include "resize_kernels.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct StageResizePlan
{
  int src_w, src_h, dst_w, dst_h, channels;
  StageResizeMethod method;
  StageResizeTaps tx, ty;
  /* Filter columns of each source row first (then rows), or rows first. */
  int horizontal_first;
  /* The kernels selected when the plan was made. */
  const StageResizeKernels *k;
  /* The taps are an exact 2:1 box on both axes (see is_box2). */
  int box2;
  /* The taps are the exact 2:1 triangle on both axes (see is_tri2). */
  int tri2;
  /* Horizontal-first plans whose axes keep the promises of the two-tap
   * kernels (hpass_u8_pair, vpass_s16_pair in resize_kernels.h). */
  int pair_x, pair_y;
  /* Nearest at exactly 2:1 across: source pixel 2x + 1. */
  int near2;
  /* The kernels' own tables for hpass_u8_pair, or NULL. */
  void *pair_prep;
  /* Vertical-first plans of one channel: outputs [step3_x0, step3_x1) of
   * the horizontal taps step by 3 with the same five taps step3_w (see
   * find_step3); step3_x1 is 0 where there is no such run. */
  int step3_x0, step3_x1;
  int16_t step3_w[5];
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

/* ---- kernel tables -------------------------------------------------- */

static const StageResizeKernels *const all_kernels[] = {
  &stage_resize_kernels_scalar,
#if defined(__x86_64__) || defined(__i386__)
  &stage_resize_kernels_sse41,
  &stage_resize_kernels_avx2,
#endif
#if defined(__aarch64__)
  &stage_resize_kernels_neon,
#endif
};

#define N_KERNELS ((int) (sizeof (all_kernels) / sizeof (all_kernels[0])))

static int
kernels_supported (const StageResizeKernels * k)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_cpu_init ();
  if (k == &stage_resize_kernels_sse41)
    return __builtin_cpu_supports ("sse4.1");
  if (k == &stage_resize_kernels_avx2)
    return __builtin_cpu_supports ("avx2");
#endif
  /* Scalar runs everywhere; NEON is part of every arm64 CPU. */
  (void) k;
  return 1;
}

static const StageResizeKernels *
kernels_by_name (const char *name)
{
  int i;

  for (i = 0; i < N_KERNELS; i++)
    if (strcmp (all_kernels[i]->name, name) == 0)
      return all_kernels[i];
  return NULL;
}

/* Every path's name, whether or not this build has its table: a path of
 * another architecture (neon on x86) is "not available", not unknown. */
static int
kernels_known (const char *name)
{
  static const char *const known[] = { "scalar", "sse41", "avx2", "neon" };
  size_t i;

  for (i = 0; i < sizeof (known) / sizeof (known[0]); i++)
    if (strcmp (known[i], name) == 0)
      return 1;
  return 0;
}

/* The best supported table, or the one STAGES_RESIZE_SIMD names. A name
 * that is unknown or not supported here falls back to the best, with a
 * line on stderr: a forced path must never crash on an older CPU. */
static const StageResizeKernels *
kernels_auto (void)
{
  const char *env = getenv ("STAGES_RESIZE_SIMD");
  const StageResizeKernels *k;
  int i;

  if (env && *env) {
    k = kernels_by_name (env);
    if (k && kernels_supported (k))
      return k;
    fprintf (stderr, "STAGES_RESIZE_SIMD=%s: %s; using the best path this "
        "CPU supports\n", env, k ? "not supported by this CPU" :
        kernels_known (env) ? "not available on this CPU architecture" :
        "unknown (scalar, sse41, avx2 or neon)");
  }
  for (i = N_KERNELS - 1; i > 0; i--)
    if (kernels_supported (all_kernels[i]))
      return all_kernels[i];
  return &stage_resize_kernels_scalar;
}

static const StageResizeKernels *volatile selected;
static pthread_once_t auto_once = PTHREAD_ONCE_INIT;

static void
select_auto (void)
{
  if (!selected)
    selected = kernels_auto ();
}

static const StageResizeKernels *
kernels_current (void)
{
  pthread_once (&auto_once, select_auto);
  return selected;
}

const char *
stage_resize_simd_path (void)
{
  return kernels_current ()->name;
}

int
stage_resize_simd_available (const char *name)
{
  const StageResizeKernels *k = name ? kernels_by_name (name) : NULL;

  return k != NULL && kernels_supported (k);
}

int
stage_resize_simd_select (const char *name)
{
  const StageResizeKernels *k;

  pthread_once (&auto_once, select_auto);
  if (name == NULL) {
    selected = kernels_auto ();
    return 0;
  }
  k = kernels_by_name (name);
  if (k == NULL || !kernels_supported (k))
    return -1;
  selected = k;
  return 0;
}

const char *const *
stage_resize_simd_paths (void)
{
  static const char *names[N_KERNELS + 1];
  int i;

  for (i = 0; i < N_KERNELS; i++)
    names[i] = all_kernels[i]->name;
  names[N_KERNELS] = NULL;
  return names;
}

/* ---- row drivers -------------------------------------------------------- */

static size_t
align64 (size_t n)
{
  return (n + 63) & ~(size_t) 63;
}

static void prefetch_rows (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, int r0, int r1);

/* One row of nearest pixels, C a constant after inlining: whole pixels
 * move as one load and one store. */
STAGE_INLINE void
nearest_row (const uint8_t * restrict s, const int32_t * restrict sx, int n,
    const int C, uint8_t * restrict d)
{
  int x;

  for (x = 0; x < n; x++) {
    const uint8_t *q = s + (size_t) sx[x] * C;
    switch (C) {
      case 1:
        d[x] = *q;
        break;
      case 2:{
        uint16_t v;
        memcpy (&v, q, 2);
        memcpy (d + (size_t) x * 2, &v, 2);
        break;
      }
      case 4:{
        uint32_t v;
        memcpy (&v, q, 4);
        memcpy (d + (size_t) x * 4, &v, 4);
        break;
      }
      default:
        memcpy (d + (size_t) x * C, q, C);
        break;
    }
  }
}

/* Each output row picks from one source row; an output row whose source
 * row is the one before's (enlarging) is a copy of that row. */
static void
run_nearest (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0, int y1)
{
  const int C = p->channels, n = p->dst_w;
  const int32_t *sx = p->tx.start;
  int y;

  for (y = y0; y < y1; y++) {
    const uint8_t *s = src + p->ty.start[y] * src_stride;
    uint8_t *d = dst + y * dst_stride;

    if (y > y0 && p->ty.start[y] == p->ty.start[y - 1]) {
      memcpy (d, d - dst_stride, (size_t) n * C);
      continue;
    }
    if (y + 1 < y1)
      prefetch_rows (p, src, src_stride, p->ty.start[y + 1],
          p->ty.start[y + 1] + 1);
    if (p->near2) {
      p->k->near2_row (s, C, n, d);
      continue;
    }
    switch (C) {
      case 1:
        nearest_row (s, sx, n, 1, d);
        break;
      case 2:
        nearest_row (s, sx, n, 2, d);
        break;
      case 3:
        nearest_row (s, sx, n, 3, d);
        break;
      default:
        nearest_row (s, sx, n, 4, d);
        break;
    }
  }
}

/* Whether the taps of an axis are an exact 2:1 box: output o has weight
 * 1/2 (8192) on inputs 2o and 2o+1 and zero elsewhere. Then both orders
 * of the contract in resize.h give (a + b + c + d + 2) >> 2 for the 2x2
 * pixels: the first pass is exact (8192 * (a + b) >> 8 = 32 * (a + b),
 * the rounding term drops), the second is (2^18 * sum + 2^19) >> 20. A
 * kernel computing that directly gives the same bytes, much faster. */
static int
is_box2 (const StageResizeTaps * t)
{
  int o, k;

  if (t->in_size != 2 * t->out_size)
    return 0;
  for (o = 0; o < t->out_size; o++)
    for (k = 0; k < t->n_taps; k++) {
      int i = t->start[o] + k;
      int16_t w = t->weights[(size_t) o * t->n_taps + k];
      if (w != ((i == 2 * o || i == 2 * o + 1) ? WONE / 2 : 0))
        return 0;
    }
  return 1;
}

/* Two taps, both weights >= 0; with max_step > 0, also starts that never
 * step by more than max_step from one output to the next. */
static int
is_pair (const StageResizeTaps * t, int max_step)
{
  int o;

  if (t->n_taps != 2)
    return 0;
  for (o = 0; o < t->out_size; o++)
    if (t->weights[2 * o] < 0 || t->weights[2 * o + 1] < 0 ||
        (o > 0 && max_step > 0 && t->start[o] - t->start[o - 1] > max_step))
      return 0;
  return 1;
}

static int
all_weights_nonnegative (const StageResizeTaps * t)
{
  size_t i;

  for (i = 0; i < (size_t) t->out_size * t->n_taps; i++)
    if (t->weights[i] < 0)
      return 0;
  return 1;
}

/* The longest run of outputs [*x0, *x1) of t whose windows start exactly
 * 3 apart and whose weights are all the same, none past the fifth tap: 3:1
 * across (1080p -> 640x360 or 640x480, 4K -> 720p) away from the borders,
 * for hpass_s16_step3. Its reads stay in the row and the slack after it:
 * up to 3 (n - 1) + 8 past the first window's start, where the last window
 * starts 3 (n - 1) past it and every start is at least 3 before the end.
 * Runs shorter than 16 are not worth it (*x1 = 0). */
static void
find_step3 (const StageResizeTaps * t, int *x0, int *x1)
{
  const int T = t->n_taps;
  int o, run = 0, k;

  *x0 = *x1 = 0;
  for (o = 0; o < t->out_size; o++) {
    const int16_t *w = t->weights + (size_t) o * T;
    int fits = t->start[o] + 3 <= t->in_size;

    for (k = 5; k < T && fits; k++)
      fits = w[k] == 0;
    if (!fits)
      run = 0;
    else if (run > 0 && t->start[o] == t->start[o - 1] + 3 &&
        !memcmp (w, w - T, (T < 5 ? T : 5) * sizeof (int16_t)))
      run++;
    else
      run = 1;
    if (run > *x1 - *x0) {
      *x0 = o + 1 - run;
      *x1 = o + 1;
    }
  }
  if (*x1 - *x0 < 16)
    *x0 = *x1 = 0;
}

/* One channel's horizontal pass over outputs [x0, x1) only, by the
 * scalar kernel on a view of the taps: for the borders around
 * hpass_s16_step3's run. */
static void
hpass_s16_outputs (const int16_t * mid, const StageResizeTaps * t, int x0,
    int x1, uint8_t * out)
{
  StageResizeTaps view = *t;

  if (x0 >= x1)
    return;
  view.out_size = x1 - x0;
  view.start = t->start + x0;
  view.weights = t->weights + (size_t) x0 * t->n_taps;
  stage_resize_hpass_s16_scalar (mid, &view, 1, out + x0);
}

/* Asks for source rows [r0, r1) ahead of their use, all at once: the
 * hardware prefetchers follow a row that is being read, but not the jump
 * to the rows the next output row starts on, and the vertical pass of a
 * shrink stalls on those (a fifth of the time of 1080p -> 640x480,
 * measured on AMD Zen 3; bench/resize.sh). Into L2, not L1: the rows being
 * read now stay where they are. For rows too short to take in parts;
 * longer ones spread their prefetches over the row (run_vertical_first,
 * and the 2:1 kernels' `ahead`), which measured 5 to 11 % faster again. */
static void
prefetch_rows (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, int r0, int r1)
{
  const size_t len = (size_t) p->src_w * p->channels;
  int r;

  if (r1 > p->src_h)
    r1 = p->src_h;
  for (r = r0 < 0 ? 0 : r0; r < r1; r++) {
    const uint8_t *q = src + r * src_stride;
    size_t b;
    for (b = 0; b < len; b += 64)
      __builtin_prefetch (q + b, 0, 2);
  }
}

static void
run_box2 (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0, int y1)
{
  int y;

  for (y = y0; y < y1; y++) {
    const uint8_t *r0 = src + 2 * y * src_stride;
    p->k->box2_row (r0, r0 + src_stride, p->channels, p->dst_w,
        dst + y * dst_stride, y + 1 < y1 ? 2 * src_stride : 0);
  }
}

/* Whether the taps of an axis are bilinear's at exactly 2:1 away from the
 * edges: output o (0 < o < out - 1) has weights 1/8 3/8 3/8 1/8 (2048 6144
 * 6144 2048) on inputs 2o-1 .. 2o+2. Then both orders of the contract give
 * (S + 32) >> 6 for S the (1 3 3 1) x (1 3 3 1) sum of the 4x4 pixels: the
 * first pass is exact (2048 * h >> 8 = 8 * h, h <= 2040), the second is
 * (2^14 * S + 2^19) >> 20. Pixels on the image's border (the first and
 * last row and column) have renormalised taps and take the general path. */
static int
is_tri2 (const StageResizeTaps * t)
{
  static const int16_t w[4] = { WONE / 8, 3 * WONE / 8, 3 * WONE / 8,
    WONE / 8
  };
  int o;

  if (t->in_size != 2 * t->out_size || t->out_size < 3 || t->n_taps != 4)
    return 0;
  for (o = 1; o < t->out_size - 1; o++)
    if (t->start[o] != 2 * o - 1 || memcmp (t->weights + (size_t) o * 4, w,
            sizeof (w)) != 0)
      return 0;
  return 1;
}

/* Samples per part of a vertical-first pass (512 measured best of 256,
 * 512 and 1024 on 1080p -> 640x480), and the most taps that take parts. */
#define PART 512
#define MAX_TAPS_PART 64

/* Rows first: each output row blends T source rows into one row of src_w
 * pixels, then filters that row horizontally. Cheapest when shrinking. */
static void
run_vertical_first (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0,
    int y1, void *scratch)
{
  const int C = p->channels, T = p->ty.n_taps, len = p->src_w * C;
  int16_t *mid = scratch;
  const uint8_t **rows = (const uint8_t **) ((uint8_t *) scratch +
      align64 ((size_t) p->src_w * C * sizeof (int16_t) + MID_SLACK));
  const uint8_t *part[MAX_TAPS_PART];
  int y, k;

  /* The slack is read by the 3-channel kernel into a lane it discards;
   * defined bytes keep memory checkers quiet. */
  memset (mid + (size_t) p->src_w * C, 0, MID_SLACK);
  for (y = y0; y < y1; y++) {
    const uint8_t *s = src + p->ty.start[y] * src_stride;
    const int16_t *w = p->ty.weights + (size_t) y * T;
    /* Source rows the next output row adds: [r0, r1). */
    int r0 = 0, r1 = 0, x0, x1;

    if (y + 1 < y1) {
      const int next = p->ty.start[y + 1];
      r0 = next > p->ty.start[y] + T ? next : p->ty.start[y] + T;
      r1 = next + T < p->src_h ? next + T : p->src_h;
    }
    for (k = 0; k < T; k++)
      rows[k] = s + k * src_stride;
    if (T > MAX_TAPS_PART || len < 2 * PART) {
      prefetch_rows (p, src, src_stride, r0, r1);
      p->k->vpass_u8 (rows, w, T, len, mid);
    } else {
      /* In parts of PART samples, each followed by the prefetch of the
       * same columns of the rows the next output row adds: spread over
       * the row, the prefetches do not queue up behind each other. */
      for (x0 = 0; x0 < len; x0 = x1) {
        int r;
        x1 = len - x0 < 2 * PART ? len : x0 + PART;
        for (k = 0; k < T; k++)
          part[k] = rows[k] + x0;
        p->k->vpass_u8 (part, w, T, x1 - x0, mid + x0);
        for (r = r0; r < r1; r++) {
          const uint8_t *q = src + r * src_stride;
          int b;
          for (b = x0; b < x1; b += 64)
            __builtin_prefetch (q + b, 0, 3);
        }
      }
    }
    if (p->step3_x1) {
      uint8_t *d = dst + y * dst_stride;
      hpass_s16_outputs (mid, &p->tx, 0, p->step3_x0, d);
      p->k->hpass_s16_step3 (mid + p->tx.start[p->step3_x0], p->step3_w,
          p->step3_x1 - p->step3_x0, d + p->step3_x0);
      hpass_s16_outputs (mid, &p->tx, p->step3_x1, p->dst_w, d);
    } else {
      p->k->hpass_s16 (mid, &p->tx, C, dst + y * dst_stride);
    }
  }
}

/* Columns first: source rows are filtered horizontally once into a ring of
 * T rows, each output row blends the T rows it needs. Cheapest when the
 * height grows. */
static void
run_horizontal_first (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0,
    int y1, void *scratch)
{
  const int C = p->channels, T = p->ty.n_taps;
  void (*const vpass) (const int16_t * const *, const int16_t *, int, int,
      uint8_t *) = p->pair_y ? p->k->vpass_s16_pair : p->k->vpass_s16;
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
        if (p->pair_x)
          p->k->hpass_u8_pair (src + r * src_stride, &p->tx, p->pair_prep, C,
              line);
        else
          p->k->hpass_u8 (src + r * src_stride, &p->tx, C, line);
        tag[slot] = r;
      }
      rows[k] = line;
    }
    vpass (rows, p->ty.weights + (size_t) y * T, T, p->dst_w * C,
        dst + y * dst_stride);
  }
}

/* One output pixel (all channels) of row y, column x by the contract of
 * resize.h, straight from the taps: for the few border pixels of the 2:1
 * triangle rows (four taps on each axis). Outer taps of weight 0 add
 * nothing and are skipped. C and the tap counts are constants where
 * inlined from contract_pixel. */
static inline __attribute__((always_inline)) void
contract_pixel_taps (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, int y, int x, uint8_t * out, const int C,
    const int To, const int Ti)
{
  const int hf = p->horizontal_first;
  const StageResizeTaps *outer = hf ? &p->ty : &p->tx;
  const StageResizeTaps *inner = hf ? &p->tx : &p->ty;
  const int16_t *wo = outer->weights + (size_t) (hf ? y : x) * To;
  const int16_t *wi = inner->weights + (size_t) (hf ? x : y) * Ti;
  /* Byte steps between the outer taps and between the inner ones. */
  const ptrdiff_t so = hf ? src_stride : C, si = hf ? C : src_stride;
  const uint8_t *base = src + p->ty.start[y] * src_stride +
      (ptrdiff_t) p->tx.start[x] * C;
  int32_t acc[4];
  int i, k, c;

  for (c = 0; c < C; c++)
    acc[c] = 1 << (SHIFT2 - 1);
  for (i = 0; i < To; i++) {
    const uint8_t *q = base + i * so;
    if (wo[i] == 0)
      continue;
    for (c = 0; c < C; c++) {
      int32_t mid = 1 << (SHIFT1 - 1);
      for (k = 0; k < Ti; k++)
        mid += wi[k] * q[k * si + c];
      acc[c] += wo[i] * (int16_t) (mid >> SHIFT1);
    }
  }
  for (c = 0; c < C; c++)
    out[c] = stage_clamp_u8 (acc[c] >> SHIFT2);
}

static void
contract_pixel (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, int y, int x, uint8_t * out)
{
  const int C = p->channels;

  if (p->tx.n_taps == 4 && p->ty.n_taps == 4 && C == 1)
    contract_pixel_taps (p, src, src_stride, y, x, out, 1, 4, 4);
  else if (p->tx.n_taps == 4 && p->ty.n_taps == 4 && C == 2)
    contract_pixel_taps (p, src, src_stride, y, x, out, 2, 4, 4);
  else if (p->tx.n_taps == 4 && p->ty.n_taps == 4 && C == 4)
    contract_pixel_taps (p, src, src_stride, y, x, out, 4, 4, 4);
  else
    contract_pixel_taps (p, src, src_stride, y, x, out, C,
        p->horizontal_first ? p->ty.n_taps : p->tx.n_taps,
        p->horizontal_first ? p->tx.n_taps : p->ty.n_taps);
}

/* Horizontal-first with two taps per axis, where the kernels have a
 * two_tap_rows: each output row's blend runs in one loop with the
 * horizontal pass of the source row the next output row adds. A ring of
 * three rows: the new row never takes the slot of one being blended. */
static void
run_two_tap (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0,
    int y1, void *scratch)
{
  const int C = p->channels, n = p->dst_w * C;
  const size_t row_len = align64 ((size_t) n * sizeof (int16_t));
  int16_t *ring[3];
  int tag[3] = { -1, -1, -1 };
  int y, k, done;

  for (k = 0; k < 3; k++)
    ring[k] = (int16_t *) ((uint8_t *) scratch + row_len * k);
  for (y = y0; y < y1; y += done) {
    const int first = p->ty.start[y];
    const int16_t *rows[2];
    const int16_t *w = p->ty.weights + (size_t) y * 2;
    uint8_t *out = dst + y * dst_stride;
    /* Output rows y and y + 1 blend the same two rows (enlarging by more
     * than 1: 2 of every 3 rows at 3/2): one pass makes both. */
    const int both = y + 1 < y1 && p->ty.start[y + 1] == first;
    /* The source row the output row after this pass adds, or -1. */
    const int next = y + 1 + both < y1 ? p->ty.start[y + 1 + both] + 1 : -1;
    const int fused = next == first + 2;

    for (k = 0; k < 2; k++) {
      int r = first + k;
      if (tag[r % 3] != r) {
        p->k->hpass_u8_pair (src + r * src_stride, &p->tx, p->pair_prep, C,
            ring[r % 3]);
        tag[r % 3] = r;
      }
      rows[k] = ring[r % 3];
    }
    done = 0;
    if ((both || fused) && p->k->two_tap_rows (rows, w, n, out,
            both ? w + 2 : NULL, both ? out + dst_stride : NULL,
            fused ? src + next * src_stride : NULL, &p->tx, p->pair_prep,
            ring[(first + 2) % 3])) {
      if (fused)
        tag[next % 3] = next;
      done = 1 + both;
    }
    /* (refused: this row alone, the next in its own turn) */
    if (!done) {
      p->k->vpass_s16_pair (rows, w, 2, n, out);
      done = 1;
    }
  }
}

static void
run_general (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0,
    int y1, void *scratch)
{
  if (p->pair_x && p->pair_y && p->pair_prep && p->k->two_tap_rows)
    run_two_tap (p, src, src_stride, dst, dst_stride, y0, y1, scratch);
  else if (p->horizontal_first)
    run_horizontal_first (p, src, src_stride, dst, dst_stride, y0, y1,
        scratch);
  else
    run_vertical_first (p, src, src_stride, dst, dst_stride, y0, y1, scratch);
}

/* Bilinear at exactly 2:1: the kernel's rows away from the border, the
 * general path for the first and last row, the contract for the first
 * and last pixel of the others. */
static void
run_tri2 (const StageResizePlan * p, const uint8_t * src,
    ptrdiff_t src_stride, uint8_t * dst, ptrdiff_t dst_stride, int y0,
    int y1, void *scratch)
{
  const int C = p->channels, last = p->dst_w - 1;
  const int interior_end = y1 < p->dst_h - 1 ? y1 : p->dst_h - 1;
  int y, n_out;

  if (y0 == 0) {
    run_general (p, src, src_stride, dst, dst_stride, 0, 1, scratch);
    y0 = 1;
  }
  /* Four output rows at a time where the kernels can (the rows of
   * horizontal sums that two output rows share are made once), else two
   * where there are two. */
  for (y = y0; y < interior_end; y += n_out) {
    const uint8_t *r = src + (2 * y - 1) * src_stride;
    const uint8_t *rows[10];
    uint8_t *out[4];
    int k, j;

    n_out = interior_end - y < 4 ? interior_end - y : 4;
    for (k = 0; k < 2 * n_out + 2; k++)
      rows[k] = r + k * src_stride;
    for (k = 0; k < n_out; k++)
      out[k] = dst + (y + k) * dst_stride;
    /* The next call starts 2 n_out rows further, if it comes. */
    if (n_out < 4 || !p->k->tri2_rows4 || !p->k->tri2_rows4 (rows, C,
            p->dst_w, out, y + 4 < interior_end ? 8 * src_stride : 0)) {
      n_out = n_out < 2 ? n_out : 2;
      p->k->tri2_row (rows, C, p->dst_w, out[0], n_out == 2 ? out[1] : NULL,
          y + n_out < interior_end ? 2 * n_out * src_stride : 0);
    }
    for (j = y; j < y + n_out; j++) {
      uint8_t *d = dst + j * dst_stride;
      contract_pixel (p, src, src_stride, j, 0, d);
      contract_pixel (p, src, src_stride, j, last, d + last * C);
    }
  }
  if (y1 == p->dst_h && y0 < y1)
    run_general (p, src, src_stride, dst, dst_stride, y1 - 1, y1, scratch);
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
  p->k = kernels_current ();

  /* Estimated work: the horizontal pass is gathers of taps, the vertical
   * pass runs on contiguous rows about eight times cheaper per tap. The
   * order is part of the result's bits, so it depends on the sizes only,
   * never on the kernels in use. */
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
  p->box2 = method != STAGE_RESIZE_NEAREST && is_box2 (&p->tx) &&
      is_box2 (&p->ty);
  p->tri2 = method == STAGE_RESIZE_BILINEAR && is_tri2 (&p->tx) &&
      is_tri2 (&p->ty);
  if (method == STAGE_RESIZE_NEAREST && p->tx.in_size == 2 * p->tx.out_size) {
    int x;
    p->near2 = 1;
    for (x = 0; x < dst_w; x++)
      p->near2 &= p->tx.start[x] == 2 * x + 1;
  }
  if (!p->horizontal_first && channels == 1 && p->k->hpass_s16_step3) {
    find_step3 (&p->tx, &p->step3_x0, &p->step3_x1);
    if (p->step3_x1) {
      int k;
      for (k = 0; k < 5; k++)
        p->step3_w[k] = k < p->tx.n_taps ?
            p->tx.weights[(size_t) p->step3_x0 * p->tx.n_taps + k] : 0;
    }
  }
  if (p->horizontal_first) {
    p->pair_x = is_pair (&p->tx, 2);
    if (p->pair_x && p->k->hpass_u8_pair_prepare)
      p->pair_prep = p->k->hpass_u8_pair_prepare (&p->tx, channels);
    /* The rows the vertical pass blends come from the horizontal taps. */
    p->pair_y = is_pair (&p->ty, 0) && all_weights_nonnegative (&p->tx);
  }
  return p;
}

void
stage_resize_plan_free (StageResizePlan * plan)
{
  if (!plan)
    return;
  stage_resize_taps_clear (&plan->tx);
  stage_resize_taps_clear (&plan->ty);
  free (plan->pair_prep);
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

const char *
stage_resize_plan_kernel (const StageResizePlan * p)
{
  if (p->method == STAGE_RESIZE_NEAREST)
    return "nearest";
  if (p->box2)
    return "box2";
  if (p->tri2)
    return "tri2";
  if (p->pair_x && p->pair_y)
    return "two-tap";
  if (p->step3_x1)
    return "vertical-first 3:1";
  return p->horizontal_first ? "horizontal-first" : "vertical-first";
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
  /* Row pointers for the vertical pass come last in both layouts; the
   * two-tap run needs a ring of three rows. */
  if (p->horizontal_first)
    return align64 ((size_t) p->dst_w * p->channels * sizeof (int16_t)) *
        (p->ty.n_taps < 3 ? 3 : p->ty.n_taps) +
        align64 (p->ty.n_taps * sizeof (int32_t)) +
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
  else if (p->box2)
    run_box2 (p, src, src_stride, dst, dst_stride, y0, y1);
  else if (p->tri2)
    run_tri2 (p, src, src_stride, dst, dst_stride, y0, y1, scratch);
  else
    run_general (p, src, src_stride, dst, dst_stride, y0, y1, scratch);
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
