/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The store: timestamps against the bitstream's presentation order.
 *
 * A frame's index is its rank by PTS (what a decoder outputs n-th), so a
 * PTS on the wrong packet numbers frames other than a decode outputs them:
 * reads then return other pictures than asked, or fail. Decoders order
 * their output by picture order count (stagestore-poc.c), which the
 * timestamps must follow. The writer checks that before a commit and
 * repairs one known fault, a constant shift in decode order (GStreamer
 * 1.22's h265parse after tsdemux gives each packet the previous packet's
 * times); verify checks a committed stream the same way. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "stagestore-private.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  gint64 key;
  gsize pos;
} KeyPos;

static int
cmp_key (const void *a, const void *b)
{
  const KeyPos *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

/* Packets (decode order positions) sorted by presentation key. */
static gsize *
order_by_key (const gint64 * keys, gsize n)
{
  KeyPos *kp = g_new (KeyPos, n + 1);
  gsize *order = g_new (gsize, n + 1), i;

  for (i = 0; i < n; i++) {
    kp[i].key = keys[i];
    kp[i].pos = i;
  }
  qsort (kp, n, sizeof (KeyPos), cmp_key);
  for (i = 0; i < n; i++)
    order[i] = kp[i].pos;
  g_free (kp);
  return order;
}

/* The PTS packet @i has under @shift (the time of packet i + shift), or
 * STAGE_STORE_NONE past either end. */
static gint64
shifted_pts (const StageTimes * t, gsize n, gsize i, gint shift)
{
  gint64 j = (gint64) i + shift;

  return j >= 0 && j < (gint64) n ? t[j].pts : STAGE_STORE_NONE;
}

/* Whether the PTS under @shift rise strictly along @order (those that
 * exist); *bad: the first packet that breaks it. */
static gboolean
shift_fits (const StageTimes * t, gsize n, const gsize * order, gint shift,
    gsize * bad)
{
  gint64 last = STAGE_STORE_NONE, p;
  gsize r;

  for (r = 0; r < n; r++) {
    p = shifted_pts (t, n, order[r], shift);
    if (p == STAGE_STORE_NONE)
      continue;
    if (last != STAGE_STORE_NONE && p <= last) {
      *bad = order[r];
      return FALSE;
    }
    last = p;
  }
  return TRUE;
}

static int
cmp_i64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : (x > y);
}

/* The frame duration: the median step between PTS in presentation order
 * (0 when there is none). */
static gint64
median_step (const StageTimes * t, gsize n, const gsize * order)
{
  gint64 *steps = g_new (gint64, n + 1), d = 0;
  gsize r, k = 0;

  for (r = 1; r < n; r++)
    if (t[order[r]].pts != STAGE_STORE_NONE
        && t[order[r - 1]].pts != STAGE_STORE_NONE)
      steps[k++] = t[order[r]].pts - t[order[r - 1]].pts;
  if (k > 0) {
    qsort (steps, k, sizeof (gint64), cmp_i64);
    d = steps[k / 2];
  }
  g_free (steps);
  return d;
}

/* Moves every packet's times @shift packets over in decode order and
 * fills the ends, which no packet carried: a PTS one frame duration from
 * its neighbour in presentation order, a DTS one from its neighbour in
 * decode order. FALSE when that cannot be done. */
static gboolean
apply_shift (StageTimes * t, gsize n, const gsize * order, gint shift)
{
  StageTimes *old = g_new (StageTimes, n + 1);
  gint64 *rank = g_new (gint64, n + 1), d;
  gsize i, r;
  gboolean ok = TRUE;

  memcpy (old, t, n * sizeof (StageTimes));
  for (r = 0; r < n; r++)
    rank[order[r]] = r;
  for (i = 0; i < n; i++) {
    gint64 j = (gint64) i + shift;
    gboolean in = j >= 0 && j < (gint64) n;

    t[i].pts = in ? old[j].pts : STAGE_STORE_NONE;
    t[i].dts = in ? old[j].dts : STAGE_STORE_NONE;
    t[i].duration = in ? old[j].duration : old[i].duration;
  }
  d = median_step (t, n, order);
  for (i = 0; i < n && ok; i++) {
    gint64 j = (gint64) i + shift;

    if (j >= 0 && j < (gint64) n)
      continue;
    /* the nearest packet in presentation order that has a time */
    for (r = 1; r < n; r++) {
      gint64 a = rank[i] - (gint64) r, b = rank[i] + (gint64) r;

      if (a >= 0 && t[order[a]].pts != STAGE_STORE_NONE) {
        t[i].pts = t[order[a]].pts + (gint64) r *d;
        break;
      }
      if (b < (gint64) n && t[order[b]].pts != STAGE_STORE_NONE) {
        t[i].pts = t[order[b]].pts - (gint64) r *d;
        break;
      }
    }
    if (old[i].dts != STAGE_STORE_NONE)
      t[i].dts = i > 0 ? t[i - 1].dts + d : STAGE_STORE_NONE;
    ok = d > 0 && t[i].pts != STAGE_STORE_NONE && t[i].pts >= 0;
  }
  /* fill a first DTS (a shift backwards) from the one after it */
  for (i = n; i-- > 0 && ok;)
    if (t[i].dts == STAGE_STORE_NONE && old[i].dts != STAGE_STORE_NONE
        && i + 1 < n && t[i + 1].dts != STAGE_STORE_NONE)
      t[i].dts = t[i + 1].dts - d;
  g_free (rank);
  g_free (old);
  return ok;
}

gboolean
store_times_check (StageTimes * t, gsize n, const gint64 * keys,
    gint * shift, gsize * bad)
{
  static const gint shifts[] = { 1, -1, 2, -2 };
  gsize *order, i, where = 0;
  StageTimes *copy;
  guint k;
  gboolean ok = FALSE;

  *shift = 0;
  *bad = 0;
  for (i = 0; i < n; i++)
    if (t[i].pts == STAGE_STORE_NONE)
      return TRUE;              /* no timestamps: numbered as written */
  order = order_by_key (keys, n);
  if (shift_fits (t, n, order, 0, bad)) {
    g_free (order);
    return TRUE;
  }
  /* Provably shifted: the times, moved over by one or two packets, follow
   * the presentation order exactly, and every packet's PTS is then at or
   * after its DTS. Anything else is not guessed at. */
  copy = g_new (StageTimes, n + 1);
  for (k = 0; k < G_N_ELEMENTS (shifts) && !ok; k++) {
    if (n < 4 + 2 * (gsize) ABS (shifts[k])
        || !shift_fits (t, n, order, shifts[k], &where))
      continue;
    memcpy (copy, t, n * sizeof (StageTimes));
    if (!apply_shift (copy, n, order, shifts[k])
        || !shift_fits (copy, n, order, 0, &where))
      continue;
    ok = TRUE;
    for (i = 0; i < n && ok; i++)
      ok = copy[i].dts == STAGE_STORE_NONE || copy[i].pts >= copy[i].dts;
    if (ok) {
      memcpy (t, copy, n * sizeof (StageTimes));
      *shift = shifts[k];
    }
  }
  g_free (copy);
  g_free (order);
  return ok;
}

/* Packets presented before the first keyframe, which a writer now drops
 * or stores decode-only (stagestore-write.c, fate_of): before it in
 * decode order, or a leading picture of a first keyframe that is not an
 * IDR. Stored as frames by an older writer, they read as wrong pictures
 * and shift every frame number against a full decode. A decode-only
 * packet must be such a leading picture: anything else would be a
 * picture decoded and never output. */
static gboolean
check_first_keyframe (StageStore * store, const StageStreamInfo * info,
    const StageFrame * frames, gsize n, const StagePacketOrder * po,
    gboolean have_keys, GError ** error)
{
  gboolean h265 = g_strcmp0 (info->codec, "h265") == 0;
  gsize q0, i, last_do = 0;
  gboolean gop_done = FALSE;

  for (i = 0; i < n; i++)
    if (frames[i].index < 0)
      last_do = i;
  for (q0 = 0; q0 < n && !frames[q0].keyframe; q0++);
  for (i = 0; i < n; i++) {
    gboolean bad, leading;

    if (i == q0)
      continue;
    gop_done = gop_done || (i > q0 && (frames[i].keyframe || po[q0].idr));
    if (i < q0)
      leading = TRUE;
    else if (gop_done)
      leading = FALSE;
    else if (h265)
      leading = po[i].rasl;
    else
      leading = have_keys ? po[i].key < po[q0].key :
          frames[i].index < frames[q0].index;
    if (frames[i].index < 0 && (i < q0 || !leading)) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s', packet %" G_GSIZE_FORMAT ": stored "
          "decode-only (field 'idx' %" G_GINT64_FORMAT "), but it is no "
          "leading picture of the stream's first keyframe (packet %"
          G_GSIZE_FORMAT "): the picture is decoded and never output. "
          "Write the stream again", store->dir, info->name, i,
          frames[i].index, q0);
      return FALSE;
    }
    if (gop_done && i > last_do)
      break;
    bad = leading && frames[i].index >= 0;
    if (!bad)
      continue;
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s', stream '%s', packet %" G_GSIZE_FORMAT " (frame %"
        G_GINT64_FORMAT "): presented before the stream's first keyframe "
        "(packet %" G_GSIZE_FORMAT "), it references pictures from before "
        "the recording started and cannot be decoded exactly, and it moves "
        "every frame number against a full decode. Written by an older "
        "version: write the stream again (pictures before the first "
        "keyframe are now dropped)", store->dir, info->name, i,
        frames[i].index, q0);
    return FALSE;
  }
  return TRUE;
}

gboolean
store_check_order (StageStore * store, const StageStreamInfo * info,
    const StageFrame * frames, gsize n, const StagePacketOrder * po,
    gboolean have_keys, GError ** error)
{
  gsize *by_idx, i, r, k = stage_store_count_decode_only (frames, n);
  gint64 *keys;
  gsize *order;
  gboolean ok = TRUE;

  if (info->kind != STAGE_STORE_KIND_VIDEO || n == 0)
    return TRUE;
  if (!check_first_keyframe (store, info, frames, n, po, have_keys, error))
    return FALSE;
  /* the catalog's times in frame order (store_check_index made the
   * indices a permutation of -k..n-k-1), decode-only packets first */
  by_idx = g_new (gsize, n + 1);
  for (i = 0; i < n; i++)
    by_idx[frames[i].index + k] = i;
  for (r = 1; r < n && ok; r++) {
    const StageFrame *a = &frames[by_idx[r - 1]], *b = &frames[by_idx[r]];

    if (a->pts == STAGE_STORE_NONE || b->pts == STAGE_STORE_NONE
        || b->pts >= a->pts)
      continue;
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s', stream '%s', packet %" G_GSIZE_FORMAT ": frame %"
        G_GINT64_FORMAT " has PTS %" G_GINT64_FORMAT " ns, before frame %"
        G_GINT64_FORMAT "'s %" G_GINT64_FORMAT ": the catalog's timestamps "
        "disagree with its frame numbers", store->dir, info->name,
        by_idx[r], (gint64) r - (gint64) k, b->pts, (gint64) r - 1 -
        (gint64) k, a->pts);
    ok = FALSE;
  }
  g_free (by_idx);
  if (!ok || !have_keys)
    return ok;
  /* the frame numbers against the order a decoder outputs the pictures */
  keys = g_new (gint64, n + 1);
  for (i = 0; i < n; i++)
    keys[i] = po[i].key;
  order = order_by_key (keys, n);
  for (r = 0; r < n && ok; r++) {
    const StageFrame *f = &frames[order[r]];

    if (f->index + (gint64) k == (gint64) r)
      continue;
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s', stream '%s', packet %" G_GSIZE_FORMAT ": the catalog "
        "calls it frame %" G_GINT64_FORMAT " (PTS %" G_GINT64_FORMAT " ns), "
        "but its picture order count makes it frame %" G_GINT64_FORMAT
        " of a decode: the stored timestamps disagree with the bitstream, "
        "and reads return other pictures than asked. Write the stream "
        "again: the writer now checks the timestamps against the "
        "bitstream and repairs a shift", store->dir, info->name, order[r],
        f->index, f->pts, (gint64) r - (gint64) k);
    ok = FALSE;
  }
  g_free (order);
  g_free (keys);
  return ok;
}
