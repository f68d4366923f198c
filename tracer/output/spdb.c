/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spdb: summary snapshots into SQLite, from a writer thread.
 *
 * The summary GstStructure's arrays map one-to-one onto tables, whose
 * columns are the profile schema's (schema/spschema.h), bound by name: a
 * field a row lacks is stored as NULL, and a database written by an older
 * stageprof gets the columns added since. docs/tracer-db.md describes the
 * tables (a test checks that it names every column).
 *
 * Every table has the `pipeline` and `run` of its rows. A snapshot that
 * cannot be written (disk full, a file-size limit) is rolled back whole:
 * the database stays consistent, and the count of lost snapshots is in the
 * warning at close. A symbolic link at the path is refused.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "spdb.h"
#include "spfile.h"
#include "spschema.h"
#include "sptsan.h"

#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* The tables of the database, beside runs and snapshots. */
static const SpSchema *const sp_db_tables[] = {
  &sp_schema_elements, &sp_schema_queues, &sp_schema_threads,
  &sp_schema_sinks, &sp_schema_latency, &sp_schema_element_latency,
  &sp_schema_pools, &sp_schema_memory,
};

/* Interval windows (schema/spschema.h): `windows`, one row per pipeline
 * run and window, and its tables, keyed by window_id. */
static const SpSchema *const sp_db_window_tables[] = {
  &sp_schema_window_elements, &sp_schema_window_pads,
  &sp_schema_window_queues, &sp_schema_window_threads,
  &sp_schema_window_latency, &sp_schema_window_latency_hist,
};

#define SP_DB_WINDOW_TABLES G_N_ELEMENTS (sp_db_window_tables)

static const gchar sp_db_fixed_schema[] =
    "CREATE TABLE IF NOT EXISTS runs ("
    " run_id INTEGER PRIMARY KEY, started_at TEXT NOT NULL,"
    " pid INTEGER NOT NULL, argv TEXT);"
    "CREATE TABLE IF NOT EXISTS snapshots ("
    " snapshot_id INTEGER PRIMARY KEY,"
    " run_id INTEGER NOT NULL REFERENCES runs(run_id),"
    " taken_at TEXT NOT NULL, wall_s REAL, final INTEGER NOT NULL,"
    " verdict TEXT, pipeline TEXT, run INTEGER);"
    "CREATE INDEX IF NOT EXISTS snapshots_run ON snapshots(run_id);";

struct _SpDb
{
  gchar *path;
  sqlite3 *db;
  gint64 run_id;
  sqlite3_stmt *snap_stmt;
  sqlite3_stmt *row_stmt[G_N_ELEMENTS (sp_db_tables)];
  sqlite3_stmt *win_stmt;
  sqlite3_stmt *win_row_stmt[SP_DB_WINDOW_TABLES];
  GAsyncQueue *queue;           /* GstStructure *, or &sp_db_stop */
  GThread *writer;
  gint dropped;                 /* atomic */
  gint failed;                  /* atomic: snapshots rolled back */
  gboolean warned;              /* writer thread only */
};

/* Pushed by sp_db_close(): everything queued before it is written. */
static GstStructure *const sp_db_stop = (GstStructure *) & sp_db_stop;

static void
sp_db_set_error (GError ** error, SpDb * db, const gchar * what)
{
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
      "Cannot use SQLite database \"%s\" (%s): %s", db->path, what,
      db->db ? sqlite3_errmsg (db->db) : "out of memory");
}

/* The writer thread cannot return errors: warn once, naming the file. */
static void
sp_db_warn (SpDb * db, const gchar * what)
{
  if (db->warned)
    return;
  db->warned = TRUE;
  g_warning ("stageprof: writing to database \"%s\" failed (%s): %s; "
      "further errors are not reported", db->path, what,
      sqlite3_errmsg (db->db));
}

static gchar *
sp_db_command_line (void)
{
  gchar *raw = NULL;
  gsize len = 0, i;

  /* Linux: the real argv, NUL-separated; elsewhere the program name. */
  if (!g_file_get_contents ("/proc/self/cmdline", &raw, &len, NULL) || !len) {
    g_free (raw);
    return g_strdup (g_get_prgname ());
  }
  for (i = 0; i + 1 < len; i++)
    if (raw[i] == '\0')
      raw[i] = ' ';
  return raw;
}

static gchar *
sp_db_now_iso (void)
{
  GDateTime *now = g_date_time_new_now_utc ();
  gchar *s = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S.%fZ");

  g_date_time_unref (now);
  return s;
}

static gboolean
sp_db_insert_run (SpDb * db, GError ** error)
{
  sqlite3_stmt *st = NULL;
  gchar *now = sp_db_now_iso (), *argv = sp_db_command_line ();
  gboolean ok;

  ok = sqlite3_prepare_v2 (db->db,
      "INSERT INTO runs (started_at, pid, argv) VALUES (?, ?, ?)", -1, &st,
      NULL) == SQLITE_OK;
  if (ok) {
    sqlite3_bind_text (st, 1, now, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 2, getpid ());
    sqlite3_bind_text (st, 3, argv, -1, SQLITE_TRANSIENT);
    ok = sqlite3_step (st) == SQLITE_DONE;
  }
  if (ok)
    db->run_id = sqlite3_last_insert_rowid (db->db);
  else
    sp_db_set_error (error, db, "recording the run");
  sqlite3_finalize (st);
  g_free (now);
  g_free (argv);
  return ok;
}

/* INSERT INTO table (key, columns...) VALUES (?, ...) */
static gboolean
sp_db_prepare_insert (SpDb * db, const SpSchema * t, const gchar * key,
    sqlite3_stmt ** st)
{
  GString *sql = g_string_new (NULL);
  gint rc;

  g_string_append_printf (sql, "INSERT INTO %s (%s", t->name, key);
  for (guint j = 0; j < t->n_cols; j++)
    g_string_append_printf (sql, ", %s", t->cols[j].key);
  g_string_append (sql, ") VALUES (?");
  for (guint j = 0; j < t->n_cols; j++)
    g_string_append (sql, ", ?");
  g_string_append (sql, ")");
  rc = sqlite3_prepare_v2 (db->db, sql->str, -1, st, NULL);
  g_string_free (sql, TRUE);
  return rc == SQLITE_OK;
}

static gboolean
sp_db_prepare_windows (SpDb * db)
{
  if (!sp_db_prepare_insert (db, &sp_schema_windows, "run_id",
          &db->win_stmt))
    return FALSE;
  for (guint i = 0; i < SP_DB_WINDOW_TABLES; i++)
    if (!sp_db_prepare_insert (db, sp_db_window_tables[i], "window_id",
            &db->win_row_stmt[i]))
      return FALSE;
  return TRUE;
}

static gboolean
sp_db_prepare (SpDb * db, GError ** error)
{
  guint i, j;

  if (sqlite3_prepare_v2 (db->db, "INSERT INTO snapshots (run_id, taken_at,"
          " wall_s, final, verdict, pipeline, run) VALUES (?, ?, ?, ?, ?, ?, ?)",
          -1,
          &db->snap_stmt, NULL) != SQLITE_OK) {
    sp_db_set_error (error, db, "preparing statements");
    return FALSE;
  }
  for (i = 0; i < G_N_ELEMENTS (sp_db_tables); i++) {
    const SpSchema *t = sp_db_tables[i];
    GString *sql = g_string_new (NULL);
    gint rc;

    g_string_append_printf (sql, "INSERT INTO %s (snapshot_id", t->name);
    for (j = 0; j < t->n_cols; j++)
      g_string_append_printf (sql, ", %s", t->cols[j].key);
    g_string_append (sql, ") VALUES (?");
    for (j = 0; j < t->n_cols; j++)
      g_string_append (sql, ", ?");
    g_string_append (sql, ")");
    rc = sqlite3_prepare_v2 (db->db, sql->str, -1, &db->row_stmt[i], NULL);
    g_string_free (sql, TRUE);
    if (rc != SQLITE_OK) {
      sp_db_set_error (error, db, "preparing statements");
      return FALSE;
    }
  }
  return TRUE;
}

/* ---- writer thread ------------------------------------------------------- */

/* Bind a structure field to a column, tolerating the numeric types a
 * producer might reasonably use; anything else (or absent) is NULL. */
static void
sp_db_bind (sqlite3_stmt * st, gint idx, const GstStructure * s,
    const SpColumn * col)
{
  const GValue *v = gst_structure_get_value (s, col->key);
  GValue tmp = G_VALUE_INIT;

  if (v == NULL) {
    sqlite3_bind_null (st, idx);
    return;
  }
  switch (col->type) {
    case SP_COL_TEXT:
      if (G_VALUE_HOLDS_STRING (v))
        sqlite3_bind_text (st, idx, g_value_get_string (v), -1,
            SQLITE_TRANSIENT);
      else
        sqlite3_bind_null (st, idx);
      return;
    case SP_COL_BOOL:
      if (G_VALUE_HOLDS_BOOLEAN (v))
        sqlite3_bind_int (st, idx, g_value_get_boolean (v) ? 1 : 0);
      else
        sqlite3_bind_null (st, idx);
      return;
    case SP_COL_INT:
    case SP_COL_ID:
      if (G_VALUE_HOLDS_UINT64 (v))     /* guint64 counts above 2^63: clamp */
        sqlite3_bind_int64 (st, idx, (gint64) MIN (g_value_get_uint64 (v),
                (guint64) G_MAXINT64));
      else if (g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_INT64)
          && (g_value_init (&tmp, G_TYPE_INT64), g_value_transform (v, &tmp)))
        sqlite3_bind_int64 (st, idx, g_value_get_int64 (&tmp));
      else
        sqlite3_bind_null (st, idx);
      break;
    case SP_COL_REAL:
      if (g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE)
          && (g_value_init (&tmp, G_TYPE_DOUBLE), g_value_transform (v, &tmp)))
        sqlite3_bind_double (st, idx, g_value_get_double (&tmp));
      else
        sqlite3_bind_null (st, idx);
      break;
  }
  if (G_IS_VALUE (&tmp))
    g_value_unset (&tmp);
}

static gboolean
sp_db_insert_rows_of (SpDb * db, const SpSchema * t, sqlite3_stmt * st,
    gint64 snap_id, const GstStructure * summary)
{
  const GValue *arr = gst_structure_get_value (summary, t->name);
  guint i, j, n;

  if (arr == NULL)
    return TRUE;
  if (GST_VALUE_HOLDS_ARRAY (arr))
    n = gst_value_array_get_size (arr);
  else if (GST_VALUE_HOLDS_LIST (arr))
    n = gst_value_list_get_size (arr);
  else
    return TRUE;

  for (i = 0; i < n; i++) {
    const GValue *ev = GST_VALUE_HOLDS_ARRAY (arr) ?
        gst_value_array_get_value (arr, i) : gst_value_list_get_value (arr, i);
    const GstStructure *row;

    if (!GST_VALUE_HOLDS_STRUCTURE (ev))
      continue;
    row = gst_value_get_structure (ev);
    sqlite3_reset (st);
    sqlite3_clear_bindings (st);
    sqlite3_bind_int64 (st, 1, snap_id);
    for (j = 0; j < t->n_cols; j++) {
      const gchar *cn = t->cols[j].key;
      /* Rows without their own `run` take the snapshot's. */
      if (!gst_structure_has_field (row, cn)
          && (strcmp (cn, "run") == 0 || strcmp (cn, "pipeline") == 0))
        sp_db_bind (st, j + 2, summary, &t->cols[j]);
      else
        sp_db_bind (st, j + 2, row, &t->cols[j]);
    }
    if (sqlite3_step (st) != SQLITE_DONE) {
      sp_db_warn (db, t->name);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
sp_db_insert_rows (SpDb * db, guint ti, gint64 snap_id,
    const GstStructure * summary)
{
  return sp_db_insert_rows_of (db, sp_db_tables[ti], db->row_stmt[ti],
      snap_id, summary);
}

static gboolean sp_db_create_table (SpDb * db, const SpSchema * t,
    gchar * sql, gchar ** msg);
static gchar *sp_db_windows_sql (void);

/* The windows tables, made at the first window (writer thread): a
 * database written without interval= does not carry them (seven tables
 * and their indexes, 56 KiB empty). */
static gboolean
sp_db_windows_ready (SpDb * db)
{
  gchar *msg = NULL;
  gboolean ok;

  if (db->win_stmt)
    return TRUE;
  ok = sp_db_create_table (db, &sp_schema_windows, sp_db_windows_sql (),
      &msg);
  for (guint i = 0; ok && i < SP_DB_WINDOW_TABLES; i++)
    ok = sp_db_create_table (db, sp_db_window_tables[i],
        sp_schema_create_sql_in (sp_db_window_tables[i], "windows",
            "window_id"), &msg);
  sqlite3_free (msg);
  if (ok && !sp_db_prepare_windows (db)) {
    sqlite3_finalize (db->win_stmt);
    db->win_stmt = NULL;
    ok = FALSE;
  }
  return ok;
}

/* One window (summary/spwindow.h): its row and its tables' rows, all or
 * nothing. */
static void
sp_db_insert_window (SpDb * db, const GstStructure * w)
{
  sqlite3_stmt *st;
  gboolean ok;
  gint64 id;

  if (!sp_db_windows_ready (db)) {
    sp_db_warn (db, "creating the windows tables");
    g_atomic_int_inc (&db->failed);
    return;
  }
  st = db->win_stmt;
  if (sqlite3_exec (db->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
    sp_db_warn (db, "BEGIN");
    return;
  }
  sqlite3_reset (st);
  sqlite3_clear_bindings (st);
  sqlite3_bind_int64 (st, 1, db->run_id);
  for (guint j = 0; j < sp_schema_windows.n_cols; j++)
    sp_db_bind (st, j + 2, w, &sp_schema_windows.cols[j]);
  ok = sqlite3_step (st) == SQLITE_DONE;
  if (!ok)
    sp_db_warn (db, "windows");
  id = sqlite3_last_insert_rowid (db->db);
  for (guint i = 0; ok && i < SP_DB_WINDOW_TABLES; i++)
    ok = sp_db_insert_rows_of (db, sp_db_window_tables[i],
        db->win_row_stmt[i], id, w);
  if (ok && sqlite3_exec (db->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    sp_db_warn (db, "COMMIT");
    ok = FALSE;
  }
  if (!ok) {
    if (!sqlite3_get_autocommit (db->db))
      sqlite3_exec (db->db, "ROLLBACK", NULL, NULL, NULL);
    g_atomic_int_inc (&db->failed);
  }
}

static void
sp_db_insert_snapshot (SpDb * db, const GstStructure * s)
{
  sqlite3_stmt *st = db->snap_stmt;
  gchar *now = sp_db_now_iso ();
  gdouble wall_s;
  gboolean final = FALSE, ok;
  gint64 snap_id;
  guint i;

  if (sqlite3_exec (db->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
    sp_db_warn (db, "BEGIN");
    g_free (now);
    return;
  }
  sqlite3_reset (st);
  sqlite3_clear_bindings (st);
  sqlite3_bind_int64 (st, 1, db->run_id);
  sqlite3_bind_text (st, 2, now, -1, SQLITE_TRANSIENT);
  if (gst_structure_get_double (s, "wall_s", &wall_s))
    sqlite3_bind_double (st, 3, wall_s);
  gst_structure_get_boolean (s, "final", &final);
  sqlite3_bind_int (st, 4, final ? 1 : 0);
  if (gst_structure_get_string (s, "verdict"))
    sqlite3_bind_text (st, 5, gst_structure_get_string (s, "verdict"), -1,
        SQLITE_TRANSIENT);
  {
    static const SpColumn pcol = { "pipeline", SP_COL_TEXT, NULL, 0, 0 };
    static const SpColumn rcol = { "run", SP_COL_ID, NULL, 0, 0 };
    sp_db_bind (st, 6, s, &pcol);
    sp_db_bind (st, 7, s, &rcol);
  }
  ok = sqlite3_step (st) == SQLITE_DONE;
  if (!ok)
    sp_db_warn (db, "snapshots");
  snap_id = sqlite3_last_insert_rowid (db->db);
  for (i = 0; ok && i < G_N_ELEMENTS (sp_db_tables); i++)
    ok = sp_db_insert_rows (db, i, snap_id, s);

  if (ok && sqlite3_exec (db->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    sp_db_warn (db, "COMMIT");
    ok = FALSE;
  }
  /* All or nothing: a failed snapshot leaves no row behind. */
  if (!ok) {
    if (!sqlite3_get_autocommit (db->db))
      sqlite3_exec (db->db, "ROLLBACK", NULL, NULL, NULL);
    g_atomic_int_inc (&db->failed);
  }
  g_free (now);
}

static gpointer
sp_db_writer (gpointer data)
{
  SpDb *db = data;
  GstStructure *s;

  while ((s = g_async_queue_pop (db->queue)) != sp_db_stop) {
    /* The queue orders the snapshot's copy before its use here. */
    SP_TSAN_ACQUIRE (db->queue);
    if (gst_structure_has_name (s, "stageprof-window"))
      sp_db_insert_window (db, s);
    else
      sp_db_insert_snapshot (db, s);
    gst_structure_free (s);
  }
  return NULL;
}

/* ---- public -------------------------------------------------------------- */

static void
sp_db_free (SpDb * db)
{
  guint i;

  sqlite3_finalize (db->snap_stmt);
  for (i = 0; i < G_N_ELEMENTS (sp_db_tables); i++)
    sqlite3_finalize (db->row_stmt[i]);
  sqlite3_finalize (db->win_stmt);
  for (i = 0; i < SP_DB_WINDOW_TABLES; i++)
    sqlite3_finalize (db->win_row_stmt[i]);
  sqlite3_close (db->db);
  if (db->queue)
    g_async_queue_unref (db->queue);
  g_free (db->path);
  g_free (db);
}

static gboolean
sp_db_has_column (SpDb * db, const gchar * table, const gchar * column)
{
  gchar *sql = g_strdup_printf ("PRAGMA table_info(%s)", table);
  sqlite3_stmt *st = NULL;
  gboolean found = FALSE;

  if (sqlite3_prepare_v2 (db->db, sql, -1, &st, NULL) == SQLITE_OK)
    while (!found && sqlite3_step (st) == SQLITE_ROW)
      found = g_strcmp0 ((const gchar *) sqlite3_column_text (st, 1),
          column) == 0;
  sqlite3_finalize (st);
  g_free (sql);
  return found;
}

/* FALSE (an error naming them) when the file holds tables that stageprof
 * did not make: db= pointed at an application's database by mistake must
 * not get our tables mixed into it. */
static gboolean
sp_db_check_only_ours (SpDb * db, GError ** error)
{
  sqlite3_stmt *st = NULL;
  GString *foreign = g_string_new (NULL);
  guint n = 0;

  if (sqlite3_prepare_v2 (db->db, "SELECT name FROM sqlite_master WHERE "
          "type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
          "ORDER BY name", -1, &st, NULL) != SQLITE_OK) {
    g_string_free (foreign, TRUE);
    sp_db_set_error (error, db, "reading its tables");
    return FALSE;
  }
  while (sqlite3_step (st) == SQLITE_ROW) {
    const gchar *name = (const gchar *) sqlite3_column_text (st, 0);
    gboolean ours = !g_strcmp0 (name, "runs")
        || !g_strcmp0 (name, "snapshots") || !g_strcmp0 (name, "windows");

    for (guint i = 0; !ours && i < G_N_ELEMENTS (sp_db_tables); i++)
      ours = !g_strcmp0 (name, sp_db_tables[i]->name);
    for (guint i = 0; !ours && i < SP_DB_WINDOW_TABLES; i++)
      ours = !g_strcmp0 (name, sp_db_window_tables[i]->name);
    if (ours || !name)
      continue;
    if (n++ < 5)
      g_string_append_printf (foreign, "%s%s", foreign->len ? ", " : "",
          name);
  }
  sqlite3_finalize (st);
  if (n > 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
        "Refusing to use SQLite database \"%s\": it has tables that "
        "stageprof did not make (%s%s); give db= a new file or one that "
        "stageprof wrote", db->path, foreign->str, n > 5 ? ", ..." : "");
  }
  g_string_free (foreign, TRUE);
  return n == 0;
}

/* A database from a newer stageprof (a higher user_version) may have
 * columns and meanings this one does not know: appending to it and
 * setting its version back would break the newer readers. */
static gboolean
sp_db_check_version (SpDb * db, GError ** error)
{
  sqlite3_stmt *st = NULL;
  gint version = 0;

  if (sqlite3_prepare_v2 (db->db, "PRAGMA user_version", -1, &st,
          NULL) != SQLITE_OK) {
    sp_db_set_error (error, db, "reading its version");
    return FALSE;
  }
  if (sqlite3_step (st) == SQLITE_ROW)
    version = sqlite3_column_int (st, 0);
  sqlite3_finalize (st);
  if (version > SP_DB_SCHEMA_VERSION) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
        "Refusing to use SQLite database \"%s\": a newer stageprof wrote "
        "it (schema version %d; this one writes version %d); give db= a "
        "new file", db->path, version, SP_DB_SCHEMA_VERSION);
    return FALSE;
  }
  return TRUE;
}

/* The schema's tables, created where missing; a database written by an
 * older stageprof gets the columns added since (NULL in its old rows);
 * nothing is removed. */
/* `sql` creates `t` if missing; then the columns added since. */
static gboolean
sp_db_create_table (SpDb * db, const SpSchema * t, gchar * sql, gchar ** msg)
{
  gint rc = sqlite3_exec (db->db, sql, NULL, NULL, msg);

  g_free (sql);
  if (rc != SQLITE_OK)
    return FALSE;
  for (guint j = 0; j < t->n_cols; j++) {
    if (sp_db_has_column (db, t->name, t->cols[j].key))
      continue;
    sql = g_strdup_printf ("ALTER TABLE %s ADD COLUMN %s %s", t->name,
        t->cols[j].key, sp_column_sql_type (&t->cols[j]));
    rc = sqlite3_exec (db->db, sql, NULL, NULL, msg);
    g_free (sql);
    if (rc != SQLITE_OK)
      return FALSE;
  }
  return TRUE;
}

/* CREATE TABLE windows: window_id, run_id, then its schema columns. */
static gchar *
sp_db_windows_sql (void)
{
  const SpSchema *t = &sp_schema_windows;
  GString *sql = g_string_new ("CREATE TABLE IF NOT EXISTS windows ("
      " window_id INTEGER PRIMARY KEY,"
      " run_id INTEGER NOT NULL REFERENCES runs(run_id)");

  for (guint i = 0; i < t->n_cols; i++)
    g_string_append_printf (sql, ", %s %s", t->cols[i].key,
        sp_column_sql_type (&t->cols[i]));
  g_string_append (sql, ");CREATE INDEX IF NOT EXISTS windows_run ON "
      "windows(run_id);");
  return g_string_free (sql, FALSE);
}

static gboolean
sp_db_create_tables (SpDb * db, GError ** error)
{
  gchar *msg = NULL;

  if (sqlite3_exec (db->db, sp_db_fixed_schema, NULL, NULL, &msg) != SQLITE_OK)
    goto fail;
  for (guint i = 0; i < G_N_ELEMENTS (sp_db_tables); i++)
    if (!sp_db_create_table (db, sp_db_tables[i],
            sp_schema_create_sql (sp_db_tables[i]), &msg))
      goto fail;

  /* snapshots' pipeline and run came in version 2 */
  if (!sp_db_has_column (db, "snapshots", "pipeline")
      && (sqlite3_exec (db->db, "ALTER TABLE snapshots ADD COLUMN pipeline "
              "TEXT", NULL, NULL, &msg) != SQLITE_OK
          || sqlite3_exec (db->db, "ALTER TABLE snapshots ADD COLUMN run "
              "INTEGER", NULL, NULL, &msg) != SQLITE_OK))
    goto fail;
  return TRUE;
fail:
  sqlite3_free (msg);
  sp_db_set_error (error, db, "creating the schema");
  return FALSE;
}

/* A database this open created and could not write a byte of (a full
 * disk): the empty file, and SQLite's beside it, go. */
static void
sp_db_remove_new_empty (const gchar * path)
{
  static const gchar *const sfx[] = { "-wal", "-shm", "-journal" };
  GStatBuf st;
  guint i;

  if (g_lstat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size != 0)
    return;
  g_unlink (path);
  for (i = 0; i < G_N_ELEMENTS (sfx); i++) {
    gchar *p = g_strconcat (path, sfx[i], NULL);

    if (g_lstat (p, &st) == 0 && S_ISREG (st.st_mode) && st.st_size == 0)
      g_unlink (p);
    g_free (p);
  }
}

SpDb *
sp_db_open (const gchar * path, GError ** error)
{
  SpDb *db;
  gboolean existed;

  g_return_val_if_fail (path != NULL, NULL);

  if (!sp_file_check_not_symlink (path, "database", error))
    return NULL;
  existed = g_file_test (path, G_FILE_TEST_EXISTS);
  db = g_new0 (SpDb, 1);
  db->path = g_strdup (path);
  if (sqlite3_open_v2 (path, &db->db,
          SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
#ifdef SQLITE_OPEN_NOFOLLOW
          | SQLITE_OPEN_NOFOLLOW
#endif
          , NULL) != SQLITE_OK) {
    sp_db_set_error (error, db, "opening");
    sp_db_free (db);
    return NULL;
  }
  /* Someone may be querying the file while we run: wait, do not fail. */
  sqlite3_busy_timeout (db->db, 5000);
  if (!sp_db_check_only_ours (db, error) || !sp_db_check_version (db, error)
      || !sp_db_create_tables (db, error)) {
    sp_db_free (db);
    if (!existed)
      sp_db_remove_new_empty (path);
    return NULL;
  }
  sqlite3_exec (db->db, "PRAGMA user_version = "
      G_STRINGIFY (SP_DB_SCHEMA_VERSION), NULL, NULL, NULL);
  /* One transaction per snapshot: with the default rollback journal each
   * would fsync (tens of ms on a busy disk). WAL with synchronous=NORMAL
   * syncs only at checkpoints and still cannot corrupt the file; a power
   * cut may lose the last snapshots, which a profile can afford. Where WAL
   * is unavailable (some network filesystems) SQLite keeps its default. */
  sqlite3_exec (db->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
  sqlite3_exec (db->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
  if (!sp_db_insert_run (db, error) || !sp_db_prepare (db, error)) {
    sp_db_free (db);
    if (!existed)
      sp_db_remove_new_empty (path);
    return NULL;
  }

  db->queue = g_async_queue_new ();
  db->writer = g_thread_new ("spdb-writer", sp_db_writer, db);
  return db;
}

void
sp_db_add_snapshot (SpDb * db, const GstStructure * summary)
{
  g_return_if_fail (db != NULL && summary != NULL);

  /* A stalled disk must not grow memory without bound. */
  if (g_async_queue_length (db->queue) >= SP_DB_MAX_PENDING) {
    g_atomic_int_inc (&db->dropped);
    return;
  }
  {
    GstStructure *copy = gst_structure_copy (summary);

    SP_TSAN_RELEASE (db->queue);
    g_async_queue_push (db->queue, copy);
  }
}

gint64
sp_db_get_run_id (SpDb * db)
{
  return db->run_id;
}

guint
sp_db_get_dropped (SpDb * db)
{
  return (guint) g_atomic_int_get (&db->dropped);
}

guint
sp_db_get_failed (SpDb * db)
{
  return (guint) g_atomic_int_get (&db->failed);
}

void
sp_db_close (SpDb * db)
{
  guint dropped;

  if (db == NULL)
    return;
  g_async_queue_push (db->queue, sp_db_stop);
  g_thread_join (db->writer);
  dropped = sp_db_get_dropped (db);
  if (dropped)
    g_warning ("stageprof: %u snapshots were not written to \"%s\" "
        "(the database fell behind)", dropped, db->path);
  if (sp_db_get_failed (db))
    g_warning ("stageprof: %u snapshots could not be written to \"%s\" "
        "(%s) and were rolled back; the database holds whole snapshots "
        "only", sp_db_get_failed (db), db->path, sqlite3_errmsg (db->db));
  sp_db_free (db);
}
