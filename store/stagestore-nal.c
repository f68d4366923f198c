/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Random access points of H.264 / H.265 access units, for the store's
 * keyframe flag: where stagesrc may start decoding and still produce every
 * later frame (in presentation order) exactly as a decode from the start.
 *
 * Upstream flags are not enough: h264parse marks every I picture as a
 * keyframe, and a P picture after a plain (non-IDR) I picture may still
 * reference pictures before it. So the writer looks at the NAL units. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "stagestore.h"
#include "stagestore-bits.h"

/* Whether an SEI NAL unit (payload after the 1-byte header) holds a
 * recovery point with recovery_frame_cnt 0. */
static gboolean
sei_recovery_point (const guint8 * p, gsize size)
{
  BitReader br;
  gsize pos = 0;

  br_init (&br, p, size);
  while (pos + 2 <= br.len) {
    guint type = 0, len = 0;

    while (pos < br.len && br.buf[pos] == 0xff)
      type += br.buf[pos++];
    if (pos >= br.len)
      break;
    type += br.buf[pos++];
    while (pos < br.len && br.buf[pos] == 0xff)
      len += br.buf[pos++];
    if (pos >= br.len)
      break;
    len += br.buf[pos++];
    if (type == 6) {
      br.bit = pos * 8;
      return br_ue (&br) == 0;
    }
    pos += len;
  }
  return FALSE;
}

static guint64
read_len (const guint8 * p, guint n)
{
  guint64 v = 0;
  guint i;

  for (i = 0; i < n; i++)
    v = (v << 8) | p[i];
  return v;
}

/* The next NAL unit of access unit `au` (`nls`-byte big-endian lengths)
 * from *pos: FALSE at the end, or at a length of 0 or past the end (then
 * *pos + nls < size still: the callers that care call that damaged). */
gboolean
store_next_nal (const guint8 * au, gsize size, guint nls, gsize * pos,
    const guint8 ** nal, gsize * len)
{
  guint64 n;

  if (*pos + nls >= size)
    return FALSE;
  n = read_len (au + *pos, nls);
  if (n == 0 || n > size - *pos - nls)
    return FALSE;
  *nal = au + *pos + nls;
  *len = n;
  *pos += nls + n;
  return TRUE;
}

gboolean
stage_store_h264_is_rap (const guint8 * au, gsize size, guint nls)
{
  gboolean rp = FALSE, i_slice = FALSE, other_slice = FALSE;
  gsize pos = 0, len;
  const guint8 *nal;

  if (nls < 1 || nls > 4)
    return FALSE;
  while (store_next_nal (au, size, nls, &pos, &nal, &len)) {
    guint type = nal[0] & 0x1f;

    if (type == 5)
      return TRUE;
    if (type == 6 && !rp)
      rp = sei_recovery_point (nal + 1, len - 1);
    if (type == 1 || type == 2) {
      BitReader br;
      gint64 slice_type;

      br_init (&br, nal + 1, MIN (len - 1, 32));
      br_ue (&br);              /* first_mb_in_slice */
      slice_type = br_ue (&br);
      if (slice_type >= 0 && (slice_type % 5 == 2 || slice_type % 5 == 4))
        i_slice = TRUE;
      else
        other_slice = TRUE;
    }
  }
  return rp && i_slice && !other_slice;
}

gboolean
stage_store_h265_is_rap (const guint8 * au, gsize size, guint nls)
{
  gsize pos = 0, len;
  const guint8 *nal;

  if (nls < 1 || nls > 4)
    return FALSE;
  while (store_next_nal (au, size, nls, &pos, &nal, &len) && len >= 2) {
    guint type = (nal[0] >> 1) & 0x3f;

    if (type >= 16 && type <= 23)       /* BLA, IDR, CRA, reserved IRAP */
      return TRUE;
    if (type < 16)
      return FALSE;             /* a non-IRAP picture */
  }
  return FALSE;
}

guint
stage_store_nal_length_size (const gchar * codec, const guint8 * codec_data,
    gsize size)
{
  if (codec_data == NULL)
    return 4;
  if (g_strcmp0 (codec, "h264") == 0 && size >= 5)
    return (codec_data[4] & 3) + 1;   /* avcC: lengthSizeMinusOne */
  if (g_strcmp0 (codec, "h265") == 0 && size >= 22)
    return (codec_data[21] & 3) + 1;  /* hvcC */
  return 4;
}

gboolean
stage_store_is_idr (const gchar * codec, const guint8 * au, gsize size,
    guint nls)
{
  gboolean h265 = g_strcmp0 (codec, "h265") == 0;
  gsize pos = 0, len;
  const guint8 *nal;

  if (nls < 1 || nls > 4 || (!h265 && g_strcmp0 (codec, "h264") != 0))
    return FALSE;
  while (store_next_nal (au, size, nls, &pos, &nal, &len)) {
    guint type;

    if (h265) {
      type = (nal[0] >> 1) & 0x3f;
      if (type == 19 || type == 20)     /* IDR_W_RADL, IDR_N_LP */
        return TRUE;
      if (type < 32)
        return FALSE;           /* the first slice is not an IDR */
    } else {
      type = nal[0] & 0x1f;
      if (type == 5)
        return TRUE;
      if (type >= 1 && type <= 4)
        return FALSE;
    }
  }
  return FALSE;
}

gboolean
stage_store_is_disposable (const gchar * codec, const guint8 * au,
    gsize size, guint nls)
{
  gsize pos = 0, len;
  const guint8 *nal;
  gboolean slice = FALSE;

  if (nls < 1 || nls > 4 || g_strcmp0 (codec, "h264") != 0)
    return FALSE;
  while (store_next_nal (au, size, nls, &pos, &nal, &len)) {
    guint type = nal[0] & 0x1f;

    if (type >= 1 && type <= 5) {
      if (type == 5 || (nal[0] & 0x60) != 0)
        return FALSE;           /* an IDR, or nal_ref_idc > 0 */
      slice = TRUE;
    } else if (type == 7 || type == 8 || type == 13 || type == 15
        || type == 20) {
      return FALSE;             /* parameter sets, extensions: state */
    }
  }
  /* a length that runs past the end: damaged, leave it to the decoder */
  return slice && pos + nls >= size;
}

gboolean
stage_store_h264_frames_only (const guint8 * codec_data, gsize size)
{
  static const guint high[] = { 100, 110, 122, 244, 44, 83, 86, 118, 128,
    138, 139, 134, 135
  };
  BitReader br;
  gsize sps_len;
  gint64 profile, v;
  guint i;

  /* avcC: 5 bytes, the SPS count (low 5 bits), then length + SPS */
  if (codec_data == NULL || size < 9 || (codec_data[5] & 0x1f) < 1)
    return FALSE;
  sps_len = (codec_data[6] << 8) | codec_data[7];
  if (sps_len < 4 || 8 + sps_len > size || (codec_data[8] & 0x1f) != 7)
    return FALSE;
  br_init (&br, codec_data + 9, sps_len - 1);
  profile = br_bits (&br, 8);
  br_bits (&br, 16);            /* constraint flags, level */
  if (br_ue (&br) < 0)          /* seq_parameter_set_id */
    return FALSE;
  for (i = 0; i < G_N_ELEMENTS (high); i++)
    if (profile == high[i]) {
      gint64 chroma = br_ue (&br);
      if (chroma < 0 || (chroma == 3 && br_bit (&br) < 0))
        return FALSE;
      if (br_ue (&br) < 0 || br_ue (&br) < 0 || br_bit (&br) < 0)
        return FALSE;           /* bit depths, qpprime bypass */
      if (br_bit (&br) != 0)
        return FALSE;           /* scaling matrices: not followed here */
      break;
    }
  if (br_ue (&br) < 0)          /* log2_max_frame_num_minus4 */
    return FALSE;
  v = br_ue (&br);              /* pic_order_cnt_type */
  if (v == 0) {
    if (br_ue (&br) < 0)
      return FALSE;
  } else if (v != 2) {
    return FALSE;               /* type 1 (or damaged): not followed */
  }
  if (br_ue (&br) < 0 || br_bit (&br) < 0 || br_ue (&br) < 0
      || br_ue (&br) < 0)       /* refs, gaps, width, height */
    return FALSE;
  return br_bit (&br) == 1;     /* frame_mbs_only_flag */
}

gboolean
stage_store_h265_is_rasl (const guint8 * au, gsize size, guint nls)
{
  gsize pos = 0, len;
  const guint8 *nal;

  if (nls < 1 || nls > 4)
    return FALSE;
  while (store_next_nal (au, size, nls, &pos, &nal, &len) && len >= 2) {
    guint type = (nal[0] >> 1) & 0x3f;

    if (type < 32)
      return type == 8 || type == 9;    /* RASL_N, RASL_R */
  }
  return FALSE;
}
