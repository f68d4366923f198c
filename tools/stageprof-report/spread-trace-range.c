/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spread-trace-range: a trace's events cut to a range of running time. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "spread.h"
#include "spread-trace-range.h"

static GHashTable *
pid_starts (const gchar * path, GError ** error)
{
  SpTraceReader *rd = sp_trace_reader_open (path, error);
  GHashTable *starts;
  SpEvent *ev;
  GError *err = NULL;

  if (!rd)
    return NULL;
  starts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      g_free);
  while (sp_trace_reader_next (rd, &ev, &err)) {
    gdouble *t;

    if ((ev->ph != 'X' && ev->ph != 'C') || !ev->has_ts || !ev->has_pid)
      continue;
    t = g_hash_table_lookup (starts, &ev->pid);
    if (!t) {
      t = g_new (gdouble, 1);
      *t = ev->ts;
      g_hash_table_insert (starts, g_memdup2 (&ev->pid, sizeof (gint64)), t);
    } else if (ev->ts < *t) {
      *t = ev->ts;
    }
  }
  sp_trace_reader_free (rd);
  if (err) {
    g_propagate_error (error, err);
    g_hash_table_destroy (starts);
    return NULL;
  }
  return starts;
}

SpTraceReader *
sp_trace_range_open (const gchar * path, gdouble from_s, gdouble till_s,
    GHashTable ** starts, GError ** error)
{
  SpTraceReader *rd;

  *starts = NULL;
  if ((!isnan (from_s) || !isnan (till_s))
      && !(*starts = pid_starts (path, error)))
    return NULL;
  if (!(rd = sp_trace_reader_open (path, error)))
    g_clear_pointer (starts, g_hash_table_destroy);
  return rd;
}

gboolean
sp_trace_keep (SpEvent * ev, GHashTable * starts, gdouble from_s,
    gdouble till_s)
{
  const gdouble *base;
  gdouble lo, hi, end;

  if (ev->ph == 'C' && g_strcmp0 (ev->cat, "window") == 0)
    return FALSE;
  if (!starts || (ev->ph != 'X' && ev->ph != 'C') || !ev->has_ts
      || !ev->has_pid)
    return TRUE;
  base = g_hash_table_lookup (starts, &ev->pid);
  if (!base)
    return TRUE;
  lo = *base + (isnan (from_s) ? 0 : from_s * 1e6);
  hi = isnan (till_s) ? INFINITY : *base + till_s * 1e6;
  if (ev->ph == 'C' || !ev->has_dur || ev->dur <= 0)
    return ev->ts >= lo && ev->ts <= hi;
  end = ev->ts + ev->dur;
  if (end <= lo || ev->ts >= hi)
    return FALSE;
  ev->ts = MAX (ev->ts, lo);
  ev->dur = MIN (end, hi) - ev->ts;
  return TRUE;
}
