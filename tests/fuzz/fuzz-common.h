/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the libFuzzer targets: a NUL-terminated copy of the input and
 * a UTF-8 check for the messages the parsers return. */
#ifndef __FUZZ_COMMON_H__
#define __FUZZ_COMMON_H__

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char *
fuzz_text (const uint8_t * data, size_t size)
{
  char *s = malloc (size + 1);

  if (s == NULL)
    abort ();
  memcpy (s, data, size);
  s[size] = '\0';
  return s;
}

/* Aborts (a finding) unless @s is valid UTF-8: every message must be. */
static void
fuzz_assert_utf8 (const char *s)
{
  const unsigned char *u = (const unsigned char *) s;

  while (*u) {
    size_t n, i;

    if (*u < 0x80) {
      u++;
      continue;
    }
    if (*u >= 0xC2 && *u <= 0xDF)
      n = 2;
    else if (*u >= 0xE0 && *u <= 0xEF)
      n = 3;
    else if (*u >= 0xF0 && *u <= 0xF4)
      n = 4;
    else
      abort ();
    if ((*u == 0xE0 && u[1] < 0xA0) || (*u == 0xED && u[1] > 0x9F) ||
        (*u == 0xF0 && u[1] < 0x90) || (*u == 0xF4 && u[1] > 0x8F))
      abort ();
    for (i = 1; i < n; i++)
      if (u[i] < 0x80 || u[i] > 0xBF)
        abort ();
    u += n;
  }
}

#endif /* __FUZZ_COMMON_H__ */
