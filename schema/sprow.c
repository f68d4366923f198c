/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sprow: the row kinds and the generic access to a row's columns. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "sprow.h"

/* The offsets of each row struct's fields, in schema order: SP_OFFSET
 * expands where SP_ROW names the struct of the table at hand. */
#define SP_OFFSET(key, t, h, d, f) G_STRUCT_OFFSET (SP_ROW, key),

#define SP_ROW SpElemRow
static const gsize elements_offsets[] = {
  SP_ELEMENTS_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_elem_kind = { &sp_schema_elements, sizeof (SpElemRow),
  elements_offsets, "element"
};

#define SP_ROW SpQueueRow
static const gsize queues_offsets[] = {
  SP_QUEUES_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_queue_kind = { &sp_schema_queues, sizeof (SpQueueRow),
  queues_offsets, "queue"
};

#define SP_ROW SpThreadRow
static const gsize threads_offsets[] = {
  SP_THREADS_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_thread_kind = { &sp_schema_threads, sizeof (SpThreadRow),
  threads_offsets, "thread"
};

#define SP_ROW SpSinkRow
static const gsize sinks_offsets[] = {
  SP_SINKS_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_sink_kind = { &sp_schema_sinks, sizeof (SpSinkRow),
  sinks_offsets, "sink"
};

#define SP_ROW SpGpuRow
static const gsize gpu_offsets[] = {
  SP_GPU_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_gpu_kind = { &sp_schema_gpu, sizeof (SpGpuRow),
  gpu_offsets, "gpu"
};

#define SP_ROW SpOsThreadRow
static const gsize os_threads_offsets[] = {
  SP_OS_THREADS_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_os_thread_kind = { &sp_schema_os_threads,
  sizeof (SpOsThreadRow), os_threads_offsets, "os-thread"
};

#define SP_ROW SpPipelineRow
static const gsize pipelines_offsets[] = {
  SP_PIPELINES_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_pipeline_kind = { &sp_schema_pipelines,
  sizeof (SpPipelineRow), pipelines_offsets, "pipeline"
};

#define SP_ROW SpLatencyRow
static const gsize latency_offsets[] = {
  SP_LATENCY_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_latency_kind = { &sp_schema_latency, sizeof (SpLatencyRow),
  latency_offsets, "latency"
};

#define SP_ROW SpElemLatencyRow
static const gsize element_latency_offsets[] = {
  SP_ELEMENT_LATENCY_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_elem_latency_kind = { &sp_schema_element_latency,
  sizeof (SpElemLatencyRow), element_latency_offsets, "element-latency"
};

#define SP_ROW SpPoolRow
static const gsize pools_offsets[] = {
  SP_POOLS_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_pool_kind = { &sp_schema_pools, sizeof (SpPoolRow),
  pools_offsets, "pool"
};

#define SP_ROW SpMemoryRow
static const gsize memory_offsets[] = {
  SP_MEMORY_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_memory_kind = { &sp_schema_memory, sizeof (SpMemoryRow),
  memory_offsets, "memory"
};

#define SP_ROW SpWindowRow
static const gsize windows_offsets[] = {
  SP_WINDOWS_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
/* A window's row is the "stageprof-window" structure that holds the
 * window's tables. */
const SpRowKind sp_window_kind = { &sp_schema_windows, sizeof (SpWindowRow),
  windows_offsets, "stageprof-window"
};

#define SP_ROW SpWinElemRow
static const gsize window_elements_offsets[] = {
  SP_WINDOW_ELEMENTS_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_win_elem_kind = { &sp_schema_window_elements,
  sizeof (SpWinElemRow), window_elements_offsets, "window-element"
};

#define SP_ROW SpWinPadRow
static const gsize window_pads_offsets[] = {
  SP_WINDOW_PADS_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_win_pad_kind = { &sp_schema_window_pads,
  sizeof (SpWinPadRow), window_pads_offsets, "window-pad"
};

#define SP_ROW SpWinQueueRow
static const gsize window_queues_offsets[] = {
  SP_WINDOW_QUEUES_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_win_queue_kind = { &sp_schema_window_queues,
  sizeof (SpWinQueueRow), window_queues_offsets, "window-queue"
};

#define SP_ROW SpWinThreadRow
static const gsize window_threads_offsets[] = {
  SP_WINDOW_THREADS_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_win_thread_kind = { &sp_schema_window_threads,
  sizeof (SpWinThreadRow), window_threads_offsets, "window-thread"
};

#define SP_ROW SpWinLatencyRow
static const gsize window_latency_offsets[] = {
  SP_WINDOW_LATENCY_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_win_latency_kind = { &sp_schema_window_latency,
  sizeof (SpWinLatencyRow), window_latency_offsets, "window-latency"
};

#define SP_ROW SpWinLatencyHistRow
static const gsize window_latency_hist_offsets[] = {
  SP_WINDOW_LATENCY_HIST_COLUMNS (SP_OFFSET)
};
#undef SP_ROW
const SpRowKind sp_win_latency_hist_kind = { &sp_schema_window_latency_hist,
  sizeof (SpWinLatencyHistRow), window_latency_hist_offsets,
  "window-latency-bucket"
};

gpointer
sp_row_new (const SpRowKind * k)
{
  gpointer row = g_malloc0 (k->size);

  for (guint c = 0; c < k->schema->n_cols; c++)
    if (!sp_col_is_text (&k->schema->cols[c]))
      sp_row_set_num (k, row, c, NAN);
  return row;
}

void
sp_row_free (const SpRowKind * k, gpointer row)
{
  if (!row)
    return;
  for (guint c = 0; c < k->schema->n_cols; c++)
    if (sp_col_is_text (&k->schema->cols[c]))
      g_free (*(gchar **) ((guint8 *) row + k->offsets[c]));
  if (k == &sp_queue_kind && ((SpQueueRow *) row)->series)
    g_array_free (((SpQueueRow *) row)->series, TRUE);
  g_free (row);
}

gdouble
sp_row_num (const SpRowKind * k, gconstpointer row, guint c)
{
  g_return_val_if_fail (!sp_col_is_text (&k->schema->cols[c]), NAN);
  return *(const gdouble *) ((const guint8 *) row + k->offsets[c]);
}

const gchar *
sp_row_text (const SpRowKind * k, gconstpointer row, guint c)
{
  g_return_val_if_fail (sp_col_is_text (&k->schema->cols[c]), NULL);
  return *(gchar * const *) ((const guint8 *) row + k->offsets[c]);
}

void
sp_row_set_num (const SpRowKind * k, gpointer row, guint c, gdouble v)
{
  g_return_if_fail (!sp_col_is_text (&k->schema->cols[c]));
  *(gdouble *) ((guint8 *) row + k->offsets[c]) = v;
}

void
sp_row_take_text (const SpRowKind * k, gpointer row, guint c, gchar * v)
{
  gchar **field = (gchar **) ((guint8 *) row + k->offsets[c]);

  g_return_if_fail (sp_col_is_text (&k->schema->cols[c]));
  g_free (*field);
  *field = v;
}

gchar *
sp_row_id (guint run)
{
  return g_strdup_printf ("%u", run);
}
