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
#include "gststageutil.h"

#include <stdlib.h>
#include <string.h>

/* Longest part of a property value quoted in a message, in bytes */
#define QUOTED_VALUE_MAX 80

GST_DEBUG_CATEGORY_STATIC (gst_stage_gather_debug);
#define GST_CAT_DEFAULT gst_stage_gather_debug

#define DEFAULT_PROP_INDICES NULL
#define DEFAULT_PROP_INDICES_FILE NULL

enum
{
  PROP_0,
  PROP_INDICES,
  PROP_INDICES_FILE,
};

struct _GstStageGather
{
  GstStageSelector parent;

  gchar *indices;
  gchar *indices_file;
};

G_DEFINE_TYPE_WITH_CODE (GstStageGather, gst_stage_gather,
    GST_TYPE_STAGE_SELECTOR,
    GST_DEBUG_CATEGORY_INIT (gst_stage_gather_debug, "stagegather", 0,
        "keep frames at listed indices"));
GST_ELEMENT_REGISTER_DEFINE (stagegather, "stagegather", GST_RANK_NONE,
    GST_TYPE_STAGE_GATHER);

static void
gst_stage_gather_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageGather *self = GST_STAGE_GATHER (object);
  const gchar *s = g_value_get_string (value);
  GError *err = NULL;

  if (!gst_stage_selector_can_set_property (GST_STAGE_SELECTOR (self),
          pspec))
    return;

  /* Checked now to warn early, and stored even when invalid so that start
   * refuses it instead of running with a value the user did not ask for. */
  switch (prop_id) {
    case PROP_INDICES:
      if (!gst_stage_is_unset (s))
        stage_select_free (gst_stage_select_from_indices (s, &err));
      if (err)
        g_warning ("%s: %s", GST_OBJECT_NAME (self), err->message);
      GST_OBJECT_LOCK (self);
      g_free (self->indices);
      self->indices = g_strdup (s);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_INDICES_FILE:
      /* the file may legitimately be written between now and start */
      if (!gst_stage_is_unset (s))
        stage_select_free (gst_stage_select_from_indices_file (s, &err));
      if (err)
        GST_WARNING_OBJECT (self, "%s", err->message);
      GST_OBJECT_LOCK (self);
      g_free (self->indices_file);
      self->indices_file = g_strdup (s);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_clear_error (&err);
}

static void
gst_stage_gather_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageGather *self = GST_STAGE_GATHER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_INDICES:
      g_value_set_string (value, self->indices);
      break;
    case PROP_INDICES_FILE:
      g_value_set_string (value, self->indices_file);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static StageSelect *
gst_stage_gather_create_select (GstStageSelector * selector, GError ** error)
{
  GstStageGather *self = GST_STAGE_GATHER (selector);
  gchar *indices, *path;
  StageSelect *sel = NULL;

  GST_OBJECT_LOCK (self);
  indices = gst_stage_is_unset (self->indices) ? NULL :
      g_strdup (self->indices);
  path = gst_stage_is_unset (self->indices_file) ? NULL :
      g_strdup (self->indices_file);
  GST_OBJECT_UNLOCK (self);

  if (indices && path) {
    char *q = stage_select_quote (indices, strlen (indices),
        QUOTED_VALUE_MAX);
    gchar *name = g_filename_display_name (path);

    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Both property 'indices' ('%s') and 'indices-file' ('%s') are set: "
        "set only one", q ? q : "", name);
    free (q);
    g_free (name);
  } else if (indices)
    sel = gst_stage_select_from_indices (indices, error);
  else if (path)
    sel = gst_stage_select_from_indices_file (path, error);
  else
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Neither property 'indices' nor 'indices-file' is set: nothing to "
        "gather (e.g. indices=\"0,5,7,29\")");

  if (sel)
    GST_DEBUG_OBJECT (self, "gathering up to index %" G_GUINT64_FORMAT,
        stage_select_last (sel));
  g_free (indices);
  g_free (path);
  return sel;
}

static void
gst_stage_gather_finalize (GObject * object)
{
  GstStageGather *self = GST_STAGE_GATHER (object);

  g_free (self->indices);
  g_free (self->indices_file);
  G_OBJECT_CLASS (gst_stage_gather_parent_class)->finalize (object);
}

/* The input's nominal rate: every kept frame is a frame of the input's
 * grid, the dropped ones are gaps. */
static gboolean
gst_stage_gather_get_rate_divisor (GstStageSelector * selector,
    guint * divisor)
{
  *divisor = 1;
  return TRUE;
}

static void
gst_stage_gather_class_init (GstStageGatherClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstStageSelectorClass *selector_class = GST_STAGE_SELECTOR_CLASS (klass);

  gobject_class->set_property = gst_stage_gather_set_property;
  gobject_class->get_property = gst_stage_gather_get_property;
  gobject_class->finalize = gst_stage_gather_finalize;

  g_object_class_install_property (gobject_class, PROP_INDICES,
      g_param_spec_string ("indices", "Indices",
          "Frame indices to keep, separated by commas or spaces, e.g. "
          "\"0,5,7,29\"; a set: output is in stream order, duplicates come "
          "out once, any order is accepted",
          DEFAULT_PROP_INDICES,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_INDICES_FILE,
      g_param_spec_string ("indices-file", "Indices file",
          "Path of a text file of frame indices (one per line, or separated "
          "by commas/spaces; '#' starts a comment), read when the element "
          "starts; use instead of 'indices' for long lists",
          DEFAULT_PROP_INDICES_FILE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));

  gst_element_class_set_static_metadata (element_class,
      "Frame gather", "Filter/Video",
      "Keeps the frames at a list of indices and ends the stream after the "
      "last one (Scanner's Gather)", "gst-stages");

  selector_class->create_select =
      GST_DEBUG_FUNCPTR (gst_stage_gather_create_select);
  selector_class->get_rate_divisor =
      GST_DEBUG_FUNCPTR (gst_stage_gather_get_rate_divisor);
}

static void
gst_stage_gather_init (GstStageGather * self)
{
  self->indices = g_strdup (DEFAULT_PROP_INDICES);
  self->indices_file = g_strdup (DEFAULT_PROP_INDICES_FILE);
}
