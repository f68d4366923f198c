/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of ops/resize.c against a double-precision reference that
 * implements the definitions of resize.h independently. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "resize.h"

#include "resize-cases.h"
#include "resize_ref.h"

static guint8 *
run_ops (const guint8 * src, int sw, int sh, int dw, int dh, int c,
    StageResizeMethod m, int src_pad)
{
  /* Padded strides catch any stride/width mix-up. */
  size_t sstride = (size_t) sw * c + src_pad, dstride = (size_t) dw * c + 7;
  guint8 *s = g_malloc0 (sstride * sh), *d = g_malloc0 (dstride * dh);
  guint8 *packed = g_malloc ((size_t) dw * dh * c);
  int y;

  for (y = 0; y < sh; y++)
    memcpy (s + y * sstride, src + (size_t) y * sw * c, (size_t) sw * c);
  fail_unless_equals_int (stage_resize_plane (s, sw, sh, sstride, d, dw, dh,
          dstride, c, m), 0);
  for (y = 0; y < dh; y++)
    memcpy (packed + (size_t) y * dw * c, d + y * dstride, (size_t) dw * c);
  g_free (s);
  g_free (d);
  return packed;
}

/* Compares ops against the reference; returns the max abs difference. */
static int
compare (int sw, int sh, int dw, int dh, int c, StageResizeMethod m,
    int max_tol, double mean_tol)
{
  guint8 *src = make_image (sw, sh, c, sw * 31 + sh * 7 + c + m);
  guint8 *ref = ref_resize (src, sw, sh, dw, dh, c, m);
  /* Odd channel counts get exact-size rows, so overreads show in valgrind. */
  guint8 *got = run_ops (src, sw, sh, dw, dh, c, m, c % 2 ? 0 : 13);
  size_t i, n = (size_t) dw * dh * c;
  int maxd = 0;
  double sum = 0;

  for (i = 0; i < n; i++) {
    int d = abs ((int) got[i] - (int) ref[i]);
    maxd = MAX (maxd, d);
    sum += d;
  }
  /* A mean over a handful of pixels says nothing: only the max counts. */
  fail_unless (maxd <= max_tol && (n < 64 || sum / n <= mean_tol),
      "%s %dx%d -> %dx%d, %d channels: max diff %d (allowed %d), mean %.4f "
      "(allowed %.2f)", stage_resize_method_name (m), sw, sh, dw, dh, c, maxd,
      max_tol, sum / n, mean_tol);
  g_free (src);
  g_free (ref);
  g_free (got);
  return maxd;
}

static const int sizes[][4] = {
  {1, 1, 1, 1}, {1, 1, 7, 5}, {7, 5, 1, 1}, {1, 9, 1, 4}, {1, 9, 3, 20},
  {9, 1, 20, 1}, {33, 17, 16, 9}, {17, 31, 40, 50}, {64, 48, 64, 21},
  {101, 77, 33, 99}, {640, 480, 213, 161}, {160, 120, 640, 480},
  {250, 3, 7, 2},
};

static void
check_method (StageResizeMethod m, int max_tol, double mean_tol)
{
  guint i;
  int c;

  for (c = 1; c <= 4; c++)
    for (i = 0; i < G_N_ELEMENTS (sizes); i++)
      compare (sizes[i][0], sizes[i][1], sizes[i][2], sizes[i][3], c, m,
          max_tol, mean_tol);
}

GST_START_TEST (test_nearest_exact)
{
  check_method (STAGE_RESIZE_NEAREST, 0, 0.0);
}

GST_END_TEST;

GST_START_TEST (test_bilinear)
{
  check_method (STAGE_RESIZE_BILINEAR, 1, 0.1);
}

GST_END_TEST;

GST_START_TEST (test_area)
{
  check_method (STAGE_RESIZE_AREA, 1, 0.1);
}

GST_END_TEST;

GST_START_TEST (test_bicubic)
{
  check_method (STAGE_RESIZE_BICUBIC, 1, 0.1);
}

GST_END_TEST;

/* 4K down to thumbnails: thousands of taps per output in one plan. */
GST_START_TEST (test_large_factors)
{
  StageResizeMethod m;

  for (m = STAGE_RESIZE_NEAREST; m <= STAGE_RESIZE_BICUBIC; m++) {
    compare (3840, 2160, 32, 18, 1, m, m == STAGE_RESIZE_NEAREST ? 0 : 1,
        0.1);
    compare (3840, 16, 1, 3, 2, m, m == STAGE_RESIZE_NEAREST ? 0 : 1, 0.1);
    compare (12, 9, 1280, 720, 3, m, m == STAGE_RESIZE_NEAREST ? 0 : 1, 0.1);
  }
}

GST_END_TEST;

/* A flat plane must stay exactly flat: the Q14 weights sum to one. */
GST_START_TEST (test_flat_stays_flat)
{
  StageResizeMethod m;
  int v, c = 3;

  for (m = STAGE_RESIZE_NEAREST; m <= STAGE_RESIZE_BICUBIC; m++)
    for (v = 0; v <= 255; v += 51) {
      guint8 src[37 * 23 * 3], dst[50 * 11 * 3];
      guint i;
      memset (src, v, sizeof (src));
      fail_unless_equals_int (stage_resize_plane (src, 37, 23, 37 * c, dst,
              50, 11, 50 * c, c, m), 0);
      for (i = 0; i < sizeof (dst); i++)
        fail_unless_equals_int (dst[i], v);
    }
}

GST_END_TEST;

/* Area on an exact 2x shrink is the plain 2x2 mean. */
GST_START_TEST (test_area_box_mean)
{
  guint8 *src = make_image (64, 32, 1, 5), dst[32 * 16];
  int x, y;

  fail_unless_equals_int (stage_resize_plane (src, 64, 32, 64, dst, 32, 16,
          32, 1, STAGE_RESIZE_AREA), 0);
  for (y = 0; y < 16; y++)
    for (x = 0; x < 32; x++) {
      int s = src[(2 * y) * 64 + 2 * x] + src[(2 * y) * 64 + 2 * x + 1] +
          src[(2 * y + 1) * 64 + 2 * x] + src[(2 * y + 1) * 64 + 2 * x + 1];
      int d = abs (dst[y * 32 + x] * 4 - s);
      fail_unless (d <= 2, "(%d,%d): %d vs mean %d/4", x, y, dst[y * 32 + x],
          s);
    }
  g_free (src);
}

GST_END_TEST;

/* Taps: weights sum to exactly 1 << 14 and never read outside the input. */
GST_START_TEST (test_taps)
{
  static const int io[][2] = { {1, 1}, {1, 50}, {50, 1}, {3, 4}, {1920, 640},
  {480, 1080}, {5, 3}, {4096, 7}
  };
  StageResizeMethod m;
  guint i;

  for (m = STAGE_RESIZE_NEAREST; m <= STAGE_RESIZE_BICUBIC; m++)
    for (i = 0; i < G_N_ELEMENTS (io); i++) {
      StageResizeTaps t;
      int o, k;
      fail_unless_equals_int (stage_resize_taps_init (&t, io[i][0], io[i][1],
              m), 0);
      fail_unless (t.n_taps >= 1 && t.n_taps <= io[i][0]);
      for (o = 0; o < t.out_size; o++) {
        int sum = 0;
        fail_unless (t.start[o] >= 0 && t.start[o] + t.n_taps <= io[i][0]);
        for (k = 0; k < t.n_taps; k++) {
          double exact = stage_resize_weight (io[i][0], io[i][1], m, o,
              t.start[o] + k);
          sum += t.weights[o * t.n_taps + k];
          fail_unless (fabs (t.weights[o * t.n_taps + k] / 16384.0 - exact)
              <= 1.0 / 16384 + 1e-9, "%s %d->%d out %d tap %d: %d vs %f",
              stage_resize_method_name (m), io[i][0], io[i][1], o, k,
              t.weights[o * t.n_taps + k], exact * 16384);
        }
        fail_unless_equals_int (sum, 16384);
      }
      stage_resize_taps_clear (&t);
    }
}

GST_END_TEST;

/* Any partition of the rows gives the same bytes as one call. */
GST_START_TEST (test_slices_identical)
{
  static const int cases[][4] = { {640, 480, 200, 150}, {100, 60, 333, 251},
  {90, 90, 90, 45}, {45, 90, 90, 90}
  };
  StageResizeMethod m;
  guint i;

  for (m = STAGE_RESIZE_NEAREST; m <= STAGE_RESIZE_BICUBIC; m++)
    for (i = 0; i < G_N_ELEMENTS (cases); i++) {
      int sw = cases[i][0], sh = cases[i][1], dw = cases[i][2],
          dh = cases[i][3], c = 2, y;
      guint8 *src = make_image (sw, sh, c, i);
      guint8 *whole = g_malloc ((size_t) dw * dh * c);
      guint8 *sliced = g_malloc0 ((size_t) dw * dh * c);
      StageResizePlan *p = stage_resize_plan_new (sw, sh, dw, dh, c, m);
      void *scratch = g_malloc (stage_resize_plan_scratch_size (p));

      stage_resize_plan_run (p, src, sw * c, whole, dw * c, 0, dh, scratch);
      for (y = 0; y < dh; y += 7)
        stage_resize_plan_run (p, src, sw * c, sliced, dw * c, y, y + 7,
            scratch);
      fail_unless (memcmp (whole, sliced, (size_t) dw * dh * c) == 0,
          "%s case %u differs when sliced", stage_resize_method_name (m), i);
      stage_resize_plan_free (p);
      g_free (scratch);
      g_free (src);
      g_free (whole);
      g_free (sliced);
    }
}

GST_END_TEST;

GST_START_TEST (test_bad_arguments)
{
  StageResizeTaps t;
  guint8 px[4] = { 0 };

  fail_unless (stage_resize_plan_new (0, 4, 4, 4, 1,
          STAGE_RESIZE_BILINEAR) == NULL);
  fail_unless (stage_resize_plan_new (4, 4, 4, -1, 1,
          STAGE_RESIZE_BILINEAR) == NULL);
  fail_unless (stage_resize_plan_new (4, 4, 4, 4, 0,
          STAGE_RESIZE_BILINEAR) == NULL);
  fail_unless (stage_resize_plan_new (4, 4, 4, 4, 5,
          STAGE_RESIZE_BILINEAR) == NULL);
  fail_unless (stage_resize_plan_new (4, 4, 4, 4, 1, 17) == NULL);
  fail_unless (stage_resize_plan_new (STAGE_RESIZE_MAX_SIZE + 1, 4, 4, 4, 1,
          STAGE_RESIZE_AREA) == NULL);
  fail_unless_equals_int (stage_resize_taps_init (&t, 0, 3,
          STAGE_RESIZE_AREA), -1);
  fail_unless_equals_int (stage_resize_plane (px, 2, 2, 2, px, 0, 2, 2, 1,
          STAGE_RESIZE_AREA), -1);
  fail_unless (stage_resize_method_name (9) == NULL);
  fail_unless_equals_string (stage_resize_method_name (STAGE_RESIZE_AREA),
      "area");
}

GST_END_TEST;

/* The integer contract of resize.h (which the CUDA kernels implement too),
 * written out plainly from the plan's taps and order: the SIMD paths must
 * give exactly these bytes. */
static guint8 *
contract_resize (const guint8 * src, int sw, int sh, int dw, int dh, int c,
    StageResizeMethod m)
{
  StageResizePlan *p = stage_resize_plan_new (sw, sh, dw, dh, c, m);
  const StageResizeTaps *tx = stage_resize_plan_taps (p, 0);
  const StageResizeTaps *ty = stage_resize_plan_taps (p, 1);
  StageResizeOrder order = stage_resize_plan_order (p);
  guint8 *dst = g_malloc ((size_t) dw * dh * c);
  int x, y, ch, i, k;

  for (y = 0; y < dh; y++)
    for (x = 0; x < dw; x++)
      for (ch = 0; ch < c; ch++) {
        gint32 acc = 1 << 19;
        if (order == STAGE_RESIZE_ORDER_NEAREST) {
          dst[((size_t) y * dw + x) * c + ch] =
              src[((size_t) ty->start[y] * sw + tx->start[x]) * c + ch];
          continue;
        }
        if (order == STAGE_RESIZE_ORDER_VERTICAL_FIRST) {
          for (i = 0; i < tx->n_taps; i++) {
            gint32 mid = 1 << 7;
            for (k = 0; k < ty->n_taps; k++)
              mid += ty->weights[y * ty->n_taps + k] *
                  src[((size_t) (ty->start[y] + k) * sw + tx->start[x] + i) *
                  c + ch];
            acc += tx->weights[x * tx->n_taps + i] * (gint16) (mid >> 8);
          }
        } else {
          for (k = 0; k < ty->n_taps; k++) {
            gint32 mid = 1 << 7;
            for (i = 0; i < tx->n_taps; i++)
              mid += tx->weights[x * tx->n_taps + i] *
                  src[((size_t) (ty->start[y] + k) * sw + tx->start[x] + i) *
                  c + ch];
            acc += ty->weights[y * ty->n_taps + k] * (gint16) (mid >> 8);
          }
        }
        dst[((size_t) y * dw + x) * c + ch] = CLAMP (acc >> 20, 0, 255);
      }
  stage_resize_plan_free (p);
  return dst;
}

GST_START_TEST (test_integer_contract)
{
  static const int cases[][4] = { {640, 480, 213, 161}, {33, 17, 16, 9},
  {160, 120, 640, 480}, {17, 31, 40, 50}, {64, 48, 64, 21}, {9, 1, 20, 1},
  {300, 40, 37, 90}, {7, 5, 1, 1},
    /* exact 2:1: the area plans take the 2x2 box kernels, bilinear
     * the 4x4 triangle's (interiors shorter than, equal to and past one
     * vector block of each path) */
  {128, 96, 64, 48}, {34, 18, 17, 9}, {2, 2, 1, 1}, {130, 4, 65, 2},
  {6, 6, 3, 3}, {36, 8, 18, 4}, {68, 10, 34, 5}, {146, 12, 73, 6},
  {4, 6, 2, 3}, {6, 4, 3, 2},
    /* two taps per axis (bilinear and area enlarging): the 16-bit passes,
     * whole and partial groups of four, starts stepping by 2 (area 2:1 in
     * x), rows too short for a vector block */
  {128, 72, 192, 108}, {100, 50, 150, 75}, {9, 6, 13, 10}, {128, 20, 64, 30},
  {5, 4, 7, 9}, {3, 5, 5, 9}
  };
  StageResizeMethod m;
  guint i;
  int c, orders[3] = { 0 };

  for (m = STAGE_RESIZE_NEAREST; m <= STAGE_RESIZE_BICUBIC; m++)
    for (c = 1; c <= 4; c++)
      for (i = 0; i < G_N_ELEMENTS (cases); i++) {
        const int *k = cases[i];
        guint8 *src = make_image (k[0], k[1], c, i * 5 + c);
        guint8 *want = contract_resize (src, k[0], k[1], k[2], k[3], c, m);
        guint8 *got = run_ops (src, k[0], k[1], k[2], k[3], c, m, 0);
        StageResizePlan *p = stage_resize_plan_new (k[0], k[1], k[2], k[3],
            c, m);
        orders[stage_resize_plan_order (p)]++;
        stage_resize_plan_free (p);
        fail_unless (memcmp (want, got, (size_t) k[2] * k[3] * c) == 0,
            "%s %dx%d -> %dx%d, %d channels: not the documented integer "
            "result", stage_resize_method_name (m), k[0], k[1], k[2], k[3],
            c);
        g_free (src);
        g_free (want);
        g_free (got);
      }
  /* The dedicated 2:1 kernels are what those plans run. */
  {
    static const struct
    {
      int k[4];
      StageResizeMethod m;
      const char *kernel;
    } want[] = {
      {{128, 96, 64, 48}, STAGE_RESIZE_AREA, "box2"},
      {{128, 96, 64, 48}, STAGE_RESIZE_BILINEAR, "tri2"},
      {{6, 6, 3, 3}, STAGE_RESIZE_BILINEAR, "tri2"},
      {{3840, 2160, 1920, 1080}, STAGE_RESIZE_BILINEAR, "tri2"},
      {{128, 96, 64, 48}, STAGE_RESIZE_BICUBIC, "vertical-first"},
      /* no interior row or column: the general passes */
      {{6, 4, 3, 2}, STAGE_RESIZE_BILINEAR, "vertical-first"},
      {{128, 96, 64, 47}, STAGE_RESIZE_BILINEAR, "vertical-first"},
      {{128, 96, 64, 48}, STAGE_RESIZE_NEAREST, "nearest"},
    };
    /* Two taps per axis with 3 or 4 channels (1 and 2 pad the horizontal
     * taps to four for their kernels). */
    static const struct
    {
      int k[4];
      StageResizeMethod m;
      const char *kernel[4];
    } by_channels[] = {
      {{1280, 720, 1920, 1080}, STAGE_RESIZE_BILINEAR, {"horizontal-first",
              "horizontal-first", "two-tap", "two-tap"}},
      {{1280, 720, 1920, 1080}, STAGE_RESIZE_AREA, {"horizontal-first",
              "horizontal-first", "two-tap", "two-tap"}},
      {{128, 20, 64, 30}, STAGE_RESIZE_AREA, {"horizontal-first",
              "horizontal-first", "two-tap", "two-tap"}},
      {{1280, 720, 1920, 1080}, STAGE_RESIZE_BICUBIC, {"horizontal-first",
              "horizontal-first", "horizontal-first", "horizontal-first"}},
    };
    for (i = 0; i < G_N_ELEMENTS (by_channels); i++)
      for (c = 1; c <= 4; c++) {
        const int *k = by_channels[i].k;
        StageResizePlan *p = stage_resize_plan_new (k[0], k[1], k[2], k[3],
            c, by_channels[i].m);
        fail_unless_equals_string (stage_resize_plan_kernel (p),
            by_channels[i].kernel[c - 1]);
        stage_resize_plan_free (p);
      }
    for (i = 0; i < G_N_ELEMENTS (want); i++) {
      StageResizePlan *p = stage_resize_plan_new (want[i].k[0], want[i].k[1],
          want[i].k[2], want[i].k[3], 1, want[i].m);
      for (c = 2; c <= 4; c++) {
        StageResizePlan *q = stage_resize_plan_new (want[i].k[0],
            want[i].k[1], want[i].k[2], want[i].k[3], c, want[i].m);
        fail_unless_equals_string (stage_resize_plan_kernel (q),
            stage_resize_plan_kernel (p));
        stage_resize_plan_free (q);
      }
      fail_unless_equals_string (stage_resize_plan_kernel (p),
          want[i].kernel);
      stage_resize_plan_free (p);
    }
  }
  /* 3:1 across with one channel: the paths that have the kernel for it
   * run it (every path's bytes are compared in test_simd_paths_identical). */
  {
    const char *const *paths = stage_resize_simd_paths ();
    guint p;

    for (p = 0; paths[p]; p++) {
      StageResizePlan *q;
      gboolean has = g_str_equal (paths[p], "avx2") ||
          g_str_equal (paths[p], "neon");

      if (stage_resize_simd_select (paths[p]) != 0)
        continue;
      q = stage_resize_plan_new (1920, 1080, 640, 360, 1,
          STAGE_RESIZE_BILINEAR);
      fail_unless_equals_string (stage_resize_plan_kernel (q),
          has ? "vertical-first 3:1" : "vertical-first");
      stage_resize_plan_free (q);
      /* area: three taps; 2 channels: not this kernel */
      q = stage_resize_plan_new (1920, 1080, 640, 360, 1, STAGE_RESIZE_AREA);
      fail_unless_equals_string (stage_resize_plan_kernel (q),
          has ? "vertical-first 3:1" : "vertical-first");
      stage_resize_plan_free (q);
      q = stage_resize_plan_new (1920, 1080, 640, 360, 2,
          STAGE_RESIZE_BILINEAR);
      fail_unless_equals_string (stage_resize_plan_kernel (q),
          "vertical-first");
      stage_resize_plan_free (q);
    }
    fail_unless_equals_int (stage_resize_simd_select (NULL), 0);
  }
  /* Both pass orders were exercised. */
  fail_unless (orders[STAGE_RESIZE_ORDER_VERTICAL_FIRST] > 0);
  fail_unless (orders[STAGE_RESIZE_ORDER_HORIZONTAL_FIRST] > 0);
}

GST_END_TEST;

/* Every SIMD path this machine runs gives the scalar path's bytes: all
 * methods, 1-4 channels, both pass orders, odd sizes, widths shorter than
 * one vector block, tap counts past the register-resident kernels, padded
 * strides, and a hard-edged image whose bicubic overshoot hits both ends of
 * the clamp. */
static guint8 *
run_path (const char *path, const guint8 * src, int sw, int sh, int dw,
    int dh, int c, StageResizeMethod m)
{
  guint8 *out;

  fail_unless_equals_int (stage_resize_simd_select (path), 0);
  fail_unless_equals_string (stage_resize_simd_path (), path);
  out = run_ops (src, sw, sh, dw, dh, c, m, 5);
  return out;
}

static guint8 *
make_hard_image (int w, int h, int c, guint32 seed)
{
  guint8 *p = g_malloc ((size_t) w * h * c);
  GRand *r = g_rand_new_with_seed (seed);
  size_t i;

  for (i = 0; i < (size_t) w * h * c; i++)
    p[i] = g_rand_boolean (r) ? 255 : 0;
  g_rand_free (r);
  return p;
}

GST_START_TEST (test_simd_paths_identical)
{
  const char *const *paths = stage_resize_simd_paths ();
  const char *run[8];
  StageResizeMethod m;
  guint i, p, n_run = 0;
  int c, hard;

  for (p = 0; paths[p]; p++) {
    if (stage_resize_simd_available (paths[p]) &&
        strcmp (paths[p], "scalar") != 0 && n_run < G_N_ELEMENTS (run))
      run[n_run++] = paths[p];
    else
      GST_INFO ("SIMD path %s: not compared", paths[p]);
  }
  for (m = STAGE_RESIZE_NEAREST; m <= STAGE_RESIZE_BICUBIC; m++)
    for (c = 1; c <= 4; c++)
      for (i = 0; i < N_RESIZE_PATH_CASES; i++)
        for (hard = 0; hard < 2; hard++) {
          const int *k = resize_path_cases[i];
          size_t n = (size_t) k[2] * k[3] * c, j;
          guint8 *src, *want;

          /* The hard-edged image on the small cases only: time. */
          if (hard && k[0] * k[1] > 300000)
            continue;
          src = hard ? make_hard_image (k[0], k[1], c, i + c) :
              make_image (k[0], k[1], c, i * 3 + c);
          want = run_path ("scalar", src, k[0], k[1], k[2], k[3], c, m);
          for (p = 0; p < n_run; p++) {
            guint8 *got = run_path (run[p], src, k[0], k[1], k[2], k[3], c,
                m);
            for (j = 0; j < n && want[j] == got[j]; j++);
            fail_unless (j == n, "%s path, %s %dx%d -> %dx%d, %d channels%s: "
                "byte %zu is %u, scalar gives %u", run[p],
                stage_resize_method_name (m), k[0], k[1], k[2], k[3], c,
                hard ? " (hard edges)" : "", j, j < n ? got[j] : 0,
                j < n ? want[j] : 0);
            g_free (got);
          }
          g_free (src);
          g_free (want);
        }
  fail_unless_equals_int (stage_resize_simd_select (NULL), 0);
  /* A dispatch that never offered a SIMD path would pass vacuously. */
#if defined(__x86_64__)
  fail_unless (stage_resize_simd_available ("sse41") ==
      !!__builtin_cpu_supports ("sse4.1"));
  fail_unless (stage_resize_simd_available ("avx2") ==
      !!__builtin_cpu_supports ("avx2"));
  fail_unless (n_run >= 1 || !__builtin_cpu_supports ("sse4.1"));
#endif
}

GST_END_TEST;

/* What stage_resize_simd_select (NULL) prints on stderr (it reads
 * STAGES_RESIZE_SIMD). */
static gchar *
stderr_of_env_select (void)
{
  gchar *path = NULL, *text = NULL;
  gint fd = g_file_open_tmp ("simd-XXXXXX", &path, NULL);
  gint saved = dup (2);

  fail_unless (fd >= 0 && saved >= 0);
  fflush (stderr);
  dup2 (fd, 2);
  fail_unless_equals_int (stage_resize_simd_select (NULL), 0);
  fflush (stderr);
  dup2 (saved, 2);
  close (saved);
  close (fd);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  g_unlink (path);
  g_free (path);
  return text;
}

/* STAGES_RESIZE_SIMD forces a path; an unknown or unsupported one falls
 * back to the best path instead of failing. */
GST_START_TEST (test_simd_env)
{
  gchar *msg;
  const char *best;

  fail_unless_equals_int (stage_resize_simd_select ("no-such-path"), -1);
  g_unsetenv ("STAGES_RESIZE_SIMD");
  fail_unless_equals_int (stage_resize_simd_select (NULL), 0);
  best = stage_resize_simd_path ();
  fail_unless (stage_resize_simd_available (best));
#if defined(__x86_64__)
  if (__builtin_cpu_supports ("avx2"))
    fail_unless_equals_string (best, "avx2");
#endif

  g_setenv ("STAGES_RESIZE_SIMD", "scalar", TRUE);
  fail_unless_equals_int (stage_resize_simd_select (NULL), 0);
  fail_unless_equals_string (stage_resize_simd_path (), "scalar");

  g_setenv ("STAGES_RESIZE_SIMD", "no-such-path", TRUE);
  msg = stderr_of_env_select ();
  fail_unless_equals_string (stage_resize_simd_path (), best);
  fail_unless (strstr (msg, "no-such-path: unknown (scalar, sse41, avx2 or "
          "neon)") != NULL, "%s", msg);
  g_free (msg);

  /* A path of another architecture is known, just not here: the line
   * must not call it unknown while listing it. */
#if defined(__x86_64__) || defined(__i386__)
  g_setenv ("STAGES_RESIZE_SIMD", "neon", TRUE);
#else
  g_setenv ("STAGES_RESIZE_SIMD", "avx2", TRUE);
#endif
  msg = stderr_of_env_select ();
  fail_unless_equals_string (stage_resize_simd_path (), best);
  fail_unless (strstr (msg, "not available on this CPU architecture") != NULL
      && strstr (msg, "unknown") == NULL, "%s", msg);
  g_free (msg);

  g_unsetenv ("STAGES_RESIZE_SIMD");
  fail_unless_equals_int (stage_resize_simd_select (NULL), 0);
}

GST_END_TEST;

static Suite *
ops_resize_suite (void)
{
  Suite *s = suite_create ("ops_resize");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_nearest_exact);
  tcase_add_test (tc, test_bilinear);
  tcase_add_test (tc, test_area);
  tcase_add_test (tc, test_bicubic);
  tcase_add_test (tc, test_large_factors);
  tcase_add_test (tc, test_flat_stays_flat);
  tcase_add_test (tc, test_area_box_mean);
  tcase_add_test (tc, test_taps);
  tcase_add_test (tc, test_slices_identical);
  tcase_add_test (tc, test_bad_arguments);
  tcase_add_test (tc, test_integer_contract);
  tcase_add_test (tc, test_simd_paths_identical);
  tcase_add_test (tc, test_simd_env);
  return s;
}

GST_CHECK_MAIN (ops_resize);
