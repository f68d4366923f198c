/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof's live metrics endpoint (metrics=HOST:PORT): started and
 * stopped here, served by output/spendpoint.c on its own thread from
 * summaries of the recorder. Built without libmicrohttpd, metrics= says
 * that it is unavailable. See docs/tracer.md, "Monitoring a running
 * pipeline".
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageprof-priv.h"
#ifdef HAVE_SPENDPOINT
#include "spendpoint.h"
#endif

#define GST_CAT_DEFAULT gst_stage_prof_debug

#ifdef HAVE_SPENDPOINT
/* On the endpoint's thread. */
static GstStructure *
metrics_snapshot (gpointer data)
{
  GstStageProf *self = data;

  return sp_summary_build (self->rec, NULL, FALSE);
}
#endif

void
stage_prof_metrics_stop (GstStageProf * self)
{
  g_mutex_lock (&self->metrics_lock);
#ifdef HAVE_SPENDPOINT
  g_clear_pointer (&self->endpoint, sp_endpoint_stop);
#endif
  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->metrics_served, g_free);
  GST_OBJECT_UNLOCK (self);
  g_mutex_unlock (&self->metrics_lock);
}

/* (Re)starts the endpoint for the current metrics and metrics-any-address
 * settings; a refusal or a taken port warns and leaves the pipeline
 * running without it. */
void
stage_prof_metrics_restart (GstStageProf * self)
{
  gchar *spec;
  gboolean any, done;

  stage_prof_metrics_stop (self);
  GST_OBJECT_LOCK (self);
  spec = g_strdup (self->metrics);
  any = self->metrics_any_address;
  GST_OBJECT_UNLOCK (self);
  /* After the final output the recorder may be gone soon. */
  g_mutex_lock (&self->out_lock);
  done = self->final_done;
  g_mutex_unlock (&self->out_lock);
  if (spec == NULL || *spec == '\0' || done) {
    g_free (spec);
    return;
  }
#ifdef HAVE_SPENDPOINT
  {
    GError *err = NULL;
    SpEndpoint *e;

    g_mutex_lock (&self->metrics_lock);
    e = sp_endpoint_start (spec, any, metrics_snapshot, self, &err);
    if (e) {
      self->endpoint = e;
      GST_OBJECT_LOCK (self);
      self->metrics_served = g_strdup (spec);
      GST_OBJECT_UNLOCK (self);
      GST_INFO_OBJECT (self, "metrics at http://%s/metrics", spec);
    }
    g_mutex_unlock (&self->metrics_lock);
    if (!e) {
      GST_ERROR_OBJECT (self, "%s", err->message);
      g_warning ("stageprof: %s; running without the metrics endpoint",
          err->message);
      g_clear_error (&err);
    }
  }
#else
  (void) any;
  g_warning ("stageprof: metrics=%s ignored: this build of stageprof has no "
      "metrics endpoint (install libmicrohttpd-dev and rebuild with "
      "-Dmetrics=enabled)", spec);
#endif
  g_free (spec);
}
