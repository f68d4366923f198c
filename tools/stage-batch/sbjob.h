/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbjob: stage-batch's jobs and the records they leave behind (done
 * markers, per-job profile records, the merged profile). */
#ifndef __SBJOB_H__
#define __SBJOB_H__

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  SB_JOB_PENDING,
  SB_JOB_RUNNING,
  SB_JOB_OK,
  SB_JOB_FAILED,
  SB_JOB_CRASHED,
  SB_JOB_TIMEOUT,
  SB_JOB_SKIPPED,               /* --resume: completed by an earlier run */
} SbJobState;

typedef struct
{
  guint index;                  /* manifest row, 0-based: the job number */
  gchar *label;
  gchar *where;                 /* file:line */
  JsonObject *row;              /* column -> value */
  gchar *pipeline;
  GPtrArray *outputs;           /* paths the pipeline writes */
  guint64 weight;               /* bytes of its input files */

  SbJobState state;
  guint attempts;
  gchar *log_path;
  gchar *prof_dir;              /* --profile DIR/job-N, or NULL */

  /* The current attempt. */
  GSubprocess *proc;
  GDataInputStream *out;
  guint pending;                /* exit + end of stdout */
  guint timeout_id;
  gboolean timed_out;
  gint64 start_mono, end_mono;
  gint64 start_wall_us, ts0_wall_us;
  guint64 frames;
  gdouble position_s, duration_s;
  gdouble cpu_s;
  gboolean eos;
  gchar *child_status;
  gchar *error;
  gchar *verdict;
} SbJob;

SbJob *sb_job_new (guint index);
void sb_job_free (SbJob * j);
const gchar *sb_job_state_name (SbJobState s);
gdouble sb_job_wall_s (const SbJob * j);

/* Resets what one attempt measured. */
void sb_job_reset_attempt (SbJob * j);

/* The done marker: written (atomically) only after the job reached EOS and
 * its outputs were renamed into place. */
gchar *sb_job_marker_path (const gchar * state_dir, guint index);
gboolean sb_job_write_marker (const SbJob * j, const gchar * state_dir,
    GError ** error);
/* TRUE when an earlier run completed this very pipeline and its outputs are
 * all still there. */
gboolean sb_job_is_done (const SbJob * j, const gchar * state_dir);

/* DIR/job-N/job.json: what the merge needs to place and name the job. */
JsonObject *sb_job_to_json (const SbJob * j);
/* @jobs_total: the rows of the manifest (every shard's), so that a merge
 * can name the jobs whose profile is missing. */
gboolean sb_job_write_record (const SbJob * j, guint jobs_total,
    GError ** error);

/* Merges the job records under `dir` (only jobs in `only`, a set of job
 * numbers, when not NULL) into `trace_path` and `summary_path`. Fails,
 * writing nothing, when a job of the batch has no record or a finished
 * job's trace or summary is missing (named in the error). */
gboolean sb_profile_merge (const gchar * dir, GHashTable * only,
    const gchar * trace_path, const gchar * summary_path, guint * n_jobs,
    GError ** error);

/* GST_TRACERS for a job under --profile: stageprof into its directory,
 * after any tracers already set. */
gchar *sb_job_tracers_env (const SbJob * j);
/* The bottleneck verdict from the job's stageprof summary, if any. */
void sb_job_read_verdict (SbJob * j);
/* The final table on stdout, by job number (sorts `jobs`). */
void sb_jobs_print_table (GPtrArray * jobs);

gboolean sb_write_json (JsonNode * node, const gchar * path, GError ** error);

G_END_DECLS

#endif /* __SBJOB_H__ */
