/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: stage_select_parse_indices_data(), the contents of an
 * indices-file as read from disk (any bytes, no terminating NUL). A NUL
 * byte must be refused, naming its offset; otherwise the result must equal
 * parsing the same bytes as a string. */
#include <stdio.h>

#include "fuzz-common.h"
#include "select.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const uint8_t *nul = memchr (data, 0, size);
  char *err = NULL, *err2 = NULL, *text;
  StageSelect *sel = stage_select_parse_indices_data ((const char *) data,
      size, &err), *sel2;

  if (nul != NULL) {
    char want[64];

    snprintf (want, sizeof (want), "byte offset %llu",
        (unsigned long long) (nul - data));
    if (sel != NULL || err == NULL || strstr (err, want) == NULL)
      abort ();
  } else {
    text = fuzz_text (data, size);
    sel2 = stage_select_parse_indices (text, &err2);
    if ((sel == NULL) != (sel2 == NULL))
      abort ();
    if (sel && stage_select_last (sel) != stage_select_last (sel2))
      abort ();
    if (err && (err2 == NULL || strcmp (err, err2) != 0))
      abort ();
    stage_select_free (sel2);
    free (err2);
    free (text);
  }
  if (err)
    fuzz_assert_utf8 (err);
  free (err);
  stage_select_free (sel);
  return 0;
}
