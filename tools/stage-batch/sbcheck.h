/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbcheck: stage-batch's checks and estimates before a batch runs. */
#ifndef __SBCHECK_H__
#define __SBCHECK_H__

#include <gst/gst.h>

#include "sbmanifest.h"

G_BEGIN_DECLS

/* " (the value of column \"C\")" when `msg` quotes row `row`'s value of a
 * placeholder column C, else "". */
gchar *sb_blame_column (const SbTemplate * t, const SbManifest * m,
    guint row, const gchar * msg);

/* Whether files can be created in `path`, or in its nearest existing
 * ancestor where it does not exist yet; if not, *which is that directory. */
gboolean sb_dir_writable (const gchar * path, gchar ** which);

/* Streaming threads of a parsed pipeline (sources, queue-like elements). */
guint sb_pipeline_threads (GstElement * pipeline);

/* The first always source pad that nothing is linked to, said for a
 * user, or NULL: such a job cannot run. */
gchar *sb_pipeline_unlinked_problem (GstElement * pipeline);

/* What is wrong with the inputs a parsed pipeline reads, or NULL: a
 * source's location= or file: uri= that does not exist or cannot be read,
 * a stagesrc's store or stream that does not exist. */
gchar *sb_pipeline_input_problem (GstElement * pipeline);
/* The first element of `pipeline` (or inside its bins) made by `factory`,
 * with a reference, or NULL; *count (if given) how many there are. */
GstElement *sb_find_element (GstElement * pipeline, const gchar * factory,
    guint * count);

/* Bytes of the existing files that row `row` names in the template's
 * placeholders: the job's length, for longest-first. */
guint64 sb_input_weight (const SbTemplate * t, const SbManifest * m,
    guint row);

/* "gst-launch-1.0 -e ..." for a description, quoted for a POSIX shell. */
gchar *sb_shell_line (const gchar * description);

/* The shard to run: --shard I/N, or --shard N with the index from the
 * scheduler, or the scheduler's variables alone (JOB_COMPLETION_INDEX with
 * STAGE_BATCH_SHARDS; SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of
 * SLURM_ARRAY_TASK_COUNT); 0 of 1 when none. */
gboolean sb_parse_shard (const gchar * opt, guint * index, guint * count,
    GError ** error);

/* CPUs this process may use: the online ones, fewer under a CPU affinity
 * (taskset, cpusets) or a cgroup CPU quota (cpu.max: a container's or a
 * Kubernetes pod's CPU limit, a Slurm job's); *why says which limit
 * applied. STAGE_BATCH_CGROUP_ROOT replaces /sys/fs/cgroup (tests). */
guint sb_usable_cpus (gchar ** why);

/* This program's own path, to start the jobs' runners. */
gchar *sb_find_self (const gchar * argv0);
/* MANIFEST.batch beside the manifest (without its extension), or
 * ./stage-batch.batch with --input (manifest NULL). */
gchar *sb_default_state_dir (const gchar * manifest);

G_END_DECLS

#endif /* __SBCHECK_H__ */
