/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageSelector: frame index bookkeeping shared by the frame selectors.
 *
 * Frame index: the number of buffers that reached the sink pad since the
 * element started (0-based). After a flushing seek (FLUSH_STOP followed by
 * a TIME segment) the index continues from where upstream says the stream
 * now is: the first buffer after the seek is the frame whose slot
 * [i / framerate, (i + 1) / framerate) holds the buffer's stream time (the
 * position the new segment gives it), when the sink caps carry a non-zero
 * framerate; otherwise the index restarts at 0. For a buffer at the segment
 * start that is round (segment.start * framerate) when the timestamps start
 * at 0. The index always counts up: reverse playback is refused (seeks
 * with a negative rate fail, a segment with one is an error).
 *
 * Counters in/out/dropped are cumulative: a flush or seek does not reset
 * them, so an application can read totals after a run; they are reset when
 * the element starts again (READY to PAUSED). in == out + dropped always.
 *
 * The element is a passthrough GstBaseTransform: kept buffers go out with
 * the same memory, PTS and DTS, the others are dropped. Where the caps
 * rate is divided (a stride S), a kept buffer lasts S input frames and
 * its OFFSET is its number at the new rate, index / S, so the stream is
 * evenly timed at what its caps say (a stagerepeat after it fills the
 * input's grid again); otherwise duration and OFFSET are untouched. Each
 * dropped buffer not covered by the kept one before it sends a GAP event
 * for its span, so sinks
 * preroll and keep time (a selector in a tee branch would otherwise leave
 * its sink unprerolled: a hang). When the selection is exhausted (no later index can match), the
 * last kept buffer is pushed, EOS follows at once, and upstream gets
 * GST_FLOW_EOS for that buffer, so a source stops reading instead of
 * decoding frames that nobody wants. Buffers still arriving afterwards are
 * counted as dropped and refused with GST_FLOW_EOS; the EOS upstream then
 * sends is swallowed, as one EOS has already gone downstream. A flushing
 * seek re-arms the element.
 *
 * Between stageslice and stageunslice (a "stage-group" event, see
 * gststagegroup.h) the index restarts with every group, at the group's
 * first position, and the group's "NAME.PROPERTY" parameters are applied
 * first; an exhausted selection then drops the rest of the group rather
 * than ending the stream, and the stream ends with the slice's EOS.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageselector.h"
#include "gststagecounters.h"
#include "gststagegroup.h"
#include "gststageutil.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_stage_selector_debug);
#define GST_CAT_DEFAULT gst_stage_selector_debug

/* The counters, then the selection properties a subclass installs
 * (gst_stage_selector_class_install_select_props()). */
enum
{
  PROP_0,
  PROP_COUNTER_FIRST,
  PROP_SELECT_FIRST = PROP_COUNTER_FIRST + GST_STAGE_N_COUNTERS,
};

typedef struct
{
  GstStageSelectProps props;    /* the subclass's selection properties */
  StageSelect *select;          /* built at start, freed at stop */

  /* Streaming state, under the object lock (counters are read from other
   * threads through the properties). */
  guint64 index;                /* index of the next buffer to arrive */
  guint64 next;                 /* next kept index, STAGE_SELECT_NONE: none */
  GstStageCounters count;
  gint fps_n, fps_d;            /* sink caps framerate, 0/1 if unknown */
  gboolean flushed;             /* a FLUSH_STOP awaits its segment */
  gboolean resync;              /* the next buffer sets the index */
  GstSegment resync_segment;    /* the segment that followed the flush */
  gboolean pending_eos;         /* the buffer in flight is the last one */
  gboolean eos_sent;
  gboolean prev_dropped;        /* marks DISCONT on buffers we push */
  gboolean reverse;             /* the segment has a negative rate */
  GstClockTime gap_ts, gap_dur; /* span of the buffer just dropped, sent
                                 * downstream as a GAP event */
  guint64 kept_index;           /* index of the buffer just kept */
  GstClockTime covered_until;   /* end of the last kept (stretched) one */
  guint32 seqnum;               /* of the last segment, reused by our EOS */
  /* Inside a stageslice group (gststagegroup.h): the index restarts per
   * group, and an exhausted selection drops the rest of the group instead
   * of ending the stream, since the next group starts over. */
  gboolean in_group;
  gboolean applying_params;     /* set_property from a group's params */
  gboolean group_failed;        /* a group's params were refused */
} GstStageSelectorPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstStageSelector, gst_stage_selector,
    GST_TYPE_BASE_TRANSFORM, G_ADD_PRIVATE (GstStageSelector)
    GST_DEBUG_CATEGORY_INIT (gst_stage_selector_debug, "stageselector", 0,
        "base class of the stage frame selectors"));

#define GET_PRIV(self) \
  ((GstStageSelectorPrivate *) gst_stage_selector_get_instance_private (self))

/* Any stream: the selectors count buffers and never look inside them. */
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

/* FALSE (with a warning naming the property) when the element is past
 * READY: a new value could not take effect until the next start and would
 * only make caps and selection disagree. */
static gboolean
gst_stage_selector_can_set_property (GstStageSelector * self,
    GParamSpec * pspec)
{
  gboolean from_group;

  GST_OBJECT_LOCK (self);
  from_group = GET_PRIV (self)->applying_params;
  GST_OBJECT_UNLOCK (self);
  /* a stageslice group's parameters apply between two groups */
  return from_group || gst_stage_can_set_property (GST_ELEMENT (self), pspec);
}

static void
gst_stage_selector_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageSelector *self = GST_STAGE_SELECTOR (object);

  if (!gst_stage_selector_can_set_property (self, pspec))
    return;
  if (!gst_stage_select_props_set (GST_OBJECT (self), &GET_PRIV (self)->props,
          prop_id - PROP_SELECT_FIRST, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_stage_selector_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageSelectorPrivate *priv = GET_PRIV (GST_STAGE_SELECTOR (object));

  if (!gst_stage_counters_get (GST_OBJECT (object), &priv->count,
          prop_id - PROP_COUNTER_FIRST, value)
      && !gst_stage_select_props_get (GST_OBJECT (object), &priv->props,
          prop_id - PROP_SELECT_FIRST, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

void
gst_stage_selector_class_install_select_props (GstStageSelectorClass * klass,
    GstStageSelectFlags flags)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  /* GObject calls the accessors of the class that installed a property,
   * and does not inherit them: ours serve the subclass's too */
  gobject_class->set_property = gst_stage_selector_set_property;
  gobject_class->get_property = gst_stage_selector_get_property;
  gst_stage_select_props_install (gobject_class, PROP_SELECT_FIRST, flags);
}

/* The default: the selection the properties ask for. */
static StageSelect *
gst_stage_selector_create_select (GstStageSelector * self, GError ** error)
{
  return gst_stage_select_props_create (GST_OBJECT (self),
      &GET_PRIV (self)->props, error);
}

/* The default: the stride divides the rate, a list keeps it (the kept
 * frames are frames of the input's grid, the others gaps). */
static gboolean
gst_stage_selector_get_rate_divisor (GstStageSelector * self,
    guint * divisor)
{
  *divisor = gst_stage_select_props_rate_divisor (GST_OBJECT (self),
      &GET_PRIV (self)->props);
  return TRUE;
}

/* Rewrites the framerate of one structure for the other pad; FALSE when
 * the structure cannot be produced at all (drop it). */
static gboolean
transform_framerate (GstStructure * s, GstPadDirection direction,
    gboolean regular, guint divisor)
{
  const GValue *rate = gst_structure_get_value (s, "framerate");

  if (rate == NULL)
    return TRUE;

  if (regular) {
    GValue out = G_VALUE_INIT;

    if (direction == GST_PAD_SINK)
      gst_stage_scale_framerate (rate, &out, 1, (gint) divisor);
    else
      gst_stage_scale_framerate (rate, &out, (gint) divisor, 1);
    gst_structure_take_value (s, "framerate", &out);
    return TRUE;
  }

  if (direction == GST_PAD_SINK) {
    /* irregular output: a variable framerate, whatever came in */
    gst_structure_set (s, "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
    return TRUE;
  } else {
    /* downstream must accept 0/1; then any input rate will do */
    GValue zero = G_VALUE_INIT;
    gboolean ok;

    g_value_init (&zero, GST_TYPE_FRACTION);
    gst_value_set_fraction (&zero, 0, 1);
    ok = gst_value_can_intersect (rate, &zero)
        && gst_value_intersect (NULL, rate, &zero);
    g_value_unset (&zero);
    if (ok)
      gst_structure_remove_field (s, "framerate");
    return ok;
  }
}

static GstCaps *
gst_stage_selector_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstStageSelector *self = GST_STAGE_SELECTOR (trans);
  GstStageSelectorClass *klass = GST_STAGE_SELECTOR_GET_CLASS (self);
  guint divisor = 1;
  gboolean regular = klass->get_rate_divisor != NULL
      && klass->get_rate_divisor (self, &divisor) && divisor >= 1;
  GstCaps *ret;
  guint i, n;

  if (gst_caps_is_any (caps)) {
    ret = gst_caps_new_any ();
  } else {
    ret = gst_caps_new_empty ();
    n = gst_caps_get_size (caps);
    for (i = 0; i < n; i++) {
      GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
      GstCapsFeatures *f = gst_caps_get_features (caps, i);

      if (transform_framerate (s, direction, regular, divisor))
        ret = gst_caps_merge_structure_full (ret, s,
            f ? gst_caps_features_copy (f) : NULL);
      else
        gst_structure_free (s);
    }
  }

  ret = gst_stage_caps_filter (ret, filter);
  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);
  return ret;
}

/* GstBaseTransform answers caps queries with the peer's untransformed caps
 * first, as if we were a passthrough. For a gather that puts the peer's
 * framerate=0/1 first upstream, and a video source then fixates to a
 * variable rate with no timestamps. Only the transformed caps are true. */
static gboolean
gst_stage_selector_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstPad *otherpad;
  GstCaps *filter, *peerfilter = NULL, *peercaps, *caps;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
    return GST_BASE_TRANSFORM_CLASS (gst_stage_selector_parent_class)->query
        (trans, direction, query);

  otherpad = direction == GST_PAD_SINK ? GST_BASE_TRANSFORM_SRC_PAD (trans)
      : GST_BASE_TRANSFORM_SINK_PAD (trans);
  gst_query_parse_caps (query, &filter);
  if (filter)
    peerfilter = gst_stage_selector_transform_caps (trans, direction, filter,
        NULL);
  peercaps = gst_pad_peer_query_caps (otherpad, peerfilter);
  caps = gst_stage_selector_transform_caps (trans,
      direction == GST_PAD_SINK ? GST_PAD_SRC : GST_PAD_SINK, peercaps,
      filter);
  gst_query_set_caps_result (query, caps);
  gst_caps_unref (caps);
  gst_caps_unref (peercaps);
  if (peerfilter)
    gst_caps_unref (peerfilter);
  return TRUE;
}

static gboolean
gst_stage_selector_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstStageSelectorPrivate *priv = GET_PRIV (GST_STAGE_SELECTOR (trans));
  gint n, d;

  gst_stage_caps_get_framerate (incaps, &n, &d);
  GST_OBJECT_LOCK (trans);
  priv->fps_n = n;
  priv->fps_d = d;
  GST_OBJECT_UNLOCK (trans);
  return TRUE;
}

static gboolean
gst_stage_selector_start (GstBaseTransform * trans)
{
  GstStageSelector *self = GST_STAGE_SELECTOR (trans);
  GstStageSelectorClass *klass = GST_STAGE_SELECTOR_GET_CLASS (self);
  GstStageSelectorPrivate *priv = GET_PRIV (self);
  GError *err = NULL;
  StageSelect *sel;

  g_return_val_if_fail (klass->create_select != NULL, FALSE);
  sel = klass->create_select (self, &err);
  if (sel == NULL) {
    /* The subclass message names the property and the value: it is the
     * part a user can act on, so it is the error text, not the debug. */
    gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR,
        err ? err->domain : GST_RESOURCE_ERROR,
        err ? err->code : GST_RESOURCE_ERROR_SETTINGS,
        g_strdup (err ? err->message : "invalid selection"), NULL,
        __FILE__, GST_FUNCTION, __LINE__);
    g_clear_error (&err);
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "selection ready, last index %" G_GUINT64_FORMAT,
      stage_select_last (sel));

  GST_OBJECT_LOCK (self);
  stage_select_free (priv->select);
  priv->select = sel;
  priv->index = 0;
  priv->next = stage_select_next (sel, 0);
  memset (&priv->count, 0, sizeof (priv->count));
  priv->fps_n = 0;
  priv->fps_d = 1;
  priv->flushed = FALSE;
  priv->resync = FALSE;
  priv->pending_eos = FALSE;
  priv->eos_sent = FALSE;
  priv->prev_dropped = FALSE;
  priv->reverse = FALSE;
  priv->seqnum = GST_SEQNUM_INVALID;
  priv->gap_ts = priv->gap_dur = GST_CLOCK_TIME_NONE;
  priv->covered_until = GST_CLOCK_TIME_NONE;
  priv->in_group = FALSE;
  priv->group_failed = FALSE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_stage_selector_stop (GstBaseTransform * trans)
{
  GstStageSelectorPrivate *priv = GET_PRIV (GST_STAGE_SELECTOR (trans));

  GST_OBJECT_LOCK (trans);
  stage_select_free (priv->select);
  priv->select = NULL;
  GST_OBJECT_UNLOCK (trans);
  return TRUE;
}

/* Called with the object lock, for the first buffer after a flushing seek:
 * the index of that frame in its stream, from its stream time (see
 * gst_stage_frame_index_at() for why not round (segment.start * rate)). */
static guint64
index_after_seek (GstStageSelectorPrivate * priv, GstBuffer * buf)
{
  return gst_stage_frame_index_at (&priv->resync_segment, buf, priv->fps_n,
      priv->fps_d);
}

/* A stageslice group starts: apply its parameters for this element, then
 * count from the group's first position. A failure posts an error, and the
 * selection stays as it was. */
static void
start_group (GstStageSelector * self, const GstStageGroup * group)
{
  GstStageSelectorClass *klass = GST_STAGE_SELECTOR_GET_CLASS (self);
  GstStageSelectorPrivate *priv = GET_PRIV (self);
  StageSelect *sel = NULL;
  GError *err = NULL;
  gint applied;

  GST_OBJECT_LOCK (self);
  priv->applying_params = TRUE;
  GST_OBJECT_UNLOCK (self);
  applied = gst_stage_group_apply_params (GST_ELEMENT (self), group->params,
      &err);
  if (applied > 0)
    sel = klass->create_select (self, &err);
  GST_OBJECT_LOCK (self);
  priv->applying_params = FALSE;
  if (sel) {
    stage_select_free (priv->select);
    priv->select = sel;
  }
  priv->in_group = TRUE;
  priv->index = group->first;
  priv->next = stage_select_next (priv->select, priv->index);
  priv->flushed = priv->resync = FALSE;
  priv->pending_eos = priv->eos_sent = FALSE;
  priv->group_failed = err != NULL;
  GST_OBJECT_UNLOCK (self);
  if (err)
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Group %" G_GUINT64_FORMAT
            ": %s", group->index, err->message), (NULL));
  GST_DEBUG_OBJECT (self, "group %" G_GUINT64_FORMAT " from position %"
      G_GUINT64_FORMAT ", %d parameters", group->index, group->first, applied);
  g_clear_error (&err);
}

static gboolean
gst_stage_selector_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstStageGroup group;

  GstStageSelector *self = GST_STAGE_SELECTOR (trans);
  GstStageSelectorPrivate *priv = GET_PRIV (self);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CUSTOM_DOWNSTREAM:
      if (gst_stage_group_event_parse (event, &group))
        start_group (self, &group);
      break;
    case GST_EVENT_FLUSH_STOP:
      GST_OBJECT_LOCK (self);
      priv->flushed = TRUE;
      priv->resync = FALSE;
      priv->pending_eos = FALSE;
      priv->eos_sent = FALSE;
      priv->prev_dropped = FALSE;
      priv->covered_until = GST_CLOCK_TIME_NONE;
      GST_OBJECT_UNLOCK (self);
      break;
    case GST_EVENT_SEGMENT:{
      const GstSegment *seg;
      gdouble rate;

      gst_event_parse_segment (event, &seg);
      rate = seg->rate;
      GST_OBJECT_LOCK (self);
      priv->seqnum = gst_event_get_seqnum (event);
      priv->reverse = rate < 0.0;
      /* a segment that replaces the flush's one before any buffer (the
       * refused reverse one, say) is the one the next buffer belongs to */
      if (priv->flushed || priv->resync) {
        gst_segment_copy_into (seg, &priv->resync_segment);
        priv->flushed = FALSE;
        priv->resync = TRUE;
      }
      GST_OBJECT_UNLOCK (self);
      /* Seeks with a negative rate are refused on the way up; this one
       * came some other way. Frames would arrive last to first and the
       * index would name the wrong ones: stop rather than select wrongly.
       * The buffers of this segment are then refused (transform_ip). */
      if (rate < 0.0)
        GST_ELEMENT_ERROR (self, STREAM, NOT_IMPLEMENTED,
            ("Reverse playback (segment rate %g) is not supported: frame "
                "indices only count forwards.", rate),
            ("Play forwards (rate > 0), or select the frames before "
                "reversing."));
      break;
    }
    case GST_EVENT_EOS:{
      gboolean swallow;

      GST_OBJECT_LOCK (self);
      swallow = priv->eos_sent;
      GST_OBJECT_UNLOCK (self);
      if (swallow) {
        GST_DEBUG_OBJECT (self, "EOS already sent downstream, dropping "
            "this one");
        gst_event_unref (event);
        return TRUE;
      }
      break;
    }
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_stage_selector_parent_class)->sink_event
      (trans, event);
}

/* QoS would let GstBaseTransform drop late buffers before transform_ip sees
 * them, and every buffer must be counted for the index to stay exact, so
 * QoS events go upstream without arming the base class's QoS (its qos
 * property then has no effect). An upstream element may still act on them
 * (a video decoder drops late frames): the docs say so.
 *
 * Seeks with a negative rate are refused: the index counts forwards only,
 * and a reverse stream would have its frames selected wrongly. */
static gboolean
gst_stage_selector_src_event (GstBaseTransform * trans, GstEvent * event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_QOS:
      return gst_pad_push_event (GST_BASE_TRANSFORM_SINK_PAD (trans), event);
    case GST_EVENT_SEEK:{
      gdouble rate;

      gst_event_parse_seek (event, &rate, NULL, NULL, NULL, NULL, NULL,
          NULL);
      if (rate < 0.0) {
        GST_WARNING_OBJECT (trans, "refusing a seek with rate %g: reverse "
            "playback is not supported", rate);
        gst_event_unref (event);
        return FALSE;
      }
      break;
    }
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_stage_selector_parent_class)->src_event
      (trans, event);
}

/* The span a dropped buffer covered, for the GAP event that tells
 * downstream no data comes for it: its PTS (else DTS) and duration (else one
 * frame at the caps framerate, else unknown). GST_CLOCK_TIME_NONE: the
 * buffer has no time, no GAP can be sent. */
static void
gap_span (GstStageSelectorPrivate * priv, GstBuffer * buf, GstClockTime * ts,
    GstClockTime * dur)
{
  *ts = GST_BUFFER_PTS_IS_VALID (buf) ? GST_BUFFER_PTS (buf)
      : GST_BUFFER_DTS (buf);
  *dur = GST_BUFFER_DURATION (buf);
  if (!GST_CLOCK_TIME_IS_VALID (*dur) && priv->fps_n > 0)
    *dur = gst_util_uint64_scale_int (GST_SECOND, priv->fps_d, priv->fps_n);
}

static GstFlowReturn
gst_stage_selector_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstStageSelector *self = GST_STAGE_SELECTOR (trans);
  GstStageSelectorPrivate *priv = GET_PRIV (self);
  GstFlowReturn ret;
  guint64 index;

  GST_OBJECT_LOCK (self);
  if (G_UNLIKELY (priv->reverse || priv->group_failed)) {
    /* the error was posted with the segment or the group event */
    ret = priv->reverse ? GST_FLOW_NOT_SUPPORTED : GST_FLOW_ERROR;
    GST_OBJECT_UNLOCK (self);
    return ret;
  }
  if (G_UNLIKELY (priv->resync)) {
    priv->resync = FALSE;
    priv->index = index_after_seek (priv, buf);
    priv->next = stage_select_next (priv->select, priv->index);
    GST_DEBUG_OBJECT (self, "first frame after flush is %" G_GUINT64_FORMAT
        ", next kept %" G_GUINT64_FORMAT, priv->index, priv->next);
  }
  index = priv->index;
  if (priv->index < STAGE_SELECT_NONE - 1)
    priv->index++;
  priv->count.in++;
  if (priv->eos_sent) {
    priv->count.dropped++;
    ret = GST_FLOW_EOS;
  } else if (index == priv->next) {
    priv->count.out++;
    priv->next = stage_select_next (priv->select, index + 1);
    priv->kept_index = index;
    ret = GST_FLOW_OK;
  } else {
    priv->count.dropped++;
    ret = GST_BASE_TRANSFORM_FLOW_DROPPED;
    gap_span (priv, buf, &priv->gap_ts, &priv->gap_dur);
    /* a stretched kept frame already spans it */
    if (GST_CLOCK_TIME_IS_VALID (priv->gap_ts)
        && GST_CLOCK_TIME_IS_VALID (priv->covered_until)
        && priv->gap_ts < priv->covered_until) {
      /* (1 us of slack for durations rounded to the nanosecond) */
      if (GST_CLOCK_TIME_IS_VALID (priv->gap_dur)
          && priv->gap_ts + priv->gap_dur > priv->covered_until + GST_USECOND) {
        priv->gap_dur = priv->gap_ts + priv->gap_dur - priv->covered_until;
        priv->gap_ts = priv->covered_until;
      } else {
        priv->gap_ts = priv->gap_dur = GST_CLOCK_TIME_NONE;
      }
    }
  }
  if (priv->next == STAGE_SELECT_NONE && !priv->eos_sent && !priv->in_group)
    priv->pending_eos = TRUE;
  GST_OBJECT_UNLOCK (self);

  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " pts %" GST_TIME_FORMAT
      ": %s", index, GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
      ret == GST_FLOW_OK ? "kept" : "dropped");
  return ret;
}

/* A kept buffer where the rate is divided by @divisor: it lasts @divisor
 * input frames and is numbered on the output's frame grid: floor (stream
 * time * rate / @divisor), which for a stream without holes is index /
 * @divisor; without a time or a rate, index / @divisor. */
static GstBuffer *
stretch (GstBaseTransform * trans, GstStageSelectorPrivate * priv,
    GstBuffer * buf, guint divisor, guint64 index)
{
  GstClockTime dur = GST_BUFFER_DURATION (buf), st = GST_CLOCK_TIME_NONE;
  guint64 number = index / divisor;

  if (!GST_CLOCK_TIME_IS_VALID (dur) && priv->fps_n > 0)
    dur = gst_util_uint64_scale_int (GST_SECOND, priv->fps_d, priv->fps_n);
  if (GST_BUFFER_PTS_IS_VALID (buf) && trans->segment.format ==
      GST_FORMAT_TIME)
    st = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));
  if (GST_CLOCK_TIME_IS_VALID (st) && priv->fps_n > 0)
    /* 1 us of slack for timestamps rounded to the nanosecond */
    number = gst_util_uint64_scale (st + GST_USECOND, priv->fps_n,
        (guint64) priv->fps_d * divisor * GST_SECOND);
  buf = gst_buffer_make_writable (buf);
  if (GST_CLOCK_TIME_IS_VALID (dur))
    GST_BUFFER_DURATION (buf) = dur * divisor;
  if (GST_BUFFER_OFFSET_IS_VALID (buf)) {
    GST_BUFFER_OFFSET (buf) = number;
    GST_BUFFER_OFFSET_END (buf) = number + 1;
  }
  return buf;
}

/* The base class would push our last kept buffer and wait for the next input
 * buffer before anything else could happen; pushing it here lets EOS follow
 * immediately and upstream learn of it from this very buffer's return. */
static GstFlowReturn
gst_stage_selector_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstStageSelector *self = GST_STAGE_SELECTOR (trans);
  GstStageSelectorPrivate *priv = GET_PRIV (self);
  GstFlowReturn ret;
  gboolean finish, discont;
  guint32 seqnum;
  GstClockTime gap_ts, gap_dur;

  GstStageSelectorClass *klass = GST_STAGE_SELECTOR_GET_CLASS (self);
  guint divisor = 1;

  ret = GST_BASE_TRANSFORM_CLASS (gst_stage_selector_parent_class)
      ->generate_output (trans, outbuf);

  if (ret == GST_FLOW_OK && *outbuf != NULL) {
    GstClockTime pts, dur;

    if (klass->get_rate_divisor && klass->get_rate_divisor (self, &divisor)
        && divisor > 1)
      *outbuf = stretch (trans, priv, *outbuf, divisor,
          priv->kept_index);
    pts = GST_BUFFER_PTS (*outbuf);
    dur = GST_BUFFER_DURATION (*outbuf);
    GST_OBJECT_LOCK (self);
    priv->covered_until = GST_CLOCK_TIME_IS_VALID (pts)
        && GST_CLOCK_TIME_IS_VALID (dur) ? pts + dur : GST_CLOCK_TIME_NONE;
    GST_OBJECT_UNLOCK (self);
  }

  GST_OBJECT_LOCK (self);
  gap_ts = priv->gap_ts;
  gap_dur = priv->gap_dur;
  priv->gap_ts = priv->gap_dur = GST_CLOCK_TIME_NONE;
  finish = priv->pending_eos;
  priv->pending_eos = FALSE;
  if (finish)
    priv->eos_sent = TRUE;
  discont = priv->prev_dropped;
  if (ret == GST_FLOW_OK && *outbuf != NULL)
    priv->prev_dropped = FALSE;
  else if (ret == GST_BASE_TRANSFORM_FLOW_DROPPED)
    priv->prev_dropped = TRUE;
  seqnum = priv->seqnum;
  GST_OBJECT_UNLOCK (self);

  /* A dropped frame still tells downstream that its time has passed, as
   * GStreamer's own dropping elements do: a sink prerolls on the GAP and
   * keeps time (a selector in one branch of a tee would otherwise leave its
   * sink unprerolled while the other branch's queue fills: a hang), and a
   * muxer or mixer need not wait for data that will never come. */
  if (ret == GST_BASE_TRANSFORM_FLOW_DROPPED && !finish
      && GST_CLOCK_TIME_IS_VALID (gap_ts))
    gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (trans),
        gst_event_new_gap (gap_ts, gap_dur));

  if (!finish)
    return ret;

  if (*outbuf != NULL) {
    GstBuffer *buf = *outbuf;

    *outbuf = NULL;
    if (ret == GST_FLOW_OK) {
      if (discont && !GST_BUFFER_IS_DISCONT (buf)) {
        buf = gst_buffer_make_writable (buf);
        GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
      }
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (trans), buf);
    } else {
      gst_buffer_unref (buf);
    }
  }

  if (ret == GST_FLOW_OK || ret == GST_BASE_TRANSFORM_FLOW_DROPPED
      || ret == GST_FLOW_EOS) {
    GstEvent *eos = gst_event_new_eos ();

    GST_DEBUG_OBJECT (self, "selection exhausted: sending EOS");
    if (seqnum != GST_SEQNUM_INVALID)
      gst_event_set_seqnum (eos, seqnum);
    gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (trans), eos);
    ret = GST_FLOW_EOS;
  }
  return ret;
}

static void
gst_stage_selector_finalize (GObject * object)
{
  GstStageSelectorPrivate *priv = GET_PRIV (GST_STAGE_SELECTOR (object));

  stage_select_free (priv->select);
  priv->select = NULL;
  gst_stage_select_props_clear (&priv->props);
  G_OBJECT_CLASS (gst_stage_selector_parent_class)->finalize (object);
}

static void
gst_stage_selector_class_init (GstStageSelectorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_stage_selector_set_property;
  gobject_class->get_property = gst_stage_selector_get_property;
  gobject_class->finalize = gst_stage_selector_finalize;

  /* in = out + dropped */
  gst_stage_counters_install (gobject_class, PROP_COUNTER_FIRST,
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_IN) |
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_OUT) |
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_DROPPED));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_stage_selector_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_stage_selector_set_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_stage_selector_query);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_stage_selector_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_stage_selector_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_stage_selector_sink_event);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_stage_selector_src_event);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_stage_selector_transform_ip);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_stage_selector_generate_output);
  klass->create_select = GST_DEBUG_FUNCPTR (gst_stage_selector_create_select);
  klass->get_rate_divisor =
      GST_DEBUG_FUNCPTR (gst_stage_selector_get_rate_divisor);
  /* The caps differ only in framerate; buffers are never touched. */
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = TRUE;

  gst_type_mark_as_plugin_api (GST_TYPE_STAGE_SELECTOR, 0);
}

static void
gst_stage_selector_init (GstStageSelector * self)
{
  GstStageSelectorPrivate *priv = GET_PRIV (self);

  gst_stage_select_props_init (&priv->props);
  priv->fps_d = 1;
  priv->next = STAGE_SELECT_NONE;
  priv->seqnum = GST_SEQNUM_INVALID;
  priv->gap_ts = priv->gap_dur = GST_CLOCK_TIME_NONE;
  priv->covered_until = GST_CLOCK_TIME_NONE;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
