/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-stagerepeatnull
 * @title: stagerepeatnull
 *
 * Spreads the stream out by @repeat (K) with empty positions between the
 * frames (Scanner's RepeatNull, the SpaceNull sampler): input frame r
 * comes out at position r*K, and positions r*K+1 .. r*K+K-1 are Scanner
 * "null elements". A stream of N frames has N*K positions: N frames and
 * N*(K-1) nulls.
 *
 * A null element is what GStreamer calls a gap: time that is part of the
 * stream but carries no data. After each frame the element sends one GAP
 * event covering that frame's K-1 null positions. The frame itself lasts
 * one position (d/K for an input frame lasting d) and the GAP the rest, so
 * the timeline is exactly the input's, at K times the rate (caps
 * framerate * K). Downstream, a GAP keeps time moving: sinks preroll and
 * advance their position on it without rendering anything, aggregators
 * (compositor, audiomixer) treat the span as having no input from that
 * pad, encoders and muxers skip it, and elements that only count buffers
 * (our selectors, stagesink) never see the nulls. So an op after
 * stagerepeatnull runs on the N real frames only, as Scanner's kernels
 * skip null elements.
 *
 * Counters: `in` frames received, `out` frames pushed (= in) and `nulls`
 * null positions sent as GAPs (= (K-1) * in). A frame without PTS gets no
 * GAP (it needs a timestamp); one without duration and framerate gets a
 * GAP of unknown duration at its PTS.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,width=1280,height=720,framerate=30/1 ! stagerepeatnull repeat=3 ! fakesink silent=false -v
 * ]| 30 frames at 90/1, each followed by a GAP event of two positions.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagerepeatnull.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_repeat_null_debug);
#define GST_CAT_DEFAULT gst_stage_repeat_null_debug

enum
{
  PROP_0,
  PROP_NULLS,
};

struct _GstStageRepeatNull
{
  GstStageRepeatBase parent;
};

G_DEFINE_TYPE_WITH_CODE (GstStageRepeatNull, gst_stage_repeat_null,
    GST_TYPE_STAGE_REPEAT_BASE,
    GST_DEBUG_CATEGORY_INIT (gst_stage_repeat_null_debug, "stagerepeatnull",
        0, "spread frames out with null positions (GAP events)"));
GST_ELEMENT_REGISTER_DEFINE (stagerepeatnull, "stagerepeatnull",
    GST_RANK_NONE, GST_TYPE_STAGE_REPEAT_NULL);

static void
gst_stage_repeat_null_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  switch (prop_id) {
    case PROP_NULLS:
      g_value_set_uint64 (value,
          gst_stage_repeat_base_get_nulls (GST_STAGE_REPEAT_BASE (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_stage_repeat_null_class_init (GstStageRepeatNullClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->get_property = gst_stage_repeat_null_get_property;
  g_object_class_install_property (gobject_class, PROP_NULLS,
      g_param_spec_uint64 ("nulls", "Nulls",
          "Number of null positions sent downstream as GAP events since the "
          "element started ((repeat - 1) per frame)", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_set_static_metadata (element_class,
      "Repeat with nulls", "Filter/Video",
      "Puts each frame at every K-th position and a GAP event over the K-1 "
      "empty positions after it (Scanner's RepeatNull)", "gst-stages");
  GST_STAGE_REPEAT_BASE_CLASS (klass)->null_fill = TRUE;
}

static void
gst_stage_repeat_null_init (GstStageRepeatNull * self)
{
}
