/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spverdict: a pipeline's verdict from the tracer's records: they become
 * the plain rows of schema/spdecide.h, whose one engine stageprof-report
 * calls too (see "How the verdict is decided" in docs/tracer.md).
 * With memory=true, sp_pool_verdict adds "pool-bound: ..." for a pool
 * that kept its user waiting for a free buffer (the wait is only counted
 * while every buffer of the pool was out: sppool.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "spdecide.h"
#include "sprowgst.h"
#include "spverdict.h"

static guint
flags_of (const SpElemInfo * info)
{
  return (info->forwards ? SP_DECIDE_FORWARDS : 0)
      | (info->app_sink ? SP_DECIDE_APP_SINK : 0)
      | (info->app_src ? SP_DECIDE_APP_SRC : 0)
      | (info->live_source ? SP_DECIDE_LIVE_SOURCE : 0)
      | (info->is_sink ? SP_DECIDE_SINK : 0);
}

gchar *
sp_verdict (const SpVerdictInput * in, GPtrArray * recs, GPtrArray * threads,
    const SpShares * shares, const GValue * sinks)
{
  SpDecideThread *dt = g_new0 (SpDecideThread, MAX (threads->len, 1));
  SpDecideElem *de = g_new0 (SpDecideElem, MAX (recs->len, 1));
  guint n_sinks = sinks ? gst_value_array_get_size (sinks) : 0;
  const gchar **sink_names = g_new0 (const gchar *, MAX (n_sinks, 1));
  gdouble *sink_fps = g_new0 (gdouble, MAX (n_sinks, 1));
  SpDecideInput di = { 0 };
  gchar *v;
  guint i, j;

  for (i = 0; i < threads->len; i++) {
    SpThreadRec *th = g_ptr_array_index (threads, i);
    const SpShares *sh = &shares[i];

    dt[i].name = th->name;
    dt[i].wall = sh->wall / 1e9;
    dt[i].busy = sh->busy / 1e9;
    dt[i].wait_in = sh->wait_in / 1e9;
    dt[i].wait_out = sh->wait_out / 1e9;
    dt[i].blocked = sh->blocked / 1e9;
    dt[i].cpu_wait = sh->cpu_wait / 1e9;
    dt[i].ahead = in->ahead && g_hash_table_contains (in->ahead, th);
  }
  for (i = 0; i < recs->len; i++) {
    SpElemRec *rec = g_ptr_array_index (recs, i);
    SpElemInfo *info = rec->info;

    de[i].name = info->name;
    de[i].kind = sp_kind_labels[info->kind];
    de[i].flags = flags_of (info);
    de[i].thread = -1;
    for (j = 0; j < threads->len; j++)
      if (g_ptr_array_index (threads, j) == rec->thread)
        de[i].thread = j;
    de[i].work = rec->work_ns / 1e9;
    de[i].clock = rec->clock_ns / 1e9;
    de[i].blocked = rec->blocked_ns / 1e9;
    de[i].workers = info->workers;
    de[i].worker_cpu = info->worker_cpu_ns / 1e9;
  }
  for (i = 0; i < n_sinks; i++) {
    const GstStructure *s =
        gst_value_get_structure (gst_value_array_get_value (sinks, i));
    sink_names[i] = gst_structure_get_string (s, SP_KEY (sinks, name));
    gst_structure_get_double (s, SP_KEY (sinks, fps), &sink_fps[i]);
  }
  di.running = in->running_s;
  di.process_cpu = in->process_cpu_s;
  di.cores = in->cores;
  di.elems = de;
  di.n_elems = recs->len;
  di.threads = dt;
  di.n_threads = threads->len;
  di.sink_names = sink_names;
  di.sink_fps = sink_fps;
  di.n_sinks = n_sinks;
  v = sp_decide_verdict (&di);
  g_free (dt);
  g_free (de);
  g_free (sink_names);
  g_free (sink_fps);
  return v;
}

gchar *
sp_pool_verdict (const GValue * pools, const gchar * pipeline)
{
  guint n = gst_value_array_get_size (pools), k = 0;
  SpDecidePool *dp = g_new0 (SpDecidePool, MAX (n, 1));
  SpPoolRow **rows = g_new0 (SpPoolRow *, MAX (n, 1));
  gchar *v;

  for (guint i = 0; i < n; i++) {
    SpPoolRow *row = sp_row_from_structure (&sp_pool_kind,
        gst_value_get_structure (gst_value_array_get_value (pools, i)));

    rows[i] = row;
    if (g_strcmp0 (row->pipeline, pipeline))
      continue;
    dp[k].name = row->name;
    dp[k].user = row->user;
    dp[k].held_by = row->held_by;
    dp[k].max_buffers = isnan (row->max_buffers) ? 0 : row->max_buffers;
    dp[k].empty = isnan (row->empty) ? 0 : row->empty;
    dp[k].wait_pct = isnan (row->wait_pct) ? 0 : row->wait_pct;
    k++;
  }
  v = sp_decide_pool_verdict (dp, k);
  for (guint i = 0; i < n; i++)
    sp_row_free (&sp_pool_kind, rows[i]);
  g_free (rows);
  g_free (dp);
  return v;
}
