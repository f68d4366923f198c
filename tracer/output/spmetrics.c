/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spmetrics: see spmetrics.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "spmetrics.h"
#include "sprowgst.h"

#include <math.h>
#include <string.h>

typedef enum
{
  FAM_COUNTER,
  FAM_GAUGE,
  FAM_SUMMARY,
} FamType;

/* One metric family: which table of the summary it renders, and how. A
 * counter or gauge is column `col` times `scale`; a summary has quantiles
 * 0.5, 0.9 and 0.99 from the columns median_ms, p90_ms and p99_ms, its
 * count from `col` and its sum from `sum_col` (or, without one, the
 * mean_ms column times the count). A counter's `sum_col` is a column
 * added to it (the warm-up invocations the statistics leave out). */
typedef struct
{
  const gchar *table;
  const gchar *name;
  FamType type;
  const gchar *help;
  const gchar *col;
  gdouble scale;
  const gchar *sum_col;
} Family;

static const Family families[] = {
  {"elements", "stageprof_element_self_seconds_total", FAM_COUNTER,
      "Time spent in the element's own work on that thread (nested "
        "downstream elements excluded), seconds", SP_KEY (elements, total_s),
      1, NULL},
  {"elements", "stageprof_element_buffers_total", FAM_COUNTER,
      "Invocations of the element on that thread (buffers or lists "
        "chained, or produced by its task), warm-up ones included",
      "count", 1, "skipped"},
  {"elements", "stageprof_element_invocation_seconds", FAM_SUMMARY,
      "Self time of one invocation, seconds (P2 estimates since the run "
        "began, warm-up samples left out)", "count", 1e-3,
      SP_KEY (elements, total_s)},
  {"sinks", "stageprof_sink_buffers_total", FAM_COUNTER,
      "Buffers that reached the sink", "buffers", 1, NULL},
  {"sinks", "stageprof_sink_frames_total", FAM_COUNTER,
      "Video frames that reached the sink (0 when its input is not video "
        "frames)", "frames", 1, NULL},
  {"queues", "stageprof_queue_level_buffers", FAM_GAUGE,
      "Buffers the queue holds now", "level", 1, NULL},
  {"queues", "stageprof_queue_level_bytes", FAM_GAUGE,
      "Bytes the queue holds now", SP_KEY (queues, level_bytes), 1, NULL},
  {"queues", "stageprof_queue_level_seconds", FAM_GAUGE,
      "Stream time the queue holds now, seconds",
      SP_KEY (queues, level_time_s), 1, NULL},
  {"queues", "stageprof_queue_limit_buffers", FAM_GAUGE,
      "The queue's max-size-buffers (0: none or unknown)",
      SP_KEY (queues, limit_buffers),
      1, NULL},
  {"queues", "stageprof_queue_limit_bytes", FAM_GAUGE,
      "The queue's max-size-bytes (0: none or unknown)",
      SP_KEY (queues, limit_bytes), 1,
      NULL},
  {"queues", "stageprof_queue_limit_seconds", FAM_GAUGE,
      "The queue's max-size-time, seconds (0: none or unknown)",
      SP_KEY (queues, limit_time_s), 1, NULL},
  {"queues", "stageprof_queue_buffers_total", FAM_COUNTER,
      "Buffers that went through the queue", "items", 1, NULL},
  {"queues", "stageprof_queue_dropped_buffers_total", FAM_COUNTER,
      "Buffers a leaky queue dropped", "dropped", 1, NULL},
  {"threads", "stageprof_thread_wall_seconds_total", FAM_COUNTER,
      "Wall time of the streaming thread since the run began, seconds",
      SP_KEY (threads, wall_s), 1, NULL},
  {"pipelines", "stageprof_pipeline_process_cpu_seconds_total", FAM_COUNTER,
      "CPU time of the whole process since the pipeline's run began, "
        "seconds", SP_KEY (pipelines, process_cpu_s), 1, NULL},
  {"latency", "stageprof_latency_seconds", FAM_SUMMARY,
      "Latency of a frame from its first push to its arrival at the sink, "
        "seconds (latency=true; P2 estimates since the run began)",
      "frames", 1e-3, NULL},
  {"element_latency", "stageprof_element_latency_seconds", FAM_SUMMARY,
      "Time a frame spent in the element, from entering it to leaving it, "
        "seconds (latency=true)", "count", 1e-3, NULL},
};

static const struct
{
  const gchar *col;
  const gchar *quantile;
} quantiles[] = {
  /* the same columns in each table a summary family reads */
  {SP_KEY (elements, median_ms), "0.5"}, {SP_KEY (elements, p90_ms), "0.9"},
  {SP_KEY (elements, p99_ms), "0.99"},
};

static gboolean
row_number (const GstStructure * row, const gchar * key, gdouble * out)
{
  const GValue *v = gst_structure_get_value (row, key);

  if (v == NULL)
    return FALSE;
  *out = sp_row_value_num (v);
  return !isnan (*out);
}

static void
append_value (GString * out, gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (v))
    g_string_append (out, "NaN");
  else if (isinf (v))
    g_string_append (out, v > 0 ? "+Inf" : "-Inf");
  else if (v == floor (v) && fabs (v) < 1e15)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) v);
  else
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.9g", v));
}

/* A label value: backslash, double quote and line feed escaped. */
static void
append_label (GString * out, const gchar * key, const gchar * value,
    gboolean first)
{
  const gchar *p;

  g_string_append_printf (out, "%s%s=\"", first ? "" : ",", key);
  for (p = value ? value : ""; *p; p++) {
    if (*p == '\\')
      g_string_append (out, "\\\\");
    else if (*p == '"')
      g_string_append (out, "\\\"");
    else if (*p == '\n')
      g_string_append (out, "\\n");
    else
      g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
}

/* The labels of a row of `table`: pipeline, element (or the thread of a
 * threads row), and thread for elements. */
static gchar *
row_labels (const gchar * table, const GstStructure * row)
{
  GString *l = g_string_new (NULL);
  gboolean threads = strcmp (table, "threads") == 0;

  append_label (l, "pipeline", gst_structure_get_string (row, "pipeline"),
      TRUE);
  if (strcmp (table, "pipelines") != 0)
    append_label (l, threads ? "thread" : "element",
        gst_structure_get_string (row, "name"), FALSE);
  if (strcmp (table, "elements") == 0)
    append_label (l, "thread", gst_structure_get_string (row, "thread"),
        FALSE);
  return g_string_free (l, FALSE);
}

static guint
row_run (const GstStructure * row)
{
  guint run = 0;

  gst_structure_get_uint (row, "run", &run);
  return run;
}

/* The rows of `table` to show: each pipeline's latest run, and one row a
 * label set (two pipelines of one name would otherwise repeat a series,
 * which a scraper refuses whole). Returned rows belong to `summary`. */
static GPtrArray *
current_rows (const GstStructure * summary, const gchar * table)
{
  const GValue *arr = gst_structure_get_value (summary, table);
  GPtrArray *rows = g_ptr_array_new ();
  GHashTable *latest = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  guint i, n;

  if (arr == NULL || !GST_VALUE_HOLDS_ARRAY (arr))
    goto done;
  n = gst_value_array_get_size (arr);
  for (i = 0; i < n; i++) {
    const GstStructure *row =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    const gchar *pipe = gst_structure_get_string (row, "pipeline");
    guint run = row_run (row);

    if (pipe && run > GPOINTER_TO_UINT (g_hash_table_lookup (latest, pipe)))
      g_hash_table_insert (latest, (gpointer) pipe, GUINT_TO_POINTER (run));
  }
  for (i = 0; i < n; i++) {
    const GstStructure *row =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    const gchar *pipe = gst_structure_get_string (row, "pipeline");
    gchar *labels;

    if (pipe == NULL || row_run (row) !=
        GPOINTER_TO_UINT (g_hash_table_lookup (latest, pipe)))
      continue;
    labels = row_labels (table, row);
    if (g_hash_table_contains (seen, labels)) {
      g_free (labels);
      continue;
    }
    g_hash_table_add (seen, labels);
    g_ptr_array_add (rows, (gpointer) row);
  }
done:
  g_hash_table_destroy (latest);
  g_hash_table_destroy (seen);
  return rows;
}

static void
append_sample (GString * out, const gchar * name, const gchar * suffix,
    const gchar * labels, const gchar * quantile, gdouble v)
{
  g_string_append_printf (out, "%s%s{%s", name, suffix, labels);
  if (quantile)
    g_string_append_printf (out, ",quantile=\"%s\"", quantile);
  g_string_append (out, "} ");
  append_value (out, v);
  g_string_append_c (out, '\n');
}

static void
render_summary_row (GString * out, const Family * f,
    const GstStructure * row, const gchar * labels)
{
  gdouble count = 0, sum = 0, mean = 0, q;
  guint i;

  row_number (row, f->col, &count);
  for (i = 0; i < G_N_ELEMENTS (quantiles); i++)
    if (row_number (row, quantiles[i].col, &q))
      append_sample (out, f->name, "", labels, quantiles[i].quantile,
          count > 0 ? q * f->scale : NAN);
  if (f->sum_col)
    row_number (row, f->sum_col, &sum);
  else if (row_number (row, SP_KEY (elements, mean_ms), &mean))
    sum = mean * count * f->scale;
  append_sample (out, f->name, "_sum", labels, NULL, sum);
  append_sample (out, f->name, "_count", labels, NULL, count);
}

static void
render_family (GString * out, const Family * f, GPtrArray * rows)
{
  static const gchar *const type_names[] = { "counter", "gauge", "summary" };
  guint i;

  /* Text format 0.0.4 names a counter's family with its _total, as
   * Prometheus' own client libraries and promtool have it (OpenMetrics
   * would drop it; this is not OpenMetrics' format). */
  g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", f->name,
      f->help, f->name, type_names[f->type]);
  for (i = 0; i < rows->len; i++) {
    const GstStructure *row = g_ptr_array_index (rows, i);
    gchar *labels = row_labels (f->table, row);
    gdouble v, extra = 0;

    if (f->type == FAM_SUMMARY) {
      render_summary_row (out, f, row, labels);
    } else if (row_number (row, f->col, &v)) {
      /* buffers: counted ones plus the warm-up ones left out */
      if (f->sum_col && row_number (row, f->sum_col, &extra))
        v += extra;
      append_sample (out, f->name, "", labels, NULL, v * f->scale);
    }
    g_free (labels);
  }
}

/* What went through each src pad, summed over the threads of the element
 * it feeds (the element rows' in_pad, in_buffers, in_bytes: counted while
 * the endpoint serves or windows are on). */
static void
render_pads (GString * out, GPtrArray * rows)
{
  GHashTable *sums = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  GPtrArray *order = g_ptr_array_new ();
  guint i;

  for (i = 0; i < rows->len; i++) {
    const GstStructure *row = g_ptr_array_index (rows, i);
    const gchar *pad = gst_structure_get_string (row,
        SP_KEY (elements, in_pad));
    gdouble b = 0, y = 0, *sum;
    GString *l;
    gchar *labels;

    if (!pad || !row_number (row, SP_KEY (elements, in_buffers), &b))
      continue;
    row_number (row, SP_KEY (elements, in_bytes), &y);
    l = g_string_new (NULL);
    append_label (l, "pipeline", gst_structure_get_string (row, "pipeline"),
        TRUE);
    append_label (l, "pad", pad, FALSE);
    append_label (l, "element", gst_structure_get_string (row, "name"),
        FALSE);
    labels = g_string_free (l, FALSE);
    sum = g_hash_table_lookup (sums, labels);
    if (!sum) {
      sum = g_new0 (gdouble, 2);
      g_hash_table_insert (sums, labels, sum);
      g_ptr_array_add (order, labels);
    } else {
      g_free (labels);
    }
    sum[0] += b;
    sum[1] += y;
  }
  if (order->len > 0) {
    g_string_append (out, "# HELP stageprof_pad_buffers_total Buffers that "
        "went through the src pad into the element\n"
        "# TYPE stageprof_pad_buffers_total counter\n");
    for (i = 0; i < order->len; i++)
      append_sample (out, "stageprof_pad_buffers_total", "",
          order->pdata[i], NULL, ((gdouble *) g_hash_table_lookup (sums,
                  order->pdata[i]))[0]);
    g_string_append (out, "# HELP stageprof_pad_bytes_total Bytes that "
        "went through the src pad into the element\n"
        "# TYPE stageprof_pad_bytes_total counter\n");
    for (i = 0; i < order->len; i++)
      append_sample (out, "stageprof_pad_bytes_total", "",
          order->pdata[i], NULL, ((gdouble *) g_hash_table_lookup (sums,
                  order->pdata[i]))[1]);
  }
  g_ptr_array_free (order, TRUE);
  g_hash_table_destroy (sums);
}

static void
render_process (GString * out, const GstStructure * summary,
    gdouble cores_used)
{
  const GstStructure *proc = NULL;
  gdouble cpu;

  gst_structure_get (summary, "process", GST_TYPE_STRUCTURE, &proc, NULL);
  if (proc && row_number (proc, "cpu_s", &cpu)) {
    g_string_append (out, "# HELP stageprof_process_cpu_seconds_total CPU "
        "time of the whole process, seconds\n"
        "# TYPE stageprof_process_cpu_seconds_total counter\n"
        "stageprof_process_cpu_seconds_total ");
    append_value (out, cpu);
    g_string_append_c (out, '\n');
  }
  if (proc)
    gst_structure_free ((GstStructure *) proc);
  if (cores_used >= 0) {
    g_string_append (out, "# HELP stageprof_cores_used CPU time of the "
        "process per wall-clock second over the last second or more\n"
        "# TYPE stageprof_cores_used gauge\nstageprof_cores_used ");
    append_value (out, cores_used);
    g_string_append_c (out, '\n');
  }
}

gchar *
sp_metrics_render (const GstStructure * summary, gdouble cores_used)
{
  GString *out = g_string_sized_new (8192);
  GHashTable *tables = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      (GDestroyNotify) g_ptr_array_unref);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (families); i++) {
    const Family *f = &families[i];
    GPtrArray *rows = g_hash_table_lookup (tables, f->table);

    if (rows == NULL) {
      rows = current_rows (summary, f->table);
      g_hash_table_insert (tables, (gpointer) f->table, rows);
    }
    /* A family without a row is left out (latency without latency=true). */
    if (rows->len > 0)
      render_family (out, f, rows);
  }
  render_pads (out, g_hash_table_lookup (tables, "elements"));
  render_process (out, summary, cores_used);
  g_hash_table_destroy (tables);
  return g_string_free (out, FALSE);
}
