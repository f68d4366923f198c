/* spshow: a profile as text tables, JSON, CSV or Markdown, and the small
 * table builder the diff shares. */
#ifndef __SP_SHOW_H__
#define __SP_SHOW_H__

#include "spreport.h"
#include "jsontext.h"

G_BEGIN_DECLS

typedef enum
{
  SP_FORMAT_TEXT, SP_FORMAT_JSON, SP_FORMAT_CSV, SP_FORMAT_MARKDOWN,
  SP_FORMAT_HTML,               /* tables only, for the HTML report */
} SpFormat;

gboolean sp_format_parse (const gchar * s, SpFormat * f);

/* `top`: at most that many element rows (0: all). `table` (CSV only, one
 * tidy table per output): "elements", "queues", "threads" or "sinks". */
gchar *sp_show_render (const SpProfile * p, SpFormat format, guint top,
    const gchar * table);

/* One table ("elements", "queues", "threads", "sinks") in `format`. */
void sp_show_table (const SpProfile * p, const gchar * which,
    SpFormat format, guint top, GString * out);

/* A table of strings rendered as aligned text, Markdown or CSV. */
typedef struct _SpTable SpTable;
SpTable *sp_table_new (guint nleft, const gchar * const *header);
void sp_table_add (SpTable * t, gchar * cell);       /* takes the string */
void sp_table_render (SpTable * t, SpFormat format, GString * out);   /* frees t */

G_END_DECLS

#endif /* __SP_SHOW_H__ */
