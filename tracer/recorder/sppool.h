/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sppool: buffer pools, who proposed and who uses each, how many of its
 * buffers are out, how long its user waited for a free one and who held
 * them meanwhile (stageprof memory=true; docs/tracer.md, Buffer pools).
 *
 * Portable to GStreamer 1.22, which has no pool hooks, and exact for the
 * buffers it sees:
 *  - a pool is learnt from the ALLOCATION queries' answers (its proposer)
 *    and from the first buffer of it that an element pushes (its user, and
 *    its configuration: size, min and max buffers, allocator);
 *  - a buffer is handed out from its first push (on any pad) after it left
 *    the pool, and back when its last reference goes (the mini-object
 *    unref to 0 of a buffer whose `pool` is set is the one that returns it
 *    to the pool: _gst_buffer_dispose());
 *  - its holder is the element whose sink pad it entered last, or its user
 *    until it entered one;
 *  - the pool is empty while all `max` buffers are out; the user waits
 *    from its last push's return (or the moment the pool ran dry, if
 *    later) to the return of a buffer, unless it was inside a push (then
 *    it waits downstream, not on the pool) or had pushed EOS.
 * A buffer its user acquired and holds unpushed (a decoder's reference
 * frames) is not seen out, so such a pool may look less full than it is
 * (docs/tracer.md).
 *
 * memory=true also counts, per element, the memory it allocated (the
 * GstMemory objects that leave it first in a push, pooled or not) and how
 * many bytes of them are alive (until each memory's last unref).
 *
 * Its own lock and registry, apart from the default hot path: it costs
 * nothing while memory=false (no hook of it is registered).
 */
#ifndef __SP_POOL_H__
#define __SP_POOL_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _SpPools SpPools;
struct _SpRecorder;                     /* sprecorder.h */

/* memory=true: the recorder's pool accounting, made on first call. */
SpPools *sp_recorder_enable_pools (struct _SpRecorder * r);
/* NULL until enabled. */
SpPools *sp_recorder_pools (struct _SpRecorder * r);
void sp_pools_free (SpPools * p);
/* Forget the figures (the `reset` action); buffers out stay counted. */
void sp_pools_reset (SpPools * p);

/* From the hooks, any thread. */
void sp_pools_push (SpPools * p, guint64 ts, GstPad * pad, GstBuffer * buf);
void sp_pools_push_list (SpPools * p, guint64 ts, GstPad * pad,
    GstBufferList * list);
void sp_pools_push_post (SpPools * p, guint64 ts, GstPad * pad);
void sp_pools_event (SpPools * p, guint64 ts, GstPad * pad, GstEvent * ev);
void sp_pools_chain (SpPools * p, guint64 ts, GstPad * pad, GstBuffer * buf);
void sp_pools_chain_list (SpPools * p, guint64 ts, GstPad * pad,
    GstBufferList * list);
void sp_pools_unreffed (SpPools * p, guint64 ts, GstMiniObject * obj,
    gint refcount);
void sp_pools_query (SpPools * p, GstPad * pad, GstQuery * query,
    gboolean res);
void sp_pools_object_destroyed (SpPools * p, gpointer obj);

/* What it measured, copies for the summary layer to make rows of
 * (tracer/summary/sppoolrows.c). Names are the copies' own: free an
 * array with sp_pools_stats_free. */
typedef struct
{
  gchar *name;                  /* where the pool's buffers were */
  gboolean app;                 /* an appsink: the application's */
  gdouble mean;                 /* buffers, on average over empty spells */
} SpPoolHeld;

typedef struct
{
  gchar *name, *pipeline, *user, *proposer, *allocator;
  guint size, min, max;
  guint64 handed_out;
  guint in_use, max_in_use;
  guint64 empty;
  guint64 wait_ns, span_ns;     /* span: first buffer out to last back */
  GArray *held;                 /* SpPoolHeld, most first */
} SpPoolStat;

typedef struct
{
  gchar *name, *pipeline;
  guint64 mems, bytes, pooled, pooled_bytes, live, peak;
} SpMemStat;

/* The pools that handed out buffers and the elements that allocated, of
 * top-level `pipeline` (NULL: all). */
GArray *sp_pools_stats (SpPools * p, gpointer pipeline);
GArray *sp_memory_stats (SpPools * p, gpointer pipeline);
void sp_pools_stats_free (GArray * pools);
void sp_memory_stats_free (GArray * mems);
/* The most bytes of memories counted above alive at once in top-level
 * `pipeline` (identity). */
guint64 sp_memory_pipeline_peak (SpPools * p, gpointer pipeline);
/* The process's resident memory now and at most (bytes; /proc/self/status
 * VmRSS and VmHWM); FALSE where there is no /proc. */
gboolean sp_process_rss (guint64 * now, guint64 * peak);

G_END_DECLS

#endif /* __SP_POOL_H__ */
