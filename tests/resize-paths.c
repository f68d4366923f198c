/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: every kernel path of ops/resize.c against the scalar one, in
 * plain C (no GLib), so that it also builds for another architecture and
 * runs under an emulator: tests/resize-paths.sh builds it for arm64 and
 * runs the NEON path under qemu-aarch64 (test "ops_resize_neon").
 *
 *   resize-paths            all cases, every path this CPU runs
 *   resize-paths --paths    the paths this CPU runs, one a line
 *
 * Each case resizes a seeded image (smooth content, and random 0/255 edges
 * whose bicubic overshoot reaches both ends of the clamp) through
 * stage_resize_plan_run with padded strides, in one call and again in
 * five row slices, and compares the bytes. Prints one line per path and
 * exits 1 on the first difference, naming the case and the byte.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resize.h"
#include "resize-cases.h"

static uint32_t
next_random (uint32_t * state)
{
  /* xorshift32: the same images on every platform. */
  uint32_t x = *state;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

static uint8_t *
make_image (int w, int h, int c, uint32_t seed, int hard)
{
  uint8_t *p = malloc ((size_t) w * h * c);
  uint32_t s = seed * 2654435761u + 1;
  size_t i;

  for (i = 0; i < (size_t) w * h * c; i++) {
    if (hard) {
      p[i] = next_random (&s) & 1 ? 255 : 0;
    } else {
      size_t px = i / c;
      int x = (int) (px % w), y = (int) (px / w);
      p[i] = (uint8_t) ((x * 7 + y * 13 + (int) (i % c) * 50) ^
          (next_random (&s) & 15));
    }
  }
  return p;
}

/* The plane resized with the current path, as packed rows; slices > 1
 * splits the output rows into that many calls. */
static uint8_t *
run (const uint8_t * src, int sw, int sh, int dw, int dh, int c,
    StageResizeMethod m, int slices)
{
  const size_t ss = (size_t) sw * c + 13, ds = (size_t) dw * c + 7;
  uint8_t *s = calloc (ss, sh), *d = calloc (ds, dh);
  uint8_t *out = malloc ((size_t) dw * dh * c);
  StageResizePlan *plan = stage_resize_plan_new (sw, sh, dw, dh, c, m);
  void *scratch;
  int y, i;

  if (!s || !d || !out || !plan) {
    fprintf (stderr, "resize-paths: out of memory or plan refused for "
        "%dx%d -> %dx%d\n", sw, sh, dw, dh);
    exit (2);
  }
  scratch = malloc (stage_resize_plan_scratch_size (plan));
  for (y = 0; y < sh; y++)
    memcpy (s + y * ss, src + (size_t) y * sw * c, (size_t) sw * c);
  for (i = 0; i < slices; i++)
    stage_resize_plan_run (plan, s, ss, d, ds, dh * i / slices,
        dh * (i + 1) / slices, scratch);
  for (y = 0; y < dh; y++)
    memcpy (out + (size_t) y * dw * c, d + y * ds, (size_t) dw * c);
  stage_resize_plan_free (plan);
  free (scratch);
  free (s);
  free (d);
  return out;
}


static int
compare (const char *path, int *n_cases)
{
  StageResizeMethod m;
  size_t i;
  int c, hard, slices;

  for (m = STAGE_RESIZE_NEAREST; m <= STAGE_RESIZE_BICUBIC; m++)
    for (c = 1; c <= 4; c++)
      for (i = 0; i < N_RESIZE_PATH_CASES; i++)
        for (hard = 0; hard < 2; hard++) {
          const int *k = resize_path_cases[i];
          const size_t n = (size_t) k[2] * k[3] * c;
          uint8_t *src, *want, *got;
          size_t j;

          if (hard && k[0] * k[1] > 300000)
            continue;
          src = make_image (k[0], k[1], c, (uint32_t) (i * 3 + c), hard);
          stage_resize_simd_select ("scalar");
          want = run (src, k[0], k[1], k[2], k[3], c, m, 1);
          stage_resize_simd_select (path);
          for (slices = 1; slices <= 5; slices += 4) {
            got = run (src, k[0], k[1], k[2], k[3], c, m, slices);
            for (j = 0; j < n && want[j] == got[j]; j++);
            if (j < n) {
              printf ("%s path, %s %dx%d -> %dx%d, %d channels%s, %d "
                  "slice(s): byte %zu is %u, scalar gives %u\n", path,
                  stage_resize_method_name (m), k[0], k[1], k[2], k[3], c,
                  hard ? " (hard edges)" : "", slices, j, got[j], want[j]);
              return 1;
            }
            free (got);
            (*n_cases)++;
          }
          free (want);
          free (src);
        }
  return 0;
}

int
main (int argc, char **argv)
{
  const char *const *paths = stage_resize_simd_paths ();
  int p, status = 0, compared = 0;

  if (argc > 1 && strcmp (argv[1], "--paths") == 0) {
    for (p = 0; paths[p]; p++)
      if (stage_resize_simd_available (paths[p]))
        printf ("%s\n", paths[p]);
    return 0;
  }
  for (p = 0; paths[p]; p++) {
    int n_cases = 0;
    if (!stage_resize_simd_available (paths[p]) ||
        strcmp (paths[p], "scalar") == 0)
      continue;
    if (compare (paths[p], &n_cases) != 0) {
      status = 1;
      continue;
    }
    printf ("%s path: %d cases, every byte the scalar path's\n", paths[p],
        n_cases);
    compared++;
  }
  if (compared == 0 && status == 0) {
    printf ("no SIMD path on this CPU: nothing compared\n");
    return 77;
  }
  return status;
}
