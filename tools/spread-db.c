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

#include "spreport.h"

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

static void
read_tables (sqlite3 * db, SpProfile * p, gint64 run, gboolean final,
    const gchar * run_s)
{
  GHashTable *keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  Rows r;

  if (open_rows (db, "elements", run, final, &r)) {
    while (sqlite3_step (r.st) == SQLITE_ROW) {
      SpElemRow *e = g_new0 (SpElemRow, 1);
      e->name = scol (&r, "name");
      e->thread = scol (&r, "thread");
      e->pipeline = scol (&r, "pipeline");
      if (!e->name || seen (keys, e->pipeline, e->name, e->thread)) {
        g_free (e->name);
        g_free (e->thread);
        g_free (e->pipeline);
        g_free (e);
        continue;
      }
      e->run = g_strdup (run_s);
      e->count = dcol (&r, "count");
      e->mean_ms = dcol (&r, "mean_ms");
      e->std_ms = dcol (&r, "std_ms");
      e->min_ms = dcol (&r, "min_ms");
      e->max_ms = dcol (&r, "max_ms");
      e->median_ms = dcol (&r, "median_ms");
      e->p90_ms = dcol (&r, "p90_ms");
      e->p99_ms = dcol (&r, "p99_ms");
      e->total_s = dcol (&r, "total_s");
      e->busy_pct = dcol (&r, "busy_pct");
      g_ptr_array_add (p->elements, e);
    }
    sqlite3_finalize (r.st);
  }
  g_hash_table_remove_all (keys);
  if (open_rows (db, "queues", run, final, &r)) {
    while (sqlite3_step (r.st) == SQLITE_ROW) {
      SpQueueRow *q = g_new0 (SpQueueRow, 1);
      q->name = scol (&r, "name");
      q->pipeline = scol (&r, "pipeline");
      if (seen (keys, q->pipeline, q->name, NULL)) {
        g_free (q->name);
        g_free (q->pipeline);
        g_free (q);
        continue;
      }
      q->run = g_strdup (run_s);
      q->items = dcol (&r, "items");
      q->qps = dcol (&r, "qps");
      q->mean_level = dcol (&r, "mean_level");
      q->max_level = dcol (&r, "max_level");
      q->mean_bytes = dcol (&r, "mean_bytes");
      q->max_bytes = dcol (&r, "max_bytes");
      q->empty_pct = dcol (&r, "empty_pct");
      q->full_pct = dcol (&r, "full_pct");
      q->ave_put_ms = dcol (&r, "ave_put_ms");
      q->ave_get_ms = dcol (&r, "ave_get_ms");
      g_ptr_array_add (p->queues, q);
    }
    sqlite3_finalize (r.st);
  }
  g_hash_table_remove_all (keys);
  if (open_rows (db, "threads", run, final, &r)) {
    while (sqlite3_step (r.st) == SQLITE_ROW) {
      SpThreadRow *t = g_new0 (SpThreadRow, 1);
      t->name = scol (&r, "name");
      t->pipeline = scol (&r, "pipeline");
      if (seen (keys, t->pipeline, t->name, NULL)) {
        g_free (t->name);
        g_free (t->pipeline);
        g_free (t);
        continue;
      }
      t->run = g_strdup (run_s);
      t->wall_s = dcol (&r, "wall_s");
      t->busy_pct = dcol (&r, "busy_pct");
      t->wait_input_pct = dcol (&r, "wait_input_pct");
      t->wait_output_pct = dcol (&r, "wait_output_pct");
      t->blocked_pct = dcol (&r, "blocked_pct");
      t->cpu_wait_pct = dcol (&r, "cpu_wait_pct");
      g_ptr_array_add (p->threads, t);
    }
    sqlite3_finalize (r.st);
  }
  g_hash_table_remove_all (keys);
  if (open_rows (db, "sinks", run, final, &r)) {
    while (sqlite3_step (r.st) == SQLITE_ROW) {
      SpSinkRow *k = g_new0 (SpSinkRow, 1);
      k->name = scol (&r, "name");
      k->pipeline = scol (&r, "pipeline");
      if (seen (keys, k->pipeline, k->name, NULL)) {
        g_free (k->name);
        g_free (k->pipeline);
        g_free (k);
        continue;
      }
      k->run = g_strdup (run_s);
      k->frames = dcol (&r, "frames");
      k->fps = dcol (&r, "fps");
      k->unit = scol (&r, "unit");
      k->media = scol (&r, "media");
      k->buffers = dcol (&r, "buffers");
      g_ptr_array_add (p->sinks, k);
    }
    sqlite3_finalize (r.st);
  }
  g_hash_table_destroy (keys);
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
