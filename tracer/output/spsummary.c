/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spsummary: text, JSON and CSV forms of the stageprof summary. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>
#include <sys/stat.h>

#include "sprow.h"
#include "spsummary.h"
#include "sptable.h"
#include "spfile.h"
#include "jsontext.h"

SpSummaryFormat
sp_summary_format_for_path (const gchar * path)
{
  gchar *lower;
  SpSummaryFormat f = SP_SUMMARY_TEXT;

  if (!path)
    return f;
  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".json"))
    f = SP_SUMMARY_JSON;
  else if (g_str_has_suffix (lower, ".csv"))
    f = SP_SUMMARY_CSV;
  g_free (lower);
  return f;
}

static const GValue *
rows_of (const GstStructure * s, const gchar * field)
{
  const GValue *v = gst_structure_get_value (s, field);

  return (v && GST_VALUE_HOLDS_ARRAY (v)) ? v : NULL;
}

static guint
n_rows (const GValue * rows)
{
  return rows ? gst_value_array_get_size (rows) : 0;
}

static const GstStructure *
row_at (const GValue * rows, guint i)
{
  const GValue *v = gst_value_array_get_value (rows, i);

  return GST_VALUE_HOLDS_STRUCTURE (v) ? gst_value_get_structure (v) : NULL;
}

static gdouble
get_d (const GstStructure * s, const gchar * f)
{
  gdouble d = 0;
  guint64 u = 0;
  guint ui = 0;
  gboolean b = FALSE;

  if (gst_structure_get_double (s, f, &d))
    return d;
  if (gst_structure_get_uint64 (s, f, &u))
    return (gdouble) u;
  if (gst_structure_get_uint (s, f, &ui))
    return ui;
  if (gst_structure_get_boolean (s, f, &b))
    return b;
  return 0;
}

static guint64
get_u (const GstStructure * s, const gchar * f)
{
  guint64 u = 0;

  gst_structure_get_uint64 (s, f, &u);
  return u;
}

void
sp_summary_take_row (GValue * array, GstStructure * s)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&v, s);
  gst_value_array_append_and_take_value (array, &v);
}

gchar *
sp_summary_escape (const gchar * str)
{
  GString *out = g_string_new (NULL);
  const gchar *p = str ? str : "";

  while (*p) {
    gunichar c = g_utf8_get_char_validated (p, -1);

    if (c == (gunichar) - 1 || c == (gunichar) - 2) {
      g_string_append_printf (out, "\\x%02x", (guchar) * p);
      p++;
      continue;
    }
    if (c == '\n')
      g_string_append (out, "\\n");
    else if (c == '\r')
      g_string_append (out, "\\r");
    else if (c == '\t')
      g_string_append (out, "\\t");
    else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
      g_string_append_printf (out, "\\x%02x", c);
    else
      g_string_append_len (out, p, g_utf8_next_char (p) - p);
    p = g_utf8_next_char (p);
  }
  return g_string_free (out, FALSE);
}

/* A string field of a row, escaped for a table cell (newly allocated). */
static gchar *
get_esc (const GstStructure * s, const gchar * f)
{
  return sp_summary_escape (gst_structure_get_string (s, f));
}

/* ------------------------------------------------------------------ */
/* Text tables: the schema's columns (schema/spschema.h), by the renderer
 * stageprof-report shares. */

static gdouble
row_num (gconstpointer row, const SpColumn * c, gpointer data)
{
  const GstStructure *r = row;

  return gst_structure_has_field (r, c->key) ? get_d (r, c->key) : NAN;
}

static gchar *
row_text (gconstpointer row, const SpColumn * c, gpointer data)
{
  const GstStructure *r = row;
  const GValue *v = gst_structure_get_value (r, c->key);

  if (v && G_VALUE_HOLDS_UINT (v))
    return g_strdup_printf ("%u", g_value_get_uint (v));
  return v && G_VALUE_HOLDS_STRING (v) ? get_esc (r, c->key) : NULL;
}

static gboolean
row_has (gconstpointer row, const SpColumn * c, gpointer data)
{
  return gst_structure_has_field (row, c->key);
}

static const SpRowReader structure_rows = { row_num, row_text, row_has };

/* The rows of a table of the summary, or NULL when it has none; `skip`
 * leaves rows out (NULL: none). */
static GPtrArray *
table_rows (const GstStructure * s, const gchar * table,
    gboolean (*skip) (const GstStructure * row))
{
  const GValue *rows = rows_of (s, table);
  GPtrArray *out;

  if (n_rows (rows) == 0)
    return NULL;
  out = g_ptr_array_new ();
  for (guint i = 0; i < n_rows (rows); i++) {
    const GstStructure *r = row_at (rows, i);
    if (r && (!skip || !skip (r)))
      g_ptr_array_add (out, (gpointer) r);
  }
  return out;
}

static void
text_table (const GstStructure * s, const SpSchema * schema,
    gboolean (*skip) (const GstStructure * row), GString * out)
{
  GPtrArray *rows = table_rows (s, schema->name, skip);

  if (!rows)
    rows = g_ptr_array_new ();
  sp_table_render (sp_schema_table (schema, rows, &structure_rows, NULL),
      SP_FORMAT_TEXT, out);
  g_ptr_array_free (rows, TRUE);
}

static void
text_elements (const GstStructure * s, GString * out)
{
  g_string_append (out, "Elements (times in ms, Total in s, by Total):\n");
  text_table (s, &sp_schema_elements, NULL, out);
}

/* The threads elements started (a codec's workers), by element. */
static void
text_workers (const GstStructure * s, GString * out)
{
  static const gchar *const hdr[] = { "Node", "Threads", "CPU s", "Cores",
    NULL
  };
  const GValue *rows = rows_of (s, "elements");
  gdouble wall = get_d (s, "wall_s");
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  SpTable *t = NULL;

  for (guint i = 0; i < n_rows (rows); i++) {
    const GstStructure *r = row_at (rows, i);
    const gchar *name = gst_structure_get_string (r, "name");

    if (!gst_structure_has_field (r, SP_KEY (elements, workers)) || !name
        || g_hash_table_contains (seen, name))
      continue;
    if (!t) {
      g_string_append (out, "Threads started by elements (a codec's "
          "workers; Cores: their CPU time over the running time):\n");
      t = sp_table_new (1, hdr);
    }
    g_hash_table_add (seen, (gpointer) name);
    sp_table_add (t, get_esc (r, "name"));
    sp_table_add (t, g_strdup_printf ("%" G_GUINT64_FORMAT, get_u (r,
                SP_KEY (elements, workers))));
    sp_table_add (t, sp_fmt (get_d (r, SP_KEY (elements, worker_cpu_s)), 3));
    sp_table_add (t, sp_fmt (wall > 0 ? get_d (r, SP_KEY (elements,
                    worker_cpu_s)) / wall : 0, 2));
  }
  if (t)
    sp_table_render (t, SP_FORMAT_TEXT, out);
  g_hash_table_destroy (seen);
}

/* Kernel time of the elements that report it (stageresize on CUDA memory,
 * by CUDA events); absent when none did. */
static void
text_gpu (const GstStructure * s, GString * out)
{
  if (n_rows (rows_of (s, "gpu")) == 0)
    return;
  g_string_append (out, "GPU (kernel time by CUDA events; %GPU busy: of "
      "the running time):\n");
  text_table (s, &sp_schema_gpu, NULL, out);
}

static void
text_queues (const GstStructure * s, GString * out)
{
  if (n_rows (rows_of (s, "queues")) == 0)
    return;
  g_string_append (out, "Queues (levels counted from the hooks):\n");
  text_table (s, &sp_schema_queues, NULL, out);
}

static void
text_threads (const GstStructure * s, GString * out)
{
  g_string_append (out, "Threads (share of each thread's wall time; "
      "blocked: on the clock or in an element's own code; CPU wait: ready "
      "but waiting for a core):\n");
  text_table (s, &sp_schema_threads, NULL, out);
}

/* latency=true: end to end a sink, then through each element. */
static void
text_latency (const GstStructure * s, GString * out)
{
  if (n_rows (rows_of (s, "latency")) > 0) {
    g_string_append (out, "Latency (ms from a frame's origin, its first "
        "push or a live source's capture, to its arrival at the sink; "
        "render: to the return of a sink on the clock; reported: the "
        "pipeline's LATENCY query):\n");
    text_table (s, &sp_schema_latency, NULL, out);
  }
  if (n_rows (rows_of (s, "element_latency")) > 0) {
    g_string_append (out, "Latency through elements (ms from entering to "
        "leaving; work: self time a buffer; dwell: waiting inside):\n");
    text_table (s, &sp_schema_element_latency, NULL, out);
  }
}

/* memory=true: the buffer pools. */
static void
text_pools (const GstStructure * s, GString * out)
{
  if (n_rows (rows_of (s, "pools")) == 0)
    return;
  g_string_append (out, "Buffer pools (size in bytes; out: buffers handed "
      "out; empty: times all max buffers were out; wait: its user waiting "
      "for a free one; held when empty: where its buffers were, on "
      "average):\n");
  text_table (s, &sp_schema_pools, NULL, out);
}

/* memory=true: what each element allocated, and the process's RSS. */
static void
text_memory (const GstStructure * s, GString * out)
{
  const GValue *pipes = rows_of (s, "pipelines");

  if (n_rows (rows_of (s, "memory")) == 0)
    return;
  g_string_append (out, "Memory by element (allocs and bytes: memory that "
      "left it first; pool: pool buffers it handed out; alive and peak: "
      "bytes of its allocations alive now and at most):\n");
  text_table (s, &sp_schema_memory, NULL, out);
  for (guint i = 0; i < n_rows (pipes); i++) {
    const GstStructure *r = row_at (pipes, i);
    guint64 peak = 0, rss = 0, rss_peak = 0;
    gchar *name;

    if (!gst_structure_get_uint64 (r, SP_KEY (pipelines, rss_peak_bytes),
            &rss_peak))
      continue;
    gst_structure_get_uint64 (r, SP_KEY (pipelines, peak_bytes), &peak);
    gst_structure_get_uint64 (r, SP_KEY (pipelines, rss_bytes), &rss);
    name = get_esc (r, "pipeline");
    g_string_append_printf (out, "Memory of %s: its allocations at most "
        "%.1f MB alive at once; process RSS %.1f MB (peak %.1f MB)\n", name,
        peak / 1e6, rss / 1e6, rss_peak / 1e6);
    g_free (name);
  }
}

/* Idle threads (under 1 ms of CPU) are counted, not listed. */
static gboolean
os_thread_idle (const GstStructure * row)
{
  return get_d (row, SP_KEY (os_threads, cpu_s)) < 0.001;
}

/* Every thread of the process, busiest first; idle ones (under 1 ms of
 * CPU) are counted, not listed. */
static void
text_os_threads (const GstStructure * s, GString * out)
{
  const GValue *rows = rows_of (s, "os_threads");
  const GValue *pv = gst_structure_get_value (s, "process");
  const GstStructure *p = pv && GST_VALUE_HOLDS_STRUCTURE (pv) ?
      gst_value_get_structure (pv) : NULL;
  guint idle = 0;

  if (n_rows (rows) == 0)
    return;
  if (p) {
    gchar *cpu = sp_fmt (get_d (p, "cpu_s"), 3);
    gchar *used = sp_fmt (get_d (p, "cores_used"), 2);
    guint cores = 0;
    gst_structure_get_uint (p, "cores", &cores);
    g_string_append_printf (out, "Process: %s s of CPU, %s of %u cores "
        "used since the tracer started\n", cpu, used, cores);
    g_free (cpu);
    g_free (used);
  }
  for (guint i = 0; i < n_rows (rows); i++)
    idle += os_thread_idle (row_at (rows, i));
  text_table (s, &sp_schema_os_threads, os_thread_idle, out);
  if (idle)
    g_string_append_printf (out, "  (%u more threads used under 1 ms)\n",
        idle);
  /* Threads whose element nothing tells (spthreads.c). */
  if (p && get_d (p, "shared_pool_cpu_s") >= 0.001) {
    gchar *cpu = sp_fmt (get_d (p, "shared_pool_cpu_s"), 3);
    guint n = 0;

    gst_structure_get_uint (p, "shared_pool_threads", &n);
    g_string_append_printf (out, "  (pool-*: GLib's shared thread pool, %u "
        "threads, %s s of CPU: work any element's task pool runs there, "
        "videoconvert's n-threads say; whose, the kernel does not tell)\n",
        n, cpu);
    g_free (cpu);
  }
  /* What the rows miss: threads that ended before any look at them. */
  if (p && get_d (p, "unlisted_cpu_s") >= MAX (0.001, 0.01 * get_d (p,
              "cpu_s"))) {
    gchar *cpu = sp_fmt (get_d (p, "unlisted_cpu_s"), 3);
    g_string_append_printf (out, "  (threads that ended before stageprof "
        "read them: %s s of CPU)\n", cpu);
    g_free (cpu);
  }
}

static void
text_verdicts (const GstStructure * s, GString * out)
{
  const GValue *rows = rows_of (s, "pipelines");

  if (n_rows (rows) <= 1) {
    gchar *v = get_esc (s, "verdict");
    g_string_append_printf (out, "Verdict: %s\n", v);
    g_free (v);
    return;
  }
  for (guint i = 0; i < n_rows (rows); i++) {
    const GstStructure *r = row_at (rows, i);
    gchar *p = get_esc (r, "pipeline"), *v = get_esc (r, "verdict");
    guint run = 1;
    gst_structure_get_uint (r, "run", &run);
    g_string_append_printf (out, "Verdict %s (run %u): %s\n", p, run, v);
    g_free (p);
    g_free (v);
  }
}

gchar *
sp_summary_to_text (const GstStructure * s, const gchar * title)
{
  GString *out = g_string_new (NULL);
  const GValue *sinks = rows_of (s, "sinks");
  gchar *wall = sp_fmt (get_d (s, "wall_s"), 3);

  gchar *t = sp_summary_escape (title);

  g_string_append_printf (out, "=== stageprof%s%s: %s s ===\n",
      title ? " " : "", title ? t : "", wall);
  g_free (t);
  g_free (wall);
  text_elements (s, out);
  text_workers (s, out);
  text_gpu (s, out);
  text_queues (s, out);
  text_threads (s, out);
  text_latency (s, out);
  text_pools (s, out);
  text_memory (s, out);
  text_os_threads (s, out);
  for (guint i = 0; i < n_rows (sinks); i++) {
    const GstStructure *r = row_at (sinks, i);
    gchar *fps = sp_fmt (get_d (r, "fps"), 2), *name = get_esc (r, "name");
    const gchar *unit = gst_structure_get_string (r, "unit");

    if (!unit || strcmp (unit, "frames") == 0) {
      g_string_append_printf (out, "Sink %s: %" G_GUINT64_FORMAT
          " frames, %s fps\n", name, get_u (r, "frames"), fps);
    } else {
      gchar *media = get_esc (r, "media");
      g_string_append_printf (out, "Sink %s: %" G_GUINT64_FORMAT
          " buffers of %s (not video frames), %s buffers/s\n", name,
          get_u (r, "buffers"), media, fps);
      g_free (media);
    }
    g_free (fps);
    g_free (name);
  }
  text_verdicts (s, out);
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------ */
/* JSON: every field of every row, so added fields need no change here. */

static void json_value (GString * out, const GValue * v);

static gboolean
json_field (GQuark field, const GValue * v, gpointer data)
{
  GString *out = data;

  if (out->str[out->len - 1] != '{')
    g_string_append_c (out, ',');
  stage_json_str (out, g_quark_to_string (field));
  g_string_append_c (out, ':');
  json_value (out, v);
  return TRUE;
}

static void
json_value (GString * out, const GValue * v)
{
  GType t = G_VALUE_TYPE (v);

  if (t == G_TYPE_STRING) {
    stage_json_str (out, g_value_get_string (v));
  } else if (t == G_TYPE_DOUBLE) {
    stage_json_num (out, g_value_get_double (v), 6);
  } else if (t == G_TYPE_UINT64) {
    g_string_append_printf (out, "%" G_GUINT64_FORMAT, g_value_get_uint64 (v));
  } else if (t == G_TYPE_INT64) {
    g_string_append_printf (out, "%" G_GINT64_FORMAT, g_value_get_int64 (v));
  } else if (t == G_TYPE_UINT) {
    g_string_append_printf (out, "%u", g_value_get_uint (v));
  } else if (t == G_TYPE_INT) {
    g_string_append_printf (out, "%d", g_value_get_int (v));
  } else if (t == G_TYPE_BOOLEAN) {
    g_string_append (out, g_value_get_boolean (v) ? "true" : "false");
  } else if (GST_VALUE_HOLDS_ARRAY (v)) {
    g_string_append_c (out, '[');
    for (guint i = 0; i < gst_value_array_get_size (v); i++) {
      if (i)
        g_string_append (out, ",\n ");
      json_value (out, gst_value_array_get_value (v, i));
    }
    g_string_append_c (out, ']');
  } else if (GST_VALUE_HOLDS_STRUCTURE (v)) {
    g_string_append_c (out, '{');
    gst_structure_foreach (gst_value_get_structure (v), json_field, out);
    g_string_append_c (out, '}');
  } else {
    gchar *str = gst_value_serialize (v);
    stage_json_str (out, str ? str : "");
    g_free (str);
  }
}

gchar *
sp_summary_to_json (const GstStructure * s)
{
  GString *out = g_string_new ("{");

  gst_structure_foreach (s, json_field, out);
  g_string_append (out, "}\n");
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------ */
/* CSV: one tidy table per file (a header, then one row per record, every
 * row the same columns), so pandas.read_csv and sqlite3's .import read it
 * as it is. Strings are always quoted. */

static void
csv_cell (GString * out, const GValue * v)
{
  if (G_VALUE_TYPE (v) == G_TYPE_STRING) {
    const gchar *str = g_value_get_string (v);
    gchar **parts;
    gchar *joined;

    gchar *esc;

    if (!str)
      return;
    /* One record a line: control characters and bytes that are not
     * UTF-8 are escaped, as in the text tables. */
    esc = sp_summary_escape (str);
    parts = g_strsplit (esc, "\"", -1);
    g_free (esc);
    joined = g_strjoinv ("\"\"", parts);
    g_string_append_printf (out, "\"%s\"", joined);
    g_free (joined);
    g_strfreev (parts);
  } else if (G_VALUE_TYPE (v) == G_TYPE_DOUBLE) {
    stage_json_num (out, g_value_get_double (v), 6);
  } else if (G_VALUE_TYPE (v) == G_TYPE_BOOLEAN) {
    g_string_append (out, g_value_get_boolean (v) ? "1" : "0");
  } else {
    gchar *str = gst_value_serialize (v);
    g_string_append (out, str ? str : "");
    g_free (str);
  }
}

/* The schema's columns (schema/spschema.h) in its order; an optional one
 * only when a row has it. */
gchar *
sp_summary_table_to_csv (const GstStructure * s, const gchar * table)
{
  const SpSchema *schema = sp_schema_find (table);
  GPtrArray *rows = schema ? table_rows (s, table, NULL) : NULL;
  gboolean *cols;
  GString *out;
  gboolean first = TRUE;

  if (!rows)
    return NULL;
  cols = g_new0 (gboolean, schema->n_cols);
  out = g_string_new (NULL);
  for (guint k = 0; k < schema->n_cols; k++) {
    for (guint i = 0; i < rows->len && !cols[k]; i++)
      cols[k] = gst_structure_has_field (rows->pdata[i], schema->cols[k].key);
    if (cols[k]) {
      g_string_append_printf (out, "%s%s", first ? "" : ",",
          schema->cols[k].key);
      first = FALSE;
    }
  }
  g_string_append_c (out, '\n');
  for (guint i = 0; i < rows->len; i++) {
    first = TRUE;
    for (guint k = 0; k < schema->n_cols; k++) {
      const GValue *v;

      if (!cols[k])
        continue;
      if (!first)
        g_string_append_c (out, ',');
      first = FALSE;
      v = gst_structure_get_value (rows->pdata[i], schema->cols[k].key);
      if (v)
        csv_cell (out, v);
    }
    g_string_append_c (out, '\n');
  }
  g_free (cols);
  g_ptr_array_free (rows, TRUE);
  return g_string_free (out, FALSE);
}

gchar *
sp_summary_to_csv (const GstStructure * s)
{
  gchar *csv = sp_summary_table_to_csv (s, "elements");

  return csv ? csv : g_strdup ("");
}

gchar *
sp_summary_csv_path (const gchar * path, const gchar * table)
{
  gsize n = strlen (path);

  if (strcmp (table, "elements") == 0)
    return g_strdup (path);
  if (n >= 4 && g_ascii_strcasecmp (path + n - 4, ".csv") == 0)
    n -= 4;
  return g_strdup_printf ("%.*s.%s.csv", (gint) n, path, table);
}

/* Each table to its own file: PATH for the elements, PATH less .csv plus
 * .TABLE.csv for the others; a table with no rows has no file. */
static gboolean
csv_write_files (const GstStructure * s, const gchar * path, GError ** error)
{
  for (guint i = 0; sp_schema_tables[i]; i++) {
    gchar *file = sp_summary_csv_path (path, sp_schema_tables[i]->name);
    gchar *csv = sp_summary_table_to_csv (s, sp_schema_tables[i]->name);
    GError *err = NULL;
    gboolean ok = TRUE;

    /* Each file of the set follows the summary file's policy: never
     * written through a symbolic link (docs/tracer.md, Output files). */
    if (csv || i == 0) {
      ok = sp_file_replace_contents (file, csv ? csv : "", csv ? strlen (csv)
          : 0, "summary file", &err);
    } else {
      /* An older run's table file goes; anything else at that path stays. */
      struct stat st;
      if (lstat (file, &st) == 0 && S_ISREG (st.st_mode))
        g_unlink (file);
    }
    g_free (csv);
    if (!ok) {
      g_propagate_error (error, err);
      g_free (file);
      return FALSE;
    }
    g_free (file);
  }
  return TRUE;
}

gchar *
sp_summary_render (const GstStructure * s, SpSummaryFormat format,
    const gchar * title)
{
  switch (format) {
    case SP_SUMMARY_JSON:
      return sp_summary_to_json (s);
    case SP_SUMMARY_CSV:
      return sp_summary_to_csv (s);
    default:
      return sp_summary_to_text (s, title);
  }
}

gboolean
sp_summary_write_file (const GstStructure * s, const gchar * path,
    GError ** error)
{
  gchar *text;
  GError *err = NULL;
  gboolean ok;

  if (sp_summary_format_for_path (path) == SP_SUMMARY_CSV)
    return csv_write_files (s, path, error);
  text = sp_summary_render (s, sp_summary_format_for_path (path), NULL);
  ok = sp_file_replace_contents (path, text, strlen (text), "summary file",
      &err);
  if (!ok)
    g_propagate_error (error, err);
  g_free (text);
  return ok;
}
