/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A bit reader over the RBSP of one H.264 / H.265 NAL unit (emulation
 * prevention bytes removed), and the walk over an access unit's NAL units,
 * for the store's bitstream parsers (stagestore-nal.c, stagestore-poc.c).
 * Reads past the end give -1, never a byte outside what was copied. */
#ifndef __STAGE_STORE_BITS_H__
#define __STAGE_STORE_BITS_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  /* enough for any slice header up to its reference picture marking
   * (a weight table for 32 references included) and parameter sets */
  guint8 buf[1024];
  gsize len, bit;
} BitReader;

static inline void
br_init (BitReader * br, const guint8 * nal, gsize size)
{
  gsize i, zeros = 0;

  br->len = 0;
  br->bit = 0;
  for (i = 0; i < size && br->len < sizeof (br->buf); i++) {
    if (zeros >= 2 && nal[i] == 3) {
      zeros = 0;
      continue;
    }
    zeros = nal[i] == 0 ? zeros + 1 : 0;
    br->buf[br->len++] = nal[i];
  }
}

static inline gint
br_bit (BitReader * br)
{
  gint b;

  if (br->bit >= br->len * 8)
    return -1;
  b = (br->buf[br->bit / 8] >> (7 - br->bit % 8)) & 1;
  br->bit++;
  return b;
}

/* n bits (n <= 32), or -1 when the data runs out. */
static inline gint64
br_bits (BitReader * br, guint n)
{
  gint64 v = 0;

  while (n--) {
    gint b = br_bit (br);
    if (b < 0)
      return -1;
    v = (v << 1) | b;
  }
  return v;
}

/* Exp-Golomb ue(v); -1 when the data runs out. */
static inline gint64
br_ue (BitReader * br)
{
  gint zeros = 0, b;
  gint64 v = 1;

  while ((b = br_bit (br)) == 0)
    if (++zeros > 31)
      return -1;
  if (b < 0)
    return -1;
  while (zeros--) {
    if ((b = br_bit (br)) < 0)
      return -1;
    v = (v << 1) | b;
  }
  return v - 1;
}

/* se(v); FALSE when the data runs out. */
static inline gboolean
br_se (BitReader * br, gint64 * v)
{
  gint64 u = br_ue (br);

  if (u < 0)
    return FALSE;
  *v = (u & 1) ? (u + 1) / 2 : -(u / 2);
  return TRUE;
}

/* stagestore-nal.c: the next NAL unit of access unit @au (@nls-byte
 * big-endian lengths) from *pos; FALSE at the end, or at a length of 0 or
 * past the end (then *pos + nls < size still: damaged). */
gboolean store_next_nal (const guint8 * au, gsize size, guint nls,
    gsize * pos, const guint8 ** nal, gsize * len);

G_END_DECLS

#endif /* __STAGE_STORE_BITS_H__ */
