/* spschema: the profile's tables, from the X-macro lists of spschema.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "spschema.h"

#define SP_COLUMN_ENTRY(key, type, header, decimals, flags) \
  { #key, SP_COL_##type, header, decimals, flags },
#define SP_SCHEMA_DEFINE(var, table, LIST) \
  static const SpColumn var##_cols[] = { LIST (SP_COLUMN_ENTRY) }; \
  const SpSchema var = { table, var##_cols, G_N_ELEMENTS (var##_cols) };

SP_SCHEMA_DEFINE (sp_schema_elements, "elements", SP_ELEMENTS_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_queues, "queues", SP_QUEUES_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_threads, "threads", SP_THREADS_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_sinks, "sinks", SP_SINKS_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_gpu, "gpu", SP_GPU_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_os_threads, "os_threads", SP_OS_THREADS_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_pipelines, "pipelines", SP_PIPELINES_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_latency, "latency", SP_LATENCY_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_element_latency, "element_latency",
    SP_ELEMENT_LATENCY_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_pools, "pools", SP_POOLS_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_memory, "memory", SP_MEMORY_COLUMNS)

SP_SCHEMA_DEFINE (sp_schema_windows, "windows", SP_WINDOWS_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_window_elements, "window_elements",
    SP_WINDOW_ELEMENTS_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_window_pads, "window_pads",
    SP_WINDOW_PADS_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_window_queues, "window_queues",
    SP_WINDOW_QUEUES_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_window_threads, "window_threads",
    SP_WINDOW_THREADS_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_window_latency, "window_latency",
    SP_WINDOW_LATENCY_COLUMNS)
SP_SCHEMA_DEFINE (sp_schema_window_latency_hist, "window_latency_hist",
    SP_WINDOW_LATENCY_HIST_COLUMNS)

const SpSchema *const sp_schema_window_tables[] = {
  &sp_schema_window_elements, &sp_schema_window_pads,
  &sp_schema_window_queues, &sp_schema_window_threads,
  &sp_schema_window_latency, &sp_schema_window_latency_hist, NULL
};

const SpSchema *const sp_schema_tables[] = {
  &sp_schema_elements, &sp_schema_queues, &sp_schema_threads,
  &sp_schema_sinks, &sp_schema_os_threads, &sp_schema_pipelines,
  &sp_schema_gpu, &sp_schema_latency, &sp_schema_element_latency,
  &sp_schema_pools, &sp_schema_memory, NULL
};

const SpSchema *
sp_schema_find (const gchar * table)
{
  for (guint i = 0; sp_schema_tables[i]; i++)
    if (strcmp (sp_schema_tables[i]->name, table) == 0)
      return sp_schema_tables[i];
  return NULL;
}

gint
sp_schema_column_index (const SpSchema * t, const gchar * key)
{
  for (guint i = 0; i < t->n_cols; i++)
    if (strcmp (t->cols[i].key, key) == 0)
      return (gint) i;
  return -1;
}

const gchar *
sp_column_sql_type (const SpColumn * c)
{
  switch (c->type) {
    case SP_COL_TEXT:
      return "TEXT";
    case SP_COL_REAL:
      return "REAL";
    default:
      return "INTEGER";
  }
}

gchar *
sp_schema_create_sql (const SpSchema * t)
{
  return sp_schema_create_sql_in (t, "snapshots", "snapshot_id");
}

gchar *
sp_schema_create_sql_in (const SpSchema * t, const gchar * parent,
    const gchar * key)
{
  GString *sql = g_string_new (NULL);

  g_string_append_printf (sql, "CREATE TABLE IF NOT EXISTS %s ("
      " %s INTEGER NOT NULL REFERENCES %s(%s)", t->name, key, parent, key);
  for (guint i = 0; i < t->n_cols; i++)
    g_string_append_printf (sql, ", %s %s", t->cols[i].key,
        sp_column_sql_type (&t->cols[i]));
  g_string_append_printf (sql, ");CREATE INDEX IF NOT EXISTS %s_%s ON "
      "%s(%s);", t->name, strcmp (key, "snapshot_id") == 0 ? "snapshot" : key,
      t->name, key);
  return g_string_free (sql, FALSE);
}
