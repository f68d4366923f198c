/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the store's catalog as the readers find it. A small
 * valid store (one H.264 stream of synthetic IDR and P access units in two
 * chunks) is made once; each input rewrites values of its streams and
 * frames rows (any value SQLite holds: negative, huge, NULL, real, text,
 * blob; rows dropped, added or made decode-only), then the store is read the way stagesrc
 * reads it (list, lookup, frame index, every packet and every keyframe
 * interval, each start's keyframe check) and verified. A bad value must be
 * an error, never a crash or a read out of bounds (ASan). */
#include <stdio.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "fuzz-common.h"
#include "stagestore.h"

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define N_PACKETS 12

static gchar *dir, *catalog;
static gchar *pristine;
static gsize pristine_len;

static const char *const frame_cols[] = { "idx", "pkt", "chunk", "offset",
  "size", "pts", "dts", "duration", "keyframe", "crc", "stream"
};

static const char *const stream_cols[] = { "id", "name", "kind", "codec",
  "caps", "codec_data", "frames", "keyframes", "chunks", "bytes", "fps_n",
  "fps_d", "width", "height", "io_packet_size", "data", "created",
  "committed"
};

static void
cleanup (void)
{
  gchar *data = g_build_filename (dir, "data", NULL);
  GDir *d = g_dir_open (data, 0, NULL);
  const gchar *n;

  /* the stream's directory holds chunk files only */
  while (d && (n = g_dir_read_name (d))) {
    gchar *sub = g_build_filename (data, n, NULL);
    GDir *s = g_dir_open (sub, 0, NULL);
    const gchar *f;

    while (s && (f = g_dir_read_name (s))) {
      gchar *p = g_build_filename (sub, f, NULL);
      g_unlink (p);
      g_free (p);
    }
    if (s)
      g_dir_close (s);
    g_rmdir (sub);
    g_free (sub);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (data);
  g_free (data);
  g_unlink (catalog);
  g_rmdir (dir);
}

/* An access unit of one NAL unit (4-byte length): an IDR slice, or a P
 * slice (first_mb_in_slice 0, slice_type 0), with some payload. */
static GByteArray *
make_au (gboolean idr, guint i)
{
  GByteArray *au = g_byte_array_new ();
  guint8 nal[24];
  guint8 len[4] = { 0, 0, 0, sizeof (nal) };
  guint k;

  nal[0] = idr ? 0x65 : 0x41;
  nal[1] = idr ? 0x88 : 0xc0;
  for (k = 2; k < sizeof (nal); k++)
    nal[k] = (guint8) (i * 31 + k);
  g_byte_array_append (au, len, 4);
  g_byte_array_append (au, nal, sizeof (nal));
  return au;
}

static void
setup (void)
{
  static const guint8 avcc[] = { 1, 0x42, 0, 0x1e, 0xff, 0xe0, 0 };
  GError *err = NULL;
  StageStore *st;
  StageStoreWriter *w;
  GBytes *cd = g_bytes_new_static (avcc, sizeof (avcc));
  guint i;

  dir = g_dir_make_tmp ("fuzz-catalog-XXXXXX", &err);
  if (dir == NULL)
    abort ();
  catalog = g_build_filename (dir, STAGE_STORE_CATALOG, NULL);
  atexit (cleanup);
  st = stage_store_open (dir, TRUE, &err);
  w = st ? stage_store_writer_new (st, "s", 4, &err) : NULL;
  if (w == NULL)
    abort ();
  stage_store_writer_set_format (w, STAGE_STORE_KIND_VIDEO, "h264",
      "video/x-h264,stream-format=avc,alignment=au", cd, 30, 1, 160, 120);
  for (i = 0; i < N_PACKETS; i++) {
    GByteArray *au = make_au (i % 6 == 0, i);
    gboolean key = stage_store_h264_is_rap (au->data, au->len, 4);

    if (!stage_store_writer_add (w, au->data, au->len, i * 1000, i * 1000,
            1000, key, &err))
      abort ();
    g_byte_array_unref (au);
  }
  if (!stage_store_writer_commit (w, STAGE_STORE_MODE_ERROR, &err))
    abort ();
  stage_store_writer_free (w);
  stage_store_close (st);
  g_bytes_unref (cd);
  /* the last connection closed: the WAL is in the catalog file */
  if (!g_file_get_contents (catalog, &pristine, &pristine_len, NULL))
    abort ();
}

/* One value for a column, from the input. */
static void
bind_value (sqlite3_stmt * st, int i, const uint8_t ** p, const uint8_t * end)
{
  guint8 kind = *p < end ? *(*p)++ : 0;
  guint64 v = 0;
  gsize n, k;

  switch (kind % 8) {
    case 0:                    /* a small integer */
      sqlite3_bind_int64 (st, i, *p < end ? (gint8) * (*p)++ : 0);
      break;
    case 1:                    /* any 64-bit integer */
      for (k = 0; k < 8 && *p < end; k++)
        v = (v << 8) | *(*p)++;
      sqlite3_bind_int64 (st, i, (gint64) v);
      break;
    case 2:
      sqlite3_bind_null (st, i);
      break;
    case 3:
      sqlite3_bind_int64 (st, i, kind & 0x80 ? G_MAXINT64 : G_MININT64);
      break;
    case 4:
      sqlite3_bind_double (st, i, *p < end ? *(*p)++ * -1.5 : 0.5);
      break;
    case 5:                    /* text, NULs and all */
    case 6:                    /* a blob */
      n = *p < end ? *(*p)++ % 32 : 0;
      n = MIN (n, (gsize) (end - *p));
      if (kind % 8 == 5)
        sqlite3_bind_text (st, i, (const char *) *p, n, SQLITE_TRANSIENT);
      else
        sqlite3_bind_blob (st, i, *p, n, SQLITE_TRANSIENT);
      *p += n;
      break;
    default:                   /* a value near a boundary */
      sqlite3_bind_int64 (st, i, (gint64) (kind >> 3) - 4 +
          (kind & 0x40 ? G_MAXINT32 : 0));
      break;
  }
}

/* Applies the input's edits to the catalog: op, row, value, ... */
static void
mutate (const uint8_t * data, size_t size)
{
  const uint8_t *p = data, *end = data + size;
  sqlite3 *db;

  if (sqlite3_open_v2 (catalog, &db, SQLITE_OPEN_READWRITE, NULL) !=
      SQLITE_OK)
    abort ();
  /* a scratch copy: no syncs, no journal file */
  sqlite3_exec (db, "PRAGMA synchronous=OFF; PRAGMA journal_mode=MEMORY",
      NULL, NULL, NULL);
  while (p + 2 <= end) {
    guint8 op = *p++, row = *p++;
    gchar *sql;
    sqlite3_stmt *st;

    if (op % 16 == 15)
      sql = g_strdup_printf ("DELETE FROM frames WHERE pkt = %u",
          row % (N_PACKETS + 1));
    else if (op % 16 == 14)
      sql = g_strdup_printf ("INSERT INTO frames SELECT stream, idx + %u, "
          "pkt + %u, chunk, offset, size, pts, dts, duration, keyframe, crc "
          "FROM frames WHERE pkt = %u", N_PACKETS, N_PACKETS, row % 13);
    else if (op % 16 == 13)
      /* a decode-only packet (negative idx), with the frame count or not */
      sql = g_strdup_printf ("UPDATE frames SET idx = -1 - %u WHERE pkt = %u",
          (guint) (op >> 4) % 3, row % (N_PACKETS + 1));
    else if (op & 0x80)
      sql = g_strdup_printf ("UPDATE streams SET %s = ?",
          stream_cols[op % G_N_ELEMENTS (stream_cols)]);
    else
      sql = g_strdup_printf ("UPDATE frames SET %s = ? WHERE pkt = %u",
          frame_cols[op % G_N_ELEMENTS (frame_cols)], row % (N_PACKETS + 1));
    if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK) {
      if (sqlite3_bind_parameter_count (st) > 0)
        bind_value (st, 1, &p, end);
      sqlite3_step (st);        /* a constraint may refuse it: fine */
      sqlite3_finalize (st);
    }
    g_free (sql);
  }
  sqlite3_close (db);
}

/* Reads @info as stagesrc does: every packet alone, each keyframe
 * interval in one read, the keyframe check where a decode would start. */
static void
read_stream (StageStore * st, const StageStreamInfo * info)
{
  StageStoreReader *r;
  StageFrame *frames;
  gsize n, i, last;

  frames = stage_store_load_frames (st, info, &n, NULL);
  if (frames == NULL)
    return;
  r = stage_store_reader_new (st, info);
  for (i = 0; i < n; i++) {
    GBytes *b = stage_store_reader_read (r, frames, i, i, NULL);

    if (b) {
      gsize len;
      const guint8 *d = g_bytes_get_data (b, &len);

      if (len != (gsize) frames[i].size)
        abort ();
      stage_store_check_keyframe (st, info, frames, i, d, len, NULL);
      stage_store_is_idr (info->codec, d, len, 4);
      g_bytes_unref (b);
    }
    if (!frames[i].keyframe && i > 0)
      continue;
    for (last = i; last + 1 < n && !frames[last + 1].keyframe
        && frames[last + 1].chunk == frames[i].chunk; last++);
    b = stage_store_reader_read (r, frames, i, last, NULL);
    if (b)
      g_bytes_unref (b);
  }
  stage_store_reader_free (r);
  g_free (frames);
  stage_store_verify_stream (st, info, NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  StageStore *st;
  StageStreamInfo *info;
  GPtrArray *list, *orphans;
  gchar *wal, *shm;
  FILE *f;
  guint i;

  if (dir == NULL)
    setup ();
  f = fopen (catalog, "wb");     /* (g_file_set_contents would fsync) */
  if (f == NULL || fwrite (pristine, 1, pristine_len, f) != pristine_len)
    abort ();
  fclose (f);
  wal = g_strconcat (catalog, "-wal", NULL);
  shm = g_strconcat (catalog, "-shm", NULL);
  g_unlink (wal);
  g_unlink (shm);
  g_free (wal);
  g_free (shm);
  mutate (data, size);

  st = stage_store_open_read (dir, NULL);
  if (st == NULL)
    return 0;
  list = stage_store_list (st, NULL);
  for (i = 0; list && i < list->len; i++)
    read_stream (st, list->pdata[i]);
  info = stage_store_lookup (st, "s", NULL);
  if (info)
    read_stream (st, info);
  stage_stream_info_free (info);
  g_free (stage_store_nearest_names (st, "t", 3));
  orphans = stage_store_orphans (st, NULL);
  if (orphans)
    g_ptr_array_unref (orphans);
  if (list)
    g_ptr_array_unref (list);
  stage_store_close (st);
  return 0;
}
