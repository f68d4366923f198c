/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spreport: the profile model behind stageprof-report (rows, profile,
 * sorting), which the readers (spread.h) fill and the renderers (spshow,
 * spdiff, sphtml, spdot) draw; it calls neither. Internal to the tool (a
 * static library the tool and its tests link).
 *
 * Every number is a gdouble; NAN means "not in this input" (a trace has no
 * queue limits, so no full share; a summary has no queue levels over time)
 * and is printed as "-". Readers ignore fields they do not know and accept
 * missing optional ones, so newer and older stageprof outputs both load.
 */
#ifndef __SP_REPORT_H__
#define __SP_REPORT_H__

#include <glib.h>

#include "spschema.h"
#include "sptable.h"
#include "sptracereader.h"

G_BEGIN_DECLS

typedef enum
{
  SP_SOURCE_SUMMARY,
  SP_SOURCE_DB,
  SP_SOURCE_TRACE,
} SpSourceKind;

/* The row of each table, field by field from the profile schema
 * (schema/spschema.h): texts and run ids as strings (NULL: absent), every
 * other column a gdouble (NAN: absent). */
#define SP_REPORT_FIELD_TEXT gchar *
#define SP_REPORT_FIELD_ID gchar *
#define SP_REPORT_FIELD_INT gdouble
#define SP_REPORT_FIELD_REAL gdouble
#define SP_REPORT_FIELD_BOOL gdouble
#define SP_REPORT_FIELD(key, type, header, decimals, flags) \
  SP_REPORT_FIELD_##type key;

typedef struct
{
  SP_ELEMENTS_COLUMNS (SP_REPORT_FIELD)
} SpElemRow;

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
  SP_QUEUES_COLUMNS (SP_REPORT_FIELD)
  GArray *series;               /* SpPoint, level in buffers; NULL if none */
} SpQueueRow;

typedef struct
{
  SP_THREADS_COLUMNS (SP_REPORT_FIELD)
} SpThreadRow;

typedef struct
{
  SP_SINKS_COLUMNS (SP_REPORT_FIELD)
} SpSinkRow;

typedef struct
{
  SP_LATENCY_COLUMNS (SP_REPORT_FIELD)
} SpLatencyRow;

typedef struct
{
  SP_ELEMENT_LATENCY_COLUMNS (SP_REPORT_FIELD)
} SpElemLatencyRow;

typedef struct
{
  SP_POOLS_COLUMNS (SP_REPORT_FIELD)
} SpPoolRow;

typedef struct
{
  SP_MEMORY_COLUMNS (SP_REPORT_FIELD)
} SpMemoryRow;
/* Interval windows (stageprof interval=S, a database's windows tables):
 * the figures of each interval alone, for plots over time and for
 * --from/--till. */
typedef struct
{
  SP_WINDOWS_COLUMNS (SP_REPORT_FIELD)
} SpWindowRow;

typedef struct
{
  SP_WINDOW_ELEMENTS_COLUMNS (SP_REPORT_FIELD)
} SpWinElemRow;

typedef struct
{
  SP_WINDOW_PADS_COLUMNS (SP_REPORT_FIELD)
} SpWinPadRow;

typedef struct
{
  SP_WINDOW_QUEUES_COLUMNS (SP_REPORT_FIELD)
} SpWinQueueRow;

typedef struct
{
  SP_WINDOW_THREADS_COLUMNS (SP_REPORT_FIELD)
} SpWinThreadRow;

typedef struct
{
  SP_WINDOW_LATENCY_COLUMNS (SP_REPORT_FIELD)
} SpWinLatencyRow;

typedef struct
{
  SP_WINDOW_LATENCY_HIST_COLUMNS (SP_REPORT_FIELD)
} SpWinLatencyHistRow;

/* What the generic code needs of a row struct: its table in the schema, its
 * size, where each column's field is, and the profile's array of them. */
typedef struct
{
  const SpSchema *schema;
  gsize size;
  const gsize *offsets;         /* one per schema column */
} SpRowKind;

extern const SpRowKind sp_elem_kind, sp_queue_kind, sp_thread_kind,
    sp_sink_kind, sp_latency_kind, sp_elem_latency_kind, sp_pool_kind,
    sp_memory_kind, sp_window_kind, sp_win_elem_kind, sp_win_pad_kind,
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

typedef struct
{
  gchar *pipeline, *src, *src_pad, *sink, *sink_pad;
} SpLink;

typedef struct
{
  gchar *path;
  SpSourceKind kind;
  gdouble wall_s;
  gchar *verdict;
  GPtrArray *elements;          /* SpElemRow */
  GPtrArray *queues;            /* SpQueueRow */
  GPtrArray *threads;           /* SpThreadRow */
  GPtrArray *sinks;             /* SpSinkRow */
  GPtrArray *latency;           /* SpLatencyRow (stageprof latency=true) */
  GPtrArray *element_latency;   /* SpElemLatencyRow */
  GPtrArray *pools;             /* SpPoolRow (stageprof memory=true) */
  GPtrArray *memory;            /* SpMemoryRow */
  /* Windows, oldest first (a database written with interval=); empty
   * for other inputs. */
  GPtrArray *windows;           /* SpWindowRow */
  GPtrArray *window_elements;   /* SpWinElemRow */
  GPtrArray *window_pads;       /* SpWinPadRow */
  GPtrArray *window_queues;     /* SpWinQueueRow */
  GPtrArray *window_threads;    /* SpWinThreadRow */
  GPtrArray *window_latency;    /* SpWinLatencyRow */
  GPtrArray *window_latency_hist;       /* SpWinLatencyHistRow */
  GPtrArray *links;             /* SpLink */
  GPtrArray *notes;             /* gchar*: what the reader could not read */
  gboolean have_clock;
  gint64 wall_clock_us;         /* wall-clock time of trace ts 0 */
  /* A trace's rows and verdict are the runs' summaries it carries
   * (stageprof_summary), not recomputed from its slices. */
  gboolean rows_from_summary;
  /* The tracer's own verdicts: "PIPELINE" (its last run) and
   * "PIPELINE\x1fRUN" -> verdict; and what an element is, where the input
   * says ("x264enc0" -> "encode"), for a verdict made here. */
  GHashTable *verdicts, *kinds;
} SpProfile;

SpProfile *sp_profile_new (const gchar * path, SpSourceKind kind);
void sp_profile_free (SpProfile * p);
void sp_profile_note (SpProfile * p, const gchar * fmt, ...) G_GNUC_PRINTF (2, 3);

/* The window `w` of a pipeline run, NULL when the profile has none. */
const SpWindowRow *sp_profile_window (const SpProfile * p,
    const gchar * pipeline, const gchar * run, gdouble w);
/* Seconds of running time of a window's start and end: since the start
 * of its run's first window. */
gdouble sp_window_run_start (const SpProfile * p, const gchar * pipeline,
    const gchar * run);

/* A verdict from the thread and element rows (schema/spdecide.h, the
 * tracer's own rules), for an input that has none (a trace cut short, an
 * older summary); a pipeline at a time, "NAME: ...; NAME: ..." for
 * several. What rows do not say (an element's class, an appsink) comes
 * from `kinds` or its name. */
gchar *sp_profile_verdict (const SpProfile * p);
/* The tracer's verdict of `pipeline` (its run `run`, or NULL: its last),
 * or NULL. */
const gchar *sp_profile_pipeline_verdict (const SpProfile * p,
    const gchar * pipeline, const gchar * run);

/* Sorting and small helpers shared by the renderers. */
typedef enum
{
  SP_SORT_TOTAL, SP_SORT_MEAN, SP_SORT_MEDIAN, SP_SORT_P90, SP_SORT_P99,
  SP_SORT_MAX, SP_SORT_COUNT, SP_SORT_NAME,
} SpSortKey;

gboolean sp_sort_key_parse (const gchar * s, SpSortKey * key);
void sp_profile_sort (SpProfile * p, SpSortKey key);
gchar *sp_profile_pipelines (const SpProfile * p);     /* "a, b" */

G_END_DECLS

#endif /* __SP_REPORT_H__ */
