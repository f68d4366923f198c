/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The read-only counters, defined once (see the header). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagecounters.h"

/* By GstStageCounter: the property, and where GstStageCounters keeps it */
static const struct
{
  const gchar *name, *nick, *blurb;
  gsize offset;
} counters[GST_STAGE_N_COUNTERS] = {
  {"in", "In", "Number of buffers that reached the element since it "
        "started (cumulative across seeks)",
      G_STRUCT_OFFSET (GstStageCounters, in)},
  {"out", "Out", "Number of buffers pushed downstream since the element "
        "started", G_STRUCT_OFFSET (GstStageCounters, out)},
  {"dropped", "Dropped", "Number of buffers not selected and dropped since "
        "the element started", G_STRUCT_OFFSET (GstStageCounters, dropped)},
  {"groups", "Groups", "Number of stageslice groups that passed the "
        "element since it started",
      G_STRUCT_OFFSET (GstStageCounters, groups)},
};

void
gst_stage_counters_install (GObjectClass * klass, guint first_id,
    guint mask)
{
  guint c;

  for (c = 0; c < GST_STAGE_N_COUNTERS; c++)
    if (mask & GST_STAGE_COUNTER_MASK (c))
      g_object_class_install_property (klass, first_id + c,
          g_param_spec_uint64 (counters[c].name, counters[c].nick,
              counters[c].blurb, 0, G_MAXUINT64, 0,
              G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

gboolean
gst_stage_counters_get (GstObject * owner, const GstStageCounters * count,
    guint id, GValue * value)
{
  if (id >= GST_STAGE_N_COUNTERS)
    return FALSE;
  GST_OBJECT_LOCK (owner);
  g_value_set_uint64 (value, G_STRUCT_MEMBER (guint64, count,
          counters[id].offset));
  GST_OBJECT_UNLOCK (owner);
  return TRUE;
}
