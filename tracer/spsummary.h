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
gchar *sp_summary_to_csv (const GstStructure * summary);
gchar *sp_summary_render (const GstStructure * summary, SpSummaryFormat format,
    const gchar * title);

/* Writes the rendering for `path`'s extension; the error names the path. */
gboolean sp_summary_write_file (const GstStructure * summary,
    const gchar * path, GError ** error);

G_END_DECLS

#endif /* __SP_SUMMARY_H__ */
