/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers of the stageprof suites: find the tracer, run a pipeline to EOS,
 * and look rows up in the summary structure (the get-summary schema). */
#ifndef __STAGEPROF_CHECK_H__
#define __STAGEPROF_CHECK_H__

#include <string.h>
#include <gst/check/gstcheck.h>

#include "lib/stagetest.h"

static G_GNUC_UNUSED GstTracer *
find_prof (void)
{
  GList *list = gst_tracing_get_active_tracers (), *l;
  GstTracer *found = NULL;

  for (l = list; l; l = l->next)
    if (!found && strcmp (G_OBJECT_TYPE_NAME (l->data), "GstStageProf") == 0)
      found = gst_object_ref (l->data);
  g_list_free_full (list, gst_object_unref);
  fail_unless (found != NULL, "stageprof is not among the active tracers");
  return found;
}

static G_GNUC_UNUSED GstStructure *
get_summary (void)
{
  GstTracer *t = find_prof ();
  GstStructure *s = NULL;

  g_signal_emit_by_name (t, "get-summary", &s);
  gst_object_unref (t);
  fail_unless (s != NULL);
  fail_unless (gst_structure_has_name (s, "stageprof-summary"));
  return s;
}

static G_GNUC_UNUSED void
run_pipeline (const gchar * name, const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  fail_unless (p != NULL, "cannot parse '%s': %s", desc,
      err ? err->message : "?");
  gst_object_set_name (GST_OBJECT (p), name);
  stage_test_play_to_eos (p, 60 * GST_SECOND, name);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

/* Rows of `table` for element `name` in `pipeline` (one per thread). */
static G_GNUC_UNUSED GPtrArray *
rows (const GstStructure * s, const gchar * table, const gchar * name,
    const gchar * pipeline)
{
  const GValue *arr = gst_structure_get_value (s, table);
  GPtrArray *res = g_ptr_array_new ();
  guint i;

  fail_unless (arr != NULL && GST_VALUE_HOLDS_ARRAY (arr), "no %s", table);
  for (i = 0; i < gst_value_array_get_size (arr); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    if (g_strcmp0 (gst_structure_get_string (r, "name"), name) == 0
        && (!pipeline || g_strcmp0 (gst_structure_get_string (r,
                    "pipeline"), pipeline) == 0))
      g_ptr_array_add (res, (gpointer) r);
  }
  return res;
}

static G_GNUC_UNUSED const GstStructure *
row (const GstStructure * s, const gchar * table, const gchar * name,
    const gchar * pipeline)
{
  GPtrArray *r = rows (s, table, name, pipeline);
  const GstStructure *res;

  fail_unless (r->len == 1, "%u rows for %s in %s (first on thread %s)",
      r->len, name, pipeline ? pipeline : "any", r->len ?
      gst_structure_get_string (g_ptr_array_index (r, 0), "thread") : "-");
  res = g_ptr_array_index (r, 0);
  g_ptr_array_free (r, TRUE);
  return res;
}

static G_GNUC_UNUSED gdouble
dget (const GstStructure * r, const gchar * f)
{
  gdouble d = -1;

  fail_unless (gst_structure_get_double (r, f, &d), "no field %s", f);
  return d;
}

static G_GNUC_UNUSED guint64
uget (const GstStructure * r, const gchar * f)
{
  guint64 u = 0;

  fail_unless (gst_structure_get_uint64 (r, f, &u), "no field %s", f);
  return u;
}

static G_GNUC_UNUSED guint64
count_sum (const GstStructure * s, const gchar * name, const gchar * pipeline)
{
  GPtrArray *r = rows (s, "elements", name, pipeline);
  guint64 n = 0;
  guint i;

  for (i = 0; i < r->len; i++)
    n += uget (g_ptr_array_index (r, i), "count");
  g_ptr_array_free (r, TRUE);
  return n;
}

static G_GNUC_UNUSED void
set_skip_first (guint n)
{
  GstTracer *t = find_prof ();

  g_object_set (t, "skip-first", n, NULL);
  gst_object_unref (t);
}

/* The thread row of the (single) thread element `name` ran on. */
static G_GNUC_UNUSED const GstStructure *
thread_of (const GstStructure * s, const gchar * name, const gchar * pipeline)
{
  const gchar *t = gst_structure_get_string (row (s, "elements", name,
          pipeline), "thread");

  return row (s, "threads", t, pipeline);
}

#endif /* __STAGEPROF_CHECK_H__ */
