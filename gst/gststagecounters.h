/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The read-only counters (in, out, dropped, groups) of the elements that
 * count frames: the selectors, stageslice and stageunslice, stagerepeat
 * and stagerepeatnull, stagesrc. One definition of each, so a counter
 * says the same on every element that has it, like videorate's in, out,
 * drop and duplicate. Internal to the plugin. */
#ifndef __GST_STAGE_COUNTERS_H__
#define __GST_STAGE_COUNTERS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* A counter's place after the element's first id (see _install). */
typedef enum
{
  GST_STAGE_COUNTER_IN,
  GST_STAGE_COUNTER_OUT,
  GST_STAGE_COUNTER_DROPPED,
  GST_STAGE_COUNTER_GROUPS,
  GST_STAGE_N_COUNTERS
} GstStageCounter;

#define GST_STAGE_COUNTER_MASK(c) (1u << (c))

/* The values, under the owning element's object lock; cumulative since
 * the element started (a flush or seek does not reset them). */
typedef struct
{
  guint64 in, out, dropped, groups;
} GstStageCounters;

/* Installs the counters of @mask (GST_STAGE_COUNTER_MASK bits) on @klass,
 * each with id @first_id + its GstStageCounter (an element reserves
 * GST_STAGE_N_COUNTERS ids from @first_id). */
void gst_stage_counters_install (GObjectClass * klass, guint first_id,
    guint mask);

/* For get_property with @id = prop_id - first_id: FALSE when @id is none
 * of ours. Takes @owner's object lock. */
gboolean gst_stage_counters_get (GstObject * owner,
    const GstStageCounters * counters, guint id, GValue * value);

G_END_DECLS

#endif /* __GST_STAGE_COUNTERS_H__ */
