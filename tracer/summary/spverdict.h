/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spverdict: the one-line verdict of a summary (docs/tracer.md). */
#ifndef __SP_VERDICT_H__
#define __SP_VERDICT_H__

#include <gst/gst.h>

#include "sprecorder.h"

G_BEGIN_DECLS

/* Thread shares (ns): what a thread row shows, adding up to its wall. */
typedef struct
{
  guint64 wall, busy, wait_in, wait_out, blocked, cpu_wait;
} SpShares;

/* spverdict.c: the one-line verdict of a summary (see docs/tracer.md). */
typedef struct
{
  gdouble running_s;            /* the pipeline's running time */
  gdouble process_cpu_s;        /* CPU the process used meanwhile */
  guint cores;
  /* Threads that feed a leaky queue which dropped buffers: they run ahead
   * of the rate at the sink, so they do not set it. */
  GHashTable *ahead;
} SpVerdictInput;
gchar *sp_verdict (const SpVerdictInput * in, GPtrArray * recs,
    GPtrArray * threads, const SpShares * shares, const GValue * sinks);

/* memory=true: the pool-bound sentence of the verdict engine
 * (schema/spdecide.h, sp_decide_pool_verdict) for the rows of the
 * schema's "pools" table of `pipeline`; NULL when no pool of it ran dry
 * long enough to matter. */
gchar *sp_pool_verdict (const GValue * pools, const gchar * pipeline);

G_END_DECLS

#endif /* __SP_VERDICT_H__ */
