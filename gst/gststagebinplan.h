/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stagebin planning — device groups and resource estimates.
 *
 * Plain C (GLib types only, no GObject) so the unit tests can check the
 * decisions without building a pipeline.
 */
#ifndef __GST_STAGE_BIN_PLAN_H__
#define __GST_STAGE_BIN_PLAN_H__

#include <glib.h>

G_BEGIN_DECLS

/* Hard limits of the stagebin properties. */
#define GST_STAGE_PLAN_MAX_REPLICAS 256
#define GST_STAGE_PLAN_MAX_PACKET 4096
#define GST_STAGE_PLAN_MAX_QUEUE 1024

/* Estimated work packet: frames of this many pixels or more go one by one. */
#define GST_STAGE_PLAN_PACKET_PIXELS (1280 * 720)
#define GST_STAGE_PLAN_MAX_AUTO_PACKET 8
#define GST_STAGE_PLAN_MAX_AUTO_QUEUE 4
/* Share of physical memory the queued frames may use (Scanner's
 * max_memory_util), and the allowance for the copies each op makes
 * (Scanner's overhead_factor). */
#define GST_STAGE_PLAN_MEMORY_SHARE 0.5
#define GST_STAGE_PLAN_OVERHEAD 4

/**
 * gst_stage_plan_groups:
 * @devices: per op, in chain order: "cpu", "cuda", ... or NULL for an op
 *   that works on any memory (capsfilter, identity, queue)
 * @n_ops: number of ops
 * @group_of_op: (out caller-allocates): @n_ops entries, the group of each op
 * @group_devices: (out caller-allocates): up to @n_ops entries, the device
 *   of each group (pointers into @devices, or "cpu")
 *
 * Splits a linear chain into device groups: consecutive ops on the same
 * device form one group; a device-neutral op joins the group before it
 * (or the first group, when it leads the chain).
 *
 * Returns: the number of groups (at least 1 when @n_ops > 0).
 */
guint gst_stage_plan_groups (const gchar * const *devices, guint n_ops,
    guint * group_of_op, const gchar ** group_devices);

/* Device of an op that takes both system and CUDA memory (stageresize
 * built with CUDA): where it runs depends on what it will negotiate. */
#define GST_STAGE_PLAN_FLEXIBLE "flexible"

/**
 * gst_stage_plan_resolve_flexible:
 * @devices: per op, as for gst_stage_plan_groups(), with
 *   %GST_STAGE_PLAN_FLEXIBLE for ops that run on CPU or CUDA memory alike;
 *   resolved in place
 * @entry: device of the memory the chain's input offers ("cuda" when
 *   upstream offers only CUDA memory, "cpu" when only system memory), or
 *   NULL when unknown; @exit: the same for what downstream accepts
 * @have_gpu: whether a GPU is present
 *
 * A flexible op runs where its memory comes from: on the device of the
 * nearest op before it that has one, else of the nearest after it, else of
 * the chain's input, then output, else on the CPU. Without a GPU it always
 * runs on the CPU: nothing could give it CUDA memory.
 */
void gst_stage_plan_resolve_flexible (const gchar ** devices, guint n_ops,
    const gchar * entry, const gchar * exit, gboolean have_gpu);

typedef struct
{
  guint replicas;
  guint packet_size;
  guint queue_size;
} GstStagePlanEstimate;

/* @n_gpus: GPUs usable by a chain with GPU ops; 0 for a CPU-only chain
 * (or when no GPU is found), then the replicas follow the cores. */
guint gst_stage_plan_estimate_replicas (guint requested, guint n_cpus,
    guint n_gpus);

guint gst_stage_plan_estimate_packet (guint requested, guint width,
    guint height);

guint gst_stage_plan_estimate_queue (guint requested, guint replicas,
    guint packet_size, guint64 frame_bytes, guint64 memory_bytes);

gchar *gst_stage_plan_thread_name (const gchar * stage_name, guint replica,
    guint group);

gchar *gst_stage_plan_kernel_thread_name (const gchar * full_name);

G_END_DECLS

#endif /* __GST_STAGE_BIN_PLAN_H__ */
