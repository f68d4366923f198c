/* spreport-merge: several stageprof traces into one Chrome trace. */
#ifndef __SP_REPORT_MERGE_H__
#define __SP_REPORT_MERGE_H__

#include <glib.h>

G_BEGIN_DECLS

/* Writes one strict-JSON Chrome trace to `out_path` holding every event of
 * `inputs` (NULL-terminated paths), streamed. Each input's processes become
 * processes of their own, named "PIPELINE (LABEL)" (`labels`: one per input,
 * or NULL for the file names). Inputs are placed on one time axis by the
 * wall-clock start each trace records (stageprof_start); an input without
 * one starts at the earliest input's start, with a warning in `notes`.
 * A cut input contributes its complete events, noted too. Fails (nothing
 * left at out_path) if an input is not a trace or out_path cannot be written. */
gboolean sp_report_merge (const gchar * const *inputs,
    const gchar * const *labels, const gchar * out_path, GPtrArray * notes,
    GError ** error);

G_END_DECLS

#endif /* __SP_REPORT_MERGE_H__ */
