/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbrun: one stage-batch job inside its child process (the hidden
 * --run-one mode), and what the launcher needs to know about a pipeline. */
#ifndef __SBRUN_H__
#define __SBRUN_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The files a pipeline writes: every sink element with a string `location`
 * property holding a plain path (no printf pattern). Strings, newly
 * allocated; the element of each in `sinks` when not NULL. */
GPtrArray *sb_pipeline_outputs (GstElement * pipeline, GPtrArray * sinks);

/* The hidden temporary name an output is written under until the job
 * reached EOS: DIR/.NAME.sb-part */
gchar *sb_partial_name (const gchar * location);

/* Runs `description` to EOS and reports on stdout as JSON lines:
 *   {"event":"start","pid":P,"ts0_wall_us":W}
 * (W: the wall clock read by main() before gst_init, which is where the
 * tracers' ts 0 is taken, within a fraction of a millisecond)
 *   {"event":"progress","frames":N,"position_s":X,"duration_s":Y}
 *   {"event":"done","status":"ok"|"failed"|"interrupted","frames":N,
 *    "wall_s":X,"cpu_s":Y,"outputs":[...],"error":"..."}
 * Messages and the pipeline's errors go to stderr (the job's log).
 * Returns the process exit status: 0 ok, 1 failed. */
int sb_run_one (const gchar * description, gint parent_pid,
    gint64 ts0_wall_us);

G_END_DECLS

#endif /* __SBRUN_H__ */
