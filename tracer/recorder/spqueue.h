/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spqueue: queue occupancy, from the hooks. */
#ifndef __SP_QUEUE_H__
#define __SP_QUEUE_H__

#include <gst/gst.h>

#include "sprecorder.h"

G_BEGIN_DECLS

/* spqueue.c: queue occupancy, under each queue's own small lock (shared by
 * its producer and its task only). */
void sp_queue_free (gpointer data);
void sp_queue_reset_stats_locked (SpQueue * q);
void sp_queue_read_limits (SpQueue * q, GstElement * e);
SpQueue *sp_queue_new_locked (SpRecorder * r, SpElemInfo * info);
gboolean sp_queue_put (SpRecorder * r, SpQueue * q, guint64 ts, guint n,
    guint64 bytes, GstClockTime pts, GstClockTime end);
void sp_queue_put_done (SpRecorder * r, SpQueue * q, guint64 ts, guint64 dur);
void sp_queue_get (SpRecorder * r, SpQueue * q, guint64 ts, guint n,
    guint64 bytes, GstClockTime pts);
void sp_queue_get_wait (SpRecorder * r, SpQueue * q, guint64 wait);
void sp_queue_empty_out (SpRecorder * r, SpQueue * q, guint64 ts);
GstStructure *sp_queue_row (SpQueue * q);
/* A "window-queue" row (schema/spschema.h SP_WINDOW_QUEUES_COLUMNS) of what
 * the queue did since the last call, which starts the next window at
 * `now` (hook time); NULL when it has seen nothing of pipeline run
 * `run`. */
GstStructure *sp_queue_window_row (SpQueue * q, gint run, guint64 now,
    guint window);

G_END_DECLS

#endif /* __SP_QUEUE_H__ */
