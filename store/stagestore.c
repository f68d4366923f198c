/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The store: the catalog (SQLite): open, list, look up, remove.
 * See stagestore.h; reading and writing are in stagestore-read.c and
 * stagestore-write.c, orphans and gc in stagestore-gc.c. */
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
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/statvfs.h>
#include <dirent.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <sqlite3.h>

/* A writer that waits longer than this for another's commit gives up. */
#define BUSY_TIMEOUT_MS 60000



/* A new catalog is format 1: it becomes format 2 (stagestore.h) only
 * when a stream with decode-only packets enters it (store_insert_stream),
 * so older versions read every catalog that has none. */
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

/* SQLite says "disk I/O error" when it cannot make its -shm or -wal
 * file: the filesystem's free space says whether that was a full disk. */
static gboolean
store_disk_full (const gchar * dir)
{
  struct statvfs sv;

  return statvfs (dir, &sv) == 0 && (sv.f_bfree == 0 || sv.f_bavail == 0);
}

gboolean
store_db_fail (StageStore * store, const gchar * what, GError ** error)
{
  int code = sqlite3_errcode (store->db) == SQLITE_IOERR
      && store_disk_full (store->dir) ? SQLITE_FULL :
      sqlite3_errcode (store->db);
  StageStoreError e = (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
      ? STAGE_STORE_ERROR_CORRUPT : code == SQLITE_FULL ?
      STAGE_STORE_ERROR_NO_SPACE : STAGE_STORE_ERROR_IO;

  g_set_error (error, STAGE_STORE_ERROR, e,
      "Store '%s': catalog %s failed: %s%s", store->dir, what,
      sqlite3_errcode (store->db) == SQLITE_OK ? "SQLite gave no reason" :
      sqlite3_errmsg (store->db),
      e == STAGE_STORE_ERROR_CORRUPT ?
      " (the catalog is corrupt: restore catalog.db from a backup)" :
      e == STAGE_STORE_ERROR_NO_SPACE ? " (its disk is full: free some space)" :
      "");
  return FALSE;
}

gboolean
store_prepare (StageStore * store, const gchar * sql, sqlite3_stmt ** st,
    const gchar * what, GError ** error)
{
  if (sqlite3_prepare_v2 (store->db, sql, -1, st, NULL) != SQLITE_OK) {
    *st = NULL;
    return store_db_fail (store, what, error);
  }
  return TRUE;
}

gboolean
store_step_done (StageStore * store, sqlite3_stmt * st, const gchar * what,
    GError ** error)
{
  /* the message is read before anything else runs on the connection */
  gboolean ok = sqlite3_step (st) == SQLITE_DONE
      || store_db_fail (store, what, error);

  sqlite3_finalize (st);
  return ok;
}

gboolean
store_exec (StageStore * store, const gchar * sql, const gchar * what,
    GError ** error)
{
  if (sqlite3_exec (store->db, sql, NULL, NULL, NULL) != SQLITE_OK)
    return store_db_fail (store, what, error);
  return TRUE;
}

gchar *
store_now_iso8601 (void)
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

/* ---- open / close ---- */

/* Network filesystems by statfs(2) magic number (linux/magic.h and the
 * filesystems' own headers). */
static const struct
{
  gint64 magic;
  const gchar *name;
} network_fs[] = {
  {0x6969, "NFS"},
  {0x517B, "SMB/CIFS"},
  {0xFF534D42, "SMB/CIFS"},
  {0xFE534D42, "SMB/CIFS"},
  {0x65735546, "FUSE"},
  {0x00C36400, "Ceph"},
  {0x0BD00BD0, "Lustre"},
  {0x01021997, "9P"},
  {0x5346414F, "AFS"},
  {0x6B414653, "AFS"},
  {0x47504653, "GPFS"},
  {0x013111A8, "IBRIX"},
  {0x73757245, "Coda"},
};

const gchar *
stage_store_network_fs (const gchar * dir)
{
  struct statfs sf;
  const gchar *test = g_getenv ("STAGE_STORE_TEST_NETWORK_FS");
  guint i;

  /* The test suite's stand-in for a network mount: a directory named by
   * the variable, and everything under it, counts as NFS. */
  if (test && *test) {
    gchar *abs = g_canonicalize_filename (dir, NULL);
    gboolean under = g_str_has_prefix (abs, test);

    g_free (abs);
    if (under)
      return "NFS";
  }
  /* A store not made yet: the filesystem it would be made on. */
  if (statfs (dir, &sf) != 0) {
    int e = errno;
    gchar *up = g_path_get_dirname (dir);
    const gchar *res = strcmp (up, dir) != 0 && e == ENOENT ?
        stage_store_network_fs (up) : NULL;

    g_free (up);
    return res;
  }
  for (i = 0; i < G_N_ELEMENTS (network_fs); i++)
    if ((gint64) (guint32) sf.f_type == network_fs[i].magic)
      return network_fs[i].name;
  return NULL;
}

/* Whether the rollback journal was asked for (a store on a network
 * filesystem); FALSE and an error for a value that is neither. */
static gboolean
journal_delete (gboolean * out, GError ** error)
{
  const gchar *j = g_getenv ("STAGE_STORE_JOURNAL");

  *out = FALSE;
  if (j == NULL || *j == '\0' || g_ascii_strcasecmp (j, "wal") == 0)
    return TRUE;
  if (g_ascii_strcasecmp (j, "delete") == 0) {
    *out = TRUE;
    return TRUE;
  }
  g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
      "STAGE_STORE_JOURNAL='%s' is neither 'wal' (the default) nor "
      "'delete' (SQLite's rollback journal, for a store on a network "
      "filesystem)", j);
  return FALSE;
}

/* Journal mode and, when creating, the schema. Processes that create one
 * store at once (a batch of stagesink jobs) meet here: switching a new
 * database to WAL takes a lock that SQLite refuses at once ("database is
 * locked") rather than waiting in the busy handler, so the setup is
 * retried for up to the busy timeout. The schema is idempotent. A reader
 * changes nothing. */
static gboolean
setup (StageStore * store, gboolean create, gboolean rollback,
    GError ** error)
{
  gint64 deadline = g_get_monotonic_time () + BUSY_TIMEOUT_MS * 1000;
  const gchar *pragmas = store->read_only ? "PRAGMA foreign_keys=ON;" :
      rollback ? "PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL; "
      "PRAGMA foreign_keys=ON;" : "PRAGMA journal_mode=WAL; "
      "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;";
  int rc;

  for (;;) {
    rc = sqlite3_exec (store->db, pragmas, NULL, NULL, NULL);
    if (rc == SQLITE_OK && create) {
      rc = sqlite3_exec (store->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
      if (rc == SQLITE_OK) {
        rc = sqlite3_exec (store->db, schema, NULL, NULL, NULL);
        if (rc == SQLITE_OK)
          rc = sqlite3_exec (store->db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK)
          sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
      }
    }
    if (rc == SQLITE_OK)
      return TRUE;
    if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
        || g_get_monotonic_time () > deadline)
      return store_db_fail (store, create ? "creation" : "setup", error);
    g_usleep (5000 + g_random_int_range (0, 10000));
  }
}

/* Whether the SQLite file at @path is in WAL mode (its header's read and
 * write versions are 2). */
static gboolean
catalog_is_wal (const gchar * path)
{
  guint8 h[20];
  FILE *f = g_fopen (path, "rb");
  gboolean wal = FALSE;

  if (f) {
    wal = fread (h, 1, sizeof (h), f) == sizeof (h) && h[18] == 2
        && h[19] == 2;
    fclose (f);
  }
  return wal;
}

/* Why the store at @dir cannot be written (a read-only filesystem, no
 * write permission, an immutable directory or catalog), or NULL when it
 * can, or when it does not exist yet. */
static const gchar *
store_unwritable (const gchar * dir, const gchar * catalog)
{
  struct statvfs sv;

  if (statvfs (dir, &sv) == 0 && (sv.f_flag & ST_RDONLY))
    return "it is on a read-only filesystem";
  if (access (dir, W_OK) != 0 && errno != ENOENT)
    return errno == EPERM ? "its directory is immutable" :
        "no write permission on its directory";
  if (access (catalog, W_OK) != 0 && errno != ENOENT)
    return errno == EPERM ? "its catalog is immutable" :
        "no write permission on its catalog";
  return NULL;
}

static StageStore *
open_store (const gchar * dir, gboolean create, gboolean read_only,
    gboolean immutable, GError ** error)
{
  StageStore *store;
  gchar *path, *data, *version = NULL, *uri = NULL;
  int flags = SQLITE_OPEN_NOMUTEX;
  const gchar *netfs, *unwritable;
  gboolean rollback = FALSE;
  sqlite3_stmt *st;

  if (dir == NULL || *dir == '\0') {
    g_set_error_literal (error, STAGE_STORE_ERROR,
        STAGE_STORE_ERROR_NOT_STORE, "No store directory given");
    return NULL;
  }
  if (!read_only && !journal_delete (&rollback, error))
    return NULL;
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
  unwritable = store_unwritable (dir, path);
  if (unwritable && !read_only) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Store '%s' cannot be written: %s (reading it needs no write "
        "access: ls, info, verify and stagesrc work)", dir, unwritable);
    g_free (path);
    return NULL;
  }
  netfs = stage_store_network_fs (dir);
  if (netfs && !read_only && !rollback) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_NETWORK,
        "Store '%s' is on a network filesystem (%s): its catalog (SQLite in "
        "WAL mode) cannot be written safely there. Write a store on each "
        "machine's local disk and join them with 'stage-store merge DEST "
        "SRC...', or, if only one machine writes at a time and the "
        "filesystem's locks work, set STAGE_STORE_JOURNAL=delete (see "
        "docs/store.md)", dir, netfs);
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
  store->read_only = read_only;
  if (read_only) {
    flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
    /* No lock, no shared memory: what a WAL catalog needs and a network
     * filesystem cannot give, nor a store SQLite cannot write its -shm
     * file in. Nothing may write the store meanwhile. */
    if ((netfs && catalog_is_wal (path)) || unwritable || immutable) {
      gchar *esc = g_uri_escape_string (path, "/", FALSE);
      uri = g_strdup_printf ("file:%s?immutable=1", esc);
      g_free (esc);
    }
  } else {
    flags |= SQLITE_OPEN_READWRITE;
    if (create)
      flags |= SQLITE_OPEN_CREATE;
  }
  if (sqlite3_open_v2 (uri ? uri : path, &store->db, flags, NULL) !=
      SQLITE_OK) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_NOT_STORE,
        "Could not open the catalog of store '%s' (%s): %s", dir, path,
        store->db ? sqlite3_errmsg (store->db) : "out of memory");
    g_free (path);
    g_free (uri);
    stage_store_close (store);
    return NULL;
  }
  g_free (path);
  g_free (uri);
  sqlite3_busy_timeout (store->db, BUSY_TIMEOUT_MS);
  sqlite3_extended_result_codes (store->db, 0);

  if (!setup (store, create, rollback, error))
    goto fail;
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
  /* format 1 is format 2 without decode-only packets: both read */
  if (version == NULL || atoi (version) < 1
      || atoi (version) > STAGE_STORE_FORMAT_VERSION) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s': catalog format '%s' is not a supported format (1 to "
        "%d)%s", dir, version ? version : "(none)",
        STAGE_STORE_FORMAT_VERSION, version && atoi (version) >
        STAGE_STORE_FORMAT_VERSION ? ": it was written by a newer "
        "gst-stages, which reads it" : "");
    g_free (version);
    goto fail;
  }
  g_free (version);
  return store;

fail:
  stage_store_close (store);
  return NULL;
}

StageStore *
stage_store_open (const gchar * dir, gboolean create, GError ** error)
{
  return open_store (dir, create, FALSE, FALSE, error);
}

StageStore *
stage_store_open_read (const gchar * dir, GError ** error)
{
  return open_store (dir, FALSE, TRUE, FALSE, error);
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


static gchar *
col_text (sqlite3_stmt * st, int i)
{
  const unsigned char *t = sqlite3_column_text (st, i);

  return t ? g_strdup ((const gchar *) t) : NULL;
}

StageStreamInfo *
store_info_from_row (sqlite3_stmt * st)
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
  info->problem = store_stream_problem (st, info);
  if (info->problem) {
    /* what the listing shows of it: nothing out of range */
    info->frames = MAX (info->frames, 0);
    info->width = info->height = 0;
  }
  if (info->fps_d <= 0 || info->fps_n < 0) {
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
  g_free (info->problem);
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
    store_db_fail (store, "listing", error);
    return NULL;
  }
  arr = g_ptr_array_new_with_free_func ((GDestroyNotify)
      stage_stream_info_free);
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    g_ptr_array_add (arr, store_info_from_row (st));
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE) {
    store_db_fail (store, "listing", error);
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
    store_db_fail (store, "lookup", error);
    return NULL;
  }
  sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (st);
  if (rc == SQLITE_ROW)
    info = store_info_from_row (st);
  else if (rc != SQLITE_DONE)
    store_db_fail (store, "lookup", error);
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
    return store_db_fail (store, "lookup", error);
  sqlite3_bind_text (st, 1, name, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return store_db_fail (store, "lookup", error);
  *exists = rc == SQLITE_ROW;
  return TRUE;
}

StageFrame *
stage_store_load_frames (StageStore * store, const StageStreamInfo * info,
    gsize * n_frames, GError ** error)
{
  GArray *arr;
  sqlite3_stmt *st;
  gsize decode_only;
  int rc;

  if (info->problem) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s', stream '%s': the catalog's streams row is invalid: %s",
        store->dir, info->name, info->problem);
    return NULL;
  }
  if (sqlite3_prepare_v2 (store->db,
          "SELECT idx, chunk, offset, size, pts, dts, duration, keyframe, "
          "crc, pkt FROM frames WHERE stream = ? ORDER BY pkt", -1, &st,
          NULL) != SQLITE_OK) {
    store_db_fail (store, "frame index read", error);
    return NULL;
  }
  sqlite3_bind_int64 (st, 1, info->id);
  /* (the row count is checked against it below) */
  arr = g_array_sized_new (FALSE, FALSE, sizeof (StageFrame),
      CLAMP (info->frames, 0, 1 << 20));
  while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
    StageFrame f;

    if (sqlite3_column_type (st, 9) != SQLITE_INTEGER
        || sqlite3_column_int64 (st, 9) != (gint64) arr->len
        || (gint64) arr->len >= info->frames + STAGE_STORE_MAX_DECODE_ONLY)
      break;                    /* a gap in decode order: checked below */
    if (!store_frame_from_row (store, info, st, arr->len, &f, error)) {
      sqlite3_finalize (st);
      g_array_free (arr, TRUE);
      return NULL;
    }
    g_array_append_val (arr, f);
  }
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
    store_db_fail (store, "frame index read", error);
    g_array_free (arr, TRUE);
    return NULL;
  }
  decode_only = stage_store_count_decode_only ((StageFrame *) arr->data,
      arr->len);
  if ((gint64) (arr->len - decode_only) != info->frames || rc == SQLITE_ROW) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
        "Store '%s', stream '%s': the frame index is inconsistent (%"
        G_GSIZE_FORMAT " readable frame rows numbered 0 on in field 'pkt', %"
        G_GSIZE_FORMAT " of them decode-only, the stream says %"
        G_GINT64_FORMAT " frames)", store->dir, info->name,
        (gsize) arr->len, decode_only, info->frames);
    g_array_free (arr, TRUE);
    return NULL;
  }
  if (!store_check_index (store, info, (StageFrame *) arr->data, arr->len,
          error)) {
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

/* Removes @name in directory @parent: a file or a link (the link, never
 * what it points to), or a directory with what it holds, opened without
 * following links at every level so that nothing outside it goes. */
static void
remove_at (int parent, const gchar * name, guint depth)
{
  struct stat sb;
  struct dirent *e;
  DIR *d;
  int fd;

  if (fstatat (parent, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  if (!S_ISDIR (sb.st_mode)) {
    unlinkat (parent, name, 0);
    return;
  }
  fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
      O_CLOEXEC);
  if (fd < 0)
    return;
  d = fdopendir (fd);
  if (d == NULL) {
    close (fd);
    return;
  }
  while ((e = readdir (d))) {
    if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0
        && depth < 16)
      remove_at (dirfd (d), e->d_name, depth + 1);
  }
  closedir (d);
  unlinkat (parent, name, AT_REMOVEDIR);
}

void
store_remove_tree (const gchar * path)
{
  gchar *up = g_path_get_dirname (path), *base = g_path_get_basename (path);
  int fd = open (up, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0 && strcmp (base, ".") != 0 && strcmp (base, "..") != 0
      && strcmp (base, "/") != 0)
    remove_at (fd, base, 0);
  if (fd >= 0)
    close (fd);
  g_free (up);
  g_free (base);
}

gboolean
store_delete_stream_rows (StageStore * store, gint64 id, const gchar * what,
    GError ** error)
{
  sqlite3_stmt *st;

  if (!store_prepare (store, "DELETE FROM frames WHERE stream = ?", &st,
          what, error))
    return FALSE;
  sqlite3_bind_int64 (st, 1, id);
  if (!store_step_done (store, st, what, error))
    return FALSE;
  if (!store_prepare (store, "DELETE FROM streams WHERE id = ?", &st, what,
          error))
    return FALSE;
  sqlite3_bind_int64 (st, 1, id);
  return store_step_done (store, st, what, error);
}

/* Whether @info's data directory may be removed: one of its own under
 * data/. Removing another could take other streams' data, or more. */
static gboolean
removable_data (StageStore * store, const StageStreamInfo * info,
    GError ** error)
{
  if (store_safe_data_dir (info->data))
    return TRUE;
  g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_CORRUPT,
      "Store '%s', stream '%s': its catalog field 'data' is '%s', not a "
      "directory of its own under data/: nothing removed (the catalog is "
      "corrupt; fix or delete the row with sqlite3)", store->dir,
      info->name, info->data ? info->data : "NULL");
  return FALSE;
}

/* One transaction: @name's rows go. *info (when found) says where its
 * data is. */
static gboolean
remove_rows (StageStore * store, const gchar * name, StageStreamInfo ** info,
    GError ** error)
{
  *info = NULL;
  if (!store_exec (store, "BEGIN IMMEDIATE", "removal", error))
    return FALSE;
  *info = stage_store_lookup (store, name, error);
  if (*info == NULL) {
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
    return FALSE;
  }
  if (!removable_data (store, *info, error)) {
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
    g_clear_pointer (info, stage_stream_info_free);
    return FALSE;
  }
  if (!store_delete_stream_rows (store, (*info)->id, "removal", error)
      || !store_exec (store, "COMMIT", "removal", error)) {
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
    return FALSE;
  }
  return TRUE;
}

/* A removal needs room in the catalog's journal: on a full disk the
 * stream's data goes first (the user asked for it to go), which frees the
 * room, and the rows follow. Until they do, the stream is listed without
 * its data: a read of it fails, verify names it, and rm again ends it. */
gboolean
stage_store_remove (StageStore * store, const gchar * name, GError ** error)
{
  StageStreamInfo *info = NULL;
  GError *err = NULL;

  if (!remove_rows (store, name, &info, &err)) {
    if (info == NULL || !g_error_matches (err, STAGE_STORE_ERROR,
            STAGE_STORE_ERROR_NO_SPACE)) {
      stage_stream_info_free (info);
      g_propagate_error (error, err);
      return FALSE;
    }
    g_clear_error (&err);
    store_remove_data (store, info->data);
    stage_stream_info_free (info);
    if (!remove_rows (store, name, &info, &err)) {
      g_propagate_prefixed_error (error, err, "Store '%s', stream '%s': the "
          "disk is full; its data was removed to free space, but its "
          "catalog rows could not be (remove it again): ", store->dir, name);
      stage_stream_info_free (info);
      return FALSE;
    }
  }
  store_remove_data (store, info->data);
  stage_stream_info_free (info);
  return TRUE;
}

gboolean
stage_store_free_space (const gchar * dir, const gchar * name,
    GError ** error)
{
  StageStore *store;
  StageStreamInfo *info;

  if (!store_disk_full (dir)) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Store '%s': its disk is not full", dir);
    return FALSE;
  }
  store = open_store (dir, FALSE, TRUE, TRUE, error);
  if (store == NULL)
    return FALSE;
  info = stage_store_lookup (store, name, error);
  if (info != NULL && !removable_data (store, info, error)) {
    g_clear_pointer (&info, stage_stream_info_free);
  }
  if (info == NULL) {
    stage_store_close (store);
    return FALSE;
  }
  store_remove_data (store, info->data);
  stage_stream_info_free (info);
  stage_store_close (store);
  return TRUE;
}

void
store_remove_data (StageStore * store, const gchar * data)
{
  gchar *p;

  if (!store_safe_data_dir (data))
    return;
  p = g_build_filename (store->dir, data, NULL);
  store_remove_tree (p);
  g_free (p);
}
