/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spreport: the profile model behind stageprof-report (rows, profile,
 * sorting), which the readers (spread.h) fill and the renderers (spshow,
 * spdiff, sphtml, spdot) draw; it calls neither. Internal to the tool (a
 * static library the tool and its tests link).
 *
 * The rows are the profile's (schema/sprow.h), the ones the tracer fills.
 * Every number is a gdouble; NAN means "not in this input" (a trace has no
 * queue limits, so no full share; a summary has no queue levels over time)
 * and is printed as "-". Readers ignore fields they do not know and accept
 * missing optional ones, so newer and older stageprof outputs both load.
 */
#ifndef __SP_REPORT_H__
#define __SP_REPORT_H__

#include <glib.h>

#include "spschema.h"
#include "sprow.h"
#include "sptable.h"
#include "sptracereader.h"

G_BEGIN_DECLS

typedef enum
{
  SP_SOURCE_SUMMARY,
  SP_SOURCE_DB,
  SP_SOURCE_TRACE,
} SpSourceKind;

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
