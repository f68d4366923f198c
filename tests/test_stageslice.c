/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageslice and stageunslice (Scanner's Slice / Unslice): Scanner's
 * overlapping-slice test, per-group parameters, size/stride with a partial
 * last group, the group events and segments, EOS and flush in the middle of
 * a group, bad values, and the refusal inside stagebin. */
#include <gst/check/gstcheck.h>

#include "glib-versions.h"
#include <gst/check/gstharness.h>
#include <string.h>

#include "selector-check.h"
#include "prop-check.h"
#include "lib/stagetest.h"

#define OVERLAP "stageslice name=s ranges=\"0:15,5:25,15:35\""

/* A numbered frame whose first byte also holds its number. */
static GstBuffer *
frame_with_content (guint64 i)
{
  GstBuffer *b = make_frame (i);

  gst_buffer_memset (b, 0, (guint8) i, 4);
  return b;
}

/* Pushes frames [from, to); returns the flow of the last push. Pushes stop
 * at the first one that is not OK. */
static GstFlowReturn
push_range (GstHarness * h, guint64 from, guint64 to)
{
  GstFlowReturn ret = GST_FLOW_OK;
  guint64 i;

  for (i = from; i < to && ret == GST_FLOW_OK; i++)
    ret = gst_harness_push (h, frame_with_content (i));
  return ret;
}

/* Pulls every output buffer, checking that the PTS grow by one frame at
 * @fps_n/1 (one continuous regular stream when @fps_n > 0, at least
 * monotonic otherwise) and that OFFSET numbers the frame at that rate;
 * returns the input positions (the frames' content). */
static GArray *
pull_checked (GstHarness * h, gint fps_n)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint64));
  GstClockTime prev = GST_CLOCK_TIME_NONE;
  GstBuffer *b;

  while ((b = gst_harness_try_pull (h))) {
    guint64 o;
    guint8 v = 0;

    gst_buffer_extract (b, 0, &v, 1);
    o = v;
    if (fps_n > 0)
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b),
          gst_util_uint64_scale_round (GST_BUFFER_PTS (b), fps_n,
              GST_SECOND));
    if (GST_CLOCK_TIME_IS_VALID (prev)) {
      fail_unless (GST_BUFFER_PTS (b) > prev, "PTS not increasing at "
          "output %u", out->len);
      if (fps_n > 0) {
        GstClockTime step = GST_BUFFER_PTS (b) - prev;

        GstClockTime period = GST_SECOND / (GstClockTime) fps_n;

        fail_unless (step + 2 >= period && step <= period + 2, "output %u: step %"
            G_GUINT64_FORMAT, out->len, step);
      }
    }
    prev = GST_BUFFER_PTS (b);
    g_array_append_val (out, o);
    gst_buffer_unref (b);
  }
  return out;
}

/* The expected OFFSETs: runs [a, b) concatenated, terminated by a < 0. */
static void
assert_runs (GArray * got, const gint * runs)
{
  guint n = 0, i;
  gint a;

  for (i = 0; (a = runs[i]) >= 0; i += 2) {
    gint v;

    for (v = a; v < runs[i + 1]; v++, n++) {
      fail_unless (n < got->len, "only %u outputs", got->len);
      fail_unless_equals_uint64 (g_array_index (got, guint64, n), v);
    }
  }
  fail_unless_equals_int (got->len, n);
}

static guint64
counter (GstHarness * h, const gchar * name, const gchar * prop)
{
  GstElement *e = gst_harness_find_element (h, name);
  guint64 v;

  if (e == NULL) {
    GstBin *bin = GST_BIN (h->element);

    e = gst_bin_get_by_name (bin, name);
  }
  fail_unless (e != NULL, "no element %s", name);
  g_object_get (e, prop, &v, NULL);
  gst_object_unref (e);
  return v;
}

/* Scanner's test_overlapping_slice with one range for all groups: groups
 * [0,15), [5,25), [15,35), the first 10 frames of each: 30 outputs, group
 * by group, one regular stream. The slice ends the stream once the last
 * group is done. */
GST_START_TEST (test_overlapping_slice)
{
  GstHarness *h = selector_harness (OVERLAP " ! stagerange name=r "
      "ranges=0:10 ! stageunslice name=u", CAPS_30);
  const gint runs[] = { 0, 10, 5, 15, 15, 25, -1 };
  GArray *got;

  fail_unless_equals_int (push_range (h, 0, 34), GST_FLOW_OK);
  /* frame 34 completes the last group: EOS goes out with it */
  fail_unless_equals_int (push_range (h, 34, 35), GST_FLOW_EOS);
  fail_unless_equals_int (push_range (h, 35, 36), GST_FLOW_EOS);
  got = pull_checked (h, 30);
  assert_runs (got, runs);
  fail_unless_equals_int (count_eos (h), 1);
  fail_unless_equals_uint64 (counter (h, "s", "in"), 36);
  fail_unless_equals_uint64 (counter (h, "s", "out"), 15 + 20 + 20);
  fail_unless_equals_uint64 (counter (h, "s", "dropped"), 1);
  fail_unless_equals_uint64 (counter (h, "s", "groups"), 3);
  fail_unless_equals_uint64 (counter (h, "r", "in"), 55);
  fail_unless_equals_uint64 (counter (h, "r", "out"), 30);
  fail_unless_equals_uint64 (counter (h, "u", "in"), 30);
  fail_unless_equals_uint64 (counter (h, "u", "out"), 30);
  fail_unless_equals_uint64 (counter (h, "u", "groups"), 3);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Scanner's test_overlapping_slice as written there, with a SliceList of
 * per-group ranges [0,10), [5,15), [5,15): frames 0..29 in order. */
GST_START_TEST (test_group_params)
{
  GstHarness *h = selector_harness (OVERLAP " group-params=\""
      "r.ranges=0:10; r.ranges=5:15; r.ranges=5:15\" ! stagerange "
      "name=r ranges=0:1 ! stageunslice", CAPS_30);
  const gint runs[] = { 0, 30, -1 };
  GArray *got;

  fail_unless_equals_int (push_range (h, 0, 35), GST_FLOW_EOS);
  got = pull_checked (h, 30);
  assert_runs (got, runs);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Every selector restarts per group: a stride counts from each group's
 * start, a gather list names positions inside each group. */
GST_START_TEST (test_selectors_per_group)
{
  GstHarness *h = selector_harness ("stageslice size=10 ! stagestride "
      "stride=3 offset=1 ! stageunslice", CAPS_30);
  const guint64 stride_want[] = { 1, 4, 7, 11, 14, 17, 21, 24 };
  const guint64 gather_want[] = { 0, 9, 10, 19, 20 };
  GArray *got;
  guint i;

  push_range (h, 0, 25);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  got = pull_checked (h, 0);
  fail_unless_equals_int (got->len, G_N_ELEMENTS (stride_want));
  for (i = 0; i < got->len; i++)
    fail_unless_equals_uint64 (g_array_index (got, guint64, i),
        stride_want[i]);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);

  h = selector_harness ("stageslice size=10 ! stagegather indices=9,0 ! "
      "stageunslice", CAPS_30);
  push_range (h, 0, 25);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  got = pull_checked (h, 0);
  fail_unless_equals_int (got->len, G_N_ELEMENTS (gather_want));
  for (i = 0; i < got->len; i++)
    fail_unless_equals_uint64 (g_array_index (got, guint64, i),
        gather_want[i]);
  fail_unless_equals_int (count_eos (h), 1);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* GAPs (RepeatNull's nulls) inside groups are retimed with the frames:
 * frames and gaps tile one monotonic timeline after unslice. */
GST_START_TEST (test_gaps_retimed)
{
  GstHarness *h = selector_harness ("stageslice ranges=\"0:3,1:4\" ! "
      "stagerepeatnull repeat=2 ! stageunslice", CAPS_30);
  GstClockTime next = 0;
  guint buffers = 0, gaps = 0;
  guint i;

  push_range (h, 0, 4);
  /* buffers and events were queued apart: walk both in push order */
  for (i = 0; i < 6; i++) {
    GstBuffer *b = gst_harness_pull (h);
    GstEvent *ev;

    fail_unless (GST_BUFFER_PTS (b) + 1 >= next && GST_BUFFER_PTS (b) <=
        next + 1, "frame %u at %" GST_TIME_FORMAT ", want %" GST_TIME_FORMAT,
        i, GST_TIME_ARGS (GST_BUFFER_PTS (b)), GST_TIME_ARGS (next));
    next = GST_BUFFER_PTS (b) + GST_BUFFER_DURATION (b);
    gst_buffer_unref (b);
    buffers++;
    while ((ev = gst_harness_pull_event (h))) {
      if (GST_EVENT_TYPE (ev) == GST_EVENT_GAP) {
        GstClockTime ts, dur;

        gst_event_parse_gap (ev, &ts, &dur);
        fail_unless (ts + 1 >= next && ts <= next + 1);
        next = ts + dur;
        gaps++;
        gst_event_unref (ev);
        break;
      }
      gst_event_unref (ev);
    }
  }
  fail_unless_equals_int (buffers, 6);
  fail_unless_equals_int (gaps, 6);
  /* 6 frames of 2 positions at 60/1 */
  fail_unless (next + 6 >= frame_pts (6) && next <= frame_pts (6) + 6);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstEvent *
group_event (guint64 index, guint64 start, guint64 end)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
      gst_structure_new ("stage-group", "index", G_TYPE_UINT64, index,
          "start", G_TYPE_UINT64, start, "end", G_TYPE_UINT64, end,
          "stride", G_TYPE_UINT64, (guint64) 1, "first", G_TYPE_UINT64,
          (guint64) 0, NULL));
}

static void
push_gap_at (GstHarness * h, guint64 frame)
{
  fail_unless (gst_harness_push_event (h, gst_event_new_gap (frame_pts
              (frame), frame_pts (frame + 1) - frame_pts (frame))));
}

/* Holes that dropped frames leave (plain GAPs, as the selectors send)
 * survive only between two frames of one group: before a group's first
 * frame (the first group's too: the joined stream starts at 0) and after
 * its last one they are not part of the joined stream. */
GST_START_TEST (test_unslice_holes)
{
  GstHarness *h = selector_harness ("stageunslice", CAPS_30);
  const guint64 want[] = { 0, 1, 3, 4, 5 };
  GstSegment seg;
  GstEvent *ev;
  GstBuffer *b;
  guint n = 0, gaps = 0;

  fail_unless (gst_harness_push_event (h, group_event (0, 0, 6)));
  push_gap_at (h, 0);
  push_range (h, 1, 3);
  push_gap_at (h, 3);
  push_range (h, 4, 5);
  push_gap_at (h, 5);
  /* group 1 [2, 6) as stageslice sends it: running time goes on at 5/30 */
  fail_unless (gst_harness_push_event (h, group_event (1, 2, 6)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = seg.position = frame_pts (2);
  seg.base = frame_pts (5);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  push_gap_at (h, 2);
  push_range (h, 3, 5);

  while ((b = gst_harness_try_pull (h))) {
    fail_unless (n < G_N_ELEMENTS (want));
    fail_unless (GST_BUFFER_PTS (b) + 1 >= frame_pts (want[n])
        && GST_BUFFER_PTS (b) <= frame_pts (want[n]) + 1, "output %u at %"
        GST_TIME_FORMAT, n, GST_TIME_ARGS (GST_BUFFER_PTS (b)));
    gst_buffer_unref (b);
    n++;
  }
  fail_unless_equals_int (n, G_N_ELEMENTS (want));
  while ((ev = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_GAP) {
      GstClockTime ts, dur;

      gst_event_parse_gap (ev, &ts, &dur);
      fail_unless (ts + 2 >= frame_pts (2) && ts <= frame_pts (2) + 2,
          "GAP at %" GST_TIME_FORMAT, GST_TIME_ARGS (ts));
      gaps++;
    }
    /* the group events stay inside the slice/unslice section */
    fail_if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_DOWNSTREAM);
    gst_event_unref (ev);
  }
  fail_unless_equals_int (gaps, 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Upstream GAPs go out inside the group being read, never outside one
 * (there is no segment for them downstream there). */
GST_START_TEST (test_upstream_gaps)
{
  GstHarness *h = selector_harness ("stagerepeatnull repeat=2 ! stageslice "
      "ranges=1:3", CAPS_30);
  gboolean seen_segment = FALSE;
  guint gaps = 0;
  GstEvent *ev;

  fail_unless_equals_int (push_range (h, 0, 2), GST_FLOW_OK);
  fail_unless_equals_int (push_range (h, 2, 3), GST_FLOW_EOS);
  while ((ev = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT)
      seen_segment = TRUE;
    if (GST_EVENT_TYPE (ev) == GST_EVENT_GAP) {
      fail_unless (seen_segment, "GAP before the group's segment");
      gaps++;
    }
    gst_event_unref (ev);
  }
  /* frame 0's gap came before any group; frame 2's after the last one */
  fail_unless_equals_int (gaps, 1);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 2);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* What the slice sends: per group a stage-group event with its range and
 * position, then a segment whose running time continues where the
 * previous group ended; PTS stay the original frames'. */
GST_START_TEST (test_group_events_and_segments)
{
  GstHarness *h = selector_harness (OVERLAP, CAPS_30);
  const guint64 starts[] = { 0, 5, 15 }, ends[] = { 15, 25, 35 };
  GstSegment seg;
  GstClockTime prev_rt = GST_CLOCK_TIME_NONE;
  guint groups = 0, buffers = 0;
  GstEvent *ev;

  push_range (h, 0, 35);
  gst_segment_init (&seg, GST_FORMAT_UNDEFINED);
  /* events and buffers interleave: replay them in order */
  while ((ev = gst_harness_try_pull_event (h))) {
    const GstStructure *s = gst_event_get_structure (ev);

    if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_DOWNSTREAM
        && gst_structure_has_name (s, "stage-group")) {
      guint64 index, start, end, stride, first, n;
      guint k;

      fail_unless (gst_structure_get (s, "index", G_TYPE_UINT64, &index,
              "start", G_TYPE_UINT64, &start, "end", G_TYPE_UINT64, &end,
              "stride", G_TYPE_UINT64, &stride, "first", G_TYPE_UINT64,
              &first, "n-groups", G_TYPE_UINT64, &n, NULL));
      fail_unless_equals_uint64 (index, groups);
      fail_unless_equals_uint64 (start, starts[groups]);
      fail_unless_equals_uint64 (end, ends[groups]);
      fail_unless (stride == 1 && first == 0 && n == 3);
      /* the group's frames follow its segment */
      gst_event_unref (ev);
      ev = gst_harness_pull_event (h);
      fail_unless_equals_int (GST_EVENT_TYPE (ev), GST_EVENT_SEGMENT);
      gst_event_copy_segment (ev, &seg);
      fail_unless_equals_uint64 (seg.start, frame_pts (start));
      fail_unless_equals_uint64 (seg.time, frame_pts (start));
      for (k = 0; k < end - start; k++) {
        GstBuffer *b = gst_harness_pull (h);
        GstClockTime rt = gst_segment_to_running_time (&seg,
            GST_FORMAT_TIME, GST_BUFFER_PTS (b));

        fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), start + k);
        fail_unless_equals_uint64 (GST_BUFFER_PTS (b), frame_pts (start + k));
        if (GST_CLOCK_TIME_IS_VALID (prev_rt))
          fail_unless (rt > prev_rt);
        prev_rt = rt;
        gst_buffer_unref (b);
        buffers++;
      }
      groups++;
    }
    gst_event_unref (ev);
  }
  fail_unless_equals_int (groups, 3);
  fail_unless_equals_int (buffers, 55);
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Scanner's strided partitioner: size=4 stride=2 over 19 frames is
 * {0,2,4,6} {8,10,12,14} {16,18}, the last group partial; the first two of
 * each group are 0,2, 8,10, 16,18; the output rate is 30/2. */
GST_START_TEST (test_size_stride_partial)
{
  GstHarness *h = selector_harness ("stageslice name=s size=4 stride=2 ! "
      "stagerange ranges=0:2 ! stageunslice", CAPS_30);
  const guint64 want[] = { 0, 2, 8, 10, 16, 18 };
  GstCaps *caps;
  GArray *got;
  gint n, d;
  guint i;

  fail_unless_equals_int (push_range (h, 0, 19), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  got = pull_checked (h, 15);
  fail_unless_equals_int (got->len, G_N_ELEMENTS (want));
  for (i = 0; i < got->len; i++)
    fail_unless_equals_uint64 (g_array_index (got, guint64, i), want[i]);
  fail_unless_equals_uint64 (counter (h, "s", "groups"), 3);
  fail_unless_equals_uint64 (counter (h, "s", "out"), 10);
  fail_unless_equals_uint64 (counter (h, "s", "dropped"), 9);
  fail_unless_equals_int (count_eos (h), 1);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &n, &d));
  fail_unless (n == 15 && d == 1, "framerate %d/%d", n, d);
  gst_caps_unref (caps);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* EOS in the middle of group 1: group 1 ends there, and group 2 still
 * gets the frames it shares with group 1 (15..19); one EOS. */
GST_START_TEST (test_eos_mid_group)
{
  GstHarness *h = selector_harness (OVERLAP " ! stagerange ranges=0:10 ! "
      "stageunslice", CAPS_30);
  const gint runs[] = { 0, 10, 5, 15, 15, 20, -1 };
  GArray *got;

  fail_unless_equals_int (push_range (h, 0, 20), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  got = pull_checked (h, 30);
  assert_runs (got, runs);
  fail_unless_equals_int (count_eos (h), 1);
  g_array_free (got, TRUE);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
flush_to_frame (GstHarness * h, guint64 frame)
{
  GstSegment seg;

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = seg.position = frame_pts (frame);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
}

/* A flushing seek to frame 20 in the middle of group 0: the slice resumes
 * where the stream now is, each group at its own position (group 1 at 15,
 * past the first 10, so nothing; group 2 at 5: frames 20..24), and the
 * frames kept before the flush are gone. */
GST_START_TEST (test_flush_mid_group)
{
  GstHarness *h = selector_harness (OVERLAP " ! stagerange ranges=0:10 ! "
      "stageunslice name=u", CAPS_30);
  const gint before[] = { 0, 8, -1 }, after[] = { 20, 25, -1 };
  GArray *got;

  fail_unless_equals_int (push_range (h, 0, 8), GST_FLOW_OK);
  got = pull_checked (h, 30);
  assert_runs (got, before);
  g_array_free (got, TRUE);

  flush_to_frame (h, 20);
  fail_unless_equals_int (push_range (h, 20, 34), GST_FLOW_OK);
  fail_unless_equals_int (push_range (h, 34, 35), GST_FLOW_EOS);
  got = pull_checked (h, 30);
  assert_runs (got, after);
  g_array_free (got, TRUE);
  fail_unless_equals_int (count_eos (h), 1);

  /* and a flush after the early EOS re-arms the slice */
  flush_to_frame (h, 0);
  fail_unless_equals_int (push_range (h, 0, 3), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 3);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Reverse playback is refused as by the selectors: a reverse seek does
 * not go upstream, a reverse segment is an error and its frames are
 * refused; a forward segment ends the refusal. */
GST_START_TEST (test_reverse_refused)
{
  GstHarness *h = selector_harness ("stageslice size=4", CAPS_30);
  GstBus *bus = gst_bus_new ();
  gboolean seek_seen = FALSE;
  GError *err = NULL;
  GstMessage *msg;
  GstSegment seg;
  GstEvent *ev;

  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (push_range (h, 0, 2), GST_FLOW_OK);
  while ((ev = gst_harness_try_pull_upstream_event (h)))
    gst_event_unref (ev);
  fail_if (gst_harness_push_upstream_event (h, gst_event_new_seek (-1.0,
              GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 0,
              GST_SEEK_TYPE_SET, GST_SECOND)));
  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    seek_seen |= GST_EVENT_TYPE (ev) == GST_EVENT_SEEK;
    gst_event_unref (ev);
  }
  fail_if (seek_seen, "a reverse seek went upstream");

  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.rate = -1.0;
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  fail_unless_equals_int (push_range (h, 2, 3), GST_FLOW_NOT_SUPPORTED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for a reverse segment");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "everse playback") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);

  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (push_range (h, 2, 4), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 4);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gboolean
count_log (const gchar * log_domain, GLogLevelFlags log_level,
    const gchar * message, gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return TRUE;
}

/* Runs `videotestsrc ! CHAIN ! fakesink` and returns the first error
 * message (NULL if it ran to EOS), whether it failed to start or later. */
static gchar *
run_for_error (const gchar * chain)
{
  gchar *line = g_strdup_printf ("videotestsrc num-buffers=10 ! %s ! "
      "fakesink", chain);
  GstElement *pipe = gst_parse_launch (line, NULL);
  gchar *text = NULL;

  fail_unless (pipe != NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (!stage_test_wait_end (pipe, 20 * GST_SECOND, chain, &text))
    GST_INFO ("%s: %s", chain, text);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_free (line);
  return text;
}

static void
check_error (const gchar * chain, const gchar * a, const gchar * b)
{
  gint hits = 0;
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new (".*", 0, 0, NULL), count_log, &hits,
      NULL);
  gchar *msg = run_for_error (chain);

  fail_unless (msg != NULL, "%s ran without error", chain);
  fail_unless (strstr (msg, a) != NULL, "%s: %s", chain, msg);
  fail_unless (b == NULL || strstr (msg, b) != NULL, "%s: %s", chain, msg);
  g_free (msg);
  gst_check_remove_log_filter (filter);
}

GST_START_TEST (test_bad_values)
{
  check_error ("stageslice ranges=\"15:35,0:15\"", "'ranges'",
      "starts before range 1");
  check_error ("stageslice ranges=\"0:10,10:x\"", "'ranges'", "'10:x'");
  check_error ("stageslice ranges=0:10 size=5", "'ranges'", "'size'");
  check_error ("stageslice", "'ranges'", "'size'");
  check_error ("stageslice ranges=\"0:5,5:10\" group-params=\""
      "r.ranges=0:1\" ! stagerange name=r", "'group-params'", "2 groups");
  check_error ("stageslice size=5 group-params=\"r.ranges=0:1; =\" ! "
      "stagerange name=r", "'group-params'", "group 2");
  check_error ("stageslice size=5 group-params=\"ranges=0:1\" ! "
      "stagerange name=r", "'group-params'", "ELEMENT.PROPERTY=VALUE");
  check_error ("stageslice size=5 group-params=\"r.rangez=0:1\" ! "
      "stagerange name=r", "rangez", NULL);
  check_error ("stageslice size=5 group-params=\"r.ranges=3:1\" ! "
      "stagerange name=r", "3:1", NULL);
  /* an element name no group reaches (it was silently ignored: every
   * frame of every group kept) */
  check_error ("stageslice size=5 group-params=\"q.ranges=0:1\" ! "
      "stagerange name=r ! stageunslice", "no element the groups reach is "
      "named 'q'", "the elements there: r, ");
  /* unslice with no slice upstream */
  check_error ("stageunslice", "no stageslice upstream", NULL);
  check_error ("stagerange ranges=0:5 ! stageunslice",
      "no stageslice upstream", NULL);
}

GST_END_TEST;

/* stride=0 and a size over G_MAXINT stop the pipeline at start with an
 * error naming the property (GObject's range check only warned). */
GST_START_TEST (test_stride_zero_refused)
{
  expect_prop_refused ("videotestsrc num-buffers=3 ! stageslice size=5 "
      "stride=0 ! stageunslice ! fakesink", "stride", "0",
      "allowed are 1 to 2147483647");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stageslice "
      "size=3000000000 ! stageunslice ! fakesink", "size", "3000000000",
      "allowed are 0 to 2147483647");
}

GST_END_TEST;

/* A slice in a stagebin with replicas > 1 would cut each replica's
 * packets, not the stream: refused, naming the op. */
GST_START_TEST (test_stagebin_refused)
{
  check_error ("stagebin ops=\"stageslice size=5 ! stagerange ranges=0:2 ! "
      "stageunslice\" replicas=2", "stageslice", "replicas=1");
  check_error ("stagebin ops=\"stageunslice\" replicas=2", "stageunslice",
      NULL);
}

GST_END_TEST;

/* A real source, real-sized frames, a pipeline to EOS: the source stops
 * once the last group is done. */
GST_START_TEST (test_real_pipeline)
{
  guint64 in, out;

  run_to_eos_counting ("videotestsrc num-buffers=300 ! "
      "video/x-raw,width=320,height=240,framerate=30/1 ! " OVERLAP
      " ! stagerange ranges=0:10 ! stageunslice ! fakesink", "s", &in, &out);
  fail_unless_equals_uint64 (in, 35);
  fail_unless_equals_uint64 (out, 55);
}

GST_END_TEST;

static Suite *
stageslice_suite (void)
{
  Suite *s = suite_create ("stageslice");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_overlapping_slice);
  tcase_add_test (tc, test_group_params);
  tcase_add_test (tc, test_group_events_and_segments);
  tcase_add_test (tc, test_selectors_per_group);
  tcase_add_test (tc, test_gaps_retimed);
  tcase_add_test (tc, test_upstream_gaps);
  tcase_add_test (tc, test_unslice_holes);
  tcase_add_test (tc, test_size_stride_partial);
  tcase_add_test (tc, test_eos_mid_group);
  tcase_add_test (tc, test_flush_mid_group);
  tcase_add_test (tc, test_reverse_refused);
  tcase_add_test (tc, test_bad_values);
  tcase_add_test (tc, test_stride_zero_refused);
  tcase_add_test (tc, test_stagebin_refused);
  tcase_add_test (tc, test_real_pipeline);
  return s;
}

GST_CHECK_MAIN (stageslice);
