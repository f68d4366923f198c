/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Double-precision reference of the resize definitions in ops/resize.h,
 * written independently of ops/resize.c and shared by the resize suites. */
#ifndef __RESIZE_REF_H__
#define __RESIZE_REF_H__

#include <glib.h>
#include <math.h>

#include "resize.h"

typedef struct
{
  int lo, n;                    /* first input, count */
  double *w;
} RefTaps;

G_GNUC_UNUSED static double
ref_kernel (StageResizeMethod m, double t)
{
  t = fabs (t);
  if (m == STAGE_RESIZE_BILINEAR)
    return t < 1 ? 1 - t : 0;
  /* Keys, a = -0.5 */
  if (t < 1)
    return 1.5 * t * t * t - 2.5 * t * t + 1;
  if (t < 2)
    return -0.5 * t * t * t + 2.5 * t * t - 4 * t + 2;
  return 0;
}

/* Dense weights, then trimmed: slow and obvious. */
G_GNUC_UNUSED static RefTaps *
ref_taps (int in, int out, StageResizeMethod m)
{
  RefTaps *t = g_new0 (RefTaps, out);
  double scale = (double) in / out;
  int o, i;

  for (o = 0; o < out; o++) {
    double *w = g_new0 (double, in), sum = 0;
    int lo = in, hi = -1;
    for (i = 0; i < in; i++) {
      if (m == STAGE_RESIZE_NEAREST) {
        long long k = ((2LL * o + 1) * in) / (2LL * out);
        w[i] = (i == MIN (k, in - 1));
      } else if (m == STAGE_RESIZE_AREA) {
        double a = o * scale, b = (o + 1) * scale;
        double l = MAX (a, i), r = MIN (b, i + 1);
        w[i] = r > l ? (r - l) / scale : 0;
      } else {
        double fs = MAX (scale, 1.0);
        w[i] = ref_kernel (m, (i - ((o + 0.5) * scale - 0.5)) / fs);
      }
      sum += w[i];
      if (w[i] != 0) {
        lo = MIN (lo, i);
        hi = MAX (hi, i);
      }
    }
    t[o].lo = lo;
    t[o].n = hi - lo + 1;
    t[o].w = g_new (double, t[o].n);
    for (i = 0; i < t[o].n; i++)
      t[o].w[i] = w[lo + i] / sum;
    g_free (w);
  }
  return t;
}

G_GNUC_UNUSED static void
ref_taps_free (RefTaps * t, int out)
{
  int o;
  for (o = 0; o < out; o++)
    g_free (t[o].w);
  g_free (t);
}

G_GNUC_UNUSED static guint8 *
ref_resize (const guint8 * src, int sw, int sh, int dw, int dh, int c,
    StageResizeMethod m)
{
  RefTaps *tx = ref_taps (sw, dw, m), *ty = ref_taps (sh, dh, m);
  double *mid = g_new0 (double, (size_t) sh * dw * c);
  guint8 *dst = g_malloc ((size_t) dw * dh * c);
  int x, y, k, ch;

  for (y = 0; y < sh; y++)
    for (x = 0; x < dw; x++)
      for (ch = 0; ch < c; ch++) {
        double acc = 0;
        for (k = 0; k < tx[x].n; k++)
          acc += tx[x].w[k] * src[((size_t) y * sw + tx[x].lo + k) * c + ch];
        mid[((size_t) y * dw + x) * c + ch] = acc;
      }
  for (y = 0; y < dh; y++)
    for (x = 0; x < dw * c; x++) {
      double acc = 0;
      for (k = 0; k < ty[y].n; k++)
        acc += ty[y].w[k] * mid[(size_t) (ty[y].lo + k) * dw * c + x];
      dst[(size_t) y * dw * c + x] = (guint8) CLAMP (lround (acc), 0, 255);
    }
  ref_taps_free (tx, dw);
  ref_taps_free (ty, dh);
  g_free (mid);
  return dst;
}

/* Noise on top of gradients and hard edges: exercises overshoot, edges and
 * the rounding of every tap. */
G_GNUC_UNUSED static guint8 *
make_image (int w, int h, int c, guint32 seed)
{
  guint8 *p = g_malloc ((size_t) w * h * c);
  GRand *r = g_rand_new_with_seed (seed);
  int x, y, ch;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      for (ch = 0; ch < c; ch++) {
        int v = (x * 255 / MAX (1, w - 1) + y * 97 / MAX (1, h - 1)) / 2;
        if (((x / 3) + (y / 5) + ch) % 4 == 0)
          v = 255 - v;
        v += g_rand_int_range (r, -40, 41);
        p[((size_t) y * w + x) * c + ch] = (guint8) CLAMP (v, 0, 255);
      }
  g_rand_free (r);
  return p;
}

#endif
