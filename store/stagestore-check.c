/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The store's bottom layer: the error domain, and checks of everything a
 * catalog holds (names, data paths, rows) before anything uses it; it
 * calls nothing of the store above it. A catalog can be edited by hand, damaged, or written
 * by a buggy tool: a size, an offset or a data path taken on trust reads
 * past a buffer or deletes outside the store. Each bad value is an error
 * naming the stream, the packet and the field. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "stagestore-private.h"

#include <string.h>

G_DEFINE_QUARK (stage-store-error-quark, stage_store_error);

/* ---- names and paths a catalog may hold ---- */

gboolean
stage_store_check_name (const gchar * name, GError ** error)
{
  return stage_store_check_name_len (name, -1, error);
}

gboolean
stage_store_check_name_len (const gchar * name, gssize len, GError ** error)
{
  const gchar *p;
  gchar *shown;

  if (name == NULL || len == 0 || *name == '\0') {
    g_set_error_literal (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "No stream name given");
    return FALSE;
  }
  if (len >= 0 && memchr (name, '\0', len) != NULL) {
    /* taken as it is, the name would silently be cut there */
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Invalid stream name '%s': it holds a NUL byte (at byte %"
        G_GSIZE_FORMAT ")", name, strlen (name));
    return FALSE;
  }
  if (strlen (name) > 255 || !g_utf8_validate (name, -1, NULL)) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Invalid stream name '%s': at most 255 bytes of UTF-8", name);
    return FALSE;
  }
  for (p = name; *p; p = g_utf8_next_char (p)) {
    gunichar c = g_utf8_get_char (p);

    /* C0, DEL and C1: control characters (docs/store.md) */
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      shown = g_strescape (name, NULL);
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
          "Invalid stream name '%s': control characters (U+%04X) are not "
          "allowed", shown, c);
      g_free (shown);
      return FALSE;
    }
  }
  return TRUE;
}

/* Data directories are named data/<name>.<random>; only the catalog says
 * which stream owns one. Exactly one plain name under data/: no '.' or
 * '..', no further '/', no control character. */
gboolean
store_safe_data_dir (const gchar * data)
{
  const gchar *c;

  if (data == NULL || !g_str_has_prefix (data, "data/"))
    return FALSE;
  c = data + 5;
  if (*c == '\0' || strcmp (c, ".") == 0 || strcmp (c, "..") == 0)
    return FALSE;
  for (; *c; c++)
    if (*c == '/' || (guchar) * c < 0x20 || *c == 0x7f)
      return FALSE;
  return TRUE;
}

/* ---- rows ---- */

/* Bounds that no valid store reaches and that keep the arithmetic on
 * them (offset + size, pts + duration, n * sizeof) from overflowing. */
#define MAX_FRAMES (G_GINT64_CONSTANT (1) << 40)
#define MAX_OFFSET (G_GINT64_CONSTANT (1) << 56)

/* A column's value, in words, for a message. */
static gchar *
col_describe (sqlite3_stmt * st, int i)
{
  switch (sqlite3_column_type (st, i)) {
    case SQLITE_NULL:
      return g_strdup ("NULL");
    case SQLITE_INTEGER:
      return g_strdup_printf ("%" G_GINT64_FORMAT,
          (gint64) sqlite3_column_int64 (st, i));
    case SQLITE_FLOAT:
      return g_strdup_printf ("%g (a real)", sqlite3_column_double (st, i));
    case SQLITE_BLOB:
      return g_strdup_printf ("a blob of %d bytes",
          sqlite3_column_bytes (st, i));
    default:
      return g_strdup ("text");
  }
}

/* Whether column @i is an integer in [min, max]; otherwise *problem says
 * which field has which value (when it is not set already). */
static gboolean
col_int (sqlite3_stmt * st, int i, gint64 min, gint64 max, gint64 * out,
    gchar ** problem)
{
  gint64 v;
  gchar *what;

  if (sqlite3_column_type (st, i) == SQLITE_INTEGER) {
    v = sqlite3_column_int64 (st, i);
    if (v >= min && v <= max) {
      *out = v;
      return TRUE;
    }
  }
  if (*problem == NULL) {
    what = col_describe (st, i);
    *problem = g_strdup_printf ("field '%s' is %s, not an integer from %"
        G_GINT64_FORMAT " to %" G_GINT64_FORMAT, sqlite3_column_name (st, i),
        what, min, max);
    g_free (what);
  }
  *out = min;
  return FALSE;
}

/* Whether column @i is text; otherwise *problem names it. */
static gboolean
col_is_text (sqlite3_stmt * st, int i, gchar ** problem)
{
  gchar *what;

  if (sqlite3_column_type (st, i) == SQLITE_TEXT)
    return TRUE;
  if (*problem == NULL) {
    what = col_describe (st, i);
    *problem = g_strdup_printf ("field '%s' is %s, not text",
        sqlite3_column_name (st, i), what);
    g_free (what);
  }
  return FALSE;
}

/* The streams row @st (STREAM_COLUMNS) as @info holds it: NULL when every
 * field is in range, else why not. */
gchar *
store_stream_problem (sqlite3_stmt * st, const StageStreamInfo * info)
{
  gchar *p = NULL;
  gint64 frames, v;
  gboolean video = FALSE;
  GError *err = NULL;

  if (col_is_text (st, 1, &p) && !stage_store_check_name_len (info->name,
          sqlite3_column_bytes (st, 1), &err)) {
    p = g_strdup_printf ("field 'name': %s", err->message);
    g_clear_error (&err);
  }
  if (col_is_text (st, 2, &p)) {
    const gchar *kind = (const gchar *) sqlite3_column_text (st, 2);

    video = g_strcmp0 (kind, "video") == 0;
    if (!video && g_strcmp0 (kind, "bytes") != 0 && p == NULL)
      p = g_strdup_printf ("field 'kind' is '%s', not 'video' or 'bytes'",
          kind);
  }
  if (p == NULL && (video ? g_strcmp0 (info->codec, "h264") != 0 &&
          g_strcmp0 (info->codec, "h265") != 0 : info->codec != NULL))
    p = g_strdup_printf ("field 'codec' is '%s', not %s", info->codec ?
        info->codec : "NULL", video ? "'h264' or 'h265' (a video stream)" :
        "NULL (a bytes stream)");
  col_is_text (st, 4, &p);
  if (p == NULL && sqlite3_column_type (st, 5) != SQLITE_NULL &&
      sqlite3_column_type (st, 5) != SQLITE_BLOB)
    p = g_strdup ("field 'codec_data' is neither NULL nor a blob");
  col_int (st, 6, 0, MAX_FRAMES, &frames, &p);
  col_int (st, 7, 0, frames, &v, &p);
  col_int (st, 8, frames > 0, frames, &v, &p);
  col_int (st, 9, 0, G_MAXINT64, &v, &p);
  col_int (st, 10, 0, G_MAXINT, &v, &p);
  col_int (st, 11, 1, G_MAXINT, &v, &p);
  col_int (st, 12, 0, G_MAXINT, &v, &p);
  col_int (st, 13, 0, G_MAXINT, &v, &p);
  col_int (st, 14, 1, G_MAXUINT, &v, &p);
  if (col_is_text (st, 15, &p) && p == NULL
      && !store_safe_data_dir (info->data))
    p = g_strdup_printf ("field 'data' is '%s', not a directory of its own "
        "under data/ (data/ and one plain name)", info->data);
  col_is_text (st, 16, &p);
  col_is_text (st, 17, &p);
  return p;
}

/* Packet @pkt of @info from the frames row @st (idx, chunk, offset, size,
 * pts, dts, duration, keyframe, crc): FALSE with an error naming the
 * field when a value is out of range. */
gboolean
store_frame_from_row (StageStore * store, const StageStreamInfo * info,
    sqlite3_stmt * st, gsize pkt, StageFrame * f, GError ** error)
{
  gchar *p = NULL;
  gint64 v, times[3];
  int i;

  col_int (st, 0, -STAGE_STORE_MAX_DECODE_ONLY, info->frames - 1, &f->index,
      &p);
  col_int (st, 1, 0, info->chunks - 1, &f->chunk, &p);
  col_int (st, 2, 0, MAX_OFFSET, &f->offset, &p);
  col_int (st, 3, 0, G_MAXINT32, &f->size, &p);
  for (i = 0; i < 3; i++) {
    times[i] = STAGE_STORE_NONE;
    if (sqlite3_column_type (st, 4 + i) != SQLITE_NULL)
      /* a DTS may be negative, a PTS or a duration not */
      col_int (st, 4 + i, i == 1 ? G_MININT64 + 1 : 0, G_MAXINT64,
          &times[i], &p);
  }
  f->pts = times[0];
  f->dts = times[1];
  f->duration = times[2];
  if (p == NULL && f->pts != STAGE_STORE_NONE &&
      f->duration != STAGE_STORE_NONE && f->pts > G_MAXINT64 - f->duration)
    p = g_strdup_printf ("fields 'pts' + 'duration' (%" G_GINT64_FORMAT
        " + %" G_GINT64_FORMAT ") overflow", f->pts, f->duration);
  col_int (st, 7, 0, 1, &v, &p);
  f->keyframe = v == 1;
  col_int (st, 8, 0, G_MAXUINT32, &v, &p);
  f->crc = (guint32) v;
  if (p == NULL)
    return TRUE;
  g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
      "Store '%s', stream '%s', packet %" G_GSIZE_FORMAT ": the catalog's "
      "frames row is invalid: %s", store->dir, info->name, pkt, p);
  g_free (p);
  return FALSE;
}

gsize
stage_store_count_decode_only (const StageFrame * frames, gsize n)
{
  gsize i, k = 0;

  for (i = 0; i < n; i++)
    k += frames[i].index < 0;
  return k;
}

/* The index of @n packets (decode order): the frame indices are each
 * position once (the K decode-only packets' -K to -1), and the packets lie
 * back to back in their chunks, chunk after chunk, from offset 0. */
gboolean
store_check_index (StageStore * store, const StageStreamInfo * info,
    const StageFrame * frames, gsize n, GError ** error)
{
  guint8 *seen = g_new0 (guint8, n + 1);
  gsize i, k = stage_store_count_decode_only (frames, n);
  gboolean ok = TRUE;

  for (i = 0; i < n && ok; i++) {
    const StageFrame *f = &frames[i];
    gboolean chunk_start = i == 0 || f->chunk != frames[i - 1].chunk;
    gint64 rank = f->index + (gint64) k;

    if (rank < 0 || (gsize) rank >= n || seen[rank]) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s', packet %" G_GSIZE_FORMAT ": frame index "
          "%" G_GINT64_FORMAT " (field 'idx') is out of range or repeated",
          store->dir, info->name, i, f->index);
      ok = FALSE;
    } else if (f->index < 0 && f->keyframe) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s', packet %" G_GSIZE_FORMAT ": a "
          "decode-only packet (field 'idx' %" G_GINT64_FORMAT ") flagged "
          "as a keyframe: decoding would start at a picture that is never "
          "output", store->dir, info->name, i, f->index);
      ok = FALSE;
    } else if (f->size < 0 || f->size > G_MAXINT32 || f->offset < 0
        || f->offset > MAX_OFFSET || (chunk_start && (f->offset != 0 ||
                (i > 0 && f->chunk != frames[i - 1].chunk + 1)))
        || (!chunk_start && f->offset != frames[i - 1].offset +
            frames[i - 1].size)) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s', packet %" G_GSIZE_FORMAT ": frame %"
          G_GINT64_FORMAT " has an inconsistent position (fields 'chunk' %"
          G_GINT64_FORMAT ", 'offset' %" G_GINT64_FORMAT ", 'size' %"
          G_GINT64_FORMAT ")", store->dir, info->name, i, f->index, f->chunk,
          f->offset, f->size);
      ok = FALSE;
    } else {
      seen[rank] = 1;
    }
  }
  g_free (seen);
  return ok;
}

gboolean
stage_store_check_keyframe (StageStore * store, const StageStreamInfo * info,
    const StageFrame * frames, gsize pkt, const guint8 * au, gsize size,
    GError ** error)
{
  const guint8 *cd = NULL;
  gsize cd_size = 0;
  guint nls;
  gboolean rap;

  if (info->kind != STAGE_STORE_KIND_VIDEO || (!frames[pkt].keyframe
          && pkt != 0))
    return TRUE;
  if (info->codec_data)
    cd = g_bytes_get_data (info->codec_data, &cd_size);
  nls = stage_store_nal_length_size (info->codec, cd, cd_size);
  rap = g_strcmp0 (info->codec, "h265") == 0 ?
      stage_store_h265_is_rap (au, size, nls) :
      stage_store_h264_is_rap (au, size, nls);
  if (rap == frames[pkt].keyframe)
    return TRUE;
  g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
      "Store '%s', stream '%s', packet %" G_GSIZE_FORMAT " (frame %"
      G_GINT64_FORMAT "): the catalog's keyframe flag says %d, but the %s "
      "bitstream says it is%s a random access point (%s)", store->dir, info->name,
      pkt, frames[pkt].index, frames[pkt].keyframe, info->codec,
      rap ? "" : " not", info->codec && g_str_equal (info->codec,
          "h265") ? "IDR, CRA or BLA picture" : "IDR picture, or I picture "
      "with a recovery point");
  return FALSE;
}
