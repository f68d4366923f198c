/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stagebin planning — device groups and resource estimates.
 *
 * Kept free of GStreamer so tests/test_stagebin.c can link this file
 * directly and check every decision stagebin makes before it builds.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gststagebinplan.h"

guint
gst_stage_plan_groups (const gchar * const *devices, guint n_ops,
    guint * group_of_op, const gchar ** group_devices)
{
  const gchar *first = NULL;
  guint i, n_groups = 0;

  if (n_ops == 0)
    return 0;

  /* Leading device-neutral ops take the device of the first op that has
   * one, so a capsfilter in front of a CUDA op does not cost a stage. */
  for (i = 0; i < n_ops && first == NULL; i++)
    first = devices[i];
  group_devices[0] = first ? first : "cpu";
  n_groups = 1;

  for (i = 0; i < n_ops; i++) {
    const gchar *dev = devices[i];

    if (dev != NULL && strcmp (dev, group_devices[n_groups - 1]) != 0)
      group_devices[n_groups++] = dev;
    group_of_op[i] = n_groups - 1;
  }
  return n_groups;
}

static gboolean
is_flexible (const gchar * dev)
{
  return dev != NULL && strcmp (dev, GST_STAGE_PLAN_FLEXIBLE) == 0;
}

/* The device of the nearest op from @i in steps of @step that has a fixed
 * one (device-neutral and flexible ops are looked through). */
static const gchar *
nearest_device (const gchar ** devices, guint n_ops, gint i, gint step)
{
  for (i += step; i >= 0 && i < (gint) n_ops; i += step)
    if (devices[i] != NULL && !is_flexible (devices[i]))
      return devices[i];
  return NULL;
}

void
gst_stage_plan_resolve_flexible (const gchar ** devices, guint n_ops,
    const gchar * entry, const gchar * exit, gboolean have_gpu)
{
  guint i;

  for (i = 0; i < n_ops; i++) {
    const gchar *dev;

    if (!is_flexible (devices[i]))
      continue;
    dev = have_gpu ? nearest_device (devices, n_ops, i, -1) : "cpu";
    if (dev == NULL)
      dev = nearest_device (devices, n_ops, i, 1);
    if (dev == NULL)
      dev = entry ? entry : exit;
    devices[i] = dev ? dev : "cpu";
  }
}

guint
gst_stage_plan_estimate_replicas (guint requested, guint n_cpus,
    guint n_gpus)
{
  if (requested > 0)
    return requested;
  /* Scanner: one pipeline instance per GPU when the graph has GPU ops, per
   * core otherwise. */
  if (n_gpus > 0)
    return MIN (n_gpus, GST_STAGE_PLAN_MAX_REPLICAS);
  return CLAMP (n_cpus, 1, GST_STAGE_PLAN_MAX_REPLICAS);
}

guint
gst_stage_plan_estimate_packet (guint requested, guint width, guint height)
{
  guint64 pixels = (guint64) width * height;

  if (requested > 0)
    return requested;
  /* Unknown size (not raw video): one frame per packet never hurts order
   * or memory, only dispatch overhead. */
  if (pixels == 0)
    return 1;
  /* Small frames are cheap to process, so batch them until a packet is
   * about one 720p frame of work, which amortises the hand-off. */
  return (guint) CLAMP (GST_STAGE_PLAN_PACKET_PIXELS / pixels, 1,
      GST_STAGE_PLAN_MAX_AUTO_PACKET);
}

guint
gst_stage_plan_estimate_queue (guint requested, guint replicas,
    guint packet_size, guint64 frame_bytes, guint64 memory_bytes)
{
  gdouble budget, per_packet;
  guint64 q;

  if (requested > 0)
    return requested;
  if (frame_bytes == 0 || memory_bytes == 0)
    return GST_STAGE_PLAN_MAX_AUTO_QUEUE;

  /* Scanner's formula with its units fixed (bytes everywhere) and with the
   * instance count it computes actually used: replicas x queue x packet x
   * frame x overhead must fit in the memory share. */
  budget = (gdouble) memory_bytes * GST_STAGE_PLAN_MEMORY_SHARE;
  per_packet = (gdouble) MAX (replicas, 1) * MAX (packet_size, 1) *
      (gdouble) frame_bytes * GST_STAGE_PLAN_OVERHEAD;
  q = (guint64) (budget / per_packet);
  return (guint) CLAMP (q, 1, GST_STAGE_PLAN_MAX_AUTO_QUEUE);
}

gchar *
gst_stage_plan_thread_name (const gchar * stage_name, guint replica,
    guint group)
{
  return g_strdup_printf ("%s[%u]:Ops[%u]",
      stage_name && *stage_name ? stage_name : "Pipeline", replica, group);
}

gchar *
gst_stage_plan_kernel_thread_name (const gchar * full_name)
{
  /* Linux keeps 15 bytes of a thread name. Plain truncation would cut off
   * the replica and group numbers, the only part that tells threads apart,
   * so shorten the stage prefix instead and keep the "[i]:Ops[y]" tail. */
  const gsize max_len = 15;
  gsize len = strlen (full_name);
  const gchar *tail;
  gsize tail_len;

  if (len <= max_len)
    return g_strdup (full_name);
  tail = strchr (full_name, '[');
  if (tail == NULL || (tail_len = strlen (tail)) >= max_len)
    return g_strndup (full_name, max_len);
  return g_strdup_printf ("%.*s%s", (int) (max_len - tail_len), full_name,
      tail);
}
