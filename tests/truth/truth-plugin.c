/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ground-truth element (tests/truth-element.h) as a plugin of its own,
 * for suites that run pipelines in gst-launch-1.0: an element whose cost a
 * test sets (mode=burn us=N spins N µs of thread CPU time a buffer). Built
 * into the build tree only, never installed. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../truth-element.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return gst_element_register (plugin, "stagetruth", GST_RANK_NONE,
      stage_truth_get_type ());
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, stagetruth,
    "stagetruth: an element of known cost (gst-stages' tests only)",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
