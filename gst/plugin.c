/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: Scanner's computation-graph ops as GStreamer elements.
 *
 * This file only registers; each element lives in its own gstfoo.c pair.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gststageresize.h"
#include "gststagestride.h"
#include "gststagerange.h"
#include "gststagegather.h"
#include "gststagebin.h"
#ifdef HAVE_CUDA
#include "gststageresizecuda.h"
#endif
#include "gststagerepeat.h"
#include "gststagerepeatnull.h"
#include "gststageslice.h"
#include "gststageunslice.h"
#include "gststagesink.h"
#include "gststagesrc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = TRUE;

#ifdef HAVE_CUDA
  /* stageresize's CUDA module sits beside this file. */
  stage_cuda_set_module_dir (gst_plugin_get_filename (plugin));
#endif
  ok &= GST_ELEMENT_REGISTER (stageresize, plugin);
  ok &= GST_ELEMENT_REGISTER (stagestride, plugin);
  ok &= GST_ELEMENT_REGISTER (stagerange, plugin);
  ok &= GST_ELEMENT_REGISTER (stagegather, plugin);
  ok &= GST_ELEMENT_REGISTER (stagebin, plugin);
  ok &= GST_ELEMENT_REGISTER (stagerepeat, plugin);
  ok &= GST_ELEMENT_REGISTER (stagerepeatnull, plugin);
  ok &= GST_ELEMENT_REGISTER (stageslice, plugin);
  ok &= GST_ELEMENT_REGISTER (stageunslice, plugin);
  ok &= GST_ELEMENT_REGISTER (stagesink, plugin);
  ok &= GST_ELEMENT_REGISTER (stagesrc, plugin);

  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, stages,
    "Scanner-style computation-graph ops: resize, stride, range, gather, "
    "repeat, slice, stored streams, replicated stages", plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME,
    GST_PACKAGE_ORIGIN)
