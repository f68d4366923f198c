/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spread-trace-queue: one queue's level read from a trace's "C" counter
 * events (spread-trace.c's queues): samples reordered within a window (two
 * threads write each queue's track), integrated over time, and a series of
 * bounded length for the plots, each point keeping the min, max and mean
 * of the samples it stands for. Internal to stageprof-report. */
#ifndef __SPREAD_TRACE_QUEUE_H__
#define __SPREAD_TRACE_QUEUE_H__

#include "spreport.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 ts;
  gdouble v;
  gboolean bytes;
} Sample;

typedef struct
{
  gint64 pid;
  const gchar *name;
  GArray *pending;              /* Sample, not yet integrated */
  guint drain_at;               /* drain when pending reaches this */
  gboolean started;
  gint64 first, last_ts;
  gdouble level, bytes;
  gdouble li, bi;               /* integrals, level x ns */
  gdouble max_level, max_bytes;
  gint64 empty_ns;
  gdouble items;
  gboolean have_bytes;
  GArray *series;               /* SpPoint */
  guint stride;                 /* samples a point stands for */
  SpPoint cur;                  /* the point being filled */
  guint cur_n;                  /* samples in it */
  gint64 cur_t0;                /* its first sample's time */
  gdouble cur_li, cur_sum;      /* its level x ns, its samples' sum */
  gdouble limit;                /* max-size-buffers, 0: unknown */
} QueueAcc;

/* A queue @name (kept by the caller for the whole read) of process @pid. */
QueueAcc *queue_acc_new (gint64 pid, const gchar * name);
void queue_acc_free (gpointer q);
/* "queue0", or the queue of a per-quantity track ("queue0 buffers",
 * "queue0.bytes", "queue0 (bytes)"): the base name; *quantity 1 for bytes,
 * 0 for buffers, -1 when the name says neither. */
gchar *queue_acc_of_counter (const gchar * name, gint * quantity);
/* One sample of a counter event. */
void queue_acc_add (QueueAcc * q, const Sample * s);
/* Integrates what is pending up to @upto once enough has piled up. */
void queue_acc_pending (QueueAcc * q, gint64 upto);
/* At the end of the read (the process's last time @end, or NULL): @r's
 * figures and series (taken); FALSE when the queue never had a sample. */
gboolean queue_acc_row (QueueAcc * q, const gint64 * end, SpQueueRow * r);

G_END_DECLS

#endif /* __SPREAD_TRACE_QUEUE_H__ */
