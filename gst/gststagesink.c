/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-stagesink
 * @title: stagesink
 *
 * Writes its input as a named stream into a store (Scanner's Output to a
 * NamedVideoStream / NamedStream): a directory holding catalog.db (SQLite,
 * WAL) and chunk files. See docs/store.md for the layout.
 *
 * What it stores depends on the caps it gets:
 *
 * - `video/x-h264`, `video/x-h265`: the compressed packets as they come,
 *   never re-encoded (an internal h264parse/h265parse converts to
 *   stream-format avc/hvc1, alignment au, so any parsed or unparsed
 *   H.264/H.265 works).
 * - `video/x-raw`: encoded first by @encoder (default: x264enc, else
 *   openh264enc, no B-frames), with a keyframe at the start of every chunk
 *   of @io-packet-size frames.
 * - anything else in system memory: a bytes stream, one blob per buffer
 *   with its timestamps (per-frame metadata such as detections).
 *
 * Chunks hold @io-packet-size frames; for encoded input a chunk is closed
 * at the first random access point after that many frames.
 *
 * The stream becomes visible only when complete: the catalog gets it in
 * one transaction at EOS, and only when every frame received was written
 * and no element of the pipeline posted an error before the EOS (elements
 * send EOS after a fatal flow error). An error, a stop before EOS or a
 * crash leaves the store as it was. Several pipelines may write different streams into
 * one store at once, and others may read meanwhile.
 *
 * @mode says what happens when the stream exists: `error` (default, an
 * error before anything is written), `overwrite` (the old stream is
 * replaced at commit), `ignore` (keep it: the input is refused with EOS
 * and nothing is written), like Scanner's CacheMode.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! stagesink store=/tmp/stages-store stream=clip
 * ]| ingests a file's H.264 packets as they are.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,width=1280,height=720 ! stagesink store=/tmp/stages-store stream=test mode=overwrite
 * ]| encodes raw frames, a keyframe every 128 frames.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagesink.h"
#include "gststagestorewriter.h"
#include "gststageutil.h"

#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_stage_sink_debug);
#define GST_CAT_DEFAULT gst_stage_sink_debug

#define DEFAULT_PROP_STORE NULL
#define DEFAULT_PROP_STREAM NULL
#define DEFAULT_PROP_IO_PACKET_SIZE 128
#define DEFAULT_PROP_MODE STAGE_STORE_MODE_ERROR
#define DEFAULT_PROP_ENCODER NULL
/* allowed, checked at start (the param spec takes any) */
#define IO_PACKET_SIZE_MAX G_MAXINT

#define SUPPORTED_TEXT "video/x-h264 and video/x-h265 (stored as they " \
  "are), video/x-raw (encoded), or any other caps as a bytes stream, all " \
  "in system memory"

enum
{
  PROP_0,
  PROP_STORE,
  PROP_STREAM,
  PROP_IO_PACKET_SIZE,
  PROP_MODE,
  PROP_ENCODER,
  PROP_FRAMES,
};

typedef enum
{
  CHAIN_NONE,
  CHAIN_DIRECT,                 /* bytes, or ignoring */
  CHAIN_H264,
  CHAIN_H265,
  CHAIN_RAW,
} ChainKind;

struct _GstStageSink
{
  GstBin parent;

  GstPad *sinkpad;              /* ghost */
  GstStageStoreWriter *writer;
  GList *chain;                 /* elements plugged before the writer */
  ChainKind chain_kind;
  guint64 raw_frames;           /* raw frames seen: forces keyframes */

  /* properties, under the object lock */
  gchar *store;
  gchar *stream;
  guint io_packet_size;
  StageStoreMode mode;
  gchar *encoder;
};

GType
gst_stage_sink_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {STAGE_STORE_MODE_ERROR, "Fail (before writing) if the stream exists",
        "error"},
    {STAGE_STORE_MODE_OVERWRITE, "Replace the stream if it exists",
        "overwrite"},
    {STAGE_STORE_MODE_IGNORE, "Keep the existing stream and write nothing",
        "ignore"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstStageSinkMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

G_DEFINE_TYPE_WITH_CODE (GstStageSink, gst_stage_sink, GST_TYPE_BIN,
    GST_DEBUG_CATEGORY_INIT (gst_stage_sink_debug, "stagesink", 0,
        "write a named stream into a store"));
GST_ELEMENT_REGISTER_DEFINE (stagesink, "stagesink", GST_RANK_NONE,
    GST_TYPE_STAGE_SINK);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static gboolean
system_memory (GstCaps * caps)
{
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    if (f && !gst_caps_features_is_any (f)
        && !gst_caps_features_is_equal (f,
            GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
      return FALSE;
  }
  return TRUE;
}

/* The structures of @caps in system memory. */
static GstCaps *
system_memory_part (GstCaps * caps)
{
  GstCaps *out = gst_caps_new_empty ();
  guint i;

  if (gst_caps_is_any (caps)) {
    gst_caps_unref (out);
    return gst_caps_new_any ();
  }
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    if (f == NULL || gst_caps_features_is_any (f)
        || gst_caps_features_is_equal (f,
            GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
      out = gst_caps_merge_structure_full (out,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          f ? gst_caps_features_copy (f) : NULL);
  }
  return out;
}

static gboolean
have_factory (const gchar * name)
{
  GstElementFactory *f = gst_element_factory_find (name);

  if (f)
    gst_object_unref (f);
  return f != NULL;
}

/* The encoder for raw input: the property as a gst-launch description, or
 * x264enc / openh264enc set for the store (no B-frames, a keyframe at
 * every chunk start; we also force one there, see raw_probe). */
static GstElement *
make_encoder (GstStageSink * self, guint iops, gboolean * is_default,
    GError ** error)
{
  gchar *desc;
  GstElement *enc;

  GST_OBJECT_LOCK (self);
  desc = g_strdup (self->encoder);
  GST_OBJECT_UNLOCK (self);
  *is_default = desc == NULL || *desc == '\0';
  if (*is_default) {
    g_free (desc);
    if (have_factory ("x264enc"))
      desc = g_strdup_printf ("x264enc speed-preset=veryfast pass=qual "
          "quantizer=20 bframes=0 key-int-max=%u", iops);
    else if (have_factory ("openh264enc"))
      desc = g_strdup_printf ("openh264enc gop-size=%u", iops);
    else {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
          "No H.264 encoder for raw video: install gstreamer1.0-plugins-ugly "
          "(x264enc) or gstreamer1.0-plugins-bad (openh264enc), or set "
          "encoder=");
      return NULL;
    }
  }
  enc = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      error);
  if (enc && GST_IS_BIN (enc)) {
    /* "enc ! parser": ghost its ends (gst_parse_bin_from_description) */
    gst_object_unref (enc);
    enc = gst_parse_bin_from_description (desc, TRUE, error);
  }
  if (enc == NULL && error && *error)
    g_prefix_error (error, "Invalid encoder '%s': ", desc);
  g_free (desc);
  return enc;
}

/* Which codec an encoder produces, from its src pad's template caps. */
static ChainKind
encoder_codec (GstElement * enc)
{
  GstPad *pad = gst_element_get_static_pad (enc, "src");
  GstCaps *caps, *h264, *h265;
  ChainKind k = CHAIN_NONE;

  if (pad == NULL)
    return CHAIN_NONE;
  caps = gst_pad_query_caps (pad, NULL);
  h264 = gst_caps_from_string ("video/x-h264");
  h265 = gst_caps_from_string ("video/x-h265");
  if (gst_caps_can_intersect (caps, h264))
    k = CHAIN_H264;
  else if (gst_caps_can_intersect (caps, h265))
    k = CHAIN_H265;
  gst_caps_unref (h264);
  gst_caps_unref (h265);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  return k;
}

/* Forces a keyframe at every chunk start of a raw input, so that each
 * chunk decodes on its own even when the encoder places keyframes by its
 * own rules (scene cuts restart x264's keyframe interval). */
static GstPadProbeReturn
raw_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstStageSink *self = user_data;
  guint iops;

  GST_OBJECT_LOCK (self);
  iops = MAX (self->io_packet_size, 1);
  GST_OBJECT_UNLOCK (self);
  if (self->raw_frames > 0 && self->raw_frames % iops == 0)
    gst_pad_send_event (pad,
        gst_video_event_new_downstream_force_key_unit (GST_CLOCK_TIME_NONE,
            GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE, TRUE,
            self->raw_frames / iops));
  self->raw_frames++;
  return GST_PAD_PROBE_OK;
}

static GstElement *
make_parser (ChainKind kind)
{
  GstElement *e = gst_element_factory_make (kind == CHAIN_H264 ? "h264parse"
      : "h265parse", NULL);
  return e;
}

static GstElement *
make_filter (ChainKind kind)
{
  GstElement *f = gst_element_factory_make ("capsfilter", NULL);
  GstCaps *caps = gst_caps_from_string (kind == CHAIN_H264 ?
      "video/x-h264,stream-format=avc,alignment=au" :
      "video/x-h265,stream-format=hvc1,alignment=au");

  g_object_set (f, "caps", caps, NULL);
  gst_caps_unref (caps);
  return f;
}

static void
clear_chain (GstStageSink * self)
{
  GList *l;

  gst_ghost_pad_set_target (GST_GHOST_PAD (self->sinkpad), NULL);
  for (l = self->chain; l; l = l->next) {
    gst_element_set_state (l->data, GST_STATE_NULL);
    gst_bin_remove (GST_BIN (self), l->data);
  }
  g_list_free (self->chain);
  self->chain = NULL;
  self->chain_kind = CHAIN_NONE;
  self->raw_frames = 0;
}

/* Which chain the caps need (a writer that ignores the stream: none). */
static ChainKind
chain_kind_for (GstStageSink * self, const GstStructure * s)
{
  if (gst_stage_store_writer_is_ignoring (self->writer))
    return CHAIN_DIRECT;
  if (gst_structure_has_name (s, "video/x-h264"))
    return CHAIN_H264;
  if (gst_structure_has_name (s, "video/x-h265"))
    return CHAIN_H265;
  if (gst_structure_has_name (s, "video/x-raw"))
    return CHAIN_RAW;
  return CHAIN_DIRECT;
}

/* Raw video: converter, (I420 with the default encoder), encoder, parser,
 * filter. FALSE (an error posted) when there is no usable encoder. */
static gboolean
raw_chain (GstStageSink * self, guint iops, GList ** elems)
{
  gboolean default_encoder;
  GError *err = NULL;
  GstElement *enc = make_encoder (self, iops, &default_encoder, &err);
  ChainKind codec;

  if (enc == NULL) {
    GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN, ("%s",
            err ? err->message : "No encoder"), (NULL));
    g_clear_error (&err);
    return FALSE;
  }
  codec = encoder_codec (enc);
  if (codec == CHAIN_NONE) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The encoder '%s' produces neither H.264 nor H.265: stagesink "
            "stores raw video as H.264 or H.265", GST_OBJECT_NAME (enc)),
        (NULL));
    gst_object_unref (gst_object_ref_sink (enc));
    return FALSE;
  }
  *elems = g_list_append (*elems, gst_element_factory_make ("videoconvert",
          NULL));
  if (default_encoder) {
    /* 8-bit 4:2:0, what every H.264 decoder plays; also pins the
     * encoder's input so an upstream renegotiation cannot change the
     * stream's codec data midway */
    GstElement *f = gst_element_factory_make ("capsfilter", NULL);
    GstCaps *c = gst_caps_from_string ("video/x-raw,format=I420");

    g_object_set (f, "caps", c, NULL);
    gst_caps_unref (c);
    *elems = g_list_append (*elems, f);
  }
  *elems = g_list_append (*elems, enc);
  *elems = g_list_append (*elems, make_parser (codec));
  *elems = g_list_append (*elems, make_filter (codec));
  return TRUE;
}

/* Every element of the chain made, or an error posted and the chain
 * freed. */
static gboolean
chain_complete (GstStageSink * self, GstCaps * caps, GList * elems)
{
  for (GList * l = elems; l; l = l->next) {
    if (l->data != NULL)
      continue;
    GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN, ("Missing element to "
            "store %" GST_PTR_FORMAT ": install gstreamer1.0-plugins-base "
            "and gstreamer1.0-plugins-bad", caps), (NULL));
    for (l = elems; l; l = l->next)
      if (l->data)
        gst_object_unref (gst_object_ref_sink (l->data));
    g_list_free (elems);
    return FALSE;
  }
  return TRUE;
}

/* The elements in the bin, linked in order and to the writer, started. */
static gboolean
plug_chain (GstStageSink * self, GstCaps * caps, GList * elems)
{
  GstElement *prev = NULL;

  for (GList * l = elems; l; l = l->next) {
    gst_bin_add (GST_BIN (self), l->data);
    if (prev)
      gst_element_link (prev, l->data);
    prev = l->data;
  }
  self->chain = elems;
  if (prev && !gst_element_link (prev, GST_ELEMENT (self->writer))) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Could not link the "
            "internal chain for %" GST_PTR_FORMAT, caps), (NULL));
    clear_chain (self);
    return FALSE;
  }
  for (GList * l = g_list_last (elems); l; l = l->prev)
    gst_element_sync_state_with_parent (l->data);
  return TRUE;
}

/* What stores `caps`: raw video is encoded, H.264 and H.265 parsed into
 * access units, anything else goes to the writer as it is; the ghost pad
 * then targets the chain's first element. */
static gboolean
build_chain (GstStageSink * self, GstCaps * caps)
{
  ChainKind kind = chain_kind_for (self, gst_caps_get_structure (caps, 0));
  GList *elems = NULL;
  GstPad *target;
  guint iops;

  GST_OBJECT_LOCK (self);
  iops = self->io_packet_size;
  GST_OBJECT_UNLOCK (self);

  if (kind == CHAIN_RAW) {
    if (!raw_chain (self, iops, &elems))
      return FALSE;
  } else if (kind == CHAIN_H264 || kind == CHAIN_H265) {
    elems = g_list_append (elems, make_parser (kind));
    elems = g_list_append (elems, make_filter (kind));
  }
  if (!chain_complete (self, caps, elems) || !plug_chain (self, caps, elems))
    return FALSE;
  self->chain_kind = kind;

  target = gst_element_get_static_pad (elems ? elems->data :
      GST_ELEMENT (self->writer), "sink");
  if (kind == CHAIN_RAW) {
    GstElement *enc = g_list_nth_data (elems, g_list_length (elems) - 3);
    GstPad *encpad = gst_element_get_static_pad (enc, "sink");

    gst_pad_add_probe (encpad, GST_PAD_PROBE_TYPE_BUFFER, raw_probe, self,
        NULL);
    gst_object_unref (encpad);
  }
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->sinkpad), target);
  gst_object_unref (target);
  GST_DEBUG_OBJECT (self, "plugged %u elements for %" GST_PTR_FORMAT,
      g_list_length (elems), caps);
  return TRUE;
}

static gboolean
gst_stage_sink_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstStageSink *self = GST_STAGE_SINK (parent);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;
    GstStructure *s;

    gst_event_parse_caps (event, &caps);
    if (!system_memory (caps)) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("stagesink cannot store %" GST_PTR_FORMAT ": supported are "
              SUPPORTED_TEXT " (add a download element such as "
              "cudadownload before it)", caps), (NULL));
      gst_event_unref (event);
      return FALSE;
    }
    s = gst_caps_get_structure (caps, 0);
    if (self->chain_kind != CHAIN_NONE) {
      gboolean same = (self->chain_kind == CHAIN_H264 &&
          gst_structure_has_name (s, "video/x-h264"))
          || (self->chain_kind == CHAIN_H265 &&
          gst_structure_has_name (s, "video/x-h265"))
          || (self->chain_kind == CHAIN_RAW &&
          gst_structure_has_name (s, "video/x-raw"))
          || self->chain_kind == CHAIN_DIRECT;

      if (!same) {
        GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
            ("The input changed to %" GST_PTR_FORMAT ": a stored stream "
                "has one kind", caps), (NULL));
        gst_event_unref (event);
        return FALSE;
      }
    } else if (!build_chain (self, caps)) {
      gst_event_unref (event);
      return FALSE;
    }
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS
      && self->chain_kind == CHAIN_NONE) {
    /* a stream that ended before any caps: the writer commits it empty
     * (and the pipeline ends) instead of the EOS getting lost */
    GstPad *target = gst_element_get_static_pad (GST_ELEMENT (self->writer),
        "sink");

    gst_ghost_pad_set_target (GST_GHOST_PAD (self->sinkpad), target);
    gst_object_unref (target);
    self->chain_kind = CHAIN_DIRECT;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
gst_stage_sink_sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstStageSink *self = GST_STAGE_SINK (parent);
  GstPad *target = gst_ghost_pad_get_target (GST_GHOST_PAD (pad));

  if (target) {
    gst_object_unref (target);
    return gst_pad_query_default (pad, parent, query);
  }
  /* Before the caps: anything in system memory (ANY, as the element stores
   * any other caps as bytes); what follows is chosen at the caps event. */
  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:{
      GstCaps *filter, *caps = gst_caps_new_any ();

      gst_query_parse_caps (query, &filter);
      if (filter) {
        /* what stores best first (compressed as is, raw the way the
         * default encoder takes it), then whatever else upstream has */
        GstCaps *pref = gst_caps_from_string ("video/x-h264; video/x-h265; "
            "video/x-raw, format=(string)I420");

        gst_caps_unref (caps);
        caps = gst_caps_intersect_full (pref, filter,
            GST_CAPS_INTERSECT_FIRST);
        caps = gst_caps_merge (caps, system_memory_part (filter));
        gst_caps_unref (pref);
      }
      gst_query_set_caps_result (query, caps);
      gst_caps_unref (caps);
      return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS:{
      GstCaps *caps;

      /* accepted here so that the caps event explains a refusal */
      gst_query_parse_accept_caps (query, &caps);
      gst_query_set_accept_caps_result (query, TRUE);
      return TRUE;
    }
    default:
      GST_LOG_OBJECT (self, "query %s before caps",
          GST_QUERY_TYPE_NAME (query));
      return gst_pad_query_default (pad, parent, query);
  }
}

static GstStateChangeReturn
gst_stage_sink_change_state (GstElement * element, GstStateChange transition)
{
  GstStageSink *self = GST_STAGE_SINK (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    GError *err = NULL;
    guint iops;

    GST_OBJECT_LOCK (self);
    iops = self->io_packet_size;
    GST_OBJECT_UNLOCK (self);
    if (!gst_stage_check_uint_prop ("io-packet-size", iops, 1,
            IO_PACKET_SIZE_MAX, NULL, &err)) {
      gst_stage_post_settings_error (element, err);
      return GST_STATE_CHANGE_FAILURE;
    }
    GST_OBJECT_LOCK (self);
    gst_stage_store_writer_configure (self->writer, self->store,
        self->stream, self->io_packet_size, self->mode);
    GST_OBJECT_UNLOCK (self);
    self->raw_frames = 0;
    if (!gst_stage_store_writer_open (self->writer))
      return GST_STATE_CHANGE_FAILURE;
  }
  ret = GST_ELEMENT_CLASS (gst_stage_sink_parent_class)->change_state
      (element, transition);
  if (gst_stage_state_change_tears_down (transition, ret)) {
    clear_chain (self);
    gst_stage_store_writer_close (self->writer);
  }
  return ret;
}

static void
gst_stage_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageSink *self = GST_STAGE_SINK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_STORE:
      g_free (self->store);
      self->store = g_value_dup_string (value);
      break;
    case PROP_STREAM:
      g_free (self->stream);
      self->stream = g_value_dup_string (value);
      break;
    case PROP_IO_PACKET_SIZE:
      self->io_packet_size = g_value_get_uint (value);
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_ENCODER:
      g_free (self->encoder);
      self->encoder = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_stage_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageSink *self = GST_STAGE_SINK (object);

  if (prop_id == PROP_FRAMES) {
    g_value_set_uint64 (value,
        gst_stage_store_writer_get_frames (self->writer));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_STORE:
      g_value_set_string (value, self->store);
      break;
    case PROP_STREAM:
      g_value_set_string (value, self->stream);
      break;
    case PROP_IO_PACKET_SIZE:
      g_value_set_uint (value, self->io_packet_size);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_ENCODER:
      g_value_set_string (value, self->encoder);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_stage_sink_finalize (GObject * object)
{
  GstStageSink *self = GST_STAGE_SINK (object);

  g_list_free (self->chain);
  g_free (self->store);
  g_free (self->stream);
  g_free (self->encoder);
  G_OBJECT_CLASS (gst_stage_sink_parent_class)->finalize (object);
}

static void
gst_stage_sink_class_init (GstStageSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_stage_sink_set_property;
  gobject_class->get_property = gst_stage_sink_get_property;
  gobject_class->finalize = gst_stage_sink_finalize;

  g_object_class_install_property (gobject_class, PROP_STORE,
      g_param_spec_string ("store", "Store",
          "Directory of the store (created if missing): catalog.db plus "
          "chunk files", DEFAULT_PROP_STORE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_STREAM,
      g_param_spec_string ("stream", "Stream",
          "Name of the stream to write (Scanner's NamedStream name)",
          DEFAULT_PROP_STREAM, G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_IO_PACKET_SIZE,
      g_param_spec_uint ("io-packet-size", "I/O packet size",
          "Frames per chunk file (Scanner's io_packet_size); raw input gets "
          "a keyframe at every chunk start, so this is its keyframe "
          "interval: 1 to 2147483647 (others are an error at start)", 0,
          G_MAXUINT, DEFAULT_PROP_IO_PACKET_SIZE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "What to do when the stream exists already (Scanner's CacheMode)",
          GST_TYPE_STAGE_SINK_MODE, DEFAULT_PROP_MODE,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ENCODER,
      g_param_spec_string ("encoder", "Encoder",
          "Encoder for raw video input, as a gst-launch description such as "
          "\"x264enc speed-preset=fast bframes=0\" (H.264 or H.265; NULL: "
          "x264enc, else openh264enc, with no B-frames and a keyframe every "
          "io-packet-size frames)", DEFAULT_PROP_ENCODER,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FRAMES,
      g_param_spec_uint64 ("frames", "Frames",
          "Number of frames (packets or blobs) written so far", 0,
          G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "Stored stream sink", "Sink/Video",
      "Writes a named stream into a store: H.264/H.265 packets as they are, "
      "raw video encoded, other caps as blobs (Scanner's Output)",
      "gst-stages");
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_stage_sink_change_state);

  gst_type_mark_as_plugin_api (GST_TYPE_STAGE_SINK_MODE, 0);
}

static void
gst_stage_sink_init (GstStageSink * self)
{
  GstPadTemplate *tmpl = gst_static_pad_template_get (&sink_template);

  self->io_packet_size = DEFAULT_PROP_IO_PACKET_SIZE;
  self->mode = DEFAULT_PROP_MODE;
  self->store = g_strdup (DEFAULT_PROP_STORE);
  self->stream = g_strdup (DEFAULT_PROP_STREAM);
  self->encoder = g_strdup (DEFAULT_PROP_ENCODER);

  self->writer = g_object_new (GST_TYPE_STAGE_STORE_WRITER, "name", "writer",
      NULL);
  gst_bin_add (GST_BIN (self), GST_ELEMENT (self->writer));

  self->sinkpad = gst_ghost_pad_new_no_target_from_template ("sink", tmpl);
  gst_object_unref (tmpl);
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_stage_sink_sink_event));
  gst_pad_set_query_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_stage_sink_sink_query));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  GST_OBJECT_FLAG_SET (self, GST_ELEMENT_FLAG_SINK);
}
