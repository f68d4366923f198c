/* spread-summary: reads stageprof's summary JSON (summary=FILE.json). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <json-glib/json-glib.h>

#include "spreport.h"

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

#define EACH_ROW(arr, o) \
  for (guint _i = 0; arr && _i < json_array_get_length (arr); _i++) \
    if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (arr, _i)) \
        && (o = json_node_get_object (json_array_get_element (arr, _i))))


SpProfile *
sp_read_summary_json (const gchar * path, GError ** error)
{
  JsonParser *parser = json_parser_new ();
  GError *err = NULL;
  JsonNode *root;
  JsonObject *o, *r;
  JsonArray *a;
  SpProfile *p;

  if (!json_parser_load_from_file (parser, path, &err)) {
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
  a = rows (o, "elements");
  EACH_ROW (a, r) {
    SpElemRow *e = g_new0 (SpElemRow, 1);
    e->name = str (r, "name");
    e->thread = str (r, "thread");
    e->pipeline = str (r, "pipeline");
    e->run = str (r, "run");
    e->count = num (r, "count");
    e->mean_ms = num (r, "mean_ms");
    e->std_ms = num (r, "std_ms");
    e->min_ms = num (r, "min_ms");
    e->max_ms = num (r, "max_ms");
    e->median_ms = num (r, "median_ms");
    e->p90_ms = num (r, "p90_ms");
    e->p99_ms = num (r, "p99_ms");
    e->total_s = num (r, "total_s");
    e->busy_pct = num (r, "busy_pct");
    if (e->name)
      g_ptr_array_add (p->elements, e);
    else
      g_free (e);
  }
  a = rows (o, "queues");
  EACH_ROW (a, r) {
    SpQueueRow *q = g_new0 (SpQueueRow, 1);
    q->name = str (r, "name");
    q->pipeline = str (r, "pipeline");
    q->run = str (r, "run");
    q->items = num (r, "items");
    q->qps = num (r, "qps");
    q->mean_level = num (r, "mean_level");
    q->max_level = num (r, "max_level");
    q->mean_bytes = num (r, "mean_bytes");
    q->max_bytes = num (r, "max_bytes");
    q->empty_pct = num (r, "empty_pct");
    q->full_pct = num (r, "full_pct");
    q->ave_put_ms = num (r, "ave_put_ms");
    q->ave_get_ms = num (r, "ave_get_ms");
    g_ptr_array_add (p->queues, q);
  }
  a = rows (o, "threads");
  EACH_ROW (a, r) {
    SpThreadRow *t = g_new0 (SpThreadRow, 1);
    t->name = str (r, "name");
    t->pipeline = str (r, "pipeline");
    t->run = str (r, "run");
    t->wall_s = num (r, "wall_s");
    t->busy_pct = num (r, "busy_pct");
    t->wait_input_pct = num (r, "wait_input_pct");
    t->wait_output_pct = num (r, "wait_output_pct");
    t->blocked_pct = num (r, "blocked_pct");
    t->cpu_wait_pct = num (r, "cpu_wait_pct");
    g_ptr_array_add (p->threads, t);
  }
  a = rows (o, "sinks");
  EACH_ROW (a, r) {
    SpSinkRow *k = g_new0 (SpSinkRow, 1);
    k->name = str (r, "name");
    k->pipeline = str (r, "pipeline");
    k->run = str (r, "run");
    k->frames = num (r, "frames");
    k->fps = num (r, "fps");
    k->unit = str (r, "unit");
    k->media = str (r, "media");
    k->buffers = num (r, "buffers");
    g_ptr_array_add (p->sinks, k);
  }
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
