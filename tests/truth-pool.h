/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ground-truth pool source of the stageprof pool suite (test-only,
 * never installed): a source whose buffers come from a pool of its own
 * with a known number of buffers and size, and which measures how long it
 * waited in gst_buffer_pool_acquire_buffer(), so that a test compares
 * stageprof's pool figures with the element's own measurement of the same
 * run.
 *
 *   stagepoolsrc pool-size=N buffer-size=B num-buffers=K
 *
 * The pool has min = max = N buffers of B bytes; it is offered to nobody
 * and downstream's proposals are ignored, so its user and proposer are
 * this element. Read-only: acquired (buffers acquired), wait-ns (time
 * inside acquire, summed), wait-runnable-ns (of that, the time its thread
 * was ready to run but had no CPU: the kernel's run delay of the thread,
 * /proc/thread-self/schedstat, across each acquire; on a loaded machine
 * the wake-up after a buffer came back, which is no wait on the pool).
 *
 * Register with truth_pool_register () after gst_check_init ().
 */
#ifndef __TRUTH_POOL_H__
#define __TRUTH_POOL_H__

#include <stdio.h>
#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

typedef struct
{
  GstBaseSrc parent;
  guint pool_size, buffer_size;
  guint64 acquired, wait_ns, runnable_ns;
} StagePoolSrc;

typedef struct
{
  GstBaseSrcClass parent_class;
} StagePoolSrcClass;

enum
{
  POOL_PROP_0,
  POOL_PROP_POOL_SIZE,
  POOL_PROP_BUFFER_SIZE,
  POOL_PROP_ACQUIRED,
  POOL_PROP_WAIT,
  POOL_PROP_RUNNABLE,
};

static GType stage_pool_src_get_type (void);
G_DEFINE_TYPE (StagePoolSrc, stage_pool_src, GST_TYPE_BASE_SRC);

static gboolean
stage_pool_src_decide_allocation (GstBaseSrc * bs, GstQuery * query)
{
  StagePoolSrc *self = (StagePoolSrc *) bs;
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  gst_buffer_pool_config_set_params (config, caps, self->buffer_size,
      self->pool_size, self->pool_size);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return FALSE;
  }
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  gst_query_add_allocation_pool (query, pool, self->buffer_size,
      self->pool_size, self->pool_size);
  gst_object_unref (pool);
  return TRUE;
}

/* This thread's run delay (ns): time ready to run without a CPU. */
static guint64
truth_run_delay (void)
{
  gchar *text = NULL;
  guint64 cpu = 0, delay = 0;

  if (g_file_get_contents ("/proc/thread-self/schedstat", &text, NULL, NULL))
    sscanf (text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &cpu, &delay);
  g_free (text);
  return delay;
}

static GstFlowReturn
stage_pool_src_alloc (GstBaseSrc * bs, guint64 offset, guint size,
    GstBuffer ** buf)
{
  StagePoolSrc *self = (StagePoolSrc *) bs;
  GstBufferPool *pool = gst_base_src_get_buffer_pool (bs);
  GstFlowReturn ret;
  GstClockTime t0, t1;
  guint64 d0, d1;

  if (!pool)
    return GST_FLOW_NOT_NEGOTIATED;
  d0 = truth_run_delay ();
  t0 = gst_util_get_timestamp ();
  ret = gst_buffer_pool_acquire_buffer (pool, buf, NULL);
  t1 = gst_util_get_timestamp ();
  d1 = truth_run_delay ();
  gst_object_unref (pool);
  GST_OBJECT_LOCK (self);
  self->wait_ns += t1 - t0;
  self->runnable_ns += d1 - d0;
  if (ret == GST_FLOW_OK)
    self->acquired++;
  GST_OBJECT_UNLOCK (self);
  return ret;
}

static GstFlowReturn
stage_pool_src_fill (GstBaseSrc * bs, guint64 offset, guint size,
    GstBuffer * buf)
{
  GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  return GST_FLOW_OK;
}

static void
stage_pool_src_set_property (GObject * o, guint id, const GValue * v,
    GParamSpec * ps)
{
  StagePoolSrc *self = (StagePoolSrc *) o;

  GST_OBJECT_LOCK (self);
  if (id == POOL_PROP_POOL_SIZE)
    self->pool_size = g_value_get_uint (v);
  else if (id == POOL_PROP_BUFFER_SIZE)
    self->buffer_size = g_value_get_uint (v);
  GST_OBJECT_UNLOCK (self);
}

static void
stage_pool_src_get_property (GObject * o, guint id, GValue * v,
    GParamSpec * ps)
{
  StagePoolSrc *self = (StagePoolSrc *) o;

  GST_OBJECT_LOCK (self);
  switch (id) {
    case POOL_PROP_POOL_SIZE:
      g_value_set_uint (v, self->pool_size);
      break;
    case POOL_PROP_BUFFER_SIZE:
      g_value_set_uint (v, self->buffer_size);
      break;
    case POOL_PROP_ACQUIRED:
      g_value_set_uint64 (v, self->acquired);
      break;
    case POOL_PROP_WAIT:
      g_value_set_uint64 (v, self->wait_ns);
      break;
    case POOL_PROP_RUNNABLE:
      g_value_set_uint64 (v, self->runnable_ns);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
stage_pool_src_class_init (StagePoolSrcClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bc = GST_BASE_SRC_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  GstCaps *caps;

  oc->set_property = stage_pool_src_set_property;
  oc->get_property = stage_pool_src_get_property;
  g_object_class_install_property (oc, POOL_PROP_POOL_SIZE,
      g_param_spec_uint ("pool-size", "Pool size", "Buffers in its pool "
          "(min = max)", 1, 1024, 4, rw));
  g_object_class_install_property (oc, POOL_PROP_BUFFER_SIZE,
      g_param_spec_uint ("buffer-size", "Buffer size", "Bytes a buffer", 1,
          G_MAXINT, 4096, rw));
  g_object_class_install_property (oc, POOL_PROP_ACQUIRED,
      g_param_spec_uint64 ("acquired", "Acquired", "Buffers acquired", 0,
          G_MAXUINT64, 0, ro));
  g_object_class_install_property (oc, POOL_PROP_WAIT,
      g_param_spec_uint64 ("wait-ns", "Wait", "Time inside "
          "gst_buffer_pool_acquire_buffer (ns)", 0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (oc, POOL_PROP_RUNNABLE,
      g_param_spec_uint64 ("wait-runnable-ns", "Runnable", "Of wait-ns, "
          "the time this thread was ready to run without a CPU (ns)", 0,
          G_MAXUINT64, 0, ro));
  caps = gst_caps_new_empty_simple ("application/x-stage-pool-truth");
  gst_element_class_add_pad_template (ec,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (ec, "Ground truth pool source",
      "Source", "Buffers from a pool of known size (test only)",
      "gst-stages");
  bc->decide_allocation = stage_pool_src_decide_allocation;
  bc->alloc = stage_pool_src_alloc;
  bc->fill = stage_pool_src_fill;
}

static void
stage_pool_src_init (StagePoolSrc * self)
{
  self->pool_size = 4;
  self->buffer_size = 4096;
}

static G_GNUC_UNUSED void
truth_pool_register (void)
{
  gst_element_register (NULL, "stagepoolsrc", GST_RANK_NONE,
      stage_pool_src_get_type ());
}

#endif /* __TRUTH_POOL_H__ */
