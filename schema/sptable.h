/* sptable: the one table renderer of the profile (aligned text, Markdown,
 * CSV, HTML), for the tracer's summary and stageprof-report alike, and the
 * tables of a schema (spschema.h) built from rows of any kind.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __SP_TABLE_H__
#define __SP_TABLE_H__

#include "spschema.h"

G_BEGIN_DECLS

typedef enum
{
  SP_FORMAT_TEXT, SP_FORMAT_JSON, SP_FORMAT_CSV, SP_FORMAT_MARKDOWN,
  SP_FORMAT_HTML,               /* tables only, for the HTML report */
} SpFormat;

/* A number with `decimals` digits after the point; "-" for NAN. */
gchar *sp_fmt (gdouble v, gint decimals);

/* A table of strings: the header row, then the cells row by row. The first
 * `nleft` columns are left-aligned (names), the others right-aligned. */
typedef struct _SpTable SpTable;
SpTable *sp_table_new (guint nleft, const gchar * const *header);
void sp_table_add (SpTable * t, gchar * cell);       /* takes the string */
void sp_table_render (SpTable * t, SpFormat format, GString * out);   /* frees t */

/* How a table of rows reads a row's column: a number (NAN: none) or a text
 * (newly allocated; NULL: none), and whether the row has the column at all
 * (for SP_COL_IF_ANY). */
typedef struct
{
  gdouble (*num) (gconstpointer row, const SpColumn * c, gpointer data);
  gchar *(*text) (gconstpointer row, const SpColumn * c, gpointer data);
  gboolean (*has) (gconstpointer row, const SpColumn * c, gpointer data);
} SpRowReader;

/* The table of `schema` over `rows`: its columns that have a header (those
 * flagged SP_COL_IF_ANY only when a row has them), numbers to their
 * decimals, absent values as "-". */
SpTable *sp_schema_table (const SpSchema * schema, GPtrArray * rows,
    const SpRowReader * reader, gpointer data);

G_END_DECLS

#endif /* __SP_TABLE_H__ */
