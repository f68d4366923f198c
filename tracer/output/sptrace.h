/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sptrace: the Chrome trace-event writer behind stageprof's trace=PATH.
 *
 * Streaming threads record fixed-size binary events into per-thread chunks
 * (no lock shared between streaming threads, no I/O, no formatting); one
 * writer thread per trace formats them as JSON and writes them out, so a
 * long run keeps constant memory and the file is readable up to the last
 * flush if the process dies. See docs/tracer.md for the format.
 */
#ifndef __SP_TRACE_H__
#define __SP_TRACE_H__

#include <glib.h>

G_BEGIN_DECLS

/* Grey "wait" slices: input, output (a queue's room, another input's turn),
 * the clock, or blocked (a sleep, a lock, a device: anything else). */
typedef enum { SP_SLICE_ELEMENT, SP_SLICE_WAIT_INPUT, SP_SLICE_WAIT_OUTPUT, SP_SLICE_GPU, SP_SLICE_WAIT_CLOCK, SP_SLICE_BLOCKED } SpSliceKind;
typedef struct _SpTrace SpTrace;

SpTrace *sp_trace_new (const gchar *path, GError **error);  /* truncates/creates path, refuses a symlink (error names the path if it cannot), starts the writer thread */
/* Hot path, any streaming thread: no lock shared between streaming threads, no I/O, no formatting.
 * `name` must stay valid until sp_trace_free (the recorder keeps its names while a trace is set: sp_names_keep_all). */
void sp_trace_slice (SpTrace *t, guint pid, guint64 tid, const gchar *name, guint64 ts_ns, guint64 dur_ns, SpSliceKind kind);
void sp_trace_counter (SpTrace *t, guint pid, const gchar *name, guint64 ts_ns, gint64 buffers, gint64 bytes);
/* A frame's path across threads (stageprof latency=true): a flow event
 * ("s", "t" or "f", id `id`) at `ts_ns` on the thread, which viewers bind
 * to the slice there and join with an arrow. */
typedef enum { SP_FLOW_START, SP_FLOW_STEP, SP_FLOW_END } SpFlowPhase;
void sp_trace_flow (SpTrace *t, guint pid, guint64 tid, guint64 id, guint64 ts_ns, SpFlowPhase phase);
/* The work in an element slice drawn whole although part of it was not work
 * (it waited while elements nested in it ran, so the waiting cannot be
 * drawn as a slice of its own): a "stageprof_work" event naming the slice
 * (thread, start `ts_ns`, element `name`), its work in ns, and what the
 * rest of its self time was (`rest`: SP_SLICE_WAIT_INPUT, _WAIT_OUTPUT,
 * _WAIT_CLOCK or _BLOCKED). Readers take the work as the slice's self
 * time, as the summary does. */
void sp_trace_work (SpTrace *t, guint pid, guint64 tid, const gchar *name, guint64 ts_ns, guint64 work_ns, SpSliceKind rest);
/* Cold path (may copy and lock): metadata events */
void sp_trace_process_name (SpTrace *t, guint pid, const gchar *name);
void sp_trace_thread_name (SpTrace *t, guint pid, guint64 tid, const gchar *name);
void     sp_trace_flush (SpTrace *t);            /* returns when every event recorded before the call is written and fflush()ed */
gboolean sp_trace_write_copy (SpTrace *t, const gchar *path, GError **error); /* flush, then write a strict-JSON copy of all so far to path (temp + rename; refuses the live trace's own file and symlinks) */
void     sp_trace_free (SpTrace *t);             /* drain, close the array: the file is strict JSON */

/* Additions beyond the fixed interface. */

/* Events dropped so far because the writer fell behind and the chunk budget
 * (SP_TRACE_MAX_BYTES) was spent; sp_trace_free() warns when non-zero. */
guint64  sp_trace_get_dropped (SpTrace *t);
/* Events and bytes written to the file so far (after the last drain). */
guint64  sp_trace_get_events_written (SpTrace *t);
/* Events formatted but not written because a write failed (disk full, a
 * file-size limit): the file ends at the last whole event before them. */
guint64  sp_trace_get_lost (SpTrace *t);
guint64  sp_trace_get_bytes_written (SpTrace *t);
/* Chunk budget (default SP_TRACE_MAX_BYTES, 64 MiB); call before recording.
 * Each recording thread always gets one chunk, even past the budget. */
void     sp_trace_set_max_bytes (SpTrace *t, gsize max_bytes);
/* Bytes of chunks allocated now (in use or pooled): the memory bound. */
gsize    sp_trace_get_allocated_bytes (SpTrace *t);

/* Escape `s` (any bytes) as the inside of a JSON string: quotes, backslash,
 * control characters as \u00XX, invalid UTF-8 replaced by U+FFFD. Appends
 * to `out`. Exposed for the summary writer and for tests. */

/* A metadata event, formatted by the caller (one JSON object and a
 * newline), queued like the name events (cold path). `is_clock`: it is the
 * wall-clock start (see spmeta.h), which sp_trace_has_clock() then reports. */
void     sp_trace_metadata (SpTrace *t, const gchar *event, gboolean is_clock);
gboolean sp_trace_has_clock (SpTrace *t);

G_END_DECLS

#endif /* __SP_TRACE_H__ */
