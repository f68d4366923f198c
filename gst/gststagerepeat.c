/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-stagerepeat
 * @title: stagerepeat
 *
 * Outputs every input frame @repeat times (Scanner's Repeat, the
 * SpaceRepeat sampler): N input frames give N * repeat output frames, and
 * input frame r becomes output frames r*K .. r*K+K-1 (K = @repeat).
 *
 * The copies subdivide the input frame's duration: copy k of a frame at
 * PTS p lasting d has PTS p + k*d/K and lasts d/K, so the output is a
 * regular stream at K times the rate and the caps say framerate * K
 * (30/1 with repeat=4 gives 120/1). A frame without a duration takes one
 * from the caps framerate. Copies share the frame's memory; OFFSET, when
 * it holds the frame index (as from stagesrc), becomes the output index.
 *
 * Counters: `in` frames received and `out` frames pushed (out = K * in).
 * @repeat can only be changed in the NULL or READY state; 0 is refused.
 * Flush and EOS pass straight through: nothing is held back.
 *
 * Inside `stagebin` the element replicates (each frame is repeated on its
 * own), unlike the frame selectors.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=30 ! video/x-raw,width=1280,height=720,framerate=30/1 ! stagerepeat repeat=4 ! fakesink silent=false -v
 * ]| 120 frames at 120/1, each input frame four times in a row.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagerepeat.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_repeat_debug);
#define GST_CAT_DEFAULT gst_stage_repeat_debug

struct _GstStageRepeat
{
  GstStageRepeatBase parent;
};

G_DEFINE_TYPE_WITH_CODE (GstStageRepeat, gst_stage_repeat,
    GST_TYPE_STAGE_REPEAT_BASE,
    GST_DEBUG_CATEGORY_INIT (gst_stage_repeat_debug, "stagerepeat", 0,
        "repeat each frame K times"));
GST_ELEMENT_REGISTER_DEFINE (stagerepeat, "stagerepeat", GST_RANK_NONE,
    GST_TYPE_STAGE_REPEAT);

static void
gst_stage_repeat_class_init (GstStageRepeatClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_element_class_set_static_metadata (element_class,
      "Repeat frames", "Filter/Video",
      "Outputs each frame K times at K times the framerate (Scanner's "
      "Repeat)", "gst-stages");
  GST_STAGE_REPEAT_BASE_CLASS (klass)->null_fill = FALSE;
}

static void
gst_stage_repeat_init (GstStageRepeat * self)
{
}
