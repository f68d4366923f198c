/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The stageprof tracer plugin: only registers. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gststageprof.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = TRUE;

  ok &= gst_tracer_register (plugin, "stageprof", gst_stage_prof_get_type ());

  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, stageprof,
    "stageprof: per-element time, queue occupancy and waits as a Chrome "
    "trace and summary tables", plugin_init, VERSION, GST_LICENSE,
    GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
