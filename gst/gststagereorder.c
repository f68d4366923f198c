/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the fan-in half of stagebin.
 *
 * One sink pad per replica, one source pad. Work packet p arrives on sink
 * pad p % N and ends with the GstStagePacketEnd event that the dispatcher
 * put behind its last frame. The element keeps a "turn": only the pad whose
 * packet is next may push; the others wait in their own streaming thread.
 * That restores input order with no buffering of our own: a replica that
 * is ahead blocks, its queue fills, and the dispatcher blocks on it, so
 * memory stays bounded by the replica queues. Because packets are closed by
 * an event rather than counted, ops may drop or add frames.
 *
 * Stream-start, caps and segment reach every replica; instead of
 * forwarding N copies, the turn holder sends its own sticky events before
 * its next buffer when they differ from what went out last. EOS leaves
 * once every replica delivered it, i.e. after all of them drained.
 *
 * Internal to stagebin: not registered, created with g_object_new().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagereorder.h"
#include "gststagedispatch.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_reorder_debug);
#define GST_CAT_DEFAULT gst_stage_reorder_debug

typedef struct
{
  GstPad *pad;
  gboolean eos;
  gboolean flushing;
  /* a new stream-start, caps or segment arrived since our last push */
  gboolean sticky_changed;
  /* source pads of the replica's queues: a fatal flow on one means the
   * replica stopped for good (see replica_dead()) */
  GPtrArray *watch;
  /* This input's streaming thread waits here for its turn. One condition
   * per input, not one for all: moving the turn wakes only the new turn
   * holder, not all N-1 waiting replicas at every packet. */
  GCond *cond;
} ReorderInput;

struct _GstStageReorder
{
  GstElement parent;

  GstPad *srcpad;

  GMutex lock;
  /* Inputs are added before streaming and never removed while above
   * READY; the array is read without the lock. */
  GArray *inputs;               /* of ReorderInput */
  guint turn;
  guint64 next_packet;
  gboolean flushing;
  GstFlowReturn srcresult;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink_%u",
    GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

#define gst_stage_reorder_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstStageReorder, gst_stage_reorder,
    GST_TYPE_ELEMENT, GST_DEBUG_CATEGORY_INIT (gst_stage_reorder_debug,
        "stagereorder", 0, "stagebin ordered fan-in of replicas"));

static guint
input_index (GstPad * pad)
{
  return GPOINTER_TO_UINT (gst_pad_get_element_private (pad)) - 1;
}

static ReorderInput *
input_at (GstStageReorder * self, guint i)
{
  return &g_array_index (self->inputs, ReorderInput, i);
}

/* Called with the lock, after a change every waiting input must see:
 * flushing, a downstream or replica flow, an EOS. */
static void
wake_all (GstStageReorder * self)
{
  guint i;

  for (i = 0; i < self->inputs->len; i++)
    g_cond_signal (input_at (self, i)->cond);
}

/* How often a replica waiting for its turn checks that the turn holder is
 * still alive. */
#define DEAD_CHECK_INTERVAL (50 * G_TIME_SPAN_MILLISECOND)

/* A replica whose op returned a fatal flow (error, not-negotiated...) has
 * stopped its queue's task, maybe without posting anything: the flow only
 * goes back to the queue. Its turn would never end, the other replicas
 * would wait for it with full queues, and the dispatcher on them, so the
 * stream would hang where the plain chain ends with an error. Returns that
 * flow, or GST_FLOW_OK while the replica lives. */
static GstFlowReturn
replica_dead (GstStageReorder * self, guint idx)
{
  GPtrArray *watch = input_at (self, idx)->watch;
  guint i;

  for (i = 0; i < watch->len; i++) {
    GstPad *pad = g_ptr_array_index (watch, i);
    GstFlowReturn ret = gst_pad_get_last_flow_return (pad);

    /* The queue pauses its task on a fatal flow; a flush restarts it, so a
     * paused task tells a stale flow from a stop. */
    if ((ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) &&
        gst_pad_get_task_state (pad) == GST_TASK_PAUSED)
      return ret;
  }
  return GST_FLOW_OK;
}

/* Called with the lock. Returns GST_FLOW_OK once input @idx holds the turn;
 * otherwise why it never will. */
static GstFlowReturn
wait_turn (GstStageReorder * self, guint idx)
{
  for (;;) {
    GstFlowReturn dead;

    if (self->flushing || input_at (self, idx)->flushing)
      return GST_FLOW_FLUSHING;
    if (self->srcresult != GST_FLOW_OK)
      return self->srcresult;
    if (self->turn == idx)
      return GST_FLOW_OK;
    /* The replica that should deliver the next packet has ended: there is
     * no next packet, whatever this input still holds cannot go out. */
    if (input_at (self, self->turn)->eos)
      return GST_FLOW_EOS;
    /* ...or died: every input returns its flow, so every replica queue
     * stops and the dispatcher hands the flow upstream, where the source
     * reports it as it would for the plain chain. */
    if ((dead = replica_dead (self, self->turn)) != GST_FLOW_OK) {
      GST_WARNING_OBJECT (self, "replica %u stopped: %s", self->turn,
          gst_flow_get_name (dead));
      self->srcresult = dead;
      wake_all (self);
      return dead;
    }
    g_cond_wait_until (input_at (self, idx)->cond, &self->lock,
        g_get_monotonic_time () + DEAD_CHECK_INTERVAL);
  }
}

static gboolean
same_sticky (GstEvent * a, GstEvent * b)
{
  if (a == b)
    return TRUE;
  if (a == NULL || b == NULL)
    return FALSE;
  switch (GST_EVENT_TYPE (a)) {
    case GST_EVENT_CAPS:{
      GstCaps *ca, *cb;

      gst_event_parse_caps (a, &ca);
      gst_event_parse_caps (b, &cb);
      return gst_caps_is_equal (ca, cb);
    }
    case GST_EVENT_SEGMENT:{
      const GstSegment *sa, *sb;

      gst_event_parse_segment (a, &sa);
      gst_event_parse_segment (b, &sb);
      return gst_segment_is_equal (sa, sb);
    }
    case GST_EVENT_STREAM_START:{
      const gchar *ia = NULL, *ib = NULL;

      gst_event_parse_stream_start (a, &ia);
      gst_event_parse_stream_start (b, &ib);
      return g_strcmp0 (ia, ib) == 0;
    }
    default:
      return FALSE;
  }
}

/* Sends @pad's stream-start, caps and segment downstream where they differ
 * from the last ones sent, so downstream sees each change exactly once and
 * just before the first buffer it applies to. */
static void
forward_sticky (GstStageReorder * self, GstPad * pad)
{
  static const GstEventType types[] = {
    GST_EVENT_STREAM_START, GST_EVENT_CAPS, GST_EVENT_SEGMENT
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (types); i++) {
    GstEvent *ev = gst_pad_get_sticky_event (pad, types[i], 0);
    GstEvent *cur = gst_pad_get_sticky_event (self->srcpad, types[i], 0);

    if (ev && !same_sticky (ev, cur))
      gst_pad_push_event (self->srcpad, gst_event_ref (ev));
    if (ev)
      gst_event_unref (ev);
    if (cur)
      gst_event_unref (cur);
  }
}

static void
note_flow (GstStageReorder * self, GstFlowReturn ret)
{
  if (ret == GST_FLOW_OK)
    return;
  /* Like queue's srcresult: every replica waiting for its turn learns that
   * downstream stopped, instead of waiting forever. */
  g_mutex_lock (&self->lock);
  if (self->srcresult == GST_FLOW_OK)
    self->srcresult = ret;
  wake_all (self);
  g_mutex_unlock (&self->lock);
}

static GstFlowReturn
gst_stage_reorder_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstStageReorder *self = GST_STAGE_REORDER (parent);
  guint idx = input_index (pad);
  gboolean changed;
  GstFlowReturn ret;

  g_mutex_lock (&self->lock);
  ret = wait_turn (self, idx);
  changed = input_at (self, idx)->sticky_changed;
  input_at (self, idx)->sticky_changed = FALSE;
  g_mutex_unlock (&self->lock);
  if (ret != GST_FLOW_OK) {
    GST_LOG_OBJECT (pad, "dropping buffer: %s", gst_flow_get_name (ret));
    gst_buffer_unref (buf);
    return ret;
  }

  /* Only the turn holder gets here, and the turn moves on only from this
   * same thread (the packet-end event), so pushes never overlap. */
  if (changed)
    forward_sticky (self, pad);
  ret = gst_pad_push (self->srcpad, buf);
  note_flow (self, ret);
  return ret;
}

static GstFlowReturn
handle_packet_end (GstStageReorder * self, guint idx, guint64 packet)
{
  GstFlowReturn ret;

  g_mutex_lock (&self->lock);
  ret = wait_turn (self, idx);
  if (ret == GST_FLOW_OK) {
    if (packet != self->next_packet)
      GST_WARNING_OBJECT (self, "input %u closed packet %" G_GUINT64_FORMAT
          ", expected %" G_GUINT64_FORMAT, idx, packet, self->next_packet);
    self->next_packet = packet + 1;
    self->turn = (self->turn + 1) % self->inputs->len;
    /* only the new turn holder can go on, unless it has ended, which
     * every waiting input must learn */
    if (input_at (self, self->turn)->eos)
      wake_all (self);
    else
      g_cond_signal (input_at (self, self->turn)->cond);
  }
  g_mutex_unlock (&self->lock);
  return ret;
}

/* The flow for an event that could not go downstream: what stopped
 * downstream (EOS, flushing) when we know it, so that a sticky event
 * refused after downstream ended is not turned into GST_FLOW_ERROR by the
 * pad, which a replica queue would post as an error. */
static GstFlowReturn
event_flow (GstStageReorder * self, gboolean ok)
{
  GstFlowReturn ret;

  if (ok)
    return GST_FLOW_OK;
  g_mutex_lock (&self->lock);
  ret = self->flushing ? GST_FLOW_FLUSHING : self->srcresult;
  g_mutex_unlock (&self->lock);
  if (ret == GST_FLOW_OK && GST_PAD_IS_EOS (self->srcpad))
    ret = GST_FLOW_EOS;
  return ret != GST_FLOW_OK ? ret : GST_FLOW_ERROR;
}

static gboolean
handle_eos (GstStageReorder * self, guint idx, GstEvent * event)
{
  gboolean all = TRUE;
  guint i;

  g_mutex_lock (&self->lock);
  input_at (self, idx)->eos = TRUE;
  for (i = 0; i < self->inputs->len; i++)
    all &= input_at (self, i)->eos;
  wake_all (self);
  g_mutex_unlock (&self->lock);

  if (!all) {
    gst_event_unref (event);
    return TRUE;
  }
  /* An empty stream still owes downstream its caps and segment. Every
   * replica got all of them, so any input's last ones are right. */
  forward_sticky (self, input_at (self, idx)->pad);
  return gst_pad_push_event (self->srcpad, event);
}

static gboolean
handle_flush (GstStageReorder * self, guint idx, GstEvent * event)
{
  gboolean forward, start = GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START;
  guint i;

  g_mutex_lock (&self->lock);
  input_at (self, idx)->flushing = start;
  if (start) {
    /* The first replica to flush starts the flush downstream. */
    forward = !self->flushing;
    self->flushing = TRUE;
  } else {
    /* The flush ends when the last replica ends it; then the schedule
     * starts over at packet 0 on input 0, like the dispatcher's. */
    forward = self->flushing;
    for (i = 0; i < self->inputs->len; i++)
      forward &= !input_at (self, i)->flushing;
    if (forward) {
      self->flushing = FALSE;
      self->turn = 0;
      self->next_packet = 0;
      self->srcresult = GST_FLOW_OK;
      /* flush-stop clears the segment downstream: resend it. */
      for (i = 0; i < self->inputs->len; i++) {
        input_at (self, i)->eos = FALSE;
        input_at (self, i)->sticky_changed = TRUE;
      }
    }
  }
  wake_all (self);
  g_mutex_unlock (&self->lock);

  if (!forward) {
    gst_event_unref (event);
    return TRUE;
  }
  return gst_pad_push_event (self->srcpad, event);
}

/* An event function that returns a flow, not a boolean: a replica's
 * events refused because downstream ended must say EOS (or FLUSHING), not
 * the GST_FLOW_ERROR a FALSE stands for, or the replica's queue stops with
 * an error where the plain chain ends cleanly. */
static GstFlowReturn
gst_stage_reorder_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstStageReorder *self = GST_STAGE_REORDER (parent);
  guint idx = input_index (pad);
  guint64 packet;
  GstFlowReturn ret;

  if (gst_stage_is_packet_end (event, &packet)) {
    gst_event_unref (event);
    return handle_packet_end (self, idx, packet);
  }

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_STREAM_START:
    case GST_EVENT_CAPS:
    case GST_EVENT_SEGMENT:
      /* The pad stores it as sticky once we return TRUE; the turn holder
       * forwards it before its next buffer. */
      g_mutex_lock (&self->lock);
      input_at (self, idx)->sticky_changed = TRUE;
      g_mutex_unlock (&self->lock);
      gst_event_unref (event);
      return GST_FLOW_OK;
    case GST_EVENT_EOS:
      return event_flow (self, handle_eos (self, idx, event));
    case GST_EVENT_FLUSH_START:
    case GST_EVENT_FLUSH_STOP:
      return event_flow (self, handle_flush (self, idx, event));
    default:
      break;
  }

  if (!GST_EVENT_IS_SERIALIZED (event))
    return event_flow (self, gst_pad_push_event (self->srcpad, event));

  /* Tags, gaps and custom events sit between two frames of one packet:
   * they go out when that packet's replica holds the turn. */
  g_mutex_lock (&self->lock);
  ret = wait_turn (self, idx);
  g_mutex_unlock (&self->lock);
  if (ret != GST_FLOW_OK) {
    gst_event_unref (event);
    return ret;
  }
  return event_flow (self, gst_pad_push_event (self->srcpad, event));
}

static gboolean
gst_stage_reorder_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstStageReorder *self = GST_STAGE_REORDER (parent);
  gboolean ok = TRUE;
  guint i;

  if (self->inputs->len == 0) {
    gst_event_unref (event);
    return FALSE;
  }
  /* Every replica must renegotiate, and every replica's ops must learn
   * that frames come late (QoS: basetransform drops late frames, as every
   * op of the plain chain would); the dispatcher sends one QoS upstream.
   * A seek or navigation event must reach upstream once, so it goes
   * through replica 0 only. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_RECONFIGURE ||
      GST_EVENT_TYPE (event) == GST_EVENT_QOS) {
    for (i = 0; i < self->inputs->len; i++)
      ok &= gst_pad_push_event (input_at (self, i)->pad,
          gst_event_ref (event));
    gst_event_unref (event);
    return ok;
  }
  return gst_pad_push_event (input_at (self, 0)->pad, event);
}

/* Called before streaming, like gst_stage_reorder_add_input(). */
void
gst_stage_reorder_watch_pad (GstStageReorder * self, GstPad * input,
    GstPad * pad)
{
  ReorderInput *in = input_at (self, input_index (input));

  g_ptr_array_add (in->watch, gst_object_ref (pad));
}

GstPad *
gst_stage_reorder_add_input (GstStageReorder * self)
{
  GstPadTemplate *templ;
  ReorderInput in = { 0, };
  GstPad *pad;
  gchar *name;

  templ = gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self),
      "sink_%u");
  name = g_strdup_printf ("sink_%u", self->inputs->len);
  pad = gst_pad_new_from_template (templ, name);
  g_free (name);
  gst_pad_set_element_private (pad,
      GUINT_TO_POINTER (self->inputs->len + 1));
  gst_pad_set_chain_function (pad, GST_DEBUG_FUNCPTR (gst_stage_reorder_chain));
  gst_pad_set_event_full_function (pad,
      GST_DEBUG_FUNCPTR (gst_stage_reorder_sink_event));
  GST_PAD_SET_PROXY_CAPS (pad);
  GST_PAD_SET_PROXY_ALLOCATION (pad);
  GST_PAD_SET_PROXY_SCHEDULING (pad);
  in.pad = pad;
  in.watch = g_ptr_array_new_with_free_func (gst_object_unref);
  /* allocated apart: the array moves its elements when it grows */
  in.cond = g_new (GCond, 1);
  g_cond_init (in.cond);
  g_mutex_lock (&self->lock);
  g_array_append_val (self->inputs, in);
  g_mutex_unlock (&self->lock);
  gst_element_add_pad (GST_ELEMENT (self), pad);
  return pad;
}

static void
reset_state (GstStageReorder * self, gboolean flushing)
{
  guint i;

  g_mutex_lock (&self->lock);
  self->flushing = flushing;
  self->turn = 0;
  self->next_packet = 0;
  self->srcresult = GST_FLOW_OK;
  for (i = 0; i < self->inputs->len; i++) {
    input_at (self, i)->eos = FALSE;
    input_at (self, i)->flushing = FALSE;
    input_at (self, i)->sticky_changed = TRUE;
  }
  wake_all (self);
  g_mutex_unlock (&self->lock);
}

static GstStateChangeReturn
gst_stage_reorder_change_state (GstElement * element,
    GstStateChange transition)
{
  GstStageReorder *self = GST_STAGE_REORDER (element);

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      reset_state (self, FALSE);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      /* Wake replica threads waiting for their turn, or their queues could
       * never stop their tasks. */
      reset_state (self, TRUE);
      break;
    default:
      break;
  }
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static void
gst_stage_reorder_finalize (GObject * object)
{
  GstStageReorder *self = GST_STAGE_REORDER (object);
  guint i;

  for (i = 0; i < self->inputs->len; i++) {
    g_ptr_array_unref (input_at (self, i)->watch);
    g_cond_clear (input_at (self, i)->cond);
    g_free (input_at (self, i)->cond);
  }
  g_array_unref (self->inputs);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_stage_reorder_class_init (GstStageReorderClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->finalize = gst_stage_reorder_finalize;
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_stage_reorder_change_state);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Stage reorder", "Generic",
      "Merges stagebin replicas back into input order",
      "gst-stages developers");
}

static void
gst_stage_reorder_init (GstStageReorder * self)
{
  g_mutex_init (&self->lock);
  self->inputs = g_array_new (FALSE, TRUE, sizeof (ReorderInput));

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_event_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_stage_reorder_src_event));
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->srcpad);
  GST_PAD_SET_PROXY_SCHEDULING (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
