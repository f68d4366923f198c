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

GST_DEBUG_CATEGORY_STATIC (gst_stage_range_debug);

struct _GstStageRange
{
  GstStageSelector parent;
};

G_DEFINE_TYPE_WITH_CODE (GstStageRange, gst_stage_range,
    GST_TYPE_STAGE_SELECTOR,
    GST_DEBUG_CATEGORY_INIT (gst_stage_range_debug, "stagerange", 0,
        "keep frames in index ranges"));
GST_ELEMENT_REGISTER_DEFINE (stagerange, "stagerange", GST_RANK_NONE,
    GST_TYPE_STAGE_RANGE);

static void
gst_stage_range_class_init (GstStageRangeClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  /* the base class stores them, builds the selection and announces the
   * input framerate divided by the stride, with one range or several:
   * the frames skipped between ranges are gaps */
  gst_stage_selector_class_install_select_props (GST_STAGE_SELECTOR_CLASS
      (klass), GST_STAGE_SELECT_RANGES | GST_STAGE_SELECT_STRIDE |
      GST_STAGE_SELECT_WARN_WHEN_SET);

  gst_element_class_set_static_metadata (element_class,
      "Frame ranges", "Filter/Video",
      "Keeps the frames in index ranges, optionally strided, and ends the "
      "stream after the last one (Scanner's Range/Ranges/StridedRange)",
      "gst-stages");
}

static void
gst_stage_range_init (GstStageRange * self)
{
}
