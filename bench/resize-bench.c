/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* In-process resize benchmark: stageresize's ops (ops/resize.c), libyuv and
 * ffmpeg's swscale on the same frames, same sizes, one call per frame, plus
 * the PSNR of each result against a double-precision Lanczos-3 reference.
 *
 *   resize-bench CASE METHOD LIB [FRAMES] [REPS] [THREADS] [INPUT]
 *   resize-bench --simd-paths   (the kernel paths this CPU runs)
 *
 *   CASE    i420 (1920x1080 -> 640x480 I420), nv12 (3840x2160 -> 1920x1080
 *           NV12) or rgba (1280x720 -> 1920x1080 RGBA)
 *   METHOD  bilinear, area or nearest (libyuv: kFilterBilinear /
 *           kFilterBox / kFilterNone, swscale: SWS_BILINEAR / SWS_AREA /
 *           SWS_POINT)
 *   LIB     stage, libyuv, swscale, none (does nothing) or floor (reads
 *           every source byte and writes every output byte, split over
 *           THREADS as stage: the memory traffic of any resizer, without
 *           the arithmetic)
 *   FRAMES  distinct input frames (default 4), REPS passes over them (3)
 *   THREADS stage and floor: each frame's rows split over this many
 *           threads, which watch for the next frame and for the slices'
 *           end as stageresize's workers do (default 1)
 *   INPUT   raw frames of the case's input format; synthetic when absent
 *
 * Prints one line: "LIB CASE METHOD ms_per_frame_cpu ms_per_frame_wall
 * psnr_db". CPU time is the process's (all threads); with THREADS > 1 the
 * wall time is the figure that matters. Built by bench/resize.sh.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libyuv.h>
#include <libswscale/swscale.h>
#include <libavutil/pixfmt.h>

#include "resize.h"

typedef struct
{
  const char *name;
  int sw, sh, dw, dh;
  int n_planes;
  int channels[3];
  int sub[3];                   /* chroma subsampling shift per plane */
} Case;

static const Case cases[] = {
  {"i420", 1920, 1080, 640, 480, 3, {1, 1, 1}, {0, 1, 1}},
  {"nv12", 3840, 2160, 1920, 1080, 2, {1, 2, 0}, {0, 1, 0}},
  {"rgba", 1280, 720, 1920, 1080, 1, {4, 0, 0}, {0, 0, 0}},
};

typedef struct
{
  uint8_t *p[3];
  int w[3], h[3], stride[3];
  size_t size;
} Frame;

static void
frame_alloc (Frame * f, const Case * c, int w, int h)
{
  int i;

  memset (f, 0, sizeof (*f));
  for (i = 0; i < c->n_planes; i++) {
    int s = c->sub[i];
    f->w[i] = (w + (1 << s) - 1) >> s;
    f->h[i] = (h + (1 << s) - 1) >> s;
    f->stride[i] = (f->w[i] * c->channels[i] + 63) & ~63;
    f->p[i] = aligned_alloc (64, (size_t) f->stride[i] * f->h[i]);
    f->size += (size_t) f->w[i] * f->h[i] * c->channels[i];
  }
}

static void
frame_free (Frame * f)
{
  int i;

  for (i = 0; i < 3; i++)
    free (f->p[i]);
}

/* Synthetic structure when no input file: rings and edges at all scales. */
static void
frame_fill (Frame * f, const Case * c, int seed)
{
  int i, x, y, k;

  for (i = 0; i < c->n_planes; i++)
    for (y = 0; y < f->h[i]; y++)
      for (x = 0; x < f->w[i]; x++)
        for (k = 0; k < c->channels[i]; k++) {
          double r2 = (double) (x - f->w[i] / 2) * (x - f->w[i] / 2) +
              (double) (y - f->h[i] / 3) * (y - f->h[i] / 3);
          double v = 128 + 100 * sin (r2 / (400.0 + 900 * k) + seed) *
              cos (x / (7.0 + k)) + ((x / 37 + y / 23 + seed) % 2) * 20;
          f->p[i][(size_t) y * f->stride[i] + x * c->channels[i] + k] =
              v < 0 ? 0 : v > 255 ? 255 : (uint8_t) v;
        }
}

static int
frame_read (Frame * f, const Case * c, FILE * in)
{
  int i, y;

  for (i = 0; i < c->n_planes; i++)
    for (y = 0; y < f->h[i]; y++)
      if (fread (f->p[i] + (size_t) y * f->stride[i], 1,
              (size_t) f->w[i] * c->channels[i], in) !=
          (size_t) f->w[i] * c->channels[i])
        return -1;
  return 0;
}

/* ---- Lanczos-3 reference (double precision, antialiased when shrinking,
 * pixel-centre aligned, edge taps dropped and renormalised) ---- */

static double
lanczos3 (double t)
{
  t = fabs (t);
  if (t < 1e-12)
    return 1.0;
  if (t >= 3.0)
    return 0.0;
  return 3.0 * sin (M_PI * t) * sin (M_PI * t / 3.0) / (M_PI * M_PI * t * t);
}

static void
ref_axis (const double *src, int n_in, int stride_in, double *dst, int n_out,
    int stride_out)
{
  double scale = (double) n_in / n_out, fs = scale > 1 ? scale : 1;
  int o, i;

  for (o = 0; o < n_out; o++) {
    double sx = (o + 0.5) * scale - 0.5, sum = 0, wsum = 0;
    int lo = (int) floor (sx - 3 * fs), hi = (int) ceil (sx + 3 * fs);
    for (i = lo < 0 ? 0 : lo; i <= hi && i < n_in; i++) {
      double w = lanczos3 ((i - sx) / fs);
      sum += w * src[(size_t) i * stride_in];
      wsum += w;
    }
    dst[(size_t) o * stride_out] = sum / wsum;
  }
}

static void
ref_plane (const uint8_t * src, int sw, int sh, int sstride, int C,
    uint8_t * dst, int dw, int dh, int dstride)
{
  double *in = malloc (sizeof (double) * sw * sh);
  double *mid = malloc (sizeof (double) * dw * sh);
  double *out = malloc (sizeof (double) * dw * dh);
  int c, x, y;

  for (c = 0; c < C; c++) {
    for (y = 0; y < sh; y++)
      for (x = 0; x < sw; x++)
        in[(size_t) y * sw + x] = src[(size_t) y * sstride + x * C + c];
    for (y = 0; y < sh; y++)
      ref_axis (in + (size_t) y * sw, sw, 1, mid + (size_t) y * dw, dw, 1);
    for (x = 0; x < dw; x++)
      ref_axis (mid + x, sh, dw, out + x, dh, dw);
    for (y = 0; y < dh; y++)
      for (x = 0; x < dw; x++) {
        double v = round (out[(size_t) y * dw + x]);
        dst[(size_t) y * dstride + x * C + c] = v < 0 ? 0 : v > 255 ? 255 : v;
      }
  }
  free (in);
  free (mid);
  free (out);
}

static double
psnr (const Frame * a, const Frame * b, const Case * c)
{
  double se = 0;
  size_t n = 0;
  int i, x, y;

  for (i = 0; i < c->n_planes; i++)
    for (y = 0; y < a->h[i]; y++)
      for (x = 0; x < a->w[i] * c->channels[i]; x++) {
        double d = (double) a->p[i][(size_t) y * a->stride[i] + x] -
            b->p[i][(size_t) y * b->stride[i] + x];
        se += d * d;
        n++;
      }
  return se == 0 ? 99.0 : 10 * log10 (255.0 * 255.0 * n / se);
}

/* ---- the scalers ---- */

typedef struct
{
  const Case *c;
  StageResizePlan *plan[3];
  void **scratch;               /* per thread x plane */
  int n_threads;
  const Frame *src;
  Frame *dst;
  /* Frames handed out and slices not done: the workers and the main
   * thread watch these (the frames come back to back), as stageresize's
   * workers do before they sleep. */
  int generation, pending;
  pthread_t *threads;
  int quit;
  int floor;                    /* the "floor" library: traffic only */
} StageCtx;

typedef struct
{
  StageCtx *ctx;
  int index;
} Worker;

/* Per output row of [y0, y1): reads the source rows that map to it (16
 * bytes a load, four sums: the loads set the pace, not the arithmetic),
 * prefetching as it goes the rows the next output row maps to (as our 2:1
 * kernels do: the hardware prefetchers do not jump to them), then fills
 * the row, as a resizer's loop would. */
typedef uint64_t FloorVec __attribute__((vector_size (16)));

static void
floor_rows (const Frame * src, Frame * dst, int i, int y0, int y1)
{
  const int sh = src->h[i], dh = dst->h[i];
  const size_t len = (size_t) src->stride[i];
  FloorVec a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
  int r, y;

  for (y = y0; y < y1; y++) {
    const int r0 = (int) ((long) y * sh / dh);
    const int r1 = (int) ((long) (y + 1) * sh / dh);
    const int r2 = y + 1 < y1 ? (int) ((long) (y + 2) * sh / dh) : r1;
    /* The next row's source rows are r1 .. r2 - 1: as many as this one's
     * at most, so the k-th is prefetched beside this one's k-th. */
    const ptrdiff_t ahead = (ptrdiff_t) (r1 - r0) * src->stride[i];
    for (r = r0; r < r1; r++) {
      const uint8_t *row = src->p[i] + (size_t) r * src->stride[i];
      const int pf = r + (r1 - r0) < r2;
      size_t x;
      for (x = 0; x + 64 <= len; x += 64) {
        FloorVec v[4];
        if (pf)
          __builtin_prefetch (row + ahead + x + 256, 0, 3);
        memcpy (v, row + x, 64);
        a += v[0];
        b += v[1];
        c += v[2];
        d += v[3];
      }
    }
    a += b + c + d;
    memset (dst->p[i] + (size_t) y * dst->stride[i], (int) (a[0] + a[1]),
        (size_t) dst->stride[i]);
  }
}

static void
stage_slice (StageCtx * s, int t)
{
  int i;

  for (i = 0; i < s->c->n_planes; i++) {
    int h = s->dst->h[i];
    int y0 = (int) ((long) h * t / s->n_threads);
    int y1 = (int) ((long) h * (t + 1) / s->n_threads);
    if (s->floor) {
      floor_rows (s->src, s->dst, i, y0, y1);
      continue;
    }
    stage_resize_plan_run (s->plan[i], s->src->p[i], s->src->stride[i],
        s->dst->p[i], s->dst->stride[i], y0, y1,
        s->scratch[t * 3 + i]);
  }
}

static void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ __volatile__ ("yield");
#endif
}

static void *
stage_worker (void *data)
{
  Worker *w = data;
  StageCtx *s = w->ctx;
  int seen = 0, g;

  for (;;) {
    while ((g = __atomic_load_n (&s->generation, __ATOMIC_ACQUIRE)) == seen)
      cpu_relax ();
    seen = g;
    if (__atomic_load_n (&s->quit, __ATOMIC_ACQUIRE))
      break;
    stage_slice (s, w->index);
    __atomic_fetch_sub (&s->pending, 1, __ATOMIC_RELEASE);
  }
  return NULL;
}

static Worker workers[64];

static void
stage_init (StageCtx * s, const Case * c, const Frame * src, Frame * dst,
    StageResizeMethod m, int n_threads)
{
  int i, t;

  memset (s, 0, sizeof (*s));
  s->c = c;
  s->n_threads = n_threads;
  s->dst = dst;
  s->scratch = calloc ((size_t) n_threads * 3, sizeof (void *));
  for (i = 0; i < c->n_planes; i++) {
    s->plan[i] = stage_resize_plan_new (src->w[i], src->h[i], dst->w[i],
        dst->h[i], c->channels[i], m);
    for (t = 0; t < n_threads; t++)
      s->scratch[t * 3 + i] = aligned_alloc (64,
          (stage_resize_plan_scratch_size (s->plan[i]) + 63) & ~(size_t) 63);
  }
  if (n_threads > 1) {
    s->threads = calloc (n_threads, sizeof (pthread_t));
    for (t = 1; t < n_threads; t++) {
      workers[t].ctx = s;
      workers[t].index = t;
      pthread_create (&s->threads[t], NULL, stage_worker, &workers[t]);
    }
  }
}

static void
stage_run (StageCtx * s, const Frame * src)
{
  s->src = src;
  if (s->n_threads == 1) {
    stage_slice (s, 0);
    return;
  }
  __atomic_store_n (&s->pending, s->n_threads - 1, __ATOMIC_RELAXED);
  __atomic_fetch_add (&s->generation, 1, __ATOMIC_RELEASE);
  stage_slice (s, 0);
  while (__atomic_load_n (&s->pending, __ATOMIC_ACQUIRE) > 0)
    cpu_relax ();
}

static void
stage_finish (StageCtx * s)
{
  int t;

  if (s->n_threads > 1) {
    __atomic_store_n (&s->quit, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add (&s->generation, 1, __ATOMIC_RELEASE);
    for (t = 1; t < s->n_threads; t++)
      pthread_join (s->threads[t], NULL);
  }
}

static void
libyuv_run (const Case * c, const Frame * s, Frame * d,
    StageResizeMethod m)
{
  enum FilterMode f = m == STAGE_RESIZE_AREA ? kFilterBox :
      m == STAGE_RESIZE_NEAREST ? kFilterNone : kFilterBilinear;

  if (!strcmp (c->name, "i420"))
    I420Scale (s->p[0], s->stride[0], s->p[1], s->stride[1], s->p[2],
        s->stride[2], c->sw, c->sh, d->p[0], d->stride[0], d->p[1],
        d->stride[1], d->p[2], d->stride[2], c->dw, c->dh, f);
  else if (!strcmp (c->name, "nv12"))
    NV12Scale (s->p[0], s->stride[0], s->p[1], s->stride[1], c->sw, c->sh,
        d->p[0], d->stride[0], d->p[1], d->stride[1], c->dw, c->dh, f);
  else
    ARGBScale (s->p[0], s->stride[0], c->sw, c->sh, d->p[0], d->stride[0],
        c->dw, c->dh, f);
}

static enum AVPixelFormat
sws_format (const Case * c)
{
  if (!strcmp (c->name, "i420"))
    return AV_PIX_FMT_YUV420P;
  if (!strcmp (c->name, "nv12"))
    return AV_PIX_FMT_NV12;
  return AV_PIX_FMT_RGBA;
}

/* One pass over the frames; a function of its own so that callgrind can
 * count its instructions alone (--toggle-collect=bench_pass). */
__attribute__((noinline)) static void
bench_pass (const char *lib, const Case * c, StageCtx * stage,
    struct SwsContext *sws, Frame * src, int frames, Frame * dst,
    StageResizeMethod m)
{
  int i;

  for (i = 0; i < frames; i++) {
    if (!strcmp (lib, "stage") || !strcmp (lib, "floor"))
      stage_run (stage, &src[i]);
    else if (!strcmp (lib, "libyuv"))
      libyuv_run (c, &src[i], dst, m);
    else if (sws)
      sws_scale (sws, (const uint8_t * const *) src[i].p, src[i].stride, 0,
          c->sh, dst->p, dst->stride);
  }
}

static double
now (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main (int argc, char **argv)
{
  const Case *c = NULL;
  const char *method, *lib;
  int frames, reps, n_threads, i, r;
  StageResizeMethod m;
  Frame *src, dst, ref;
  StageCtx stage;
  struct SwsContext *sws = NULL;
  double c0, w0, cpu, wall, q;
  FILE *in = NULL;

  if (argc == 2 && !strcmp (argv[1], "--simd-paths")) {
    /* The kernel paths this CPU runs, one a line. */
    const char *const *paths = stage_resize_simd_paths ();
    for (i = 0; paths[i]; i++)
      if (stage_resize_simd_available (paths[i]))
        printf ("%s\n", paths[i]);
    return 0;
  }
  if (argc < 4) {
    fprintf (stderr, "usage: %s i420|nv12|rgba bilinear|area|nearest "
        "stage|libyuv|swscale|none [FRAMES] [REPS] [THREADS] [INPUT]\n",
        argv[0]);
    return 2;
  }
  for (i = 0; i < (int) (sizeof (cases) / sizeof (cases[0])); i++)
    if (!strcmp (argv[1], cases[i].name))
      c = &cases[i];
  method = argv[2];
  lib = argv[3];
  frames = argc > 4 ? atoi (argv[4]) : 4;
  reps = argc > 5 ? atoi (argv[5]) : 3;
  n_threads = argc > 6 ? atoi (argv[6]) : 1;
  m = !strcmp (method, "area") ? STAGE_RESIZE_AREA :
      !strcmp (method, "nearest") ? STAGE_RESIZE_NEAREST :
      !strcmp (method, "bilinear") ? STAGE_RESIZE_BILINEAR : -1;
  if (!c || (int) m < 0 || frames < 1 || reps < 1
      || n_threads < 1 || n_threads > 64) {
    fprintf (stderr, "bad arguments\n");
    return 2;
  }
  if (argc > 7 && !(in = fopen (argv[7], "rb"))) {
    perror (argv[7]);
    return 1;
  }

  src = calloc (frames, sizeof (Frame));
  for (i = 0; i < frames; i++) {
    frame_alloc (&src[i], c, c->sw, c->sh);
    if (!in || frame_read (&src[i], c, in) < 0)
      frame_fill (&src[i], c, i);
  }
  if (in)
    fclose (in);
  frame_alloc (&dst, c, c->dw, c->dh);

  if (!strcmp (lib, "stage") || !strcmp (lib, "floor")) {
    stage_init (&stage, c, &src[0], &dst, m, n_threads);
    stage.floor = !strcmp (lib, "floor");
  } else if (!strcmp (lib, "swscale"))
    sws = sws_getContext (c->sw, c->sh, sws_format (c), c->dw, c->dh,
        sws_format (c), m == STAGE_RESIZE_AREA ? SWS_AREA :
        m == STAGE_RESIZE_NEAREST ? SWS_POINT : SWS_BILINEAR, NULL, NULL,
        NULL);
  else if (strcmp (lib, "libyuv") && strcmp (lib, "none")) {
    fprintf (stderr, "unknown library %s\n", lib);
    return 2;
  }

  c0 = now (CLOCK_PROCESS_CPUTIME_ID);
  w0 = now (CLOCK_MONOTONIC);
  for (r = 0; r < reps; r++)
    bench_pass (lib, c, &stage, sws, src, frames, &dst, m);
  cpu = (now (CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3 / (frames * reps);
  wall = (now (CLOCK_MONOTONIC) - w0) * 1e3 / (frames * reps);

  /* Quality of the last frame's result. */
  q = 0;
  if (strcmp (lib, "none") && strcmp (lib, "floor") &&
      !getenv ("RESIZE_BENCH_NO_PSNR")) {
    frame_alloc (&ref, c, c->dw, c->dh);
    for (i = 0; i < c->n_planes; i++)
      ref_plane (src[frames - 1].p[i], src[frames - 1].w[i],
          src[frames - 1].h[i], src[frames - 1].stride[i], c->channels[i],
          ref.p[i], ref.w[i], ref.h[i], ref.stride[i]);
    q = psnr (&dst, &ref, c);
    frame_free (&ref);
  }
  printf ("%s %s %s %.3f %.3f %.2f\n", lib, c->name, method, cpu, wall, q);

  if (!strcmp (lib, "stage") || !strcmp (lib, "floor"))
    stage_finish (&stage);
  if (sws)
    sws_freeContext (sws);
  for (i = 0; i < frames; i++)
    frame_free (&src[i]);
  free (src);
  frame_free (&dst);
  return 0;
}
