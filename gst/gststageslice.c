/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-stageslice
 * @title: stageslice
 *
 * Cuts the stream into groups that go downstream one after the other, each
 * as its own segment (Scanner's Slice), so that the ops up to the matching
 * `stageunslice` start over for every group. The groups come from either
 *
 * - @ranges, half-open START:END frame index ranges with @stride inside
 *   each (Scanner's StridedRanges partitioner): `ranges="0:15,5:25,15:35"`
 *   gives three groups of 15, 20 and 20 frames. Ranges may overlap: a
 *   shared frame is emitted once in every group that holds it (frames 5..14
 *   above go out in group 0 and again in group 1), so the element keeps the
 *   frames a later group still needs, at most the overlap. Their starts
 *   must not decrease (the stream is read once, front to back);
 * - or @size and @stride (Scanner's Strided partitioner): frames 0, S, 2S,
 *   ... (S = @stride) in consecutive groups of @size; the last group of a
 *   stream is partial.
 *
 * Each group opens with a serialized custom downstream event named
 * "stage-group" (index, start, end, stride, first, n-groups, params; see
 * docs/stageslice.md) followed by a new SEGMENT, then its frames. The
 * segment's base continues the running time where the previous group
 * ended, so running time never goes backwards even when groups overlap,
 * while PTS and stream time stay those of the original frames. At a new
 * segment GStreamer elements redo what depends on time (sinks their clock
 * sync, videorate its output timestamps) but keep other state (a segment
 * is not a flush); the gst-stages selectors also restart their frame index
 * on the group event, so `stagerange ranges=0:10` keeps the first 10
 * frames of each group, and other stateful elements can reset on it.
 *
 * Per-group parameters (Scanner's SliceList): @group-params holds one
 * entry per group, separated by ';', each a comma-separated list of
 * NAME.PROPERTY=VALUE carried in the group event; the gst-stages ops named
 * NAME set them when the group starts (values persist until a later group
 * sets them again): `group-params="r.ranges=0:10; r.ranges=5:15"`. With
 * @ranges there must be one entry per group.
 *
 * GAP events from upstream go out in the group being read (dropped
 * between groups); a later group replaying shared frames gets only the
 * frames.
 *
 * Frame index, counters, EOS and flush as in the selectors: the index
 * counts buffers from 0 and, after a flushing seek, continues from the
 * frame the new segment puts the stream at (with a framerate in the caps),
 * resuming the first group not yet complete. Once the last group is done
 * the element sends EOS at once and returns GST_FLOW_EOS upstream. `in`
 * counts frames received, `out` frames pushed (with overlaps more than
 * in), `dropped` frames in no group, `groups` the groups opened. Output
 * framerate: the input's divided by @stride. Reverse playback is refused
 * (a seek with a negative rate fails, such a segment is an error). Seeks
 * and queries pass upstream unchanged, in the input stream's time.
 *
 * The element depends on frame order, so `stagebin` refuses it with
 * replicas > 1.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=35 ! video/x-raw,width=1280,height=720,framerate=30/1 ! stageslice ranges="0:15,5:25,15:35" ! stagerange ranges=0:10 ! stageunslice ! fakesink silent=false -v
 * ]| 30 frames: 0..9, 5..14 and 15..24, one continuous stream.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageslice.h"
#include "gststagecounters.h"
#include "gststagegroup.h"
#include "gststageselectprops.h"
#include "gststageutil.h"

#include <string.h>
#include "slice.h"

#include <stdlib.h>

GST_DEBUG_CATEGORY_STATIC (gst_stage_slice_debug);
#define GST_CAT_DEFAULT gst_stage_slice_debug

#define DEFAULT_PROP_RANGES NULL
#define DEFAULT_PROP_SIZE 0
/* allowed, checked at start (the param specs take any value) */
#define SIZE_MAX_FRAMES G_MAXINT
#define DEFAULT_PROP_GROUP_PARAMS NULL

/* 'stride' and the counters are defined with the selectors'
 * (gststageselectprops.h, gststagecounters.h): ids from PROP_SELECT_FIRST
 * and PROP_COUNTER_FIRST. 'ranges' is our own: groups, not a set. */
enum
{
  PROP_0,
  PROP_RANGES,
  PROP_SIZE,
  PROP_GROUP_PARAMS,
  PROP_SELECT_FIRST,
  PROP_COUNTER_FIRST = PROP_SELECT_FIRST + GST_STAGE_SELECT_N_PROPS,
};

typedef struct
{
  guint64 index;
  GstBuffer *buf;
} Retained;

struct _GstStageSlice
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gchar *ranges;
  guint size;
  GstStageSelectProps select;   /* its stride only */
  gchar *group_params;

  /* built at start */
  StageSlice *part;
  GPtrArray *params;            /* GstStructure per group */
  guint active_stride;

  /* streaming thread */
  guint64 index;                /* of the next frame to arrive */
  guint64 cur;                  /* group being read */
  gboolean cur_open;            /* its group event went out */
  gboolean done, eos_sent, resync;
  gboolean reverse;             /* the segment has a negative rate */
  GQueue retained;              /* Retained, for later groups */
  GQueue pending;               /* events and buffers to push, in order */
  GstSegment in_segment, group_segment;
  gboolean have_segment;
  gboolean names_checked;       /* group-params' element names, once */
  guint32 seqnum;
  GstClockTime rt_end;          /* running time where the output ends */
  gint fps_n, fps_d;

  GstStageCounters count;       /* under the object lock */
};

G_DEFINE_TYPE_WITH_CODE (GstStageSlice, gst_stage_slice,
    GST_TYPE_BASE_TRANSFORM,
    GST_DEBUG_CATEGORY_INIT (gst_stage_slice_debug, "stageslice", 0,
        "partition a stream into groups"));
GST_ELEMENT_REGISTER_DEFINE (stageslice, "stageslice", GST_RANK_NONE,
    GST_TYPE_STAGE_SLICE);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

/* Builds the partition; NULL and an error naming the property. */
static StageSlice *
build_partition (const gchar * ranges, guint size, guint stride,
    GError ** error)
{
  char *err = NULL;
  StageSlice *sl = NULL;
  gboolean have_ranges = !gst_stage_is_unset (ranges);
  gchar *q = have_ranges ? gst_stage_quote_value (ranges) : NULL;
  gchar *n = g_strdup_printf ("%u", size);

  if (have_ranges && size > 0) {
    gst_stage_set_exclusive_error (error, "ranges", q, "size", n, NULL);
  } else if (have_ranges) {
    sl = stage_slice_parse_ranges (ranges, stride, &err);
    if (sl == NULL)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "Invalid value %s for property 'ranges': %s", q,
          err ? err : "out of memory");
  } else if (size > 0) {
    sl = stage_slice_new_strided (size, stride, &err);
    if (sl == NULL)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "Invalid 'size'/'stride': %s", err ? err : "out of memory");
  } else {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "No groups: set property 'ranges' (e.g. \"0:15,5:25,15:35\") or "
        "'size' (e.g. 50)");
  }
  free (err);
  g_free (q);
  g_free (n);
  return sl;
}

/* The per-group parameters; NULL and an error naming the property. */
static GPtrArray *
build_params (const gchar * text, StageSlice * part, GError ** error)
{
  GError *err = NULL;
  GPtrArray *params = gst_stage_group_parse_params (text, &err);
  guint64 groups = stage_slice_n_groups (part);

  if (params == NULL) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Invalid value for property 'group-params': %s", err->message);
  } else if (params->len > 0 && groups != STAGE_SELECT_NONE
      && params->len != groups) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Property 'group-params' has %u entries but 'ranges' makes %"
        G_GUINT64_FORMAT " groups: give one entry per group", params->len,
        groups);
    g_clear_pointer (&params, g_ptr_array_unref);
  }
  g_clear_error (&err);
  return params;
}

static void
gst_stage_slice_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageSlice *self = GST_STAGE_SLICE (object);

  if (!gst_stage_can_set_property (GST_ELEMENT (self), pspec))
    return;

  switch (prop_id) {
    case PROP_RANGES:{
      const gchar *ranges = g_value_get_string (value);
      char *err = NULL;
      StageSlice *sl = ranges ? stage_slice_parse_ranges (ranges, 1, &err) :
          NULL;

      /* kept even when invalid: start then refuses it with an error */
      if (ranges && sl == NULL)
        g_warning ("%s: Invalid value '%s' for property 'ranges': %s",
            GST_OBJECT_NAME (self), ranges, err ? err : "out of memory");
      stage_slice_free (sl);
      free (err);
      GST_OBJECT_LOCK (self);
      g_free (self->ranges);
      self->ranges = g_strdup (ranges);
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_SIZE:
      GST_OBJECT_LOCK (self);
      self->size = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_GROUP_PARAMS:{
      const gchar *text = g_value_get_string (value);
      GError *err = NULL;
      GPtrArray *p = gst_stage_group_parse_params (text, &err);

      if (p == NULL)
        g_warning ("%s: Invalid value for property 'group-params': %s",
            GST_OBJECT_NAME (self), err->message);
      g_clear_error (&err);
      if (p)
        g_ptr_array_unref (p);
      GST_OBJECT_LOCK (self);
      g_free (self->group_params);
      self->group_params = g_strdup (text);
      GST_OBJECT_UNLOCK (self);
      break;
    }
    default:
      if (!gst_stage_select_props_set (GST_OBJECT (self), &self->select,
              prop_id - PROP_SELECT_FIRST, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_stage_slice_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageSlice *self = GST_STAGE_SLICE (object);

  if (gst_stage_counters_get (GST_OBJECT (self), &self->count,
          prop_id - PROP_COUNTER_FIRST, value)
      || gst_stage_select_props_get (GST_OBJECT (self), &self->select,
          prop_id - PROP_SELECT_FIRST, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RANGES:
      g_value_set_string (value, self->ranges);
      break;
    case PROP_SIZE:
      g_value_set_uint (value, self->size);
      break;
    case PROP_GROUP_PARAMS:
      g_value_set_string (value, self->group_params);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GstCaps *
gst_stage_slice_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstStageSlice *self = GST_STAGE_SLICE (trans);
  /* caps queries come before start refuses a bad stride */
  gint stride = (gint) gst_stage_select_props_rate_divisor (GST_OBJECT (self),
      &self->select);
  GstCaps *ret;

  ret = direction == GST_PAD_SINK ?
      gst_stage_caps_scale_framerate (caps, 1, stride) :
      gst_stage_caps_scale_framerate (caps, stride, 1);
  return gst_stage_caps_filter (ret, filter);
}

static gboolean
gst_stage_slice_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstStageSlice *self = GST_STAGE_SLICE (trans);

  gst_stage_caps_get_framerate (incaps, &self->fps_n, &self->fps_d);
  return TRUE;
}

static void
retained_free (gpointer data)
{
  Retained *r = data;

  gst_buffer_unref (r->buf);
  g_free (r);
}

static void
clear_queues (GstStageSlice * self)
{
  g_queue_clear_full (&self->retained, retained_free);
  g_queue_clear_full (&self->pending, (GDestroyNotify) gst_mini_object_unref);
}

static void
reset_streaming (GstStageSlice * self)
{
  clear_queues (self);
  self->index = 0;
  self->cur = 0;
  self->cur_open = FALSE;
  self->done = self->eos_sent = self->resync = FALSE;
  self->rt_end = GST_CLOCK_TIME_NONE;
}

static gboolean
gst_stage_slice_start (GstBaseTransform * trans)
{
  GstStageSlice *self = GST_STAGE_SLICE (trans);
  gchar *ranges, *params_text;
  guint size, stride;
  GError *err = NULL;
  StageSlice *part = NULL;
  GPtrArray *params = NULL;

  GST_OBJECT_LOCK (self);
  ranges = g_strdup (self->ranges);
  params_text = g_strdup (self->group_params);
  size = self->size;
  stride = self->select.stride;
  GST_OBJECT_UNLOCK (self);

  if (gst_stage_check_uint_prop ("size", size, 0, SIZE_MAX_FRAMES,
          "(0 = unset)", &err) && gst_stage_select_check_stride (stride, &err))
    part = build_partition (ranges, size, stride, &err);
  if (part)
    params = build_params (params_text, part, &err);
  g_free (ranges);
  g_free (params_text);
  if (params == NULL) {
    stage_slice_free (part);
    return gst_stage_post_settings_error (GST_ELEMENT (self), err);
  }

  stage_slice_free (self->part);
  self->part = part;
  if (self->params)
    g_ptr_array_unref (self->params);
  self->params = params;
  self->active_stride = MAX (stride, 1);
  self->fps_n = 0;
  self->fps_d = 1;
  self->have_segment = FALSE;
  self->reverse = FALSE;
  self->names_checked = FALSE;
  self->seqnum = GST_SEQNUM_INVALID;
  reset_streaming (self);
  GST_OBJECT_LOCK (self);
  memset (&self->count, 0, sizeof (self->count));
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_stage_slice_stop (GstBaseTransform * trans)
{
  GstStageSlice *self = GST_STAGE_SLICE (trans);

  clear_queues (self);
  stage_slice_free (self->part);
  self->part = NULL;
  if (self->params)
    g_ptr_array_unref (self->params);
  self->params = NULL;
  return TRUE;
}

/* One output frame period: the spacing of a group's frames (stride input
 * frames), from the caps, else the buffer's own duration. */
static GstClockTime
output_period (GstStageSlice * self, GstBuffer * buf)
{
  if (self->fps_n > 0)
    return gst_util_uint64_scale (GST_SECOND,
        (guint64) self->fps_d * self->active_stride, self->fps_n);
  return GST_BUFFER_DURATION_IS_VALID (buf) ? GST_BUFFER_DURATION (buf) : 0;
}

/* Queues group @self->cur's event and segment, before @buf, frame @index. */
static void
open_group (GstStageSlice * self, guint64 index, GstBuffer * buf)
{
  GstStageGroup g = { 0, };
  GstSegment *seg = &self->group_segment;
  GstClockTime pts = GST_BUFFER_PTS (buf), rt = GST_CLOCK_TIME_NONE, st;
  GstEvent *ev;

  g.index = self->cur;
  stage_slice_group (self->part, self->cur, &g.start, &g.end, &g.stride);
  g.first = stage_slice_position (self->part, self->cur, index);
  g.n_groups = stage_slice_n_groups (self->part);
  if (g.n_groups == STAGE_SELECT_NONE)
    g.n_groups = G_MAXUINT64;
  if (self->params && self->cur < self->params->len)
    g.params = g_ptr_array_index (self->params, self->cur);
  g_queue_push_tail (&self->pending, gst_stage_group_event_new (&g));

  if (self->have_segment)
    gst_segment_copy_into (&self->in_segment, seg);
  else
    gst_segment_init (seg, GST_FORMAT_TIME);
  if (seg->format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID (pts)
      && seg->rate > 0.0) {
    rt = gst_segment_to_running_time (&self->in_segment, GST_FORMAT_TIME,
        pts);
    st = gst_segment_to_stream_time (&self->in_segment, GST_FORMAT_TIME,
        pts);
    /* the first group keeps upstream's running time; later ones start
     * where the output so far ends */
    seg->base = GST_CLOCK_TIME_IS_VALID (self->rt_end) ? self->rt_end :
        GST_CLOCK_TIME_IS_VALID (rt) ? rt : 0;
    seg->start = pts;
    seg->position = pts;
    seg->offset = 0;
    seg->time = GST_CLOCK_TIME_IS_VALID (st) ? st : pts;
    if (GST_CLOCK_TIME_IS_VALID (seg->stop) && seg->stop < pts)
      seg->stop = GST_CLOCK_TIME_NONE;
  }
  ev = gst_event_new_segment (seg);
  if (self->seqnum != GST_SEQNUM_INVALID)
    gst_event_set_seqnum (ev, self->seqnum);
  g_queue_push_tail (&self->pending, ev);
  self->cur_open = TRUE;
  GST_OBJECT_LOCK (self);
  self->count.groups++;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "group %" G_GUINT64_FORMAT " [%" G_GUINT64_FORMAT
      ", %" G_GUINT64_FORMAT ") from position %" G_GUINT64_FORMAT, g.index,
      g.start, g.end, g.first);
}

/* Queues frame @index (a ref of @buf) in the current group. */
static void
emit (GstStageSlice * self, guint64 index, GstBuffer * buf)
{
  GstClockTime pts = GST_BUFFER_PTS (buf), end;

  if (!self->cur_open)
    open_group (self, index, buf);
  if (self->group_segment.format == GST_FORMAT_TIME
      && GST_CLOCK_TIME_IS_VALID (pts)) {
    end = gst_segment_to_running_time (&self->group_segment,
        GST_FORMAT_TIME, pts + output_period (self, buf));
    if (GST_CLOCK_TIME_IS_VALID (end) && (!GST_CLOCK_TIME_IS_VALID
            (self->rt_end) || end > self->rt_end))
      self->rt_end = end;
  }
  g_queue_push_tail (&self->pending, gst_buffer_ref (buf));
  GST_OBJECT_LOCK (self);
  self->count.out++;
  GST_OBJECT_UNLOCK (self);
}

/* Moves on to the next group: the retained frames it holds go out, those
 * no later group needs are released. */
static void
next_group (GstStageSlice * self)
{
  GList *l, *next;

  self->cur++;
  self->cur_open = FALSE;
  if (self->cur >= stage_slice_n_groups (self->part)) {
    self->done = TRUE;
    g_queue_clear_full (&self->retained, retained_free);
    return;
  }
  for (l = self->retained.head; l; l = next) {
    Retained *r = l->data;

    next = l->next;
    if (stage_slice_contains (self->part, self->cur, r->index))
      emit (self, r->index, r->buf);
    if (!stage_slice_needed_after (self->part, self->cur, r->index)) {
      retained_free (r);
      g_queue_delete_link (&self->retained, l);
    }
  }
}

/* Adds the names of the elements downstream of @srcpad, up to and with a
 * stageunslice (a bin with all its children), to @names. */
static void
collect_downstream (GstPad * srcpad, GPtrArray * names, GHashTable * seen)
{
  GstPad *peer = gst_pad_get_peer (srcpad);
  GstElement *e = NULL;
  GstIterator *it;
  GValue v = G_VALUE_INIT;
  GstElementFactory *f;

  if (peer == NULL)
    return;
  if (GST_IS_PROXY_PAD (peer) && !GST_IS_GHOST_PAD (peer)) {
    /* the inside of a bin's ghost src pad: go on from the bin */
    GstProxyPad *ghost = gst_proxy_pad_get_internal (GST_PROXY_PAD (peer));

    if (ghost) {
      collect_downstream (GST_PAD (ghost), names, seen);
      gst_object_unref (ghost);
    }
    gst_object_unref (peer);
    return;
  }
  e = gst_pad_get_parent_element (peer);
  gst_object_unref (peer);
  if (e == NULL || g_hash_table_contains (seen, e)) {
    gst_clear_object (&e);
    return;
  }
  g_hash_table_add (seen, e);   /* owns the ref */
  g_ptr_array_add (names, gst_element_get_name (e));
  if (GST_IS_BIN (e)) {
    it = gst_bin_iterate_recurse (GST_BIN (e));
    while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      g_ptr_array_add (names, gst_element_get_name (g_value_get_object (&v)));
      g_value_reset (&v);
    }
    gst_iterator_free (it);
  }
  f = gst_element_get_factory (e);
  if (f && g_str_equal (GST_OBJECT_NAME (f), "stageunslice"))
    return;
  it = gst_element_iterate_src_pads (e);
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    collect_downstream (g_value_get_object (&v), names, seen);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

static gboolean
name_in (GPtrArray * names, const gchar * name)
{
  guint i;

  for (i = 0; i < names->len; i++)
    if (g_str_equal (g_ptr_array_index (names, i), name))
      return TRUE;
  return FALSE;
}

/* Every NAME of group-params' NAME.PROPERTY must be an element the groups
 * reach (a misspelled one would be ignored: every frame of every group
 * kept). Checked once the pipeline is linked, at the first frame. */
static gboolean
check_param_names (GstStageSlice * self)
{
  GPtrArray *names;
  GHashTable *seen;
  gboolean ok = TRUE;
  guint g, f;

  if (!self->params || self->params->len == 0)
    return TRUE;                /* no group-params: no walk */
  names = g_ptr_array_new_with_free_func (g_free);
  seen = g_hash_table_new_full (NULL, NULL, gst_object_unref, NULL);
  collect_downstream (GST_BASE_TRANSFORM_SRC_PAD (self), names, seen);
  for (g = 0; ok && self->params && g < self->params->len; g++) {
    const GstStructure *s = g_ptr_array_index (self->params, g);

    for (f = 0; ok && f < (guint) gst_structure_n_fields (s); f++) {
      const gchar *field = gst_structure_nth_field_name (s, f);
      const gchar *dot = strrchr (field, '.');
      gchar *name = dot ? g_strndup (field, dot - field) : g_strdup (field);

      if (!name_in (names, name)) {
        gchar *list;

        g_ptr_array_add (names, NULL);
        list = names->len > 1 ? g_strjoinv (", ", (gchar **) names->pdata) :
            g_strdup ("none");
        GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
            ("Property 'group-params' sets '%s' (group %u), but no element "
                "the groups reach is named '%s'; the elements there: %s",
                field, g, name, list), (NULL));
        g_free (list);
        ok = FALSE;
      }
      g_free (name);
    }
  }
  g_hash_table_unref (seen);
  g_ptr_array_unref (names);
  return ok;
}

static GstFlowReturn
gst_stage_slice_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * buf)
{
  GstStageSlice *self = GST_STAGE_SLICE (trans);
  gboolean used = FALSE;
  guint64 i;

  if (G_UNLIKELY (self->reverse)) {
    /* the error was posted with the segment */
    gst_buffer_unref (buf);
    return GST_FLOW_NOT_SUPPORTED;
  }
  if (G_UNLIKELY (!self->names_checked)) {
    self->names_checked = TRUE;
    if (!check_param_names (self)) {
      gst_buffer_unref (buf);
      return GST_FLOW_ERROR;
    }
  }
  GST_OBJECT_LOCK (self);
  self->count.in++;
  if (self->done)
    self->count.dropped++;
  GST_OBJECT_UNLOCK (self);
  if (self->done) {
    gst_buffer_unref (buf);
    return GST_FLOW_EOS;
  }
  if (self->resync) {
    self->resync = FALSE;
    self->index = self->have_segment ? gst_stage_frame_index_at
        (&self->in_segment, buf, self->fps_n, self->fps_d) : 0;
    self->cur = stage_slice_first_open (self->part, self->index);
    self->cur_open = FALSE;
    GST_DEBUG_OBJECT (self, "first frame after flush is %" G_GUINT64_FORMAT
        ", group %" G_GUINT64_FORMAT, self->index, self->cur);
  }

  i = self->index;
  if (self->index < STAGE_SELECT_NONE - 1)
    self->index++;
  if (self->cur != STAGE_SELECT_NONE) {
    if (stage_slice_contains (self->part, self->cur, i)) {
      emit (self, i, buf);
      used = TRUE;
    }
    if (stage_slice_needed_after (self->part, self->cur, i)) {
      Retained *r = g_new (Retained, 1);

      r->index = i;
      r->buf = gst_buffer_ref (buf);
      g_queue_push_tail (&self->retained, r);
      used = TRUE;
    }
    while (!self->done && stage_slice_last (self->part, self->cur) <= i)
      next_group (self);
  } else {
    self->done = TRUE;
  }
  if (!used) {
    GST_OBJECT_LOCK (self);
    self->count.dropped++;
    GST_OBJECT_UNLOCK (self);
  }
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_stage_slice_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstStageSlice *self = GST_STAGE_SLICE (trans);
  GstMiniObject *item;
  GstEvent *eos;

  *outbuf = NULL;
  while ((item = g_queue_pop_head (&self->pending))) {
    if (GST_IS_BUFFER (item)) {
      *outbuf = GST_BUFFER_CAST (item);
      return GST_FLOW_OK;
    }
    gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (trans),
        GST_EVENT_CAST (item));
  }
  if (!self->done || self->eos_sent)
    return GST_FLOW_OK;
  /* the last group is complete: end now, so the source stops reading */
  self->eos_sent = TRUE;
  GST_DEBUG_OBJECT (self, "last group done: sending EOS");
  eos = gst_event_new_eos ();
  if (self->seqnum != GST_SEQNUM_INVALID)
    gst_event_set_seqnum (eos, self->seqnum);
  gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (trans), eos);
  return GST_FLOW_EOS;
}

/* End of stream: the current group ends here; later groups still get the
 * frames kept for them, then everything queued goes out. */
static void
drain (GstStageSlice * self)
{
  GstPad *src = GST_BASE_TRANSFORM_SRC_PAD (self);
  GstMiniObject *item;

  while (!self->done && self->retained.length > 0)
    next_group (self);
  while ((item = g_queue_pop_head (&self->pending))) {
    if (GST_IS_BUFFER (item))
      gst_pad_push (src, GST_BUFFER_CAST (item));
    else
      gst_pad_push_event (src, GST_EVENT_CAST (item));
  }
}

static gboolean
gst_stage_slice_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstStageSlice *self = GST_STAGE_SLICE (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEGMENT:{
      const GstSegment *seg;

      /* kept for the groups' own segments; never forwarded as is */
      gst_event_parse_segment (event, &seg);
      gst_segment_copy_into (seg, &self->in_segment);
      self->have_segment = TRUE;
      self->seqnum = gst_event_get_seqnum (event);
      self->reverse = seg->rate < 0.0;
      gst_event_unref (event);
      if (self->reverse)
        GST_ELEMENT_ERROR (self, STREAM, NOT_IMPLEMENTED,
            ("Reverse playback (segment rate %g) is not supported: groups "
                "are frame index ranges, read forwards.",
                self->in_segment.rate), ("Play forwards (rate > 0)."));
      return TRUE;
    }
    case GST_EVENT_FLUSH_STOP:
      reset_streaming (self);
      self->resync = TRUE;
      break;
    case GST_EVENT_GAP:
      /* a gap belongs to the group being read; outside any group there is
       * no segment for it downstream, and later groups that replay shared
       * frames get the frames only */
      if (!self->cur_open || self->done) {
        GST_DEBUG_OBJECT (self, "dropping a GAP outside any group");
        gst_event_unref (event);
        return TRUE;
      }
      break;
    case GST_EVENT_EOS:
      if (self->eos_sent) {
        gst_event_unref (event);
        return TRUE;
      }
      drain (self);
      self->eos_sent = TRUE;
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_stage_slice_parent_class)->sink_event
      (trans, event);
}

/* Seeks with a negative rate are refused, as by the selectors: the frame
 * index only counts forwards. */
static gboolean
gst_stage_slice_src_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK) {
    gdouble rate;

    gst_event_parse_seek (event, &rate, NULL, NULL, NULL, NULL, NULL, NULL);
    if (rate < 0.0) {
      GST_WARNING_OBJECT (trans, "refusing a seek with rate %g: reverse "
          "playback is not supported", rate);
      gst_event_unref (event);
      return FALSE;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (gst_stage_slice_parent_class)->src_event
      (trans, event);
}

static void
gst_stage_slice_finalize (GObject * object)
{
  GstStageSlice *self = GST_STAGE_SLICE (object);

  clear_queues (self);
  stage_slice_free (self->part);
  if (self->params)
    g_ptr_array_unref (self->params);
  g_free (self->ranges);
  g_free (self->group_params);
  gst_stage_select_props_clear (&self->select);
  G_OBJECT_CLASS (gst_stage_slice_parent_class)->finalize (object);
}

static void
gst_stage_slice_class_init (GstStageSliceClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
      G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_stage_slice_set_property;
  gobject_class->get_property = gst_stage_slice_get_property;
  gobject_class->finalize = gst_stage_slice_finalize;

  g_object_class_install_property (gobject_class, PROP_RANGES,
      g_param_spec_string ("ranges", "Ranges",
          "One group per half-open START:END frame range, comma separated, "
          "e.g. \"0:15,5:25,15:35\"; ranges may overlap (shared frames go "
          "out once per group) but their starts must not decrease",
          DEFAULT_PROP_RANGES, rw));
  g_object_class_install_property (gobject_class, PROP_SIZE,
      g_param_spec_uint ("size", "Size",
          "Instead of ranges: consecutive groups of this many frames (of "
          "every stride-th frame); the last group may be partial; 0 = unset; "
          "0 to 2147483647 (more is an error at start)",
          0, G_MAXUINT, DEFAULT_PROP_SIZE, rw));
  gst_stage_select_props_install (gobject_class, PROP_SELECT_FIRST,
      GST_STAGE_SELECT_STRIDE);
  g_object_class_install_property (gobject_class, PROP_GROUP_PARAMS,
      g_param_spec_string ("group-params", "Group parameters",
          "Per-group properties for the ops up to stageunslice: one "
          "entry per group separated by ';', each ELEMENT.PROPERTY=VALUE "
          "pairs separated by ',', e.g. \"r.ranges=0:10; r.ranges=5:15\" "
          "(quote values that hold a comma)",
          DEFAULT_PROP_GROUP_PARAMS, rw));
  /* out counts a frame shared by overlapping groups once per group */
  gst_stage_counters_install (gobject_class, PROP_COUNTER_FIRST,
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_IN) |
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_OUT) |
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_DROPPED) |
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_GROUPS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Slice into groups", "Filter/Video",
      "Sends the stream as groups of frames (ranges, possibly overlapping, "
      "or fixed size), each its own segment, so ops restart per group "
      "(Scanner's Slice)", "gst-stages");
  /* stagebin: each replica would see only some frames of a group */
  gst_element_class_add_static_metadata (element_class, "stage-stateful",
      "true");

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_stage_slice_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_stage_slice_set_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_stage_slice_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_stage_slice_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_stage_slice_sink_event);
  trans_class->src_event = GST_DEBUG_FUNCPTR (gst_stage_slice_src_event);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_stage_slice_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_stage_slice_generate_output);
  trans_class->passthrough_on_same_caps = FALSE;
}

static void
gst_stage_slice_init (GstStageSlice * self)
{
  self->ranges = g_strdup (DEFAULT_PROP_RANGES);
  self->size = DEFAULT_PROP_SIZE;
  gst_stage_select_props_init (&self->select);
  self->group_params = g_strdup (DEFAULT_PROP_GROUP_PARAMS);
  self->fps_d = 1;
  self->rt_end = GST_CLOCK_TIME_NONE;
  self->seqnum = GST_SEQNUM_INVALID;
  g_queue_init (&self->retained);
  g_queue_init (&self->pending);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
