/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: stage_select_parse_indices() (stagegather's indices).
 * A parsed list is walked: strictly increasing, each index kept, the last
 * one is stage_select_last(). */
#include "fuzz-common.h"
#include "select.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  char *text = fuzz_text (data, size), *err = NULL;
  StageSelect *sel = stage_select_parse_indices (text, &err);

  if (sel == NULL) {
    if (err == NULL)
      abort ();
    fuzz_assert_utf8 (err);
  } else {
    uint64_t next = stage_select_next (sel, 0), last = next;
    unsigned n = 0;

    while (next != STAGE_SELECT_NONE && n++ < 1000) {
      if (!stage_select_keep (sel, next))
        abort ();
      last = next;
      if (next == UINT64_MAX - 1)
        break;
      next = stage_select_next (sel, next + 1);
      if (next != STAGE_SELECT_NONE && next <= last)
        abort ();
    }
    if (next == STAGE_SELECT_NONE && last != stage_select_last (sel))
      abort ();
  }
  free (err);
  stage_select_free (sel);
  free (text);
  return 0;
}
