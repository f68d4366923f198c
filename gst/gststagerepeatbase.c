/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageRepeatBase: one input frame becomes `repeat` output positions.
 *
 * Timing: input frame r with PTS p and duration d becomes positions
 * r*K .. r*K+K-1 (K = repeat), position k at p + k*d/K lasting d/K, so a
 * regular input gives a regular output at K times the rate, and the caps
 * say so (framerate * K). A buffer without a duration takes it from the
 * caps framerate; with neither, every position keeps PTS p and no duration
 * (and stagerepeatnull can only send a GAP with no duration at p). A buffer
 * without a PTS gives positions without one; stagerepeatnull then sends no
 * GAP, since a GAP needs a timestamp. OFFSET/OFFSET_END, when the input
 * carries a frame index there (stagesrc does), become the output index
 * r*K+k.
 *
 * Repeated positions share the input's memory (a copy of the metadata
 * only). The element is not a passthrough: every output is a new buffer,
 * pushed from the input's chain call, so flush and EOS need no state of
 * their own: nothing is ever held back.
 *
 * Counters in/out are cumulative since the element started, like the
 * selectors'; with repeat K: out = K * in for stagerepeat, out = in and
 * nulls = (K - 1) * in for stagerepeatnull.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagerepeatbase.h"
#include "gststagecounters.h"
#include "gststagegroup.h"
#include "gststageutil.h"
#include "slice.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_repeat_base_debug);
#define GST_CAT_DEFAULT gst_stage_repeat_base_debug

#define DEFAULT_PROP_REPEAT 1
/* allowed, checked at start (the framerate numerator is multiplied by it;
 * the param spec takes any value) */
#define REPEAT_MAX G_MAXINT

/* 'repeat', then the counters, defined with the selectors'
 * (gststagecounters.h) */
enum
{
  PROP_0,
  PROP_REPEAT,
  PROP_COUNTER_FIRST,
};

typedef struct
{
  guint repeat;                 /* property; fixed while streaming */

  /* streaming state: the buffer being repeated, the next position */
  GstBuffer *input;
  guint k;
  guint active_repeat;          /* repeat captured at start */
  gint fps_n, fps_d;            /* sink caps framerate, 0/1 if unknown */

  GstStageCounters count;       /* under the object lock */
  guint64 nulls;                /* under the object lock */
} GstStageRepeatBasePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstStageRepeatBase, gst_stage_repeat_base,
    GST_TYPE_BASE_TRANSFORM, G_ADD_PRIVATE (GstStageRepeatBase)
    GST_DEBUG_CATEGORY_INIT (gst_stage_repeat_base_debug, "stagerepeatbase",
        0, "base class of stagerepeat and stagerepeatnull"));

#define GET_PRIV(self) ((GstStageRepeatBasePrivate *) \
    gst_stage_repeat_base_get_instance_private (GST_STAGE_REPEAT_BASE (self)))

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

guint64
gst_stage_repeat_base_get_nulls (GstStageRepeatBase * self)
{
  guint64 v;

  GST_OBJECT_LOCK (self);
  v = GET_PRIV (self)->nulls;
  GST_OBJECT_UNLOCK (self);
  return v;
}

static void
gst_stage_repeat_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageRepeatBasePrivate *priv = GET_PRIV (object);

  switch (prop_id) {
    case PROP_REPEAT:
      /* caps and timing are fixed for the run: a change would only make
       * them disagree */
      if (!gst_stage_can_set_property (GST_ELEMENT (object), pspec))
        break;
      GST_OBJECT_LOCK (object);
      priv->repeat = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_stage_repeat_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageRepeatBasePrivate *priv = GET_PRIV (object);

  if (gst_stage_counters_get (GST_OBJECT (object), &priv->count,
          prop_id - PROP_COUNTER_FIRST, value))
    return;
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_REPEAT:
      g_value_set_uint (value, priv->repeat);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static guint
current_repeat (GstStageRepeatBase * self)
{
  guint k;

  GST_OBJECT_LOCK (self);
  k = GET_PRIV (self)->repeat;
  GST_OBJECT_UNLOCK (self);
  /* before start refuses a bad value, caps queries may ask */
  return CLAMP (k, 1, REPEAT_MAX);
}

static GstCaps *
gst_stage_repeat_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  gint k = (gint) MIN (current_repeat (GST_STAGE_REPEAT_BASE (trans)),
      G_MAXINT);
  GstCaps *ret = direction == GST_PAD_SINK ?
      gst_stage_caps_scale_framerate (caps, k, 1) :
      gst_stage_caps_scale_framerate (caps, 1, k);

  ret = gst_stage_caps_filter (ret, filter);
  GST_DEBUG_OBJECT (trans, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);
  return ret;
}

static gboolean
gst_stage_repeat_base_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstStageRepeatBasePrivate *priv = GET_PRIV (trans);

  gst_stage_caps_get_framerate (incaps, &priv->fps_n, &priv->fps_d);
  return TRUE;
}

static gboolean
gst_stage_repeat_base_start (GstBaseTransform * trans)
{
  GstStageRepeatBasePrivate *priv = GET_PRIV (trans);
  GError *err = NULL;
  guint repeat;

  GST_OBJECT_LOCK (trans);
  repeat = priv->repeat;
  GST_OBJECT_UNLOCK (trans);
  if (!gst_stage_check_uint_prop ("repeat", repeat, 1, REPEAT_MAX, NULL,
          &err))
    return gst_stage_post_settings_error (GST_ELEMENT (trans), err);
  GST_OBJECT_LOCK (trans);
  priv->active_repeat = repeat;
  priv->count.in = priv->count.out = priv->nulls = 0;
  GST_OBJECT_UNLOCK (trans);
  priv->fps_n = 0;
  priv->fps_d = 1;
  priv->k = 0;
  gst_buffer_replace (&priv->input, NULL);
  return TRUE;
}

static gboolean
gst_stage_repeat_base_stop (GstBaseTransform * trans)
{
  gst_buffer_replace (&GET_PRIV (trans)->input, NULL);
  return TRUE;
}

static gboolean
gst_stage_repeat_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  /* a flush between two chain calls: nothing pending, but be explicit */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    gst_buffer_replace (&GET_PRIV (trans)->input, NULL);
  return GST_BASE_TRANSFORM_CLASS (gst_stage_repeat_base_parent_class)
      ->sink_event (trans, event);
}

static GstFlowReturn
gst_stage_repeat_base_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstStageRepeatBasePrivate *priv = GET_PRIV (trans);

  gst_buffer_replace (&priv->input, NULL);
  priv->input = input;
  priv->k = 0;
  GST_OBJECT_LOCK (trans);
  priv->count.in++;
  GST_OBJECT_UNLOCK (trans);
  return GST_FLOW_OK;
}

/* The input's duration, else one frame at the caps framerate. */
static GstClockTime
input_duration (GstStageRepeatBasePrivate * priv, GstBuffer * in)
{
  if (GST_BUFFER_DURATION_IS_VALID (in))
    return GST_BUFFER_DURATION (in);
  if (priv->fps_n > 0)
    return gst_util_uint64_scale_int (GST_SECOND, priv->fps_d, priv->fps_n);
  return GST_CLOCK_TIME_NONE;
}

/* Position @k of the input, a new buffer sharing the input's memory. */
static GstBuffer *
make_position (GstStageRepeatBasePrivate * priv, guint k, gboolean last)
{
  GstBuffer *in = priv->input, *out;
  GstClockTime pts = GST_BUFFER_PTS (in), dts = GST_BUFFER_DTS (in);
  GstClockTime dur = input_duration (priv, in);
  guint64 K = priv->active_repeat, spts = pts, sdur = GST_CLOCK_TIME_NONE;

  if (GST_CLOCK_TIME_IS_VALID (dur) && GST_CLOCK_TIME_IS_VALID (pts))
    stage_repeat_slot (pts, dur, k, K, &spts, &sdur);
  else if (GST_CLOCK_TIME_IS_VALID (dur))
    sdur = dur / K;

  if (last) {
    out = gst_buffer_make_writable (in);
    priv->input = NULL;
  } else {
    out = gst_buffer_copy (in);
  }
  GST_BUFFER_PTS (out) = spts;
  if (GST_CLOCK_TIME_IS_VALID (dts) && GST_CLOCK_TIME_IS_VALID (pts))
    GST_BUFFER_DTS (out) = spts - pts <= G_MAXUINT64 - dts ?
        dts + (spts - pts) : GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (out) = sdur;
  if (GST_BUFFER_OFFSET_IS_VALID (out)
      && GST_BUFFER_OFFSET (out) <= (G_MAXUINT64 - 1 - k) / K) {
    GST_BUFFER_OFFSET (out) = GST_BUFFER_OFFSET (out) * K + k;
    GST_BUFFER_OFFSET_END (out) = GST_BUFFER_OFFSET (out) + 1;
  }
  if (k > 0)
    GST_BUFFER_FLAG_UNSET (out, GST_BUFFER_FLAG_DISCONT);
  return out;
}

/* The positions after the first of a RepeatNull: one GAP event spanning
 * them, so that downstream keeps its clock moving and sinks preroll. */
static void
push_gap (GstBaseTransform * trans, GstStageRepeatBasePrivate * priv)
{
  GstBuffer *in = priv->input;
  GstClockTime pts = GST_BUFFER_PTS (in), dur = input_duration (priv, in);
  guint64 K = priv->active_repeat, gpts, gdur = GST_CLOCK_TIME_NONE, unused;
  GstEvent *gap;

  if (!GST_CLOCK_TIME_IS_VALID (pts)) {
    GST_LOG_OBJECT (trans, "no PTS: no GAP for %" G_GUINT64_FORMAT
        " null positions", K - 1);
  } else {
    gpts = pts;
    if (GST_CLOCK_TIME_IS_VALID (dur)) {
      stage_repeat_slot (pts, dur, 1, K, &gpts, &unused);
      gdur = pts + dur - gpts;
    }
    gap = gst_stage_null_gap_new (gpts, gdur);
    gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (trans), gap);
  }
  GST_OBJECT_LOCK (trans);
  priv->nulls += K - 1;
  GST_OBJECT_UNLOCK (trans);
}

static GstFlowReturn
gst_stage_repeat_base_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstStageRepeatBasePrivate *priv = GET_PRIV (trans);
  gboolean null_fill = GST_STAGE_REPEAT_BASE_GET_CLASS (trans)->null_fill;
  guint K = priv->active_repeat;

  *outbuf = NULL;
  if (priv->input == NULL)
    return GST_FLOW_OK;

  if (priv->k == 0 || !null_fill) {
    gboolean last = priv->k + 1 == K || null_fill;

    /* in RepeatNull the gap follows the frame: keep the input for it */
    if (null_fill && K > 1)
      last = FALSE;
    *outbuf = make_position (priv, priv->k, last);
    priv->k++;
    GST_OBJECT_LOCK (trans);
    priv->count.out++;
    GST_OBJECT_UNLOCK (trans);
    return GST_FLOW_OK;
  }

  /* RepeatNull, frame pushed: the null positions, then done */
  push_gap (trans, priv);
  gst_buffer_replace (&priv->input, NULL);
  return GST_FLOW_OK;
}

static void
gst_stage_repeat_base_finalize (GObject * object)
{
  gst_buffer_replace (&GET_PRIV (object)->input, NULL);
  G_OBJECT_CLASS (gst_stage_repeat_base_parent_class)->finalize (object);
}

static void
gst_stage_repeat_base_class_init (GstStageRepeatBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_stage_repeat_base_set_property;
  gobject_class->get_property = gst_stage_repeat_base_get_property;
  gobject_class->finalize = gst_stage_repeat_base_finalize;

  g_object_class_install_property (gobject_class, PROP_REPEAT,
      g_param_spec_uint ("repeat", "Repeat",
          "Output positions per input frame (K): the output has K times the "
          "frames and K times the framerate (1 passes frames through): 1 to "
          "2147483647 (others are an error at start)",
          0, G_MAXUINT, DEFAULT_PROP_REPEAT,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  gst_stage_counters_install (gobject_class, PROP_COUNTER_FIRST,
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_IN) |
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_OUT));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_stage_repeat_base_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_stage_repeat_base_set_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_stage_repeat_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_stage_repeat_base_stop);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_stage_repeat_base_sink_event);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_stage_repeat_base_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_stage_repeat_base_generate_output);
  trans_class->passthrough_on_same_caps = FALSE;

  gst_type_mark_as_plugin_api (GST_TYPE_STAGE_REPEAT_BASE, 0);
}

static void
gst_stage_repeat_base_init (GstStageRepeatBase * self)
{
  GstStageRepeatBasePrivate *priv = GET_PRIV (self);

  priv->repeat = DEFAULT_PROP_REPEAT;
  priv->active_repeat = DEFAULT_PROP_REPEAT;
  priv->fps_d = 1;
  /* outputs are new buffers sharing the input's memory: no pool needed */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
