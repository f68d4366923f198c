/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spwindow: interval windows (stageprof interval=S). Each call closes the
 * window of one pipeline's run that the previous call opened, holding the
 * figures of that interval alone: the "stageprof-window" structure, whose
 * arrays are the tables of schema/spschema.h's sp_schema_window_tables.
 *
 * The hot path keeps only cumulative counters (counts, times, bytes and
 * self-time buckets, ops/stats.h), never reset by a reader; a window is
 * the difference of two copies of them, so a window holds exactly what
 * was booked between its two closes. Queue levels are the exception: the
 * queue keeps its own lowest and highest level since the last close
 * (recorder/spqueue.c), under the lock it takes anyway.
 */
#ifndef __SP_WINDOW_H__
#define __SP_WINDOW_H__

#include <gst/gst.h>

#include "spregistry.h"

G_BEGIN_DECLS

typedef struct _SpWindows SpWindows;

/* The windows of one top-level pipeline (identity only). */
SpWindows *sp_windows_new (gpointer pipeline);
void sp_windows_free (SpWindows * w);

/* Closes the pipeline's current window at `now` (hook time,
 * gst_util_get_timestamp()) and opens the next: a new "stageprof-window"
 * structure, or NULL when its run has no data yet. The first window of a
 * run starts where the run started. Fields: pipeline, run, window (from 1
 * in each run), start_s, end_s, length_s, process_cpu_pct, trace_pid (the
 * trace process of the run) and the arrays window_elements, window_pads,
 * window_queues, window_threads. Takes r->lock. */
GstStructure *sp_windows_close (SpWindows * w, SpRecorder * r, guint64 now,
    gboolean last);

G_END_DECLS

#endif /* __SP_WINDOW_H__ */
