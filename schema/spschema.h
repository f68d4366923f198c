/* spschema: the one description of every table of a stageprof profile.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each table of the summary (the "stageprof-summary" GstStructure's arrays,
 * the JSON summary, the CSV files, the SQLite tables) is listed here once,
 * column by column, as an X-macro: C (key, TYPE, header, decimals, flags).
 *
 *   key       the field of the summary's row, the JSON key, the CSV and
 *             database column
 *   TYPE      TEXT, INT (a count), REAL, BOOL, or ID (an integer the
 *             tools keep as text: a run number)
 *   header    the column's heading in the text, Markdown, CSV and HTML
 *             tables (tracer summary and stageprof-report show); NULL:
 *             not in those tables
 *   decimals  digits after the point in those tables
 *   flags     SP_COL_* below
 *
 * The row structs are generated from these lists (sprow.h): the tracer's
 * summary fills them and converts them to its GstStructure rows through
 * the one conversion, sprowgst.c (keys in this order, a GType a column
 * type, an optional column only where the row has a value; a test checks
 * that a real run's summary has exactly these columns), and
 * stageprof-report's readers fill the same rows that its renderers draw.
 * The database's CREATE TABLE and bindings and the text tables are
 * generated from the lists too. No file above schema/ spells a column's
 * key (tests/test_layers.py): code fills and reads the row structs, or
 * names a key with SP_KEY (table, key). Adding a metric is one line here
 * and its computation in the tracer.
 */
#ifndef __SP_SCHEMA_H__
#define __SP_SCHEMA_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  SP_COL_TEXT,
  SP_COL_INT,
  SP_COL_REAL,
  SP_COL_BOOL,
  SP_COL_ID,
} SpColType;

typedef enum
{
  /* In a row only where it applies (a GPU time, a codec's workers). */
  SP_COL_OPTIONAL = 1 << 0,
  /* In the tables only when some row has a value for it. */
  SP_COL_IF_ANY = 1 << 1,
  /* Recomputed by stageprof-report from a Chrome trace's events. */
  SP_COL_TRACE = 1 << 2,
  /* Identifies the row within its table and run (with pipeline). */
  SP_COL_KEY = 1 << 3,
  /* An INT that the summary's GstStructure holds as a guint (G_TYPE_UINT:
   * a queue's limits, a window's number) rather than a guint64. */
  SP_COL_UINT32 = 1 << 4,
  /* An INT it holds as a gint64: a window's queue levels, which a push
   * seen after the pop of its buffer takes below zero for a moment. */
  SP_COL_SIGNED = 1 << 5,
} SpColFlags;

/* Elements: one row per element and thread it ran on (and run). */
#define SP_ELEMENTS_COLUMNS(C) \
  C (name,         TEXT, "Node",   0, SP_COL_KEY | SP_COL_TRACE) \
  C (thread,       TEXT, "Thread", 0, SP_COL_KEY | SP_COL_TRACE) \
  C (pipeline,     TEXT, NULL,     0, SP_COL_KEY | SP_COL_TRACE) \
  C (count,        INT,  "Count",  0, SP_COL_TRACE) \
  C (mean_ms,      REAL, "Mean",   3, SP_COL_TRACE) \
  C (std_ms,       REAL, "Std",    3, SP_COL_TRACE) \
  C (min_ms,       REAL, "Min",    3, SP_COL_TRACE) \
  C (max_ms,       REAL, "Max",    3, SP_COL_TRACE) \
  C (median_ms,    REAL, "Median", 3, SP_COL_TRACE) \
  C (p90_ms,       REAL, "P90",    3, SP_COL_TRACE) \
  C (p99_ms,       REAL, "P99",    3, SP_COL_TRACE) \
  C (last_ms,      REAL, NULL,     3, 0) \
  C (total_s,      REAL, "Total",  3, SP_COL_TRACE) \
  C (busy_pct,     REAL, "%Busy",  1, SP_COL_TRACE) \
  C (clock_wait_s, REAL, NULL,     3, 0) \
  C (input_wait_s, REAL, NULL,     3, 0) \
  C (blocked_s,    REAL, NULL,     3, 0) \
  C (cpu_wait_s,   REAL, NULL,     3, 0) \
  C (skipped,      INT,  NULL,     0, 0) \
  C (run,          ID,   NULL,     0, SP_COL_KEY) \
  C (gpu_mean_ms,  REAL, "GPU",    3, SP_COL_OPTIONAL | SP_COL_IF_ANY) \
  C (workers,      INT,  NULL,     0, SP_COL_OPTIONAL) \
  C (worker_cpu_s, REAL, NULL,     3, SP_COL_OPTIONAL) \
  C (in_pad,       TEXT, NULL,     0, SP_COL_OPTIONAL) \
  C (in_buffers,   INT,  NULL,     0, SP_COL_OPTIONAL) \
  C (in_bytes,     INT,  NULL,     0, SP_COL_OPTIONAL)

/* Queues: levels counted from the hooks. */
#define SP_QUEUES_COLUMNS(C) \
  C (name,          TEXT, "Queue",      0, SP_COL_KEY | SP_COL_TRACE) \
  C (pipeline,      TEXT, NULL,         0, SP_COL_KEY | SP_COL_TRACE) \
  C (items,         INT,  "Items",      0, 0) \
  C (qps,           REAL, "Items/s",    1, 0) \
  C (mean_level,    REAL, "Mean lvl",   2, SP_COL_TRACE) \
  C (max_level,     INT,  "Max lvl",    0, SP_COL_TRACE) \
  C (mean_bytes,    REAL, "Mean bytes", 0, SP_COL_TRACE) \
  C (max_bytes,     INT,  "Max bytes",  0, SP_COL_TRACE) \
  C (empty_pct,     REAL, "%Empty",     1, SP_COL_TRACE) \
  C (full_pct,      REAL, "%Full",      1, 0) \
  C (ave_put_ms,    REAL, "Put ms",     3, 0) \
  C (ave_get_ms,    REAL, "Get ms",     3, 0) \
  C (span_s,        REAL, NULL,         3, 0) \
  C (limit_buffers, INT,  NULL,         0, SP_COL_UINT32) \
  C (limit_bytes,   INT,  NULL,         0, SP_COL_UINT32) \
  C (limit_time_s,  REAL, NULL,         3, 0) \
  C (level_time_s,  REAL, NULL,         3, 0) \
  C (level,         INT,  NULL,         0, 0) \
  C (level_bytes,   INT,  NULL,         0, 0) \
  C (leaky,         BOOL, NULL,         0, 0) \
  C (dropped,       INT,  "Dropped",    0, SP_COL_IF_ANY) \
  C (run,           ID,   NULL,         0, SP_COL_KEY)

/* Threads: shares of each streaming thread's wall time. */
#define SP_THREADS_COLUMNS(C) \
  C (name,            TEXT, "Thread",       0, SP_COL_KEY | SP_COL_TRACE) \
  C (pipeline,        TEXT, NULL,           0, SP_COL_KEY | SP_COL_TRACE) \
  C (tid,             INT,  NULL,           0, 0) \
  C (wall_s,          REAL, NULL,           3, SP_COL_TRACE) \
  C (busy_pct,        REAL, "%Busy",        1, SP_COL_TRACE) \
  C (wait_input_pct,  REAL, "%Wait input",  1, SP_COL_TRACE) \
  C (wait_output_pct, REAL, "%Wait output", 1, SP_COL_TRACE) \
  C (blocked_pct,     REAL, "%Blocked",     1, SP_COL_IF_ANY | SP_COL_TRACE) \
  C (cpu_wait_pct,    REAL, "%CPU wait",    1, SP_COL_IF_ANY | SP_COL_TRACE) \
  C (run,             ID,   NULL,           0, SP_COL_KEY)

/* Sinks: what reached each sink (rendered as sentences, not a table). */
#define SP_SINKS_COLUMNS(C) \
  C (name,     TEXT, NULL, 0, SP_COL_KEY) \
  C (pipeline, TEXT, NULL, 0, SP_COL_KEY) \
  C (frames,   INT,  NULL, 0, 0) \
  C (buffers,  INT,  NULL, 0, 0) \
  C (unit,     TEXT, NULL, 0, 0) \
  C (media,    TEXT, NULL, 0, 0) \
  C (sync,     BOOL, NULL, 0, 0) \
  C (fps,      REAL, NULL, 2, 0) \
  C (run,      ID,   NULL, 0, SP_COL_KEY)

/* GPU: kernel time of the elements that report it (CUDA events). */
#define SP_GPU_COLUMNS(C) \
  C (name,     TEXT, "Node",      0, SP_COL_KEY) \
  C (pipeline, TEXT, NULL,        0, SP_COL_KEY) \
  C (run,      ID,   NULL,        0, SP_COL_KEY) \
  C (frames,   INT,  "Frames",    0, 0) \
  C (mean_ms,  REAL, "Mean ms",   3, 0) \
  C (total_s,  REAL, "Total s",   3, 0) \
  C (busy_pct, REAL, "%GPU busy", 1, 0)

/* Every thread of the process, by CPU time. */
#define SP_OS_THREADS_COLUMNS(C) \
  C (name,      TEXT, "OS thread", 0, SP_COL_KEY) \
  C (tid,       INT,  "TID",       0, SP_COL_KEY) \
  C (cpu_s,     REAL, "CPU s",     3, 0) \
  C (share_pct, REAL, "%Process",  1, 0) \
  C (alive,     BOOL, NULL,        0, 0)

/* One row per pipeline and run: its own verdict; final: the run ended
 * (the pipeline stopped) and its figures will not change. With
 * memory=true: the most bytes of its elements' allocations alive at once
 * (peak_bytes), and the process's resident memory now and at most
 * (rss_bytes, rss_peak_bytes: VmRSS and VmHWM). */
#define SP_PIPELINES_COLUMNS(C) \
  C (pipeline,      TEXT, NULL, 0, SP_COL_KEY) \
  C (run,           ID,   NULL, 0, SP_COL_KEY) \
  C (wall_s,        REAL, NULL, 3, 0) \
  C (process_cpu_s, REAL, NULL, 3, 0) \
  C (verdict,       TEXT, NULL, 0, 0) \
  C (final,         BOOL, NULL, 0, 0) \
  C (peak_bytes,    INT,  NULL, 0, SP_COL_OPTIONAL) \
  C (rss_bytes,     INT,  NULL, 0, SP_COL_OPTIONAL) \
  C (rss_peak_bytes, INT, NULL, 0, SP_COL_OPTIONAL)

/* Latency (stageprof latency=true), one row per sink: from a frame's first
 * push to its arrival at the sink; render: to the return of the sink's
 * chain, for sinks that sync on the clock; what the pipeline's LATENCY
 * query reported, and whether frames came later than that (live). */
#define SP_LATENCY_COLUMNS(C) \
  C (name,             TEXT, "Sink",         0, SP_COL_KEY) \
  C (pipeline,         TEXT, NULL,           0, SP_COL_KEY) \
  C (frames,           INT,  "Frames",       0, 0) \
  C (mean_ms,          REAL, "Mean",         3, 0) \
  C (median_ms,        REAL, "Median",       3, 0) \
  C (p90_ms,           REAL, "P90",          3, 0) \
  C (p99_ms,           REAL, "P99",          3, 0) \
  C (max_ms,           REAL, "Max",          3, 0) \
  C (render_median_ms, REAL, "Render med",   3, SP_COL_OPTIONAL | SP_COL_IF_ANY) \
  C (render_p99_ms,    REAL, "Render P99",   3, SP_COL_OPTIONAL | SP_COL_IF_ANY) \
  C (live,             BOOL, NULL,           0, SP_COL_OPTIONAL) \
  C (reported_min_ms,  REAL, "Reported",     3, SP_COL_OPTIONAL | SP_COL_IF_ANY) \
  C (reported_max_ms,  REAL, NULL,           3, SP_COL_OPTIONAL) \
  C (late,             BOOL, "Late",         0, SP_COL_OPTIONAL | SP_COL_IF_ANY) \
  C (unmatched,        INT,  "Unmatched",    0, SP_COL_OPTIONAL | SP_COL_IF_ANY) \
  C (run,              ID,   NULL,           0, SP_COL_KEY | SP_COL_OPTIONAL)

/* Latency through each element a frame went through: from entering it to
 * leaving it; work: its mean self time a buffer; dwell: the rest. */
#define SP_ELEMENT_LATENCY_COLUMNS(C) \
  C (name,      TEXT, "Node",   0, SP_COL_KEY) \
  C (pipeline,  TEXT, NULL,     0, SP_COL_KEY) \
  C (count,     INT,  "Count",  0, 0) \
  C (mean_ms,   REAL, "Mean",   3, 0) \
  C (median_ms, REAL, "Median", 3, 0) \
  C (p90_ms,    REAL, "P90",    3, 0) \
  C (p99_ms,    REAL, "P99",    3, 0) \
  C (max_ms,    REAL, "Max",    3, 0) \
  C (work_ms,   REAL, "Work",   3, SP_COL_OPTIONAL | SP_COL_IF_ANY) \
  C (dwell_ms,  REAL, "Dwell",  3, SP_COL_OPTIONAL | SP_COL_IF_ANY) \
  C (unmatched, INT,  "Unmatched", 0, SP_COL_OPTIONAL | SP_COL_IF_ANY) \
  C (run,       ID,   NULL,     0, SP_COL_KEY | SP_COL_OPTIONAL)

/* Buffer pools (stageprof memory=true), one row per pool that handed out
 * buffers: who proposed it (an ALLOCATION answer, else its user), who
 * used it, its configuration, how many buffers were out now and at most,
 * how often all were out (empty), how long its user waited for one
 * (wait_s; wait_pct of the time from its first buffer out to its last
 * back) and, when it was empty, where its buffers were (held_by). */
#define SP_POOLS_COLUMNS(C) \
  C (name,        TEXT, "Pool",        0, SP_COL_KEY) \
  C (pipeline,    TEXT, NULL,          0, SP_COL_KEY) \
  C (user,        TEXT, "User",        0, 0) \
  C (proposer,    TEXT, "Proposed by", 0, 0) \
  C (allocator,   TEXT, "Allocator",   0, 0) \
  C (size,        INT,  "Size",        0, 0) \
  C (min_buffers, INT,  "Min",         0, 0) \
  C (max_buffers, INT,  "Max",         0, 0) \
  C (handed_out,  INT,  "Out",         0, 0) \
  C (in_use,      INT,  "In use",      0, 0) \
  C (max_in_use,  INT,  "Max in use",  0, 0) \
  C (empty,       INT,  "Empty",       0, 0) \
  C (wait_s,      REAL, "Wait s",      3, 0) \
  C (wait_pct,    REAL, "%Wait",       1, 0) \
  C (held_by,     TEXT, "Held when empty", 0, 0) \
  C (run,         ID,   NULL,          0, SP_COL_KEY)

/* Memory per element (stageprof memory=true): what it allocated (the
 * memories that left it first in a push, a share counted as the memory
 * it shares), the pool buffers it handed out, and of its allocations the
 * bytes alive now and at most. */
#define SP_MEMORY_COLUMNS(C) \
  C (name,            TEXT, "Node",        0, SP_COL_KEY) \
  C (pipeline,        TEXT, NULL,          0, SP_COL_KEY) \
  C (memories,        INT,  "Allocs",      0, 0) \
  C (allocated_bytes, INT,  "Bytes",       0, 0) \
  C (pooled_buffers,  INT,  "Pool bufs",   0, 0) \
  C (pooled_bytes,    INT,  "Pool bytes",  0, 0) \
  C (live_bytes,      INT,  "Alive bytes", 0, 0) \
  C (peak_bytes,      INT,  "Peak bytes",  0, 0) \
  C (run,             ID,   NULL,          0, SP_COL_KEY)
/* Windows (stageprof interval=S): each interval closes a window holding
 * figures of that interval alone (docs/tracer.md, "Windows"). `windows`
 * has one row per pipeline run and window; the other window tables one
 * row per element, pad, queue or thread in it, keyed by the window's
 * number. Times are seconds on the trace's time axis. */
#define SP_WINDOWS_COLUMNS(C) \
  C (pipeline,        TEXT, NULL, 0, SP_COL_KEY) \
  C (run,             ID,   NULL, 0, SP_COL_KEY) \
  C (window,          INT,  NULL, 0, SP_COL_KEY | SP_COL_UINT32) \
  C (start_s,         REAL, NULL, 3, 0) \
  C (end_s,           REAL, NULL, 3, 0) \
  C (length_s,        REAL, NULL, 3, 0) \
  C (process_cpu_pct, REAL, NULL, 1, 0)

/* An element's self time in the window: invocations that ended in it. */
#define SP_WINDOW_ELEMENTS_COLUMNS(C) \
  C (name,         TEXT, "Node",   0, SP_COL_KEY) \
  C (thread,       TEXT, "Thread", 0, SP_COL_KEY) \
  C (pipeline,     TEXT, NULL,     0, SP_COL_KEY) \
  C (run,          ID,   NULL,     0, SP_COL_KEY) \
  C (window,       INT,  NULL,     0, SP_COL_KEY | SP_COL_UINT32) \
  C (count,        INT,  "Count",  0, 0) \
  C (mean_ms,      REAL, "Mean",   3, 0) \
  C (median_ms,    REAL, "Median", 3, 0) \
  C (p90_ms,       REAL, "P90",    3, 0) \
  C (p99_ms,       REAL, "P99",    3, 0) \
  C (total_s,      REAL, "Total",  3, 0) \
  C (busy_pct,     REAL, "%Busy",  1, 0) \
  C (worker_cpu_s, REAL, NULL,     3, SP_COL_OPTIONAL)

/* What each src pad sent in the window, counted where it arrives (the
 * peer's chain): pad is "element:pad" of the sender, element the
 * receiver; fps only where the data is video frames (unit). */
#define SP_WINDOW_PADS_COLUMNS(C) \
  C (pad,           TEXT, "Pad",       0, SP_COL_KEY) \
  C (element,       TEXT, "To",        0, SP_COL_KEY) \
  C (pipeline,      TEXT, NULL,        0, SP_COL_KEY) \
  C (run,           ID,   NULL,        0, SP_COL_KEY) \
  C (window,        INT,  NULL,        0, SP_COL_KEY | SP_COL_UINT32) \
  C (buffers,       INT,  "Buffers",   0, 0) \
  C (buffers_per_s, REAL, "Buffers/s", 2, 0) \
  C (bytes_per_s,   REAL, "Bytes/s",   0, 0) \
  C (fps,           REAL, "fps",       2, 0) \
  C (unit,          TEXT, NULL,        0, 0)

/* A queue's level in the window, in buffers, bytes and stream time, each
 * against its limit (0: none); binding: the limit closest to full at the
 * window's highest level, full_pct how full it came. */
#define SP_WINDOW_QUEUES_COLUMNS(C) \
  C (name,          TEXT, "Queue",    0, SP_COL_KEY) \
  C (pipeline,      TEXT, NULL,       0, SP_COL_KEY) \
  C (run,           ID,   NULL,       0, SP_COL_KEY) \
  C (window,        INT,  NULL,       0, SP_COL_KEY | SP_COL_UINT32) \
  C (level,         INT,  "Level",    0, SP_COL_SIGNED) \
  C (min_level,     INT,  "Min",      0, SP_COL_SIGNED) \
  C (max_level,     INT,  "Max",      0, SP_COL_SIGNED) \
  C (mean_level,    REAL, "Mean",     2, 0) \
  C (bytes,         INT,  NULL,       0, SP_COL_SIGNED) \
  C (min_bytes,     INT,  NULL,       0, SP_COL_SIGNED) \
  C (max_bytes,     INT,  NULL,       0, SP_COL_SIGNED) \
  C (mean_bytes,    REAL, NULL,       0, 0) \
  C (time_s,        REAL, NULL,       3, 0) \
  C (min_time_s,    REAL, NULL,       3, 0) \
  C (max_time_s,    REAL, NULL,       3, 0) \
  C (limit_buffers, INT,  NULL,       0, SP_COL_UINT32) \
  C (limit_bytes,   INT,  NULL,       0, SP_COL_UINT32) \
  C (limit_time_s,  REAL, NULL,       3, 0) \
  C (binding,       TEXT, "Binds",    0, 0) \
  C (full_pct,      REAL, "%Full",    1, 0) \
  C (items_per_s,   REAL, "Items/s",  1, 0) \
  C (dropped,       INT,  NULL,       0, 0)

/* Shares of the window's length per streaming thread (booked when each
 * interval of the thread ends). */
#define SP_WINDOW_THREADS_COLUMNS(C) \
  C (name,            TEXT, "Thread",       0, SP_COL_KEY) \
  C (pipeline,        TEXT, NULL,           0, SP_COL_KEY) \
  C (run,             ID,   NULL,           0, SP_COL_KEY) \
  C (window,          INT,  NULL,           0, SP_COL_KEY | SP_COL_UINT32) \
  C (tid,             INT,  NULL,           0, 0) \
  C (busy_pct,        REAL, "%Busy",        1, 0) \
  C (wait_input_pct,  REAL, "%Wait input",  1, 0) \
  C (wait_output_pct, REAL, "%Wait output", 1, 0) \
  C (blocked_pct,     REAL, "%Blocked",     1, 0)

/* Latency (latency=true) of the frames that reached each sink in the
 * window, from a frame's first push; percentiles from log buckets. */
#define SP_WINDOW_LATENCY_COLUMNS(C) \
  C (name,      TEXT, "Sink",   0, SP_COL_KEY) \
  C (pipeline,  TEXT, NULL,     0, SP_COL_KEY) \
  C (run,       ID,   NULL,     0, SP_COL_KEY) \
  C (window,    INT,  NULL,     0, SP_COL_KEY | SP_COL_UINT32) \
  C (frames,    INT,  "Frames", 0, 0) \
  C (mean_ms,   REAL, "Mean",   3, 0) \
  C (median_ms, REAL, "Median", 3, 0) \
  C (p90_ms,    REAL, "P90",    3, 0) \
  C (p99_ms,    REAL, "P99",    3, 0)

/* The same frames as a histogram: one row per non-empty bucket
 * [lo_ms, hi_ms) of each sink and window. */
#define SP_WINDOW_LATENCY_HIST_COLUMNS(C) \
  C (name,     TEXT, NULL, 0, SP_COL_KEY) \
  C (pipeline, TEXT, NULL, 0, SP_COL_KEY) \
  C (run,      ID,   NULL, 0, SP_COL_KEY) \
  C (window,   INT,  NULL, 0, SP_COL_KEY | SP_COL_UINT32) \
  C (lo_ms,    REAL, NULL, 4, SP_COL_KEY) \
  C (hi_ms,    REAL, NULL, 4, 0) \
  C (frames,   INT,  NULL, 0, 0)

typedef struct
{
  const gchar *key;
  SpColType type;
  const gchar *header;
  gint decimals;
  guint flags;
} SpColumn;

/* Whether a column's values are text: a TEXT column, or a run ID the
 * tools keep as text. */
static inline gboolean
sp_col_is_text (const SpColumn * c)
{
  return c->type == SP_COL_TEXT || c->type == SP_COL_ID;
}

typedef struct
{
  const gchar *name;            /* summary field, JSON key, db table, CSV */
  const SpColumn *cols;
  guint n_cols;
} SpSchema;

extern const SpSchema sp_schema_elements, sp_schema_queues,
    sp_schema_threads, sp_schema_sinks, sp_schema_gpu, sp_schema_os_threads,
    sp_schema_pipelines, sp_schema_latency, sp_schema_element_latency,
    sp_schema_pools, sp_schema_memory;
extern const SpSchema sp_schema_windows, sp_schema_window_elements,
    sp_schema_window_pads, sp_schema_window_queues, sp_schema_window_threads,
    sp_schema_window_latency, sp_schema_window_latency_hist;

/* The tables of a window (the "stageprof-window" structure's arrays), in
 * order; NULL-terminated. Not in sp_schema_tables: a summary has none. */
extern const SpSchema *const sp_schema_window_tables[];

/* Every table, in the order the summary and its outputs list them;
 * NULL-terminated. */
extern const SpSchema *const sp_schema_tables[];

const SpSchema *sp_schema_find (const gchar * table);
gint sp_schema_column_index (const SpSchema * t, const gchar * key);

/* The SQL type of a column: TEXT, INTEGER or REAL. */
const gchar *sp_column_sql_type (const SpColumn * c);

/* CREATE TABLE text for a table of the database: `snapshot_id`, then its
 * columns. */
gchar *sp_schema_create_sql (const SpSchema * t);
/* The same for a table whose rows belong to a row of `parent` (its
 * integer primary key `parent_key` first). */
gchar *sp_schema_create_sql_in (const SpSchema * t, const gchar * parent,
    const gchar * parent_key);

/* A thread's run-queue delay `rq` (time it was ready but had no CPU) was
 * booked as whatever the thread was doing meanwhile; it comes out of its
 * blocked time first, then wait on output, wait on input, and busy last
 * (the tracer's summary and a trace's reader both take it this way). */
static inline void
sp_shares_take_cpu_wait (guint64 rq, guint64 * blocked, guint64 * wait_out,
    guint64 * wait_in, guint64 * busy)
{
  guint64 *from[4] = { blocked, wait_out, wait_in, busy };
  guint i;

  for (i = 0; i < 4 && rq > 0; i++) {
    guint64 take = MIN (rq, *from[i]);
    *from[i] -= take;
    rq -= take;
  }
}

G_END_DECLS

#endif /* __SP_SCHEMA_H__ */
