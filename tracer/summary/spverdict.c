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

#include "spdecide.h"
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
    sink_names[i] = gst_structure_get_string (s, "name");
    gst_structure_get_double (s, "fps", &sink_fps[i]);
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

static guint64
row_uint64 (const GstStructure * row, const gchar * key)
{
  guint64 v = 0;

  gst_structure_get_uint64 (row, key, &v);
  return v;
}

gchar *
sp_pool_verdict (const GValue * pools, const gchar * pipeline)
{
  guint n = gst_value_array_get_size (pools), k = 0;
  SpDecidePool *dp = g_new0 (SpDecidePool, MAX (n, 1));
  gchar *v;

  for (guint i = 0; i < n; i++) {
    const GstStructure *row =
        gst_value_get_structure (gst_value_array_get_value (pools, i));

    if (g_strcmp0 (gst_structure_get_string (row, "pipeline"), pipeline))
      continue;
    dp[k].name = gst_structure_get_string (row, "name");
    dp[k].user = gst_structure_get_string (row, "user");
    dp[k].held_by = gst_structure_get_string (row, "held_by");
    dp[k].max_buffers = row_uint64 (row, "max_buffers");
    dp[k].empty = row_uint64 (row, "empty");
    gst_structure_get_double (row, "wait_pct", &dp[k].wait_pct);
    k++;
  }
  v = sp_decide_pool_verdict (dp, k);
  g_free (dp);
  return v;
}
