/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the group event of stageslice.
 *
 * stageslice opens each group of its partition with a serialized custom
 * downstream event (GST_EVENT_CUSTOM_DOWNSTREAM) named "stage-group", sent
 * right before the group's SEGMENT and its first frame:
 *
 *   stage-group, index=(guint64)1, start=(guint64)5, end=(guint64)25,
 *       stride=(guint64)1, first=(guint64)0, n-groups=(guint64)3,
 *       params=(structure)"params\,\ r.ranges\=(string)5:15\;"
 *
 * index: the group's number from 0; [start, end) walked with stride: the
 * frames of the input stream that the group holds; first: the position
 * inside the group of the frame that follows (0, unless a seek landed
 * inside the group); n-groups: absent when the partition has no end
 * (size/stride); params: optional per-group parameters, fields named
 * "ELEMENT.PROPERTY" (ELEMENT an element name) that the gst-stages ops
 * apply to themselves when the group starts.
 *
 * The frame selectors restart their frame index at @first on this event;
 * stageunslice joins the groups into one stream and consumes the event.
 * Any other element sees it pass by, and an application can read it with
 * a pad probe and gst_stage_group_event_parse()'s field names.
 */
#ifndef __GST_STAGE_GROUP_H__
#define __GST_STAGE_GROUP_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_STAGE_GROUP_EVENT_NAME "stage-group"

typedef struct
{
  guint64 index;
  guint64 start, end, stride;
  guint64 first;
  guint64 n_groups;             /* G_MAXUINT64: the partition has no end */
  const GstStructure *params;   /* NULL: none; owned by the event */
} GstStageGroup;

GstEvent *gst_stage_group_event_new (const GstStageGroup * group);

/* TRUE and @group filled when @event is a stage-group event. */
gboolean gst_stage_group_event_parse (GstEvent * event, GstStageGroup * group);

/* Applies the fields of @params named "NAME.PROPERTY", where NAME is
 * @element's name, as property values (strings are parsed as on a
 * gst-launch-1.0 line). Returns how many it set; -1 and @error when one
 * names a property the element lacks or a value it refuses. */
gint gst_stage_group_apply_params (GstElement * element,
    const GstStructure * params, GError ** error);

/* Parses a `group-params` value: one entry per group separated by ';',
 * each a comma-separated list of ELEMENT.PROPERTY=VALUE (VALUE in double
 * quotes when it holds a comma or ';'; an empty entry sets nothing), e.g.
 * "r.ranges=0:10; r.ranges=5:15; r.ranges=\"0:2,8:10\"". Returns an array
 * of GstStructure "params" with string fields (freed with
 * g_ptr_array_unref), or NULL and @error naming the group that does not
 * parse. NULL or blank text: an empty array. */
GPtrArray *gst_stage_group_parse_params (const gchar * text, GError ** error);

/* GAP events that stand for Scanner null elements (stagerepeatnull's
 * empty positions) carry this boolean field in their structure, so that
 * stageunslice can tell them from the holes that dropped frames leave:
 * nulls are positions of the stream, holes are not. */
#define GST_STAGE_NULL_GAP_FIELD "stage-null"

GstEvent *gst_stage_null_gap_new (GstClockTime timestamp,
    GstClockTime duration);
gboolean gst_stage_gap_is_null (GstEvent * event);

G_END_DECLS

#endif /* __GST_STAGE_GROUP_H__ */
