/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The stagenull benchmark tracer's own plugin: only registers. It is built
 * for bench/ and the tests, and installed only with -Dbench-tracer=true. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gststagenulltracer.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* The benchmark floor: the same hooks as stageprof, doing nothing. */
  return gst_tracer_register (plugin, "stagenull",
      gst_stage_null_tracer_get_type ());
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, stagenull,
    "stagenull: stageprof's hooks doing nothing (the floor bench/tracer.sh "
    "measures stageprof's overhead against)", plugin_init, VERSION,
    GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
