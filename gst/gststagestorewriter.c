/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageStoreWriter: the sink at the end of stagesink's chain.
 *
 * Internal to stagesink: not registered, created with g_object_new(). It
 * receives H.264 (stream-format=avc, alignment=au), H.265 (hvc1, au) or
 * anything else (a bytes stream, one blob per buffer), and hands each
 * buffer to the store's writer (store/stagestore.h). The stream is
 * committed in one transaction when EOS arrives, but only a complete one:
 * every buffer received was written, and no element of the pipeline posted
 * an error before the EOS (see pipeline_failed). Stopping before that (an
 * error, a state change to NULL, a crash) leaves nothing in the catalog,
 * and the data written so far is removed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagestorewriter.h"
#include "gststageutil.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_store_writer_debug);
#define GST_CAT_DEFAULT gst_stage_store_writer_debug

struct _GstStageStoreWriter
{
  GstBaseSink parent;

  /* configuration, under the object lock */
  gchar *store_dir;
  gchar *stream;
  guint io_packet_size;
  StageStoreMode mode;

  /* streaming state */
  StageStore *store;
  StageStoreWriter *writer;
  gboolean ignoring;
  gboolean have_format;
  StageStoreKind kind;
  gchar *codec;
  guint nal_length_size;
  GstCaps *caps;
  gboolean failed;              /* a buffer or caps was refused */
  guint64 frames;               /* under the object lock */
};

G_DEFINE_TYPE_WITH_CODE (GstStageStoreWriter, gst_stage_store_writer,
    GST_TYPE_BASE_SINK,
    GST_DEBUG_CATEGORY_INIT (gst_stage_store_writer_debug, "stagestorewriter",
        0, "stagesink's store writer"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

void
gst_stage_store_writer_configure (GstStageStoreWriter * self,
    const gchar * store, const gchar * stream, guint io_packet_size,
    StageStoreMode mode)
{
  GST_OBJECT_LOCK (self);
  g_free (self->store_dir);
  self->store_dir = g_strdup (store);
  g_free (self->stream);
  self->stream = g_strdup (stream);
  self->io_packet_size = io_packet_size;
  self->mode = mode;
  GST_OBJECT_UNLOCK (self);
}

gboolean
gst_stage_store_writer_is_ignoring (GstStageStoreWriter * self)
{
  return self->ignoring;
}

guint64
gst_stage_store_writer_get_frames (GstStageStoreWriter * self)
{
  guint64 n;

  GST_OBJECT_LOCK (self);
  n = self->frames;
  GST_OBJECT_UNLOCK (self);
  return n;
}

gboolean
gst_stage_store_writer_open (GstStageStoreWriter * self)
{
  gchar *dir, *stream;
  guint iops;
  StageStoreMode mode;
  GError *err = NULL;
  gboolean exists = FALSE;

  GST_OBJECT_LOCK (self);
  dir = g_strdup (self->store_dir);
  stream = g_strdup (self->stream);
  iops = self->io_packet_size;
  mode = self->mode;
  GST_OBJECT_UNLOCK (self);

  self->ignoring = FALSE;
  self->have_format = FALSE;
  self->failed = FALSE;
  self->frames = 0;
  if (dir == NULL || *dir == '\0' || stream == NULL || *stream == '\0') {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("No %s set: stagesink needs store=DIR and stream=NAME",
            dir == NULL || *dir == '\0' ? "store" : "stream"), (NULL));
    goto fail;
  }
  if (!stage_store_check_name (stream, &err))
    goto error;
  self->store = stage_store_open (dir, TRUE, &err);
  if (self->store == NULL)
    goto error;
  if (!stage_store_has_stream (self->store, stream, &exists, &err))
    goto error;
  if (exists && mode == STAGE_STORE_MODE_ERROR) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Store '%s' already has a stream '%s'", dir, stream),
        ("mode=error refuses to write over it: set mode=overwrite to "
            "replace it, or mode=ignore to keep it and skip this write"));
    goto fail;
  }
  if (exists && mode == STAGE_STORE_MODE_IGNORE) {
    GST_INFO_OBJECT (self, "stream '%s' exists, mode=ignore: skipping",
        stream);
    self->ignoring = TRUE;
  } else {
    self->writer = stage_store_writer_new (self->store, stream, iops, &err);
    if (self->writer == NULL)
      goto error;
  }
  g_free (dir);
  g_free (stream);
  return TRUE;

error:
  gst_stage_post_store_error (GST_ELEMENT (self), err, TRUE);
  g_clear_error (&err);
fail:
  stage_store_close (self->store);
  self->store = NULL;
  g_free (dir);
  g_free (stream);
  return FALSE;
}

void
gst_stage_store_writer_close (GstStageStoreWriter * self)
{
  /* an uncommitted write removes its data here */
  stage_store_writer_free (self->writer);
  self->writer = NULL;
  stage_store_close (self->store);
  self->store = NULL;
  gst_clear_caps (&self->caps);
  g_clear_pointer (&self->codec, g_free);
}

static guint
nal_length_size (const gchar * codec, GstBuffer * codec_data)
{
  GstMapInfo map;
  guint n;

  if (codec_data == NULL || !gst_buffer_map (codec_data, &map, GST_MAP_READ))
    return stage_store_nal_length_size (codec, NULL, 0);
  n = stage_store_nal_length_size (codec, map.data, map.size);
  gst_buffer_unmap (codec_data, &map);
  return n;
}

static gboolean
gst_stage_store_writer_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  GstStageStoreWriter *self = GST_STAGE_STORE_WRITER (sink);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  const gchar *media = gst_structure_get_name (s);
  const gchar *codec = NULL;
  const GValue *cd;
  GstBuffer *codec_data = NULL;
  GBytes *bytes = NULL;
  gint w = 0, h = 0, fn = 0, fd = 1;
  gchar *str;

  if (self->ignoring)
    return TRUE;
  if (g_str_equal (media, "video/x-h264"))
    codec = "h264";
  else if (g_str_equal (media, "video/x-h265"))
    codec = "h265";

  if (self->caps != NULL && stage_store_writer_get_frames (self->writer) > 0
      && !gst_caps_is_equal (self->caps, caps)) {
    /* one stream, one format: a decoder could not follow a change */
    GstStructure *old = gst_caps_get_structure (self->caps, 0);

    if (!gst_structure_has_name (old, media)
        || (codec != NULL && !gst_structure_can_intersect (old, s))) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("The stream's format changed from %" GST_PTR_FORMAT " to %"
              GST_PTR_FORMAT " after frames were stored: a stored stream "
              "has one format", self->caps, caps), (NULL));
      self->failed = TRUE;
      return FALSE;
    }
  }
  gst_caps_replace (&self->caps, caps);

  cd = gst_structure_get_value (s, "codec_data");
  if (cd && GST_VALUE_HOLDS_BUFFER (cd))
    codec_data = gst_value_get_buffer (cd);
  if (codec_data) {
    GstMapInfo map;

    gst_buffer_map (codec_data, &map, GST_MAP_READ);
    bytes = g_bytes_new (map.data, map.size);
    gst_buffer_unmap (codec_data, &map);
  }
  gst_structure_get_int (s, "width", &w);
  gst_structure_get_int (s, "height", &h);
  if (!gst_structure_get_fraction (s, "framerate", &fn, &fd)) {
    fn = 0;
    fd = 1;
  }
  g_free (self->codec);
  self->codec = g_strdup (codec);
  self->kind = codec ? STAGE_STORE_KIND_VIDEO : STAGE_STORE_KIND_BYTES;
  self->nal_length_size = codec ? nal_length_size (codec, codec_data) : 0;
  str = gst_caps_to_string (caps);
  stage_store_writer_set_format (self->writer, self->kind, codec, str, bytes,
      fn, fd, w, h);
  self->have_format = TRUE;
  GST_DEBUG_OBJECT (self, "storing %s stream, caps %s",
      codec ? codec : "bytes", str);
  g_free (str);
  if (bytes)
    g_bytes_unref (bytes);
  return TRUE;
}

/* Stored timestamps are stream time: what the source said, whatever
 * offset an element in between added (x264enc moves its output 1000 hours
 * on, in both timestamps and segment, to keep DTS positive). */
static gint64
stream_time (GstStageStoreWriter * self, GstClockTime t)
{
  GstSegment *seg = &GST_BASE_SINK (self)->segment;
  guint64 st;
  gint sign;

  if (!GST_CLOCK_TIME_IS_VALID (t))
    return STAGE_STORE_NONE;
  if (seg->format != GST_FORMAT_TIME)
    return (gint64) t;
  sign = gst_segment_to_stream_time_full (seg, GST_FORMAT_TIME, t, &st);
  if (sign == 0)
    return (gint64) t;
  return sign > 0 ? (gint64) st : -(gint64) st;
}

static GstFlowReturn
gst_stage_store_writer_render (GstBaseSink * sink, GstBuffer * buf)
{
  GstStageStoreWriter *self = GST_STAGE_STORE_WRITER (sink);
  GstMapInfo map;
  gboolean key = TRUE, ok;
  GError *err = NULL;

  if (self->ignoring)
    return GST_FLOW_EOS;        /* nothing to do: let upstream stop */
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Could not map a buffer"),
        (NULL));
    self->failed = TRUE;
    return GST_FLOW_ERROR;
  }
  if (self->kind == STAGE_STORE_KIND_VIDEO) {
    key = g_str_equal (self->codec, "h264") ?
        stage_store_h264_is_rap (map.data, map.size, self->nal_length_size) :
        stage_store_h265_is_rap (map.data, map.size, self->nal_length_size);
  }
  ok = stage_store_writer_add (self->writer, map.data, map.size,
      stream_time (self, GST_BUFFER_PTS (buf)),
      stream_time (self, GST_BUFFER_DTS (buf)),
      GST_CLOCK_TIME_IS_VALID (GST_BUFFER_DURATION (buf)) ?
      (gint64) GST_BUFFER_DURATION (buf) : STAGE_STORE_NONE, key, &err);
  gst_buffer_unmap (buf, &map);
  if (!ok) {
    gst_stage_post_store_error (GST_ELEMENT (self), err, TRUE);
    g_error_free (err);
    self->failed = TRUE;
    return GST_FLOW_ERROR;
  }
  GST_OBJECT_LOCK (self);
  self->frames = stage_store_writer_get_frames (self->writer);
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;
}

/* Whether an error was posted in the pipeline, or it is being stopped.
 *
 * An element that meets a fatal flow return posts an error and then sends
 * EOS downstream (GST_ELEMENT_FLOW_ERROR in basesrc, demuxers, ...), so an
 * EOS alone does not mean the stream is whole: `identity error-after=50`
 * gave an EOS after 49 frames. A sink cannot read the application's bus,
 * but every bin on the way up records a child's ERROR message as its
 * state-change return (GstBin sets GST_STATE_RETURN to FAILURE, under its
 * object lock, before the message goes on), and the error is posted
 * before the EOS is sent. An application that reacts to the error and
 * calls gst_element_set_state() clears that return but sets the target
 * state in the same locked section: a target below PAUSED means stopping.
 * So the check sees the error whichever of the two came first. */
static gboolean
pipeline_failed (GstStageStoreWriter * self)
{
  GstObject *obj = gst_object_get_parent (GST_OBJECT (self));
  gboolean failed = FALSE;

  while (obj != NULL && !failed) {
    GstObject *up;

    if (GST_IS_ELEMENT (obj)) {
      GST_OBJECT_LOCK (obj);
      failed = GST_STATE_RETURN (obj) == GST_STATE_CHANGE_FAILURE
          || GST_STATE_TARGET (obj) < GST_STATE_PAUSED;
      GST_OBJECT_UNLOCK (obj);
      if (failed)
        GST_INFO_OBJECT (self, "%s posted an error or is stopping",
            GST_OBJECT_NAME (obj));
    }
    up = gst_object_get_parent (obj);
    gst_object_unref (obj);
    obj = up;
  }
  if (obj)
    gst_object_unref (obj);
  return failed;
}

/* What the commit changed from what arrived, said where a user sees it
 * (gst-launch-1.0 and stage-store ingest print warnings): frames that
 * were not stored, or times that were not the packets' own. */
static void
warn_repairs (GstStageStoreWriter * self)
{
  gint64 dropped = stage_store_writer_get_dropped (self->writer);
  gint64 lead = stage_store_writer_get_decode_only (self->writer);
  gint shift = stage_store_writer_get_shift (self->writer);
  gchar *kept = lead == 0 ? g_strdup ("") : g_strdup_printf (", and stored "
      "%" G_GINT64_FORMAT " more as decode-only packets (reference pictures "
      "that later ones count: decoded when a read starts there, never "
      "output)", lead);

  if (dropped > 0 || lead > 0)
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("Dropped %" G_GINT64_FORMAT " picture%s presented before the "
            "stream's first keyframe%s", dropped, dropped == 1 ? "" : "s",
            kept),
        ("They reference pictures from before the start of the recording "
            "(a cut in the middle of a GOP) and cannot be decoded exactly; "
            "a full decode does not output them either, so frame 0 is the "
            "first picture a decoder outputs"));
  g_free (kept);
  if (shift != 0)
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("Repaired the timestamps: each packet carried the times of the "
            "packet %d place%s %s it in decode order", ABS (shift),
            ABS (shift) == 1 ? "" : "s", shift > 0 ? "before" : "after"),
        ("Their order disagreed with the picture order count of the "
            "bitstream, and the shifted times agree with it exactly (as "
            "GStreamer 1.22's h265parse gives them after tsdemux); the "
            "frames are numbered and timed as a decoder outputs them"));
}

static gboolean
gst_stage_store_writer_event (GstBaseSink * sink, GstEvent * event)
{
  GstStageStoreWriter *self = GST_STAGE_STORE_WRITER (sink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->writer
      && (self->failed || pipeline_failed (self))) {
    /* not a true end: the data goes at close, the catalog is untouched */
    GST_WARNING_OBJECT (self, "EOS after an error: not committing the %"
        G_GINT64_FORMAT " frames written", stage_store_writer_get_frames
        (self->writer));
    self->failed = TRUE;
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->writer) {
    GError *err = NULL;
    StageStoreMode mode;

    GST_OBJECT_LOCK (self);
    mode = self->mode;
    GST_OBJECT_UNLOCK (self);
    if (!self->have_format)
      stage_store_writer_set_format (self->writer, STAGE_STORE_KIND_BYTES,
          NULL, "", NULL, 0, 1, 0, 0);
    if (!stage_store_writer_commit (self->writer, mode, &err)) {
      gst_stage_post_store_error (GST_ELEMENT (self), err, TRUE);
      g_error_free (err);
      gst_event_unref (event);
      return FALSE;
    }
    GST_INFO_OBJECT (self, "committed %" G_GINT64_FORMAT " frames",
        stage_store_writer_get_frames (self->writer));
    warn_repairs (self);
  }
  return GST_BASE_SINK_CLASS (gst_stage_store_writer_parent_class)->event
      (sink, event);
}

static void
gst_stage_store_writer_finalize (GObject * object)
{
  GstStageStoreWriter *self = GST_STAGE_STORE_WRITER (object);

  stage_store_writer_free (self->writer);
  stage_store_close (self->store);
  gst_clear_caps (&self->caps);
  g_free (self->codec);
  g_free (self->store_dir);
  g_free (self->stream);
  G_OBJECT_CLASS (gst_stage_store_writer_parent_class)->finalize (object);
}

static void
gst_stage_store_writer_class_init (GstStageStoreWriterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *sink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->finalize = gst_stage_store_writer_finalize;
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "Stage store writer", "Sink", "Writes packets or blobs into a store "
      "(internal to stagesink)", "gst-stages");
  sink_class->set_caps = GST_DEBUG_FUNCPTR (gst_stage_store_writer_set_caps);
  sink_class->render = GST_DEBUG_FUNCPTR (gst_stage_store_writer_render);
  sink_class->event = GST_DEBUG_FUNCPTR (gst_stage_store_writer_event);
}

static void
gst_stage_store_writer_init (GstStageStoreWriter * self)
{
  self->io_packet_size = 1;
  /* storing is not playback: write as fast as data comes */
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), TRUE);
}
