/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbsplit: stage-batch --split N, one long stored stream processed by N
 * jobs at once. Each manifest row whose template reads a stored stream
 * (stagesrc) becomes up to N rows, one per run of frames cut at keyframes
 * the catalog lists, with the built-in placeholders {range} (stagesrc's
 * ranges=, "A:B") and {part} (".part-K-of-N", in the stagesink's stream=);
 * after the batch, each row's parts are joined into the stream named
 * without {part} (stage_store_join). */
#ifndef __SBSPLIT_H__
#define __SBSPLIT_H__

#include <gst/gst.h>

#include "sbmanifest.h"
#include "stagestore.h"

G_BEGIN_DECLS

/* One manifest row split in parts: where its parts go and what they join
 * into. */
typedef struct
{
  guint row;                    /* in the manifest as given */
  gchar *where;                 /* "file.csv:5" */
  guint first, n_parts;         /* its rows in the split manifest */
  gchar *out_store, *out_stream;        /* the joined stream */
  StageStoreMode mode;          /* the stagesink's */
} SbSplit;

void sb_split_free (SbSplit * s);

/* The manifest with each row split in up to `n` parts (columns "range"
 * and "part" added), and in *splits one SbSplit per row. NULL with an
 * error naming the row when the template lacks {range} or {part}, reads
 * no stored stream or more than one, writes no stagesink, or the stream
 * cannot be read. */
SbManifest *sb_split_manifest (const SbManifest * m, const SbTemplate * t,
    guint n, GPtrArray ** splits, GError ** error);

typedef enum
{
  SB_SPLIT_JOINED,              /* the parts became the stream */
  SB_SPLIT_KEPT,                /* mode=ignore kept a stream of that name */
  SB_SPLIT_ALREADY,             /* joined by an earlier run: no parts left */
} SbSplitJoin;

/* Joins one row's parts; FALSE with the reason. A stream that exists
 * with no parts left was joined by an earlier run (--resume). */
gboolean sb_split_join (const SbSplit * s, SbSplitJoin * result,
    GError ** error);

/* Whether part @k (0-based) of @s is in its store, as a part or already
 * joined: a resumed batch runs a done part again when it is neither. */
gboolean sb_split_part_present (const SbSplit * s, guint k);

G_END_DECLS

#endif /* __SBSPLIT_H__ */
