/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sppoolrows: the pools and memory tables' rows. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "sppoolrows.h"

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
  gchar *held = held_text (st);
  GstStructure *row = gst_structure_new ("pool",
      "name", G_TYPE_STRING, st->name,
      "pipeline", G_TYPE_STRING, st->pipeline,
      "user", G_TYPE_STRING, st->user,
      "proposer", G_TYPE_STRING, st->proposer,
      "allocator", G_TYPE_STRING, st->allocator,
      "size", G_TYPE_UINT64, (guint64) st->size,
      "min_buffers", G_TYPE_UINT64, (guint64) st->min,
      "max_buffers", G_TYPE_UINT64, (guint64) st->max,
      "handed_out", G_TYPE_UINT64, st->handed_out,
      "in_use", G_TYPE_UINT64, (guint64) st->in_use,
      "max_in_use", G_TYPE_UINT64, (guint64) st->max_in_use,
      "empty", G_TYPE_UINT64, st->empty,
      "wait_s", G_TYPE_DOUBLE, st->wait_ns / 1e9,
      "wait_pct", G_TYPE_DOUBLE, st->span_ns > 0 ?
      100.0 * st->wait_ns / st->span_ns : 0.0,
      "held_by", G_TYPE_STRING, held, NULL);

  g_free (held);
  return row;
}

static GstStructure *
memory_row (const SpMemStat * st)
{
  return gst_structure_new ("memory",
      "name", G_TYPE_STRING, st->name,
      "pipeline", G_TYPE_STRING, st->pipeline,
      "memories", G_TYPE_UINT64, st->mems,
      "allocated_bytes", G_TYPE_UINT64, st->bytes,
      "pooled_buffers", G_TYPE_UINT64, st->pooled,
      "pooled_bytes", G_TYPE_UINT64, st->pooled_bytes,
      "live_bytes", G_TYPE_UINT64, st->live,
      "peak_bytes", G_TYPE_UINT64, st->peak, NULL);
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
