/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spprogress: stageprof's live status line (progress=true).
 *
 * A plain function of successive "stageprof-summary" structures: frames/s
 * at each sink and the busiest element over the time since the previous
 * line, the fullest queues, and the elapsed pipeline time. The tracer's
 * ticker prints it (docs/tracer.md, "Live status line").
 */
#ifndef __SP_PROGRESS_H__
#define __SP_PROGRESS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _SpProgress SpProgress;

SpProgress *sp_progress_new (void);
void sp_progress_free (SpProgress * p);
/* One line, without a newline. `now_us`: g_get_monotonic_time(). Rates are
 * over the time since the previous call (since the start on the first). */
gchar *sp_progress_line (SpProgress * p, const GstStructure * summary,
    gint64 now_us);

G_END_DECLS

#endif /* __SP_PROGRESS_H__ */
