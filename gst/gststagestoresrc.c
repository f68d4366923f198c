/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageStoreSrc: reads a stored stream for stagesrc.
 *
 * Internal to stagesrc: not registered, created with g_object_new().
 *
 * Packets (decode=false) and blobs: pushes the stored packets of the
 * selected frames, in the order they were written, with their stored
 * timestamps.
 *
 * Decoded video: Scanner's decode intervals. For the next frame wanted
 * (the target), the reader finds the last random access point (RAP, the
 * store's keyframe flag) at or before the target's packet in decode order
 * that is not displayed after the target, and feeds the decoder from
 * there, one keyframe interval read at a time. Frames come out of the
 * decoder in display order; stagesrc keeps the wanted ones and drops the
 * rest (gst_stage_store_src_output). When the next target's RAP lies
 * beyond what was fed, the decoder is flushed (a fresh decoder state, as
 * at the start of a full decode) and feeding jumps there. Frames decoded
 * from a RAP onwards and displayed at or after it reference nothing before
 * it, so each kept frame is bit-identical to a full decode's.
 *
 * Decoders differ at random access points other than IDR pictures
 * (H.264 recovery-point I pictures, H.265 CRA and BLA): gst-libav with one
 * thread invents references for the frame_num gap and gives wrong pictures
 * until the next RAP. So decoding never starts at such a RAP: it starts
 * one RAP earlier and reaches the target's RAP in stream, as a full
 * decode does (IDR pictures are entered directly).
 *
 * A cut recording's decode-only packets (reference leading pictures of
 * its first keyframe, store/stagestore.h) are fed in every run from the
 * first keyframe, flagged GST_BUFFER_FLAG_DECODE_ONLY, so the decoder's
 * references and frame_num sequence are the encoder's; whatever the
 * decoder makes of them is dropped here too.
 *
 * The decoder sees synthetic timestamps (the frame index in ms, after
 * the decode-only packets) so that its output names each frame's index
 * whatever the stored timestamps are;
 * the stored ones are put back on output, with the selectors' timing: a
 * regular stride of S lasts S frames and is numbered index / S in OFFSET,
 * other selections keep the stored grid and send a GAP for each hole.
 *
 * Every selected frame comes out or is reported: indices past the end are
 * refused when the stream opens, a frame the decoder does not give is an
 * error (or, with on-missing=warn, a warning and a count).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagestoresrc.h"
#include "gststageutil.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_stage_store_src_debug);
#define GST_CAT_DEFAULT gst_stage_store_src_debug

/* A target not out of the decoder this many packets after its own is
 * declared lost (a corrupt packet the decoder skipped), with a warning. */
#define LOST_AFTER 96
#define SYNTH_UNIT GST_MSECOND

struct _GstStageStoreSrc
{
  GstPushSrc parent;

  StageStore *store;
  StageStreamInfo *info;
  StageFrame *frames;           /* decode order */
  gsize n;                      /* packets */
  gsize n_frames;               /* frames: n - n_lead */
  gsize n_lead;                 /* decode-only packets (index < 0) */
  gsize *pos_of;                /* frame index -> decode position */
  gsize *raps;                  /* decode positions of RAPs */
  gsize n_raps;
  gboolean *open_rap;           /* per RAP: with leading pictures */
  gint8 *idr;                   /* per RAP: 1 IDR, 0 other, -1 not read */
  guint nal_length_size;
  gboolean frames_only;         /* H.264 with whole-frame pictures */
  gboolean skip_nonref;         /* and a decoder that copes: skip unwanted
                                 * non-reference pictures */
  StageSelect *select;
  guint64 divisor;              /* regular stride: S, else 1 */
  gboolean warn_missing;
  gboolean decode;
  GstCaps *caps;
  StageStoreReader *reader;
  /* H.264: a decode that starts at a keyframe that is not an IDR gets its
   * frame_num values lowered by `fn_shift` up to the next IDR (NULL: not
   * H.264; 0: no shift in this run). */
  StagePicOrder *fn_po;
  guint fn_shift;

  /* streaming state (the streaming thread only) */
  GBytes *block;                /* the bytes of packets [blk_first, blk_last] */
  gsize blk_first, blk_last;
  guint64 target;               /* smallest wanted index not yet out */
  gsize p;                      /* next packet to feed / consider */
  gsize run_start;
  gboolean run_active, fed;
  guint32 flush_seqnum;
  GstClockTime next_pts;        /* where the last kept frame ended */
  gboolean failed;              /* a frame was missing: error posted */
  guint64 out, missing;         /* under the object lock */
  guint64 skipped;              /* the same: packets left out */
};

G_DEFINE_TYPE_WITH_CODE (GstStageStoreSrc, gst_stage_store_src,
    GST_TYPE_PUSH_SRC,
    GST_DEBUG_CATEGORY_INIT (gst_stage_store_src_debug, "stagestoresrc", 0,
        "stagesrc's store reader"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

void
gst_stage_store_src_close (GstStageStoreSrc * self)
{
  g_clear_pointer (&self->reader, stage_store_reader_free);
  g_clear_pointer (&self->fn_po, stage_store_pic_order_free);
  g_clear_pointer (&self->block, g_bytes_unref);
  g_clear_pointer (&self->frames, g_free);
  g_clear_pointer (&self->pos_of, g_free);
  g_clear_pointer (&self->raps, g_free);
  g_clear_pointer (&self->open_rap, g_free);
  g_clear_pointer (&self->idr, g_free);
  g_clear_pointer (&self->info, stage_stream_info_free);
  g_clear_pointer (&self->store, stage_store_close);
  g_clear_pointer (&self->select, stage_select_free);
  gst_clear_caps (&self->caps);
  self->n = self->n_raps = self->n_frames = self->n_lead = 0;
}

void
gst_stage_store_src_allow_skipping (GstStageStoreSrc * self, gboolean allow)
{
  self->skip_nonref = allow && self->frames_only;
  GST_DEBUG_OBJECT (self, "unwanted non-reference pictures: %s",
      self->skip_nonref ? "skipped" : "fed");
}

/* RAPs of open GOPs: H.264 recovery-point I pictures and H.265 CRA
 * pictures with leading pictures (decoded after them, displayed before).
 * Decoding never starts at them: with GStreamer 1.26's gst-libav (FFmpeg
 * 7.1) and frame threads, a decode that starts at an H.265 CRA lost a
 * trailing picture now and then (frame 31 after the CRA at 30 in
 * test_exact_h265_open_gop, 1 run in 2). start_of() treats them like any
 * RAP that is not an IDR picture. */
static void
mark_open_raps (GstStageStoreSrc * self)
{
  gsize r, i;

  self->open_rap = g_new0 (gboolean, self->n_raps + 1);
  if (g_strcmp0 (self->info->codec, "h264") != 0
      && g_strcmp0 (self->info->codec, "h265") != 0)
    return;
  for (r = 0; r < self->n_raps; r++) {
    gsize end = r + 1 < self->n_raps ? self->raps[r + 1] : self->n;
    gint64 key = self->frames[self->raps[r]].index;

    for (i = self->raps[r] + 1; i < end && !self->open_rap[r]; i++)
      self->open_rap[r] = self->frames[i].index < key;
  }
}

/* The stream's NAL length size, from the caps' codec_data. */
static guint
caps_nal_length_size (GstCaps * caps, const gchar * codec)
{
  const GValue *v;
  GstBuffer *cd;
  GstMapInfo map;
  guint n;

  v = gst_structure_get_value (gst_caps_get_structure (caps, 0),
      "codec_data");
  if (v == NULL || !GST_VALUE_HOLDS_BUFFER (v))
    return stage_store_nal_length_size (codec, NULL, 0);
  cd = gst_value_get_buffer (v);
  if (!gst_buffer_map (cd, &map, GST_MAP_READ))
    return stage_store_nal_length_size (codec, NULL, 0);
  n = stage_store_nal_length_size (codec, map.data, map.size);
  gst_buffer_unmap (cd, &map);
  return n;
}

/* Indices past the end are refused here rather than silently never
 * reached: the catalog knows the count. A whole-stream read of an empty
 * stream is fine. */
static gboolean
check_selection (GstStageStoreSrc * self, GError ** error)
{
  guint64 first = stage_select_next (self->select, 0);
  guint64 last = stage_select_last (self->select);
  guint64 bad;

  if (last != STAGE_SELECT_NONE && last >= self->n_frames)
    bad = stage_select_next (self->select, self->n_frames);
  else if (first != STAGE_SELECT_NONE && first >= self->n_frames && first > 0)
    bad = first;
  else
    return TRUE;
  if (self->n_frames == 0)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Frame %" G_GUINT64_FORMAT " was asked for, but stream '%s' is "
        "empty (0 frames)", bad, self->info->name);
  else
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Frame %" G_GUINT64_FORMAT " is past the end of stream '%s': it has "
        "%" G_GSIZE_FORMAT " frames (indices 0 to %" G_GSIZE_FORMAT ")", bad,
        self->info->name, self->n_frames, self->n_frames - 1);
  return FALSE;
}

gboolean
gst_stage_store_src_open (GstStageStoreSrc * self, const gchar * store,
    const gchar * stream, StageSelect * select, gboolean decode,
    gboolean warn_missing, GError ** error)
{
  gsize i;

  gst_stage_store_src_close (self);
  self->select = select;
  self->decode = decode;
  self->warn_missing = warn_missing;
  if (!stage_select_regular (select, &self->divisor) || self->divisor < 1)
    self->divisor = 1;
  self->store = stage_store_open_read (store, error);
  if (self->store == NULL)
    goto fail;
  self->info = stage_store_lookup (self->store, stream, error);
  if (self->info == NULL)
    goto fail;
  self->frames = stage_store_load_frames (self->store, self->info, &self->n,
      error);
  if (self->frames == NULL)
    goto fail;
  self->n_lead = stage_store_count_decode_only (self->frames, self->n);
  self->n_frames = self->n - self->n_lead;
  self->pos_of = g_new (gsize, self->n + 1);
  for (i = 0; i < self->n; i++)
    self->pos_of[i] = G_MAXSIZE;
  self->raps = g_new (gsize, self->n + 1);
  for (i = 0; i < self->n; i++) {
    gint64 idx = self->frames[i].index;

    if (idx < 0 && idx >= -(gint64) self->n_lead && !self->frames[i].keyframe)
      continue;                 /* decode-only: no frame */
    if (idx < 0 || (gsize) idx >= self->n_frames
        || self->pos_of[idx] != G_MAXSIZE) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s': the frame index is corrupt (frame index "
          "%" G_GINT64_FORMAT " at decode position %" G_GSIZE_FORMAT ")",
          store, stream, idx, i);
      goto fail;
    }
    self->pos_of[idx] = i;
    if (self->frames[i].keyframe)
      self->raps[self->n_raps++] = i;
  }
  mark_open_raps (self);
  self->idr = g_new (gint8, self->n_raps + 1);
  memset (self->idr, -1, self->n_raps + 1);
  if (!check_selection (self, error))
    goto fail;
  if (self->info->caps && *self->info->caps)
    self->caps = gst_caps_from_string (self->info->caps);
  if (self->caps == NULL && self->info->kind == STAGE_STORE_KIND_VIDEO) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s', stream '%s': unreadable caps '%s' in the catalog",
        store, stream, self->info->caps);
    goto fail;
  }
  if (self->caps == NULL)
    self->caps = gst_caps_new_empty_simple ("application/octet-stream");
  if (gst_caps_get_size (self->caps) > 0)
    self->nal_length_size = caps_nal_length_size (self->caps,
        self->info->codec);
  self->reader = stage_store_reader_new (self->store, self->info);
  /* Pictures are whole frames (no field coding, where a non-reference
   * field completes a frame): checked on the stream's SPS. */
  if (g_strcmp0 (self->info->codec, "h264") == 0 && self->info->codec_data) {
    gsize len;
    const guint8 *cd = g_bytes_get_data (self->info->codec_data, &len);
    self->frames_only = stage_store_h264_frames_only (cd, len);
    self->fn_po = stage_store_pic_order_new ("h264", cd, len);
  }
  self->skip_nonref = FALSE;
  GST_DEBUG_OBJECT (self, "stream '%s': %" G_GSIZE_FORMAT " frames, %"
      G_GSIZE_FORMAT " decode-only packets, %" G_GSIZE_FORMAT " random "
      "access points", stream, self->n_frames, self->n_lead, self->n_raps);
  return TRUE;

fail:
  self->select = NULL;          /* the caller still owns it on failure */
  gst_stage_store_src_close (self);
  return FALSE;
}

const StageStreamInfo *
gst_stage_store_src_get_info (GstStageStoreSrc * self)
{
  return self->info;
}

guint64
gst_stage_store_src_get_out (GstStageStoreSrc * self)
{
  guint64 n;

  GST_OBJECT_LOCK (self);
  n = self->out;
  GST_OBJECT_UNLOCK (self);
  return n;
}

static gboolean
gst_stage_store_src_start (GstBaseSrc * src)
{
  GstStageStoreSrc *self = GST_STAGE_STORE_SRC (src);

  if (self->info == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("No stream open"), (NULL));
    return FALSE;
  }
  g_clear_pointer (&self->block, g_bytes_unref);
  self->target = stage_select_next (self->select, 0);
  self->p = 0;
  self->run_active = FALSE;
  self->fed = FALSE;
  self->flush_seqnum = GST_SEQNUM_INVALID;
  self->next_pts = self->n_frames > 0
      && self->frames[self->pos_of[0]].pts >= 0 ?
      (GstClockTime) self->frames[self->pos_of[0]].pts : GST_CLOCK_TIME_NONE;
  self->failed = FALSE;
  GST_OBJECT_LOCK (self);
  self->out = 0;
  self->skipped = 0;
  self->missing = 0;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_stage_store_src_stop (GstBaseSrc * src)
{
  GstStageStoreSrc *self = GST_STAGE_STORE_SRC (src);

  g_clear_pointer (&self->block, g_bytes_unref);
  return TRUE;
}

/* Frames are chosen by index with stagesrc's properties; a time seek
 * would also have to reset the decode state: not supported. */
static gboolean
gst_stage_store_src_is_seekable (GstBaseSrc * src)
{
  return FALSE;
}

static GstCaps *
gst_stage_store_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  GstStageStoreSrc *self = GST_STAGE_STORE_SRC (src);
  GstCaps *caps;

  GST_OBJECT_LOCK (self);
  caps = self->caps ? gst_caps_ref (self->caps) : gst_caps_new_any ();
  GST_OBJECT_UNLOCK (self);
  return gst_stage_caps_filter (caps, filter);
}

static gboolean
gst_stage_store_src_negotiate (GstBaseSrc * src)
{
  GstStageStoreSrc *self = GST_STAGE_STORE_SRC (src);

  return gst_base_src_set_caps (src, self->caps);
}

/* Whether RAP @r is an IDR picture, read from its packet once. Codecs
 * other than H.264/H.265 have only IDR-like keyframes. A packet that
 * cannot be read counts as not IDR (the decode read then reports it). */
static gboolean
rap_is_idr (GstStageStoreSrc * self, gsize r)
{
  GBytes *b;

  if (g_strcmp0 (self->info->codec, "h264") != 0
      && g_strcmp0 (self->info->codec, "h265") != 0)
    return TRUE;
  if (self->idr[r] < 0) {
    b = stage_store_reader_read (self->reader, self->frames, self->raps[r],
        self->raps[r], NULL);
    if (b) {
      gsize len;
      const guint8 *data = g_bytes_get_data (b, &len);

      self->idr[r] = stage_store_is_idr (self->info->codec, data, len,
          self->nal_length_size);
      g_bytes_unref (b);
    } else {
      self->idr[r] = 0;
    }
  }
  return self->idr[r] == 1;
}

/* Where to start decoding for the target: the last RAP at or before the
 * target's packet that is not displayed after it (a RAP's leading
 * pictures, displayed before it, need the previous interval), entered
 * directly when it is an IDR picture without leading pictures, else from
 * the RAP before it. 0 when there is none: then, like a full decode,
 * start at the first packet. */
static gsize
start_of (GstStageStoreSrc * self, guint64 target)
{
  gsize q = self->pos_of[target], lo = 0, hi = self->n_raps;

  while (lo < hi) {             /* first RAP > q */
    gsize mid = (lo + hi) / 2;

    if (self->raps[mid] <= q)
      lo = mid + 1;
    else
      hi = mid;
  }
  while (lo > 0) {
    gsize r = self->raps[lo - 1];

    if ((guint64) self->frames[r].index <= target) {
      if (self->open_rap[lo - 1] || !rap_is_idr (self, lo - 1))
        return lo >= 2 ? self->raps[lo - 2] : 0;
      return r;
    }
    lo--;
  }
  return 0;
}

gboolean
gst_stage_store_src_starts_at_h265_cra (GstStageStoreSrc * self)
{
  guint64 first;

  if (self->info == NULL || g_strcmp0 (self->info->codec, "h265") != 0
      || self->n_raps == 0 || rap_is_idr (self, 0))
    return FALSE;
  first = stage_select_next (self->select, 0);
  /* targets rise, and so do their runs' starts: the first one tells */
  return first != STAGE_SELECT_NONE && first < self->n_frames
      && start_of (self, first) == self->raps[0];
}

/* Makes self->block hold packet @p: decoded reads take the keyframe
 * interval from @p to the next RAP (or the chunk end) in one read. */
static gboolean
load_block (GstStageStoreSrc * self, gsize p, GError ** error)
{
  gsize last = p;

  if (self->block && p >= self->blk_first && p <= self->blk_last)
    return TRUE;
  g_clear_pointer (&self->block, g_bytes_unref);
  if (self->decode && self->info->kind == STAGE_STORE_KIND_VIDEO) {
    while (last + 1 < self->n && !self->frames[last + 1].keyframe
        && self->frames[last + 1].chunk == self->frames[p].chunk)
      last++;
  }
  self->block = stage_store_reader_read (self->reader, self->frames, p, last,
      error);
  self->blk_first = p;
  self->blk_last = last;
  return self->block != NULL;
}

/* Packet @p's bytes (frames[p].size of them) in the loaded block; NULL
 * when the block cannot be read. */
static const guint8 *
packet_data (GstStageStoreSrc * self, gsize p, GError ** error)
{
  if (!load_block (self, p, error))
    return NULL;
  return (const guint8 *) g_bytes_get_data (self->block, NULL) +
      (self->frames[p].offset - self->frames[self->blk_first].offset);
}

static GstBuffer *
packet_buffer (GstStageStoreSrc * self, gsize p, GError ** error)
{
  const StageFrame *f = &self->frames[p];
  const guint8 *data = packet_data (self, p, error);
  GstBuffer *buf;

  if (data == NULL)
    return NULL;
  buf = gst_buffer_new ();
  if (f->size > 0) {
    gsize len;
    const guint8 *block = g_bytes_get_data (self->block, &len);

    /* the whole block, at the packet's offset: the bytes after it are
     * the padding a decoder wants (gst-libav copies a packet without) */
    gst_buffer_append_memory (buf,
        gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY, (gpointer) block,
            len, data - block, f->size, g_bytes_ref (self->block),
            (GDestroyNotify) g_bytes_unref));
  }
  if (!f->keyframe)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  return buf;
}

static void
set_stored_times (GstStageStoreSrc * self, GstBuffer * buf, gsize p,
    gboolean with_dts)
{
  const StageFrame *f = &self->frames[p];

  GST_BUFFER_PTS (buf) = f->pts >= 0 ? (GstClockTime) f->pts :
      GST_CLOCK_TIME_NONE;
  GST_BUFFER_DTS (buf) = with_dts && f->dts >= 0 ? (GstClockTime) f->dts :
      GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = f->duration >= 0 ?
      (GstClockTime) f->duration : GST_CLOCK_TIME_NONE;
  GST_BUFFER_OFFSET (buf) = f->index;
  GST_BUFFER_OFFSET_END (buf) = f->index + 1;
}

static GstFlowReturn
read_error (GstStageStoreSrc * self, GError * err)
{
  self->failed = TRUE;          /* the frames after it are not "missing" */
  GST_ELEMENT_ERROR (self, RESOURCE, READ, ("%s", err->message), (NULL));
  g_error_free (err);
  return GST_FLOW_ERROR;
}

/* A decode starts at packet @p, a keyframe by the catalog: unless its
 * bytes say so too (a damaged flag), the decoder would give wrong
 * pictures without a word. Checked as stage-store verify does. */
static gboolean
check_run_start (GstStageStoreSrc * self, gsize p)
{
  GError *err = NULL;

  if (stage_store_check_keyframe (self->store, self->info, self->frames, p,
          packet_data (self, p, NULL), self->frames[p].size, &err))
    return TRUE;
  self->failed = TRUE;
  GST_ELEMENT_ERROR (self, STREAM, DECODE, ("%s", err->message),
      ("decoding would start at this packet; 'stage-store verify' checks "
          "every keyframe flag of the stream"));
  g_error_free (err);
  return FALSE;
}

/* Packets and blobs: the selected ones in write order. */
static GstFlowReturn
create_packet (GstStageStoreSrc * self, GstBuffer ** outbuf)
{
  GError *err = NULL;
  GstBuffer *buf;
  gsize p, prev = self->p;

  if (self->info->kind == STAGE_STORE_KIND_BYTES) {
    /* write order is index order: jump straight to the next one */
    guint64 next = stage_select_next (self->select, self->p);

    if (next == STAGE_SELECT_NONE || next >= self->n)
      return GST_FLOW_EOS;
    p = next;
  } else {
    /* decode-only packets are no frame: never selected */
    for (p = self->p; p < self->n; p++)
      if (self->frames[p].index >= 0
          && stage_select_keep (self->select, self->frames[p].index))
        break;
    if (p >= self->n)
      return GST_FLOW_EOS;
  }
  self->p = p + 1;
  buf = packet_buffer (self, p, &err);
  if (buf == NULL)
    return read_error (self, err);
  set_stored_times (self, buf, p, TRUE);
  if (p != prev)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  GST_OBJECT_LOCK (self);
  self->out++;
  GST_OBJECT_UNLOCK (self);
  *outbuf = buf;
  return GST_FLOW_OK;
}

/* A fresh decoder state before a new interval: flush it. The flushes
 * carry our seqnum; stagesrc keeps them from going further. */
static void
flush_decoder (GstStageStoreSrc * self)
{
  GstPad *pad = GST_BASE_SRC_PAD (self);
  GstEvent *ev;
  GstSegment seg;

  self->flush_seqnum = gst_util_seqnum_next ();
  ev = gst_event_new_flush_start ();
  gst_event_set_seqnum (ev, self->flush_seqnum);
  gst_pad_push_event (pad, ev);
  ev = gst_event_new_flush_stop (FALSE);
  gst_event_set_seqnum (ev, self->flush_seqnum);
  gst_pad_push_event (pad, ev);
  /* the flush dropped the segment on our pad and the decoder's */
  gst_segment_init (&seg, GST_FORMAT_TIME);
  ev = gst_event_new_segment (&seg);
  gst_event_set_seqnum (ev, self->flush_seqnum);
  gst_pad_push_event (pad, ev);
}

/* Selected frames [target, @upto) will not come out of the decoder:
 * an error, or with on-missing=warn a warning and the count. FALSE when
 * it was an error. */
static gboolean
report_missing (GstStageStoreSrc * self, guint64 upto, const gchar * why)
{
  guint64 t = self->target, first = t, last = t, k = 0;
  gchar *what;

  for (; t != STAGE_SELECT_NONE && t < upto && t < self->n_frames;
      t = stage_select_next (self->select, t + 1)) {
    last = t;
    k++;
  }
  self->target = t;
  if (k == 0)
    return TRUE;
  what = k == 1 ? g_strdup_printf ("Frame %" G_GUINT64_FORMAT, first) :
      g_strdup_printf ("%" G_GUINT64_FORMAT " selected frames (%"
      G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ")", k, first, last);
  if (!self->warn_missing) {
    GST_ELEMENT_ERROR (self, STREAM, DECODE,
        ("%s of stream '%s' could not be decoded: %s", what,
            self->info->name, why),
        ("set on-missing=warn to go on without them"));
    self->failed = TRUE;
  } else {
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("%s of stream '%s' could not be decoded: %s; skipped", what,
            self->info->name, why), (NULL));
    GST_OBJECT_LOCK (self);
    self->missing += k;
    GST_OBJECT_UNLOCK (self);
  }
  g_free (what);
  return self->warn_missing;
}

/* Whether packet @p need not be decoded: not selected, and a picture no
 * other picture refers to (stage_store_is_disposable). A packet that
 * cannot be read is fed: the decoder's read reports it. */
static gboolean
skippable (GstStageStoreSrc * self, gsize p)
{
  const StageFrame *f = &self->frames[p];
  const guint8 *data;

  if (!self->skip_nonref || f->index < 0
      || stage_select_keep (self->select, f->index)
      || !(data = packet_data (self, p, NULL)))
    return FALSE;
  return stage_store_is_disposable (self->info->codec, data, f->size,
      self->nal_length_size);
}

/* FFmpeg takes the frame_num values before the first picture it gets as
 * lost and makes concealment pictures for them when that picture is an
 * H.264 I picture that is not an IDR; gst-libav 1.24 and later give each
 * such picture the packet's own frame and release it when FFmpeg frees
 * one, so the picture is lost (docs/store.md). A run that starts at such a
 * keyframe is fed with frame_num lowered to 0 there, up to the next IDR:
 * the same pictures (references between pictures are relative), no gap.
 * Returns `buf`, or its shifted copy. */
static GstBuffer *
shift_frame_num (GstStageStoreSrc * self, gsize p, GstBuffer * buf)
{
  const guint8 *data;
  gsize size = self->frames[p].size;
  guint fnum = 0;
  gboolean idr = FALSE, known;
  GBytes *shifted;
  GstBuffer *out;

  /* Parsed only at a run's start and while a shift lasts: an IDR-started
   * run (nearly every read) costs no bitstream walk a packet. */
  if (!self->fn_po || (p != self->run_start && self->fn_shift == 0)
      || !(data = packet_data (self, p, NULL)))
    return buf;
  known = stage_store_h264_frame_num (self->fn_po, data, size, &fnum, &idr);
  if (p == self->run_start)
    self->fn_shift = known && !idr ? fnum : 0;
  else if (known && idr)
    self->fn_shift = 0;
  if (self->fn_shift == 0)
    return buf;
  shifted = stage_store_h264_shift_frame_num (self->fn_po, data, size,
      self->fn_shift);
  if (!shifted) {
    GST_DEBUG_OBJECT (self, "packet %" G_GSIZE_FORMAT ": frame_num not "
        "found, fed as stored", p);
    self->fn_shift = 0;
    return buf;
  }
  out = gst_buffer_new_wrapped_bytes (shifted);
  g_bytes_unref (shifted);
  GST_BUFFER_FLAGS (out) = GST_BUFFER_FLAGS (buf);
  gst_buffer_unref (buf);
  return out;
}

static GstFlowReturn
create_decoded (GstStageStoreSrc * self, GstBuffer ** outbuf)
{
  GError *err = NULL;
  GstBuffer *buf;
  guint64 t;
  gsize s, q;

  for (;;) {
    if (self->failed)
      return GST_FLOW_ERROR;
    t = self->target;
    if (t == STAGE_SELECT_NONE || t >= self->n_frames)
      return GST_FLOW_EOS;
    q = self->pos_of[t];
    if (self->run_active && self->p > q + LOST_AFTER) {
      report_missing (self, t + 1, "the decoder gave no picture for it");
      continue;
    }
    break;
  }
  s = start_of (self, t);
  if (!self->run_active || s > self->p || s < self->run_start) {
    if (self->fed)
      flush_decoder (self);
    GST_DEBUG_OBJECT (self, "target %" G_GUINT64_FORMAT ": decoding from "
        "packet %" G_GSIZE_FORMAT " (packet of target: %" G_GSIZE_FORMAT ")",
        t, s, q);
    self->run_start = s;
    self->p = s;
    self->run_active = TRUE;
  }
  /* A picture nothing refers to and nobody asked for is not decoded at
   * all. (The lost-frame check above counts packets, skipped ones too:
   * at most two in three are skippable, so LOST_AFTER still leaves the
   * decoder more packets than any reorder depth.) */
  while (self->p < self->n && self->p != self->run_start
      && skippable (self, self->p)) {
    self->p++;
    GST_OBJECT_LOCK (self);
    self->skipped++;
    GST_OBJECT_UNLOCK (self);
  }
  if (self->p >= self->n)
    return GST_FLOW_EOS;        /* the decoder drains the rest */
  buf = packet_buffer (self, self->p, &err);
  if (buf == NULL)
    return read_error (self, err);
  if (self->p == self->run_start && !check_run_start (self, self->p)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  buf = shift_frame_num (self, self->p, buf);
  /* decode-only packets take the synthetic times before frame 0's */
  GST_BUFFER_PTS (buf) = (self->frames[self->p].index + self->n_lead) *
      SYNTH_UNIT;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = SYNTH_UNIT;
  if (self->frames[self->p].index >= 0)
    GST_BUFFER_OFFSET (buf) = self->frames[self->p].index;
  else
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DECODE_ONLY);
  if (self->p == self->run_start)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  self->p++;
  self->fed = TRUE;
  *outbuf = buf;
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_stage_store_src_create (GstPushSrc * src, GstBuffer ** outbuf)
{
  GstStageStoreSrc *self = GST_STAGE_STORE_SRC (src);

  if (self->decode && self->info->kind == STAGE_STORE_KIND_VIDEO)
    return create_decoded (self, outbuf);
  return create_packet (self, outbuf);
}

/* The selectors' timing on a kept frame: a regular stride of S lasts S
 * frames and is frame index / S of the output; a hole before the frame
 * (an irregular selection) becomes a GAP event. */
static void
retime (GstStageStoreSrc * self, GstBuffer * buf, GstEvent ** gap)
{
  GstClockTime pts = GST_BUFFER_PTS (buf), dur = GST_BUFFER_DURATION (buf);

  if (self->divisor > 1) {
    if (GST_CLOCK_TIME_IS_VALID (dur))
      GST_BUFFER_DURATION (buf) = dur = dur * self->divisor;
    GST_BUFFER_OFFSET (buf) /= self->divisor;
    GST_BUFFER_OFFSET_END (buf) = GST_BUFFER_OFFSET (buf) + 1;
  }
  if (GST_CLOCK_TIME_IS_VALID (pts)
      && GST_CLOCK_TIME_IS_VALID (self->next_pts)
      && pts > self->next_pts + GST_MSECOND)
    *gap = gst_event_new_gap (self->next_pts, pts - self->next_pts);
  if (GST_CLOCK_TIME_IS_VALID (pts) && GST_CLOCK_TIME_IS_VALID (dur))
    self->next_pts = pts + dur;
}

gboolean
gst_stage_store_src_output (GstStageStoreSrc * self, GstBuffer ** buf,
    GstEvent ** gap)
{
  GstClockTime pts = GST_BUFFER_PTS (*buf);
  guint64 d;

  *gap = NULL;
  if (!GST_CLOCK_TIME_IS_VALID (pts) || self->failed)
    return FALSE;
  d = (pts + SYNTH_UNIT / 2) / SYNTH_UNIT;
  if (d < self->n_lead)
    return FALSE;               /* a decode-only packet's picture */
  d -= self->n_lead;
  if (d >= self->n_frames || self->target == STAGE_SELECT_NONE
      || d < self->target
      || !stage_select_keep (self->select, d))
    return FALSE;
  if (d > self->target && !report_missing (self, d, "the decoder dropped "
          "it (corrupt or undecodable data)"))
    return FALSE;
  self->target = stage_select_next (self->select, d + 1);
  *buf = gst_buffer_make_writable (*buf);
  set_stored_times (self, *buf, self->pos_of[d], FALSE);
  retime (self, *buf, gap);
  GST_OBJECT_LOCK (self);
  self->out++;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

gboolean
gst_stage_store_src_finish (GstStageStoreSrc * self)
{
  if (self->failed || self->info == NULL)
    return !self->failed;
  return report_missing (self, G_MAXUINT64, "the decoder ended before "
      "giving it");
}

gboolean
gst_stage_store_src_failed (GstStageStoreSrc * self)
{
  return self->failed;
}

guint64
gst_stage_store_src_get_missing (GstStageStoreSrc * self)
{
  guint64 n;

  GST_OBJECT_LOCK (self);
  n = self->missing;
  GST_OBJECT_UNLOCK (self);
  return n;
}

gboolean
gst_stage_store_src_is_internal (GstStageStoreSrc * self, GstEvent * event)
{
  return self->flush_seqnum != GST_SEQNUM_INVALID
      && gst_event_get_seqnum (event) == self->flush_seqnum;
}

static void
gst_stage_store_src_finalize (GObject * object)
{
  gst_stage_store_src_close (GST_STAGE_STORE_SRC (object));
  G_OBJECT_CLASS (gst_stage_store_src_parent_class)->finalize (object);
}

static void
gst_stage_store_src_class_init (GstStageStoreSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *pushsrc_class = GST_PUSH_SRC_CLASS (klass);

  gobject_class->finalize = gst_stage_store_src_finalize;
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Stage store reader", "Source", "Reads packets or blobs of a stored "
      "stream (internal to stagesrc)", "gst-stages");
  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_stage_store_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_stage_store_src_stop);
  basesrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_stage_store_src_get_caps);
  basesrc_class->is_seekable =
      GST_DEBUG_FUNCPTR (gst_stage_store_src_is_seekable);
  basesrc_class->negotiate = GST_DEBUG_FUNCPTR (gst_stage_store_src_negotiate);
  pushsrc_class->create = GST_DEBUG_FUNCPTR (gst_stage_store_src_create);
}

static void
gst_stage_store_src_init (GstStageStoreSrc * self)
{
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_live (GST_BASE_SRC (self), FALSE);
}

guint64
gst_stage_store_src_get_skipped (GstStageStoreSrc * self)
{
  guint64 n;

  GST_OBJECT_LOCK (self);
  n = self->skipped;
  GST_OBJECT_UNLOCK (self);
  return n;
}
