/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the sizes on which every kernel path of ops/resize.c is
 * compared with the scalar one, shared by tests/test_ops_resize.c (the
 * paths of this CPU) and tests/resize-paths.c (built for arm64 too, run
 * under qemu): src_w, src_h, dst_w, dst_h. */
#ifndef __RESIZE_CASES_H__
#define __RESIZE_CASES_H__

static const int resize_path_cases[][4] = {
  {1920, 1080, 640, 480}, {1280, 720, 1920, 1080}, {640, 360, 321, 181},
  {97, 61, 31, 29}, {31, 17, 47, 33}, {15, 9, 7, 20}, {33, 35, 16, 70},
  {8, 8, 3, 3}, {5, 3, 2, 1}, {1, 1, 40, 33}, {300, 200, 13, 9},
  {160, 90, 159, 91}, {65, 130, 64, 129}, {2000, 40, 37, 39},
  {40, 2000, 39, 37}, {33, 3000, 16, 5},
  /* exact 2:1 (box and triangle kernels; interiors shorter than, equal to
   * and past one vector block of each path) */
  {960, 540, 480, 270}, {66, 34, 33, 17}, {30, 6, 15, 3}, {6, 6, 3, 3},
  {36, 8, 18, 4}, {68, 10, 34, 5}, {146, 12, 73, 6}, {3840, 16, 1920, 8},
  /* two taps per axis: whole and partial groups of four, starts stepping
   * by 2 (area 2:1 across), rows too short for a vector block */
  {128, 72, 192, 108}, {100, 50, 150, 75}, {9, 6, 13, 10}, {128, 20, 64, 30},
  {5, 4, 7, 9}, {3, 5, 5, 9}, {1000, 30, 1999, 59},
  /* enlargements whose starts repeat every 1, 2 or 3 groups of four (2x,
   * 4/3, 3/2; AVX2's repeating run), long and barely two periods */
  {960, 8, 1920, 16}, {480, 6, 640, 8}, {200, 4, 300, 6}, {12, 4, 24, 8},
  {18, 3, 27, 5},
  /* exact 3:1 across (one channel: hpass_s16_step3 on the interior):
   * interiors of 16, 17 and 47 outputs, one shorter than its block */
  {1920, 1080, 640, 360}, {54, 7, 18, 3}, {57, 9, 19, 4}, {147, 6, 49, 2},
  {45, 5, 15, 5}, {3, 3, 1, 1}, {3000, 4, 1000, 4},
};

#define N_RESIZE_PATH_CASES \
  (sizeof (resize_path_cases) / sizeof (resize_path_cases[0]))

#endif /* __RESIZE_CASES_H__ */
