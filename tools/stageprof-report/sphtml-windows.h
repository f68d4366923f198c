/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sphtml-windows: the HTML report's plots over time, from a database's
 * interval windows: self time per element, frames/s and bitrate per src
 * pad, queue levels (lowest, mean and highest of each window, with the
 * limit). */
#ifndef __SP_HTML_WINDOWS_H__
#define __SP_HTML_WINDOWS_H__

#include "spreport.h"

G_BEGIN_DECLS

/* Appends the sections (nothing when `p` has no windows). */
void sp_html_windows (GString * o, const SpProfile * p);

G_END_DECLS

#endif /* __SP_HTML_WINDOWS_H__ */
