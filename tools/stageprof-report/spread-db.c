/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spread-db: reads stageprof's SQLite database (db=FILE, docs/tracer-db.md).
 *
 * Columns are looked up by name, so a schema with more columns (pipeline,
 * run) or fewer reads the same; a run is chosen by run_id (default: the
 * latest), and within it the latest final snapshot of each pipeline (the
 * latest periodic one when the process died before any final one). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <sqlite3.h>

#include "spread.h"

typedef struct
{
  sqlite3_stmt *st;
  gint ncols;
} Rows;

static gint
col (Rows * r, const gchar * name)
{
  gint i;

  for (i = 0; i < r->ncols; i++)
    if (g_ascii_strcasecmp (sqlite3_column_name (r->st, i), name) == 0)
      return i;
  return -1;
}

static gdouble
dcol (Rows * r, const gchar * name)
{
  gint i = col (r, name);

  if (i < 0 || sqlite3_column_type (r->st, i) == SQLITE_NULL)
    return NAN;
  return sqlite3_column_double (r->st, i);
}

static gchar *
scol (Rows * r, const gchar * name)
{
  gint i = col (r, name);

  if (i < 0 || sqlite3_column_type (r->st, i) == SQLITE_NULL)
    return NULL;
  return g_strdup ((const gchar *) sqlite3_column_text (r->st, i));
}

static gboolean
has_table (sqlite3 * db, const gchar * name)
{
  sqlite3_stmt *st;
  gboolean res = FALSE;

  if (sqlite3_prepare_v2 (db, "SELECT 1 FROM sqlite_master WHERE type='table'"
          " AND name=?", -1, &st, NULL) != SQLITE_OK)
    return FALSE;
  sqlite3_bind_text (st, 1, name, -1, SQLITE_STATIC);
  res = sqlite3_step (st) == SQLITE_ROW;
  sqlite3_finalize (st);
  return res;
}

static gint64
query_int (sqlite3 * db, const gchar * sql, gint64 arg, gint64 dflt)
{
  sqlite3_stmt *st;
  gint64 v = dflt;

  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    return dflt;
  if (sqlite3_bind_parameter_count (st) > 0)
    sqlite3_bind_int64 (st, 1, arg);
  if (sqlite3_step (st) == SQLITE_ROW
      && sqlite3_column_type (st, 0) != SQLITE_NULL)
    v = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return v;
}

/* Rows of `table` in the snapshots of the run, newest snapshot first; a row
 * whose key (pipeline, name, thread) was already seen in a newer snapshot
 * is skipped by the caller. */
static gboolean
open_rows (sqlite3 * db, const gchar * table, gint64 run, gboolean final,
    Rows * r)
{
  gchar *sql = g_strdup_printf ("SELECT t.* FROM %s t JOIN snapshots s "
      "USING (snapshot_id) WHERE s.run_id = ?1 AND s.final = %d "
      "ORDER BY s.snapshot_id DESC", table, final ? 1 : 0);
  gboolean ok = sqlite3_prepare_v2 (db, sql, -1, &r->st, NULL) == SQLITE_OK;

  g_free (sql);
  if (!ok)
    return FALSE;
  sqlite3_bind_int64 (r->st, 1, run);
  r->ncols = sqlite3_column_count (r->st);
  return TRUE;
}

static gboolean
seen (GHashTable * keys, const gchar * a, const gchar * b, const gchar * c)
{
  gchar *k = g_strdup_printf ("%s\x1f%s\x1f%s", a ? a : "", b ? b : "",
      c ? c : "");

  if (g_hash_table_contains (keys, k)) {
    g_free (k);
    return TRUE;
  }
  g_hash_table_add (keys, k);
  return FALSE;
}

/* The rows of one table in the run's snapshots, newest first, each key
 * (pipeline, name, thread) once: every column of the schema the table has
 * (an older database lacks some: NAN or NULL). */
static void
read_table (sqlite3 * db, const SpRowKind * k, gint64 run, gboolean final,
    const gchar * run_s, GPtrArray * dst)
{
  GHashTable *keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  gint thread = sp_schema_column_index (k->schema, "thread");
  gint pipe = sp_schema_column_index (k->schema, "pipeline");
  gint run_col = sp_schema_column_index (k->schema, "run");
  Rows r;

  if (!open_rows (db, k->schema->name, run, final, &r)) {
    g_hash_table_destroy (keys);
    return;
  }
  while (sqlite3_step (r.st) == SQLITE_ROW) {
    gpointer row = sp_row_new (k);

    for (guint c = 0; c < k->schema->n_cols; c++) {
      const SpColumn *col = &k->schema->cols[c];
      if ((gint) c == run_col)
        sp_row_take_text (k, row, c, g_strdup (run_s));
      else if (sp_col_is_text (col))
        sp_row_take_text (k, row, c, scol (&r, col->key));
      else
        sp_row_set_num (k, row, c, dcol (&r, col->key));
    }
    if (!sp_row_text (k, row, 0) || seen (keys, sp_row_text (k, row, pipe),
            sp_row_text (k, row, 0), thread < 0 ? NULL :
            sp_row_text (k, row, thread)))
      sp_row_free (k, row);
    else
      g_ptr_array_add (dst, row);
  }
  sqlite3_finalize (r.st);
  g_hash_table_destroy (keys);
}

static void
read_tables (sqlite3 * db, SpProfile * p, gint64 run, gboolean final,
    const gchar * run_s)
{
  read_table (db, &sp_elem_kind, run, final, run_s, p->elements);
  read_table (db, &sp_queue_kind, run, final, run_s, p->queues);
  read_table (db, &sp_thread_kind, run, final, run_s, p->threads);
  read_table (db, &sp_sink_kind, run, final, run_s, p->sinks);
  read_table (db, &sp_latency_kind, run, final, run_s, p->latency);
  read_table (db, &sp_elem_latency_kind, run, final, run_s,
      p->element_latency);
  read_table (db, &sp_pool_kind, run, final, run_s, p->pools);
  read_table (db, &sp_memory_kind, run, final, run_s, p->memory);
}

/* Every row of a windows table in the run, oldest window first; `parent`:
 * the windows table itself (its own run_id) or one keyed by window_id. */
static void
read_window_table (sqlite3 * db, const SpRowKind * k, gint64 run,
    GPtrArray * dst)
{
  gboolean top = k == &sp_window_kind;
  gchar *sql = top ? g_strdup ("SELECT w.* FROM windows w WHERE "
      "w.run_id = ?1 ORDER BY w.window_id") : g_strdup_printf ("SELECT t.* "
      "FROM %s t JOIN windows w USING (window_id) WHERE w.run_id = ?1 "
      "ORDER BY w.window_id", k->schema->name);
  Rows r;

  if (sqlite3_prepare_v2 (db, sql, -1, &r.st, NULL) != SQLITE_OK) {
    g_free (sql);
    return;
  }
  g_free (sql);
  sqlite3_bind_int64 (r.st, 1, run);
  r.ncols = sqlite3_column_count (r.st);
  while (sqlite3_step (r.st) == SQLITE_ROW) {
    gpointer row = sp_row_new (k);

    for (guint c = 0; c < k->schema->n_cols; c++) {
      const SpColumn *col = &k->schema->cols[c];
      if (sp_col_is_text (col))
        sp_row_take_text (k, row, c, scol (&r, col->key));
      else
        sp_row_set_num (k, row, c, dcol (&r, col->key));
    }
    g_ptr_array_add (dst, row);
  }
  sqlite3_finalize (r.st);
}

/* The run's windows (interval=), for plots and --from/--till. */
static void
read_windows (sqlite3 * db, SpProfile * p, gint64 run)
{
  if (!has_table (db, "windows"))
    return;
  read_window_table (db, &sp_window_kind, run, p->windows);
  read_window_table (db, &sp_win_elem_kind, run, p->window_elements);
  read_window_table (db, &sp_win_pad_kind, run, p->window_pads);
  read_window_table (db, &sp_win_queue_kind, run, p->window_queues);
  read_window_table (db, &sp_win_thread_kind, run, p->window_threads);
  read_window_table (db, &sp_win_latency_kind, run, p->window_latency);
  read_window_table (db, &sp_win_latency_hist_kind, run,
      p->window_latency_hist);
}

static void
read_snapshot_info (sqlite3 * db, SpProfile * p, gint64 run, gboolean final)
{
  sqlite3_stmt *st;

  if (sqlite3_prepare_v2 (db, "SELECT wall_s, verdict FROM snapshots WHERE "
          "run_id = ? AND final = ? ORDER BY snapshot_id DESC LIMIT 1", -1,
          &st, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_int64 (st, 1, run);
  sqlite3_bind_int (st, 2, final ? 1 : 0);
  if (sqlite3_step (st) == SQLITE_ROW) {
    if (sqlite3_column_type (st, 0) != SQLITE_NULL)
      p->wall_s = sqlite3_column_double (st, 0);
    if (sqlite3_column_type (st, 1) != SQLITE_NULL)
      p->verdict = g_strdup ((const gchar *) sqlite3_column_text (st, 1));
  }
  sqlite3_finalize (st);
}

SpProfile *
sp_read_db (const gchar * path, const gchar * run_arg, GError ** error)
{
  sqlite3 *db = NULL;
  SpProfile *p = NULL;
  gint64 run, nfinal;
  gchar *run_s = NULL, *end = NULL;
  gboolean final;

  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        "%s: cannot open the database: %s", path, sqlite3_errmsg (db));
    sqlite3_close (db);
    return NULL;
  }
  sqlite3_busy_timeout (db, 2000);
  if (!has_table (db, "runs") || !has_table (db, "snapshots")
      || !has_table (db, "elements")) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NOT_STAGEPROF,
        "%s: an SQLite database, but not stageprof's (no runs, snapshots "
        "and elements tables)", path);
    goto out;
  }
  if (run_arg) {
    run = g_ascii_strtoll (run_arg, &end, 10);
    if (!end || *end || end == run_arg
        || query_int (db, "SELECT COUNT(*) FROM runs WHERE run_id = ?", run,
            0) == 0) {
      g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NO_MATCH,
          "%s: no run '%s' (runs are numbered 1 to %" G_GINT64_FORMAT
          "; list them with: sqlite3 %s 'SELECT * FROM runs')", path,
          run_arg, query_int (db, "SELECT MAX(run_id) FROM runs", 0, 0),
          path);
      goto out;
    }
  } else {
    run = query_int (db, "SELECT MAX(run_id) FROM snapshots", 0, -1);
    if (run < 0) {
      g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_EMPTY,
          "%s: the database holds no snapshot (%" G_GINT64_FORMAT " runs "
          "recorded; the process ended before its first summary?)", path,
          query_int (db, "SELECT COUNT(*) FROM runs", 0, 0));
      goto out;
    }
  }
  nfinal = query_int (db, "SELECT COUNT(*) FROM snapshots WHERE run_id = ? "
      "AND final = 1", run, 0);
  final = nfinal > 0;
  run_s = g_strdup_printf ("%" G_GINT64_FORMAT, run);
  p = sp_profile_new (path, SP_SOURCE_DB);
  if (!final)
    sp_profile_note (p, "run %s has no final snapshot (the process did not "
        "stop cleanly): showing its latest periodic snapshot", run_s);
  read_snapshot_info (db, p, run, final);
  read_tables (db, p, run, final, run_s);
  read_windows (db, p, run);
  if (p->elements->len == 0) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_EMPTY,
        "%s: run %s has no element rows", path, run_s);
    sp_profile_free (p);
    p = NULL;
  }
out:
  g_free (run_s);
  sqlite3_close (db);
  return p;
}
