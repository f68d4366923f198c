/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof from a C application.
 *
 * Build:  cc stageprof-app.c $(pkg-config --cflags --libs gstreamer-1.0)
 * Run:    GST_PLUGIN_PATH=/path/to/build/tracer ./a.out [PIPELINE [TRACE.json]]
 *
 * The tracer is created by gst_init() from GST_TRACERS, so the variable is
 * set before it. The application then finds the tracer among the active
 * ones and drives it with properties and action signals: `trace` to start a
 * Chrome trace, `get-summary` for the figures as a GstStructure,
 * `write-trace` for a copy of the trace so far, `reset` to start over.
 */
#include <string.h>
#include <gst/gst.h>

#define DEFAULT_PIPELINE \
  "videotestsrc num-buffers=100 ! video/x-raw,format=I420,width=1280,height=720 ! " \
  "queue ! videoconvert name=work ! video/x-raw,format=RGB ! " \
  "videoscale ! video/x-raw,width=640,height=360 ! fakesink sync=false"

static GstTracer *
find_stageprof (void)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  GstTracer *found = NULL;

  for (l = tracers; l; l = l->next) {
    if (!found && strcmp (G_OBJECT_TYPE_NAME (l->data), "GstStageProf") == 0)
      found = gst_object_ref (l->data);
  }
  g_list_free_full (tracers, gst_object_unref);
  return found;
}

static gboolean
run (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gboolean ok;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (!ok) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("pipeline error: %s\n", err->message);
    g_clear_error (&err);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  return ok;
}

/* The summary is a plain GstStructure: arrays of rows, one per element
 * and thread, queue, thread and sink. */
static void
print_summary (const GstStructure * summary)
{
  const GValue *elements = gst_structure_get_value (summary, "elements");
  guint i;

  g_print ("%-20s %-20s %8s %10s %10s\n", "element", "thread", "count",
      "median ms", "total s");
  for (i = 0; i < gst_value_array_get_size (elements); i++) {
    const GstStructure *e =
        gst_value_get_structure (gst_value_array_get_value (elements, i));
    guint64 count = 0;
    gdouble median = 0, total = 0;

    gst_structure_get (e, "count", G_TYPE_UINT64, &count,
        "median_ms", G_TYPE_DOUBLE, &median,
        "total_s", G_TYPE_DOUBLE, &total, NULL);
    g_print ("%-20s %-20s %8" G_GUINT64_FORMAT " %10.3f %10.3f\n",
        gst_structure_get_string (e, "name"),
        gst_structure_get_string (e, "thread"), count, median, total);
  }
  g_print ("verdict: %s\n", gst_structure_get_string (summary, "verdict"));
}

int
main (int argc, char **argv)
{
  const gchar *desc = argc > 1 ? argv[1] : DEFAULT_PIPELINE;
  const gchar *trace = argc > 2 ? argv[2] : NULL;
  GstTracer *prof;
  GstElement *pipeline;
  GstStructure *summary = NULL;
  GError *err = NULL;
  gboolean ok;

  /* Keep the user's own GST_TRACERS if there is one; the tables printed at
   * pipeline stop are off here because we print our own. */
  g_setenv ("GST_TRACERS", "stageprof(summary=none)", FALSE);
  gst_init (&argc, &argv);

  prof = find_stageprof ();
  if (!prof) {
    g_printerr ("stageprof is not active: is its plugin in GST_PLUGIN_PATH "
        "and 'stageprof' in GST_TRACERS?\n");
    return 2;
  }
  pipeline = gst_parse_launch (desc, &err);
  if (!pipeline) {
    g_printerr ("bad pipeline: %s\n", err->message);
    return 2;
  }

  /* Start a trace file now; paths can also come from GST_TRACERS. */
  if (trace)
    g_object_set (prof, "trace", trace, NULL);

  ok = run (pipeline);

  g_signal_emit_by_name (prof, "get-summary", &summary);
  print_summary (summary);
  gst_structure_free (summary);

  if (trace) {
    gchar *copy = g_strdup_printf ("%s.copy.json", trace);
    gboolean written = FALSE;

    /* A strict-JSON copy of everything so far, while the trace goes on. */
    g_signal_emit_by_name (prof, "write-trace", copy, &written);
    g_print ("trace copy %s: %s\n", copy, written ? "written" : "FAILED");
    ok &= written;
    g_free (copy);
  }

  /* Forget the first run, e.g. to leave a warm-up out. */
  g_signal_emit_by_name (prof, "reset");

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  gst_object_unref (prof);
  gst_deinit ();
  return ok ? 0 : 1;
}
