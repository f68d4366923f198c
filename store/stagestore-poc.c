/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Presentation order from the bitstream: the picture order count (POC)
 * of each H.264 / H.265 access unit, as a decoder derives it.
 *
 * Decoders output pictures in POC order within a coded video sequence,
 * and sequences one after the other, whatever timestamps the packets
 * carry. The store numbers frames by their timestamps, so timestamps a
 * demuxer or parser got wrong (GStreamer 1.22's h265parse after tsdemux
 * gives each packet the previous one's) number frames other than a decode
 * outputs them. The writer and verify compare the two orders with this.
 *
 * Only what is followed exactly is told: H.264 frame pictures with POC
 * type 0 or 2 (field pictures, POC type 1 and slice groups are not), H.265
 * without pic_output_flag. Anything else, or a damaged unit, makes the
 * parser give up for the rest of the stream: the caller then trusts the
 * timestamps, as before. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "stagestore.h"
#include "stagestore-bits.h"

#include <string.h>

typedef struct
{
  gboolean valid;
  guint log2_max_frame_num, poc_type, log2_max_poc_lsb;
  gboolean frame_mbs_only, separate_colour_plane;
  guint chroma_array_type;
} Sps;

typedef struct
{
  gboolean valid;
  guint sps;
  /* H.264 */
  gboolean bottom_poc_present, weighted_pred, redundant_cnt_present;
  guint weighted_bipred, num_ref_l0, num_ref_l1;
  /* H.265 */
  gboolean output_flag_present, dependent_slices;
  guint extra_slice_header_bits;
} Pps;

struct StagePicOrder
{
  gboolean h265, failed;
  guint nls;
  Sps sps[32];
  Pps pps[256];
  gint64 seq;                   /* coded video sequences (or POC resets) */
  gint64 prev_msb, prev_lsb;    /* H.264: of the previous reference pic;
                                 * H.265: of prevTid0Pic */
  gint64 count;                 /* H.264 POC type 2: decode order */
  gboolean started, after_eos;
};

/* ---- H.264 ---- */

static gboolean
skip_scaling_list (BitReader * br, guint size)
{
  gint64 last = 8, next = 8, delta;
  guint j;

  for (j = 0; j < size; j++) {
    if (next != 0) {
      if (!br_se (br, &delta))
        return FALSE;
      next = (last + delta + 256) % 256;
    }
    last = next == 0 ? last : next;
  }
  return TRUE;
}

static gboolean
h264_sps (StagePicOrder * po, const guint8 * nal, gsize len)
{
  BitReader br;
  gint64 profile, id, v;
  Sps s = { 0 };
  guint i;

  br_init (&br, nal + 1, len - 1);
  profile = br_bits (&br, 8);
  br_bits (&br, 16);
  id = br_ue (&br);
  if (profile < 0 || id < 0 || id > 31)
    return FALSE;
  s.chroma_array_type = 1;
  if (profile == 100 || profile == 110 || profile == 122 || profile == 244
      || profile == 44 || profile == 83 || profile == 86 || profile == 118
      || profile == 128 || profile == 138 || profile == 139 || profile == 134
      || profile == 135) {
    gint64 chroma = br_ue (&br);

    if (chroma < 0)
      return FALSE;
    s.chroma_array_type = chroma;
    if (chroma == 3 && (s.separate_colour_plane = br_bit (&br)) != 0)
      s.chroma_array_type = 0;
    if (br_ue (&br) < 0 || br_ue (&br) < 0 || br_bit (&br) < 0)
      return FALSE;
    if ((v = br_bit (&br)) < 0)
      return FALSE;
    for (i = 0; v && i < (chroma != 3 ? 8u : 12u); i++) {
      gint64 present = br_bit (&br);

      if (present < 0 || (present && !skip_scaling_list (&br, i < 6 ? 16 :
                  64)))
        return FALSE;
    }
  }
  if ((v = br_ue (&br)) < 0 || v > 12)
    return FALSE;
  s.log2_max_frame_num = v + 4;
  if ((v = br_ue (&br)) < 0)
    return FALSE;
  s.poc_type = v;
  if (v == 0) {
    if ((v = br_ue (&br)) < 0 || v > 12)
      return FALSE;
    s.log2_max_poc_lsb = v + 4;
  } else if (v != 2) {
    return FALSE;               /* type 1: not followed */
  }
  if (br_ue (&br) < 0 || br_bit (&br) < 0 || br_ue (&br) < 0
      || br_ue (&br) < 0)
    return FALSE;
  if ((v = br_bit (&br)) < 0)
    return FALSE;
  s.frame_mbs_only = v;
  s.valid = TRUE;
  po->sps[id] = s;
  return TRUE;
}

static gboolean
h264_pps (StagePicOrder * po, const guint8 * nal, gsize len)
{
  BitReader br;
  gint64 id, sps, v, s;
  Pps p = { 0 };

  br_init (&br, nal + 1, len - 1);
  id = br_ue (&br);
  sps = br_ue (&br);
  if (id < 0 || id > 255 || sps < 0 || sps > 31 || br_bit (&br) < 0)
    return FALSE;
  p.sps = sps;
  p.bottom_poc_present = br_bit (&br) == 1;
  if (br_ue (&br) != 0)
    return FALSE;               /* slice groups (or damaged) */
  if ((v = br_ue (&br)) < 0 || v > 31)
    return FALSE;
  p.num_ref_l0 = v + 1;
  if ((v = br_ue (&br)) < 0 || v > 31)
    return FALSE;
  p.num_ref_l1 = v + 1;
  p.weighted_pred = br_bit (&br) == 1;
  if ((v = br_bits (&br, 2)) < 0)
    return FALSE;
  p.weighted_bipred = v;
  if (!br_se (&br, &s) || !br_se (&br, &s) || !br_se (&br, &s)
      || br_bit (&br) < 0 || br_bit (&br) < 0 || (v = br_bit (&br)) < 0)
    return FALSE;
  p.redundant_cnt_present = v;
  p.valid = TRUE;
  po->pps[id] = p;
  return TRUE;
}

static gboolean
skip_list_modification (BitReader * br)
{
  gint64 flag = br_bit (br), idc;
  guint n = 0;

  if (flag <= 0)
    return flag == 0;
  do {
    if ((idc = br_ue (br)) < 0 || idc > 5 || ++n > 100)
      return FALSE;
    if (idc != 3 && br_ue (br) < 0)
      return FALSE;
  } while (idc != 3);
  return TRUE;
}

static gboolean
skip_weights (BitReader * br, guint refs, guint chroma)
{
  gint64 v;
  guint i, k;

  for (i = 0; i < refs; i++) {
    gint64 f = br_bit (br);

    if (f < 0 || (f && (!br_se (br, &v) || !br_se (br, &v))))
      return FALSE;
    if (chroma == 0)
      continue;
    if ((f = br_bit (br)) < 0)
      return FALSE;
    for (k = 0; f && k < 4; k++)
      if (!br_se (br, &v))
        return FALSE;
  }
  return TRUE;
}

/* Reads dec_ref_pic_marking(): whether it holds an MMCO 5 (every
 * reference dropped, POC restarts after this picture). -1: damaged. */
static gint
h264_mmco5 (BitReader * br, gboolean idr)
{
  gint64 op;
  gboolean five = FALSE;
  guint n = 0;

  if (idr)
    return br_bits (br, 2) < 0 ? -1 : 0;
  if ((op = br_bit (br)) <= 0)
    return op < 0 ? -1 : 0;
  while ((op = br_ue (br)) != 0) {
    if (op < 0 || op > 6 || ++n > 100)
      return -1;
    five |= op == 5;
    if ((op == 1 || op == 3 || op == 2 || op == 6 || op == 4)
        && br_ue (br) < 0)
      return -1;
    if (op == 3 && br_ue (br) < 0)
      return -1;
  }
  return five;
}

/* The first slice of a picture (NAL type 1 or 5): its POC key. */
static gboolean
h264_slice (StagePicOrder * po, const guint8 * nal, gsize len, gint64 * key)
{
  BitReader br;
  gboolean idr = (nal[0] & 0x1f) == 5, ref = (nal[0] & 0x60) != 0;
  gint64 type, pps_id, lsb = 0, msb, top, poc, v, delta = 0;
  guint l0, l1;
  gint five;
  const Sps *s;
  const Pps *p;

  br_init (&br, nal + 1, len - 1);
  br_ue (&br);
  type = br_ue (&br);
  pps_id = br_ue (&br);
  if (type < 0 || pps_id < 0 || pps_id > 255 || !po->pps[pps_id].valid)
    return FALSE;
  type %= 5;
  p = &po->pps[pps_id];
  s = &po->sps[p->sps];
  if (!s->valid || (s->separate_colour_plane && br_bits (&br, 2) < 0)
      || br_bits (&br, s->log2_max_frame_num) < 0)
    return FALSE;
  if (!s->frame_mbs_only && br_bit (&br) != 0)
    return FALSE;               /* a field picture: not followed */
  if (idr && br_ue (&br) < 0)
    return FALSE;
  if (s->poc_type == 0) {
    if ((lsb = br_bits (&br, s->log2_max_poc_lsb)) < 0)
      return FALSE;
    if (p->bottom_poc_present && !br_se (&br, &delta))
      return FALSE;
  }
  if (p->redundant_cnt_present && br_ue (&br) != 0)
    return FALSE;               /* a redundant picture first: damaged */
  if (type == 1 && br_bit (&br) < 0)
    return FALSE;
  l0 = p->num_ref_l0;
  l1 = p->num_ref_l1;
  if (type == 0 || type == 1 || type == 3) {
    if ((v = br_bit (&br)) < 0)
      return FALSE;
    if (v) {
      gint64 a = br_ue (&br), b = type == 1 ? br_ue (&br) : 0;

      if (a < 0 || a > 31 || b < 0 || b > 31)
        return FALSE;
      l0 = a + 1;
      l1 = b + 1;
    }
  }
  if (type != 2 && type != 4 && !skip_list_modification (&br))
    return FALSE;
  if (type == 1 && !skip_list_modification (&br))
    return FALSE;
  if ((p->weighted_pred && (type == 0 || type == 3))
      || (p->weighted_bipred == 1 && type == 1)) {
    if (br_ue (&br) < 0 || (s->chroma_array_type && br_ue (&br) < 0)
        || !skip_weights (&br, l0, s->chroma_array_type)
        || (type == 1 && !skip_weights (&br, l1, s->chroma_array_type)))
      return FALSE;
  }
  five = ref ? h264_mmco5 (&br, idr) : 0;
  if (five < 0)
    return FALSE;

  if (idr) {
    po->seq++;
    po->prev_msb = po->prev_lsb = 0;
    po->count = 0;
  }
  if (s->poc_type == 2) {
    /* output order is decode order */
    *key = po->count++;
  } else {
    gint64 max = G_GINT64_CONSTANT (1) << s->log2_max_poc_lsb;

    if (lsb < po->prev_lsb && po->prev_lsb - lsb >= max / 2)
      msb = po->prev_msb + max;
    else if (lsb > po->prev_lsb && lsb - po->prev_lsb > max / 2)
      msb = po->prev_msb - max;
    else
      msb = po->prev_msb;
    top = msb + lsb;
    poc = MIN (top, top + delta);
    *key = poc;
    if (ref) {
      po->prev_msb = msb;
      po->prev_lsb = lsb;
    }
    if (five) {
      /* output after every earlier picture; POC counts on from 0 */
      po->prev_msb = 0;
      po->prev_lsb = top - poc;
    }
  }
  if (five) {
    po->seq++;
    po->count = 1;
    *key = 0;
  }
  return TRUE;
}

/* ---- H.265 ---- */

static gboolean
skip_ptl (BitReader * br, guint sub_layers)
{
  gboolean prof[8] = { 0 }, level[8] = { 0 };
  guint i;

  if (br_bits (br, 32) < 0 || br_bits (br, 32) < 0 || br_bits (br, 32) < 0)
    return FALSE;               /* general profile, tier, flags, level */
  for (i = 0; i < sub_layers; i++) {
    prof[i] = br_bit (br) == 1;
    level[i] = br_bit (br) == 1;
  }
  if (sub_layers > 0 && br_bits (br, 2 * (8 - sub_layers)) < 0)
    return FALSE;
  for (i = 0; i < sub_layers; i++) {
    if (prof[i] && (br_bits (br, 32) < 0 || br_bits (br, 32) < 0
            || br_bits (br, 24) < 0))
      return FALSE;
    if (level[i] && br_bits (br, 8) < 0)
      return FALSE;
  }
  return TRUE;
}

static gboolean
h265_sps (StagePicOrder * po, const guint8 * nal, gsize len)
{
  BitReader br;
  gint64 sub, id, chroma, v;
  Sps s = { 0 };
  guint i;

  br_init (&br, nal + 2, len - 2);
  br_bits (&br, 4);
  sub = br_bits (&br, 3);
  if (sub < 0 || sub > 6 || br_bit (&br) < 0 || !skip_ptl (&br, sub))
    return FALSE;
  id = br_ue (&br);
  chroma = br_ue (&br);
  if (id < 0 || id > 15 || chroma < 0)
    return FALSE;
  if (chroma == 3 && (s.separate_colour_plane = br_bit (&br)) < 0)
    return FALSE;
  if (br_ue (&br) < 0 || br_ue (&br) < 0 || (v = br_bit (&br)) < 0)
    return FALSE;
  for (i = 0; v && i < 4; i++)
    if (br_ue (&br) < 0)
      return FALSE;
  if (br_ue (&br) < 0 || br_ue (&br) < 0 || (v = br_ue (&br)) < 0 || v > 12)
    return FALSE;
  s.log2_max_poc_lsb = v + 4;
  s.valid = TRUE;
  po->sps[id] = s;
  return TRUE;
}

static gboolean
h265_pps (StagePicOrder * po, const guint8 * nal, gsize len)
{
  BitReader br;
  gint64 id, sps, v;
  Pps p = { 0 };

  br_init (&br, nal + 2, len - 2);
  id = br_ue (&br);
  sps = br_ue (&br);
  if (id < 0 || id > 63 || sps < 0 || sps > 15)
    return FALSE;
  p.sps = sps;
  p.dependent_slices = br_bit (&br) == 1;
  p.output_flag_present = br_bit (&br) == 1;
  if ((v = br_bits (&br, 3)) < 0)
    return FALSE;
  p.extra_slice_header_bits = v;
  p.valid = TRUE;
  po->pps[id] = p;
  return TRUE;
}

static gboolean
h265_slice (StagePicOrder * po, const guint8 * nal, gsize len, gint64 * key)
{
  BitReader br;
  guint type = (nal[0] >> 1) & 0x3f, tid = (nal[1] & 7);
  gboolean irap = type >= 16 && type <= 23, idr = type == 19 || type == 20;
  gint64 pps_id, lsb = 0, msb, max, poc;
  const Sps *s;
  const Pps *p;

  if (tid == 0)
    return FALSE;
  tid--;
  br_init (&br, nal + 2, len - 2);
  if (br_bit (&br) != 1)
    return FALSE;               /* not the picture's first slice segment */
  if (irap && br_bit (&br) < 0)
    return FALSE;
  pps_id = br_ue (&br);
  if (pps_id < 0 || pps_id > 63 || !po->pps[pps_id].valid)
    return FALSE;
  p = &po->pps[pps_id];
  s = &po->sps[p->sps];
  if (!s->valid || p->output_flag_present)
    return FALSE;               /* a picture may not be output: not followed */
  if (br_bits (&br, p->extra_slice_header_bits) < 0 || br_ue (&br) < 0
      || (s->separate_colour_plane && br_bits (&br, 2) < 0))
    return FALSE;
  if (!idr && (lsb = br_bits (&br, s->log2_max_poc_lsb)) < 0)
    return FALSE;
  max = G_GINT64_CONSTANT (1) << s->log2_max_poc_lsb;
  if (irap && (type != 21 || !po->started || po->after_eos)) {
    /* NoRaslOutputFlag: a new coded video sequence */
    po->seq++;
    msb = 0;
  } else if (lsb < po->prev_lsb && po->prev_lsb - lsb >= max / 2) {
    msb = po->prev_msb + max;
  } else if (lsb > po->prev_lsb && lsb - po->prev_lsb > max / 2) {
    msb = po->prev_msb - max;
  } else {
    msb = po->prev_msb;
  }
  poc = msb + lsb;
  /* prevTid0Pic: TemporalId 0, not RADL, RASL or sub-layer non-ref */
  if (tid == 0 && !(type >= 6 && type <= 9) && !(type <= 14 && type % 2 == 0)) {
    po->prev_msb = poc - (poc & (max - 1));
    po->prev_lsb = poc & (max - 1);
  }
  po->started = TRUE;
  po->after_eos = FALSE;
  *key = poc;
  return TRUE;
}

/* ---- both ---- */

static gboolean
param_sets_from_codec_data (StagePicOrder * po, const guint8 * cd, gsize size)
{
  gsize pos, i, n, k, arrays;

  if (!po->h265) {
    /* avcC: 5 bytes, SPS count (low 5 bits) + SPSs, PPS count + PPSs */
    if (size < 6)
      return FALSE;
    pos = 5;
    for (k = 0; k < 2; k++) {
      if (pos >= size)
        return FALSE;
      n = k == 0 ? (cd[pos] & 0x1f) : cd[pos];
      pos++;
      for (i = 0; i < n; i++) {
        gsize len;

        if (pos + 2 > size)
          return FALSE;
        len = (cd[pos] << 8) | cd[pos + 1];
        pos += 2;
        if (len < 2 || pos + len > size)
          return FALSE;
        if (!(k == 0 ? h264_sps (po, cd + pos, len) : h264_pps (po, cd + pos,
                    len)))
          return FALSE;
        pos += len;
      }
    }
    return TRUE;
  }
  /* hvcC: 22 bytes, numOfArrays, then (type, count, (length, NAL)...) */
  if (size < 23)
    return FALSE;
  arrays = cd[22];
  pos = 23;
  for (k = 0; k < arrays; k++) {
    guint type;

    if (pos + 3 > size)
      return FALSE;
    type = cd[pos] & 0x3f;
    n = (cd[pos + 1] << 8) | cd[pos + 2];
    pos += 3;
    for (i = 0; i < n; i++) {
      gsize len;

      if (pos + 2 > size)
        return FALSE;
      len = (cd[pos] << 8) | cd[pos + 1];
      pos += 2;
      if (len < 3 || pos + len > size)
        return FALSE;
      if ((type == 33 && !h265_sps (po, cd + pos, len))
          || (type == 34 && !h265_pps (po, cd + pos, len)))
        return FALSE;
      pos += len;
    }
  }
  return TRUE;
}

StagePicOrder *
stage_store_pic_order_new (const gchar * codec, const guint8 * codec_data,
    gsize size)
{
  StagePicOrder *po;

  if (g_strcmp0 (codec, "h264") != 0 && g_strcmp0 (codec, "h265") != 0)
    return NULL;
  po = g_new0 (StagePicOrder, 1);
  po->h265 = g_str_equal (codec, "h265");
  po->nls = stage_store_nal_length_size (codec, codec_data, size);
  if (codec_data && !param_sets_from_codec_data (po, codec_data, size))
    po->failed = TRUE;
  return po;
}

void
stage_store_pic_order_free (StagePicOrder * po)
{
  g_free (po);
}

gboolean
stage_store_pic_order_next (StagePicOrder * po, const guint8 * au,
    gsize size, gint64 * key)
{
  gsize pos = 0, len;
  const guint8 *nal;
  gboolean have = FALSE;

  if (po == NULL || po->failed)
    return FALSE;
  while (!po->failed && store_next_nal (au, size, po->nls, &pos, &nal,
          &len)) {
    guint type;

    if (len < 2) {
      po->failed = TRUE;
      break;
    }
    if (po->h265) {
      type = (nal[0] >> 1) & 0x3f;
      if (type == 33)
        po->failed = !h265_sps (po, nal, len);
      else if (type == 34)
        po->failed = !h265_pps (po, nal, len);
      else if (type == 36 || type == 37)
        po->after_eos = TRUE;
      else if (type < 32 && !have)
        po->failed = !(have = h265_slice (po, nal, len, key));
    } else {
      type = nal[0] & 0x1f;
      if (type == 7)
        po->failed = !h264_sps (po, nal, len);
      else if (type == 8)
        po->failed = !h264_pps (po, nal, len);
      else if ((type == 1 || type == 5) && !have)
        po->failed = !(have = h264_slice (po, nal, len, key));
      else if (type == 2 || type == 20)
        po->failed = TRUE;      /* data partitioning, MVC: not followed */
    }
  }
  /* a length of 0 or past the end stopped the walk early: damaged */
  if (!have || pos + po->nls < size)
    po->failed = TRUE;
  if (po->failed)
    return FALSE;
  /* sequences one after the other, POC (32 bits, signed) within one */
  *key += po->seq * (G_GINT64_CONSTANT (1) << 34);
  return TRUE;
}

/* ---- H.264 frame_num, and a decode that starts where it is not 0 ---- */

/* The bit of the RBSP (after the NAL header byte) where slice `nal`'s
 * frame_num starts, and its width; FALSE when its parameter sets are not
 * known. */
static gboolean
h264_frame_num_at (StagePicOrder * po, const guint8 * nal, gsize len,
    gsize * bit, guint * width)
{
  BitReader br;
  gint64 pps_id;
  const Sps *s;

  br_init (&br, nal + 1, len - 1);
  if (br_ue (&br) < 0 || br_ue (&br) < 0)
    return FALSE;
  pps_id = br_ue (&br);
  if (pps_id < 0 || pps_id > 255 || !po->pps[pps_id].valid)
    return FALSE;
  s = &po->sps[po->pps[pps_id].sps];
  if (!s->valid || (s->separate_colour_plane && br_bits (&br, 2) < 0))
    return FALSE;
  *bit = br.bit;
  *width = s->log2_max_frame_num;
  return br.bit + *width <= br.len * 8;
}

/* Follows the parameter sets of `au`; calls `slice` on each slice. */
static gboolean
h264_walk (StagePicOrder * po, const guint8 * au, gsize size,
    gboolean (*slice) (StagePicOrder *, const guint8 *, gsize, gpointer),
    gpointer data)
{
  gsize pos = 0, len;
  const guint8 *nal;
  gboolean ok = TRUE;

  if (po == NULL || po->h265)
    return FALSE;
  while (ok && store_next_nal (au, size, po->nls, &pos, &nal, &len)) {
    guint type = nal[0] & 0x1f;

    if (len < 2)
      return FALSE;
    if (type == 7)
      ok = h264_sps (po, nal, len);
    else if (type == 8)
      ok = h264_pps (po, nal, len);
    if (slice && ok)
      ok = slice (po, nal, len, data);
  }
  return ok && pos + po->nls >= size;
}

typedef struct
{
  gboolean have, idr;
  guint frame_num;
} FirstSlice;

static gboolean
first_slice (StagePicOrder * po, const guint8 * nal, gsize len, gpointer data)
{
  FirstSlice *f = data;
  guint type = nal[0] & 0x1f, width;
  gsize bit;
  BitReader br;

  if ((type != 1 && type != 5) || f->have)
    return TRUE;
  if (!h264_frame_num_at (po, nal, len, &bit, &width))
    return FALSE;
  br_init (&br, nal + 1, len - 1);
  br.bit = bit;
  f->frame_num = br_bits (&br, width);
  f->idr = type == 5;
  f->have = TRUE;
  return TRUE;
}

gboolean
stage_store_h264_frame_num (StagePicOrder * po, const guint8 * au,
    gsize size, guint * frame_num, gboolean * idr)
{
  FirstSlice f = { 0 };

  if (!h264_walk (po, au, size, first_slice, &f) || !f.have)
    return FALSE;
  *frame_num = f.frame_num;
  *idr = f.idr;
  return TRUE;
}

typedef struct
{
  guint shift, nls;
  GByteArray *out;
  const guint8 *au;
} Shift;

/* Appends NAL `nal` to the shifted unit, a slice with its frame_num
 * lowered: its RBSP rewritten in place (frame_num has a fixed width) and
 * its emulation prevention made anew, so its length may change. */
static gboolean
shift_nal (StagePicOrder * po, const guint8 * nal, gsize len, gpointer data)
{
  Shift *sh = data;
  guint type = nal[0] & 0x1f, width, i;
  GByteArray *rbsp;
  gsize bit, k, zeros = 0, start = sh->out->len;
  guint64 v = 0, mask;

  for (i = 0; i < sh->nls; i++)
    g_byte_array_append (sh->out, (const guint8 *) "", 1);
  if (type != 1 && type != 5) {
    g_byte_array_append (sh->out, nal, len);
  } else {
    if (!h264_frame_num_at (po, nal, len, &bit, &width))
      return FALSE;
    rbsp = g_byte_array_sized_new (len);
    for (k = 1; k < len; k++) {
      if (zeros >= 2 && nal[k] == 3) {
        zeros = 0;
        continue;
      }
      zeros = nal[k] == 0 ? zeros + 1 : 0;
      g_byte_array_append (rbsp, nal + k, 1);
    }
    for (i = 0; i < width; i++)
      v = v << 1 | ((rbsp->data[(bit + i) / 8] >> (7 - (bit + i) % 8)) & 1);
    mask = (G_GUINT64_CONSTANT (1) << width) - 1;
    v = (v - sh->shift) & mask;
    for (i = 0; i < width; i++) {
      gsize b = bit + i;
      guint8 m = 1 << (7 - b % 8);
      if ((v >> (width - 1 - i)) & 1)
        rbsp->data[b / 8] |= m;
      else
        rbsp->data[b / 8] &= ~m;
    }
    g_byte_array_append (sh->out, nal, 1);
    zeros = 0;
    for (k = 0; k < rbsp->len; k++) {
      guint8 c = rbsp->data[k], three = 3;
      if (zeros >= 2 && c <= 3) {
        g_byte_array_append (sh->out, &three, 1);
        zeros = 0;
      }
      g_byte_array_append (sh->out, &c, 1);
      zeros = c == 0 ? zeros + 1 : 0;
    }
    if (rbsp->len > 0 && rbsp->data[rbsp->len - 1] == 0) {
      guint8 three = 3;
      g_byte_array_append (sh->out, &three, 1);
    }
    g_byte_array_free (rbsp, TRUE);
  }
  /* the length, big-endian, in its nls bytes */
  {
    gsize n = sh->out->len - start - sh->nls;
    for (i = 0; i < sh->nls; i++)
      sh->out->data[start + i] = (n >> (8 * (sh->nls - 1 - i))) & 0xff;
    if (sh->nls < 4 && n >> (8 * sh->nls))
      return FALSE;             /* no longer fits its length field */
  }
  return TRUE;
}

GBytes *
stage_store_h264_shift_frame_num (StagePicOrder * po, const guint8 * au,
    gsize size, guint shift)
{
  Shift sh = { shift, po ? po->nls : 0, g_byte_array_sized_new (size + 16),
    au
  };

  if (!h264_walk (po, au, size, shift_nal, &sh)) {
    g_byte_array_free (sh.out, TRUE);
    return NULL;
  }
  return g_byte_array_free_to_bytes (sh.out);
}
