/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spshow: a profile as text tables, JSON, CSV or Markdown (the tables by
 * the profile's schema and renderer, schema/sptable.h). */
#ifndef __SP_SHOW_H__
#define __SP_SHOW_H__

#include "spreport.h"
#include "jsontext.h"
#include "sptable.h"

G_BEGIN_DECLS

gboolean sp_format_parse (const gchar * s, SpFormat * f);

/* `top`: at most that many element rows (0: all). `table` (CSV only, one
 * tidy table per output): "elements", "queues", "threads", "sinks",
 * "latency", "element_latency", "pools" or "memory". */
gchar *sp_show_render (const SpProfile * p, SpFormat format, guint top,
    const gchar * table);

/* One table (as `table` above) in `format`. */
void sp_show_table (const SpProfile * p, const gchar * which,
    SpFormat format, guint top, GString * out);

G_END_DECLS

#endif /* __SP_SHOW_H__ */
