/* spjson: JSON text for the tools' writers. See spjson.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "spjson.h"

void
sp_json_str (GString * out, const gchar * s)
{
  const gchar *p = s;

  if (!s) {
    g_string_append (out, "null");
    return;
  }
  g_string_append_c (out, '"');
  while (*p) {
    gunichar c = g_utf8_get_char_validated (p, -1);
    if (c == (gunichar) - 1 || c == (gunichar) - 2) {
      g_string_append (out, "\\ufffd");
      p++;
      continue;
    }
    if (c == '"' || c == '\\')
      g_string_append_printf (out, "\\%c", (gchar) c);
    else if (c < 0x20)
      g_string_append_printf (out, "\\u%04x", c);
    else
      g_string_append_len (out, p, g_utf8_next_char (p) - p);
    p = g_utf8_next_char (p);
  }
  g_string_append_c (out, '"');
}

void
sp_json_num (GString * out, gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (v) || isinf (v))
    g_string_append (out, "null");
  else
    g_string_append (out, g_ascii_formatd (buf, sizeof (buf), "%.10g", v));
}
