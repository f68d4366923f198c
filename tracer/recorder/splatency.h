/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* splatency: how long each frame takes from its source to each sink, and
 * through each element (stageprof latency=true; docs/tracer.md, Latency).
 *
 * A frame's origin is the moment the element that first pushed it pushed
 * it (a source's push, or a demuxer's that pulled its input); for a frame
 * stamped with its capture (a reference timestamp meta in wall-clock time)
 * or from a live source (its PTS on the pipeline clock), the capture. It
 * follows
 * the frame through every element, also those that make new buffers
 * (decoders, converters) or hold them (queues, reorderers): each element
 * keeps the frames that entered it (origin, entry time, running time and
 * duration), and its next push takes the one with the same running time,
 * else the earliest whose span overlaps the push's (an element that cuts
 * its own grid), else, where its input had no timestamps, the oldest;
 * else the push is unmatched. A push
 * hands the origin to the chain it calls on the same thread. At a sink the
 * end-to-end time is the arrival less the origin (and, for a sink that
 * syncs on the clock, the render: its chain's return).
 *
 * Its own lock and registry, apart from the hot path: it costs nothing
 * when off.
 */
#ifndef __SP_LATENCY_H__
#define __SP_LATENCY_H__

#include <gst/gst.h>

#include "stats.h"

G_BEGIN_DECLS

typedef struct _SpLatency SpLatency;
struct _SpRecorder;                     /* sprecorder.h */

/* `trace_from`: the recorder whose trace (if any) gets each frame's path
 * across threads as flow events, at its thread ids. */
SpLatency *sp_latency_new (gpointer trace_from);
/* latency=true: the recorder's follower, made on first call (the registry
 * then tells it of destroyed elements and resets through SpLatencyOps). */
SpLatency *sp_recorder_enable_latency (struct _SpRecorder * r);
void sp_latency_free (SpLatency * l);

/* From the hooks, any thread. */
void sp_latency_push (SpLatency * l, guint64 ts, GstPad * pad,
    GstBuffer * buf);
void sp_latency_chain (SpLatency * l, guint64 ts, GstPad * pad,
    GstBuffer * buf);
void sp_latency_chain_post (SpLatency * l, guint64 ts, GstPad * pad);
/* A LATENCY query answered by `element` (the pipeline asks each sink). */
void sp_latency_query (SpLatency * l, GstElement * element, GstQuery * query,
    gboolean res);
void sp_latency_element_destroyed (SpLatency * l, gpointer element);
/* Forget the figures (the `reset` action). */
void sp_latency_reset (SpLatency * l);

/* What the follower measured of one element of a pipeline: copies, for
 * the summary layer to make rows of (tracer/summary/splatrows.c). */
typedef struct
{
  const gchar *name, *pipeline; /* interned (spnames.h): live as long as
                                 * the recorder */
  gboolean is_sink, is_queue;
  StageStats through;           /* ms from entering it to leaving it */
  StageStats e2e, render;       /* sinks: ms from the origin */
  guint64 unmatched;
  /* A sink's answer to the pipeline's LATENCY query. */
  gboolean reported, live;
  GstClockTime rmin, rmax;
} SpLatencyStat;

/* The figures of the elements of top-level `pipeline` (NULL: all) that
 * saw a frame or could not match one: an array of SpLatencyStat. */
GArray *sp_latency_stats (SpLatency * l, gpointer pipeline);

/* A sink's end-to-end times so far (cumulative: interval windows take
 * the difference of two copies): how many, their sum and their buckets
 * (ops/stats.h). `name` lives as long as the follower. */
typedef struct
{
  const gchar *name;
  guint64 n, sum_ns;
  guint64 hist[STAGE_HIST_BUCKETS];
} SpLatencySink;

/* Appends one SpLatencySink per sink of top-level `pipeline` that got a
 * frame. */
void sp_latency_sinks (SpLatency * l, gpointer pipeline, GArray * out);

G_END_DECLS

#endif /* __SP_LATENCY_H__ */
