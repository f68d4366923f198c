/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-stagegather
 * @title: stagegather
 *
 * Keeps the frames at a list of indices (Scanner's Gather), given inline
 * with @indices ("0,5,7,29") or, for long lists, in a text file named by
 * @indices-file: indices separated by commas, spaces or newlines (one per
 * line works), '#' starting a comment to the end of the line.
 *
 * The list is a set: a stream cannot go back in time, so the output is
 * always in stream order and each listed frame comes out once. "29,5,0,5"
 * gives the same frames as "0,5,29". Indices past the end of the stream are
 * never reached: the stream then ends normally after its last frame.
 * Otherwise the element pushes EOS right after the last listed frame and
 * returns GST_FLOW_EOS upstream, so the rest of the input is not decoded.
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
 * Kept buffers keep their PTS, DTS and duration. The caps keep the input
 * framerate: the kept frames are frames of the input's grid and the others
 * are gaps (GAP events), as for frames a decoder drops. Not 0/1 (variable):
 * with that, h264parse leaves durations unset, mp4mux gives the last frame
 * no duration (decoders then skip it) and avimux refuses the stream.
 *
 * Exactly one of @indices and @indices-file must be set. Properties can only
 * be changed in the NULL or READY state (a change while PAUSED or PLAYING
 * is refused with a warning). Invalid values (`indices=abc`, an
 * empty or unreadable file) are reported when set (a warning for
 * @indices, a debug-log warning for the file, which may not exist yet) and
 * make the element fail to start with an error naming the property and the
 * value.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! stagegather indices="0,5,7,29" ! fakesink silent=false -v
 * ]| passes 4 frames and ends the stream at frame 29.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagegather.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_gather_debug);

struct _GstStageGather
{
  GstStageSelector parent;
};

G_DEFINE_TYPE_WITH_CODE (GstStageGather, gst_stage_gather,
    GST_TYPE_STAGE_SELECTOR,
    GST_DEBUG_CATEGORY_INIT (gst_stage_gather_debug, "stagegather", 0,
        "keep frames at listed indices"));
GST_ELEMENT_REGISTER_DEFINE (stagegather, "stagegather", GST_RANK_NONE,
    GST_TYPE_STAGE_GATHER);

static void
gst_stage_gather_class_init (GstStageGatherClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  /* the base class stores them, builds the selection (one of the two must
   * be set) and keeps the input framerate: the kept frames are frames of
   * the input's grid, the others gaps */
  gst_stage_selector_class_install_select_props (GST_STAGE_SELECTOR_CLASS
      (klass), GST_STAGE_SELECT_INDICES | GST_STAGE_SELECT_INDICES_FILE |
      GST_STAGE_SELECT_WARN_WHEN_SET);

  gst_element_class_set_static_metadata (element_class,
      "Frame gather", "Filter/Video",
      "Keeps the frames at a list of indices and ends the stream after the "
      "last one (Scanner's Gather)", "gst-stages");
}

static void
gst_stage_gather_init (GstStageGather * self)
{
}
