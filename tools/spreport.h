/* spreport: the profile model behind stageprof-report, and the readers that
 * fill it from what stageprof writes (summary JSON, SQLite db, Chrome
 * trace). Internal to tools/ (a static library the tool and its tests link).
 *
 * Every number is a gdouble; NAN means "not in this input" (a trace has no
 * queue limits, so no full share; a summary has no queue levels over time)
 * and is printed as "-". Readers ignore fields they do not know and accept
 * missing optional ones, so newer and older stageprof outputs both load.
 */
#ifndef __SP_REPORT_H__
#define __SP_REPORT_H__

#include <glib.h>

G_BEGIN_DECLS

#define SP_REPORT_ERROR (sp_report_error_quark ())
GQuark sp_report_error_quark (void);

typedef enum
{
  SP_REPORT_ERROR_NOT_STAGEPROF,        /* not a file stageprof writes */
  SP_REPORT_ERROR_EMPTY,        /* a stageprof file with nothing to show */
  SP_REPORT_ERROR_MALFORMED,    /* a stageprof file, damaged */
  SP_REPORT_ERROR_NO_MATCH,     /* --pipeline / --run selected nothing */
  SP_REPORT_ERROR_IO,
} SpReportError;

typedef enum
{
  SP_SOURCE_SUMMARY,
  SP_SOURCE_DB,
  SP_SOURCE_TRACE,
} SpSourceKind;

typedef struct
{
  gchar *name, *thread, *pipeline;
  gchar *run;                   /* NULL when the input has no runs */
  gdouble count, mean_ms, std_ms, min_ms, max_ms, median_ms, p90_ms, p99_ms;
  gdouble total_s, busy_pct;
} SpElemRow;

typedef struct
{
  gdouble t_s;                  /* seconds since the pipeline's first event */
  gdouble level;
} SpPoint;

typedef struct
{
  gchar *name, *pipeline, *run;
  gdouble items, qps, mean_level, max_level, mean_bytes, max_bytes;
  gdouble empty_pct, full_pct, ave_put_ms, ave_get_ms;
  GArray *series;               /* SpPoint, level in buffers; NULL if none */
} SpQueueRow;

typedef struct
{
  gchar *name, *pipeline, *run;
  gdouble wall_s, busy_pct, wait_input_pct, wait_output_pct;
  gdouble blocked_pct, cpu_wait_pct;    /* newer tracers; NAN if absent */
} SpThreadRow;

typedef struct
{
  gchar *name, *pipeline, *run;
  gdouble frames, fps;          /* fps: frames (or buffers) per second */
  gchar *unit, *media;          /* "frames" or "buffers" (not video), caps */
  gdouble buffers;
} SpSinkRow;

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
  GPtrArray *links;             /* SpLink */
  GPtrArray *notes;             /* gchar*: what the reader could not read */
  gboolean have_clock;
  gint64 wall_clock_us;         /* wall-clock time of trace ts 0 */
} SpProfile;

typedef struct
{
  const gchar *pipeline;        /* NULL: all */
  const gchar *run;             /* NULL: db: the latest run; others: all */
} SpSelect;

SpProfile *sp_profile_new (const gchar * path, SpSourceKind kind);
void sp_profile_free (SpProfile * p);
void sp_profile_note (SpProfile * p, const gchar * fmt, ...) G_GNUC_PRINTF (2, 3);

/* Reads any of the three kinds (detected from the content, not the name),
 * keeps the rows `sel` selects, and fails with SP_REPORT_ERROR_* (message
 * naming the file and what is wrong) where nothing can be shown. */
SpProfile *sp_profile_load (const gchar * path, const SpSelect * sel,
    GError ** error);

/* The readers, for tests; sp_profile_load picks one. */
SpProfile *sp_read_summary_json (const gchar * path, GError ** error);
SpProfile *sp_read_db (const gchar * path, const gchar * run, GError ** error);
SpProfile *sp_read_trace (const gchar * path, GError ** error);

/* A verdict from the thread and element rows, for an input that has none
 * (an older or partial summary): the busiest thread that lived through most
 * of the run and its costliest element. */
gchar *sp_profile_guess_verdict (const SpProfile * p);

/* Sorting and small helpers shared by the renderers. */
typedef enum
{
  SP_SORT_TOTAL, SP_SORT_MEAN, SP_SORT_MEDIAN, SP_SORT_P90, SP_SORT_P99,
  SP_SORT_MAX, SP_SORT_COUNT, SP_SORT_NAME,
} SpSortKey;

gboolean sp_sort_key_parse (const gchar * s, SpSortKey * key);
void sp_profile_sort (SpProfile * p, SpSortKey key);
gchar *sp_fmt (gdouble v, gint decimals);      /* "-" for NAN */
gchar *sp_profile_pipelines (const SpProfile * p);     /* "a, b" */

G_END_DECLS

#endif /* __SP_REPORT_H__ */
