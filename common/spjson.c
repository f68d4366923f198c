/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spjson: JSON trees (json-glib) written and read the one way the tools
 * do (see spjson.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "spjson.h"
#include "jsontext.h"

#include <sys/stat.h>
#include <glib/gstdio.h>

static void
json_indent (GString * out, gint indent)
{
  if (indent >= 0) {
    g_string_append_c (out, '\n');
    for (gint i = 0; i < indent; i++)
      g_string_append (out, "  ");
  }
}

/* `indent` < 0: one line; else the depth of `n`, a line per member. */
static void
json_append (GString * out, JsonNode * n, gint digits, gint indent)
{
  gint inner = indent < 0 ? -1 : indent + 1;

  switch (JSON_NODE_TYPE (n)) {
    case JSON_NODE_OBJECT:{
      JsonObjectIter it;
      const gchar *k;
      JsonNode *v;
      gboolean first = TRUE;

      g_string_append_c (out, '{');
      json_object_iter_init (&it, json_node_get_object (n));
      while (json_object_iter_next (&it, &k, &v)) {
        if (!first)
          g_string_append_c (out, ',');
        first = FALSE;
        json_indent (out, inner);
        stage_json_str (out, k);
        g_string_append (out, indent < 0 ? ":" : ": ");
        json_append (out, v, digits, inner);
      }
      if (!first)
        json_indent (out, indent);
      g_string_append_c (out, '}');
      break;
    }
    case JSON_NODE_ARRAY:{
      JsonArray *a = json_node_get_array (n);
      guint i, len = json_array_get_length (a);

      g_string_append_c (out, '[');
      for (i = 0; i < len; i++) {
        if (i)
          g_string_append_c (out, ',');
        json_indent (out, inner);
        json_append (out, json_array_get_element (a, i), digits, inner);
      }
      if (len)
        json_indent (out, indent);
      g_string_append_c (out, ']');
      break;
    }
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (n)) {
        case G_TYPE_DOUBLE:
          stage_json_num (out, json_node_get_double (n), digits);
          break;
        case G_TYPE_INT64:
          g_string_append_printf (out, "%" G_GINT64_FORMAT,
              json_node_get_int (n));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (n) ? "true" : "false");
          break;
        case G_TYPE_STRING:
          stage_json_str (out, json_node_get_string (n));
          break;
        default:
          g_string_append (out, "null");
          break;
      }
      break;
    default:
      g_string_append (out, "null");
      break;
  }
}

gchar *
sp_json_to_string (JsonNode * node, gint digits, gboolean pretty)
{
  GString *out = g_string_new (NULL);

  json_append (out, node, digits, pretty ? 0 : -1);
  if (pretty)
    g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}

/* The whole file, refused before it is read when it is larger than a
 * summary or a record can be (a 2 GB file took 2.1 GB of memory before
 * "not valid JSON"). */
static gboolean
load_bounded (const gchar * path, gchar ** text, gsize * len, GError ** error)
{
  GStatBuf st;

  if (g_stat (path, &st) == 0 && S_ISREG (st.st_mode)
      && st.st_size > SP_JSON_FILE_MAX) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "'%s' is %.1f MB: a summary or record is at most %d MB (stageprof "
        "writes kilobytes); not read", path, st.st_size / 1e6,
        SP_JSON_FILE_MAX >> 20);
    return FALSE;
  }
  return g_file_get_contents (path, text, len, error);
}

gboolean
sp_json_load_file (JsonParser * parser, const gchar * path, GError ** error)
{
  gchar *text = NULL;
  const gchar *json;
  gsize len = 0;
  gboolean ok = FALSE;

  if (!load_bounded (path, &text, &len, error))
    return FALSE;
  json = stage_json_skip_bom (text, &len);
  if (stage_json_depth (json, len) > STAGE_JSON_MAX_DEPTH)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "arrays and objects nested more than %d deep",
        STAGE_JSON_MAX_DEPTH);
  else
    ok = json_parser_load_from_data (parser, json, len, error);
  g_free (text);
  return ok;
}
