/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spread: the readers of stageprof's outputs into the profile model, one
 * file each (spread-summary.c, spread-db.c, spread-trace.c); spload.c picks
 * one by the file's content. They call the model (spreport.h) only. */
#ifndef __SPREAD_H__
#define __SPREAD_H__

#include <math.h>

#include "spreport.h"

G_BEGIN_DECLS

SpProfile *sp_read_summary_json (const gchar * path, GError ** error);
/* Appends the rows of the summary JSON object `text` (a trace's
 * stageprof_summary) to `p`'s; its verdict and pipeline (NULL if none).
 * FALSE, nothing added: not a summary. */
gboolean sp_summary_text_rows (SpProfile * p, const gchar * text,
    gchar ** verdict, gchar ** pipeline);
/* `run`: a run_id, NULL for the latest. */
SpProfile *sp_read_db (const gchar * path, const gchar * run, GError ** error);
/* Only what lies between `from_s` and `till_s` seconds (NAN: no bound)
 * after the start of each process (pipeline run) of the trace: slices cut
 * at the bounds, counters outside them left out. */
SpProfile *sp_read_trace_range (const gchar * path, gdouble from_s,
    gdouble till_s, GError ** error);

static inline SpProfile *
sp_read_trace (const gchar * path, GError ** error)
{
  return sp_read_trace_range (path, NAN, NAN, error);
}

G_END_DECLS

#endif /* __SPREAD_H__ */
