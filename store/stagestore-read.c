/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The store: reading chunks back, and verifying a stream. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "stagestore-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* ---- reading ---- */

struct StageStoreReader
{
  StageStore *store;
  StageStreamInfo info;         /* shallow: name and data are copies */
  gint64 chunk;                 /* open chunk, -1 none */
  int fd;
  gchar *path;
};

StageStoreReader *
stage_store_reader_new (StageStore * store, const StageStreamInfo * info)
{
  StageStoreReader *r = g_new0 (StageStoreReader, 1);

  r->store = store;
  r->info.name = g_strdup (info->name);
  r->info.data = g_strdup (info->data);
  r->chunk = -1;
  r->fd = -1;
  return r;
}

void
stage_store_reader_free (StageStoreReader * r)
{
  if (r == NULL)
    return;
  if (r->fd >= 0)
    close (r->fd);
  g_free (r->info.name);
  g_free (r->info.data);
  g_free (r->path);
  g_free (r);
}

static gboolean
reader_open_chunk (StageStoreReader * r, gint64 chunk, GError ** error)
{
  if (r->chunk == chunk)
    return TRUE;
  if (r->fd >= 0)
    close (r->fd);
  g_free (r->path);
  r->path = stage_store_chunk_path (r->store, &r->info, chunk);
  r->fd = open (r->path, O_RDONLY | O_CLOEXEC);
  if (r->fd < 0) {
    g_set_error (error, STAGE_STORE_ERROR, errno == ENOENT ?
        STAGE_STORE_ERROR_CORRUPT : STAGE_STORE_ERROR_IO,
        "Store '%s', stream '%s': cannot open chunk %" G_GINT64_FORMAT
        " (%s): %s", stage_store_get_dir (r->store), r->info.name, chunk,
        r->path, g_strerror (errno));
    r->chunk = -1;
    return FALSE;
  }
  r->chunk = chunk;
  return TRUE;
}

GBytes *
stage_store_reader_read (StageStoreReader * r, const StageFrame * frames,
    gsize first, gsize last, GError ** error)
{
  gint64 start = frames[first].offset, end = -1, len = -1, got = 0;
  guint8 *buf;
  gsize i;

  if (frames[last].offset >= 0 && frames[last].size >= 0
      && frames[last].offset <= G_MAXINT64 - frames[last].size) {
    end = frames[last].offset + frames[last].size;
    len = start >= 0 ? end - start : -1;
  }
  if (first > last || len < 0 || len > G_MAXINT32) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s', stream '%s': impossible byte range %" G_GINT64_FORMAT
        "..%" G_GINT64_FORMAT " for packets %" G_GSIZE_FORMAT "..%"
        G_GSIZE_FORMAT " in the frame index", stage_store_get_dir (r->store),
        r->info.name, start, end, first, last);
    return NULL;
  }
  if (!reader_open_chunk (r, frames[first].chunk, error))
    return NULL;
  buf = g_malloc (MAX (len, 1));
  while (got < len) {
    ssize_t n = pread (r->fd, buf + got, len - got, start + got);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      g_set_error (error, STAGE_STORE_ERROR, n < 0 ? STAGE_STORE_ERROR_IO :
          STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s', chunk %s: %s reading bytes %"
          G_GINT64_FORMAT "..%" G_GINT64_FORMAT " (frames at decode "
          "positions %" G_GSIZE_FORMAT "..%" G_GSIZE_FORMAT ")",
          stage_store_get_dir (r->store), r->info.name, r->path,
          n < 0 ? g_strerror (errno) : "truncated: end of file", start, end,
          first, last);
      g_free (buf);
      return NULL;
    }
    got += n;
  }
  for (i = first; i <= last; i++) {
    const StageFrame *f = &frames[i];

    /* The caller's index may be anything the catalog said: no byte
     * outside what was read is looked at. */
    if (f->size < 0 || f->offset < start || f->offset > end
        || f->size > end - f->offset) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s', packet %" G_GSIZE_FORMAT ": bytes %"
          G_GINT64_FORMAT " (+%" G_GINT64_FORMAT ") lie outside the range "
          "%" G_GINT64_FORMAT "..%" G_GINT64_FORMAT " read from chunk %s: "
          "the frame index is corrupt", stage_store_get_dir (r->store),
          r->info.name, i, f->offset, f->size, start, end, r->path);
      g_free (buf);
      return NULL;
    }
    if (stage_store_crc32 (0, buf + (f->offset - start), f->size) != f->crc) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s', chunk %s: corrupt data: frame %"
          G_GINT64_FORMAT " (bytes %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT
          ") fails its checksum", stage_store_get_dir (r->store),
          r->info.name, r->path, f->index, f->offset, f->offset + f->size);
      g_free (buf);
      return NULL;
    }
  }
  return g_bytes_new_take (buf, len);
}

gboolean
stage_store_verify_stream (StageStore * store, const StageStreamInfo * info,
    GError ** error)
{
  gsize n;
  StageFrame *frames = stage_store_load_frames (store, info, &n, error);
  gboolean ok;

  if (frames == NULL)
    return FALSE;
  ok = store_check_frames (store, info, frames, n, error);
  g_free (frames);
  return ok;
}

gboolean
store_check_frames (StageStore * store, const StageStreamInfo * info,
    const StageFrame * frames, gsize n, GError ** error)
{
  StageStoreReader *r;
  gsize i, k, first;
  gboolean ok, have_keys = info->kind == STAGE_STORE_KIND_VIDEO;
  StagePacketOrder *po = g_new0 (StagePacketOrder, n + 1);
  StagePicOrder *parser = NULL;
  const guint8 *cd = NULL;
  gsize cd_size = 0;
  guint nls;

  if (info->codec_data)
    cd = g_bytes_get_data (info->codec_data, &cd_size);
  nls = stage_store_nal_length_size (info->codec, cd, cd_size);
  if (have_keys)
    parser = stage_store_pic_order_new (info->codec, cd, cd_size);
  ok = store_check_index (store, info, frames, n, error);
  r = stage_store_reader_new (store, info);
  for (first = 0; ok && first < n; first = i) {
    GBytes *b;
    gchar *path;
    GStatBuf sb;

    for (i = first + 1; i < n && frames[i].chunk == frames[first].chunk; i++);
    /* the whole chunk in one read: verify runs over every byte anyway */
    b = stage_store_reader_read (r, frames, first, i - 1, error);
    ok = b != NULL;
    for (k = first; ok && k < i; k++) {
      const guint8 *base = g_bytes_get_data (b, NULL);

      const guint8 *au = base + (frames[k].offset - frames[first].offset);

      ok = stage_store_check_keyframe (store, info, frames, k, au,
          frames[k].size, error);
      /* the bitstream's own order, read here, not taken from the writer */
      if (ok && info->kind == STAGE_STORE_KIND_VIDEO) {
        have_keys = have_keys && stage_store_pic_order_next (parser, au,
            frames[k].size, &po[k].key);
        po[k].idr = stage_store_is_idr (info->codec, au, frames[k].size, nls);
        po[k].rasl = g_strcmp0 (info->codec, "h265") == 0
            && stage_store_h265_is_rasl (au, frames[k].size, nls);
      }
    }
    if (b)
      g_bytes_unref (b);
    path = stage_store_chunk_path (store, info, frames[first].chunk);
    if (ok && g_stat (path, &sb) == 0 &&
        sb.st_size != frames[i - 1].offset + frames[i - 1].size) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s', chunk %s: %" G_GINT64_FORMAT " bytes, "
          "the index says %" G_GINT64_FORMAT, store->dir, info->name, path,
          (gint64) sb.st_size, frames[i - 1].offset + frames[i - 1].size);
      ok = FALSE;
    }
    g_free (path);
  }
  stage_store_reader_free (r);
  if (ok)
    ok = store_check_order (store, info, frames, n, po, have_keys, error);
  stage_store_pic_order_free (parser);
  g_free (po);
  return ok;
}
