/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spwindows: a database's interval windows (SpProfile.windows) as the
 * figures of a range of running time: --from/--till of show, diff and
 * html on a database. Part of the model: calls spreport.h only. */
#ifndef __SPWINDOWS_H__
#define __SPWINDOWS_H__

#include "spreport.h"

G_BEGIN_DECLS

/* Keeps the windows whose middle lies in [from_s, till_s] seconds of
 * running time (since its run's first window; NAN: no bound), with their
 * rows; returns how many windows are left. */
guint sp_windows_keep_range (SpProfile * p, gdouble from_s, gdouble till_s);

/* Replaces the profile's element, queue, thread and sink rows (a final
 * snapshot's, over the whole run) by the sums of its windows: counts,
 * totals and time-weighted means; what windows cannot give (percentiles
 * over several windows, latency) is left out (NAN, "-") with a note. */
void sp_windows_to_rows (SpProfile * p);

G_END_DECLS

#endif /* __SPWINDOWS_H__ */
