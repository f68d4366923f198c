/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spdecide: the one verdict engine of a profile, over plain rows: the
 * tracer's summary (tracer/summary/spverdict.c) and stageprof-report (for
 * a profile that carries no verdict: a trace cut short) both fill these
 * and call sp_decide_verdict(), so the rules and their sentences exist
 * once. See "How the verdict is decided" in docs/tracer.md. */
#ifndef __SP_DECIDE_H__
#define __SP_DECIDE_H__

#include <glib.h>

G_BEGIN_DECLS

/* What an element is, beyond its figures (what rows cannot carry). */
typedef enum
{
  SP_DECIDE_FORWARDS = 1 << 0,  /* only passes data on: a queue, a
                                 * capsfilter, a bin's pads; never named */
  SP_DECIDE_APP_SINK = 1 << 1,  /* an appsink */
  SP_DECIDE_APP_SRC = 1 << 2,   /* an appsrc */
  SP_DECIDE_LIVE_SOURCE = 1 << 3,
  SP_DECIDE_SINK = 1 << 4,
} SpDecideFlags;

/* One element on one thread (times in seconds). */
typedef struct
{
  const gchar *name;            /* its path: a stage is all rows of a name */
  const gchar *kind;            /* "decode", "encode", ...: "X-bound" */
  guint flags;                  /* SpDecideFlags */
  gint thread;                  /* index into the threads; -1: none */
  gdouble work;                 /* working on its thread */
  gdouble clock;                /* waiting for the clock (sync, live) */
  gdouble blocked;              /* in its own code, not on a CPU */
  /* Threads it started (a codec's workers), the same on each of its rows:
   * how many used any CPU, and their CPU time. */
  guint workers;
  gdouble worker_cpu;
} SpDecideElem;

/* One streaming thread's shares of its wall time (seconds). */
typedef struct
{
  const gchar *name;
  gdouble wall, busy, wait_in, wait_out, blocked, cpu_wait;
  /* It feeds a leaky queue that dropped buffers: it runs ahead of the
   * rate at the sink, so it does not set it. */
  gboolean ahead;
} SpDecideThread;

typedef struct
{
  gdouble running;              /* the pipeline's running time (s) */
  gdouble process_cpu;          /* CPU the process used meanwhile (s) */
  guint cores;                  /* 0, or no process_cpu: not known, and no
                                 * CPU-starved verdict */
  const SpDecideElem *elems;
  guint n_elems;
  const SpDecideThread *threads;
  guint n_threads;
  /* The sinks' rates (frames or buffers a second), by name. */
  const gchar *const *sink_names;
  const gdouble *sink_fps;
  guint n_sinks;
} SpDecideInput;

/* The one-line verdict (free with g_free). */
gchar *sp_decide_verdict (const SpDecideInput * in);

/* One buffer pool of a pipeline (stageprof memory=true: the "pools"
 * table's row). */
typedef struct
{
  const gchar *name, *user, *held_by;
  guint64 max_buffers, empty;
  gdouble wait_pct;             /* its user waiting for a free buffer */
} SpDecidePool;

/* "pool-bound: USER waited N % of the running time for a free buffer of
 * its pool POOL (M buffers, all M held: ...)" for the pool that kept its
 * user waiting longest, when that is SP_DECIDE_POOL_BOUND % or more of
 * the time the pool was in use and it ran dry; NULL otherwise. The wait
 * is only counted while every buffer of the pool was out, so it is never
 * a wait elsewhere (a full queue downstream). */
#define SP_DECIDE_POOL_BOUND 10.0
gchar *sp_decide_pool_verdict (const SpDecidePool * pools, guint n);

G_END_DECLS

#endif /* __SP_DECIDE_H__ */
