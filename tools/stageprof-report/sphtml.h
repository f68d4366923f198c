/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sphtml: one self-contained HTML report (tables, verdict, inline SVG
 * plots; no network, no external script) for one profile or two (then with
 * their diff). */
#ifndef __SP_HTML_H__
#define __SP_HTML_H__

#include "spreport.h"

G_BEGIN_DECLS

/* `b` may be NULL. */
gchar *sp_html_render (const SpProfile * a, const SpProfile * b);

G_END_DECLS

#endif /* __SP_HTML_H__ */
