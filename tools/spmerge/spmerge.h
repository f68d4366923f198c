/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spmerge: the one merge of stageprof outputs of several processes (the
 * jobs of a batch, the shards of a distributed run, traces given to
 * `stageprof-report merge`) into one Chrome trace and one summary. Plain C,
 * no GObject types of its own; stage-batch and stageprof-report both call
 * it.
 *
 * Traces are streamed through sptracereader (any Chrome trace in the array
 * or the {"traceEvents":[...]} format), so memory stays bounded whatever
 * their size: each event is copied as it was read, only its pid and ts
 * rewritten, into strict JSON (one event a line, like stageprof's own). A
 * trace cut short (kill -9, a full disk) is read up to its last complete
 * event, with a note saying so. The output is written to a temporary file
 * beside OUT and renamed when complete, so a failed merge leaves nothing
 * behind (common/spfile.h; a device or a FIFO is written in place). */
#ifndef __SPMERGE_H__
#define __SPMERGE_H__

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The wall-clock time (µs since the epoch) of a trace's ts 0, from the
 * stageprof_start metadata event stageprof writes (wall_clock_us - ts_us);
 * the trace is read until it, which may be far into a trace whose tracer
 * was set while the pipeline played. `*found` is FALSE when the trace has
 * none (an older stageprof, another tracer). FALSE with `error` set
 * (SP_REPORT_ERROR) when `path` is not a trace or has no event. */
gboolean sp_merge_trace_wall_start (const gchar * path, gint64 * ts0_wall_us,
    gboolean * found, GError ** error);

/* Merges whole traces: each input's processes get fresh pids, named
 * "PIPELINE (LABEL)" (LABEL: labels[i], or the input's file name), and are
 * placed on one time axis by the wall-clock start each records (an input
 * without one is placed at the start of the earliest, with a note). Notes
 * (strings) are added to `notes`. FALSE with `error` set (SP_REPORT_ERROR:
 * _IO for a write failure, else what was wrong with which input); then
 * `out_path` is not written. */
gboolean sp_merge_traces (const gchar * const *inputs,
    const gchar * const *labels, const gchar * out_path, GPtrArray * notes,
    GError ** error);

/* The parts sp_merge_traces is made of, for callers that add events of
 * their own (stage-batch: a slice per job, a process for a job without a
 * trace). */
typedef struct _SpMergeWriter SpMergeWriter;

SpMergeWriter *sp_merge_writer_new (const gchar * path, GError ** error);

/* A process of its own, named `name`; returns its pid. */
guint sp_merge_writer_add_process (SpMergeWriter * w, const gchar * name);

/* Appends the events of `trace_path` with their ts shifted by `offset_us`.
 * Each of its processes gets a fresh pid named "PIPELINE (LABEL)"
 * ("process (LABEL)" when the trace names none), except that with
 * `own_pid` (from sp_merge_writer_add_process) its first process becomes
 * that one and keeps its name. Events of pid 0 (trace-wide metadata such
 * as stageprof_link) keep pid 0 and their ts; the input's stageprof_start
 * is dropped (see sp_merge_writer_set_origin). `*n_events` (may be NULL)
 * gets the number of events copied; a note is added to `notes` (may be
 * NULL) when the trace was cut short. FALSE with `error` set when the file
 * cannot be read or is not a trace: nothing of it was written then. */
gboolean sp_merge_writer_add_trace (SpMergeWriter * w,
    const gchar * trace_path, const gchar * label, guint own_pid,
    gdouble offset_us, guint64 * n_events, GPtrArray * notes,
    GError ** error);

/* A complete ("X") slice on thread `tid` of process `pid`, with a
 * thread_name event first when `thread_name` is not NULL, in category
 * `cat` (may be NULL: readers take a slice without one for an element's
 * work; stage-batch's job slices are "stage-batch"); args may be NULL
 * (taken). */
void sp_merge_writer_add_slice (SpMergeWriter * w, guint pid, guint64 tid,
    const gchar * thread_name, const gchar * cat, const gchar * name,
    gdouble ts_us, gdouble dur_us, JsonObject * args);

/* The wall-clock time (µs since the epoch) of the merged trace's ts 0
 * (0: unknown): the merged trace then records it as stageprof does
 * ({"name":"stageprof_start","ph":"M","args":{"wall_clock_us":W,"ts_us":0}}),
 * so it can itself be merged again. */
void sp_merge_writer_set_origin (SpMergeWriter * w, gint64 origin_wall_us);

/* Writes the end and renames the file into place; frees `w` whatever
 * happens (on failure, removing what it wrote). */
gboolean sp_merge_writer_close (SpMergeWriter * w, GError ** error);
/* Gives up: removes what was written, frees `w`. */
void sp_merge_writer_abort (SpMergeWriter * w);

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

#endif /* __SPMERGE_H__ */
