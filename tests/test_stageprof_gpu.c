/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof's GPU figures, checked against an element of known GPU cost:
 * gpufake sleeps 2 ms a frame and reports 1 ms of GPU work for it through
 * common/stagegputiming.h, as stageresize does with CUDA events. The GPU
 * table, the GPU column and the trace's GPU track must show exactly that;
 * an element that does not declare the metadata key gets nothing. The
 * CUDA side (stageresize's events, cuda-sync) runs in the GPU suite. */
#include <gst/check/gstcheck.h>
#include <gst/base/gstbasetransform.h>
#include <glib/gstdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stageprof-check.h"
#include "common/stagegputiming.h"
#include "lib/stagetest.h"

#define FRAMES 30
#define GPU_NS (1000 * 1000)
#define SLEEP_US 2000

typedef struct
{
  GstBaseTransform parent;
} GstGpuFake;
typedef struct
{
  GstBaseTransformClass parent_class;
} GstGpuFakeClass;

GType gst_gpu_fake_get_type (void);
G_DEFINE_TYPE (GstGpuFake, gst_gpu_fake, GST_TYPE_BASE_TRANSFORM);

static GstFlowReturn
gpu_fake_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  const StageGpuTiming *t = g_object_get_data (G_OBJECT (trans),
      STAGE_GPU_TIMING_KEY);
  guint64 end;

  g_usleep (SLEEP_US);
  end = gst_util_get_timestamp ();
  if (t && t->abi == STAGE_GPU_TIMING_ABI)
    t->report (t->data, GST_ELEMENT (trans), end - GPU_NS, end);
  return GST_FLOW_OK;
}

static void
gst_gpu_fake_class_init (GstGpuFakeClass * klass)
{
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  static GstStaticPadTemplate sink = GST_STATIC_PAD_TEMPLATE ("sink",
      GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
  static GstStaticPadTemplate src = GST_STATIC_PAD_TEMPLATE ("src",
      GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

  gst_element_class_add_static_pad_template (ec, &sink);
  gst_element_class_add_static_pad_template (ec, &src);
  gst_element_class_set_static_metadata (ec, "GPU fake", "Filter",
      "Reports 1 ms of GPU work a frame", "gst-stages tests");
  gst_element_class_add_static_metadata (ec, STAGE_GPU_TIMING_KEY, "fake");
  GST_BASE_TRANSFORM_CLASS (klass)->transform_ip = gpu_fake_transform_ip;
}

static void
gst_gpu_fake_init (GstGpuFake * self)
{
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

GST_START_TEST (test_gpu_rows)
{
  GstTracer *t = find_prof ();
  GstStructure *s;
  const GstStructure *g, *e, *id;
  GPtrArray *none;
  gboolean sync = FALSE;

  g_signal_emit_by_name (t, "reset");
  run_pipeline ("gpup", "videotestsrc num-buffers=" G_STRINGIFY (FRAMES)
      " ! gpufake name=g ! identity name=i ! fakesink");
  s = get_summary ();
  g = row (s, "gpu", "g", "gpup");
  fail_unless_equals_int (uget (g, "frames"), FRAMES);
  /* Reported: exactly 1 ms a frame. */
  fail_unless (G_APPROX_VALUE (dget (g, "mean_ms"), 1.0, 1e-9),
      "mean %f", dget (g, "mean_ms"));
  fail_unless (G_APPROX_VALUE (dget (g, "total_s"), FRAMES * 1e-3, 1e-9));
  /* 1 ms of each frame's >= 2 ms: at most half the running time. */
  fail_unless (dget (g, "busy_pct") > 10 && dget (g, "busy_pct") <= 50.0,
      "busy %f", dget (g, "busy_pct"));
  none = rows (s, "gpu", "i", "gpup");
  fail_unless_equals_int (none->len, 0);
  g_ptr_array_free (none, TRUE);
  e = row (s, "elements", "g", "gpup");
  fail_unless (G_APPROX_VALUE (dget (e, "gpu_mean_ms"), 1.0, 1e-9));
  id = row (s, "elements", "i", "gpup");
  fail_if (gst_structure_has_field (id, "gpu_mean_ms"));
  /* The parameter of the main () string. */
  g_object_get (t, "cuda-sync", &sync, NULL);
  fail_unless (sync);
  gst_structure_free (s);
  gst_object_unref (t);
}

GST_END_TEST;

/* The text tables and the trace's GPU track (a second tracer run in a
 * child process, with a trace file and a text summary). */
GST_START_TEST (test_gpu_text_and_trace)
{
  gchar *dir = g_dir_make_tmp ("stageprof-gpu-XXXXXX", NULL);
  gchar *trace = g_build_filename (dir, "t.json", NULL);
  gchar *sum = g_build_filename (dir, "s.txt", NULL);
  gchar *json = NULL, *text = NULL, **lines;
  guint i, slices = 0, named = 0;
  GPid pid;
  gint status;

  if (fork () == 0) {
    gchar *tracers = g_strdup_printf ("stageprof(trace=%s,summary=%s)",
        trace, sum);
    g_setenv ("GST_TRACERS", tracers, TRUE);
    /* A new process: its own tracer (see run_child). */
    execl ("/proc/self/exe", "test_stageprof_gpu", "--child", NULL);
    _exit (127);
  }
  pid = wait (&status);
  fail_unless (pid > 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0,
      "child failed");
  fail_unless (g_file_get_contents (trace, &json, NULL, NULL));
  fail_unless (g_file_get_contents (sum, &text, NULL, NULL));
  lines = g_strsplit (json, "\n", -1);
  for (i = 0; lines[i]; i++) {
    if (strstr (lines[i], "\"cat\":\"gpu\"")) {
      slices++;
      fail_unless (strstr (lines[i], "\"name\":\"g\"") != NULL, "%s",
          lines[i]);
      fail_unless (strstr (lines[i], "\"dur\":1000") != NULL, "%s",
          lines[i]);
    }
    if (strstr (lines[i], "GPU (CUDA events)"))
      named++;
  }
  fail_unless_equals_int (slices, FRAMES);
  fail_unless_equals_int (named, 1);
  fail_unless (strstr (text, "GPU (kernel time by CUDA events") != NULL,
      "%s", text);
  /* The Elements table's header ends with the GPU column. */
  fail_unless (g_regex_match_simple ("Node .*%Busy +GPU\n", text, 0, 0),
      "%s", text);
  g_strfreev (lines);
  g_free (json);
  g_free (text);
  g_unlink (trace);
  g_unlink (sum);
  g_rmdir (dir);
  g_free (trace);
  g_free (sum);
  g_free (dir);
}

GST_END_TEST;

static Suite *
stageprof_gpu_suite (void)
{
  Suite *s = suite_create ("stageprof_gpu");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_gpu_rows);
  tcase_add_test (tc, test_gpu_text_and_trace);
  return s;
}

int
main (int argc, char **argv)
{
  gboolean child = argc > 1 && strcmp (argv[1], "--child") == 0;

  /* The child of test_gpu_text_and_trace: its tracer writes the trace and
   * the summary at gst_deinit (). */
  if (child) {
    GstElement *p;
    GstMessage *msg;
    gboolean eos;

    gst_init (NULL, NULL);
    gst_element_register (NULL, "gpufake", GST_RANK_NONE,
        gst_gpu_fake_get_type ());
    p = gst_parse_launch ("videotestsrc num-buffers="
        G_STRINGIFY (FRAMES) " ! gpufake name=g ! identity name=i "
        "! fakesink", NULL);
    /* No check macros here: this process has no test runner. */
    if (!p)
      return 2;
    gst_element_set_state (p, GST_STATE_PLAYING);
    msg = stage_test_pop_end (p, 60 * GST_SECOND);
    eos = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    gst_clear_message (&msg);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    gst_deinit ();
    return eos ? 0 : 3;
  }
  g_setenv ("GST_TRACERS", "stageprof(summary=none,cuda-sync=true)", TRUE);
  gst_check_init (&argc, &argv);
  gst_element_register (NULL, "gpufake", GST_RANK_NONE,
      gst_gpu_fake_get_type ());
  return gst_check_run_suite (stageprof_gpu_suite (), "stageprof_gpu",
      __FILE__);
}
