/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stream-shape ops that change how many elements a stream has: Scanner's
 * Slice partitioners (groups of frame indices, possibly overlapping) and
 * the slot timing of Repeat / RepeatNull (Scanner's SpaceRepeat and
 * SpaceNull samplers).
 *
 * Plain C, no GLib, like select.h. A partition is a list of groups; group g
 * is the half-open index range [start, end) walked with a stride:
 * start, start + stride, ... < end. Two ways to build one, after Scanner's
 * partitioners:
 *
 * - ranges "0:15,5:25,15:35" with a stride (StridedRanges): one group per
 *   range, in the order written. Groups may overlap (a frame then belongs
 *   to several groups, and is emitted once per group), but their starts
 *   must not decrease: a stream is read once, front to back, so a group
 *   that began before the previous one would need frames already gone.
 * - size N and stride S (Strided): the frames 0, S, 2S, ... in consecutive
 *   groups of N; group g covers [g*N*S, (g+1)*N*S). Unbounded: the last
 *   group of a finite stream is partial.
 *
 * Errors as in select.h: NULL and a malloc'ed message in *error.
 */
#ifndef __STAGE_SLICE_H__
#define __STAGE_SLICE_H__

#include <stdint.h>

#include "select.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct StageSlice StageSlice;

StageSlice *stage_slice_parse_ranges (const char *text, uint64_t stride,
    char **error);
StageSlice *stage_slice_new_strided (uint64_t size, uint64_t stride,
    char **error);
void stage_slice_free (StageSlice *sl);

/* The number of groups, or STAGE_SELECT_NONE for size/stride (no end). */
uint64_t stage_slice_n_groups (const StageSlice *sl);

/* Group @g as [*start, *end) with *stride; -1 when there is no group @g. */
int stage_slice_group (const StageSlice *sl, uint64_t g, uint64_t *start,
    uint64_t *end, uint64_t *stride);

/* Whether frame @index is a member of group @g. */
int stage_slice_contains (const StageSlice *sl, uint64_t g, uint64_t index);

/* The position of member @index inside group @g (0 for its first frame). */
uint64_t stage_slice_position (const StageSlice *sl, uint64_t g,
    uint64_t index);

/* The last member of group @g, or STAGE_SELECT_NONE for no such group. */
uint64_t stage_slice_last (const StageSlice *sl, uint64_t g);

/* Whether frame @index is a member of any group after @g: a slice reading
 * group @g keeps such a frame for later. */
int stage_slice_needed_after (const StageSlice *sl, uint64_t g,
    uint64_t index);

/* The first group not complete once frame @index arrives (its last member
 * is >= @index), STAGE_SELECT_NONE when every group is: where reading
 * resumes after a seek to @index. */
uint64_t stage_slice_first_open (const StageSlice *sl, uint64_t index);

/* Slot @k of @repeat that one input element of duration @dur at @pts is
 * split into: the slots tile [pts, pts + dur) exactly, without rounding
 * drift, so the output is a regular stream at @repeat times the rate. */
void stage_repeat_slot (uint64_t pts, uint64_t dur, uint64_t k,
    uint64_t repeat, uint64_t *slot_pts, uint64_t *slot_dur);

#ifdef __cplusplus
}
#endif

#endif /* __STAGE_SLICE_H__ */
