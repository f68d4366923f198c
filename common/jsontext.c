/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON text for every writer of the project. See jsontext.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "jsontext.h"

/* Valid UTF-8 in [p, end): escaped byte by byte (multi-byte characters
 * pass through as they are). The tracer's writer thread calls this for
 * every new name, so no per-character decoding. */
static void
escape_valid (GString * out, const gchar * p, const gchar * end)
{
  static const gchar hex[] = "0123456789abcdef";

  for (; p < end; p++) {
    guchar ch = (guchar) * p;
    if (ch == '"' || ch == '\\') {
      g_string_append_c (out, '\\');
      g_string_append_c (out, ch);
    } else if (ch < 0x20) {
      gchar u[6] = { '\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15] };
      g_string_append_len (out, u, 6);
    } else {
      g_string_append_c (out, ch);
    }
  }
}

void
stage_json_escape (GString * out, const gchar * s)
{
  const gchar *p = s, *end;

  if (s == NULL)
    return;
  while (!g_utf8_validate (p, -1, &end)) {
    escape_valid (out, p, end);
    g_string_append (out, "\xef\xbf\xbd");      /* U+FFFD */
    p = end + 1;
  }
  escape_valid (out, p, end);
}

void
stage_json_str (GString * out, const gchar * s)
{
  if (s == NULL) {
    g_string_append (out, "null");
    return;
  }
  g_string_append_c (out, '"');
  stage_json_escape (out, s);
  g_string_append_c (out, '"');
}

void
stage_json_num (GString * out, gdouble v, gint digits)
{
  gchar fmt[8], buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v)) {
    g_string_append (out, "null");
    return;
  }
  g_snprintf (fmt, sizeof (fmt), "%%.%dg", CLAMP (digits, 1, 17));
  g_string_append (out, g_ascii_formatd (buf, sizeof (buf), fmt, v));
}

const gchar *
stage_json_skip_bom (const gchar * text, gsize * len)
{
  if (*len >= 3 && memcmp (text, "\xef\xbb\xbf", 3) == 0) {
    *len -= 3;
    return text + 3;
  }
  return text;
}

guint
stage_json_depth (const gchar * text, gsize len)
{
  guint depth = 0, max = 0;
  gboolean in_str = FALSE;

  for (gsize i = 0; i < len; i++) {
    gchar c = text[i];

    if (in_str) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_str = FALSE;
    } else if (c == '"') {
      in_str = TRUE;
    } else if (c == '[' || c == '{') {
      if (++depth > max)
        max = depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return max;
}
