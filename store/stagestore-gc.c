/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gc: data directories that no stream names (orphans), and a store that
 * holds nothing, removed only when the catalog's write lock says they are
 * still unused at the moment of removal. See stagestore.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "stagestore-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <sqlite3.h>

/* A directory whose writer is alive holds an flock on its lock file. */
static gboolean
store_writer_alive (const gchar * dirpath)
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

/* A test's pause point (STAGE_STORE_TEST_PAUSE names a FIFO): a line
 * "@where" is written to it, then the FIFO is read to its end, so that a
 * test can commit a stream at exactly that point of gc. */
static void
store_test_pause (const gchar * where)
{
  const gchar *fifo = g_getenv ("STAGE_STORE_TEST_PAUSE");
  gchar buf[64];
  gchar *line;
  int fd;

  if (fifo == NULL || *fifo == '\0')
    return;
  line = g_strdup_printf ("%s\n", where);
  if ((fd = open (fifo, O_WRONLY | O_CLOEXEC)) >= 0) {
    if (write (fd, line, strlen (line)) < 0)
      g_warning ("STAGE_STORE_TEST_PAUSE: %s", g_strerror (errno));
    close (fd);
  }
  g_free (line);
  if ((fd = open (fifo, O_RDONLY | O_CLOEXEC)) >= 0) {
    while (read (fd, buf, sizeof (buf)) > 0);
    close (fd);
  }
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
  store_test_pause ("orphans-listed");
  used = g_hash_table_new (g_str_hash, g_str_equal);
  for (i = 0; i < list->len; i++)
    g_hash_table_add (used, ((StageStreamInfo *) list->pdata[i])->data);
  out = g_ptr_array_new_with_free_func (g_free);
  datadir = g_build_filename (store->dir, "data", NULL);
  d = g_dir_open (datadir, 0, NULL);
  while (d && (n = g_dir_read_name (d))) {
    gchar *rel = g_strconcat ("data/", n, NULL);
    gchar *abs = g_build_filename (datadir, n, NULL);

    if (!g_hash_table_contains (used, rel) && !store_writer_alive (abs))
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

/* Under the catalog's write lock: whether a streams row names @data. */
static gboolean
store_names_data (StageStore * store, const gchar * data, gboolean * named,
    GError ** error)
{
  sqlite3_stmt *st;
  int rc;

  if (sqlite3_prepare_v2 (store->db, "SELECT 1 FROM streams WHERE data = ?",
          -1, &st, NULL) != SQLITE_OK)
    return store_db_fail (store, "orphan check", error);
  sqlite3_bind_text (st, 1, data, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return store_db_fail (store, "orphan check", error);
  *named = rc == SQLITE_ROW;
  return TRUE;
}

/* The decision is made again under the catalog's write lock, which every
 * commit and every new data directory (store_new_data_dir) also takes: a
 * stream committed after stage_store_orphans() listed its directory is
 * named by then, and its directory is kept. */
gboolean
stage_store_remove_orphan (StageStore * store, const gchar * data,
    gboolean * removed, GError ** error)
{
  gboolean named = FALSE;
  gchar *abs;

  *removed = FALSE;
  if (!store_safe_data_dir (data)) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Store '%s': '%s' is not a data directory", store->dir, data);
    return FALSE;
  }
  if (!store_exec (store, "BEGIN IMMEDIATE", "orphan removal", error))
    return FALSE;
  if (!store_names_data (store, data, &named, error)) {
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
    return FALSE;
  }
  abs = g_build_filename (store->dir, data, NULL);
  if (!named && !store_writer_alive (abs)) {
    store_remove_tree (abs);
    *removed = TRUE;
  }
  g_free (abs);
  /* nothing was written: the transaction only held the lock */
  sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
  return TRUE;
}

static gboolean
store_count_streams (StageStore * store, gint64 * n, GError ** error)
{
  sqlite3_stmt *st;
  int rc;

  if (sqlite3_prepare_v2 (store->db, "SELECT count(*) FROM streams", -1, &st,
          NULL) != SQLITE_OK)
    return store_db_fail (store, "stream count", error);
  rc = sqlite3_step (st);
  if (rc == SQLITE_ROW)
    *n = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  if (rc != SQLITE_ROW)
    return store_db_fail (store, "stream count", error);
  return TRUE;
}

/* Under the write lock no stream can be committed and no data directory
 * made (store_new_data_dir takes it too). The WAL is kept on close
 * (PERSIST_WAL) so that closing never deletes files by name after they
 * are unlinked here. */
gboolean
stage_store_close_remove_if_empty (StageStore * store, GError ** error)
{
  static const gchar *const files[] = { "-wal", "-shm", "-journal", "",
    NULL
  };
  gint64 n = -1;
  gchar *data, *p;
  gboolean ok = FALSE;
  guint i;
  int one = 1;

  if (!store_exec (store, "BEGIN IMMEDIATE", "store removal", error)) {
    stage_store_close (store);
    return FALSE;
  }
  data = g_build_filename (store->dir, "data", NULL);
  if (!store_count_streams (store, &n, error)) {
  } else if (n != 0 || (g_rmdir (data) != 0 && errno != ENOENT)) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Store '%s' was kept: another writer put %s into it meanwhile",
        store->dir, n != 0 ? "a stream" : "a data directory");
  } else {
    sqlite3_file_control (store->db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
    for (i = 0; files[i]; i++) {
      p = g_strconcat (store->dir, G_DIR_SEPARATOR_S, STAGE_STORE_CATALOG,
          files[i], NULL);
      g_unlink (p);
      g_free (p);
    }
    ok = TRUE;
  }
  sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
  p = g_strdup (store->dir);
  stage_store_close (store);
  if (ok)
    g_rmdir (p);
  g_free (p);
  g_free (data);
  return ok;
}
