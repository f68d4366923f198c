/* spmerge: merging stageprof outputs of several processes (the jobs of a
 * batch, the shards of a distributed run) into one Chrome trace and one
 * summary. Plain C over json-glib, no GObject types of its own; shared by
 * stage-batch and stageprof-report. Traces are streamed line by line (the
 * stageprof writer puts one event per line), so memory stays bounded
 * whatever their size; other traces (any JSON array or {"traceEvents":[]})
 * are read whole. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _SpMergeWriter SpMergeWriter;

SpMergeWriter *sp_merge_writer_new (const gchar * path, GError ** error);

/* Appends the events of `trace_path`: its processes get fresh pids, named
 * `name` (and the original name in parentheses), its timestamps shifted by
 * `offset_us`. A trace cut short (kill -9) is read up to its last whole
 * line. Returns the pid of the input's first process (allocated even when
 * the trace is missing or empty, so the caller can add its own events to
 * it), or 0 with `error` set; `*n_events` gets the number of events copied.
 * Events of pid 0 (trace-wide metadata such as stageprof_link) keep pid 0;
 * the input's stageprof_start is dropped (see sp_merge_writer_set_origin). */
guint sp_merge_writer_add_trace (SpMergeWriter * w, const gchar * trace_path,
    const gchar * name, gdouble offset_us, guint64 * n_events,
    GError ** error);

/* A process of its own (no trace), named `name`. */
guint sp_merge_writer_add_process (SpMergeWriter * w, const gchar * name);

/* A complete ("X") slice on thread `tid` of process `pid`; args may be
 * NULL (taken). */
void sp_merge_writer_add_slice (SpMergeWriter * w, guint pid, guint64 tid,
    const gchar * thread_name, const gchar * name, gdouble ts_us,
    gdouble dur_us, JsonObject * args);

/* The wall-clock time (µs since the epoch) of the merged trace's ts 0: the
 * merged trace then records it as stageprof does
 * ({"name":"stageprof_start","ph":"M","args":{"wall_clock_us":W,"ts_us":0}}),
 * so it can itself be merged again. */
void sp_merge_writer_set_origin (SpMergeWriter * w, gint64 origin_wall_us);

/* The wall clock of a trace's ts 0, from the stageprof_start event that
 * stageprof writes near its top (wall_clock_us - ts_us). FALSE when the
 * trace has none (an older stageprof, another tracer). */
gboolean sp_merge_trace_wall_start (const gchar * trace_path,
    gint64 * ts0_wall_us);

/* Writes the closing bracket; frees `w` whatever happens. */
gboolean sp_merge_writer_close (SpMergeWriter * w, GError ** error);

/* Summaries: `jobs` is an array of objects, each the caller's description
 * of one job (job, label, status, frames, wall_s, ...) plus "summary_path"
 * (a stageprof summary JSON file, optional). The result:
 *   {"jobs":[{...job..., "summary":{...}}], "totals":{...}}
 * where totals has the number of jobs per status, frames, the sum of job
 * wall and CPU times, per-element count and total_s summed over the jobs
 * (elements of the same name), and how many jobs got each verdict kind
 * (the verdict's text before ':'). */
JsonNode *sp_merge_summaries (JsonArray * jobs);

G_END_DECLS
