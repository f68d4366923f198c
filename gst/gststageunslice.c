/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-stageunslice
 * @title: stageunslice
 *
 * Joins the groups that a `stageslice` upstream cut the stream into back
 * into one continuous stream (Scanner's Unslice): the groups' outputs in
 * group order, one after the other. It consumes the "stage-group" events
 * and the groups' segments and sends one segment of its own, then retimes
 * every buffer so that each group starts where the previous one ended:
 * PTS grow monotonically even where groups overlapped in the input. Inside
 * a group the spacing of the frames is kept; a group ends one frame
 * period (from the caps framerate, else the last buffer's duration) after
 * its last frame. The joined stream starts at 0: a hole before the first
 * group's first frame is dropped like those before later groups. The caps
 * framerate passes unchanged (the selectors keep or divide it, never make
 * it 0/1); OFFSET, where the buffers carry one and the caps a framerate,
 * becomes the frame's number in the joined stream (its PTS times the
 * framerate). Buffer contents are untouched.
 *
 * GAP events are of two kinds here. A null element of stagerepeatnull (a
 * GAP marked "stage-null") is a position of the stream, as in Scanner: it
 * is retimed like a frame and counts in the group's length. Any other GAP
 * is a hole left by dropped frames (the selectors send one per dropped
 * frame): it is kept, retimed, only between two frames of one group; holes
 * before a group's first frame or after its last are not part of the
 * joined stream (Scanner's Unslice concatenates the rows that exist).
 *
 * A frame that arrives before any group event means there is no
 * stageslice upstream: the element posts a STREAM error saying so.
 *
 * Counters: `in`/`out` frames (equal), `groups` groups joined.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,width=1280,height=720,framerate=30/1 ! stageslice size=25 ! stagerange ranges=0:5 ! stageunslice ! fakesink silent=false -v
 * ]| the first 5 frames of every 25, 20 frames timed as one 30/1 stream.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageunslice.h"
#include "gststagecounters.h"
#include "gststagegroup.h"
#include "gststageutil.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_stage_unslice_debug);
#define GST_CAT_DEFAULT gst_stage_unslice_debug

/* the counters, defined with the selectors' (gststagecounters.h) */
enum
{
  PROP_0,
  PROP_COUNTER_FIRST,
};

struct _GstStageUnslice
{
  GstBaseTransform parent;

  /* streaming thread */
  gboolean in_group;            /* a group event arrived */
  gboolean new_group;           /* no frame of the group yet */
  GstSegment segment;           /* the current group's */
  gboolean segment_sent;        /* ours, once per stream */
  GstClockTime group_first_rt;  /* running time of the group's 1st frame */
  GstClockTime group_base;      /* its output PTS */
  GstClockTime out_end;         /* where the output so far ends */
  /* a hole left by dropped frames, held until a frame of the same group
   * shows it is inside the group (input time, [ts, end)) */
  GstClockTime hole_ts, hole_end;
  gint fps_n, fps_d;

  GstStageCounters count;       /* under the object lock */
};

G_DEFINE_TYPE_WITH_CODE (GstStageUnslice, gst_stage_unslice,
    GST_TYPE_BASE_TRANSFORM,
    GST_DEBUG_CATEGORY_INIT (gst_stage_unslice_debug, "stageunslice", 0,
        "join stageslice groups into one stream"));
GST_ELEMENT_REGISTER_DEFINE (stageunslice, "stageunslice", GST_RANK_NONE,
    GST_TYPE_STAGE_UNSLICE);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static void
gst_stage_unslice_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageUnslice *self = GST_STAGE_UNSLICE (object);

  if (!gst_stage_counters_get (GST_OBJECT (self), &self->count,
          prop_id - PROP_COUNTER_FIRST, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
reset_streaming (GstStageUnslice * self)
{
  self->in_group = FALSE;
  self->new_group = FALSE;
  self->segment_sent = FALSE;
  self->out_end = GST_CLOCK_TIME_NONE;
  self->group_first_rt = self->group_base = GST_CLOCK_TIME_NONE;
  self->hole_ts = self->hole_end = GST_CLOCK_TIME_NONE;
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
}

static gboolean
gst_stage_unslice_start (GstBaseTransform * trans)
{
  GstStageUnslice *self = GST_STAGE_UNSLICE (trans);

  reset_streaming (self);
  self->fps_n = 0;
  self->fps_d = 1;
  GST_OBJECT_LOCK (self);
  memset (&self->count, 0, sizeof (self->count));
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_stage_unslice_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstStageUnslice *self = GST_STAGE_UNSLICE (trans);

  gst_stage_caps_get_framerate (incaps, &self->fps_n, &self->fps_d);
  return TRUE;
}

/* Output time of input time @ts (in the current group's segment), or
 * GST_CLOCK_TIME_NONE when it cannot be mapped. @first: it opens a group. */
static GstClockTime
map_time (GstStageUnslice * self, GstClockTime ts)
{
  GstClockTime rt;

  if (!GST_CLOCK_TIME_IS_VALID (ts) || self->segment.format !=
      GST_FORMAT_TIME)
    return GST_CLOCK_TIME_NONE;
  rt = gst_segment_to_running_time (&self->segment, GST_FORMAT_TIME, ts);
  if (!GST_CLOCK_TIME_IS_VALID (rt))
    rt = self->segment.base;
  if (self->new_group) {
    self->new_group = FALSE;
    self->group_first_rt = rt;
    /* the first group starts the joined stream at 0, with no hole before
     * it, like every later group */
    self->group_base = GST_CLOCK_TIME_IS_VALID (self->out_end) ?
        self->out_end : 0;
  }
  return self->group_base + (rt > self->group_first_rt ?
      rt - self->group_first_rt : 0);
}

static GstClockTime
frame_period (GstStageUnslice * self, GstBuffer * buf)
{
  if (self->fps_n > 0)
    return gst_util_uint64_scale_int (GST_SECOND, self->fps_d, self->fps_n);
  return GST_BUFFER_DURATION_IS_VALID (buf) ? GST_BUFFER_DURATION (buf) : 0;
}

static GstFlowReturn
gst_stage_unslice_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstStageUnslice *self = GST_STAGE_UNSLICE (trans);
  GstClockTime pts = GST_BUFFER_PTS (buf), dts = GST_BUFFER_DTS (buf), out;

  GST_OBJECT_LOCK (self);
  self->count.in++;
  GST_OBJECT_UNLOCK (self);
  if (!self->in_group) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("stageunslice got a frame outside any group: there is no "
            "stageslice upstream to open groups."),
        ("Put a stageslice before the ops to run per group, e.g. "
            "'stageslice size=50 ! ... ! stageunslice', or remove "
            "stageunslice."));
    return GST_FLOW_ERROR;
  }
  out = map_time (self, pts);
  if (GST_CLOCK_TIME_IS_VALID (self->hole_ts)) {
    GstClockTime hole = map_time (self, self->hole_ts);

    if (GST_CLOCK_TIME_IS_VALID (hole))
      gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (trans),
          gst_event_new_gap (hole, self->hole_end - self->hole_ts));
    self->hole_ts = self->hole_end = GST_CLOCK_TIME_NONE;
  }
  if (GST_CLOCK_TIME_IS_VALID (out)) {
    GST_BUFFER_PTS (buf) = out;
    /* the frame's number in the joined stream, as its time says */
    if (GST_BUFFER_OFFSET_IS_VALID (buf) && self->fps_n > 0) {
      GST_BUFFER_OFFSET (buf) = gst_util_uint64_scale_round (out,
          self->fps_n, self->fps_d * GST_SECOND);
      GST_BUFFER_OFFSET_END (buf) = GST_BUFFER_OFFSET (buf) + 1;
    }
    GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_IS_VALID (dts) && dts <= pts
        && pts - dts <= out ? out - (pts - dts) : GST_CLOCK_TIME_NONE;
    if (!GST_CLOCK_TIME_IS_VALID (self->out_end)
        || out + frame_period (self, buf) > self->out_end)
      self->out_end = out + frame_period (self, buf);
  }
  GST_OBJECT_LOCK (self);
  self->count.out++;
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;
}

static gboolean
gst_stage_unslice_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstStageUnslice *self = GST_STAGE_UNSLICE (trans);
  GstStageGroup group;

  if (gst_stage_group_event_parse (event, &group)) {
    GST_DEBUG_OBJECT (self, "group %" G_GUINT64_FORMAT, group.index);
    self->in_group = TRUE;
    self->new_group = TRUE;
    /* a hole at the end of the previous group is not in the joined stream */
    self->hole_ts = self->hole_end = GST_CLOCK_TIME_NONE;
    GST_OBJECT_LOCK (self);
    self->count.groups++;
    GST_OBJECT_UNLOCK (self);
    gst_event_unref (event);
    return TRUE;
  }

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEGMENT:{
      const GstSegment *seg;
      GstSegment out;
      GstEvent *ev;

      gst_event_parse_segment (event, &seg);
      gst_segment_copy_into (seg, &self->segment);
      if (self->segment_sent || seg->format != GST_FORMAT_TIME) {
        /* one stream downstream: the groups' segments stay here */
        if (seg->format != GST_FORMAT_TIME && !self->segment_sent)
          break;
        gst_event_unref (event);
        return TRUE;
      }
      /* output PTS are running times already: a plain segment from 0 */
      gst_segment_init (&out, GST_FORMAT_TIME);
      out.rate = seg->rate;
      out.applied_rate = seg->applied_rate;
      ev = gst_event_new_segment (&out);
      gst_event_set_seqnum (ev, gst_event_get_seqnum (event));
      gst_event_unref (event);
      event = ev;
      self->segment_sent = TRUE;
      break;
    }
    case GST_EVENT_GAP:{
      GstClockTime ts, dur, out;

      gst_event_parse_gap (event, &ts, &dur);
      if (self->in_group && !gst_stage_gap_is_null (event)) {
        /* A hole where frames were dropped (a selector's GAP): it exists
         * in the joined stream only between two frames of one group. */
        if (!self->new_group && GST_CLOCK_TIME_IS_VALID (ts)
            && GST_CLOCK_TIME_IS_VALID (dur)) {
          if (!GST_CLOCK_TIME_IS_VALID (self->hole_ts))
            self->hole_ts = ts;
          self->hole_end = ts + dur;
        }
        gst_event_unref (event);
        return TRUE;
      }
      /* a null element (stagerepeatnull) is a position: keep it */
      out = self->in_group ? map_time (self, ts) : GST_CLOCK_TIME_NONE;
      if (GST_CLOCK_TIME_IS_VALID (out)) {
        GstEvent *ev = gst_event_new_gap (out, dur);

        gst_event_set_seqnum (ev, gst_event_get_seqnum (event));
        gst_event_unref (event);
        event = ev;
        if (GST_CLOCK_TIME_IS_VALID (dur) && (!GST_CLOCK_TIME_IS_VALID
                (self->out_end) || out + dur > self->out_end))
          self->out_end = out + dur;
      }
      break;
    }
    case GST_EVENT_FLUSH_STOP:
      reset_streaming (self);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_stage_unslice_parent_class)->sink_event
      (trans, event);
}

static void
gst_stage_unslice_class_init (GstStageUnsliceClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->get_property = gst_stage_unslice_get_property;

  gst_stage_counters_install (gobject_class, PROP_COUNTER_FIRST,
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_IN) |
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_OUT) |
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_GROUPS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Join slice groups", "Filter/Video",
      "Joins the groups of an upstream stageslice, in group order, into one "
      "continuous stream with monotonic timestamps (Scanner's Unslice)",
      "gst-stages");
  gst_element_class_add_static_metadata (element_class, "stage-stateful",
      "true");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_stage_unslice_start);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_stage_unslice_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_stage_unslice_sink_event);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_stage_unslice_transform_ip);
  trans_class->passthrough_on_same_caps = FALSE;
}

static void
gst_stage_unslice_init (GstStageUnslice * self)
{
  self->fps_d = 1;
  reset_streaming (self);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
