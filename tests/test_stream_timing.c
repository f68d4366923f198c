/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Timing through chains of the stream ops: for every ordered pair of
 * stagestride, stagerange, stagegather, stagerepeat, stagerepeatnull and a
 * stageslice ... stageunslice group (with stageresize between them), the
 * buffers that come out are what the caps promise: each lasts one frame
 * at the caps' rate (never 0/1), none overlaps the next, every hole is
 * covered by GAP events, and OFFSET counts frames at that rate as the
 * timestamps do, with exact numbers for each case. */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include "tmpdir.h"
#include "lib/stagetest.h"


typedef struct
{
  GstClockTime pts, dur;
  guint64 offset;
} Buf;

typedef struct
{
  GArray *bufs;                 /* Buf */
  GArray *gaps;                 /* per buffer: gaps seen before it (Buf) */
  GArray *gap_before;           /* guint: gaps->len when each buffer came */
  gint fps_n, fps_d;
} Run;

static GstPadProbeReturn
probe (GstPad * pad, GstPadProbeInfo * info, Run * r)
{
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
    Buf x = { GST_BUFFER_PTS (b), GST_BUFFER_DURATION (b),
      GST_BUFFER_OFFSET (b)
    };
    guint n = r->gaps->len;

    g_array_append_val (r->bufs, x);
    g_array_append_val (r->gap_before, n);
  } else {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

    if (GST_EVENT_TYPE (ev) == GST_EVENT_GAP) {
      Buf g = { 0, 0, 0 };

      gst_event_parse_gap (ev, &g.pts, &g.dur);
      g_array_append_val (r->gaps, g);
    } else if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      GstCaps *caps;

      gst_event_parse_caps (ev, &caps);
      gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &r->fps_n, &r->fps_d);
    }
  }
  return GST_PAD_PROBE_OK;
}

static void
run_free (Run * r)
{
  g_array_unref (r->bufs);
  g_array_unref (r->gaps);
  g_array_unref (r->gap_before);
}

/* Runs "@desc ! fakesink" (or @desc alone, when it ends in a sink and @r
 * is NULL) to EOS and collects what reaches the fakesink in @r. */
static void
run_chain (const gchar * desc, Run * r)
{
  gchar *full = r ? g_strdup_printf ("%s ! fakesink name=out sync=false",
      desc) : g_strdup (desc);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (full, &err), *sink;
  GstPad *pad;

  fail_unless (pipe != NULL, "%s: %s", full, err ? err->message : "");
  if (r == NULL)
    goto play;
  r->bufs = g_array_new (FALSE, FALSE, sizeof (Buf));
  r->gaps = g_array_new (FALSE, FALSE, sizeof (Buf));
  r->gap_before = g_array_new (FALSE, FALSE, sizeof (guint));
  r->fps_n = -1;
  r->fps_d = 1;
  sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, (GstPadProbeCallback) probe, r,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
play:
  stage_test_play_to_eos (pipe, 60 * GST_SECOND, full);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_free (full);
}

#define TOL (2 * GST_USECOND)

/* Whether the GAP events [first, last) cover [from, to). */
static gboolean
gaps_cover (GArray * gaps, guint first, guint last, GstClockTime from,
    GstClockTime to)
{
  gboolean moved = TRUE;

  while (from + TOL < to && moved) {
    guint i;

    moved = FALSE;
    for (i = first; i < last; i++) {
      Buf *g = &g_array_index (gaps, Buf, i);

      if (GST_CLOCK_TIME_IS_VALID (g->dur) && g->pts <= from + TOL
          && g->pts + g->dur > from + TOL) {
        from = g->pts + g->dur;
        moved = TRUE;
      }
    }
  }
  return from + TOL >= to;
}

/* The invariants above, on one run. */
static void
check_timing (const gchar * desc, Run * r)
{
  GstClockTime period;
  guint i;

  if (r->bufs->len == 0)
    return;
  fail_unless (r->fps_n > 0, "%s: caps framerate %d/%d", desc, r->fps_n,
      r->fps_d);
  period = gst_util_uint64_scale_int (GST_SECOND, r->fps_d, r->fps_n);
  for (i = 0; i < r->bufs->len; i++) {
    Buf *b = &g_array_index (r->bufs, Buf, i), *a, *b0;
    gdouble frames;

    fail_unless (GST_CLOCK_TIME_IS_VALID (b->pts), "%s: buffer %u has no PTS",
        desc, i);
    fail_unless (GST_CLOCK_TIME_IS_VALID (b->dur)
        && ABS ((gint64) b->dur - (gint64) period) <= (gint64) TOL,
        "%s: buffer %u lasts %" GST_TIME_FORMAT ", the caps' frame %"
        GST_TIME_FORMAT, desc, i, GST_TIME_ARGS (b->dur),
        GST_TIME_ARGS (period));
    if (i == 0)
      continue;
    a = &g_array_index (r->bufs, Buf, i - 1);
    b0 = &g_array_index (r->bufs, Buf, 0);
    fail_unless (b->pts + TOL >= a->pts + a->dur, "%s: buffer %u at %"
        GST_TIME_FORMAT " overlaps the one before (%" GST_TIME_FORMAT
        " + %" GST_TIME_FORMAT ")", desc, i, GST_TIME_ARGS (b->pts),
        GST_TIME_ARGS (a->pts), GST_TIME_ARGS (a->dur));
    fail_unless (gaps_cover (r->gaps, g_array_index (r->gap_before, guint,
                i - 1), g_array_index (r->gap_before, guint, i),
            a->pts + a->dur, b->pts), "%s: the hole before buffer %u (%"
        GST_TIME_FORMAT " to %" GST_TIME_FORMAT ") has no GAP event", desc,
        i, GST_TIME_ARGS (a->pts + a->dur), GST_TIME_ARGS (b->pts));
    fail_unless (b->offset > a->offset && b->offset != GST_BUFFER_OFFSET_NONE,
        "%s: offset %" G_GUINT64_FORMAT " after %" G_GUINT64_FORMAT, desc,
        b->offset, a->offset);
    frames = (gdouble) (b->pts - b0->pts) * r->fps_n / r->fps_d / GST_SECOND;
    fail_unless (ABS ((gdouble) (b->offset - b0->offset) - frames) < 1.0,
        "%s: buffer %u is %.2f frames after the first by its time but %"
        G_GUINT64_FORMAT " by its offset", desc, i, frames,
        b->offset - b0->offset);
  }
}

#define SRC "videotestsrc num-buffers=60 ! video/x-raw,format=I420,width=64," \
  "height=48,framerate=30/1"
#define RESIZE "stageresize width=32 height=24"

static const gchar *units[] = {
  "stagestride stride=4 offset=1",
  "stagerange ranges=\"5:25,40:55\"",
  "stagerange ranges=\"3:33\" stride=3",
  "stagegather indices=\"1,2,3,10,20,21,40,59\"",
  "stagerepeat repeat=3",
  "stagerepeatnull repeat=2",
  "stageslice size=20 ! stagestride stride=2 ! stageunslice",
  "stageslice ranges=\"0:4,4:8\" ! stagegather indices=\"1,3\" ! "
      "stageunslice",
};

GST_START_TEST (test_every_pair)
{
  guint a, b, checked = 0;

  for (a = 0; a < G_N_ELEMENTS (units); a++) {
    for (b = 0; b < G_N_ELEMENTS (units); b++) {
      gchar *desc = g_strdup_printf (SRC " ! %s ! " RESIZE " ! %s", units[a],
          units[b]);
      Run r;

      run_chain (desc, &r);
      check_timing (desc, &r);
      checked += r.bufs->len > 1;
      run_free (&r);
      g_free (desc);
    }
  }
  /* most pairs give enough frames to check spacing */
  fail_unless (checked >= 50, "only %u pairs gave two frames", checked);
}

GST_END_TEST;

/* Each element alone, too. */
GST_START_TEST (test_each_alone)
{
  guint a;

  for (a = 0; a < G_N_ELEMENTS (units); a++) {
    gchar *desc = g_strdup_printf (SRC " ! %s", units[a]);
    Run r;

    run_chain (desc, &r);
    fail_unless (r.bufs->len > 1, "%s: %u buffers", desc, r.bufs->len);
    check_timing (desc, &r);
    run_free (&r);
    g_free (desc);
  }
}

GST_END_TEST;

/* Scanner's Repeat after a Stride: rows 0..59, evenly spaced at 30/1
 * (four copies used to be packed into one frame's 33 ms, then a hole). */
GST_START_TEST (test_stride_then_repeat)
{
  Run r;
  guint i;

  run_chain (SRC " ! stagestride stride=4 ! " RESIZE " ! stagerepeat "
      "repeat=4", &r);
  fail_unless_equals_int (r.bufs->len, 60);
  fail_unless_equals_int (r.fps_n, 30);
  fail_unless_equals_int (r.fps_d, 1);
  for (i = 0; i < 60; i++) {
    Buf *b = &g_array_index (r.bufs, Buf, i);
    GstClockTime want = gst_util_uint64_scale_int (i, GST_SECOND, 30);

    fail_unless_equals_uint64 (b->offset, i);
    fail_unless (ABS ((gint64) b->pts - (gint64) want) <= (gint64) TOL,
        "frame %u at %" GST_TIME_FORMAT, i, GST_TIME_ARGS (b->pts));
  }
  run_free (&r);
}

GST_END_TEST;

/* The joined stream starts at 0: the first group's leading hole is not
 * kept (the later groups' never were). */
GST_START_TEST (test_unslice_starts_at_zero)
{
  Run r;
  const guint64 want_off[] = { 0, 2, 3, 5 };
  guint i;

  run_chain (SRC " ! stageslice ranges=\"0:4,4:8\" ! stagegather "
      "indices=\"1,3\" ! stageunslice", &r);
  fail_unless_equals_int (r.bufs->len, 4);
  fail_unless_equals_int (r.fps_n, 30);
  for (i = 0; i < 4; i++) {
    Buf *b = &g_array_index (r.bufs, Buf, i);

    fail_unless_equals_uint64 (b->offset, want_off[i]);
    fail_unless (ABS ((gint64) b->pts - (gint64) gst_util_uint64_scale_int
            (want_off[i], GST_SECOND, 30)) <= (gint64) TOL,
        "frame %u at %" GST_TIME_FORMAT, i, GST_TIME_ARGS (b->pts));
  }
  run_free (&r);
}

GST_END_TEST;

/* stagesrc's own stride follows the same rule as stagestride, and its
 * irregular selections keep the stored grid with GAPs for the holes. */
GST_START_TEST (test_stagesrc_chains)
{
  gchar *dir = g_dir_make_tmp ("timing-XXXXXX", NULL);
  gchar *desc = g_strdup_printf (SRC " ! x264enc speed-preset=ultrafast "
      "bframes=2 key-int-max=15 ! h264parse ! stagesink store=%s/st "
      "stream=clip", dir);
  const gchar *sels[] = { "stride=4", "stride=3 offset=2",
    "indices=\"3,7,8,30,59\"", "ranges=\"0:10,20:30\"",
    "ranges=\"10:40\" stride=5"
  };
  Run r;
  guint i, u;

  run_chain (desc, NULL);
  g_free (desc);
  desc = g_strdup_printf ("stagesrc store=%s/st stream=clip stride=4 ! "
      RESIZE " ! stagerepeat repeat=4", dir);
  run_chain (desc, &r);
  fail_unless_equals_int (r.bufs->len, 60);
  for (i = 0; i < 60; i++)
    fail_unless_equals_uint64 (g_array_index (r.bufs, Buf, i).offset, i);
  check_timing (desc, &r);
  run_free (&r);
  g_free (desc);
  for (i = 0; i < G_N_ELEMENTS (sels); i++) {
    for (u = 0; u < G_N_ELEMENTS (units); u++) {
      desc = g_strdup_printf ("stagesrc store=%s/st stream=clip %s ! "
          RESIZE " ! %s", dir, sels[i], units[u]);
      run_chain (desc, &r);
      check_timing (desc, &r);
      run_free (&r);
      g_free (desc);
    }
  }
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

static Suite *
stream_timing_suite (void)
{
  Suite *s = suite_create ("stream_timing");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_each_alone);
  tcase_add_test (tc, test_every_pair);
  tcase_add_test (tc, test_stride_then_repeat);
  tcase_add_test (tc, test_unslice_starts_at_zero);
  tcase_add_test (tc, test_stagesrc_chains);
  return s;
}

GST_CHECK_MAIN (stream_timing);
