/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spmeta: what stageprof writes into its trace besides slices, counters and
 * names, for tools that read the trace afterwards (stageprof-report):
 *
 * - the wall-clock time of a trace timestamp, once per trace, so traces of
 *   several processes can be put on one time axis
 *   ({"name":"stageprof_start","ph":"M","args":{"wall_clock_us":..,"ts_us":..}});
 * - the links between elements, from the pad-link hook
 *   ({"name":"stageprof_link","ph":"M","args":{"pipeline":..,"src":..,...}}),
 *   so the pipeline graph can be drawn with the profile on it.
 *
 * All cold path (pipeline construction and state changes). The caller
 * passes the trace it currently writes (or NULL) under its own lock.
 */
#ifndef __SP_META_H__
#define __SP_META_H__

#include <gst/gst.h>

#include "sptrace.h"

G_BEGIN_DECLS

typedef struct _SpMeta SpMeta;

SpMeta *sp_meta_new (void);
void    sp_meta_free (SpMeta * m);

/* Any hook with its `ts`: learns where trace time 0 is on the monotonic
 * clock and writes the wall-clock start into `trace` if it has none yet. */
void    sp_meta_clock (SpMeta * m, SpTrace * trace, guint64 ts);
/* A new trace: its wall-clock start (if known) and every link recorded so
 * far of the pipelines that started. */
void    sp_meta_trace_set (SpMeta * m, SpTrace * trace);
/* pad-link-post with GST_PAD_LINK_OK. */
void    sp_meta_pad_linked (SpMeta * m, SpTrace * trace, GstPad * src,
    GstPad * sink);
/* A top-level pipeline goes NULL->READY: its links so far are written (with
 * its name now), and later links of it as they are made. */
void    sp_meta_pipeline_started (SpMeta * m, SpTrace * trace,
    GstElement * top);
/* object-destroyed: forget the links of a pipeline that is gone. */
void    sp_meta_object_destroyed (SpMeta * m, gpointer object);

G_END_DECLS

#endif /* __SP_META_H__ */
