/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sppoolrows: the pools and memory tables' rows (stageprof memory=true),
 * from what the pool accounting measured (recorder/sppool.h). */
#ifndef __SP_POOLROWS_H__
#define __SP_POOLROWS_H__

#include <gst/gst.h>

#include "sppool.h"

G_BEGIN_DECLS

/* Appends to `pool_rows` a "pools" row per pool that handed out buffers
 * and to `mem_rows` a "memory" row per element that allocated (the
 * schema's tables), for top-level `pipeline` (NULL: all); `run` is left
 * for the caller. */
void sp_summary_pool_rows (SpPools * p, gpointer pipeline,
    GValue * pool_rows, GValue * mem_rows);

G_END_DECLS

#endif /* __SP_POOLROWS_H__ */
