/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frame-index selection for the stagestride, stagerange and stagegather
 * elements (Scanner's Stride, Range/Ranges/StridedRange and Gather).
 *
 * Plain C, no GLib: the elements build a StageSelect once when they start
 * and then ask, per frame, only for the next index to keep. Asking for the
 * next kept index (rather than "keep this one?") is what lets an element end
 * the stream the moment nothing later can match, and makes each decision
 * O(1) for strides and ranges and O(log n) for gather lists.
 *
 * A selection is a set of frame indices: output is always in stream order
 * and a frame is kept at most once, however the text lists it (an unsorted
 * or repeated gather list, overlapping ranges).
 *
 * Errors: the parse functions return NULL and store in *error a message
 * (allocated with malloc, release it with free()) that quotes the offending
 * token, e.g. "'5:3': the end 3 is before the start 5".
 */
#ifndef __STAGE_SELECT_H__
#define __STAGE_SELECT_H__

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "No such index": returned by stage_select_next() once nothing can match.
 * Indices themselves are therefore limited to STAGE_SELECT_NONE - 1. */
#define STAGE_SELECT_NONE UINT64_MAX

typedef struct StageSelect StageSelect;

/* offset, offset + stride, offset + 2 * stride, ... without end. stride >= 1
 * (returns NULL for 0). */
StageSelect *stage_select_new_stride (uint64_t offset, uint64_t stride);

/* "a:b,c:d,...": half-open ranges [a, b) as in Scanner, each walked with
 * @stride from its start (a, a + stride, ... < b). Blanks around numbers are
 * allowed. NULL or blank text means the whole stream ("0:infinity").
 * Refused: non-numbers, negative numbers, b <= a, empty entries, stride 0. */
StageSelect *stage_select_parse_ranges (const char *text, uint64_t stride,
    char **error);

/* A list of indices separated by commas and/or white space (spaces, tabs,
 * newlines); '#' starts a comment that runs to the end of the line, so a
 * file with one index per line and comments parses as is. Unsorted lists
 * and duplicates are accepted (the result is a set). Refused: any token
 * that is not a non-negative decimal integer, and a list with no index. */
StageSelect *stage_select_parse_indices (const char *text, char **error);

/* The most text an indices file may hold: 64 MiB, about 8 million indices
 * of 7 digits. More is refused, not read: a list that large is a mistake
 * (or an endless device such as /dev/zero), and reading it would take
 * memory without bound. */
#define STAGE_SELECT_INDICES_DATA_MAX ((size_t) 64 * 1024 * 1024)

/* Like stage_select_parse_indices() on @len bytes that need not end in a
 * NUL (the contents of an indices file); a NUL byte among them is refused
 * as binary content, naming its byte offset, and more than
 * STAGE_SELECT_INDICES_DATA_MAX bytes as too large. */
StageSelect *stage_select_parse_indices_data (const char *data, size_t len,
    char **error);

/* A copy of @len bytes of @s for quoting in a message (free() it): valid
 * UTF-8 whatever the input, at most @max input bytes then "..." (never
 * cutting a multibyte character), bytes that are not text (invalid UTF-8,
 * control characters) shown as \xNN. NULL when out of memory. */
char *stage_select_quote (const char *s, size_t len, size_t max);

void stage_select_free (StageSelect *sel);

/* The smallest kept index >= @index, or STAGE_SELECT_NONE when no index
 * >= @index can match (the selection is exhausted from @index on). */
uint64_t stage_select_next (const StageSelect *sel, uint64_t index);

/* Whether frame @index is kept. */
int stage_select_keep (const StageSelect *sel, uint64_t index);

/* Whether no index >= @index can match. */
int stage_select_exhausted (const StageSelect *sel, uint64_t index);

/* 1 when the kept frames are every *stride-th frame of one contiguous run
 * of input frames, so a constant input rate gives a constant output rate of
 * rate / *stride; 0 when the output rate is irregular (several ranges, any
 * gather list). A gather list is always reported irregular, even when its
 * indices happen to be evenly spaced, so the caps an element announces do
 * not depend on the contents of a list. */
int stage_select_regular (const StageSelect *sel, uint64_t *stride);

/* The largest kept index, or STAGE_SELECT_NONE when the selection has no
 * end (a stride). */
uint64_t stage_select_last (const StageSelect *sel);

/* The spans of a stride or ranges selection, in the order the text listed
 * them (stage_select_parse_ranges keeps that order; the set semantics above
 * only apply to stage_select_next): how many, and span @i as [*start, *end)
 * walked with *stride (*end is STAGE_SELECT_NONE for a stride). 0 spans for
 * a gather list. Used by the slice partitioner (slice.h), whose groups are
 * these spans taken one by one. */
size_t stage_select_n_spans (const StageSelect *sel);
int stage_select_get_span (const StageSelect *sel, size_t i,
    uint64_t *start, uint64_t *end, uint64_t *stride);

#ifdef __cplusplus
}
#endif

#endif /* __STAGE_SELECT_H__ */
