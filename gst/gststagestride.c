/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-stagestride
 * @title: stagestride
 *
 * Keeps every n-th frame: frames offset, offset + stride, offset + 2 * stride,
 * ... (Scanner's Stride op) and drops the others.
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
 * Kept buffers keep their memory, PTS and DTS; each lasts @stride input
 * frames and its OFFSET is its number at the new rate (index / @stride on
 * a stream without holes), so the output is evenly timed as its caps say
 * and a stagerepeat after it fills the input's grid again. The
 * output caps framerate is the input framerate divided by @stride (the
 * offset does not change the rate); a variable input rate (0/1) stays 0/1.
 *
 * The stream never ends early: a stride has no last index.
 *
 * Properties can only be changed in the NULL or READY state (a change
 * while PAUSED or PLAYING is refused with a warning). A @stride of 0 or
 * over 2147483647, or an @offset of 18446744073709551615, is an error when
 * the element starts, naming the property and the allowed values.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=90 ! stagestride stride=3 offset=1 ! fakesink silent=false -v
 * ]| keeps frames 1, 4, 7, ... 88: 30 buffers at 10/1 instead of 30/1.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagestride.h"
#include "gststageutil.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_stride_debug);
#define GST_CAT_DEFAULT gst_stage_stride_debug

#define DEFAULT_PROP_STRIDE 1
#define DEFAULT_PROP_OFFSET 0
/* allowed values, checked at start: G_MAXINT as the output framerate
 * denominator is multiplied by the stride; G_MAXUINT64 is "no index" */
#define STRIDE_MAX G_MAXINT
#define OFFSET_MAX (G_MAXUINT64 - 1)

enum
{
  PROP_0,
  PROP_STRIDE,
  PROP_OFFSET,
};

struct _GstStageStride
{
  GstStageSelector parent;

  guint stride;
  guint64 offset;
};

G_DEFINE_TYPE_WITH_CODE (GstStageStride, gst_stage_stride,
    GST_TYPE_STAGE_SELECTOR,
    GST_DEBUG_CATEGORY_INIT (gst_stage_stride_debug, "stagestride", 0,
        "keep every n-th frame"));
GST_ELEMENT_REGISTER_DEFINE (stagestride, "stagestride", GST_RANK_NONE,
    GST_TYPE_STAGE_STRIDE);

static void
gst_stage_stride_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageStride *self = GST_STAGE_STRIDE (object);

  if (!gst_stage_selector_can_set_property (GST_STAGE_SELECTOR (self),
          pspec))
    return;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_STRIDE:
      self->stride = g_value_get_uint (value);
      break;
    case PROP_OFFSET:
      self->offset = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_stage_stride_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageStride *self = GST_STAGE_STRIDE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_STRIDE:
      g_value_set_uint (value, self->stride);
      break;
    case PROP_OFFSET:
      g_value_set_uint64 (value, self->offset);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static StageSelect *
gst_stage_stride_create_select (GstStageSelector * selector, GError ** error)
{
  GstStageStride *self = GST_STAGE_STRIDE (selector);
  StageSelect *sel;
  guint stride;
  guint64 offset;

  GST_OBJECT_LOCK (self);
  stride = self->stride;
  offset = self->offset;
  GST_OBJECT_UNLOCK (self);

  if (!gst_stage_check_uint_prop ("stride", stride, 1, STRIDE_MAX, NULL,
          error)
      || !gst_stage_check_uint_prop ("offset", offset, 0, OFFSET_MAX, NULL,
          error))
    return NULL;
  sel = gst_stage_select_from_stride (offset, stride, error);
  if (sel != NULL)
    GST_DEBUG_OBJECT (self, "keeping frames %" G_GUINT64_FORMAT " + k * %u",
        offset, stride);
  return sel;
}

static gboolean
gst_stage_stride_get_rate_divisor (GstStageSelector * selector,
    guint * divisor)
{
  GstStageStride *self = GST_STAGE_STRIDE (selector);

  GST_OBJECT_LOCK (self);
  /* caps queries come before start refuses a bad stride */
  *divisor = CLAMP (self->stride, 1, STRIDE_MAX);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static void
gst_stage_stride_class_init (GstStageStrideClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstStageSelectorClass *selector_class = GST_STAGE_SELECTOR_CLASS (klass);

  gobject_class->set_property = gst_stage_stride_set_property;
  gobject_class->get_property = gst_stage_stride_get_property;

  /* any value: the element refuses bad ones at start, naming them */
  g_object_class_install_property (gobject_class, PROP_STRIDE,
      g_param_spec_uint ("stride", "Stride",
          "Keep one frame out of every 'stride' frames (1 keeps all); the "
          "output framerate is the input framerate divided by it: 1 to "
          "2147483647 (others are an error at start)",
          0, G_MAXUINT, DEFAULT_PROP_STRIDE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      g_param_spec_uint64 ("offset", "Offset",
          "Index of the first frame kept (frames offset, offset + stride, "
          "...; frame 0 is the first buffer the element receives): 0 to "
          "18446744073709551614 (more is an error at start)",
          0, G_MAXUINT64, DEFAULT_PROP_OFFSET,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));

  gst_element_class_set_static_metadata (element_class,
      "Frame stride", "Filter/Video",
      "Keeps every n-th frame starting at an offset (Scanner's Stride)",
      "gst-stages");

  selector_class->create_select =
      GST_DEBUG_FUNCPTR (gst_stage_stride_create_select);
  selector_class->get_rate_divisor =
      GST_DEBUG_FUNCPTR (gst_stage_stride_get_rate_divisor);
}

static void
gst_stage_stride_init (GstStageStride * self)
{
  self->stride = DEFAULT_PROP_STRIDE;
  self->offset = DEFAULT_PROP_OFFSET;
}
