/* gst-stages: Scanner's computation-graph ops as GStreamer elements.
 *
 * This file only registers; each element lives in its own gstfoo.c pair.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#ifdef HAVE_GSTSTAGERESIZE
#include "gststageresize.h"
#endif
#ifdef HAVE_GSTSTAGESTRIDE
#include "gststagestride.h"
#endif
#ifdef HAVE_GSTSTAGERANGE
#include "gststagerange.h"
#endif
#ifdef HAVE_GSTSTAGEGATHER
#include "gststagegather.h"
#endif
#ifdef HAVE_GSTSTAGEBIN
#include "gststagebin.h"
#endif

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = TRUE;

#ifdef HAVE_GSTSTAGERESIZE
  ok &= GST_ELEMENT_REGISTER (stageresize, plugin);
#endif
#ifdef HAVE_GSTSTAGESTRIDE
  ok &= GST_ELEMENT_REGISTER (stagestride, plugin);
#endif
#ifdef HAVE_GSTSTAGERANGE
  ok &= GST_ELEMENT_REGISTER (stagerange, plugin);
#endif
#ifdef HAVE_GSTSTAGEGATHER
  ok &= GST_ELEMENT_REGISTER (stagegather, plugin);
#endif
#ifdef HAVE_GSTSTAGEBIN
  ok &= GST_ELEMENT_REGISTER (stagebin, plugin);
#endif

  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, stages,
    "Scanner-style computation-graph ops: resize, stride, range, gather, "
    "replicated stages", plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME,
    GST_PACKAGE_ORIGIN)
