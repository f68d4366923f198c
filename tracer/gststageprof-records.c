/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof's interval snapshots as GstTracerRecords, so that the log
 * tracer's channel (GST_DEBUG=GST_TRACER:7) shows them in GStreamer's
 * usual format: one `stageprof-element` record per element and thread and
 * one `stageprof-queue` record per queue at every interval= tick, with
 * cumulative figures and the change since the previous tick. See
 * docs/tracer.md, "Monitoring a running pipeline".
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageprof-priv.h"
#include "sprow.h"

static GstTracerRecord *tr_element, *tr_queue;

/* What the previous tick said of one row (the ticker's thread only). */
typedef struct
{
  gint64 at_us;
  guint64 count;
  gdouble self_s;
} Prev;

static GstStructure *
scope (GstTracerValueScope related, const gchar * desc)
{
  return gst_structure_new ("scope", "type", G_TYPE_GTYPE, G_TYPE_STRING,
      "related-to", GST_TYPE_TRACER_VALUE_SCOPE, related,
      "description", G_TYPE_STRING, desc, NULL);
}

static GstStructure *
value (GType type, const gchar * desc)
{
  return gst_structure_new ("value", "type", G_TYPE_GTYPE, type,
      "description", G_TYPE_STRING, desc, NULL);
}

void
stage_prof_records_init (void)
{
  tr_element = gst_tracer_record_new ("stageprof-element.class",
      "pipeline", GST_TYPE_STRUCTURE, scope (GST_TRACER_VALUE_SCOPE_ELEMENT,
          "top-level pipeline"),
      "element", GST_TYPE_STRUCTURE, scope (GST_TRACER_VALUE_SCOPE_ELEMENT,
          "element path below the pipeline"),
      "thread", GST_TYPE_STRUCTURE, scope (GST_TRACER_VALUE_SCOPE_THREAD,
          "streaming thread"),
      "run", GST_TYPE_STRUCTURE, value (G_TYPE_UINT, "run of the pipeline"),
      "interval", GST_TYPE_STRUCTURE, value (G_TYPE_DOUBLE,
          "seconds since the previous record of this element and thread"),
      "buffers", GST_TYPE_STRUCTURE, value (G_TYPE_UINT64,
          "invocations since the run began"),
      "interval-buffers", GST_TYPE_STRUCTURE, value (G_TYPE_UINT64,
          "invocations in the interval"),
      "self-time", GST_TYPE_STRUCTURE, value (G_TYPE_DOUBLE,
          "self time since the run began, seconds"),
      "interval-self-time", GST_TYPE_STRUCTURE, value (G_TYPE_DOUBLE,
          "self time in the interval, seconds"),
      "mean", GST_TYPE_STRUCTURE, value (G_TYPE_DOUBLE,
          "mean self time an invocation since the run began, ms"),
      "median", GST_TYPE_STRUCTURE, value (G_TYPE_DOUBLE,
          "median self time since the run began, ms"),
      "p99", GST_TYPE_STRUCTURE, value (G_TYPE_DOUBLE,
          "99th percentile of self time since the run began, ms"), NULL);
  tr_queue = gst_tracer_record_new ("stageprof-queue.class",
      "pipeline", GST_TYPE_STRUCTURE, scope (GST_TRACER_VALUE_SCOPE_ELEMENT,
          "top-level pipeline"),
      "queue", GST_TYPE_STRUCTURE, scope (GST_TRACER_VALUE_SCOPE_ELEMENT,
          "queue path below the pipeline"),
      "run", GST_TYPE_STRUCTURE, value (G_TYPE_UINT, "run of the pipeline"),
      "level-buffers", GST_TYPE_STRUCTURE, value (G_TYPE_UINT64,
          "buffers held now"),
      "level-bytes", GST_TYPE_STRUCTURE, value (G_TYPE_UINT64,
          "bytes held now"),
      "level-time", GST_TYPE_STRUCTURE, value (G_TYPE_DOUBLE,
          "stream time held now, seconds"),
      "limit-buffers", GST_TYPE_STRUCTURE, value (G_TYPE_UINT64,
          "max-size-buffers (0: none or unknown)"),
      "limit-bytes", GST_TYPE_STRUCTURE, value (G_TYPE_UINT64,
          "max-size-bytes (0: none or unknown)"),
      "limit-time", GST_TYPE_STRUCTURE, value (G_TYPE_DOUBLE,
          "max-size-time, seconds (0: none or unknown)"),
      "items", GST_TYPE_STRUCTURE, value (G_TYPE_UINT64,
          "buffers through it since the run began"),
      "dropped", GST_TYPE_STRUCTURE, value (G_TYPE_UINT64,
          "buffers a leaky queue dropped since the run began"), NULL);
  GST_OBJECT_FLAG_SET (tr_element, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  GST_OBJECT_FLAG_SET (tr_queue, GST_OBJECT_FLAG_MAY_BE_LEAKED);
}

static guint64
get_u64 (const GstStructure * row, const gchar * key)
{
  const GValue *v = gst_structure_get_value (row, key);

  if (v && G_VALUE_HOLDS_UINT64 (v))
    return g_value_get_uint64 (v);
  if (v && G_VALUE_HOLDS_UINT (v))
    return g_value_get_uint (v);
  return 0;
}

static gdouble
get_double (const GstStructure * row, const gchar * key)
{
  gdouble d = 0;

  gst_structure_get_double (row, key, &d);
  return d;
}

static guint
get_run (const GstStructure * row)
{
  guint run = 0;

  gst_structure_get_uint (row, "run", &run);
  return run;
}

static void
log_element (GHashTable * prev, const GstStructure * row, gint64 now_us,
    gint64 start_us)
{
  const gchar *pipe = gst_structure_get_string (row, "pipeline");
  const gchar *name = gst_structure_get_string (row, "name");
  const gchar *thread = gst_structure_get_string (row, "thread");
  guint run = get_run (row);
  guint64 count = get_u64 (row, "count") + get_u64 (row, "skipped");
  gdouble self_s = get_double (row, SP_KEY (elements, total_s));
  gchar *key = g_strdup_printf ("%s\x1f%s\x1f%s\x1f%u", pipe, name, thread,
      run);
  Prev *p = g_hash_table_lookup (prev, key);
  Prev was = { start_us, 0, 0 };

  if (p == NULL) {
    p = g_new0 (Prev, 1);
    g_hash_table_insert (prev, key, p);
  } else {
    g_free (key);
    /* after a reset the figures start again from 0 */
    if (p->count <= count)
      was = *p;
  }
  gst_tracer_record_log (tr_element, pipe, name, thread, run,
      (now_us - was.at_us) / 1e6, count, count - was.count, self_s,
      MAX (self_s - was.self_s, 0.0),
      get_double (row, SP_KEY (elements, mean_ms)),
      get_double (row, SP_KEY (elements, median_ms)),
      get_double (row, SP_KEY (elements, p99_ms)));
  p->at_us = now_us;
  p->count = count;
  p->self_s = self_s;
}

static void
log_queue (const GstStructure * row)
{
  gst_tracer_record_log (tr_queue, gst_structure_get_string (row, "pipeline"),
      gst_structure_get_string (row, "name"), get_run (row),
      get_u64 (row, SP_KEY (queues, level)),
      get_u64 (row, SP_KEY (queues, level_bytes)),
      get_double (row, SP_KEY (queues, level_time_s)),
      get_u64 (row, SP_KEY (queues, limit_buffers)),
      get_u64 (row, SP_KEY (queues, limit_bytes)),
      get_double (row, SP_KEY (queues, limit_time_s)),
      get_u64 (row, "items"), get_u64 (row, "dropped"));
}

static void
foreach_row (const GstStructure * s, const gchar * table,
    void (*fn) (const GstStructure * row, gpointer data), gpointer data)
{
  const GValue *arr = gst_structure_get_value (s, table);
  guint i;

  if (arr == NULL || !GST_VALUE_HOLDS_ARRAY (arr))
    return;
  for (i = 0; i < gst_value_array_get_size (arr); i++)
    fn (gst_value_get_structure (gst_value_array_get_value (arr, i)), data);
}

typedef struct
{
  GstStageProf *self;
  gint64 now_us;
} Tick;

static void
element_row (const GstStructure * row, gpointer data)
{
  Tick *t = data;

  log_element (t->self->record_prev, row, t->now_us, t->self->record_start);
}

static void
queue_row (const GstStructure * row, gpointer data)
{
  log_queue (row);
}

/* One pipeline's interval snapshot `s`; the ticker's thread only. */
void
stage_prof_records_log (GstStageProf * self, const GstStructure * s)
{
  Tick t = { self, g_get_monotonic_time () };

  if (self->record_prev == NULL)
    self->record_prev = g_hash_table_new_full (g_str_hash, g_str_equal,
        g_free, g_free);
  foreach_row (s, "elements", element_row, &t);
  foreach_row (s, "queues", queue_row, NULL);
}

/* Each row of a closed window (docs/tracer.md, Windows) in the same
 * channel and format: a `stageprof-window-element`, `-pad`, `-queue`,
 * `-thread` or `-latency` structure, the window's own figures. Serialized
 * only when the GST_TRACER category logs at TRACE level. */
void
stage_prof_records_log_window (const GstStructure * win)
{
  static const gchar *const tables[][2] = {
    {"window_elements", "stageprof-window-element"},
    {"window_pads", "stageprof-window-pad"},
    {"window_queues", "stageprof-window-queue"},
    {"window_threads", "stageprof-window-thread"},
    {"window_latency", "stageprof-window-latency"},
  };
  static GstDebugCategory *cat;
  guint t, i;

  if (g_once_init_enter (&cat)) {
    GstDebugCategory *c = _gst_debug_get_category ("GST_TRACER");
    g_once_init_leave (&cat, c ? c : GST_CAT_DEFAULT);
  }
  if (gst_debug_category_get_threshold (cat) < GST_LEVEL_TRACE)
    return;
  for (t = 0; t < G_N_ELEMENTS (tables); t++) {
    const GValue *arr = gst_structure_get_value (win, tables[t][0]);

    for (i = 0; arr && GST_VALUE_HOLDS_ARRAY (arr)
        && i < gst_value_array_get_size (arr); i++) {
      GstStructure *row = gst_structure_copy (gst_value_get_structure
          (gst_value_array_get_value (arr, i)));
      gchar *text;

      gst_structure_set_name (row, tables[t][1]);
      text = gst_structure_to_string (row);
      GST_CAT_LEVEL_LOG (cat, GST_LEVEL_TRACE, NULL, "%s", text);
      g_free (text);
      gst_structure_free (row);
    }
  }
}

static gboolean
prev_older (gpointer key, gpointer value, gpointer data)
{
  return ((Prev *) value)->at_us < *(gint64 *) data;
}

/* Rows no tick has seen since `before_us` (pipelines gone) are
 * forgotten, so that the table stays as small as the live pipelines. */
void
stage_prof_records_prune (GstStageProf * self, gint64 before_us)
{
  if (self->record_prev)
    g_hash_table_foreach_remove (self->record_prev, prev_older, &before_us);
}
