/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: opens stageresize's CUDA module on first use.
 *
 * The module links gstcuda, which pulls GL, EGL, X11, Wayland, DRM and udev
 * into any process that loads it (24 more libraries, +2.7 MB resident and
 * +3 ms per plugin load, measured with a CUDA build). The stages plugin
 * itself links none of them: the module opens only when a pipeline gives
 * stageresize CUDA caps or a CUDA context, which only happens where a GPU
 * answers. Where it cannot open, CUDA negotiation fails with the reason.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageresizecudamodule.h"

#include <gmodule.h>

GST_DEBUG_CATEGORY_STATIC (stage_cuda_load_debug);
#define GST_CAT_DEFAULT stage_cuda_load_debug

#define MODULE_FILE "libgststages-cuda.mod"
#define CUDA_CONTEXT_TYPE "gst.cuda.context"

static gchar *module_dir;
static const StageCudaModule *module;
static gchar *module_error;

void
stage_cuda_set_module_dir (const gchar * plugin_filename)
{
  if (plugin_filename && !module_dir)
    module_dir = g_path_get_dirname (plugin_filename);
}

static gpointer
open_module (gpointer data)
{
  const gchar *env = g_getenv ("STAGES_CUDA_MODULE");
  gchar *path = env && *env ? g_strdup (env) :
      g_build_filename (module_dir ? module_dir : ".", MODULE_FILE, NULL);
  GModule *gm;
  StageCudaModuleGetFunc get = NULL;

  GST_DEBUG_CATEGORY_INIT (stage_cuda_load_debug, "stageresizecudaload", 0,
      "stageresize CUDA module loader");
  gm = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (!gm) {
    module_error = g_strdup_printf ("cannot open the CUDA module %s: %s",
        path, g_module_error ());
  } else if (!g_module_symbol (gm, STAGE_CUDA_MODULE_SYMBOL,
          (gpointer *) & get) || !get || get ()->abi != STAGE_CUDA_MODULE_ABI) {
    module_error = g_strdup_printf ("%s is not this build's CUDA module "
        "(rebuild and reinstall gst-stages)", path);
    g_module_close (gm);
  } else {
    /* Kept open for the life of the process, as plugins are. */
    g_module_make_resident (gm);
    module = get ();
    GST_INFO ("opened %s", path);
  }
  if (module_error)
    GST_WARNING ("%s", module_error);
  g_free (path);
  return NULL;
}

static const StageCudaModule *
get_module (GError ** error)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, open_module, NULL);
  if (!module)
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN, "%s",
        module_error);
  return module;
}

gboolean
stage_cuda_device_available (void)
{
  const StageCudaModule *m = get_module (NULL);

  return m && m->device_available ();
}

gboolean
stage_cuda_caps_are_cuda (GstCaps * caps)
{
  GstCapsFeatures *f;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, STAGE_CUDA_MEMORY_FEATURE);
}

void
stage_cuda_state_set_context (StageCudaState * st, GstElement * element,
    GstContext * context)
{
  const StageCudaModule *m;

  if (g_strcmp0 (gst_context_get_context_type (context), CUDA_CONTEXT_TYPE))
    return;
  if ((m = get_module (NULL)))
    m->set_context (st, element, context);
}

gboolean
stage_cuda_state_query (StageCudaState * st, GstElement * element,
    GstQuery * query)
{
  const gchar *type = NULL;
  const StageCudaModule *m;

  /* Only a neighbour that already holds a CUDA context asks for ours. */
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT || !st->context ||
      !gst_query_parse_context_type (query, &type) ||
      g_strcmp0 (type, CUDA_CONTEXT_TYPE))
    return FALSE;
  m = get_module (NULL);
  return m && m->query (st, element, query);
}

gboolean
stage_cuda_state_configure (StageCudaState * st, GstElement * element,
    const GstVideoInfo * in, const GstVideoInfo * out,
    StageResizeMethod method, GError ** error)
{
  const StageCudaModule *m = get_module (error);

  return m && m->configure (st, element, in, out, method, error);
}

gboolean
stage_cuda_state_decide_allocation (StageCudaState * st,
    GstElement * element, GstQuery * query)
{
  const StageCudaModule *m = get_module (NULL);

  return m && m->decide_allocation (st, element, query);
}

gboolean
stage_cuda_state_propose_allocation (StageCudaState * st,
    GstElement * element, GstQuery * query)
{
  const StageCudaModule *m = get_module (NULL);

  return m && m->propose_allocation (st, element, query);
}

gboolean
stage_cuda_resizer_process (StageCudaResizer * r, GstBuffer * inbuf,
    GstBuffer * outbuf, GError ** error)
{
  const StageCudaModule *m = get_module (error);

  return m && m->process (r, inbuf, outbuf, error);
}

void
stage_cuda_state_clear (StageCudaState * st)
{
  /* Nothing to free unless the module made it. */
  if (module)
    module->clear (st);
  st->active = FALSE;
}
