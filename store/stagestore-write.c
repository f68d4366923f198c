/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The store: writing a stream (chunks, then one commit transaction). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "stagestore-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* ---- writing ---- */

struct StageStoreWriter
{
  StageStore *store;
  gchar *name;
  guint io_packet_size;
  gchar *data;                  /* data/<name>.<random> */
  gchar *abs_data;
  int lock_fd;
  gboolean committed;
  /* a write, flush or sync failed: what stdio buffered before it may be
   * lost with it (glibc drops a buffer it could not write), so this
   * stream can never be committed */
  gboolean failed;

  StageStoreKind kind;
  gchar *codec, *caps;
  GBytes *codec_data;
  gint fps_n, fps_d, width, height;
  gchar *created;

  GArray *frames;               /* StageFrame, decode order */

  /* Video: every packet received, dropped ones too (their times may be
   * another packet's: store_times_check), and what tells the leading
   * pictures of the first keyframe. */
  GArray *arrivals;             /* Arrival, decode order */
  StagePicOrder *order;
  gboolean order_made, have_keys;
  guint nls;
  gboolean seen_key, first_gop_done, first_idr;
  gint64 first_key, first_pts;
  gint64 dropped, decode_only;
  gint shift;
  FILE *chunk_file;
  gint64 chunk;                 /* current chunk, -1 before the first */
  gint64 chunk_frames, chunk_bytes, bytes, keyframes;
};

typedef struct
{
  StageTimes t;
  gint64 key;                   /* presentation order key, if have_keys */
  gint64 frame;                 /* position in frames, -1: dropped */
} Arrival;

/* What becomes of a video packet. */
typedef enum
{
  KEEP,                         /* a frame */
  DECODE_ONLY,                  /* fed to decoders, no frame */
  DROP,
} Fate;

static gchar *
sanitize (const gchar * name)
{
  GString *s = g_string_new (NULL);
  const gchar *p;

  for (p = name; *p && s->len < 48; p++)
    g_string_append_c (s, g_ascii_isalnum (*p) || *p == '-' || *p == '_'
        ? *p : '_');
  return g_string_free (s, FALSE);
}

/* The directory is made and its lock taken under the catalog's write
 * lock, which gc holds while it decides (stage_store_remove_orphan): gc
 * never sees a new directory before its lock is held. */
gboolean
store_new_data_dir (StageStore * store, const gchar * name, gchar ** data,
    gchar ** abs_data, int *lock_fd, GError ** error)
{
  gchar *safe = sanitize (name), *lock;
  gboolean tx = sqlite3_get_autocommit (store->db) != 0;
  int err;

  *data = g_strdup_printf ("data/%s.%08x%08x", safe, g_random_int (),
      g_random_int ());
  g_free (safe);
  *abs_data = g_build_filename (store->dir, *data, NULL);
  *lock_fd = -1;
  if (tx && !store_exec (store, "BEGIN IMMEDIATE", "new data directory",
          error)) {
    g_clear_pointer (data, g_free);
    g_clear_pointer (abs_data, g_free);
    return FALSE;
  }
  if (g_mkdir (*abs_data, 0777) != 0) {
    err = errno;
    if (tx)
      sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Store '%s': cannot create data directory %s for stream '%s': %s",
        store->dir, *abs_data, name, g_strerror (err));
    g_clear_pointer (data, g_free);
    g_clear_pointer (abs_data, g_free);
    return FALSE;
  }
  /* held until commit or death: tells gc this directory is in use */
  lock = g_build_filename (*abs_data, WRITING_LOCK, NULL);
  *lock_fd = open (lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (*lock_fd >= 0)
    flock (*lock_fd, LOCK_EX);
  g_free (lock);
  if (tx)
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
  return TRUE;
}

void
store_release_data_dir (const gchar * abs_data, int lock_fd,
    gboolean committed)
{
  if (abs_data) {
    gchar *lock = g_build_filename (abs_data, WRITING_LOCK, NULL);

    if (committed)
      g_unlink (lock);
    else
      store_remove_tree (abs_data);
    g_free (lock);
  }
  if (lock_fd >= 0)
    close (lock_fd);
}

StageStoreWriter *
stage_store_writer_new (StageStore * store, const gchar * name,
    guint io_packet_size, GError ** error)
{
  StageStoreWriter *w;

  if (!stage_store_check_name (name, error))
    return NULL;
  if (store->read_only) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Store '%s' was opened for reading: cannot write stream '%s'",
        store->dir, name);
    return NULL;
  }
  w = g_new0 (StageStoreWriter, 1);
  w->store = store;
  w->name = g_strdup (name);
  w->io_packet_size = MAX (io_packet_size, 1);
  w->chunk = -1;
  w->lock_fd = -1;
  w->fps_d = 1;
  w->frames = g_array_new (FALSE, FALSE, sizeof (StageFrame));
  w->arrivals = g_array_new (FALSE, FALSE, sizeof (Arrival));
  w->have_keys = TRUE;
  w->created = store_now_iso8601 ();
  if (!store_new_data_dir (store, name, &w->data, &w->abs_data, &w->lock_fd,
          error)) {
    stage_store_writer_free (w);
    return NULL;
  }
  return w;
}

void
stage_store_writer_set_format (StageStoreWriter * w, StageStoreKind kind,
    const gchar * codec, const gchar * caps, GBytes * codec_data,
    gint fps_n, gint fps_d, gint width, gint height)
{
  w->kind = kind;
  g_free (w->codec);
  w->codec = g_strdup (codec);
  g_free (w->caps);
  w->caps = g_strdup (caps ? caps : "");
  if (w->codec_data)
    g_bytes_unref (w->codec_data);
  w->codec_data = codec_data ? g_bytes_ref (codec_data) : NULL;
  w->fps_n = fps_d > 0 ? fps_n : 0;
  w->fps_d = fps_d > 0 ? fps_d : 1;
  w->width = width;
  w->height = height;
}

static gboolean
close_chunk (StageStoreWriter * w, GError ** error)
{
  gboolean ok;

  if (w->chunk_file == NULL)
    return TRUE;
  /* data on disk before the catalog can name it (power loss) */
  ok = fflush (w->chunk_file) == 0 && fdatasync (fileno (w->chunk_file)) == 0;
  ok &= fclose (w->chunk_file) == 0;
  w->chunk_file = NULL;
  if (!ok) {
    w->failed = TRUE;
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Store '%s', stream '%s': writing chunk %" G_GINT64_FORMAT " of %s "
        "failed: %s", w->store->dir, w->name, w->chunk, w->abs_data,
        g_strerror (errno));
  }
  return ok;
}

/* The chunk files' names, and the data directory's own, on disk before
 * the catalog names them: fdatasync() of a file does not persist its
 * directory entry. */
static gboolean
sync_data_dirs (StageStoreWriter * w, GError ** error)
{
  gchar *parent = g_path_get_dirname (w->abs_data);
  const gchar *dirs[] = { w->abs_data, parent };
  gboolean ok = TRUE;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (dirs) && ok; i++) {
    int fd = open (dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    ok = fd >= 0 && fsync (fd) == 0;
    if (!ok)
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
          "Store '%s', stream '%s': syncing directory %s failed: %s",
          w->store->dir, w->name, dirs[i], g_strerror (errno));
    if (fd >= 0)
      close (fd);
  }
  g_free (parent);
  if (!ok)
    w->failed = TRUE;
  return ok;
}

static gboolean
open_chunk (StageStoreWriter * w, GError ** error)
{
  gchar name[64], *path;

  if (!close_chunk (w, error))
    return FALSE;
  w->chunk++;
  g_snprintf (name, sizeof (name), "chunk-%06" G_GINT64_FORMAT ".bin",
      w->chunk);
  path = g_build_filename (w->abs_data, name, NULL);
  w->chunk_file = fopen (path, "wbx");
  if (w->chunk_file == NULL) {
    w->failed = TRUE;
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Store '%s', stream '%s': cannot create chunk %s: %s",
        w->store->dir, w->name, path, g_strerror (errno));
    g_free (path);
    return FALSE;
  }
  g_free (path);
  w->chunk_frames = 0;
  w->chunk_bytes = 0;
  return TRUE;
}

static gboolean
failed_error (StageStoreWriter * w, GError ** error)
{
  g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
      "Store '%s', stream '%s': an earlier write into %s failed, so the "
      "stream is incomplete and is not committed", w->store->dir, w->name,
      w->abs_data);
  return FALSE;
}

/* Whether a picture is presented before the stream's first keyframe:
 * decoded before it (nothing to decode it from), or a leading picture of
 * a first keyframe that is not an IDR (it may reference pictures before
 * the recording started: an H.264 picture displayed before its recovery
 * point, an H.265 RASL picture). An IDR's leading pictures (H.265 RADL,
 * H.264 pictures after an IDR with a lower POC) reference nothing before
 * it: they stay. */
static gboolean
is_undecodable (StageStoreWriter * w, const guint8 * data, gsize size,
    gboolean keyframe, const Arrival * a)
{
  if (keyframe) {
    if (w->seen_key) {
      w->first_gop_done = TRUE;
      return FALSE;
    }
    w->seen_key = TRUE;
    w->first_idr = stage_store_is_idr (w->codec, data, size, w->nls);
    w->first_key = w->have_keys ? a->key : STAGE_STORE_NONE;
    w->first_pts = a->t.pts;
    return FALSE;
  }
  if (!w->seen_key)
    return TRUE;
  if (w->first_gop_done || w->first_idr)
    return FALSE;
  if (g_strcmp0 (w->codec, "h265") == 0)
    return stage_store_h265_is_rasl (data, size, w->nls);
  if (w->have_keys && w->first_key != STAGE_STORE_NONE)
    return a->key < w->first_key;
  /* no picture order count to tell: the timestamps, then */
  return a->t.pts != STAGE_STORE_NONE && w->first_pts != STAGE_STORE_NONE
      && a->t.pts < w->first_pts;
}

/* An undecodable picture is no frame; an H.264 leading picture that is a
 * reference is still stored, decode-only: the pictures after it count it
 * in their frame_num and their reference lists, as the encoder did, and
 * a decoder that finds a frame_num gap invents a picture for it (which
 * gst-libav 1.24 and later pay for with a real one). Decoded from
 * references it lacks, it is never output, as in a full decode of the
 * recording; non-reference ones (nothing counts them) go. H.265 has no
 * frame_num, and a decoder starting at a CRA skips its RASL pictures. */
static Fate
fate_of (StageStoreWriter * w, const guint8 * data, gsize size,
    gboolean keyframe, const Arrival * a)
{
  if (!is_undecodable (w, data, size, keyframe, a))
    return KEEP;
  if (w->seen_key && g_strcmp0 (w->codec, "h264") == 0
      && w->decode_only < STAGE_STORE_MAX_DECODE_ONLY
      && !stage_store_is_disposable (w->codec, data, size, w->nls))
    return DECODE_ONLY;
  return DROP;
}

/* Records a video packet's arrival and says what becomes of it. */
static Fate
arrive (StageStoreWriter * w, const guint8 * data, gsize size, gint64 pts,
    gint64 dts, gint64 duration, gboolean keyframe)
{
  Arrival a = { {pts, dts, duration}, 0, w->frames->len };
  Fate fate;

  if (!w->order_made) {
    gsize len = 0;
    const guint8 *cd = w->codec_data ? g_bytes_get_data (w->codec_data,
        &len) : NULL;

    w->order = stage_store_pic_order_new (w->codec, cd, len);
    w->nls = stage_store_nal_length_size (w->codec, cd, len);
    w->order_made = TRUE;
  }
  if (w->have_keys)
    w->have_keys = stage_store_pic_order_next (w->order, data, size, &a.key);
  fate = fate_of (w, data, size, keyframe, &a);
  if (fate == DROP) {
    a.frame = -1;
    w->dropped++;
  }
  w->decode_only += fate == DECODE_ONLY;
  g_array_append_val (w->arrivals, a);
  return fate;
}

gboolean
stage_store_writer_add (StageStoreWriter * w, const guint8 * data,
    gsize size, gint64 pts, gint64 dts, gint64 duration, gboolean keyframe,
    GError ** error)
{
  StageFrame f;
  gboolean boundary;
  Fate fate = KEEP;

  if (w->failed)
    return failed_error (w, error);
  if (w->kind == STAGE_STORE_KIND_BYTES)
    keyframe = TRUE;
  else if ((fate = arrive (w, data, size, pts, dts, duration,
              keyframe)) == DROP)
    return TRUE;
  boundary = w->chunk < 0 || (keyframe && w->chunk_frames >=
      w->io_packet_size);
  if (boundary && !open_chunk (w, error))
    return FALSE;
  if (size > 0 && fwrite (data, 1, size, w->chunk_file) != size) {
    w->failed = TRUE;
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Store '%s', stream '%s': writing chunk %" G_GINT64_FORMAT " in %s "
        "failed: %s", w->store->dir, w->name, w->chunk, w->abs_data,
        g_strerror (errno));
    return FALSE;
  }
  /* numbered in add order, decode-only ones -1 for now: assign_indices */
  f.index = fate == DECODE_ONLY ? -1 : (gint64) (w->frames->len -
      w->decode_only);
  f.chunk = w->chunk;
  f.offset = w->chunk_bytes;
  f.size = size;
  f.pts = pts;
  f.dts = dts;
  f.duration = duration;
  f.keyframe = keyframe;
  f.crc = stage_store_crc32 (0, data, size);
  g_array_append_val (w->frames, f);
  w->chunk_frames++;
  w->chunk_bytes += size;
  w->bytes += size;
  w->keyframes += keyframe;
  return TRUE;
}

gint64
stage_store_writer_get_frames (StageStoreWriter * w)
{
  return w->frames->len - w->decode_only;
}

gint64
stage_store_writer_get_decode_only (StageStoreWriter * w)
{
  return w->decode_only;
}

gint64
stage_store_writer_get_dropped (StageStoreWriter * w)
{
  return w->dropped;
}

gint
stage_store_writer_get_shift (StageStoreWriter * w)
{
  return w->shift;
}

/* The stored frames' times against the bitstream's presentation order
 * (when every packet's could be told), repaired where they are provably
 * shifted; an error when they disagree otherwise: such a stream's frame
 * numbers would name other pictures than a decode outputs. */
static gboolean
check_times (StageStoreWriter * w, GError ** error)
{
  gsize n = w->arrivals->len, i, bad;
  Arrival *a = (Arrival *) w->arrivals->data;
  StageFrame *frames = (StageFrame *) w->frames->data;
  StageTimes *t;
  gint64 *keys;
  gboolean ok;

  if (w->kind != STAGE_STORE_KIND_VIDEO || !w->have_keys || n == 0)
    return TRUE;
  t = g_new (StageTimes, n);
  keys = g_new (gint64, n);
  for (i = 0; i < n; i++) {
    t[i] = a[i].t;
    keys[i] = a[i].key;
  }
  ok = store_times_check (t, n, keys, &w->shift, &bad);
  if (ok && w->shift != 0) {
    g_debug ("stream '%s': timestamps shifted by %d packets: repaired",
        w->name, w->shift);
    for (i = 0; i < n; i++) {
      if (a[i].frame < 0)
        continue;
      frames[a[i].frame].pts = t[i].pts;
      frames[a[i].frame].dts = t[i].dts;
      frames[a[i].frame].duration = t[i].duration;
    }
  } else if (!ok) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Store '%s', stream '%s': the timestamps disagree with the "
        "bitstream: packet %" G_GSIZE_FORMAT " (in decode order) has PTS %"
        G_GINT64_FORMAT " ns, out of the order its picture order count "
        "gives, and no shift by one or two packets explains it. Its frame "
        "numbers would name other pictures than a decoder outputs, so the "
        "stream is not committed: the demuxer or parser upstream gave wrong "
        "timestamps (try another demuxer or parser, or remux the file)",
        w->store->dir, w->name, bad, t[bad].pts);
    w->failed = TRUE;
  }
  g_free (t);
  g_free (keys);
  return ok;
}

/* A frame's presentation time and write position: sorted on their own,
 * the order needs no pointer back to the frames (g_qsort_with_data() is
 * deprecated from GLib 2.82; plain qsort() serves every version). */
typedef struct
{
  gint64 pts;
  gsize pos;
  gboolean decode_only;         /* sorted first, whatever its time */
} PtsPos;

static int
cmp_by_pts (const void *a, const void *b)
{
  const PtsPos *x = a, *y = b;

  if (x->decode_only != y->decode_only)
    return x->decode_only ? -1 : 1;
  if (x->pts != y->pts)
    return x->pts < y->pts ? -1 : 1;
  return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

/* Frame index = position in presentation order: decoders output frames in
 * PTS order, so this is the index a full decode gives each frame. Without
 * timestamps on every video packet, or for blobs, it is the write order.
 * The K decode-only packets, leading pictures of the first keyframe, are
 * presented before every frame: they take -K to -1. */
static void
assign_indices (StageStoreWriter * w)
{
  StageFrame *frames = (StageFrame *) w->frames->data;
  gsize n = w->frames->len, i, k = 0;
  gint64 lead = w->decode_only;
  gboolean all_pts = w->kind == STAGE_STORE_KIND_VIDEO;
  PtsPos *order;

  for (i = 0; i < n && all_pts; i++)
    all_pts = frames[i].pts != STAGE_STORE_NONE;
  if (!all_pts || n == 0) {
    /* write order, set in add(), but for the decode-only packets */
    for (i = 0; i < n; i++)
      if (frames[i].index < 0)
        frames[i].index = (gint64) k++ - lead;
    return;
  }
  order = g_new (PtsPos, n);
  for (i = 0; i < n; i++) {
    order[i].pts = frames[i].pts;
    order[i].pos = i;
    order[i].decode_only = frames[i].index < 0;
  }
  qsort (order, n, sizeof (PtsPos), cmp_by_pts);
  for (i = 0; i < n; i++)
    frames[order[i].pos].index = (gint64) i - lead;
  g_free (order);
}

/* A variable-rate source's caps may carry any rate (one demuxer derives
 * it from the first sample's duration: 1000000/1). Where the caps' rate
 * is unknown or more than 2x off the frames' mean rate, the stream
 * records the mean (to 1/1000 fps), in its caps too: it is what the
 * decoded stream, `stage-store ls` and muxers downstream then see. */
static void
check_rate (StageStoreWriter * w)
{
  const StageFrame *f = (const StageFrame *) w->frames->data;
  gint64 lo = G_MAXINT64, hi = G_MININT64;
  gdouble mean, caps_rate;
  gint n, d = 1000;
  gsize i;

  if (w->kind != STAGE_STORE_KIND_VIDEO || w->frames->len < 3)
    return;
  for (i = 0; i < w->frames->len; i++) {
    if (f[i].pts == STAGE_STORE_NONE)
      return;
    if (f[i].index < 0)
      continue;                 /* decode-only: no frame */
    lo = MIN (lo, f[i].pts);
    hi = MAX (hi, f[i].pts);
  }
  if (hi <= lo)
    return;
  mean = (gdouble) (w->frames->len - w->decode_only - 1) * 1e9 / (hi - lo);
  caps_rate = w->fps_n > 0 ? (gdouble) w->fps_n / w->fps_d : 0.0;
  if (caps_rate > 0.0 && caps_rate < 2.0 * mean && caps_rate > mean / 2.0)
    return;
  n = (gint) (mean * d + 0.5);
  if (n <= 0)
    return;
  g_debug ("stream '%s': caps rate %g, frames' mean %g: recording the mean",
      w->name, caps_rate, mean);
  for (i = 2; i <= (gsize) d; i++)
    while (n % i == 0 && d % i == 0) {
      n /= i;
      d /= i;
    }
  w->fps_n = n;
  w->fps_d = d;
  if (w->caps) {
    GRegex *re = g_regex_new ("framerate=\\(fraction\\)[0-9]+/[0-9]+", 0, 0,
        NULL);
    gchar *rate = g_strdup_printf ("framerate=(fraction)%d/%d", n, d);
    gchar *caps = g_regex_replace_literal (re, w->caps, -1, 0, rate, 0, NULL);

    if (caps) {
      g_free (w->caps);
      w->caps = caps;
    }
    g_free (rate);
    g_regex_unref (re);
  }
}

static void
bind_time (sqlite3_stmt * st, int col, gint64 t)
{
  if (t == STAGE_STORE_NONE)
    sqlite3_bind_null (st, col);
  else
    sqlite3_bind_int64 (st, col, t);
}

gboolean
store_insert_stream (StageStore * store, const StageStreamInfo * info,
    const StageFrame * frames, gsize n, gint64 * id, GError ** error)
{
  sqlite3_stmt *st;
  gchar *now = store_now_iso8601 ();
  gsize i, decode_only = stage_store_count_decode_only (frames, n);
  gboolean ok;

  /* readers of format 1 would take the negative indices for damage */
  if (decode_only > 0 && !store_exec (store, "UPDATE meta SET value = '2' "
          "WHERE key = 'format' AND CAST(value AS INTEGER) < 2",
          "catalog format update", error)) {
    g_free (now);
    return FALSE;
  }
  if (!store_prepare (store, "INSERT INTO streams (name, kind, codec, "
          "caps, codec_data, frames, keyframes, chunks, bytes, fps_n, fps_d, "
          "width, height, io_packet_size, data, created, committed) VALUES "
          "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &st, "insert", error)) {
    g_free (now);
    return FALSE;
  }
  sqlite3_bind_text (st, 1, info->name, -1, SQLITE_STATIC);
  sqlite3_bind_text (st, 2, info->kind == STAGE_STORE_KIND_VIDEO ? "video" :
      "bytes", -1, SQLITE_STATIC);
  if (info->codec)
    sqlite3_bind_text (st, 3, info->codec, -1, SQLITE_STATIC);
  sqlite3_bind_text (st, 4, info->caps ? info->caps : "", -1, SQLITE_STATIC);
  if (info->codec_data) {
    gsize len;
    gconstpointer p = g_bytes_get_data (info->codec_data, &len);

    sqlite3_bind_blob (st, 5, p, len, SQLITE_STATIC);
  }
  sqlite3_bind_int64 (st, 6, n - decode_only);
  sqlite3_bind_int64 (st, 7, info->keyframes);
  sqlite3_bind_int64 (st, 8, info->chunks);
  sqlite3_bind_int64 (st, 9, info->bytes);
  sqlite3_bind_int (st, 10, info->fps_n);
  sqlite3_bind_int (st, 11, info->fps_d);
  sqlite3_bind_int (st, 12, info->width);
  sqlite3_bind_int (st, 13, info->height);
  sqlite3_bind_int64 (st, 14, info->io_packet_size);
  sqlite3_bind_text (st, 15, info->data, -1, SQLITE_STATIC);
  sqlite3_bind_text (st, 16, info->created ? info->created : now, -1,
      SQLITE_STATIC);
  sqlite3_bind_text (st, 17, info->committed ? info->committed : now, -1,
      SQLITE_STATIC);
  ok = store_step_done (store, st, "insert", error);
  g_free (now);
  if (!ok)
    return FALSE;
  *id = sqlite3_last_insert_rowid (store->db);

  if (!store_prepare (store, "INSERT INTO frames (stream, idx, pkt, "
          "chunk, offset, size, pts, dts, duration, keyframe, crc) VALUES "
          "(?,?,?,?,?,?,?,?,?,?,?)", &st, "frame index insert", error))
    return FALSE;
  for (i = 0; i < n; i++) {
    const StageFrame *f = &frames[i];

    sqlite3_bind_int64 (st, 1, *id);
    sqlite3_bind_int64 (st, 2, f->index);
    sqlite3_bind_int64 (st, 3, i);
    sqlite3_bind_int64 (st, 4, f->chunk);
    sqlite3_bind_int64 (st, 5, f->offset);
    sqlite3_bind_int64 (st, 6, f->size);
    bind_time (st, 7, f->pts);
    bind_time (st, 8, f->dts);
    bind_time (st, 9, f->duration);
    sqlite3_bind_int (st, 10, f->keyframe);
    sqlite3_bind_int64 (st, 11, f->crc);
    if (sqlite3_step (st) != SQLITE_DONE) {
      store_db_fail (store, "frame index insert", error);
      sqlite3_finalize (st);
      return FALSE;
    }
    sqlite3_reset (st);
  }
  sqlite3_finalize (st);
  return TRUE;
}

/* The writer's stream as a catalog row. */
static gboolean
insert_rows (StageStoreWriter * w, gint64 * id, GError ** error)
{
  StageStreamInfo info = { 0 };

  info.name = w->name;
  info.kind = w->kind;
  info.codec = w->codec;
  info.caps = w->caps;
  info.codec_data = w->codec_data;
  info.keyframes = w->keyframes;
  info.chunks = w->chunk + 1;
  info.bytes = w->bytes;
  info.fps_n = w->fps_n;
  info.fps_d = w->fps_d;
  info.width = w->width;
  info.height = w->height;
  info.io_packet_size = w->io_packet_size;
  info.data = w->data;
  info.created = w->created;
  return store_insert_stream (w->store, &info,
      (const StageFrame *) w->frames->data, w->frames->len, id, error);
}

gboolean
stage_store_writer_commit (StageStoreWriter * w, StageStoreMode mode,
    GError ** error)
{
  StageStore *store = w->store;
  StageStreamInfo *old = NULL;
  gint64 id;
  sqlite3_stmt *st;
  int rc;

  if (w->failed)
    return failed_error (w, error);
  if (!close_chunk (w, error) || !sync_data_dirs (w, error)
      || !check_times (w, error))
    return FALSE;
  assign_indices (w);
  if (!store_exec (store, "BEGIN IMMEDIATE", "commit", error))
    return FALSE;
  if (!store_prepare (store, "SELECT " STREAM_COLUMNS " FROM streams "
          "WHERE name = ?", &st, "commit", error))
    goto rollback;
  sqlite3_bind_text (st, 1, w->name, -1, SQLITE_STATIC);
  rc = sqlite3_step (st);
  if (rc == SQLITE_ROW)
    old = store_info_from_row (st);
  else if (rc != SQLITE_DONE)
    store_db_fail (store, "commit", error);
  sqlite3_finalize (st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    goto rollback;
  if (old && mode != STAGE_STORE_MODE_OVERWRITE) {
    if (mode == STAGE_STORE_MODE_IGNORE) {
      /* another writer committed it meanwhile: theirs stays */
      sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
      stage_stream_info_free (old);
      return TRUE;
    }
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_EXISTS,
        "Store '%s' already has a stream '%s' (committed %s by another "
        "writer while this one wrote): use mode=overwrite to replace it",
        store->dir, w->name, old->committed);
    goto rollback;
  }
  if (old && !store_delete_stream_rows (store, old->id,
          "replacing the old stream", error))
    goto rollback;
  check_rate (w);
  if (!insert_rows (w, &id, error))
    goto rollback;
  if (!store_exec (store, "COMMIT", "commit", error))
    goto rollback;
  w->committed = TRUE;
  if (old)
    store_remove_data (store, old->data);
  stage_stream_info_free (old);
  return TRUE;

rollback:
  sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
  stage_stream_info_free (old);
  return FALSE;
}

void
stage_store_writer_free (StageStoreWriter * w)
{
  if (w == NULL)
    return;
  if (w->chunk_file)
    fclose (w->chunk_file);
  store_release_data_dir (w->abs_data, w->lock_fd, w->committed);
  if (w->codec_data)
    g_bytes_unref (w->codec_data);
  g_array_free (w->frames, TRUE);
  g_array_free (w->arrivals, TRUE);
  stage_store_pic_order_free (w->order);
  g_free (w->name);
  g_free (w->data);
  g_free (w->abs_data);
  g_free (w->codec);
  g_free (w->caps);
  g_free (w->created);
  g_free (w);
}
