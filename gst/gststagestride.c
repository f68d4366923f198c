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

GST_DEBUG_CATEGORY_STATIC (gst_stage_stride_debug);

struct _GstStageStride
{
  GstStageSelector parent;
};

G_DEFINE_TYPE_WITH_CODE (GstStageStride, gst_stage_stride,
    GST_TYPE_STAGE_SELECTOR,
    GST_DEBUG_CATEGORY_INIT (gst_stage_stride_debug, "stagestride", 0,
        "keep every n-th frame"));
GST_ELEMENT_REGISTER_DEFINE (stagestride, "stagestride", GST_RANK_NONE,
    GST_TYPE_STAGE_STRIDE);

static void
gst_stage_stride_class_init (GstStageStrideClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  /* the base class stores them, builds the selection and divides the
   * output framerate by the stride */
  gst_stage_selector_class_install_select_props (GST_STAGE_SELECTOR_CLASS
      (klass), GST_STAGE_SELECT_STRIDE | GST_STAGE_SELECT_OFFSET);

  gst_element_class_set_static_metadata (element_class,
      "Frame stride", "Filter/Video",
      "Keeps every n-th frame starting at an offset (Scanner's Stride)",
      "gst-stages");
}

static void
gst_stage_stride_init (GstStageStride * self)
{
}
