/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers of the selector suites (stagestride, stagerange, stagegather):
 * numbered frames at 30 fps, a harness, counters, EOS counting. */
#ifndef __SELECTOR_CHECK_H__
#define __SELECTOR_CHECK_H__

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "lib/stagetest.h"

#define CAPS_30 "video/x-raw,format=GRAY8,width=2,height=2,framerate=30/1"

static G_GNUC_UNUSED GstClockTime
frame_pts (guint64 i)
{
  return gst_util_uint64_scale (i, GST_SECOND, 30);
}

/* A frame that remembers its input position in its content (and in
 * OFFSET, which a stride renumbers), so the output tells which frames
 * were kept. */
static G_GNUC_UNUSED GstBuffer *
make_frame (guint64 i)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, 4, NULL);
  guint32 pos = (guint32) i;

  gst_buffer_fill (b, 0, &pos, 4);

  GST_BUFFER_PTS (b) = frame_pts (i);
  GST_BUFFER_DTS (b) = frame_pts (i);
  GST_BUFFER_DURATION (b) = frame_pts (i + 1) - frame_pts (i);
  GST_BUFFER_OFFSET (b) = i;
  GST_BUFFER_OFFSET_END (b) = i + 1;
  return b;
}

static G_GNUC_UNUSED guint64
frame_position (GstBuffer * b)
{
  guint32 pos = 0;

  gst_buffer_extract (b, 0, &pos, 4);
  return pos;
}

static G_GNUC_UNUSED GstHarness *
selector_harness (const gchar * desc, const gchar * caps)
{
  GstHarness *h = gst_harness_new_parse (desc);

  gst_harness_set_src_caps_str (h, caps);
  return h;
}

/* Pops the queued downstream events, returning how many were EOS. */
static G_GNUC_UNUSED guint
count_eos (GstHarness * h)
{
  GstEvent *ev;
  guint n = 0;

  while ((ev = gst_harness_try_pull_event (h))) {
    n += GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
  }
  return n;
}

/* A read-only counter (in, out, dropped) of the selector `factory`. */
static G_GNUC_UNUSED guint64
selector_counter (GstHarness * h, const gchar * factory, const gchar * name)
{
  GstElement *e = gst_harness_find_element (h, factory);
  guint64 v;

  g_object_get (e, name, &v, NULL);
  gst_object_unref (e);
  return v;
}

/* Runs the pipeline `desc` to EOS and reads the `in` and `out` counters of
 * its element named `name`. */
static G_GNUC_UNUSED void
run_to_eos_counting (const gchar * desc, const gchar * name, guint64 * in,
    guint64 * out)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);

  stage_test_play_to_eos (pipe, 20 * GST_SECOND, NULL);
  g_object_get (e, "in", in, "out", out, NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (e);
  gst_object_unref (pipe);
}

/* Pushes @frames frames through @desc and checks that every dropped frame
 * before the selection ends sends exactly one GAP event downstream, with
 * that frame's PTS and duration, unless the kept frame before it already
 * spans its time (a stride's kept frame lasts stride frames), and that
 * kept frames send none. Returns how many GAPs came. */
static G_GNUC_UNUSED guint
check_gaps (const gchar * desc, guint frames)
{
  GstHarness *h = selector_harness (desc, CAPS_30);
  guint64 i;
  guint gaps = 0;
  GstClockTime covered = 0;

  /* the sticky events of the start */
  while (gst_harness_events_in_queue (h) > 0)
    gst_event_unref (gst_harness_pull_event (h));
  for (i = 0; i < frames; i++) {
    GstFlowReturn ret = gst_harness_push (h, make_frame (i));
    GstBuffer *b = gst_harness_try_pull (h);
    GstEvent *ev;
    guint here = 0;

    while ((ev = gst_harness_try_pull_event (h))) {
      if (GST_EVENT_TYPE (ev) == GST_EVENT_GAP) {
        GstClockTime ts, dur;

        gst_event_parse_gap (ev, &ts, &dur);
        fail_unless_equals_uint64 (ts, frame_pts (i));
        fail_unless_equals_uint64 (dur, frame_pts (i + 1) - frame_pts (i));
        here++;
      }
      gst_event_unref (ev);
    }
    if (b != NULL || ret == GST_FLOW_EOS)
      fail_unless (here == 0, "%s: frame %" G_GUINT64_FORMAT " kept or last, "
          "but %u GAP(s)", desc, i, here);
    else if (frame_pts (i) < covered)
      fail_unless (here == 0, "%s: frame %" G_GUINT64_FORMAT " dropped "
          "inside the kept frame's span, but %u GAP(s)", desc, i, here);
    else
      fail_unless (here == 1, "%s: frame %" G_GUINT64_FORMAT " dropped, "
          "%u GAP(s)", desc, i, here);
    gaps += here;
    if (b)
      covered = GST_BUFFER_PTS (b) + GST_BUFFER_DURATION (b);
    if (b)
      gst_buffer_unref (b);
    if (ret == GST_FLOW_EOS)
      break;
  }
  gst_harness_teardown (h);
  return gaps;
}

/* Issue 9: a selector in one branch of a tee, the other branch a plain
 * queue into a sink. Dropped frames used to send nothing downstream, so the
 * selector's sink never prerolled while the other queue filled: a hang.
 * @pre goes between the source and the tee (a real decode, say). */
static G_GNUC_UNUSED void
check_tee_branch (const gchar * pre, const gchar * selector)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=300 ! %s "
      "tee name=t t. ! queue ! fakesink t. ! queue ! %s name=sel ! fakesink",
      pre, selector);
  GstElement *pipe = gst_parse_launch (desc, NULL);

  fail_unless (pipe != NULL, "%s", desc);
  stage_test_play_to_eos (pipe, 60 * GST_SECOND, desc);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_free (desc);
}

static G_GNUC_UNUSED gboolean
utf8_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user_data)
{
  fail_unless (g_utf8_validate (message, -1, NULL),
      "a warning is not valid UTF-8");
  g_atomic_int_inc ((gint *) user_data);
  return TRUE;
}

/* Issue 9: sets the string property @prop of a new @factory to the raw
 * bytes @value (and @prop2 to @value2 when given), starts it, and checks
 * that the warning given when setting it, and the error message and debug
 * text of the refused start, are valid UTF-8 (PyGObject's parse_error()
 * raises otherwise). Returns the error message. */
static G_GNUC_UNUSED gchar *
refused_utf8 (const gchar * factory, const gchar * prop, const gchar * value,
    const gchar * prop2, const gchar * value2)
{
  GstElement *pipe = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("videotestsrc", NULL);
  GstElement *e = gst_element_factory_make (factory, NULL);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  gint warnings = 0;
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new (".", G_REGEX_RAW, 0, NULL),
      utf8_warning, &warnings, NULL);
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL, *text;

  g_object_set (e, prop, value, NULL);
  if (prop2)
    g_object_set (e, prop2, value2, NULL);
  gst_bin_add_many (GST_BIN (pipe), src, e, sink, NULL);
  fail_unless (gst_element_link_many (src, e, sink, NULL));
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no error", factory);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (g_utf8_validate (err->message, -1, NULL),
      "%s: error message not UTF-8", factory);
  fail_unless (debug == NULL || g_utf8_validate (debug, -1, NULL),
      "%s: debug text not UTF-8", factory);
  text = g_strdup (err->message);
  GST_INFO ("%s %s: %s", factory, prop, text);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_check_remove_log_filter (filter);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return text;
}

/* @n ASCII 'x' then @tail: a multibyte character placed across the cut of
 * a quoted token. */
static G_GNUC_UNUSED gchar *
x_then (guint n, const gchar * tail)
{
  gchar *x = g_strnfill (n, 'x'), *s = g_strconcat (x, tail, NULL);

  g_free (x);
  return s;
}

#endif /* __SELECTOR_CHECK_H__ */
