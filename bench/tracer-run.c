/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Times one pipeline from PLAYING to EOS, for bench/tracer.sh.
 *
 * gst-launch-1.0 would also time registry loading, parsing and the tracers'
 * teardown (stageprof prints its tables at NULL); only the streaming part
 * is what a tracer's hooks slow down, so only that is timed: from the
 * state change to PLAYING (preroll included: with queues and a slow
 * decoder, most of a short clip is processed before preroll completes)
 * to EOS.
 * Prints "run wall_ns=N cpu_ns=N" (cpu: user+system of the whole process,
 * which includes tracer writer threads).
 *
 * usage: tracer-run "PIPELINE DESCRIPTION"
 */
#include <gst/gst.h>
#include <stdio.h>
#include <sys/resource.h>

static gint64
cpu_ns (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * G_GINT64_CONSTANT (1000000000)
      + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

int
main (int argc, char **argv)
{
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  gint64 w0, c0, w1, c1;
  int ret = 0;

  gst_init (&argc, &argv);
  if (argc != 2) {
    fprintf (stderr, "usage: %s \"PIPELINE\"\n", argv[0]);
    return 2;
  }
  pipeline = gst_parse_launch (argv[1], &err);
  if (!pipeline) {
    fprintf (stderr, "tracer-run: bad pipeline: %s\n", err->message);
    return 2;
  }
  bus = gst_element_get_bus (pipeline);

  w0 = g_get_monotonic_time ();
  c0 = cpu_ns ();
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    fprintf (stderr, "tracer-run: pipeline cannot go to PLAYING\n");
    return 1;
  }
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  w1 = g_get_monotonic_time ();
  c1 = cpu_ns ();
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    fprintf (stderr, "tracer-run: error: %s\n", err->message);
    ret = 1;
  }
  gst_message_unref (msg);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  if (ret == 0)
    printf ("run wall_ns=%" G_GINT64_FORMAT " cpu_ns=%" G_GINT64_FORMAT "\n",
        (w1 - w0) * 1000, c1 - c0);
  fflush (stdout);
  gst_deinit ();
  return ret;
}
