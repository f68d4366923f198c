/* The store: catalog (SQLite) and chunk files. See stagestore.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "stagestore.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <sqlite3.h>

/* A writer that waits longer than this for another's commit gives up. */
#define BUSY_TIMEOUT_MS 60000
#define WRITING_LOCK ".writing"

struct StageStore
{
  gchar *dir;
  sqlite3 *db;
};

G_DEFINE_QUARK (stage-store-error-quark, stage_store_error);

static const char *schema =
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);"
    "INSERT OR IGNORE INTO meta VALUES ('format', '1');"
    "CREATE TABLE IF NOT EXISTS streams ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL UNIQUE,"
    "  kind TEXT NOT NULL CHECK (kind IN ('video', 'bytes')),"
    "  codec TEXT,"
    "  caps TEXT NOT NULL,"
    "  codec_data BLOB,"
    "  frames INTEGER NOT NULL,"
    "  keyframes INTEGER NOT NULL,"
    "  chunks INTEGER NOT NULL,"
    "  bytes INTEGER NOT NULL,"
    "  fps_n INTEGER NOT NULL, fps_d INTEGER NOT NULL,"
    "  width INTEGER NOT NULL, height INTEGER NOT NULL,"
    "  io_packet_size INTEGER NOT NULL,"
    "  data TEXT NOT NULL,"
    "  created TEXT NOT NULL,"
    "  committed TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS frames ("
    "  stream INTEGER NOT NULL REFERENCES streams(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  pkt INTEGER NOT NULL,"
    "  chunk INTEGER NOT NULL,"
    "  offset INTEGER NOT NULL,"
    "  size INTEGER NOT NULL,"
    "  pts INTEGER, dts INTEGER, duration INTEGER,"
    "  keyframe INTEGER NOT NULL,"
    "  crc INTEGER NOT NULL,"
    "  PRIMARY KEY (stream, idx)) WITHOUT ROWID;"
    "CREATE UNIQUE INDEX IF NOT EXISTS frames_pkt ON frames (stream, pkt);";

/* ---- helpers ---- */

static gboolean
db_fail (StageStore * store, const gchar * what, GError ** error)
{
  int code = sqlite3_errcode (store->db);
  StageStoreError e = (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
      ? STAGE_STORE_ERROR_CORRUPT : STAGE_STORE_ERROR_IO;

  g_set_error (error, STAGE_STORE_ERROR, e,
      "Store '%s': catalog %s failed: %s%s", store->dir, what,
      sqlite3_errmsg (store->db), e == STAGE_STORE_ERROR_CORRUPT ?
      " (the catalog is corrupt: restore catalog.db from a backup)" : "");
  return FALSE;
}

static gboolean
exec (StageStore * store, const gchar * sql, const gchar * what,
    GError ** error)
{
  if (sqlite3_exec (store->db, sql, NULL, NULL, NULL) != SQLITE_OK)
    return db_fail (store, what, error);
  return TRUE;
}

static gchar *
now_iso8601 (void)
{
  GDateTime *dt = g_date_time_new_now_utc ();
  gchar *s = g_date_time_format (dt, "%Y-%m-%dT%H:%M:%SZ");

  g_date_time_unref (dt);
  return s;
}

/* CRC-32 (IEEE, as zlib's crc32), table built once. */
guint32
stage_store_crc32 (guint32 crc, const guint8 * data, gsize size)
{
  static guint32 table[256];
  static gsize init = 0;
  gsize i;

  if (g_once_init_enter (&init)) {
    guint32 n, k, c;

    for (n = 0; n < 256; n++) {
      c = n;
      for (k = 0; k < 8; k++)
        c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[n] = c;
    }
    g_once_init_leave (&init, 1);
  }
  crc = ~crc;
  for (i = 0; i < size; i++)
    crc = table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

gboolean
stage_store_check_name (const gchar * name, GError ** error)
{
  const gchar *p;

  if (name == NULL || *name == '\0') {
    g_set_error_literal (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "No stream name given");
    return FALSE;
  }
  if (strlen (name) > 255 || !g_utf8_validate (name, -1, NULL)) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Invalid stream name '%s': at most 255 bytes of UTF-8", name);
    return FALSE;
  }
  for (p = name; *p; p++)
    if ((guchar) * p < 0x20) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
          "Invalid stream name '%s': control characters are not allowed",
          name);
      return FALSE;
    }
  return TRUE;
}

/* ---- open / close ---- */

StageStore *
stage_store_open (const gchar * dir, gboolean create, GError ** error)
{
  StageStore *store;
  gchar *path, *data, *version = NULL;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  sqlite3_stmt *st;

  if (dir == NULL || *dir == '\0') {
    g_set_error_literal (error, STAGE_STORE_ERROR,
        STAGE_STORE_ERROR_NOT_STORE, "No store directory given");
    return NULL;
  }
  path = g_build_filename (dir, STAGE_STORE_CATALOG, NULL);
  if (!create && !g_file_test (dir, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_NOT_STORE,
        "Store '%s' does not exist (no such directory)", dir);
    g_free (path);
    return NULL;
  }
  if (!create && !g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_NOT_STORE,
        "'%s' is not a store: it has no " STAGE_STORE_CATALOG, dir);
    g_free (path);
    return NULL;
  }
  data = g_build_filename (dir, "data", NULL);
  if (create && g_mkdir_with_parents (data, 0777) != 0) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Could not create store '%s': %s", dir, g_strerror (errno));
    g_free (data);
    g_free (path);
    return NULL;
  }
  g_free (data);

  store = g_new0 (StageStore, 1);
  store->dir = g_strdup (dir);
  if (create)
    flags |= SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2 (path, &store->db, flags, NULL) != SQLITE_OK) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_NOT_STORE,
        "Could not open the catalog of store '%s' (%s): %s", dir, path,
        store->db ? sqlite3_errmsg (store->db) : "out of memory");
    g_free (path);
    stage_store_close (store);
    return NULL;
  }
  g_free (path);
  sqlite3_busy_timeout (store->db, BUSY_TIMEOUT_MS);
  sqlite3_extended_result_codes (store->db, 0);

  if (!exec (store, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
          "PRAGMA foreign_keys=ON;", "setup", error))
    goto fail;
  if (create) {
    if (!exec (store, "BEGIN IMMEDIATE", "setup", error))
      goto fail;
    if (!exec (store, schema, "creation", error)) {
      sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
      goto fail;
    }
    if (!exec (store, "COMMIT", "creation", error))
      goto fail;
  }
  if (sqlite3_prepare_v2 (store->db,
          "SELECT value FROM meta WHERE key = 'format'", -1, &st,
          NULL) != SQLITE_OK) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s': the catalog is not a stream catalog or is corrupt: %s",
        dir, sqlite3_errmsg (store->db));
    goto fail;
  }
  if (sqlite3_step (st) == SQLITE_ROW)
    version = g_strdup ((const gchar *) sqlite3_column_text (st, 0));
  sqlite3_finalize (st);
  if (version == NULL || atoi (version) != STAGE_STORE_FORMAT_VERSION) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s': catalog format '%s' is not the supported format %d",
        dir, version ? version : "(none)", STAGE_STORE_FORMAT_VERSION);
    g_free (version);
    goto fail;
  }
  g_free (version);
  return store;

fail:
  stage_store_close (store);
  return NULL;
}

void
stage_store_close (StageStore * store)
{
  if (store == NULL)
    return;
  if (store->db)
    sqlite3_close_v2 (store->db);
  g_free (store->dir);
  g_free (store);
}

const gchar *
stage_store_get_dir (StageStore * store)
{
  return store->dir;
}

/* ---- streams ---- */

#define STREAM_COLUMNS "id, name, kind, codec, caps, codec_data, frames, " \
  "keyframes, chunks, bytes, fps_n, fps_d, width, height, io_packet_size, " \
  "data, created, committed"

static gchar *
col_text (sqlite3_stmt * st, int i)
{
  const unsigned char *t = sqlite3_column_text (st, i);

  return t ? g_strdup ((const gchar *) t) : NULL;
}

static StageStreamInfo *
info_from_row (sqlite3_stmt * st)
{
  StageStreamInfo *info = g_new0 (StageStreamInfo, 1);
  const gchar *kind = (const gchar *) sqlite3_column_text (st, 2);

  info->id = sqlite3_column_int64 (st, 0);
  info->name = col_text (st, 1);
  info->kind = g_strcmp0 (kind, "video") == 0 ? STAGE_STORE_KIND_VIDEO :
      STAGE_STORE_KIND_BYTES;
  info->codec = col_text (st, 3);
  info->caps = col_text (st, 4);
  if (sqlite3_column_type (st, 5) == SQLITE_BLOB)
    info->codec_data = g_bytes_new (sqlite3_column_blob (st, 5),
        sqlite3_column_bytes (st, 5));
  info->frames = sqlite3_column_int64 (st, 6);
  info->keyframes = sqlite3_column_int64 (st, 7);
  info->chunks = sqlite3_column_int64 (st, 8);
  info->bytes = sqlite3_column_int64 (st, 9);
  info->fps_n = sqlite3_column_int (st, 10);
  info->fps_d = sqlite3_column_int (st, 11);
  info->width = sqlite3_column_int (st, 12);
  info->height = sqlite3_column_int (st, 13);
  info->io_packet_size = sqlite3_column_int64 (st, 14);
  info->data = col_text (st, 15);
  info->created = col_text (st, 16);
  info->committed = col_text (st, 17);
  if (info->fps_d <= 0) {
    info->fps_n = 0;
    info->fps_d = 1;
  }
  return info;
}

void
stage_stream_info_free (StageStreamInfo * info)
{
  if (info == NULL)
    return;
  g_free (info->name);
  g_free (info->codec);
  g_free (info->caps);
  if (info->codec_data)
    g_bytes_unref (info->codec_data);
  g_free (info->data);
  g_free (info->created);
  g_free (info->committed);
  g_free (info);
}

GPtrArray *
stage_store_list (StageStore * store, GError ** error)
{
  GPtrArray *arr;
  sqlite3_stmt *st;
  int rc;

  if (sqlite3_prepare_v2 (store->db, "SELECT " STREAM_COLUMNS
          " FROM streams ORDER BY name", -1, &st, NULL) != SQLITE_OK) {
    db_fail (store, "listing", error);
    return NULL;
  }
  arr = g_ptr_array_new_with_free_func ((GDestroyNotify)
      stage_stream_info_free);
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    g_ptr_array_add (arr, info_from_row (st));
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE) {
    db_fail (store, "listing", error);
    g_ptr_array_unref (arr);
    return NULL;
  }
  return arr;
}

static guint
edit_distance (const gchar * a, const gchar * b)
{
  gsize la = strlen (a), lb = strlen (b), i, j;
  guint *prev = g_new (guint, lb + 1), *cur = g_new (guint, lb + 1), *t, d;

  for (j = 0; j <= lb; j++)
    prev[j] = j;
  for (i = 1; i <= la; i++) {
    cur[0] = i;
    for (j = 1; j <= lb; j++) {
      guint sub = prev[j - 1] + (g_ascii_tolower (a[i - 1]) !=
          g_ascii_tolower (b[j - 1]));
      cur[j] = MIN (MIN (prev[j] + 1, cur[j - 1] + 1), sub);
    }
    t = prev;
    prev = cur;
    cur = t;
  }
  d = prev[lb];
  g_free (prev);
  g_free (cur);
  return d;
}

typedef struct
{
  guint dist;
  const gchar *name;
} Candidate;

static gint
cmp_candidate (gconstpointer a, gconstpointer b)
{
  const Candidate *x = a, *y = b;

  if (x->dist != y->dist)
    return x->dist < y->dist ? -1 : 1;
  return g_strcmp0 (x->name, y->name);
}

gchar *
stage_store_nearest_names (StageStore * store, const gchar * name, guint max)
{
  GPtrArray *all = stage_store_list (store, NULL);
  GArray *cands;
  GString *s;
  guint i;

  if (all == NULL || all->len == 0) {
    if (all)
      g_ptr_array_unref (all);
    return NULL;
  }
  cands = g_array_new (FALSE, FALSE, sizeof (Candidate));
  for (i = 0; i < all->len; i++) {
    StageStreamInfo *info = g_ptr_array_index (all, i);
    Candidate c = { edit_distance (name, info->name), info->name };

    /* a name that contains the asked one, or the reverse, is close */
    if (strstr (info->name, name) || strstr (name, info->name))
      c.dist = MIN (c.dist, 1);
    g_array_append_val (cands, c);
  }
  g_array_sort (cands, cmp_candidate);
  s = g_string_new (NULL);
  for (i = 0; i < cands->len && i < max; i++)
    g_string_append_printf (s, "%s'%s'", i ? ", " : "",
        g_array_index (cands, Candidate, i).name);
  g_array_free (cands, TRUE);
  g_ptr_array_unref (all);
  return g_string_free (s, FALSE);
}

StageStreamInfo *
stage_store_lookup (StageStore * store, const gchar * name, GError ** error)
{
  StageStreamInfo *info = NULL;
  sqlite3_stmt *st;
  int rc;

  if (!stage_store_check_name (name, error))
    return NULL;
  if (sqlite3_prepare_v2 (store->db, "SELECT " STREAM_COLUMNS
          " FROM streams WHERE name = ?", -1, &st, NULL) != SQLITE_OK) {
    db_fail (store, "lookup", error);
    return NULL;
  }
  sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (st);
  if (rc == SQLITE_ROW)
    info = info_from_row (st);
  else if (rc != SQLITE_DONE)
    db_fail (store, "lookup", error);
  sqlite3_finalize (st);
  if (info == NULL && rc == SQLITE_DONE) {
    gchar *near = stage_store_nearest_names (store, name, 3);

    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_NOT_FOUND,
        "Store '%s' has no stream '%s'%s%s", store->dir, name,
        near ? "; nearest names: " : " (the store is empty)",
        near ? near : "");
    g_free (near);
  }
  return info;
}

gboolean
stage_store_has_stream (StageStore * store, const gchar * name,
    gboolean * exists, GError ** error)
{
  sqlite3_stmt *st;
  int rc;

  if (sqlite3_prepare_v2 (store->db, "SELECT 1 FROM streams WHERE name = ?",
          -1, &st, NULL) != SQLITE_OK)
    return db_fail (store, "lookup", error);
  sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return db_fail (store, "lookup", error);
  *exists = rc == SQLITE_ROW;
  return TRUE;
}

StageFrame *
stage_store_load_frames (StageStore * store, const StageStreamInfo * info,
    gsize * n_frames, GError ** error)
{
  GArray *arr;
  sqlite3_stmt *st;
  int rc;

  if (sqlite3_prepare_v2 (store->db,
          "SELECT idx, chunk, offset, size, pts, dts, duration, keyframe, "
          "crc, pkt FROM frames WHERE stream = ? ORDER BY pkt", -1, &st,
          NULL) != SQLITE_OK) {
    db_fail (store, "frame index read", error);
    return NULL;
  }
  sqlite3_bind_int64 (st, 1, info->id);
  arr = g_array_sized_new (FALSE, FALSE, sizeof (StageFrame),
      MAX (info->frames, 0));
  while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
    StageFrame f;

    f.index = sqlite3_column_int64 (st, 0);
    f.chunk = sqlite3_column_int64 (st, 1);
    f.offset = sqlite3_column_int64 (st, 2);
    f.size = sqlite3_column_int64 (st, 3);
    f.pts = sqlite3_column_type (st, 4) == SQLITE_NULL ? STAGE_STORE_NONE :
        sqlite3_column_int64 (st, 4);
    f.dts = sqlite3_column_type (st, 5) == SQLITE_NULL ? STAGE_STORE_NONE :
        sqlite3_column_int64 (st, 5);
    f.duration = sqlite3_column_type (st, 6) == SQLITE_NULL ?
        STAGE_STORE_NONE : sqlite3_column_int64 (st, 6);
    f.keyframe = sqlite3_column_int (st, 7) != 0;
    f.crc = (guint32) sqlite3_column_int64 (st, 8);
    if (sqlite3_column_int64 (st, 9) != (gint64) arr->len)
      break;                    /* a gap in decode order: checked below */
    g_array_append_val (arr, f);
  }
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
    db_fail (store, "frame index read", error);
    g_array_free (arr, TRUE);
    return NULL;
  }
  if ((gint64) arr->len != info->frames || rc == SQLITE_ROW) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s', stream '%s': the frame index is inconsistent (%u "
        "readable frame rows, the stream says %" G_GINT64_FORMAT ")",
        store->dir, info->name, arr->len, info->frames);
    g_array_free (arr, TRUE);
    return NULL;
  }
  *n_frames = arr->len;
  if (arr->len == 0) {
    /* an empty stream: still a (non-NULL) array */
    g_array_free (arr, TRUE);
    return g_new0 (StageFrame, 1);
  }
  return (StageFrame *) g_array_free (arr, FALSE);
}

gchar *
stage_store_chunk_path (StageStore * store, const StageStreamInfo * info,
    gint64 chunk)
{
  gchar name[64];

  g_snprintf (name, sizeof (name), "chunk-%06" G_GINT64_FORMAT ".bin", chunk);
  return g_build_filename (store->dir, info->data, name, NULL);
}

static void
remove_tree (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const gchar *n;

  if (d) {
    while ((n = g_dir_read_name (d))) {
      gchar *p = g_build_filename (path, n, NULL);

      if (g_file_test (p, G_FILE_TEST_IS_DIR)
          && !g_file_test (p, G_FILE_TEST_IS_SYMLINK))
        remove_tree (p);
      else
        g_unlink (p);
      g_free (p);
    }
    g_dir_close (d);
  }
  g_rmdir (path);
}

/* Data directories are named data/<name>.<random>; only the catalog says
 * which stream owns one. */
static gboolean
safe_data_dir (const gchar * data)
{
  return data && g_str_has_prefix (data, "data/") && !strstr (data, "..")
      && strchr (data + 5, '/') == NULL && data[5] != '\0';
}

gboolean
stage_store_remove (StageStore * store, const gchar * name, GError ** error)
{
  StageStreamInfo *info;
  sqlite3_stmt *st;
  int rc;

  if (!exec (store, "BEGIN IMMEDIATE", "removal", error))
    return FALSE;
  info = stage_store_lookup (store, name, error);
  if (info == NULL) {
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
    return FALSE;
  }
  sqlite3_prepare_v2 (store->db, "DELETE FROM frames WHERE stream = ?1; ",
      -1, &st, NULL);
  sqlite3_bind_int64 (st, 1, info->id);
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  if (rc == SQLITE_DONE) {
    sqlite3_prepare_v2 (store->db, "DELETE FROM streams WHERE id = ?1", -1,
        &st, NULL);
    sqlite3_bind_int64 (st, 1, info->id);
    rc = sqlite3_step (st);
    sqlite3_finalize (st);
  }
  if (rc != SQLITE_DONE || !exec (store, "COMMIT", "removal", error)) {
    if (rc != SQLITE_DONE)
      db_fail (store, "removal", error);
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
    stage_stream_info_free (info);
    return FALSE;
  }
  if (safe_data_dir (info->data)) {
    gchar *p = g_build_filename (store->dir, info->data, NULL);

    remove_tree (p);
    g_free (p);
  }
  stage_stream_info_free (info);
  return TRUE;
}

/* A directory whose writer is alive holds an flock on its lock file. */
static gboolean
writer_alive (const gchar * dirpath)
{
  gchar *lock = g_build_filename (dirpath, WRITING_LOCK, NULL);
  int fd = open (lock, O_RDONLY | O_CLOEXEC);
  gboolean alive = FALSE;

  if (fd >= 0) {
    alive = flock (fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close (fd);
  }
  g_free (lock);
  return alive;
}

GPtrArray *
stage_store_orphans (StageStore * store, GError ** error)
{
  GPtrArray *list = stage_store_list (store, error), *out;
  GHashTable *used;
  gchar *datadir;
  GDir *d;
  const gchar *n;
  guint i;

  if (list == NULL)
    return NULL;
  used = g_hash_table_new (g_str_hash, g_str_equal);
  for (i = 0; i < list->len; i++)
    g_hash_table_add (used, ((StageStreamInfo *) list->pdata[i])->data);
  out = g_ptr_array_new_with_free_func (g_free);
  datadir = g_build_filename (store->dir, "data", NULL);
  d = g_dir_open (datadir, 0, NULL);
  while (d && (n = g_dir_read_name (d))) {
    gchar *rel = g_strconcat ("data/", n, NULL);
    gchar *abs = g_build_filename (datadir, n, NULL);

    if (!g_hash_table_contains (used, rel) && !writer_alive (abs))
      g_ptr_array_add (out, g_steal_pointer (&rel));
    g_free (rel);
    g_free (abs);
  }
  if (d)
    g_dir_close (d);
  g_free (datadir);
  g_hash_table_unref (used);
  g_ptr_array_unref (list);
  return out;
}

gboolean
stage_store_remove_orphan (StageStore * store, const gchar * data,
    GError ** error)
{
  gchar *abs;

  if (!safe_data_dir (data)) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Store '%s': '%s' is not a data directory", store->dir, data);
    return FALSE;
  }
  abs = g_build_filename (store->dir, data, NULL);
  if (writer_alive (abs)) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Store '%s': %s is being written", store->dir, data);
    g_free (abs);
    return FALSE;
  }
  remove_tree (abs);
  g_free (abs);
  return TRUE;
}

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
  gint64 start = frames[first].offset;
  gint64 end = frames[last].offset + frames[last].size;
  gint64 len = end - start, got = 0;
  guint8 *buf;
  gsize i;

  if (!reader_open_chunk (r, frames[first].chunk, error))
    return NULL;
  if (len < 0 || len > G_MAXINT32) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s', stream '%s', chunk %s: impossible byte range %"
        G_GINT64_FORMAT "..%" G_GINT64_FORMAT " in the frame index",
        stage_store_get_dir (r->store), r->info.name, r->path, start, end);
    return NULL;
  }
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
  StageStoreReader *r;
  StageFrame *frames;
  guint8 *seen;
  gsize n, i, first;
  gboolean ok = TRUE;

  frames = stage_store_load_frames (store, info, &n, error);
  if (frames == NULL)
    return FALSE;
  seen = g_new0 (guint8, n + 1);
  for (i = 0; i < n && ok; i++) {
    const StageFrame *f = &frames[i];
    gboolean chunk_start = i == 0 || f->chunk != frames[i - 1].chunk;

    if (f->index < 0 || (gsize) f->index >= n || seen[f->index]) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s': frame index %" G_GINT64_FORMAT " at "
          "decode position %" G_GSIZE_FORMAT " is out of range or repeated",
          store->dir, info->name, f->index, i);
      ok = FALSE;
    } else if (f->size < 0 || (chunk_start && (f->offset != 0 ||
                (i > 0 && f->chunk != frames[i - 1].chunk + 1)))
        || (!chunk_start && f->offset != frames[i - 1].offset +
            frames[i - 1].size)) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
          "Store '%s', stream '%s': frame %" G_GINT64_FORMAT " has an "
          "inconsistent position (chunk %" G_GINT64_FORMAT ", offset %"
          G_GINT64_FORMAT ", size %" G_GINT64_FORMAT ")", store->dir,
          info->name, f->index, f->chunk, f->offset, f->size);
      ok = FALSE;
    } else {
      seen[f->index] = 1;
    }
  }
  r = stage_store_reader_new (store, info);
  for (first = 0; ok && first < n; first = i) {
    GBytes *b;
    gchar *path;
    GStatBuf sb;

    for (i = first + 1; i < n && frames[i].chunk == frames[first].chunk; i++);
    /* the whole chunk in one read: verify runs over every byte anyway */
    b = stage_store_reader_read (r, frames, first, i - 1, error);
    ok = b != NULL;
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
  g_free (seen);
  g_free (frames);
  return ok;
}

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

  StageStoreKind kind;
  gchar *codec, *caps;
  GBytes *codec_data;
  gint fps_n, fps_d, width, height;
  gchar *created;

  GArray *frames;               /* StageFrame, decode order */
  FILE *chunk_file;
  gint64 chunk;                 /* current chunk, -1 before the first */
  gint64 chunk_frames, chunk_bytes, bytes, keyframes;
};

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

StageStoreWriter *
stage_store_writer_new (StageStore * store, const gchar * name,
    guint io_packet_size, GError ** error)
{
  StageStoreWriter *w;
  gchar *safe, *lock;

  if (!stage_store_check_name (name, error))
    return NULL;
  w = g_new0 (StageStoreWriter, 1);
  w->store = store;
  w->name = g_strdup (name);
  w->io_packet_size = MAX (io_packet_size, 1);
  w->chunk = -1;
  w->lock_fd = -1;
  w->fps_d = 1;
  w->frames = g_array_new (FALSE, FALSE, sizeof (StageFrame));
  w->created = now_iso8601 ();
  safe = sanitize (name);
  w->data = g_strdup_printf ("data/%s.%08x%08x", safe, g_random_int (),
      g_random_int ());
  g_free (safe);
  w->abs_data = g_build_filename (store->dir, w->data, NULL);
  if (g_mkdir (w->abs_data, 0777) != 0) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Store '%s': cannot create data directory %s for stream '%s': %s",
        store->dir, w->abs_data, name, g_strerror (errno));
    g_free (w->abs_data);
    w->abs_data = NULL;
    stage_store_writer_free (w);
    return NULL;
  }
  /* held until commit or death: tells gc this directory is in use */
  lock = g_build_filename (w->abs_data, WRITING_LOCK, NULL);
  w->lock_fd = open (lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (w->lock_fd >= 0)
    flock (w->lock_fd, LOCK_EX);
  g_free (lock);
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
  if (!ok)
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Store '%s', stream '%s': writing chunk %" G_GINT64_FORMAT " of %s "
        "failed: %s", w->store->dir, w->name, w->chunk, w->abs_data,
        g_strerror (errno));
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

gboolean
stage_store_writer_add (StageStoreWriter * w, const guint8 * data,
    gsize size, gint64 pts, gint64 dts, gint64 duration, gboolean keyframe,
    GError ** error)
{
  StageFrame f;
  gboolean boundary;

  if (w->kind == STAGE_STORE_KIND_BYTES)
    keyframe = TRUE;
  boundary = w->chunk < 0 || (keyframe && w->chunk_frames >=
      w->io_packet_size);
  if (boundary && !open_chunk (w, error))
    return FALSE;
  if (size > 0 && fwrite (data, 1, size, w->chunk_file) != size) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Store '%s', stream '%s': writing chunk %" G_GINT64_FORMAT " in %s "
        "failed: %s", w->store->dir, w->name, w->chunk, w->abs_data,
        g_strerror (errno));
    return FALSE;
  }
  f.index = w->frames->len;
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
  return w->frames->len;
}

static gint
cmp_by_pts (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const StageFrame *frames = user_data;
  gsize x = *(const gsize *) a, y = *(const gsize *) b;

  if (frames[x].pts != frames[y].pts)
    return frames[x].pts < frames[y].pts ? -1 : 1;
  return x < y ? -1 : (x > y);
}

/* Frame index = position in presentation order: decoders output frames in
 * PTS order, so this is the index a full decode gives each frame. Without
 * timestamps on every video packet, or for blobs, it is the write order. */
static void
assign_indices (StageStoreWriter * w)
{
  StageFrame *frames = (StageFrame *) w->frames->data;
  gsize n = w->frames->len, i, *order;
  gboolean all_pts = w->kind == STAGE_STORE_KIND_VIDEO;

  for (i = 0; i < n && all_pts; i++)
    all_pts = frames[i].pts != STAGE_STORE_NONE;
  if (!all_pts)
    return;                     /* index = write order, set in add() */
  order = g_new (gsize, n);
  for (i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, n, sizeof (gsize), cmp_by_pts, frames);
  for (i = 0; i < n; i++)
    frames[order[i]].index = i;
  g_free (order);
}

static void
bind_time (sqlite3_stmt * st, int col, gint64 t)
{
  if (t == STAGE_STORE_NONE)
    sqlite3_bind_null (st, col);
  else
    sqlite3_bind_int64 (st, col, t);
}

static gboolean
insert_rows (StageStoreWriter * w, gint64 * id, GError ** error)
{
  StageStore *store = w->store;
  sqlite3_stmt *st;
  gchar *committed = now_iso8601 ();
  gsize i;
  int rc;

  sqlite3_prepare_v2 (store->db, "INSERT INTO streams (name, kind, codec, "
      "caps, codec_data, frames, keyframes, chunks, bytes, fps_n, fps_d, "
      "width, height, io_packet_size, data, created, committed) VALUES "
      "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL);
  sqlite3_bind_text (st, 1, w->name, -1, SQLITE_STATIC);
  sqlite3_bind_text (st, 2, w->kind == STAGE_STORE_KIND_VIDEO ? "video" :
      "bytes", -1, SQLITE_STATIC);
  if (w->codec)
    sqlite3_bind_text (st, 3, w->codec, -1, SQLITE_STATIC);
  sqlite3_bind_text (st, 4, w->caps ? w->caps : "", -1, SQLITE_STATIC);
  if (w->codec_data) {
    gsize len;
    gconstpointer p = g_bytes_get_data (w->codec_data, &len);

    sqlite3_bind_blob (st, 5, p, len, SQLITE_STATIC);
  }
  sqlite3_bind_int64 (st, 6, w->frames->len);
  sqlite3_bind_int64 (st, 7, w->keyframes);
  sqlite3_bind_int64 (st, 8, w->chunk + 1);
  sqlite3_bind_int64 (st, 9, w->bytes);
  sqlite3_bind_int (st, 10, w->fps_n);
  sqlite3_bind_int (st, 11, w->fps_d);
  sqlite3_bind_int (st, 12, w->width);
  sqlite3_bind_int (st, 13, w->height);
  sqlite3_bind_int64 (st, 14, w->io_packet_size);
  sqlite3_bind_text (st, 15, w->data, -1, SQLITE_STATIC);
  sqlite3_bind_text (st, 16, w->created, -1, SQLITE_STATIC);
  sqlite3_bind_text (st, 17, committed, -1, SQLITE_STATIC);
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  g_free (committed);
  if (rc != SQLITE_DONE)
    return db_fail (store, "insert", error);
  *id = sqlite3_last_insert_rowid (store->db);

  sqlite3_prepare_v2 (store->db, "INSERT INTO frames (stream, idx, pkt, "
      "chunk, offset, size, pts, dts, duration, keyframe, crc) VALUES "
      "(?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL);
  for (i = 0; i < w->frames->len; i++) {
    const StageFrame *f = &g_array_index (w->frames, StageFrame, i);

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
      sqlite3_finalize (st);
      return db_fail (store, "frame index insert", error);
    }
    sqlite3_reset (st);
  }
  sqlite3_finalize (st);
  return TRUE;
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

  if (!close_chunk (w, error))
    return FALSE;
  assign_indices (w);
  if (!exec (store, "BEGIN IMMEDIATE", "commit", error))
    return FALSE;
  sqlite3_prepare_v2 (store->db, "SELECT " STREAM_COLUMNS " FROM streams "
      "WHERE name = ?", -1, &st, NULL);
  sqlite3_bind_text (st, 1, w->name, -1, SQLITE_STATIC);
  rc = sqlite3_step (st);
  if (rc == SQLITE_ROW)
    old = info_from_row (st);
  sqlite3_finalize (st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    db_fail (store, "commit", error);
    goto rollback;
  }
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
  if (old) {
    sqlite3_prepare_v2 (store->db, "DELETE FROM frames WHERE stream = ?", -1,
        &st, NULL);
    sqlite3_bind_int64 (st, 1, old->id);
    rc = sqlite3_step (st);
    sqlite3_finalize (st);
    sqlite3_prepare_v2 (store->db, "DELETE FROM streams WHERE id = ?", -1,
        &st, NULL);
    sqlite3_bind_int64 (st, 1, old->id);
    rc = rc == SQLITE_DONE ? sqlite3_step (st) : rc;
    sqlite3_finalize (st);
    if (rc != SQLITE_DONE) {
      db_fail (store, "replacing the old stream", error);
      goto rollback;
    }
  }
  if (!insert_rows (w, &id, error))
    goto rollback;
  if (!exec (store, "COMMIT", "commit", error))
    goto rollback;
  w->committed = TRUE;
  if (old && safe_data_dir (old->data)) {
    gchar *p = g_build_filename (store->dir, old->data, NULL);

    remove_tree (p);
    g_free (p);
  }
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
  if (w->abs_data) {
    gchar *lock = g_build_filename (w->abs_data, WRITING_LOCK, NULL);

    if (w->committed)
      g_unlink (lock);
    else
      remove_tree (w->abs_data);
    g_free (lock);
  }
  if (w->lock_fd >= 0)
    close (w->lock_fd);
  if (w->codec_data)
    g_bytes_unref (w->codec_data);
  g_array_free (w->frames, TRUE);
  g_free (w->name);
  g_free (w->data);
  g_free (w->abs_data);
  g_free (w->codec);
  g_free (w->caps);
  g_free (w->created);
  g_free (w);
}
