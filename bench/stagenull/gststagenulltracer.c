/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:tracer-stagenull
 * @short_description: do-nothing tracer on stageprof's hooks
 *
 * Registers exactly the hooks that the stageprof tracer uses, with empty
 * callbacks. Running a pipeline under it measures what GStreamer's own hook
 * dispatch costs (timestamp, hash lookup, indirect call per hook), which no
 * tracer can go below; bench/tracer.sh reports stageprof's overhead as a
 * multiple of this floor.
 *
 * ```
 * GST_TRACERS=stagenull gst-launch-1.0 fakesrc num-buffers=100000 ! fakesink
 * ```
 *
 * Keep the hook list in step with gststageprof.c, or the floor is wrong.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagenulltracer.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_null_tracer_debug);
#define GST_CAT_DEFAULT gst_stage_null_tracer_debug

struct _GstStageNullTracer
{
  GstTracer parent;
};

#define _do_init \
    GST_DEBUG_CATEGORY_INIT (gst_stage_null_tracer_debug, "stagenull", 0, \
        "do-nothing tracer on stageprof's hooks");
#define gst_stage_null_tracer_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstStageNullTracer, gst_stage_null_tracer,
    GST_TYPE_TRACER, _do_init);

/* The signatures match GStreamer's hook typedefs (gsttracerutils.h), so the
 * dispatch does the same work as for stageprof: only the bodies are empty. */

static void
null_pad_buffer_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer)
{
}

static void
null_pad_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
}

static void
null_pad_flow_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
}

static void
null_pad_pull_range_pre (GObject * self, GstClockTime ts, GstPad * pad,
    guint64 offset, guint size)
{
}

static void
null_pad_pull_range_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer, GstFlowReturn res)
{
}

static void
null_element_change_state_post (GObject * self, GstClockTime ts,
    GstElement * element, GstStateChange change, GstStateChangeReturn res)
{
}

static void
null_pad_event_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstEvent * event)
{
}

static void
null_pad_event_post (GObject * self, GstClockTime ts, GstPad * pad,
    gboolean res)
{
}

static void
null_object_destroyed (GObject * self, GstClockTime ts, GstObject * object)
{
}

static void
null_element_new (GObject * self, GstClockTime ts, GstElement * element)
{
}

static void
null_pad_link_post (GObject * self, GstClockTime ts, GstPad * srcpad,
    GstPad * sinkpad, GstPadLinkReturn res)
{
}

static void
gst_stage_null_tracer_class_init (GstStageNullTracerClass * klass)
{
}

static void
gst_stage_null_tracer_init (GstStageNullTracer * self)
{
  GstTracer *tracer = GST_TRACER (self);

  gst_tracing_register_hook (tracer, "pad-push-pre",
      G_CALLBACK (null_pad_buffer_pre));
  gst_tracing_register_hook (tracer, "pad-push-post",
      G_CALLBACK (null_pad_flow_post));
  gst_tracing_register_hook (tracer, "pad-push-list-pre",
      G_CALLBACK (null_pad_list_pre));
  gst_tracing_register_hook (tracer, "pad-push-list-post",
      G_CALLBACK (null_pad_flow_post));
  gst_tracing_register_hook (tracer, "pad-chain-pre",
      G_CALLBACK (null_pad_buffer_pre));
  gst_tracing_register_hook (tracer, "pad-chain-post",
      G_CALLBACK (null_pad_flow_post));
  gst_tracing_register_hook (tracer, "pad-chain-list-pre",
      G_CALLBACK (null_pad_list_pre));
  gst_tracing_register_hook (tracer, "pad-chain-list-post",
      G_CALLBACK (null_pad_flow_post));
  gst_tracing_register_hook (tracer, "pad-pull-range-pre",
      G_CALLBACK (null_pad_pull_range_pre));
  gst_tracing_register_hook (tracer, "pad-pull-range-post",
      G_CALLBACK (null_pad_pull_range_post));
  gst_tracing_register_hook (tracer, "element-change-state-post",
      G_CALLBACK (null_element_change_state_post));
  gst_tracing_register_hook (tracer, "pad-push-event-pre",
      G_CALLBACK (null_pad_event_pre));
  gst_tracing_register_hook (tracer, "pad-push-event-post",
      G_CALLBACK (null_pad_event_post));
  gst_tracing_register_hook (tracer, "object-destroyed",
      G_CALLBACK (null_object_destroyed));
  /* The same keys as stageprof, so GStreamer's hook table has the same
   * size and probe chains (see gst_stage_prof_constructed). */
  gst_tracing_register_hook (tracer, "element-new",
      G_CALLBACK (null_element_new));
  gst_tracing_register_hook (tracer, "pad-link-post",
      G_CALLBACK (null_pad_link_post));
  GST_DEBUG_OBJECT (self, "registered stageprof's hooks, all empty");
}
