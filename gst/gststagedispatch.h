/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the fan-out half of stagebin (internal element). */
#ifndef __GST_STAGE_DISPATCH_H__
#define __GST_STAGE_DISPATCH_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_STAGE_DISPATCH (gst_stage_dispatch_get_type ())
G_DECLARE_FINAL_TYPE (GstStageDispatch, gst_stage_dispatch, GST,
    STAGE_DISPATCH, GstElement)

/* The field that marks the still-frame event closing a work packet (see
 * close_packet). The reorder element turns to the next replica when it
 * sees it. */
#define GST_STAGE_PACKET_END "GstStagePacketEnd"

/* Called from the streaming thread on every caps event, before the caps go
 * to the replicas; returns the work packet size to use from the next packet
 * on (0 keeps the current one). */
typedef guint (*GstStageDispatchCapsFunc) (GstStageDispatch * dispatch,
    GstCaps * caps, gpointer user_data);

GstPad *gst_stage_dispatch_add_output (GstStageDispatch * self);

void gst_stage_dispatch_set_packet_size (GstStageDispatch * self, guint size);

void gst_stage_dispatch_set_caps_func (GstStageDispatch * self,
    GstStageDispatchCapsFunc func, gpointer user_data);

gboolean gst_stage_is_packet_end (GstEvent * event, guint64 * packet);

G_END_DECLS

#endif /* __GST_STAGE_DISPATCH_H__ */
