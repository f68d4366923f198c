/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spmetrics (tracer/output/spmetrics.c) on summaries the test writes:
 * label values escaped, only each pipeline's latest run, one series per
 * label set, counters and summaries with their figures in seconds. The
 * endpoint itself, scraped by Prometheus, is test_stageprof_metrics.py.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>

#include "spmetrics.h"

static void
add_row (GstStructure * s, const gchar * table, GstStructure * row)
{
  const GValue *have = gst_structure_get_value (s, table);
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;

  g_value_init (&arr, GST_TYPE_ARRAY);
  if (have)
    g_value_copy (have, &arr);
  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&v, row);
  gst_value_array_append_and_take_value (&arr, &v);
  gst_structure_take_value (s, table, &arr);
}

static GstStructure *
element (const gchar * pipe, const gchar * name, guint run, guint64 count,
    gdouble total_s)
{
  return gst_structure_new ("element", "name", G_TYPE_STRING, name,
      "thread", G_TYPE_STRING, "t0", "pipeline", G_TYPE_STRING, pipe,
      "count", G_TYPE_UINT64, count, "skipped", G_TYPE_UINT64,
      (guint64) 2, "mean_ms", G_TYPE_DOUBLE, total_s * 1e3 / count,
      "median_ms", G_TYPE_DOUBLE, 4.0, "p90_ms", G_TYPE_DOUBLE, 9.0,
      "p99_ms", G_TYPE_DOUBLE, 12.5, "total_s", G_TYPE_DOUBLE, total_s,
      "run", G_TYPE_UINT, run, NULL);
}

/* The line of `text` that starts with `start`, or NULL (free it). */
static gchar *
line_of (const gchar * text, const gchar * start)
{
  gchar **lines = g_strsplit (text, "\n", -1);
  gchar *found = NULL;

  for (guint i = 0; lines[i] && !found; i++)
    if (g_str_has_prefix (lines[i], start))
      found = g_strdup (lines[i]);
  g_strfreev (lines);
  return found;
}

static guint
count_of (const gchar * text, const gchar * needle)
{
  guint n = 0;

  for (const gchar * p = text; (p = strstr (p, needle)); p++)
    n++;
  return n;
}

GST_START_TEST (test_labels_escaped)
{
  GstStructure *s = gst_structure_new_empty ("stageprof-summary");
  gchar *text, *l;

  add_row (s, "elements", element ("p\"1", "bin\\conv\nx", 1, 10, 0.5));
  text = sp_metrics_render (s, -1);
  l = line_of (text, "stageprof_element_self_seconds_total{");
  fail_unless_equals_string (l, "stageprof_element_self_seconds_total{"
      "pipeline=\"p\\\"1\",element=\"bin\\\\conv\\nx\",thread=\"t0\"} 0.5");
  g_free (l);
  /* no cores gauge before the endpoint measured one */
  fail_unless (strstr (text, "stageprof_cores_used") == NULL);
  g_free (text);
  gst_structure_free (s);
}

GST_END_TEST;

GST_START_TEST (test_latest_run_and_one_series)
{
  GstStructure *s = gst_structure_new_empty ("stageprof-summary");
  gchar *text, *l;

  add_row (s, "elements", element ("p", "conv", 1, 500, 5.0));
  add_row (s, "elements", element ("p", "conv", 2, 10, 0.25));
  /* the same labels twice (two pipelines of one name): the first only */
  add_row (s, "elements", element ("p", "conv", 2, 99, 9.0));
  add_row (s, "elements", element ("q", "conv", 1, 7, 0.125));
  text = sp_metrics_render (s, 1.5);
  fail_unless_equals_int (count_of (text,
          "stageprof_element_buffers_total{"), 2);
  /* buffers: counted ones and the warm-up ones (skipped) */
  l = line_of (text, "stageprof_element_buffers_total{pipeline=\"p\"");
  fail_unless_equals_string (l, "stageprof_element_buffers_total{"
      "pipeline=\"p\",element=\"conv\",thread=\"t0\"} 12");
  g_free (l);
  l = line_of (text, "stageprof_element_buffers_total{pipeline=\"q\"");
  fail_unless (l && g_str_has_suffix (l, "} 9"), "%s", l);
  g_free (l);
  /* a summary: quantiles in seconds, _sum and _count */
  l = line_of (text, "stageprof_element_invocation_seconds{pipeline=\"p\","
      "element=\"conv\",thread=\"t0\",quantile=\"0.99\"}");
  fail_unless (l && g_str_has_suffix (l, "} 0.0125"), "%s", l);
  g_free (l);
  l = line_of (text, "stageprof_element_invocation_seconds_sum{pipeline=\"p\"");
  fail_unless (l && g_str_has_suffix (l, "} 0.25"), "%s", l);
  g_free (l);
  l = line_of (text,
      "stageprof_element_invocation_seconds_count{pipeline=\"p\"");
  fail_unless (l && g_str_has_suffix (l, "} 10"), "%s", l);
  g_free (l);
  fail_unless_equals_int (count_of (text,
          "# TYPE stageprof_element_invocation_seconds summary\n"), 1);
  l = line_of (text, "stageprof_cores_used ");
  fail_unless_equals_string (l, "stageprof_cores_used 1.5");
  g_free (l);
  /* no queue rows, no queue families */
  fail_unless (strstr (text, "stageprof_queue_") == NULL);
  g_free (text);
  gst_structure_free (s);
}

GST_END_TEST;

GST_START_TEST (test_queue_gauges)
{
  GstStructure *s = gst_structure_new_empty ("stageprof-summary");
  gchar *text, *l;

  add_row (s, "queues", gst_structure_new ("queue", "name", G_TYPE_STRING,
          "q0", "pipeline", G_TYPE_STRING, "p", "items", G_TYPE_UINT64,
          (guint64) 300, "level", G_TYPE_UINT64, (guint64) 7, "level_bytes",
          G_TYPE_UINT64, (guint64) 4096, "level_time_s", G_TYPE_DOUBLE, 0.25,
          "limit_buffers", G_TYPE_UINT, 10, "limit_bytes", G_TYPE_UINT, 0,
          "limit_time_s", G_TYPE_DOUBLE, 1.0, "dropped", G_TYPE_UINT64,
          (guint64) 3, "run", G_TYPE_UINT, 1, NULL));
  text = sp_metrics_render (s, -1);
  l = line_of (text, "stageprof_queue_level_buffers{");
  fail_unless_equals_string (l,
      "stageprof_queue_level_buffers{pipeline=\"p\",element=\"q0\"} 7");
  g_free (l);
  l = line_of (text, "stageprof_queue_level_seconds{");
  fail_unless (l && g_str_has_suffix (l, "} 0.25"), "%s", l);
  g_free (l);
  l = line_of (text, "stageprof_queue_limit_buffers{");
  fail_unless (l && g_str_has_suffix (l, "} 10"), "%s", l);
  g_free (l);
  l = line_of (text, "stageprof_queue_dropped_buffers_total{");
  fail_unless (l && g_str_has_suffix (l, "} 3"), "%s", l);
  g_free (l);
  fail_unless (strstr (text, "# TYPE stageprof_queue_level_bytes gauge\n"));
  fail_unless (strstr (text,
          "# TYPE stageprof_queue_dropped_buffers_total counter\n"));
  g_free (text);
  gst_structure_free (s);
}

GST_END_TEST;

static Suite *
stageprof_exposition_suite (void)
{
  Suite *s = suite_create ("stageprof_exposition");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_labels_escaped);
  tcase_add_test (tc, test_latest_run_and_one_series);
  tcase_add_test (tc, test_queue_gauges);
  return s;
}

GST_CHECK_MAIN (stageprof_exposition);
