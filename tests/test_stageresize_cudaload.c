/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: a CUDA build's stages plugin links no gstcuda (nor the GL,
 * X11 and Wayland libraries behind it) and opens its CUDA module only when
 * stageresize is handed CUDA memory; without a GPU that ends in a clear
 * error, not a crash. Built only with -Dcuda. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <string.h>

#include "lib/stagetest.h"

static gboolean
process_maps (const gchar * needle)
{
  gchar *maps = NULL;
  gboolean found;

  fail_unless (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  found = strstr (maps, needle) != NULL;
  g_free (maps);
  return found;
}

GST_START_TEST (test_cpu_use_loads_no_gstcuda)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=3 "
      "! video/x-raw,width=128,height=96 ! stageresize width=64 height=48 "
      "! fakesink", NULL);

  fail_unless (p != NULL);
  stage_test_play_to_eos (p, 30 * GST_SECOND, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  fail_if (process_maps ("libgstcuda"),
      "a CPU-only stageresize pipeline loaded libgstcuda");
  fail_if (process_maps ("libgststages-cuda"),
      "a CPU-only stageresize pipeline opened the CUDA module");
}

GST_END_TEST;

GST_START_TEST (test_cuda_caps_open_module_clear_error)
{
  GstElement *p = gst_parse_launch ("appsrc name=src format=time "
      "caps=\"video/x-raw(memory:CUDAMemory),format=I420,width=64,height=48,"
      "framerate=30/1\" ! stageresize width=32 height=24 ! fakesink", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL;

  if (g_file_test ("/dev/nvidiactl", G_FILE_TEST_EXISTS)) {
    /* A GPU answers here: the GPU suite covers real CUDA memory. */
    g_printerr ("SKIP: a GPU is present, test_stageresize_cuda covers it\n");
    gst_object_unref (src);
    gst_object_unref (p);
    return;
  }
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_new_and_alloc (64 *
          48 * 3 / 2));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = stage_test_expect_error (p, 30 * GST_SECOND,
      "CUDA caps without a GPU");
  gst_message_parse_error (msg, &err, &dbg);
  fail_unless (strstr (err->message, "CUDA") != NULL, "%s", err->message);
  fail_unless (g_utf8_validate (err->message, -1, NULL));
  GST_INFO ("error: %s (%s)", err->message, dbg);
  /* The module opened for it (it is what answered). */
  fail_unless (process_maps ("libgststages-cuda"));
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
stageresize_cudaload_suite (void)
{
  Suite *s = suite_create ("stageresize_cudaload");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  /* Under CK_FORK=no the first case must run first (nothing CUDA loaded). */
  tcase_add_test (tc, test_cpu_use_loads_no_gstcuda);
  tcase_add_test (tc, test_cuda_caps_open_module_clear_error);
  return s;
}

GST_CHECK_MAIN (stageresize_cudaload);
