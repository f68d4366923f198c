/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the fan-out half of stagebin.
 *
 * One sink pad, one source pad per replica. Frames go out in work packets
 * of K consecutive frames, packet p to replica p % N, and each packet is
 * closed by a GstStagePacketEnd custom event on the same replica. The
 * reorder element at the other end follows the same schedule, so frames
 * need no sequence numbers and ops may drop or add frames.
 *
 * Why not tee + per-branch filters: tee pushes every buffer into every
 * branch and each filter throws away (N-1)/N of them, N pushes and N-1
 * drops per frame; here each frame is pushed once, and the packet closing
 * needs a state that a per-branch filter does not have.
 *
 * Internal to stagebin: not registered, created with g_object_new().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagedispatch.h"

#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_stage_dispatch_debug);
#define GST_CAT_DEFAULT gst_stage_dispatch_debug

struct _GstStageDispatch
{
  GstElement parent;

  GstPad *sinkpad;
  /* Fixed while the element is above READY: stagebin adds outputs before
   * streaming starts, so the streaming thread reads them without a lock. */
  GPtrArray *srcpads;

  /* Streaming state, only touched by the streaming thread (serialized
   * events and buffers) or with the stream lock held. */
  guint packet_size;
  guint pending_packet_size;
  guint64 packet;
  guint in_packet;

  GstStageDispatchCapsFunc caps_func;
  gpointer caps_data;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src_%u",
    GST_PAD_SRC, GST_PAD_REQUEST, GST_STATIC_CAPS_ANY);

#define gst_stage_dispatch_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstStageDispatch, gst_stage_dispatch,
    GST_TYPE_ELEMENT, GST_DEBUG_CATEGORY_INIT (gst_stage_dispatch_debug,
        "stagedispatch", 0, "stagebin fan-out of work packets"));

gboolean
gst_stage_is_packet_end (GstEvent * event, guint64 * packet)
{
  const GstStructure *s;

  if (GST_EVENT_TYPE (event) != GST_EVENT_CUSTOM_DOWNSTREAM)
    return FALSE;
  s = gst_event_get_structure (event);
  if (s == NULL || !gst_structure_has_name (s, "GstEventStillFrame") ||
      !gst_structure_has_field (s, GST_STAGE_PACKET_END))
    return FALSE;
  if (packet && !gst_structure_get_uint64 (s, "packet", packet))
    *packet = G_MAXUINT64;
  return TRUE;
}

static GstPad *
current_output (GstStageDispatch * self)
{
  return g_ptr_array_index (self->srcpads, self->packet % self->srcpads->len);
}

static void
close_packet (GstStageDispatch * self)
{
  GstEvent *ev;
  GstStructure *s;

  /* A still-frame event (GstVideoDecoder drains and forwards it at once;
   * it keeps any other serialized event until its next output frame, which
   * would hold the packet's end back until the replica's next packet is
   * decoded, and the reorder, waiting for it, would run the replicas one
   * at a time), marked as ours. */
  ev = gst_video_event_new_still_frame (TRUE);
  s = gst_event_writable_structure (ev);
  gst_structure_set (s, GST_STAGE_PACKET_END, G_TYPE_BOOLEAN, TRUE,
      "packet", G_TYPE_UINT64, self->packet, NULL);
  /* A replica that is flushing or gone returns FALSE; its error or flush
   * already tells the rest of the pipeline. */
  gst_pad_push_event (current_output (self), ev);
  self->packet++;
  self->in_packet = 0;
}

static void
reset_schedule (GstStageDispatch * self)
{
  self->packet = 0;
  self->in_packet = 0;
}

static GstFlowReturn
gst_stage_dispatch_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstStageDispatch *self = GST_STAGE_DISPATCH (parent);
  GstFlowReturn ret;

  if (self->srcpads->len == 0) {
    gst_buffer_unref (buf);
    return GST_FLOW_NOT_LINKED;
  }
  /* The packet size only changes between packets, so a packet never
   * straddles two schedules. */
  if (self->in_packet == 0 && self->pending_packet_size > 0) {
    self->packet_size = self->pending_packet_size;
    self->pending_packet_size = 0;
  }

  ret = gst_pad_push (current_output (self), buf);
  if (ret != GST_FLOW_OK)
    return ret;

  if (++self->in_packet >= self->packet_size)
    close_packet (self);
  return GST_FLOW_OK;
}

static gboolean
push_to_all (GstStageDispatch * self, GstEvent * event)
{
  gboolean ok = TRUE;
  guint i;

  for (i = 0; i < self->srcpads->len; i++)
    ok &= gst_pad_push_event (g_ptr_array_index (self->srcpads, i),
        gst_event_ref (event));
  gst_event_unref (event);
  return ok;
}

static gboolean
gst_stage_dispatch_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstStageDispatch *self = GST_STAGE_DISPATCH (parent);

  if (self->srcpads->len == 0) {
    gst_event_unref (event);
    return FALSE;
  }

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
      if (self->caps_func) {
        GstCaps *caps;
        guint k;

        gst_event_parse_caps (event, &caps);
        k = self->caps_func (self, caps, self->caps_data);
        if (k > 0 && k != self->packet_size)
          self->pending_packet_size = k;
      }
      return push_to_all (self, event);
    case GST_EVENT_FLUSH_STOP:
      reset_schedule (self);
      return push_to_all (self, event);
    case GST_EVENT_EOS:
      /* Close a short last packet so the reorder can move past it. */
      if (self->in_packet > 0)
        close_packet (self);
      return push_to_all (self, event);
    case GST_EVENT_STREAM_START:
    case GST_EVENT_SEGMENT:
    case GST_EVENT_FLUSH_START:
      /* Every replica needs these to process its own frames; the reorder
       * forwards one copy. */
      return push_to_all (self, event);
    default:
      break;
  }

  /* Tags, gaps, custom events...: they belong between two frames, so they
   * travel with the packet of the next frame and leave the reorder in
   * order. Out-of-band events have no place in the stream: replica 0. */
  if (GST_EVENT_IS_SERIALIZED (event))
    return gst_pad_push_event (current_output (self), event);
  return gst_pad_push_event (g_ptr_array_index (self->srcpads, 0), event);
}

static gboolean
gst_stage_dispatch_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstStageDispatch *self = GST_STAGE_DISPATCH (parent);

  /* The reorder sends QoS through every replica, so each op can drop late
   * frames; upstream gets the copy of the first replica only, as from the
   * plain chain. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_QOS && self->srcpads->len > 0 &&
      pad != g_ptr_array_index (self->srcpads, 0)) {
    gst_event_unref (event);
    return TRUE;
  }
  return gst_pad_push_event (self->sinkpad, event);
}

GstPad *
gst_stage_dispatch_add_output (GstStageDispatch * self)
{
  GstPadTemplate *templ;
  GstPad *pad;
  gchar *name;

  templ = gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self),
      "src_%u");
  name = g_strdup_printf ("src_%u", self->srcpads->len);
  pad = gst_pad_new_from_template (templ, name);
  g_free (name);
  gst_pad_set_event_function (pad,
      GST_DEBUG_FUNCPTR (gst_stage_dispatch_src_event));
  GST_PAD_SET_PROXY_CAPS (pad);
  GST_PAD_SET_PROXY_ALLOCATION (pad);
  GST_PAD_SET_PROXY_SCHEDULING (pad);
  gst_element_add_pad (GST_ELEMENT (self), pad);
  g_ptr_array_add (self->srcpads, pad);
  return pad;
}

void
gst_stage_dispatch_set_packet_size (GstStageDispatch * self, guint size)
{
  g_return_if_fail (size > 0);
  self->packet_size = size;
  self->pending_packet_size = 0;
}

void
gst_stage_dispatch_set_caps_func (GstStageDispatch * self,
    GstStageDispatchCapsFunc func, gpointer user_data)
{
  self->caps_func = func;
  self->caps_data = user_data;
}

static GstStateChangeReturn
gst_stage_dispatch_change_state (GstElement * element,
    GstStateChange transition)
{
  GstStageDispatch *self = GST_STAGE_DISPATCH (element);

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    reset_schedule (self);
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static void
gst_stage_dispatch_finalize (GObject * object)
{
  GstStageDispatch *self = GST_STAGE_DISPATCH (object);

  g_ptr_array_unref (self->srcpads);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_stage_dispatch_class_init (GstStageDispatchClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->finalize = gst_stage_dispatch_finalize;
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_stage_dispatch_change_state);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Stage dispatcher", "Generic",
      "Sends packets of consecutive buffers round-robin to stagebin replicas",
      "gst-stages developers");
}

static void
gst_stage_dispatch_init (GstStageDispatch * self)
{
  /* Pads are owned by the element; the array only borrows them. */
  self->srcpads = g_ptr_array_new ();
  self->packet_size = 1;

  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_stage_dispatch_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_stage_dispatch_sink_event));
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  GST_PAD_SET_PROXY_SCHEDULING (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
}
