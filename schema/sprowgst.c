/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sprowgst: rows to and from the summary's GstStructures. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "sprowgst.h"

/* The field of column `c`, or FALSE when the row has none to write. */
static gboolean
column_value (const SpRowKind * k, gconstpointer row, guint c, GValue * v)
{
  const SpColumn *col = &k->schema->cols[c];
  gdouble d;

  if (sp_col_is_text (col)) {
    const gchar *s = sp_row_text (k, row, c);
    if (!s && (col->type == SP_COL_ID || (col->flags & SP_COL_OPTIONAL)))
      return FALSE;
    if (col->type == SP_COL_TEXT) {
      g_value_init (v, G_TYPE_STRING);
      g_value_set_string (v, s);
    } else {
      g_value_init (v, G_TYPE_UINT);
      g_value_set_uint (v, (guint) g_ascii_strtoull (s, NULL, 10));
    }
    return TRUE;
  }
  d = sp_row_num (k, row, c);
  if (isnan (d) && (col->flags & SP_COL_OPTIONAL))
    return FALSE;
  if (col->type == SP_COL_REAL) {
    g_value_init (v, G_TYPE_DOUBLE);
    g_value_set_double (v, d);
    return TRUE;
  }
  /* An integer column no one filled: 0, as a cast of NAN is undefined. */
  if (isnan (d))
    d = 0;
  if (col->type == SP_COL_BOOL) {
    g_value_init (v, G_TYPE_BOOLEAN);
    g_value_set_boolean (v, d != 0);
  } else if (col->flags & SP_COL_UINT32) {
    g_value_init (v, G_TYPE_UINT);
    g_value_set_uint (v, (guint) d);
  } else if (col->flags & SP_COL_SIGNED) {
    g_value_init (v, G_TYPE_INT64);
    g_value_set_int64 (v, (gint64) d);
  } else {
    g_value_init (v, G_TYPE_UINT64);
    g_value_set_uint64 (v, d > 0 ? (guint64) d : 0);
  }
  return TRUE;
}

GstStructure *
sp_row_to_structure (const SpRowKind * k, gconstpointer row)
{
  GstStructure *s = gst_structure_new_empty (k->structure);

  for (guint c = 0; c < k->schema->n_cols; c++) {
    GValue v = G_VALUE_INIT;

    if (column_value (k, row, c, &v))
      gst_structure_take_value (s, k->schema->cols[c].key, &v);
  }
  return s;
}

GstStructure *
sp_row_into_structure (const SpRowKind * k, gpointer row)
{
  GstStructure *s = sp_row_to_structure (k, row);

  sp_row_free (k, row);
  return s;
}

gdouble
sp_row_value_num (const GValue * v)
{
  switch (G_VALUE_TYPE (v)) {
    case G_TYPE_DOUBLE:
      return g_value_get_double (v);
    case G_TYPE_FLOAT:
      return g_value_get_float (v);
    case G_TYPE_UINT64:
      return (gdouble) g_value_get_uint64 (v);
    case G_TYPE_INT64:
      return (gdouble) g_value_get_int64 (v);
    case G_TYPE_UINT:
      return g_value_get_uint (v);
    case G_TYPE_INT:
      return g_value_get_int (v);
    case G_TYPE_BOOLEAN:
      return g_value_get_boolean (v) ? 1 : 0;
    default:
      return NAN;
  }
}

gpointer
sp_row_from_structure (const SpRowKind * k, const GstStructure * s)
{
  gpointer row = sp_row_new (k);

  for (guint c = 0; c < k->schema->n_cols; c++) {
    const SpColumn *col = &k->schema->cols[c];
    const GValue *v = gst_structure_get_value (s, col->key);

    if (!v)
      continue;
    if (!sp_col_is_text (col))
      sp_row_set_num (k, row, c, sp_row_value_num (v));
    else if (G_VALUE_HOLDS_STRING (v))
      sp_row_take_text (k, row, c, g_value_dup_string (v));
    else if (col->type == SP_COL_ID && !isnan (sp_row_value_num (v)))
      sp_row_take_text (k, row, c, sp_row_id ((guint) sp_row_value_num (v)));
  }
  return row;
}
