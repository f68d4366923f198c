/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-stagerange
 * @title: stagerange
 *
 * Keeps the frames whose index falls in one or more half-open ranges
 * [start, end), as Scanner's Range, Ranges and StridedRange ops: with
 * `ranges="0:100,200:300" stride=2` it keeps 0, 2, ... 98, 200, 202, ... 298.
 * @stride applies inside each range, counted from that range's start.
 *
 * The ranges form a set: output is always in stream order and a frame is
 * kept once even when ranges overlap or are listed out of order. Unset or
 * empty @ranges means the whole stream (then the element is a stride).
 *
 * Frame index: the number of buffers that reached the element since it
 * started, from 0. After a flushing seek the index continues from where
 * the new segment puts the stream: the first buffer after the seek is the
 * frame whose slot holds its stream time (round (segment.start * framerate)
 * for a frame at the segment start of a stream timed from 0) when the caps
 * carry a framerate, else the index restarts at 0. Reverse playback is
 * refused: a seek with a negative rate fails, a segment with one posts an
 * error. Frames dropped upstream (a decoder acting on QoS events from a
 * late sink) are not counted: where the exact selection matters, use
 * sync=false, or qos=false on the sink or the decoder.
 *
 * Once the last range is done the element pushes EOS right away and returns
 * GST_FLOW_EOS upstream, so the source stops instead of decoding the rest. A
 * range that runs past the end of the stream simply ends with the stream.
 *
 * Kept buffers keep their PTS, DTS and duration. Output framerate: the
 * input framerate divided by @stride, with one range or several: the rate
 * is the nominal one of the kept frames, and the frames skipped between
 * ranges are gaps (GAP events), as for frames a decoder drops. Not 0/1
 * (variable): with that, h264parse leaves the durations unset and mp4mux
 * gives the last frame no duration (decoders then skip it), and avimux
 * refuses the stream.
 *
 * Properties can only be changed in the NULL or READY state (a change
 * while PAUSED or PLAYING is refused with a warning). An invalid
 * @ranges value (`5:3`, `x`, `1:2,`) prints a warning naming it when set,
 * and the element fails to start with a RESOURCE/SETTINGS error naming the
 * property and the value.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! stagerange ranges="10:20,100:110" ! fakesink silent=false -v
 * ]| passes 20 frames and ends at frame 109, without waiting for the rest.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagerange.h"
#include "gststageutil.h"

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_stage_range_debug);
#define GST_CAT_DEFAULT gst_stage_range_debug

#define DEFAULT_PROP_RANGES NULL
#define DEFAULT_PROP_STRIDE 1
/* allowed, checked at start (the output framerate denominator is
 * multiplied by it) */
#define STRIDE_MAX G_MAXINT

enum
{
  PROP_0,
  PROP_RANGES,
  PROP_STRIDE,
};

struct _GstStageRange
{
  GstStageSelector parent;

  gchar *ranges;
  guint stride;
};

G_DEFINE_TYPE_WITH_CODE (GstStageRange, gst_stage_range,
    GST_TYPE_STAGE_SELECTOR,
    GST_DEBUG_CATEGORY_INIT (gst_stage_range_debug, "stagerange", 0,
        "keep frames in index ranges"));
GST_ELEMENT_REGISTER_DEFINE (stagerange, "stagerange", GST_RANK_NONE,
    GST_TYPE_STAGE_RANGE);

static void
gst_stage_range_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageRange *self = GST_STAGE_RANGE (object);

  if (!gst_stage_selector_can_set_property (GST_STAGE_SELECTOR (self),
          pspec))
    return;

  switch (prop_id) {
    case PROP_RANGES:{
      const gchar *ranges = g_value_get_string (value);
      GError *err = NULL;
      StageSelect *sel = gst_stage_select_from_ranges (ranges, 1, &err);

      /* Kept even when invalid, so that start refuses it with an error
       * instead of running with a value the user did not ask for. */
      if (sel == NULL) {
        g_warning ("%s: %s", GST_OBJECT_NAME (self), err->message);
        g_error_free (err);
      }
      stage_select_free (sel);
      GST_OBJECT_LOCK (self);
      g_free (self->ranges);
      self->ranges = g_strdup (ranges);
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_STRIDE:
      GST_OBJECT_LOCK (self);
      self->stride = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_stage_range_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageRange *self = GST_STAGE_RANGE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RANGES:
      g_value_set_string (value, self->ranges);
      break;
    case PROP_STRIDE:
      g_value_set_uint (value, self->stride);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static StageSelect *
gst_stage_range_create_select (GstStageSelector * selector, GError ** error)
{
  GstStageRange *self = GST_STAGE_RANGE (selector);
  gchar *ranges;
  guint stride;
  StageSelect *sel;

  GST_OBJECT_LOCK (self);
  ranges = g_strdup (self->ranges);
  stride = self->stride;
  GST_OBJECT_UNLOCK (self);

  if (!gst_stage_check_uint_prop ("stride", stride, 1, STRIDE_MAX, NULL,
          error)) {
    g_free (ranges);
    return NULL;
  }
  sel = gst_stage_select_from_ranges (ranges, stride, error);
  if (sel != NULL)
    GST_DEBUG_OBJECT (self, "ranges '%s' stride %u, last index %"
        G_GUINT64_FORMAT, GST_STR_NULL (ranges), stride,
        stage_select_last (sel));
  g_free (ranges);
  return sel;
}

static gboolean
gst_stage_range_get_rate_divisor (GstStageSelector * selector,
    guint * divisor)
{
  GstStageRange *self = GST_STAGE_RANGE (selector);
  guint stride;

  /* Called for every buffer: the ranges text (millions of ranges, maybe)
   * is not touched. Several ranges are still frames of the input's grid,
   * @stride apart inside each range: the nominal rate is input / stride,
   * the skipped frames between ranges are gaps (see the element doc). */
  GST_OBJECT_LOCK (self);
  stride = self->stride;
  GST_OBJECT_UNLOCK (self);
  /* caps queries come before start refuses a bad stride */
  *divisor = CLAMP (stride, 1, STRIDE_MAX);
  return TRUE;
}

static void
gst_stage_range_finalize (GObject * object)
{
  GstStageRange *self = GST_STAGE_RANGE (object);

  g_free (self->ranges);
  G_OBJECT_CLASS (gst_stage_range_parent_class)->finalize (object);
}

static void
gst_stage_range_class_init (GstStageRangeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstStageSelectorClass *selector_class = GST_STAGE_SELECTOR_CLASS (klass);

  gobject_class->set_property = gst_stage_range_set_property;
  gobject_class->get_property = gst_stage_range_get_property;
  gobject_class->finalize = gst_stage_range_finalize;

  g_object_class_install_property (gobject_class, PROP_RANGES,
      g_param_spec_string ("ranges", "Ranges",
          "Frame index ranges to keep, half-open START:END separated by "
          "commas, e.g. \"0:100,200:300\" keeps 0..99 and 200..299; treated "
          "as a set (stream order, overlaps kept once); unset = all frames",
          DEFAULT_PROP_RANGES,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_STRIDE,
      g_param_spec_uint ("stride", "Stride",
          "Inside each range keep one frame out of every 'stride', counted "
          "from the range start (1 keeps the whole range): 1 to 2147483647 "
          "(others are an error at start)",
          0, G_MAXUINT, DEFAULT_PROP_STRIDE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));

  gst_element_class_set_static_metadata (element_class,
      "Frame ranges", "Filter/Video",
      "Keeps the frames in index ranges, optionally strided, and ends the "
      "stream after the last one (Scanner's Range/Ranges/StridedRange)",
      "gst-stages");

  selector_class->create_select =
      GST_DEBUG_FUNCPTR (gst_stage_range_create_select);
  selector_class->get_rate_divisor =
      GST_DEBUG_FUNCPTR (gst_stage_range_get_rate_divisor);
}

static void
gst_stage_range_init (GstStageRange * self)
{
  self->ranges = g_strdup (DEFAULT_PROP_RANGES);
  self->stride = DEFAULT_PROP_STRIDE;
}
