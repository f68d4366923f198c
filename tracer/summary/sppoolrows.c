/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sppoolrows: the pools and memory tables' rows. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "sppoolrows.h"
#include "sprowgst.h"

/* "3 in queue0, 1 in the application's appsink0": where the buffers were
 * when the pool ran dry, on average over its empty spells, most first. */
static gchar *
held_text (const SpPoolStat * st)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < st->held->len; i++) {
    const SpPoolHeld *h = &g_array_index (st->held, SpPoolHeld, i);

    g_string_append (out, i ? ", " : "");
    if (fabs (h->mean - round (h->mean)) < 0.05)
      g_string_append_printf (out, "%.0f", round (h->mean));
    else
      g_string_append_printf (out, "%.1f", h->mean);
    g_string_append_printf (out, " in %s%s", h->app ? "the application's " :
        "", h->name);
  }
  return g_string_free (out, FALSE);
}

static GstStructure *
pool_row (const SpPoolStat * st)
{
  SpPoolRow *row = sp_row_new (&sp_pool_kind);

  row->name = g_strdup (st->name);
  row->pipeline = g_strdup (st->pipeline);
  row->user = g_strdup (st->user);
  row->proposer = g_strdup (st->proposer);
  row->allocator = g_strdup (st->allocator);
  row->size = st->size;
  row->min_buffers = st->min;
  row->max_buffers = st->max;
  row->handed_out = st->handed_out;
  row->in_use = st->in_use;
  row->max_in_use = st->max_in_use;
  row->empty = st->empty;
  row->wait_s = st->wait_ns / 1e9;
  row->wait_pct = st->span_ns > 0 ? 100.0 * st->wait_ns / st->span_ns : 0.0;
  row->held_by = held_text (st);
  /* run: the summary's, once it knows the pipeline's runs */
  return sp_row_into_structure (&sp_pool_kind, row);
}

static GstStructure *
memory_row (const SpMemStat * st)
{
  SpMemoryRow *row = sp_row_new (&sp_memory_kind);

  row->name = g_strdup (st->name);
  row->pipeline = g_strdup (st->pipeline);
  row->memories = st->mems;
  row->allocated_bytes = st->bytes;
  row->pooled_buffers = st->pooled;
  row->pooled_bytes = st->pooled_bytes;
  row->live_bytes = st->live;
  row->peak_bytes = st->peak;
  return sp_row_into_structure (&sp_memory_kind, row);
}

static void
append (GValue * rows, GstStructure * row)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&v, row);
  gst_value_array_append_and_take_value (rows, &v);
}

void
sp_summary_pool_rows (SpPools * p, gpointer pipeline, GValue * pool_rows,
    GValue * mem_rows)
{
  GArray *pools = sp_pools_stats (p, pipeline);
  GArray *mems = sp_memory_stats (p, pipeline);

  for (guint i = 0; i < pools->len; i++)
    append (pool_rows, pool_row (&g_array_index (pools, SpPoolStat, i)));
  for (guint i = 0; i < mems->len; i++)
    append (mem_rows, memory_row (&g_array_index (mems, SpMemStat, i)));
  sp_pools_stats_free (pools);
  sp_memory_stats_free (mems);
}
