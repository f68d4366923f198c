/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: separable resampling of 8-bit image planes.
 *
 * Plain C, no GLib: the stageresize element and the unit tests link it.
 *
 * One plane = rows of `width` pixels, each pixel `channels` (1..4)
 * interleaved 8-bit samples (a planar Y/U/V plane: 1, NV12's UV plane: 2,
 * RGB: 3, RGBA and friends: 4). Every channel is filtered independently.
 *
 * Definitions (the unit tests implement them again in double precision):
 *
 *  - Coordinates are pixel-centre aligned: output pixel x maps to the source
 *    position  sx = (x + 0.5) * scale - 0.5,  scale = in_size / out_size,
 *    where source pixel i has its centre at i.
 *  - nearest: source pixel i = floor ((x + 0.5) * scale), computed exactly in
 *    integers as ((2x + 1) * in) / (2 * out), clamped to [0, in - 1].
 *  - bilinear: triangle kernel max (0, 1 - |t|); bicubic: Keys' cubic with
 *    a = -0.5. When shrinking (scale > 1) the kernel is stretched by `scale`
 *    (t = (i - sx) / scale), so every source pixel contributes and the
 *    result is antialiased, as in swscale and Pillow. When enlarging the
 *    kernel keeps its size.
 *  - area: exact box average. Output pixel x covers [x * scale, (x+1) * scale)
 *    in source edge coordinates (pixel i covers [i, i+1)); each source pixel
 *    weighs its overlap with that footprint divided by scale. This holds for
 *    shrinking and enlarging alike.
 *  - Edges: taps that fall outside the image are dropped and the remaining
 *    weights renormalised to sum to one.
 *
 * Implementation: the weights are computed once per size (a plan) in double
 * precision and quantised to Q14 so that each output pixel's weights sum
 * to exactly 16384 (a flat image stays flat). One pass filters the cheap
 * axis first into 16-bit rows with 6 fractional bits, the second pass
 * rounds to 8 bits with saturation; the order (horizontal or vertical first)
 * follows from the sizes only, so every row slice computes the same bits.
 */
#ifndef __RESIZE_H__
#define __RESIZE_H__

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  STAGE_RESIZE_NEAREST = 0,
  STAGE_RESIZE_BILINEAR = 1,
  STAGE_RESIZE_AREA = 2,
  STAGE_RESIZE_BICUBIC = 3,
} StageResizeMethod;

/* Largest width or height a plan accepts. */
#define STAGE_RESIZE_MAX_SIZE 32768

/* Fixed-point precision of the filter weights. */
#define STAGE_RESIZE_WEIGHT_BITS 14

/* Filter taps for one axis: output i reads inputs start[i] .. start[i]+n_taps-1
 * with weights[i * n_taps + k] (Q14, summing to 1 << 14). */
typedef struct {
  int in_size;
  int out_size;
  int n_taps;
  int32_t *start;
  int16_t *weights;
} StageResizeTaps;

typedef struct StageResizePlan StageResizePlan;

/* Builds the taps for one axis. Returns 0, or -1 for bad sizes or method
 * (sizes must be in 1..STAGE_RESIZE_MAX_SIZE). Release with
 * stage_resize_taps_clear(). */
int stage_resize_taps_init (StageResizeTaps * taps, int in_size, int out_size,
    StageResizeMethod method);
void stage_resize_taps_clear (StageResizeTaps * taps);

/* The exact (double precision, unquantised) weight that output `out_index`
 * gives to input `in_index`, by the definitions above. For tests and docs. */
double stage_resize_weight (int in_size, int out_size,
    StageResizeMethod method, int out_index, int in_index);

/* A plan for resizing one plane of src_w x src_h to dst_w x dst_h pixels
 * of `channels` samples. NULL on bad arguments or out of memory. */
StageResizePlan *stage_resize_plan_new (int src_w, int src_h, int dst_w,
    int dst_h, int channels, StageResizeMethod method);
void stage_resize_plan_free (StageResizePlan * plan);

/* How a plan computes, so that other back ends (CUDA) can give the same
 * bytes from the same taps:
 *  - NEAREST: dst = src[ty.start[y]][tx.start[x]] (one tap, weight 1).
 *  - VERTICAL_FIRST: for each needed source column i,
 *      m = (sum_k wy[k] * src[ty.start[y] + k][i] + (1 << 7)) >> 8   (int32
 *      sum, m is int16 Q6), then
 *      dst = clamp ((sum_i wx[i] * m_i + (1 << 19)) >> 20, 0, 255).
 *  - HORIZONTAL_FIRST: the same with the axes swapped (rows filtered
 *      horizontally to Q6 first, then blended vertically).
 * Shifts are arithmetic; all sums are exact in int32. */
typedef enum {
  STAGE_RESIZE_ORDER_NEAREST = 0,
  STAGE_RESIZE_ORDER_VERTICAL_FIRST = 1,
  STAGE_RESIZE_ORDER_HORIZONTAL_FIRST = 2,
} StageResizeOrder;

StageResizeOrder stage_resize_plan_order (const StageResizePlan * plan);

/* Which row kernels a plan runs, for tests and logs: "nearest", "box2"
 * (exact 2:1 box), "tri2" (bilinear at exactly 2:1), "two-tap" (the
 * horizontal-first passes in 16-bit arithmetic, for bilinear and area with
 * two taps per axis, as when enlarging up to 2x), "vertical-first" or
 * "horizontal-first" (the general passes). The bytes are the contract's
 * whichever it is. */
const char *stage_resize_plan_kernel (const StageResizePlan * plan);

/* The plan's taps: axis 0 = horizontal (x), 1 = vertical (y). */
const StageResizeTaps *stage_resize_plan_taps (const StageResizePlan * plan,
    int axis);

/* Bytes of scratch memory one call of stage_resize_plan_run() needs. Each
 * thread that runs a slice needs its own scratch. */
size_t stage_resize_plan_scratch_size (const StageResizePlan * plan);

/* Computes output rows [y0, y1) (0 <= y0 <= y1 <= dst_h). Slices are
 * independent: any partition of the rows gives the same bytes as one call.
 * `scratch` must hold stage_resize_plan_scratch_size() bytes, 64-byte
 * alignment helps. Strides are in bytes. */
void stage_resize_plan_run (const StageResizePlan * plan,
    const uint8_t * src, ptrdiff_t src_stride,
    uint8_t * dst, ptrdiff_t dst_stride, int y0, int y1, void *scratch);

/* Convenience: allocate a plan and scratch, resize the whole plane, free.
 * Returns 0 or -1. */
int stage_resize_plane (const uint8_t * src, int src_w, int src_h,
    ptrdiff_t src_stride, uint8_t * dst, int dst_w, int dst_h,
    ptrdiff_t dst_stride, int channels, StageResizeMethod method);

const char *stage_resize_method_name (StageResizeMethod method);

/* Kernel paths ("SIMD paths"): "scalar" (portable C, any CPU), "sse41" and
 * "avx2" on x86, "neon" on arm64. All give the same bytes. By default a
 * plan uses the fastest path the CPU supports; the environment variable
 * STAGES_RESIZE_SIMD=<path>, read once, forces one (a path this CPU lacks
 * falls back to the best one, with a line on stderr). */

/* NULL-terminated list of the paths compiled in, slowest first. */
const char *const *stage_resize_simd_paths (void);

/* The path plans made now use. */
const char *stage_resize_simd_path (void);

/* 1 if `path` is compiled in and this CPU runs it, else 0. */
int stage_resize_simd_available (const char *path);

/* Makes plans created from now on use `path` (NULL: back to the automatic
 * choice). Returns 0, or -1 (nothing changed) when the path is unknown or
 * this CPU lacks it. For tests and benchmarks; existing plans keep theirs. */
int stage_resize_simd_select (const char *path);

#ifdef __cplusplus
}
#endif
#endif /* __RESIZE_H__ */
