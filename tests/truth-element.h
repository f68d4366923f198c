/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ground-truth element of the stageprof suites (test-only, never
 * installed): an in-place pass-through that costs a known amount per buffer
 * and measures what it cost, so a test compares stageprof's figures with
 * the element's own measurement of the same run, never with a fixed time.
 *
 *   stagetruth mode=burn us=N    spins until N µs of this thread's CPU time
 *                                are used (work)
 *   stagetruth mode=sleep us=N   g_usleep (N) (blocked, not work)
 *   stagetruth mode=clock us=N   waits N µs on the pipeline clock (blocked)
 *
 * Read-only properties: count, wall-ns and cpu-ns (the buffers handled and
 * the wall and thread CPU time spent inside transform_ip).
 *
 * Register with truth_element_register () after gst_check_init ().
 */
#ifndef __TRUTH_ELEMENT_H__
#define __TRUTH_ELEMENT_H__

#include <time.h>
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

typedef enum
{
  TRUTH_BURN,
  TRUTH_SLEEP,
  TRUTH_CLOCK,
} TruthMode;

typedef struct
{
  GstBaseTransform parent;
  TruthMode mode;
  guint us;
  guint64 count, wall_ns, cpu_ns;
} StageTruth;

typedef struct
{
  GstBaseTransformClass parent_class;
} StageTruthClass;

enum
{
  TRUTH_PROP_0,
  TRUTH_PROP_MODE,
  TRUTH_PROP_US,
  TRUTH_PROP_COUNT,
  TRUTH_PROP_WALL,
  TRUTH_PROP_CPU,
};

static GType stage_truth_get_type (void);
G_DEFINE_TYPE (StageTruth, stage_truth, GST_TYPE_BASE_TRANSFORM);

static GType
truth_mode_get_type (void)
{
  static GType t = 0;
  static const GEnumValue values[] = {
    {TRUTH_BURN, "Burn thread CPU", "burn"},
    {TRUTH_SLEEP, "Sleep", "sleep"},
    {TRUTH_CLOCK, "Wait on the pipeline clock", "clock"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&t))
    g_once_init_leave (&t, g_enum_register_static ("StageTruthMode", values));
  return t;
}

static guint64
truth_cpu_ns (void)
{
  struct timespec t;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (guint64) t.tv_sec * GST_SECOND + t.tv_nsec;
}

static void
truth_clock_wait (StageTruth * self, guint us)
{
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  GstClockID id;

  if (!clock) {
    g_usleep (us);
    return;
  }
  id = gst_clock_new_single_shot_id (clock,
      gst_clock_get_time (clock) + us * GST_USECOND);
  gst_clock_id_wait (id, NULL);
  gst_clock_id_unref (id);
  gst_object_unref (clock);
}

static GstFlowReturn
stage_truth_transform_ip (GstBaseTransform * bt, GstBuffer * buf)
{
  StageTruth *self = (StageTruth *) bt;
  guint64 w0 = g_get_monotonic_time (), c0 = truth_cpu_ns (), c1;
  guint us;
  TruthMode mode;

  GST_OBJECT_LOCK (self);
  us = self->us;
  mode = self->mode;
  GST_OBJECT_UNLOCK (self);
  if (mode == TRUTH_BURN) {
    volatile guint64 sink = 0;
    do {
      guint i;
      for (i = 0; i < 200; i++)
        sink += i;
      c1 = truth_cpu_ns ();
    } while (c1 - c0 < us * GST_USECOND);
    (void) sink;                /* read once: gcc 14 warns of a store-only variable */
  } else if (mode == TRUTH_SLEEP) {
    g_usleep (us);
    c1 = truth_cpu_ns ();
  } else {
    truth_clock_wait (self, us);
    c1 = truth_cpu_ns ();
  }
  GST_OBJECT_LOCK (self);
  self->count++;
  self->cpu_ns += c1 - c0;
  self->wall_ns += (g_get_monotonic_time () - w0) * 1000;
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;
}

static void
stage_truth_set_property (GObject * o, guint id, const GValue * v,
    GParamSpec * ps)
{
  StageTruth *self = (StageTruth *) o;

  GST_OBJECT_LOCK (self);
  if (id == TRUTH_PROP_MODE)
    self->mode = g_value_get_enum (v);
  else if (id == TRUTH_PROP_US)
    self->us = g_value_get_uint (v);
  GST_OBJECT_UNLOCK (self);
}

static void
stage_truth_get_property (GObject * o, guint id, GValue * v, GParamSpec * ps)
{
  StageTruth *self = (StageTruth *) o;

  GST_OBJECT_LOCK (self);
  switch (id) {
    case TRUTH_PROP_MODE:
      g_value_set_enum (v, self->mode);
      break;
    case TRUTH_PROP_US:
      g_value_set_uint (v, self->us);
      break;
    case TRUTH_PROP_COUNT:
      g_value_set_uint64 (v, self->count);
      break;
    case TRUTH_PROP_WALL:
      g_value_set_uint64 (v, self->wall_ns);
      break;
    case TRUTH_PROP_CPU:
      g_value_set_uint64 (v, self->cpu_ns);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
stage_truth_class_init (StageTruthClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  oc->set_property = stage_truth_set_property;
  oc->get_property = stage_truth_get_property;
  g_object_class_install_property (oc, TRUTH_PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "What a buffer costs",
          truth_mode_get_type (), TRUTH_BURN, rw));
  g_object_class_install_property (oc, TRUTH_PROP_US,
      g_param_spec_uint ("us", "Microseconds", "Cost per buffer", 0,
          G_MAXUINT, 0, rw));
  g_object_class_install_property (oc, TRUTH_PROP_COUNT,
      g_param_spec_uint64 ("count", "Count", "Buffers handled", 0,
          G_MAXUINT64, 0, ro));
  g_object_class_install_property (oc, TRUTH_PROP_WALL,
      g_param_spec_uint64 ("wall-ns", "Wall", "Wall time spent (ns)", 0,
          G_MAXUINT64, 0, ro));
  g_object_class_install_property (oc, TRUTH_PROP_CPU,
      g_param_spec_uint64 ("cpu-ns", "CPU", "Thread CPU time spent (ns)", 0,
          G_MAXUINT64, 0, ro));
  gst_element_class_add_pad_template (ec,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
          GST_CAPS_ANY));
  gst_element_class_add_pad_template (ec,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          GST_CAPS_ANY));
  gst_element_class_set_static_metadata (ec, "Ground truth", "Filter",
      "Costs a known time per buffer (test only)", "gst-stages");
  GST_BASE_TRANSFORM_CLASS (klass)->transform_ip = stage_truth_transform_ip;
}

static void
stage_truth_init (StageTruth * self)
{
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}

static G_GNUC_UNUSED void
truth_element_register (void)
{
  gst_element_register (NULL, "stagetruth", GST_RANK_NONE,
      stage_truth_get_type ());
}

#endif /* __TRUTH_ELEMENT_H__ */
