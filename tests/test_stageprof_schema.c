/* The profile schema (schema/spschema.h) against everything that writes or
 * reads a profile: a summary with a value in every column goes out through
 * each output (JSON, CSV, SQLite) and comes back through each reader with
 * every value; a real run's summary has exactly the schema's columns; the
 * database's documentation names every column.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <json-glib/json-glib.h>

#include "spdb.h"
#include "spread.h"
#include "spreport.h"
#include "sprowgst.h"
#include "spschema.h"
#include "spshow.h"
#include "spsummary.h"
#include "tmpdir.h"

#define N_ROWS 3

/* Distinct, exactly representable values: table t, column c, row r. */
static gdouble
real_value (guint t, guint c, guint r)
{
  return 1000.0 * t + 10.0 * c + r + 0.25;
}

static guint64
int_value (guint t, guint c, guint r)
{
  return 100000ull * (t + 1) + 100 * c + r;
}

/* Names with a quote, a comma and a non-ASCII letter: CSV quoting and
 * UTF-8 on every path. */
static gchar *
text_value (const SpSchema * s, guint c, guint r)
{
  return g_strdup_printf ("%s \"%s\", r%u \xc3\xa9", s->name, s->cols[c].key,
      r);
}

static GstStructure *
full_row (guint t, const SpSchema * s, guint r)
{
  GstStructure *row = gst_structure_new_empty ("row");

  for (guint c = 0; c < s->n_cols; c++) {
    const SpColumn *col = &s->cols[c];
    gchar *text;

    switch (col->type) {
      case SP_COL_TEXT:
        text = text_value (s, c, r);
        gst_structure_set (row, col->key, G_TYPE_STRING, text, NULL);
        g_free (text);
        break;
      case SP_COL_ID:
        gst_structure_set (row, col->key, G_TYPE_UINT, 7, NULL);
        break;
      case SP_COL_INT:
        gst_structure_set (row, col->key, G_TYPE_UINT64, int_value (t, c, r),
            NULL);
        break;
      case SP_COL_BOOL:
        gst_structure_set (row, col->key, G_TYPE_BOOLEAN, r % 2 == 1, NULL);
        break;
      case SP_COL_REAL:
        gst_structure_set (row, col->key, G_TYPE_DOUBLE, real_value (t, c, r),
            NULL);
        break;
    }
  }
  return row;
}

/* A summary whose every table has N_ROWS rows with every column set. */
static GstStructure *
full_summary (void)
{
  GstStructure *s = gst_structure_new ("stageprof-summary",
      "wall_s", G_TYPE_DOUBLE, 12.5, "final", G_TYPE_BOOLEAN, TRUE,
      "verdict", G_TYPE_STRING, "source-bound: src", NULL);

  for (guint t = 0; sp_schema_tables[t]; t++) {
    GValue arr = G_VALUE_INIT;

    g_value_init (&arr, GST_TYPE_ARRAY);
    for (guint r = 0; r < N_ROWS; r++) {
      GValue v = G_VALUE_INIT;
      g_value_init (&v, GST_TYPE_STRUCTURE);
      g_value_take_boxed (&v, full_row (t, sp_schema_tables[t], r));
      gst_value_array_append_and_take_value (&arr, &v);
    }
    gst_structure_take_value (s, sp_schema_tables[t]->name, &arr);
  }
  return s;
}

static guint
table_index (const SpSchema * s)
{
  for (guint t = 0; sp_schema_tables[t]; t++)
    if (sp_schema_tables[t] == s)
      return t;
  g_assert_not_reached ();
  return 0;
}

/* The reader's rows of `k` hold every value of full_summary(), each column
 * of each row; `db`: the run column is the database's run id, not the
 * row's. */
static void
check_rows (const SpRowKind * k, GPtrArray * rows, gboolean db,
    const gchar * path)
{
  guint t = table_index (k->schema);

  fail_unless_equals_int (rows->len, N_ROWS);
  for (guint r = 0; r < N_ROWS; r++) {
    gchar *name = text_value (k->schema, 0, r);
    gconstpointer row = NULL;

    for (guint i = 0; i < rows->len && !row; i++)
      if (!g_strcmp0 (sp_row_text (k, rows->pdata[i], 0), name))
        row = rows->pdata[i];
    fail_unless (row != NULL, "%s: no %s row '%s'", path, k->schema->name,
        name);
    g_free (name);
    for (guint c = 0; c < k->schema->n_cols; c++) {
      const SpColumn *col = &k->schema->cols[c];
      gchar *want;

      switch (col->type) {
        case SP_COL_TEXT:
          want = text_value (k->schema, c, r);
          fail_unless_equals_string (sp_row_text (k, row, c), want);
          g_free (want);
          break;
        case SP_COL_ID:
          if (!db)
            fail_unless_equals_string (sp_row_text (k, row, c), "7");
          break;
        case SP_COL_INT:
          fail_unless (sp_row_num (k, row, c) == (gdouble) int_value (t, c, r),
              "%s: %s.%s row %u: %g", path, k->schema->name, col->key, r,
              sp_row_num (k, row, c));
          break;
        case SP_COL_BOOL:
          fail_unless (sp_row_num (k, row, c) == (r % 2 == 1),
              "%s: %s.%s row %u", path, k->schema->name, col->key, r);
          break;
        case SP_COL_REAL:
          fail_unless (sp_row_num (k, row, c) == real_value (t, c, r),
              "%s: %s.%s row %u: %g, not %g", path, k->schema->name,
              col->key, r, sp_row_num (k, row, c), real_value (t, c, r));
          break;
      }
    }
  }
}

static void
check_profile (SpProfile * p, gboolean db)
{
  check_rows (&sp_elem_kind, p->elements, db, p->path);
  check_rows (&sp_queue_kind, p->queues, db, p->path);
  check_rows (&sp_thread_kind, p->threads, db, p->path);
  check_rows (&sp_sink_kind, p->sinks, db, p->path);
  check_rows (&sp_pool_kind, p->pools, db, p->path);
  check_rows (&sp_memory_kind, p->memory, db, p->path);
  fail_unless_equals_float (p->wall_s, 12.5);
  fail_unless_equals_string (p->verdict, "source-bound: src");
}

GST_START_TEST (test_json_round_trip)
{
  gchar *dir = g_dir_make_tmp ("schema-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "p.json", NULL);
  GstStructure *s = full_summary ();
  GError *err = NULL;
  SpProfile *p;

  fail_unless (sp_summary_write_file (s, path, &err));
  p = sp_read_summary_json (path, &err);
  fail_unless (p != NULL, "%s", err ? err->message : "");
  check_profile (p, FALSE);
  sp_profile_free (p);
  gst_structure_free (s);
  g_free (path);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

GST_START_TEST (test_db_round_trip)
{
  gchar *dir = g_dir_make_tmp ("schema-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "p.db", NULL);
  GstStructure *s = full_summary ();
  GError *err = NULL;
  SpProfile *p;
  SpDb *db = sp_db_open (path, &err);

  fail_unless (db != NULL, "%s", err ? err->message : "");
  sp_db_add_snapshot (db, s);
  sp_db_close (db);
  p = sp_read_db (path, NULL, &err);
  fail_unless (p != NULL, "%s", err ? err->message : "");
  check_profile (p, TRUE);
  sp_profile_free (p);
  gst_structure_free (s);
  g_free (path);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* One CSV record's fields (RFC 4180 quoting, as the writer does). */
static GPtrArray *
csv_fields (const gchar * line)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GString *f = g_string_new (NULL);
  gboolean quoted = FALSE;

  for (const gchar * p = line;; p++) {
    if (quoted && *p == '"' && p[1] == '"') {
      g_string_append_c (f, '"');
      p++;
    } else if (*p == '"') {
      quoted = !quoted;
    } else if (!*p || (*p == ',' && !quoted)) {
      g_ptr_array_add (out, g_string_free (f, FALSE));
      if (!*p)
        break;
      f = g_string_new (NULL);
    } else {
      g_string_append_c (f, *p);
    }
  }
  return out;
}

/* Every table to its CSV file: the schema's columns in its order, every
 * value back. */
GST_START_TEST (test_csv_round_trip)
{
  gchar *dir = g_dir_make_tmp ("schema-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "p.csv", NULL);
  GstStructure *s = full_summary ();
  GError *err = NULL;

  fail_unless (sp_summary_write_file (s, path, &err));
  for (guint t = 0; sp_schema_tables[t]; t++) {
    const SpSchema *sc = sp_schema_tables[t];
    gchar *file = sp_summary_csv_path (path, sc->name), *text = NULL;
    gchar **lines;
    GPtrArray *hdr;

    fail_unless (g_file_get_contents (file, &text, NULL, NULL), "%s", file);
    lines = g_strsplit (text, "\n", -1);
    fail_unless_equals_int (g_strv_length (lines), N_ROWS + 2);
    hdr = csv_fields (lines[0]);
    fail_unless_equals_int (hdr->len, sc->n_cols);
    for (guint c = 0; c < sc->n_cols; c++)
      fail_unless_equals_string (hdr->pdata[c], sc->cols[c].key);
    for (guint r = 0; r < N_ROWS; r++) {
      GPtrArray *f = csv_fields (lines[r + 1]);
      fail_unless_equals_int (f->len, sc->n_cols);
      for (guint c = 0; c < sc->n_cols; c++) {
        const gchar *cell = f->pdata[c];
        gchar *want = NULL;
        switch (sc->cols[c].type) {
          case SP_COL_TEXT:
            want = text_value (sc, c, r);
            break;
          case SP_COL_ID:
            want = g_strdup ("7");
            break;
          case SP_COL_INT:
            want = g_strdup_printf ("%" G_GUINT64_FORMAT, int_value (t, c, r));
            break;
          case SP_COL_BOOL:
            want = g_strdup (r % 2 ? "1" : "0");
            break;
          case SP_COL_REAL:
            fail_unless (g_ascii_strtod (cell, NULL) == real_value (t, c, r),
                "%s: %s row %u: %s", file, sc->cols[c].key, r, cell);
            break;
        }
        if (want)
          fail_unless_equals_string (cell, want);
        g_free (want);
      }
      g_ptr_array_free (f, TRUE);
    }
    g_ptr_array_free (hdr, TRUE);
    g_strfreev (lines);
    g_free (text);
    g_free (file);
  }
  gst_structure_free (s);
  g_free (path);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* stageprof-report's own JSON (show --format json) carries every column of
 * the model too. */
GST_START_TEST (test_report_json_has_every_column)
{
  gchar *dir = g_dir_make_tmp ("schema-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "p.json", NULL);
  GstStructure *s = full_summary ();
  GError *err = NULL;
  SpProfile *p;
  gchar *json;
  JsonParser *parser = json_parser_new ();
  JsonObject *root;
  const SpRowKind *kinds[] = { &sp_elem_kind, &sp_queue_kind,
    &sp_thread_kind, &sp_sink_kind, &sp_pool_kind, &sp_memory_kind
  };

  fail_unless (sp_summary_write_file (s, path, &err));
  p = sp_read_summary_json (path, &err);
  fail_unless (p != NULL);
  json = sp_show_render (p, SP_FORMAT_JSON, 0, NULL);
  fail_unless (json_parser_load_from_data (parser, json, -1, &err), "%s",
      json);
  root = json_node_get_object (json_parser_get_root (parser));
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++) {
    JsonArray *a = json_object_get_array_member (root,
        kinds[k]->schema->name);
    fail_unless_equals_int (json_array_get_length (a), N_ROWS);
    for (guint c = 0; c < kinds[k]->schema->n_cols; c++)
      fail_unless (json_object_has_member (json_array_get_object_element (a,
                  0), kinds[k]->schema->cols[c].key), "%s.%s",
          kinds[k]->schema->name, kinds[k]->schema->cols[c].key);
  }
  g_object_unref (parser);
  g_free (json);
  sp_profile_free (p);
  gst_structure_free (s);
  g_free (path);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* The trace reader's rows have a value in each column the schema says a
 * trace carries. */
static void
check_trace_columns (const SpRowKind * k, GPtrArray * rows)
{
  fail_unless (rows->len > 0, "no %s rows from the trace", k->schema->name);
  for (guint i = 0; i < rows->len; i++)
    for (guint c = 0; c < k->schema->n_cols; c++) {
      const SpColumn *col = &k->schema->cols[c];
      if (!(col->flags & SP_COL_TRACE))
        continue;
      if (col->type == SP_COL_TEXT || col->type == SP_COL_ID)
        fail_unless (sp_row_text (k, rows->pdata[i], c) != NULL,
            "trace: %s.%s", k->schema->name, col->key);
      else
        fail_unless (!isnan (sp_row_num (k, rows->pdata[i], c)),
            "trace: %s.%s", k->schema->name, col->key);
    }
}

/* A real run's summary: every row has every column of its table that is
 * not optional, and no column the schema does not list. */
GST_START_TEST (test_tracer_rows_are_the_schema)
{
  gchar *dir = g_dir_make_tmp ("schema-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "run.json", NULL);
  gchar *trace = g_build_filename (dir, "run.trace.json", NULL);
  gchar *tracers = g_strdup_printf ("stageprof(summary=%s,trace=%s,"
      "latency=true,memory=true)", path, trace);
  SpProfile *p;
  const gchar *argv[] = { "gst-launch-1.0", "-q", "videotestsrc",
    "num-buffers=30", "!", "queue", "!", "videoconvert", "!", "fakesink",
    NULL
  };
  gchar **envp = g_environ_setenv (g_get_environ (), "GST_TRACERS", tracers,
      TRUE);
  gint status = -1;
  JsonParser *parser = json_parser_new ();
  JsonObject *root;
  GError *err = NULL;

  fail_unless (g_spawn_sync (NULL, (gchar **) argv, envp, G_SPAWN_SEARCH_PATH,
          NULL, NULL, NULL, NULL, &status, &err), "%s",
      err ? err->message : "");
  fail_unless (g_spawn_check_wait_status (status, NULL));
  fail_unless (json_parser_load_from_file (parser, path, &err), "%s",
      err ? err->message : "");
  root = json_node_get_object (json_parser_get_root (parser));
  for (guint t = 0; sp_schema_tables[t]; t++) {
    const SpSchema *sc = sp_schema_tables[t];
    JsonArray *a;

    /* no GPU element here: no gpu rows */
    if (!json_object_has_member (root, sc->name)) {
      fail_unless (!strcmp (sc->name, "gpu"), "no %s table", sc->name);
      continue;
    }
    a = json_object_get_array_member (root, sc->name);
    fail_unless (json_array_get_length (a) > 0 || !strcmp (sc->name, "gpu"),
        "%s: no rows", sc->name);
    for (guint r = 0; r < json_array_get_length (a); r++) {
      JsonObject *row = json_array_get_object_element (a, r);
      GList *members = json_object_get_members (row);

      for (guint c = 0; c < sc->n_cols; c++)
        fail_unless ((sc->cols[c].flags & SP_COL_OPTIONAL)
            || json_object_has_member (row, sc->cols[c].key),
            "%s row %u lacks %s", sc->name, r, sc->cols[c].key);
      for (GList * m = members; m; m = m->next)
        fail_unless (sp_schema_column_index (sc, m->data) >= 0,
            "%s row %u has '%s', which the schema does not list", sc->name,
            r, (gchar *) m->data);
      g_list_free (members);
    }
  }
  /* The trace of the same run: its reader gives every column flagged
   * SP_COL_TRACE, and the counts of the elements with a chain are the
   * summary's. */
  p = sp_read_trace (trace, &err);
  fail_unless (p != NULL, "%s", err ? err->message : "");
  check_trace_columns (&sp_elem_kind, p->elements);
  check_trace_columns (&sp_queue_kind, p->queues);
  check_trace_columns (&sp_thread_kind, p->threads);
  for (guint i = 0; i < p->elements->len; i++) {
    const SpElemRow *e = p->elements->pdata[i];
    JsonArray *a = json_object_get_array_member (root, "elements");
    if (strcmp (e->name, "videoconvert0") && strcmp (e->name, "fakesink0"))
      continue;
    for (guint r = 0; r < json_array_get_length (a); r++) {
      JsonObject *row = json_array_get_object_element (a, r);
      if (!strcmp (json_object_get_string_member (row, "name"), e->name))
        fail_unless_equals_float (e->count,
            json_object_get_double_member (row, "count"));
    }
    fail_unless_equals_float (e->count, 30);
  }
  sp_profile_free (p);
  g_object_unref (parser);
  g_strfreev (envp);
  g_free (tracers);
  g_free (trace);
  g_free (path);
  rm_rf (dir);
  g_free (dir);
}

GST_END_TEST;

/* docs/tracer-db.md describes every column of every database table. */
GST_START_TEST (test_db_doc_names_every_column)
{
  static const SpSchema *const db_tables[] = { &sp_schema_elements,
    &sp_schema_queues, &sp_schema_threads, &sp_schema_sinks,
    &sp_schema_latency, &sp_schema_element_latency, &sp_schema_pools,
    &sp_schema_memory,
    &sp_schema_windows,
    &sp_schema_window_elements, &sp_schema_window_pads,
    &sp_schema_window_queues, &sp_schema_window_threads,
    &sp_schema_window_latency, &sp_schema_window_latency_hist
  };
  gchar *doc = NULL;

  fail_unless (g_file_get_contents (TESTS_SOURCE_DIR "/../docs/tracer-db.md",
          &doc, NULL, NULL));
  for (guint t = 0; t < G_N_ELEMENTS (db_tables); t++) {
    gchar *head = g_strdup_printf ("CREATE TABLE %s (", db_tables[t]->name);
    const gchar *start = strstr (doc, head);
    const gchar *end = start ? strstr (start, ");") : NULL;
    gchar *block;

    fail_unless (start && end, "docs/tracer-db.md: no '%s ... );'", head);
    block = g_strndup (start, end - start);
    for (guint c = 0; c < db_tables[t]->n_cols; c++) {
      gchar *word = g_strdup_printf (" %s ", db_tables[t]->cols[c].key);
      fail_unless (strstr (block, word) != NULL, "docs/tracer-db.md: table "
          "%s does not describe column %s", db_tables[t]->name,
          db_tables[t]->cols[c].key);
      g_free (word);
    }
    g_free (block);
    g_free (head);
  }
  g_free (doc);
}

GST_END_TEST;

/* The one conversion of a row to the summary's GstStructure: every column
 * in schema order with its GType; an optional column without a value and
 * a run id not known yet left out; and back to the same row. */
static const SpRowKind *const all_kinds[] = { &sp_elem_kind, &sp_queue_kind,
  &sp_thread_kind, &sp_sink_kind, &sp_gpu_kind, &sp_os_thread_kind,
  &sp_pipeline_kind, &sp_latency_kind, &sp_elem_latency_kind, &sp_pool_kind,
  &sp_memory_kind, &sp_window_kind, &sp_win_elem_kind, &sp_win_pad_kind,
  &sp_win_queue_kind, &sp_win_thread_kind, &sp_win_latency_kind,
  &sp_win_latency_hist_kind
};

static GType
column_gtype (const SpColumn * c)
{
  switch (c->type) {
    case SP_COL_TEXT:
      return G_TYPE_STRING;
    case SP_COL_ID:
      return G_TYPE_UINT;
    case SP_COL_REAL:
      return G_TYPE_DOUBLE;
    case SP_COL_BOOL:
      return G_TYPE_BOOLEAN;
    default:
      return (c->flags & SP_COL_UINT32) ? G_TYPE_UINT :
          (c->flags & SP_COL_SIGNED) ? G_TYPE_INT64 : G_TYPE_UINT64;
  }
}

static void
check_kind_converts (const SpRowKind * k)
{
  const SpSchema *t = k->schema;
  gpointer full = sp_row_new (k), empty = sp_row_new (k), back;
  GstStructure *s, *e;
  guint c, n_plain = 0;

  for (c = 0; c < t->n_cols; c++) {
    const SpColumn *col = &t->cols[c];
    if (col->type == SP_COL_TEXT)
      sp_row_take_text (k, full, c, g_strdup_printf ("v%u", c));
    else if (col->type == SP_COL_ID)
      sp_row_take_text (k, full, c, g_strdup ("3"));
    else
      sp_row_set_num (k, full, c, col->type == SP_COL_BOOL ? 1 : c + 0.5 *
          (col->type == SP_COL_REAL));
    if (col->type != SP_COL_ID && !(col->flags & SP_COL_OPTIONAL))
      n_plain++;
  }
  s = sp_row_to_structure (k, full);
  fail_unless_equals_int (gst_structure_n_fields (s), t->n_cols);
  for (c = 0; c < t->n_cols; c++) {
    const gchar *key = gst_structure_nth_field_name (s, c);
    fail_unless_equals_string (key, t->cols[c].key);
    fail_unless (gst_structure_get_field_type (s, key) ==
        column_gtype (&t->cols[c]), "%s.%s: %s", t->name, key,
        g_type_name (gst_structure_get_field_type (s, key)));
  }
  back = sp_row_from_structure (k, s);
  for (c = 0; c < t->n_cols; c++) {
    if (t->cols[c].type == SP_COL_TEXT || t->cols[c].type == SP_COL_ID) {
      fail_unless_equals_string (sp_row_text (k, back, c),
          sp_row_text (k, full, c));
    } else {
      fail_unless_equals_float (sp_row_num (k, back, c),
          sp_row_num (k, full, c));
    }
  }
  e = sp_row_to_structure (k, empty);
  fail_unless_equals_int (gst_structure_n_fields (e), n_plain);
  gst_structure_free (e);
  gst_structure_free (s);
  sp_row_free (k, back);
  sp_row_free (k, empty);
  sp_row_free (k, full);
}

GST_START_TEST (test_rows_convert)
{
  for (guint i = 0; i < G_N_ELEMENTS (all_kinds); i++)
    check_kind_converts (all_kinds[i]);
}

GST_END_TEST;

static Suite *
stageprof_schema_suite (void)
{
  Suite *s = suite_create ("stageprof_schema");
  TCase *tc = tcase_create ("schema");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_json_round_trip);
  tcase_add_test (tc, test_db_round_trip);
  tcase_add_test (tc, test_csv_round_trip);
  tcase_add_test (tc, test_report_json_has_every_column);
  tcase_add_test (tc, test_tracer_rows_are_the_schema);
  tcase_add_test (tc, test_db_doc_names_every_column);
  tcase_add_test (tc, test_rows_convert);
  return s;
}

GST_CHECK_MAIN (stageprof_schema);
