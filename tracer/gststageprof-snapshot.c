/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof: a pipeline's summary as a snapshot, and the database it goes
 * to; what the tracer object (gststageprof.c) and the interval ticker
 * (gststageprof-ticker.c) both use, below both of them, so that those two
 * do not call each other. The debug category lives here for the same
 * reason (gststageprof.c initialises it with the type). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageprof-priv.h"

GST_DEBUG_CATEGORY (gst_stage_prof_debug);

/* Queues `s` for the database, if there is one. */
void
stage_prof_db_add (GstStageProf * self, GstStructure * s)
{
#ifdef HAVE_SPDB
  g_mutex_lock (&self->db_lock);
  if (self->db)
    sp_db_add_snapshot (self->db, s);
  g_mutex_unlock (&self->db_lock);
#endif
}

/* `pipeline`'s summary, its rows and itself named by the pipeline. */
GstStructure *
stage_prof_pipeline_summary (GstStageProf * self, gpointer pipeline,
    gboolean final)
{
  GstStructure *s = sp_summary_build (self->rec, pipeline, final);

  if (!gst_structure_has_field (s, "pipeline")) {
    gchar *name = sp_summary_pipeline_name (self->rec, pipeline);
    gst_structure_set (s, "pipeline", G_TYPE_STRING, name, NULL);
    g_free (name);
  }
  return s;
}
