/* sprow: the profile's rows, one struct a table, generated from the
 * schema (spschema.h), and the generic access the tracer's summary, its
 * outputs and stageprof-report's readers and renderers share: the tracer
 * fills these rows (tracer/summary/), a reader of a summary, a database
 * or a trace fills the same ones (tools/stageprof-report/), and each
 * writer and renderer reads them column by column through the schema.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Texts and run ids are strings the row owns (NULL: absent), every other
 * column a gdouble (NAN: absent; an INT or ID is exact below 2^53). No
 * GStreamer here: the conversion to and from the summary's GstStructure
 * rows is sprowgst.h.
 */
#ifndef __SP_ROW_H__
#define __SP_ROW_H__

#include <glib.h>

#include "spschema.h"

G_BEGIN_DECLS

#define SP_ROW_FIELD_TEXT gchar *
#define SP_ROW_FIELD_ID gchar *
#define SP_ROW_FIELD_INT gdouble
#define SP_ROW_FIELD_REAL gdouble
#define SP_ROW_FIELD_BOOL gdouble
#define SP_ROW_FIELD(key, type, header, decimals, flags) \
  SP_ROW_FIELD_##type key;

/* A stretch of a queue's level over time: a long trace keeps a bounded
 * number of them, each the range and time-weighted mean of the counter
 * samples it stands for, so that thinning never hides a swing. */
typedef struct
{
  gdouble t_s;                  /* seconds since the pipeline's first event */
  gdouble level;                /* mean over the stretch */
  gdouble min, max;             /* lowest and highest sample in it */
  gdouble span_s;               /* the stretch's length */
} SpPoint;

typedef struct
{
  SP_ELEMENTS_COLUMNS (SP_ROW_FIELD)
} SpElemRow;

typedef struct
{
  SP_QUEUES_COLUMNS (SP_ROW_FIELD)
  GArray *series;               /* SpPoint, level in buffers; NULL if none */
} SpQueueRow;

typedef struct
{
  SP_THREADS_COLUMNS (SP_ROW_FIELD)
} SpThreadRow;

typedef struct
{
  SP_SINKS_COLUMNS (SP_ROW_FIELD)
} SpSinkRow;

typedef struct
{
  SP_GPU_COLUMNS (SP_ROW_FIELD)
} SpGpuRow;

typedef struct
{
  SP_OS_THREADS_COLUMNS (SP_ROW_FIELD)
} SpOsThreadRow;

typedef struct
{
  SP_PIPELINES_COLUMNS (SP_ROW_FIELD)
} SpPipelineRow;

typedef struct
{
  SP_LATENCY_COLUMNS (SP_ROW_FIELD)
} SpLatencyRow;

typedef struct
{
  SP_ELEMENT_LATENCY_COLUMNS (SP_ROW_FIELD)
} SpElemLatencyRow;

typedef struct
{
  SP_POOLS_COLUMNS (SP_ROW_FIELD)
} SpPoolRow;

typedef struct
{
  SP_MEMORY_COLUMNS (SP_ROW_FIELD)
} SpMemoryRow;

typedef struct
{
  SP_WINDOWS_COLUMNS (SP_ROW_FIELD)
} SpWindowRow;

typedef struct
{
  SP_WINDOW_ELEMENTS_COLUMNS (SP_ROW_FIELD)
} SpWinElemRow;

typedef struct
{
  SP_WINDOW_PADS_COLUMNS (SP_ROW_FIELD)
} SpWinPadRow;

typedef struct
{
  SP_WINDOW_QUEUES_COLUMNS (SP_ROW_FIELD)
} SpWinQueueRow;

typedef struct
{
  SP_WINDOW_THREADS_COLUMNS (SP_ROW_FIELD)
} SpWinThreadRow;

typedef struct
{
  SP_WINDOW_LATENCY_COLUMNS (SP_ROW_FIELD)
} SpWinLatencyRow;

typedef struct
{
  SP_WINDOW_LATENCY_HIST_COLUMNS (SP_ROW_FIELD)
} SpWinLatencyHistRow;

/* Column indices, in schema order: SP_COL_elements_busy_pct is the
 * index of busy_pct in sp_schema_elements (and in sp_elem_kind). */

#define SP_COL_INDEX_elements(key, t, h, d, f) SP_COL_elements_##key,
enum { SP_ELEMENTS_COLUMNS (SP_COL_INDEX_elements) };

#define SP_COL_INDEX_queues(key, t, h, d, f) SP_COL_queues_##key,
enum { SP_QUEUES_COLUMNS (SP_COL_INDEX_queues) };

#define SP_COL_INDEX_threads(key, t, h, d, f) SP_COL_threads_##key,
enum { SP_THREADS_COLUMNS (SP_COL_INDEX_threads) };

#define SP_COL_INDEX_sinks(key, t, h, d, f) SP_COL_sinks_##key,
enum { SP_SINKS_COLUMNS (SP_COL_INDEX_sinks) };

#define SP_COL_INDEX_gpu(key, t, h, d, f) SP_COL_gpu_##key,
enum { SP_GPU_COLUMNS (SP_COL_INDEX_gpu) };

#define SP_COL_INDEX_os_threads(key, t, h, d, f) SP_COL_os_threads_##key,
enum { SP_OS_THREADS_COLUMNS (SP_COL_INDEX_os_threads) };

#define SP_COL_INDEX_pipelines(key, t, h, d, f) SP_COL_pipelines_##key,
enum { SP_PIPELINES_COLUMNS (SP_COL_INDEX_pipelines) };

#define SP_COL_INDEX_latency(key, t, h, d, f) SP_COL_latency_##key,
enum { SP_LATENCY_COLUMNS (SP_COL_INDEX_latency) };

#define SP_COL_INDEX_element_latency(key, t, h, d, f) \
  SP_COL_element_latency_##key,
enum { SP_ELEMENT_LATENCY_COLUMNS (SP_COL_INDEX_element_latency) };

#define SP_COL_INDEX_pools(key, t, h, d, f) SP_COL_pools_##key,
enum { SP_POOLS_COLUMNS (SP_COL_INDEX_pools) };

#define SP_COL_INDEX_memory(key, t, h, d, f) SP_COL_memory_##key,
enum { SP_MEMORY_COLUMNS (SP_COL_INDEX_memory) };

#define SP_COL_INDEX_windows(key, t, h, d, f) SP_COL_windows_##key,
enum { SP_WINDOWS_COLUMNS (SP_COL_INDEX_windows) };

#define SP_COL_INDEX_window_elements(key, t, h, d, f) \
  SP_COL_window_elements_##key,
enum { SP_WINDOW_ELEMENTS_COLUMNS (SP_COL_INDEX_window_elements) };

#define SP_COL_INDEX_window_pads(key, t, h, d, f) SP_COL_window_pads_##key,
enum { SP_WINDOW_PADS_COLUMNS (SP_COL_INDEX_window_pads) };

#define SP_COL_INDEX_window_queues(key, t, h, d, f) SP_COL_window_queues_##key,
enum { SP_WINDOW_QUEUES_COLUMNS (SP_COL_INDEX_window_queues) };

#define SP_COL_INDEX_window_threads(key, t, h, d, f) \
  SP_COL_window_threads_##key,
enum { SP_WINDOW_THREADS_COLUMNS (SP_COL_INDEX_window_threads) };

#define SP_COL_INDEX_window_latency(key, t, h, d, f) \
  SP_COL_window_latency_##key,
enum { SP_WINDOW_LATENCY_COLUMNS (SP_COL_INDEX_window_latency) };

#define SP_COL_INDEX_window_latency_hist(key, t, h, d, f) \
  SP_COL_window_latency_hist_##key,
enum { SP_WINDOW_LATENCY_HIST_COLUMNS (SP_COL_INDEX_window_latency_hist) };


/* The key of a column, as a constant string checked against the schema at
 * build time: SP_KEY (queues, mean_level) is "mean_level", and does not
 * build once the queues table has no such column. For what reads or
 * amends a summary's GstStructure rows by key; code that fills or reads a
 * whole row uses the row structs. */
#define SP_KEY(table, key) (&(#key)[0 * SP_COL_##table##_##key])

/* What the generic code needs of a row struct: its table in the schema,
 * its size, where each column's field is, and the name of its
 * GstStructure in the tracer's summary ("element"). */
typedef struct
{
  const SpSchema *schema;
  gsize size;
  const gsize *offsets;         /* one per schema column */
  const gchar *structure;
} SpRowKind;

extern const SpRowKind sp_elem_kind, sp_queue_kind, sp_thread_kind,
    sp_sink_kind, sp_gpu_kind, sp_os_thread_kind, sp_pipeline_kind,
    sp_latency_kind, sp_elem_latency_kind, sp_pool_kind, sp_memory_kind;
extern const SpRowKind sp_window_kind, sp_win_elem_kind, sp_win_pad_kind,
    sp_win_queue_kind, sp_win_thread_kind, sp_win_latency_kind,
    sp_win_latency_hist_kind;

/* A row with every number NAN and every text NULL. */
gpointer sp_row_new (const SpRowKind * k);
void sp_row_free (const SpRowKind * k, gpointer row);
/* Column `c` of the kind's schema. */
gdouble sp_row_num (const SpRowKind * k, gconstpointer row, guint c);
const gchar *sp_row_text (const SpRowKind * k, gconstpointer row, guint c);
void sp_row_set_num (const SpRowKind * k, gpointer row, guint c, gdouble v);
void sp_row_take_text (const SpRowKind * k, gpointer row, guint c,
    gchar * v);
/* The text a run number is kept as in an ID column. */
gchar *sp_row_id (guint run);

G_END_DECLS

#endif /* __SP_ROW_H__ */
