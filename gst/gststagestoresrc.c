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
 * The decoder sees synthetic timestamps (the frame index in ms) so that
 * its output names each frame's index whatever the stored timestamps are;
 * the stored ones are put back on output.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagestoresrc.h"
#include "gststageutil.h"

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
  gsize n;
  gsize *pos_of;                /* frame index -> decode position */
  gsize *raps;                  /* decode positions of RAPs */
  gsize n_raps;
  gboolean *open_rap;           /* per RAP: with leading pictures */
  StageSelect *select;
  gboolean decode;
  GstCaps *caps;
  StageStoreReader *reader;

  /* streaming state (the streaming thread only) */
  GBytes *block;                /* the bytes of packets [blk_first, blk_last] */
  gsize blk_first, blk_last;
  guint64 target;               /* smallest wanted index not yet out */
  gsize p;                      /* next packet to feed / consider */
  gsize run_start;
  gboolean run_active, fed;
  guint32 flush_seqnum;
  guint64 out;                  /* under the object lock */
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
  g_clear_pointer (&self->block, g_bytes_unref);
  g_clear_pointer (&self->frames, g_free);
  g_clear_pointer (&self->pos_of, g_free);
  g_clear_pointer (&self->raps, g_free);
  g_clear_pointer (&self->open_rap, g_free);
  g_clear_pointer (&self->info, stage_stream_info_free);
  g_clear_pointer (&self->store, stage_store_close);
  g_clear_pointer (&self->select, stage_select_free);
  gst_clear_caps (&self->caps);
  self->n = self->n_raps = 0;
}

/* RAPs of open GOPs: H.264 recovery-point I pictures and H.265 CRA
 * pictures with leading pictures (decoded after them, displayed before).
 * libav drops such an H.264 I picture from its output when decoding starts
 * at it with one thread (with frame threads it does not). With GStreamer
 * 1.26's gst-libav (Debian 13: 1.26.2, FFmpeg 7.1) and frame threads, a
 * decode that starts at an H.265 CRA loses a trailing picture now and then
 * (frame 31 after the CRA at 30 in test_exact_h265_open_gop, 1 run in 2;
 * 1.22 and 1.28 never did). So decoding starts one RAP earlier for them
 * and reaches them in stream, as a full decode does. */
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

gboolean
gst_stage_store_src_open (GstStageStoreSrc * self, const gchar * store,
    const gchar * stream, StageSelect * select, gboolean decode,
    GError ** error)
{
  gsize i;

  gst_stage_store_src_close (self);
  self->select = select;
  self->decode = decode;
  self->store = stage_store_open (store, FALSE, error);
  if (self->store == NULL)
    goto fail;
  self->info = stage_store_lookup (self->store, stream, error);
  if (self->info == NULL)
    goto fail;
  self->frames = stage_store_load_frames (self->store, self->info, &self->n,
      error);
  if (self->frames == NULL)
    goto fail;
  self->pos_of = g_new (gsize, self->n + 1);
  for (i = 0; i < self->n; i++)
    self->pos_of[i] = G_MAXSIZE;
  self->raps = g_new (gsize, self->n + 1);
  for (i = 0; i < self->n; i++) {
    gint64 idx = self->frames[i].index;

    if (idx < 0 || (gsize) idx >= self->n || self->pos_of[idx] != G_MAXSIZE) {
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
  self->reader = stage_store_reader_new (self->store, self->info);
  GST_DEBUG_OBJECT (self, "stream '%s': %" G_GSIZE_FORMAT " frames, %"
      G_GSIZE_FORMAT " random access points", stream, self->n, self->n_raps);
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
  GST_OBJECT_LOCK (self);
  self->out = 0;
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

/* The last RAP at or before the target's packet that is not displayed
 * after it (a RAP's leading pictures, displayed before it, need the
 * previous interval). 0 when there is none: then, like a full decode,
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
      if (self->open_rap[lo - 1])
        return lo >= 2 ? self->raps[lo - 2] : 0;
      return r;
    }
    lo--;
  }
  return 0;
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

static GstBuffer *
packet_buffer (GstStageStoreSrc * self, gsize p, GError ** error)
{
  const StageFrame *f = &self->frames[p];
  GstBuffer *buf;
  gsize off;

  if (!load_block (self, p, error))
    return NULL;
  off = f->offset - self->frames[self->blk_first].offset;
  buf = gst_buffer_new ();
  if (f->size > 0) {
    gsize len;
    gpointer data = (gpointer) g_bytes_get_data (self->block, &len);

    gst_buffer_append_memory (buf,
        gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY, data, len, off,
            f->size, g_bytes_ref (self->block),
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
  GST_ELEMENT_ERROR (self, RESOURCE, READ, ("%s", err->message), (NULL));
  g_error_free (err);
  return GST_FLOW_ERROR;
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
    for (p = self->p; p < self->n; p++)
      if (stage_select_keep (self->select, self->frames[p].index))
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

static GstFlowReturn
create_decoded (GstStageStoreSrc * self, GstBuffer ** outbuf)
{
  GError *err = NULL;
  GstBuffer *buf;
  guint64 t;
  gsize s, q;

  for (;;) {
    t = self->target;
    if (t == STAGE_SELECT_NONE || t >= self->n)
      return GST_FLOW_EOS;
    q = self->pos_of[t];
    if (self->run_active && self->p > q + LOST_AFTER) {
      GST_ELEMENT_WARNING (self, STREAM, DECODE,
          ("Frame %" G_GUINT64_FORMAT " of stream '%s' did not come out of "
              "the decoder; skipping it", t, self->info->name), (NULL));
      self->target = stage_select_next (self->select, t + 1);
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
  if (self->p >= self->n)
    return GST_FLOW_EOS;        /* the decoder drains the rest */
  buf = packet_buffer (self, self->p, &err);
  if (buf == NULL)
    return read_error (self, err);
  GST_BUFFER_PTS (buf) = self->frames[self->p].index * SYNTH_UNIT;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = SYNTH_UNIT;
  GST_BUFFER_OFFSET (buf) = self->frames[self->p].index;
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

gdouble
gst_stage_store_src_mean_run (GstStageStoreSrc * self)
{
  guint64 t = stage_select_next (self->select, 0);
  gsize runs = 0, packets = 0, start = 0, end = 0;
  gboolean active = FALSE;

  /* the plan of create_decoded(), without the decoder: a run continues
   * while the next target's interval starts within what it has fed */
  for (; t != STAGE_SELECT_NONE && t < self->n;
      t = stage_select_next (self->select, t + 1)) {
    gsize s = start_of (self, t), q = self->pos_of[t];

    if (!active || s > end || s < start) {
      if (active)
        packets += end - start;
      runs++;
      start = s;
      end = s;
      active = TRUE;
    }
    end = MAX (end, q + 1);
  }
  if (active)
    packets += end - start;
  return runs ? (gdouble) packets / runs : 0.0;
}

gboolean
gst_stage_store_src_output (GstStageStoreSrc * self, GstBuffer ** buf)
{
  GstClockTime pts = GST_BUFFER_PTS (*buf);
  guint64 d;

  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return FALSE;
  d = (pts + SYNTH_UNIT / 2) / SYNTH_UNIT;
  if (d >= self->n || self->target == STAGE_SELECT_NONE || d < self->target
      || !stage_select_keep (self->select, d))
    return FALSE;
  if (d > self->target)
    GST_WARNING_OBJECT (self, "frame %" G_GUINT64_FORMAT " did not come out "
        "of the decoder", self->target);
  self->target = stage_select_next (self->select, d + 1);
  *buf = gst_buffer_make_writable (*buf);
  set_stored_times (self, *buf, self->pos_of[d], FALSE);
  GST_OBJECT_LOCK (self);
  self->out++;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
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
