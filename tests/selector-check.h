/* Helpers of the selector suites (stagestride, stagerange, stagegather):
 * numbered frames at 30 fps, a harness, counters, EOS counting. */
#ifndef SELECTOR_CHECK_H
#define SELECTOR_CHECK_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#define CAPS_30 "video/x-raw,format=GRAY8,width=2,height=2,framerate=30/1"

static G_GNUC_UNUSED GstClockTime
frame_pts (guint64 i)
{
  return gst_util_uint64_scale (i, GST_SECOND, 30);
}

/* A frame that remembers its input position in OFFSET, so the output tells
 * which frames were kept. */
static G_GNUC_UNUSED GstBuffer *
make_frame (guint64 i)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, 4, NULL);

  GST_BUFFER_PTS (b) = frame_pts (i);
  GST_BUFFER_DTS (b) = frame_pts (i);
  GST_BUFFER_DURATION (b) = frame_pts (i + 1) - frame_pts (i);
  GST_BUFFER_OFFSET (b) = i;
  GST_BUFFER_OFFSET_END (b) = i + 1;
  return b;
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

#endif /* SELECTOR_CHECK_H */
