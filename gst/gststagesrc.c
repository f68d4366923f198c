/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-stagesrc
 * @title: stagesrc
 *
 * Produces the frames of a stream stored by stagesink (Scanner's Input
 * from a NamedVideoStream / NamedStream), with frame selection built in:
 * @indices (or @indices-file), @ranges, @stride and @offset take the same
 * text, give the same errors and use the same code (the property
 * definitions of gststageselectprops.c, ops/select.c) as stagegather,
 * stagerange and stagestride. With no selection every frame comes out.
 *
 * Video comes out decoded (raw video) by default: the element reads only
 * the byte ranges it needs, one keyframe interval at a time, decodes
 * forward from the interval's keyframe and drops the frames not asked for.
 * The frames it outputs are bit-identical to decoding the whole stream and
 * keeping those indices, on clips with B-frames and open GOPs too (see
 * docs/stagesrc.md for why). With @decode=false it outputs the stored
 * packets of the selected frames instead (in decode order). Bytes streams
 * come out as their blobs.
 *
 * Frame index: the position of a frame in presentation order (for blobs,
 * the order they were written). Every output buffer carries it in
 * GST_BUFFER_OFFSET (and the next one in OFFSET_END), with the stored PTS
 * and duration; with a regular stride S, as stagestride: index / S, each
 * frame lasting S stored frames, caps at rate / S. Other selections keep
 * the caps' framerate and send GAP events for the holes. Indices past the
 * end of the stream are refused at start; a selected frame the decoder
 * does not give is an error (or a warning and a count, on-missing=warn).
 * The element is not seekable.
 *
 * Errors name the store, the stream and, for data errors, the chunk: an
 * unknown stream (with the nearest names), a directory that is not a
 * store, a corrupt catalog, a truncated or corrupt chunk.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 stagesrc store=/tmp/stages-store stream=clip indices="0,250,1000" ! videoconvert ! pngenc ! multifilesink location=frame-%d.png
 * ]| decodes three frames of a stored clip.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagesrc.h"
#include "gststagecounters.h"
#include "gststageselectprops.h"
#include "gststagestoresrc.h"
#include "gststageutil.h"

#include <stdio.h>
#include <stdlib.h>

GST_DEBUG_CATEGORY_STATIC (gst_stage_src_debug);
#define GST_CAT_DEFAULT gst_stage_src_debug

#define DEFAULT_PROP_STORE NULL
#define DEFAULT_PROP_STREAM NULL
#define DEFAULT_PROP_DECODE TRUE
#define DEFAULT_PROP_DECODER NULL
#define DEFAULT_PROP_ON_MISSING GST_STAGE_SRC_ON_MISSING_ERROR

typedef enum
{
  GST_STAGE_SRC_ON_MISSING_ERROR,
  GST_STAGE_SRC_ON_MISSING_WARN,
} GstStageSrcOnMissing;

#define GST_TYPE_STAGE_SRC_ON_MISSING (gst_stage_src_on_missing_get_type ())
static GType
gst_stage_src_on_missing_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_STAGE_SRC_ON_MISSING_ERROR, "Stop with an error naming the frame",
        "error"},
    {GST_STAGE_SRC_ON_MISSING_WARN, "Post a warning, count it in 'missing' "
          "and go on", "warn"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstStageSrcOnMissing", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

/* The selection properties and the counters are defined with the
 * selectors' (gststageselectprops.h, gststagecounters.h): ids from
 * PROP_SELECT_FIRST and PROP_COUNTER_FIRST. */
enum
{
  PROP_0,
  PROP_STORE,
  PROP_STREAM,
  PROP_DECODE,
  PROP_SELECT_FIRST,
  PROP_DECODER = PROP_SELECT_FIRST + GST_STAGE_SELECT_N_PROPS,
  PROP_ON_MISSING,
  PROP_COUNTER_FIRST,
  PROP_SKIPPED = PROP_COUNTER_FIRST + GST_STAGE_N_COUNTERS,
  PROP_MISSING,
};

struct _GstStageSrc
{
  GstBin parent;

  GstPad *srcpad;               /* ghost */
  GstStageStoreSrc *reader;
  GstElement *decoder;          /* plugged for decoded video */
  gboolean regular;             /* output rate: input rate / divisor */
  guint64 divisor;

  /* properties, under the object lock */
  gchar *store;
  gchar *stream;
  gboolean decode;
  GstStageSelectProps select;
  gchar *decoder_desc;
  GstStageSrcOnMissing on_missing;
};

G_DEFINE_TYPE_WITH_CODE (GstStageSrc, gst_stage_src, GST_TYPE_BIN,
    GST_DEBUG_CATEGORY_INIT (gst_stage_src_debug, "stagesrc", 0,
        "read frames of a named stream from a store"));
GST_ELEMENT_REGISTER_DEFINE (stagesrc, "stagesrc", GST_RANK_NONE,
    GST_TYPE_STAGE_SRC);

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

/* Whether @dec (a decoder element, or a bin of one element) is one of
 * gst-libav's @prefix decoders: then *@elem holds a ref on that element
 * and *@major.*@minor is gst-libav's version. */
static gboolean
libav_decoder (GstElement * dec, const gchar * prefix, GstElement ** elem,
    guint * major, guint * minor)
{
  GstElementFactory *f;
  GstPlugin *plugin;
  gboolean ok;

  *elem = NULL;
  if (GST_IS_BIN (dec)) {
    GstElement *bin = dec;
    GList *kids;

    /* a decoder description: one element, or anything else is unknown */
    GST_OBJECT_LOCK (bin);
    kids = GST_BIN_CHILDREN (bin);
    dec = kids && !kids->next ? gst_object_ref (kids->data) : NULL;
    GST_OBJECT_UNLOCK (bin);
    if (!dec)
      return FALSE;
  } else {
    gst_object_ref (dec);
  }
  f = gst_element_get_factory (dec);
  plugin = f ? GST_PLUGIN (gst_plugin_feature_get_plugin
      (GST_PLUGIN_FEATURE (f))) : NULL;
  ok = plugin && g_str_has_prefix (GST_OBJECT_NAME (f), prefix)
      && g_strcmp0 (gst_plugin_get_name (plugin), "libav") == 0
      && sscanf (gst_plugin_get_version (plugin), "%u.%u", major,
      minor) == 2;
  if (plugin)
    gst_object_unref (plugin);
  if (ok)
    *elem = dec;
  else
    gst_object_unref (dec);
  return ok;
}

/* Whether @dec decodes a stream with unwanted non-reference pictures left
 * out exactly. gst-libav before 1.24 does with any thread count. From
 * 1.24 (the frame travels on the AVPacket's opaque_ref) its clean-up of
 * "ghost" frames, frames earlier in decode order without a buffer yet,
 * races its frame threads once pictures are missing: under load a frame
 * just sent, not yet started by its thread, was released, and libav then
 * decoded nothing for it or another frame's picture came out in its place
 * (1.26 on Debian 13: 2 runs in 6 of a single read). With one thread it
 * is exact. Other decoders are fed every packet. */
static gboolean
decoder_allows_skipping (GstElement * dec)
{
  GstElement *e;
  guint major = 0, minor = 0;
  gint threads = 0;
  gboolean ok;

  if (!libav_decoder (dec, "avdec_h264", &e, &major, &minor))
    return FALSE;
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (e), "max-threads"))
    g_object_get (e, "max-threads", &threads, NULL);
  ok = major == 1 && (minor < 24 || threads == 1);
  gst_object_unref (e);
  return ok;
}

/* A read from a cut H.265 recording's first keyframe (a CRA, whose
 * reference picture set names pictures from before the cut): FFmpeg
 * invents a picture for each of them, its picture buffer fills up and it
 * outputs the CRA while the packets after it are still queued for its
 * frame threads, without a picture yet; gst-libav 1.24+ then takes them
 * for frames FFmpeg dropped ("discarding ghost frame", GST_DEBUG=libav:6)
 * and releases them, and the picture of one is lost ("Couldn't get codec
 * frame !"): full reads of test_stage_store_cli's cut265 failed 4 times in
 * 16, and 11 in 24 beside other reads, on Debian 13. With one thread a
 * packet has its picture before the next is sent: 24 of 24. So such a read decodes with one thread, unless
 * decoder= names the decoder (its settings are the user's). */
static void
serialize_cra_start (GstStageSrc * self, GstElement * dec)
{
  GstElement *e;
  guint major = 0, minor = 0;
  gboolean chosen;

  GST_OBJECT_LOCK (self);
  chosen = !gst_stage_is_unset (self->decoder_desc);
  GST_OBJECT_UNLOCK (self);
  if (chosen || !gst_stage_store_src_starts_at_h265_cra (self->reader)
      || !libav_decoder (dec, "avdec_h265", &e, &major, &minor))
    return;
  if (major == 1 && minor >= 24 && g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "max-threads")) {
    GST_INFO_OBJECT (self, "the read starts at an H.265 CRA: one decoder "
        "thread");
    g_object_set (e, "max-threads", 1, NULL);
  }
  gst_object_unref (e);
}

static GstElement *
make_decoder (GstStageSrc * self, const StageStreamInfo * info,
    GError ** error)
{
  gchar *desc;
  GstElement *dec;

  GST_OBJECT_LOCK (self);
  desc = gst_stage_is_unset (self->decoder_desc) ? NULL :
      g_strdup (self->decoder_desc);
  GST_OBJECT_UNLOCK (self);
  if (desc == NULL) {
    /* libav's software decoders: deterministic, so a sparse decode and a
     * full one agree to the bit */
    const gchar *name = g_strcmp0 (info->codec, "h265") == 0 ? "avdec_h265"
        : "avdec_h264";

    dec = gst_element_factory_make (name, NULL);
    if (dec == NULL)
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
          "No %s decoder for stream '%s': install gstreamer1.0-libav (%s) "
          "or set decoder=", info->codec, info->name, name);
    else if (g_object_class_find_property (G_OBJECT_GET_CLASS (dec), "qos"))
      /* a decoder dropping late frames would lose selected ones (below
       * too, for a decoder given as a description) */
      g_object_set (dec, "qos", FALSE, NULL);
    return dec;
  }
  dec = gst_parse_bin_from_description (desc, TRUE, error);
  if (dec == NULL && error && *error)
    g_prefix_error (error, "Invalid decoder '%s': ", desc);
  if (dec) {
    GstIterator *it = gst_bin_iterate_recurse (GST_BIN (dec));
    GValue v = G_VALUE_INIT;

    while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      GObject *e = g_value_get_object (&v);

      if (g_object_class_find_property (G_OBJECT_GET_CLASS (e), "qos"))
        g_object_set (e, "qos", FALSE, NULL);
      g_value_reset (&v);
    }
    g_value_unset (&v);
    gst_iterator_free (it);
  }
  g_free (desc);
  return dec;
}

/* The selectors' caps rule: a regular stride divides the framerate; any
 * other selection keeps it (the kept frames stay on the stored grid, the
 * holes are GAP events), so muxers get every frame with its duration. */
static void
fix_framerate (GstStageSrc * self, GstPadProbeInfo * info)
{
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
  GstCaps *caps;
  GstStructure *s;
  gint n, d;

  gst_event_parse_caps (ev, &caps);
  if (gst_caps_get_size (caps) == 0)
    return;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_get_fraction (s, "framerate", &n, &d) || n <= 0)
    return;
  if (!self->regular || self->divisor == 1)
    return;
  caps = gst_caps_copy (caps);
  s = gst_caps_get_structure (caps, 0);
  if (self->divisor <= G_MAXINT
      && gst_util_fraction_multiply (n, d, 1, (gint) self->divisor, &n, &d))
    gst_structure_set (s, "framerate", GST_TYPE_FRACTION, n, d, NULL);
  else
    gst_structure_set (s, "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  gst_event_unref (ev);
  GST_PAD_PROBE_INFO_DATA (info) = gst_event_new_caps (caps);
  gst_caps_unref (caps);
}

static GstPadProbeReturn
decoder_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstStageSrc *self = user_data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
    GstEvent *gap;

    if (!gst_stage_store_src_output (self->reader, &buf, &gap))
      return GST_PAD_PROBE_DROP;
    if (gap)
      gst_pad_push_event (pad, gap);
    GST_PAD_PROBE_INFO_DATA (info) = buf;
    return GST_PAD_PROBE_OK;
  }
  if (info->type & (GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
          GST_PAD_PROBE_TYPE_EVENT_FLUSH)) {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

    switch (GST_EVENT_TYPE (ev)) {
      case GST_EVENT_FLUSH_START:
      case GST_EVENT_FLUSH_STOP:
        /* our decoder resets between intervals; downstream sees one
         * continuous stream */
        if (gst_stage_store_src_is_internal (self->reader, ev))
          return GST_PAD_PROBE_DROP;
        break;
      case GST_EVENT_CAPS:
        fix_framerate (self, info);
        break;
      case GST_EVENT_EOS:
        /* selected frames that never came out: an error (posted before
         * the EOS reaches the sink) or a warning; unless downstream ended
         * the stream (a selector that has all it wants): then the frames
         * after are not wanted */
        if (gst_pad_get_last_flow_return (self->srcpad) != GST_FLOW_EOS)
          gst_stage_store_src_finish (self->reader);
        break;
      default:
        break;
    }
  }
  return GST_PAD_PROBE_OK;
}

/* After an error the base class still sends EOS, so that downstream can
 * finish; a stagesink or a muxer there would then keep a truncated copy
 * as if complete. The error ends the stream instead. */
static GstPadProbeReturn
eos_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstStageSrc *self = user_data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS
      && gst_stage_store_src_failed (self->reader)) {
    GST_DEBUG_OBJECT (self, "dropping the EOS that follows an error");
    return GST_PAD_PROBE_DROP;
  }
  return GST_PAD_PROBE_OK;
}

static void
unplug (GstStageSrc * self)
{
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad), NULL);
  if (self->decoder) {
    gst_element_set_state (self->decoder, GST_STATE_NULL);
    gst_bin_remove (GST_BIN (self), self->decoder);
    self->decoder = NULL;
  }
}

/* READY to PAUSED: read the catalog, then plug what the stream needs. */
static gboolean
plug (GstStageSrc * self)
{
  GError *err = NULL;
  StageSelect *sel = gst_stage_select_props_create (GST_OBJECT (self),
      &self->select, &err);
  const StageStreamInfo *info;
  gchar *store, *stream;
  gboolean decode, warn, ok;
  GstPad *target;

  if (sel == NULL)
    goto error;
  self->regular = stage_select_regular (sel, &self->divisor) != 0;
  GST_OBJECT_LOCK (self);
  store = g_strdup (self->store);
  stream = g_strdup (self->stream);
  decode = self->decode;
  warn = self->on_missing == GST_STAGE_SRC_ON_MISSING_WARN;
  GST_OBJECT_UNLOCK (self);
  if (gst_stage_is_unset (store) || gst_stage_is_unset (stream)) {
    g_set_error (&err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "No %s set: stagesrc needs store=DIR and stream=NAME",
        gst_stage_is_unset (store) ? "store" : "stream");
    ok = FALSE;
  } else {
    ok = gst_stage_store_src_open (self->reader, store, stream, sel, decode,
        warn, &err);
  }
  g_free (store);
  g_free (stream);
  if (!ok) {
    stage_select_free (sel);
    goto error;
  }
  info = gst_stage_store_src_get_info (self->reader);
  if (decode && info->kind == STAGE_STORE_KIND_VIDEO) {
    GstPad *pad;

    self->decoder = make_decoder (self, info, &err);
    if (self->decoder == NULL)
      goto error;
    serialize_cra_start (self, self->decoder);
    gst_stage_store_src_allow_skipping (self->reader,
        decoder_allows_skipping (self->decoder));
    gst_bin_add (GST_BIN (self), self->decoder);
    if (!gst_element_link (GST_ELEMENT (self->reader), self->decoder)) {
      g_set_error (&err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "The decoder %s cannot decode stream '%s' (%s)",
          GST_OBJECT_NAME (self->decoder), info->name, info->caps);
      goto error;
    }
    pad = gst_element_get_static_pad (self->decoder, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
        decoder_probe, self, NULL);
    target = pad;
    gst_element_sync_state_with_parent (self->decoder);
  } else {
    target = gst_element_get_static_pad (GST_ELEMENT (self->reader), "src");
  }
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad), target);
  gst_object_unref (target);
  return TRUE;

error:
  gst_stage_post_store_error (GST_ELEMENT (self), err, FALSE);
  g_error_free (err);
  unplug (self);
  gst_stage_store_src_close (self->reader);
  return FALSE;
}

static GstStateChangeReturn
gst_stage_src_change_state (GstElement * element, GstStateChange transition)
{
  GstStageSrc *self = GST_STAGE_SRC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && !plug (self))
    return GST_STATE_CHANGE_FAILURE;
  ret = GST_ELEMENT_CLASS (gst_stage_src_parent_class)->change_state
      (element, transition);
  if (gst_stage_state_change_tears_down (transition, ret)) {
    unplug (self);
    gst_stage_store_src_close (self->reader);
  }
  return ret;
}

static void
gst_stage_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageSrc *self = GST_STAGE_SRC (object);

  if (gst_stage_select_props_set (GST_OBJECT (self), &self->select,
          prop_id - PROP_SELECT_FIRST, value))
    return;
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
    case PROP_DECODE:
      self->decode = g_value_get_boolean (value);
      break;
    case PROP_DECODER:
      g_free (self->decoder_desc);
      self->decoder_desc = g_value_dup_string (value);
      break;
    case PROP_ON_MISSING:
      self->on_missing = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_stage_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageSrc *self = GST_STAGE_SRC (object);

  if (gst_stage_select_props_get (GST_OBJECT (self), &self->select,
          prop_id - PROP_SELECT_FIRST, value))
    return;
  /* the counters are the reader's */
  if (prop_id == PROP_COUNTER_FIRST + GST_STAGE_COUNTER_OUT) {
    g_value_set_uint64 (value, gst_stage_store_src_get_out (self->reader));
    return;
  }
  if (prop_id == PROP_SKIPPED) {
    g_value_set_uint64 (value,
        gst_stage_store_src_get_skipped (self->reader));
    return;
  }
  if (prop_id == PROP_MISSING) {
    g_value_set_uint64 (value,
        gst_stage_store_src_get_missing (self->reader));
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
    case PROP_DECODE:
      g_value_set_boolean (value, self->decode);
      break;
    case PROP_DECODER:
      g_value_set_string (value, self->decoder_desc);
      break;
    case PROP_ON_MISSING:
      g_value_set_enum (value, self->on_missing);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_stage_src_finalize (GObject * object)
{
  GstStageSrc *self = GST_STAGE_SRC (object);

  g_free (self->store);
  g_free (self->stream);
  gst_stage_select_props_clear (&self->select);
  g_free (self->decoder_desc);
  G_OBJECT_CLASS (gst_stage_src_parent_class)->finalize (object);
}

static void
gst_stage_src_class_init (GstStageSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
      G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_stage_src_set_property;
  gobject_class->get_property = gst_stage_src_get_property;
  gobject_class->finalize = gst_stage_src_finalize;

  g_object_class_install_property (gobject_class, PROP_STORE,
      g_param_spec_string ("store", "Store",
          "Directory of the store to read (made by stagesink)",
          DEFAULT_PROP_STORE, rw));
  g_object_class_install_property (gobject_class, PROP_STREAM,
      g_param_spec_string ("stream", "Stream",
          "Name of the stream to read", DEFAULT_PROP_STREAM, rw));
  g_object_class_install_property (gobject_class, PROP_DECODE,
      g_param_spec_boolean ("decode", "Decode",
          "Output decoded raw video (TRUE) or the stored packets of the "
          "selected frames (FALSE); bytes streams always give their blobs",
          DEFAULT_PROP_DECODE, rw));
  /* without GST_STAGE_SELECT_WARN_WHEN_SET a bad value is only logged
   * when set: stagesrc never warned then, and applications that read the
   * start's error (the store suites do) would get a new g_warning; the
   * start refuses it either way */
  gst_stage_select_props_install (gobject_class, PROP_SELECT_FIRST,
      GST_STAGE_SELECT_ALL);
  g_object_class_install_property (gobject_class, PROP_DECODER,
      g_param_spec_string ("decoder", "Decoder",
          "Decoder to use, as a gst-launch description (NULL: avdec_h264 or "
          "avdec_h265, whose output a full decode with the same decoder "
          "matches to the bit)", DEFAULT_PROP_DECODER, rw));
  g_object_class_install_property (gobject_class, PROP_ON_MISSING,
      g_param_spec_enum ("on-missing", "On missing",
          "What to do when a selected frame cannot be decoded (corrupt data, "
          "a decoder that drops it): stop with an error naming it, or warn, "
          "count it in 'missing' and go on", GST_TYPE_STAGE_SRC_ON_MISSING,
          DEFAULT_PROP_ON_MISSING, rw));
  g_object_class_install_property (gobject_class, PROP_MISSING,
      g_param_spec_uint64 ("missing", "Missing",
          "Number of selected frames skipped with on-missing=warn since the "
          "element started", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_stage_counters_install (gobject_class, PROP_COUNTER_FIRST,
      GST_STAGE_COUNTER_MASK (GST_STAGE_COUNTER_OUT));
  g_object_class_install_property (gobject_class, PROP_SKIPPED,
      g_param_spec_uint64 ("skipped", "Skipped",
          "Number of packets not decoded since the element started: "
          "H.264 pictures that no other picture refers to and nobody asked "
          "for (only with a decoder known to take it, docs/stagesrc.md)", 0,
          G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_type_mark_as_plugin_api (GST_TYPE_STAGE_SRC_ON_MISSING, 0);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Stored stream source", "Source/Video",
      "Reads selected frames of a named stream from a store, decoding only "
      "the keyframe intervals it needs (Scanner's Input)", "gst-stages");
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_stage_src_change_state);
}

static void
gst_stage_src_init (GstStageSrc * self)
{
  GstPadTemplate *tmpl = gst_static_pad_template_get (&src_template);

  self->decode = DEFAULT_PROP_DECODE;
  gst_stage_select_props_init (&self->select);
  self->on_missing = DEFAULT_PROP_ON_MISSING;
  self->store = g_strdup (DEFAULT_PROP_STORE);
  self->stream = g_strdup (DEFAULT_PROP_STREAM);

  self->reader = g_object_new (GST_TYPE_STAGE_STORE_SRC, "name", "reader",
      NULL);
  gst_bin_add (GST_BIN (self), GST_ELEMENT (self->reader));
  self->srcpad = gst_ghost_pad_new_no_target_from_template ("src", tmpl);
  gst_object_unref (tmpl);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
  gst_pad_add_probe (self->srcpad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      eos_probe, self, NULL);
  GST_OBJECT_FLAG_SET (self, GST_ELEMENT_FLAG_SOURCE);
}
