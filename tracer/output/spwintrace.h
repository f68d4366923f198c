/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spwintrace: an interval window (summary/spwindow.h) as counter tracks of
 * the Chrome trace: "C" events of category "window" that Perfetto and
 * chrome://tracing draw as one track per quantity (frames/s and bitrate
 * per src pad, queue levels, self time per element, latency per sink,
 * process CPU), each
 * value from its window's start, so the track steps window by window. */
#ifndef __SP_WINTRACE_H__
#define __SP_WINTRACE_H__

#include <gst/gst.h>

#include "sptrace.h"

G_BEGIN_DECLS

void sp_window_trace (SpTrace * t, const GstStructure * window);

G_END_DECLS

#endif /* __SP_WINTRACE_H__ */
