/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spread-summary: reads stageprof's summary JSON (summary=FILE.json). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <json-glib/json-glib.h>

#include "spread.h"
#include "spmerge.h"
#include "spjson.h"

static gdouble
num (JsonObject * o, const gchar * f)
{
  JsonNode *n = json_object_get_member (o, f);

  if (!n || !JSON_NODE_HOLDS_VALUE (n))
    return NAN;
  switch (json_node_get_value_type (n)) {
    case G_TYPE_INT64:
      return (gdouble) json_node_get_int (n);
    case G_TYPE_DOUBLE:
      return json_node_get_double (n);
    case G_TYPE_BOOLEAN:
      return json_node_get_boolean (n);
    default:
      return NAN;
  }
}

/* Strings, and numbers (a run id) as text. */
static gchar *
str (JsonObject * o, const gchar * f)
{
  JsonNode *n = json_object_get_member (o, f);

  if (!n || !JSON_NODE_HOLDS_VALUE (n))
    return NULL;
  if (json_node_get_value_type (n) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (n));
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (n));
  return NULL;
}

static JsonArray *
rows (JsonObject * root, const gchar * f)
{
  JsonNode *n = json_object_get_member (root, f);

  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

/* Every column of the kind's schema that the row objects carry; a row
 * without a name is left out. */
static void
read_rows (JsonObject * root, const SpRowKind * k, GPtrArray * dst)
{
  JsonArray *a = rows (root, k->schema->name);

  for (guint i = 0; a && i < json_array_get_length (a); i++) {
    JsonNode *n = json_array_get_element (a, i);
    JsonObject *o = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) :
        NULL;
    gpointer row;

    if (!o)
      continue;
    row = sp_row_new (k);
    for (guint c = 0; c < k->schema->n_cols; c++) {
      const SpColumn *col = &k->schema->cols[c];
      if (sp_col_is_text (col))
        sp_row_take_text (k, row, c, str (o, col->key));
      else
        sp_row_set_num (k, row, c, num (o, col->key));
    }
    if (sp_row_text (k, row, 0))
      g_ptr_array_add (dst, row);
    else
      sp_row_free (k, row);
  }
}

/* The tracer's verdict of each pipeline and run ("pipelines" rows). */
static void
add_verdicts (JsonObject * o, SpProfile * p)
{
  JsonArray *a = rows (o, "pipelines");

  for (guint i = 0; a && i < json_array_get_length (a); i++) {
    JsonNode *n = json_array_get_element (a, i);
    JsonObject *r = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) :
        NULL;
    gchar *pipe = r ? str (r, "pipeline") : NULL, *run = r ? str (r, "run") :
        NULL, *v = r ? str (r, "verdict") : NULL;

    if (pipe && v) {
      if (run)
        g_hash_table_replace (p->verdicts, g_strdup_printf ("%s\x1f%s", pipe,
                run), g_strdup (v));
      /* rows come run by run: the last one seen is the latest */
      g_hash_table_replace (p->verdicts, g_strdup (pipe), g_strdup (v));
    }
    g_free (pipe);
    g_free (run);
    g_free (v);
  }
}

static void
add_rows (JsonObject * o, SpProfile * p)
{
  add_verdicts (o, p);
  read_rows (o, &sp_elem_kind, p->elements);
  read_rows (o, &sp_queue_kind, p->queues);
  read_rows (o, &sp_thread_kind, p->threads);
  read_rows (o, &sp_sink_kind, p->sinks);
  read_rows (o, &sp_latency_kind, p->latency);
  read_rows (o, &sp_elem_latency_kind, p->element_latency);
  read_rows (o, &sp_pool_kind, p->pools);
  read_rows (o, &sp_memory_kind, p->memory);
}

gboolean
sp_summary_text_rows (SpProfile * p, const gchar * text, gchar ** verdict,
    gchar ** pipeline)
{
  JsonParser *parser = json_parser_new ();
  JsonNode *root;
  JsonObject *o;
  gboolean ok = FALSE;

  if (json_parser_load_from_data (parser, text, -1, NULL)
      && (root = json_parser_get_root (parser)) != NULL
      && JSON_NODE_HOLDS_OBJECT (root)
      && rows (o = json_node_get_object (root), "elements")) {
    add_rows (o, p);
    p->wall_s = num (o, "wall_s");
    *verdict = str (o, "verdict");
    *pipeline = str (o, "pipeline");
    ok = TRUE;
  }
  g_object_unref (parser);
  return ok;
}

SpProfile *
sp_read_summary_json (const gchar * path, GError ** error)
{
  JsonParser *parser = json_parser_new ();
  GError *err = NULL;
  JsonNode *root;
  JsonObject *o;
  SpProfile *p;

  if (!sp_json_load_file (parser, path, &err)) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_MALFORMED,
        "%s: not valid JSON (%s); a summary file is rewritten whole at each "
        "stop, so a damaged one was not written by stageprof", path,
        err->message);
    g_clear_error (&err);
    g_object_unref (parser);
    return NULL;
  }
  root = json_parser_get_root (parser);
  o = root && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) :
      NULL;
  if (!o || !json_object_has_member (o, "elements")
      || !rows (o, "elements")) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NOT_STAGEPROF,
        "%s: a JSON file, but not a stageprof summary (no \"elements\" "
        "array)", path);
    g_object_unref (parser);
    return NULL;
  }

  p = sp_profile_new (path, SP_SOURCE_SUMMARY);
  p->wall_s = num (o, "wall_s");
  p->verdict = str (o, "verdict");
  add_rows (o, p);
  g_object_unref (parser);
  if (p->elements->len == 0) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_EMPTY,
        "%s: a stageprof summary with no element rows (no buffer went "
        "through the pipeline?)", path);
    sp_profile_free (p);
    return NULL;
  }
  return p;
}
