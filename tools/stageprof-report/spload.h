/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spload: a profile from any file stageprof writes: the kind detected from
 * the content, its reader (spread.h), then the rows the user selected. */
#ifndef __SPLOAD_H__
#define __SPLOAD_H__

#include <math.h>

#include "spreport.h"

G_BEGIN_DECLS

typedef struct
{
  const gchar *pipeline;        /* NULL: all */
  const gchar *run;             /* NULL: db: the latest run; others: all */
  /* A range of running time (s, since each pipeline run started; NAN: no
   * bound): a trace read from `from` to `till`, a database's windows in
   * it. A summary has no time axis and is refused. */
  gdouble from, till;
} SpSelect;

/* An SpSelect of everything. */
#define SP_SELECT_ALL { NULL, NULL, NAN, NAN }

/* Reads a --from/--till value: seconds, finite, 0 or more; FALSE with a
 * message naming `option` otherwise. */
gboolean sp_select_parse_time (const gchar * option, const gchar * text,
    gdouble * out, GError ** error);
/* --from before --till, each valid: FALSE with a message otherwise. */
gboolean sp_select_set_range (SpSelect * sel, const gchar * from,
    const gchar * till, GError ** error);

/* Reads any of the three kinds (detected from the content, not the name),
 * keeps the rows `sel` selects, and fails with SP_REPORT_ERROR_* (message
 * naming the file and what is wrong) where nothing can be shown. */
SpProfile *sp_profile_load (const gchar * path, const SpSelect * sel,
    GError ** error);

G_END_DECLS

#endif /* __SPLOAD_H__ */
