/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Slice partitions and repeat slots; see slice.h for the model. */
#include "slice.h"
#include "select-private.h"

#include <stdlib.h>

struct StageSlice
{
  StageSelect *ranges;          /* the groups, NULL for size/stride */
  /* ranges: the largest last member among groups 0..g, so that a frame's
   * groups are binary searched (starts do not decrease), not scanned */
  uint64_t *maxlast;
  uint64_t n;                   /* groups, STAGE_SELECT_NONE: no end */
  uint64_t size, stride;        /* size/stride partition */
};

StageSlice *
stage_slice_parse_ranges (const char *text, uint64_t stride, char **error)
{
  StageSlice *sl;
  StageSelect *sel;
  uint64_t s, e, st, prev = 0;
  size_t i, n;

  if (error)
    *error = NULL;
  /* blank text would parse as "0:infinity": one endless group, which is no
   * partition at all; say so rather than slice nothing */
  if (stage_ops_text_is_blank (text)) {
    stage_ops_set_error (error, "no range given (expected e.g. 0:15,5:25,15:35)");
    return NULL;
  }
  sel = stage_select_parse_ranges (text, stride, error);
  if (sel == NULL)
    return NULL;
  n = stage_select_n_spans (sel);
  for (i = 0; i < n; i++) {
    stage_select_get_span (sel, i, &s, &e, &st);
    if (i > 0 && s < prev) {
      stage_ops_set_error (error, "range %zu (%llu:%llu) starts before range %zu "
          "(start %llu): groups are read front to back, so their starts "
          "must not decrease; list the ranges in order of their starts",
          i + 1, (unsigned long long) s, (unsigned long long) e, i,
          (unsigned long long) prev);
      stage_select_free (sel);
      return NULL;
    }
    prev = s;
  }
  sl = calloc (1, sizeof (StageSlice));
  if (sl == NULL) {
    stage_ops_set_error (error, "out of memory");
    stage_select_free (sel);
    return NULL;
  }
  sl->ranges = sel;
  sl->n = n;
  sl->maxlast = malloc ((n ? n : 1) * sizeof (uint64_t));
  if (sl->maxlast == NULL) {
    stage_ops_set_error (error, "out of memory");
    stage_slice_free (sl);
    return NULL;
  }
  for (i = 0; i < n; i++) {
    uint64_t l = stage_slice_last (sl, i);   /* ranges are never empty */

    sl->maxlast[i] = i > 0 && sl->maxlast[i - 1] > l ? sl->maxlast[i - 1] : l;
  }
  return sl;
}

StageSlice *
stage_slice_new_strided (uint64_t size, uint64_t stride, char **error)
{
  StageSlice *sl;

  if (error)
    *error = NULL;
  if (size == 0) {
    stage_ops_set_error (error, "size 0: a group must hold at least one frame");
    return NULL;
  }
  if (stride == 0) {
    stage_ops_set_error (error, "stride 0: the stride must be at least 1");
    return NULL;
  }
  sl = calloc (1, sizeof (StageSlice));
  if (sl == NULL) {
    stage_ops_set_error (error, "out of memory");
    return NULL;
  }
  sl->n = STAGE_SELECT_NONE;
  sl->size = size;
  sl->stride = stride;
  return sl;
}

void
stage_slice_free (StageSlice *sl)
{
  if (sl == NULL)
    return;
  stage_select_free (sl->ranges);
  free (sl->maxlast);
  free (sl);
}

uint64_t
stage_slice_n_groups (const StageSlice *sl)
{
  return sl ? sl->n : 0;
}

int
stage_slice_group (const StageSlice *sl, uint64_t g, uint64_t *start,
    uint64_t *end, uint64_t *stride)
{
  uint64_t span;

  if (sl == NULL || g >= sl->n)
    return -1;
  if (sl->ranges)
    return stage_select_get_span (sl->ranges, (size_t) g, start, end, stride);
  /* size/stride: groups beyond what an index can address do not exist */
  if (sl->size > (STAGE_SELECT_NONE - 1) / sl->stride)
    span = STAGE_SELECT_NONE - 1;
  else
    span = sl->size * sl->stride;
  if (g > (STAGE_SELECT_NONE - 1) / span - 1)
    return -1;
  *start = g * span;
  *end = *start + span;
  *stride = sl->stride;
  return 0;
}

int
stage_slice_contains (const StageSlice *sl, uint64_t g, uint64_t index)
{
  uint64_t s, e, st;

  if (stage_slice_group (sl, g, &s, &e, &st) != 0)
    return 0;
  return index >= s && index < e && (index - s) % st == 0;
}

uint64_t
stage_slice_position (const StageSlice *sl, uint64_t g, uint64_t index)
{
  uint64_t s, e, st;

  if (stage_slice_group (sl, g, &s, &e, &st) != 0 || index < s)
    return 0;
  return (index - s) / st;
}

uint64_t
stage_slice_last (const StageSlice *sl, uint64_t g)
{
  uint64_t s, e, st;

  if (stage_slice_group (sl, g, &s, &e, &st) != 0)
    return STAGE_SELECT_NONE;
  return s + (e - 1 - s) / st * st;
}

/* The first group (ranges) whose start is above @index: groups from it
 * on cannot hold @index. */
static uint64_t
groups_starting_after (const StageSlice *sl, uint64_t index)
{
  uint64_t lo = 0, hi = sl->n, s, e, st;

  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;

    stage_select_get_span (sl->ranges, (size_t) mid, &s, &e, &st);
    if (s <= index)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int
stage_slice_needed_after (const StageSlice *sl, uint64_t g, uint64_t index)
{
  uint64_t h;

  /* size/stride groups never overlap */
  if (sl == NULL || sl->ranges == NULL)
    return 0;
  /* back from the last group that starts at or before @index, while some
   * group up to there still reaches @index */
  for (h = groups_starting_after (sl, index); h > g + 1
      && sl->maxlast[h - 1] >= index; h--)
    if (stage_slice_contains (sl, h - 1, index))
      return 1;
  return 0;
}

uint64_t
stage_slice_first_open (const StageSlice *sl, uint64_t index)
{
  uint64_t g, s, e, st, lo = 0, hi;

  if (sl == NULL)
    return STAGE_SELECT_NONE;
  if (sl->ranges == NULL) {
    if (stage_slice_group (sl, 0, &s, &e, &st) != 0)
      return STAGE_SELECT_NONE;
    /* group g holds [g*span, (g+1)*span); its last member is below the
     * end, so a frame past it (stride > 1) belongs to the next group */
    g = index / e;
    return stage_slice_last (sl, g) >= index ? g : g + 1;
  }
  /* the first g with last(g) >= index is the first where the running
   * maximum of the lasts reaches it */
  hi = sl->n;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;

    if (sl->maxlast[mid] >= index)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo < sl->n ? lo : STAGE_SELECT_NONE;
}

void
stage_repeat_slot (uint64_t pts, uint64_t dur, uint64_t k, uint64_t repeat,
    uint64_t *slot_pts, uint64_t *slot_dur)
{
  /* dur * k / repeat without overflowing dur * k */
  uint64_t a = dur / repeat * k + dur % repeat * k / repeat;
  uint64_t b = dur / repeat * (k + 1) + dur % repeat * (k + 1) / repeat;

  *slot_pts = pts + a;
  *slot_dur = b - a;
}
