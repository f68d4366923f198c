/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spread-trace-range: --from/--till on a trace: where each process (a
 * pipeline run) starts, read in a first pass, and events cut to the range
 * of running time asked for. */
#ifndef __SPREAD_TRACE_RANGE_H__
#define __SPREAD_TRACE_RANGE_H__

#include "sptracereader.h"

G_BEGIN_DECLS

/* pid -> gdouble * (its first event's ts, us) of the trace at `path`. */
GHashTable *sp_trace_pid_starts (const gchar * path, GError ** error);

/* Cuts `ev` (a slice or a counter) to [from_s, till_s] seconds after its
 * process's start (`starts`): FALSE when none of it is in the range; a
 * slice across an end is shortened to the part inside. Other events are
 * kept as they are. */
gboolean sp_trace_clip (SpEvent * ev, GHashTable * starts, gdouble from_s,
    gdouble till_s);

G_END_DECLS

#endif /* __SPREAD_TRACE_RANGE_H__ */
