/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: stage_select_parse_ranges() (stagerange's ranges).
 * The first byte picks the stride; a parsed selection is walked and must
 * be strictly increasing and agree with stage_select_keep(). */
#include "fuzz-common.h"
#include "select.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  uint64_t stride, i, prev = 0, next;
  char *text, *err = NULL;
  StageSelect *sel;
  int first = 1;

  if (size == 0)
    return 0;
  stride = 1 + data[0] % 16;
  text = fuzz_text (data + 1, size - 1);
  sel = stage_select_parse_ranges (text, stride, &err);
  if (sel == NULL) {
    if (err == NULL)
      abort ();                 /* a refusal always says why */
    fuzz_assert_utf8 (err);
  } else {
    if (err != NULL)
      abort ();
    for (i = 0, next = stage_select_next (sel, 0); i < 64
        && next != STAGE_SELECT_NONE; i++) {
      if (!first && next <= prev)
        abort ();
      if (!stage_select_keep (sel, next))
        abort ();
      first = 0;
      prev = next;
      next = next == UINT64_MAX - 1 ? STAGE_SELECT_NONE
          : stage_select_next (sel, next + 1);
    }
    (void) stage_select_last (sel);
    (void) stage_select_regular (sel, NULL);
  }
  free (err);
  stage_select_free (sel);
  free (text);
  return 0;
}
