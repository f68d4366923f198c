/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spload: a profile from any file stageprof writes: the kind detected from
 * the content, its reader (spread.h), then the rows the user selected. */
#ifndef __SPLOAD_H__
#define __SPLOAD_H__

#include "spreport.h"

G_BEGIN_DECLS

typedef struct
{
  const gchar *pipeline;        /* NULL: all */
  const gchar *run;             /* NULL: db: the latest run; others: all */
} SpSelect;

/* Reads any of the three kinds (detected from the content, not the name),
 * keeps the rows `sel` selects, and fails with SP_REPORT_ERROR_* (message
 * naming the file and what is wrong) where nothing can be shown. */
SpProfile *sp_profile_load (const gchar * path, const SpSelect * sel,
    GError ** error);

G_END_DECLS

#endif /* __SPLOAD_H__ */
