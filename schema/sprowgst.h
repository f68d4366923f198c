/* sprowgst: the one conversion between the profile's rows (sprow.h) and
 * the rows of the tracer's summary, GStreamer structures
 * ("stageprof-summary" and "stageprof-window" hold arrays of them).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Driven by the schema alone: fields in schema order, named by the
 * column's key, of the GType the summary has always had (TEXT a string,
 * ID a guint, REAL a double, BOOL a boolean, INT a guint64, or a guint or
 * gint64 where the column says SP_COL_UINT32 or SP_COL_SIGNED). An
 * optional column without a value (NAN, NULL) is left out, and so is a
 * run id not known yet (the summary sets it afterwards). A small library
 * of its own, so that schema/'s core links no GStreamer.
 */
#ifndef __SP_ROW_GST_H__
#define __SP_ROW_GST_H__

#include <gst/gst.h>

#include "sprow.h"

G_BEGIN_DECLS

/* The row as a new GstStructure named after its kind ("element"). */
GstStructure *sp_row_to_structure (const SpRowKind * k, gconstpointer row);
/* The same, and frees the row. */
GstStructure *sp_row_into_structure (const SpRowKind * k, gpointer row);
/* A new row of kind `k` from a summary's row: fields it lacks stay absent
 * (NAN, NULL), fields the schema does not list are ignored. */
gpointer sp_row_from_structure (const SpRowKind * k, const GstStructure * s);
/* Any number a summary's field holds (a double, an integer of any width,
 * a boolean as 0 or 1), as a gdouble; NAN for a value of another type. */
gdouble sp_row_value_num (const GValue * v);

G_END_DECLS

#endif /* __SP_ROW_GST_H__ */
