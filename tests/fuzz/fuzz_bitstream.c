/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the store's H.264 / H.265 bitstream parsers, which
 * read every packet a stagesink writes and stage-store verify checks
 * (stagestore-nal.c, stagestore-poc.c). The input is split into a codec
 * choice, a codec_data blob and length-prefixed access units; each unit
 * goes through the random-access checks, the picture order parser and
 * the frame_num rewrite stagesrc feeds a run with (H.264). A damaged unit
 * must give FALSE (or NULL), never a crash or a read out of bounds. */
#include <glib.h>

#include "fuzz-common.h"
#include "stagestore.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const gchar *codec;
  StagePicOrder *po, *fn;
  gsize cd_len, off;
  guint nls;
  gint64 key;

  if (size < 2)
    return 0;
  codec = data[0] & 1 ? "h265" : "h264";
  cd_len = MIN ((gsize) data[1], size - 2);
  /* the codec_data blob in its own allocation: a read past it is caught */
  {
    guint8 *cd = g_memdup2 (data + 2, cd_len);

    po = stage_store_pic_order_new (codec, cd_len ? cd : NULL, cd_len);
    fn = stage_store_pic_order_new (codec, cd_len ? cd : NULL, cd_len);
    nls = stage_store_nal_length_size (codec, cd_len ? cd : NULL, cd_len);
    g_free (cd);
  }
  off = 2 + cd_len;
  while (off + 2 <= size) {
    gsize n = MIN ((gsize) (data[off] << 8 | data[off + 1]), size - off - 2);
    guint8 *au = g_memdup2 (data + off + 2, n);

    (void) stage_store_h264_is_rap (au, n, nls);
    (void) stage_store_h265_is_rap (au, n, nls);
    (void) stage_store_h265_is_rasl (au, n, nls);
    if (po)
      (void) stage_store_pic_order_next (po, au, n, &key);
    if (fn) {
      guint fnum;
      gboolean idr;

      if (stage_store_h264_frame_num (fn, au, n, &fnum, &idr)) {
        GBytes *b = stage_store_h264_shift_frame_num (fn, au, n, fnum);
        if (b)
          g_bytes_unref (b);
      }
    }
    g_free (au);
    off += 2 + n;
  }
  stage_store_pic_order_free (po);
  stage_store_pic_order_free (fn);
  return 0;
}
