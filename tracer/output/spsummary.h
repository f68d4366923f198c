/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spsummary: renders stageprof's "stageprof-summary" GstStructure (see
 * sprecord.h and docs/tracer.md) as text tables, JSON or CSV. Plain
 * functions of the structure, so the tracer, tests and applications that got
 * the structure from the `get-summary` action all print the same thing.
 */
#ifndef __SP_SUMMARY_H__
#define __SP_SUMMARY_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum
{
  SP_SUMMARY_TEXT,
  SP_SUMMARY_JSON,
  SP_SUMMARY_CSV,
} SpSummaryFormat;

/* .json -> JSON, .csv -> CSV (case-insensitive), anything else text. */
SpSummaryFormat sp_summary_format_for_path (const gchar * path);

/* `title` heads the text form (e.g. the pipeline name); may be NULL. */
gchar *sp_summary_to_text (const GstStructure * summary, const gchar * title);
gchar *sp_summary_to_json (const GstStructure * summary);
/* CSV is one tidy table per file: sp_summary_to_csv() is the elements
 * table; sp_summary_table_to_csv() any table of the schema
 * (sp_schema_tables, schema/spschema.h; NULL when it has no rows), written
 * by sp_summary_write_file() beside PATH as sp_summary_csv_path() names it
 * (prof.csv, prof.threads.csv, ...). */
gchar *sp_summary_to_csv (const GstStructure * summary);
gchar *sp_summary_table_to_csv (const GstStructure * summary,
    const gchar * table);
gchar *sp_summary_csv_path (const gchar * path, const gchar * table);
gchar *sp_summary_render (const GstStructure * summary, SpSummaryFormat format,
    const gchar * title);

/* Appends row `s` (taken) to the GST_TYPE_ARRAY `array`: how the summary
 * layer fills its tables. */
void sp_summary_take_row (GValue * array, GstStructure * s);

/* `str` with control characters and bytes that are not UTF-8 escaped
 * (\n, \t, \xNN): valid UTF-8 on one line, for tables, CSV and names. */
gchar *sp_summary_escape (const gchar * str);

/* Writes the rendering for `path`'s extension; the error names the path. */
gboolean sp_summary_write_file (const GstStructure * summary,
    const gchar * path, GError ** error);

G_END_DECLS

#endif /* __SP_SUMMARY_H__ */
