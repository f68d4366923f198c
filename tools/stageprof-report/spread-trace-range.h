/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spread-trace-range: --from/--till on a trace: where each process (a
 * pipeline run) starts, read in a first pass, and events cut to the range
 * of running time asked for. */
#ifndef __SPREAD_TRACE_RANGE_H__
#define __SPREAD_TRACE_RANGE_H__

#include "sptracereader.h"

G_BEGIN_DECLS

/* Opens the trace at `path` for the reader; with a range (`from_s` or
 * `till_s` not NAN), *starts gets each process's start first (pid ->
 * gdouble * us, its first event's ts, from a first pass), else NULL. */
SpTraceReader *sp_trace_range_open (const gchar * path, gdouble from_s,
    gdouble till_s, GHashTable ** starts, GError ** error);

/* Whether the reader takes `ev`: not a window's counter track
 * (interval=: no queue level), and with `starts`, within [from_s,
 * till_s] seconds after its process's start: a slice across a bound is
 * cut to the part inside, a counter outside left out. */
gboolean sp_trace_keep (SpEvent * ev, GHashTable * starts, gdouble from_s,
    gdouble till_s);

G_END_DECLS

#endif /* __SPREAD_TRACE_RANGE_H__ */
