/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stage-batch: one gst-launch pipeline template over a batch of streams.
 *
 * Reads a manifest (CSV/TSV, one job per row), checks everything before it
 * runs anything (placeholders, rows, every row's pipeline parses, outputs
 * writable), then runs each job as a child process (`stage-batch --run-one`,
 * see sbrun.c), up to --jobs at a time, longest input first, with retries,
 * timeouts, resume markers, sharding for Kubernetes Indexed Jobs and Slurm
 * arrays, live progress and per-job stageprof profiles merged into one.
 * GStreamer's tools/gst-launch.c is the model for the shape.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <glib/gstdio.h>
#include <glib-unix.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbcheck.h"
#include "spfile.h"
#include "sbjob.h"
#include "sbmanifest.h"
#include "sbrun.h"
#include "sbsplit.h"
#include "spmerge.h"
#include "spjson.h"

#define EXIT_SOME_FAILED 1
#define EXIT_USAGE 2

typedef enum
{
  PROGRESS_AUTO,
  PROGRESS_BAR,
  PROGRESS_JSONL,
  PROGRESS_NONE,
} ProgressMode;

typedef struct
{
  /* Options. */
  gchar *jobs_opt;
  gint retries;
  gdouble timeout_s;
  gboolean resume;
  gboolean dry_run;
  gchar *shard_opt;
  gchar *progress_opt;
  gchar *profile_dir;
  gchar *state_dir;
  gchar **inputs;
  gint split;
  GPtrArray *splits;            /* SbSplit, with --split */

  SbManifest *m;
  SbTemplate *t;
  GPtrArray *jobs;              /* this shard's jobs, in run order */
  guint shard_i, shard_n;
  gchar *self_exe;
  ProgressMode progress;
  gboolean tty;

  guint max_jobs;
  guint cpus;                   /* usable: affinity, cgroup quota */
  gchar *cpus_why;
  gchar *parallel_why;
  guint threads_guess;          /* streaming threads of a job */
  gboolean auto_jobs;
  gdouble util_sum;
  guint util_n;
  GHashTable *dirs_ok;           /* output directories found writable */

  guint next;
  guint running;
  guint n_ok, n_failed, n_skipped;
  guint64 frames_done;
  GQueue retry;                 /* jobs to run again, before `next` */
  GMainLoop *loop;
  gint64 t0_mono;
  gboolean interrupted;
  guint bar_width;
} Batch;

static Batch B;
static gchar *merge_dir;

static void start_more (void);

/* ---- options ------------------------------------------------------------- */

static GOptionEntry entries[] = {
  {"jobs", 'j', 0, G_OPTION_ARG_STRING, &B.jobs_opt,
      "Jobs run at once: a number, or auto (default: the cores divided by "
        "the cores a job keeps busy, measured as jobs finish)", "K|auto"},
  {"input", 'i', 0, G_OPTION_ARG_FILENAME_ARRAY, &B.inputs,
        "Instead of a manifest: one job per FILE, as the column {input} "
        "({stem}: its name without directory and extension); repeatable",
      "FILE"},
  {"retries", 'r', 0, G_OPTION_ARG_INT, &B.retries,
      "Run a job that failed, crashed or timed out up to N more times", "N"},
  {"timeout", 't', 0, G_OPTION_ARG_DOUBLE, &B.timeout_s,
      "Kill a job that runs longer than S seconds (default: no limit)", "S"},
  {"resume", 0, 0, G_OPTION_ARG_NONE, &B.resume,
      "Skip jobs an earlier run completed (same pipeline, outputs present)",
      NULL},
  {"dry-run", 'n', 0, G_OPTION_ARG_NONE, &B.dry_run,
      "Check everything, print each job's gst-launch-1.0 line, run nothing",
      NULL},
  {"shard", 0, 0, G_OPTION_ARG_STRING, &B.shard_opt,
        "Run only the rows whose index mod N is I (default: from "
        "JOB_COMPLETION_INDEX with STAGE_BATCH_SHARDS, or SLURM_ARRAY_TASK_ID "
        "with SLURM_ARRAY_TASK_COUNT); N alone takes I from those", "I/N"},
  {"progress", 0, 0, G_OPTION_ARG_STRING, &B.progress_opt,
        "bar (a live line on stderr), jsonl (one JSON object per line on "
        "stderr), none; default: bar on a terminal, else jsonl", "MODE"},
  {"profile", 'p', 0, G_OPTION_ARG_FILENAME, &B.profile_dir,
        "Profile each job with stageprof into DIR/job-N and merge them into "
        "DIR/trace.json (Chrome trace) and DIR/summary.json", "DIR"},
  {"state-dir", 0, 0, G_OPTION_ARG_FILENAME, &B.state_dir,
        "Where logs and done markers go (default: MANIFEST.batch beside the "
        "manifest, or ./stage-batch.batch with --input)", "DIR"},
  {"split", 0, 0, G_OPTION_ARG_INT, &B.split,
        "Cut each row's stored stream (its stagesrc) into up to N runs of "
        "frames at keyframes, one job each ({range}: the stagesrc's ranges=, "
        "{part}: the end of the stagesink's stream=), and join the parts "
        "into one stream when they are done", "N"},
  {"merge-profile", 0, 0, G_OPTION_ARG_FILENAME, &merge_dir,
        "Instead of running: merge every job profile under DIR (from any "
        "number of shards) into DIR/trace.json and DIR/summary.json", "DIR"},
  {NULL}
};

/* Hidden: the child side. */
static gchar *run_one_desc;
static gint parent_pid;

static GOptionEntry hidden_entries[] = {
  {"run-one", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &run_one_desc,
      "Run one pipeline description (used by stage-batch itself)", "DESC"},
  {"parent-pid", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &parent_pid,
      "", "PID"},
  {NULL}
};


static void
usage_error (const gchar * fmt, ...) G_GNUC_PRINTF (1, 2);

static void
usage_error (const gchar * fmt, ...)
{
  va_list ap;
  gchar *msg;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_printerr ("stage-batch: %s\n", msg);
  g_free (msg);
  exit (EXIT_USAGE);
}

static guint
parse_uint (const gchar * s, const gchar * what)
{
  guint64 v;

  if (!g_ascii_string_to_unsigned (s, 10, 0, G_MAXINT, &v, NULL))
    usage_error ("%s: \"%s\" is not a whole number", what, s);
  return (guint) v;
}

static void
parse_shard (void)
{
  GError *err = NULL;

  if (!sb_parse_shard (B.shard_opt, &B.shard_i, &B.shard_n, &err))
    usage_error ("%s", err->message);
}

static void
parse_progress (void)
{
  const gchar *p = B.progress_opt ? B.progress_opt : "auto";

  B.tty = isatty (STDERR_FILENO);
  if (strcmp (p, "auto") == 0)
    B.progress = B.tty ? PROGRESS_BAR : PROGRESS_JSONL;
  else if (strcmp (p, "bar") == 0)
    B.progress = PROGRESS_BAR;
  else if (strcmp (p, "jsonl") == 0)
    B.progress = PROGRESS_JSONL;
  else if (strcmp (p, "none") == 0)
    B.progress = PROGRESS_NONE;
  else
    usage_error ("--progress=%s: use bar, jsonl, none or auto", p);
}

/* ---- validation ---------------------------------------------------------- */

/* Parses the job's pipeline in this process: an unknown element, property
 * or value is found here, before anything runs. */
static void
check_job (SbJob * j, GHashTable * outputs, guint * threads)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch_full (j->pipeline, NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, &err);
  gchar *problem;
  guint i;

  if (!p) {
    gchar *col = sb_blame_column (B.t, B.m, j->index,
        err ? err->message : "");
    usage_error ("%s: job %u's pipeline does not parse: %s%s\n  pipeline: %s",
        j->where, j->index, err ? err->message : "unknown error", col,
        j->pipeline);
  }
  if ((problem = sb_pipeline_unlinked_problem (p)))
    usage_error ("%s: job %u: %s\n  pipeline: %s", j->where, j->index,
        problem, j->pipeline);
  if ((problem = sb_pipeline_input_problem (p))) {
    gchar *col = sb_blame_column (B.t, B.m, j->index, problem);

    usage_error ("%s: job %u: %s%s\n  pipeline: %s", j->where, j->index,
        problem, col, j->pipeline);
  }
  j->outputs = sb_pipeline_outputs (p, NULL);
  for (i = 0; i < j->outputs->len; i++) {
    const gchar *o = j->outputs->pdata[i];
    gchar *dir = g_path_get_dirname (o), *bad = NULL;
    gpointer other;
    gboolean in_place;

    if (!sp_file_output_in_place (o, "the output", &in_place, &err))
      usage_error ("%s: job %u: %s", j->where, j->index, err->message);
    /* a device or a FIFO is written in place: its directory may be /dev */
    if (!in_place && !g_hash_table_contains (B.dirs_ok, dir)
        && !sb_dir_writable (dir, &bad))
      usage_error ("%s: job %u writes \"%s\", but \"%s\" is not a writable "
          "directory", j->where, j->index, o, bad);
    if (g_hash_table_lookup_extended (outputs, o, NULL, &other))
      usage_error ("%s: job %u writes \"%s\", as job %u does: give each job "
          "its own output (e.g. with {stem} or {job})", j->where, j->index, o,
          GPOINTER_TO_UINT (other));
    g_hash_table_insert (outputs, g_strdup (o), GUINT_TO_POINTER (j->index));
    g_hash_table_add (B.dirs_ok, dir);
  }
  if (threads && GST_IS_BIN (p))
    *threads = sb_pipeline_threads (p);
  gst_object_unref (p);
}

static void
make_jobs (void)
{
  GHashTable *outputs = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, NULL);
  guint r, c, threads = 1;
  gboolean first = TRUE;

  B.jobs = g_ptr_array_new_with_free_func ((GDestroyNotify) sb_job_free);
  B.dirs_ok = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (r = 0; r < B.m->rows->len; r++) {
    SbJob *j;
    gchar *name;

    if (r % B.shard_n != B.shard_i)
      continue;
    j = sb_job_new (r);
    j->label = sb_manifest_label (B.m, r);
    j->where = sb_manifest_where (B.m, r);
    for (c = 0; c < B.m->n_columns; c++)
      json_object_set_string_member (j->row, B.m->columns[c],
          ((gchar **) B.m->rows->pdata[r])[c]);
    j->pipeline = sb_template_expand (B.t, B.m, r);
    j->weight = sb_input_weight (B.t, B.m, r);
    check_job (j, outputs, first ? &threads : NULL);
    first = FALSE;
    name = g_strdup_printf ("job-%u.log", r);
    j->log_path = g_build_filename (B.state_dir, "logs", name, NULL);
    g_free (name);
    if (B.profile_dir) {
      name = g_strdup_printf ("job-%u", r);
      j->prof_dir = g_build_filename (B.profile_dir, name, NULL);
      g_free (name);
    }
    g_ptr_array_add (B.jobs, j);
  }
  g_hash_table_destroy (outputs);

  B.cpus = sb_usable_cpus (&B.cpus_why);
  if (B.auto_jobs)
    B.max_jobs = MAX (1, B.cpus / threads);
  B.threads_guess = threads;
}

static gint
longest_first (gconstpointer a, gconstpointer b)
{
  const SbJob *x = *(SbJob **) a, *y = *(SbJob **) b;

  if (x->weight != y->weight)
    return x->weight > y->weight ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static void
make_dirs (void)
{
  gchar *d;
  guint i;

  for (i = 0; i < B.jobs->len; i++) {
    SbJob *j = B.jobs->pdata[i];
    guint k;
    for (k = 0; k < j->outputs->len; k++) {
      d = g_path_get_dirname (j->outputs->pdata[k]);
      if (g_mkdir_with_parents (d, 0755) != 0)
        usage_error ("cannot create the output directory \"%s\": %s", d,
            g_strerror (errno));
      g_free (d);
    }
    if (j->prof_dir && g_mkdir_with_parents (j->prof_dir, 0755) != 0)
      usage_error ("cannot create the profile directory \"%s\": %s",
          j->prof_dir, g_strerror (errno));
  }
  d = g_build_filename (B.state_dir, "logs", NULL);
  if (g_mkdir_with_parents (d, 0755) != 0)
    usage_error ("cannot create \"%s\": %s", d, g_strerror (errno));
  g_free (d);
  d = g_build_filename (B.state_dir, "done", NULL);
  if (g_mkdir_with_parents (d, 0755) != 0)
    usage_error ("cannot create \"%s\": %s", d, g_strerror (errno));
  g_free (d);
}

/* ---- progress ------------------------------------------------------------ */

static void
jsonl (JsonObject * o)
{
  JsonNode *n = json_node_init_object (json_node_alloc (), o);
  gchar *s = sp_json_to_string (n, 6, FALSE);

  g_printerr ("%s\n", s);
  g_free (s);
  json_node_unref (n);
  json_object_unref (o);
}

static JsonObject *
event_new (const gchar * name)
{
  JsonObject *o = json_object_new ();

  json_object_set_string_member (o, "event", name);
  json_object_set_double_member (o, "t_s",
      (g_get_monotonic_time () - B.t0_mono) / 1e6);
  return o;
}

static guint wanted_jobs (void);

/* A job's wall time as a + b * weight, fitted (least squares) to the jobs
 * that finished: a job has a fixed cost (start, negotiation, the muxer's
 * end) beside the part that grows with its input, and with the longest
 * jobs first the small ones left at the end are mostly that fixed cost (a
 * share-of-bytes ETA was 2x optimistic there). FALSE before any job
 * finished. */
static gboolean
job_time_model (gdouble * a, gdouble * b)
{
  gdouble n = 0, sw = 0, st = 0, sww = 0, swt = 0, den;
  guint i;

  for (i = 0; i < B.jobs->len; i++) {
    SbJob *j = B.jobs->pdata[i];
    gdouble w = j->weight ? (gdouble) j->weight : 1.0, t;

    if (j->state != SB_JOB_OK)
      continue;
    t = sb_job_wall_s (j);
    n++;
    sw += w;
    st += t;
    sww += w * w;
    swt += w * t;
  }
  if (n == 0)
    return FALSE;
  den = n * sww - sw * sw;
  if (n < 2 || den <= 1e-9 * sww * n) {
    *a = 0;
    *b = st / sw;
  } else {
    *b = MAX (0.0, (n * swt - sw * st) / den);
    *a = MAX (0.0, (st - *b * sw) / n);
  }
  return TRUE;
}

/* Frames/s over the whole batch, and the ETA: the jobs not done, each
 * timed by job_time_model() (running ones by the part left), over the
 * jobs run at once; before any job finished, from the share of the input
 * (bytes, or jobs) done. */
static void
batch_rates (gdouble * fps, gdouble * eta_s, guint64 * frames)
{
  gdouble elapsed = (g_get_monotonic_time () - B.t0_mono) / 1e6;
  gdouble total = 0, done = 0, left_s = 0, a = 0, b = 0;
  gboolean model = job_time_model (&a, &b);
  guint64 f = B.frames_done;
  guint i;

  for (i = 0; i < B.jobs->len; i++) {
    SbJob *j = B.jobs->pdata[i];
    gdouble w = j->weight ? (gdouble) j->weight : 1.0, part = 0;
    if (j->state == SB_JOB_SKIPPED)
      continue;
    total += w;
    if (j->state == SB_JOB_RUNNING) {
      f += j->frames;
      if (j->duration_s > 0)
        part = MIN (1.0, j->position_s / j->duration_s);
      done += w * part;
      left_s += MAX (0.0, a + b * w - sb_job_wall_s (j));
    } else if (j->state == SB_JOB_PENDING) {
      left_s += a + b * w;
    } else {
      done += w;
    }
  }
  *frames = f;
  *fps = elapsed > 0 ? f / elapsed : 0;
  if (model)
    *eta_s = left_s / MAX (1u, MIN (wanted_jobs (), B.jobs->len));
  else
    *eta_s = done > 0 && total > done ? elapsed * (total - done) / done : -1;
}

static gboolean
on_progress_tick (gpointer data)
{
  gdouble fps, eta;
  guint64 frames;
  guint total = B.jobs->len - B.n_skipped;
  guint finished = B.n_ok + B.n_failed;

  batch_rates (&fps, &eta, &frames);
  if (B.progress == PROGRESS_JSONL) {
    JsonObject *o = event_new ("progress");
    json_object_set_int_member (o, "done", B.n_ok);
    json_object_set_int_member (o, "failed", B.n_failed);
    json_object_set_int_member (o, "running", B.running);
    json_object_set_int_member (o, "pending", total - finished - B.running);
    json_object_set_int_member (o, "frames", frames);
    json_object_set_double_member (o, "fps", fps);
    if (eta >= 0)
      json_object_set_double_member (o, "eta_s", eta);
    jsonl (o);
  } else if (B.progress == PROGRESS_BAR) {
    guint w = 24, fill = total ? finished * w / total : w, i;
    GString *bar = g_string_new ("\r[");
    for (i = 0; i < w; i++)
      g_string_append_c (bar, i < fill ? '#' : '.');
    g_string_append_printf (bar, "] %u/%u done, %u failed, %u running, "
        "%.1f fps", finished, total, B.n_failed, B.running, fps);
    if (eta >= 0)
      g_string_append_printf (bar, ", ETA %d:%02d", (gint) eta / 60,
          (gint) eta % 60);
    g_string_append (bar, "\033[K");
    g_printerr ("%s", bar->str);
    g_string_free (bar, TRUE);
  }
  return G_SOURCE_CONTINUE;
}

static gboolean on_progress_tick (gpointer data);

static void
report_job_end (SbJob * j)
{
  gdouble wall = sb_job_wall_s (j);

  if (B.progress == PROGRESS_JSONL) {
    JsonObject *o = sb_job_to_json (j);
    json_object_set_string_member (o, "event", "job-end");
    json_object_set_double_member (o, "t_s",
        (g_get_monotonic_time () - B.t0_mono) / 1e6);
    json_object_remove_member (o, "row");
    json_object_remove_member (o, "outputs");
    jsonl (o);
  } else if (B.progress == PROGRESS_BAR) {
    if (j->state != SB_JOB_OK)
      g_printerr ("\r\033[Kjob %u (%s): %s after %.1f s: %s\n", j->index,
          j->label, sb_job_state_name (j->state), wall,
          j->error ? j->error : "");
    on_progress_tick (NULL);
  }
}

/* ---- running ------------------------------------------------------------- */

static void job_finished (SbJob * j);

static void
on_child_line (GObject * src, GAsyncResult * res, gpointer data)
{
  SbJob *j = data;
  GDataInputStream *in = G_DATA_INPUT_STREAM (src);
  gchar *line = g_data_input_stream_read_line_finish (in, res, NULL, NULL);
  JsonParser *p;

  if (!line) {
    if (--j->pending == 0)
      job_finished (j);
    return;
  }
  p = json_parser_new ();
  if (json_parser_load_from_data (p, line, -1, NULL)
      && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p))) {
    JsonObject *o = json_node_get_object (json_parser_get_root (p));
    const gchar *ev = json_object_get_string_member_with_default (o, "event",
        "");
    if (json_object_has_member (o, "frames"))
      j->frames = json_object_get_int_member (o, "frames");
    if (strcmp (ev, "start") == 0) {
      j->ts0_wall_us = json_object_get_int_member_with_default (o,
          "ts0_wall_us", 0);
    } else if (strcmp (ev, "progress") == 0) {
      j->position_s = json_object_get_double_member_with_default (o,
          "position_s", 0);
      j->duration_s = json_object_get_double_member_with_default (o,
          "duration_s", 0);
    } else if (strcmp (ev, "done") == 0) {
      g_free (j->child_status);
      j->child_status = g_strdup (json_object_get_string_member_with_default
          (o, "status", "failed"));
      j->eos = json_object_get_boolean_member_with_default (o, "eos", FALSE);
      j->cpu_s = json_object_get_double_member_with_default (o, "cpu_s", 0);
      if (json_object_has_member (o, "error")) {
        g_free (j->error);
        j->error = g_strdup (json_object_get_string_member (o, "error"));
      }
    }
  }
  g_object_unref (p);
  g_free (line);
  g_data_input_stream_read_line_async (in, G_PRIORITY_DEFAULT, NULL,
      on_child_line, j);
}

static void
on_child_exit (GObject * src, GAsyncResult * res, gpointer data)
{
  SbJob *j = data;

  g_subprocess_wait_finish (G_SUBPROCESS (src), res, NULL);
  j->end_mono = g_get_monotonic_time ();
  if (j->timeout_id) {
    g_source_remove (j->timeout_id);
    j->timeout_id = 0;
  }
  if (--j->pending == 0)
    job_finished (j);
}

/* CPU seconds a running process has used so far (utime + stime of
 * /proc/PID/stat); 0 when it cannot be read. */
static gdouble
process_cpu_s (const gchar * pid)
{
  gchar *path = g_strdup_printf ("/proc/%s/stat", pid), *text = NULL;
  gdouble cpu = 0;

  if (pid && g_file_get_contents (path, &text, NULL, NULL)) {
    /* after the command name, which may hold spaces: ") state ppid ..." */
    const gchar *p = strrchr (text, ')');
    gchar **f = p ? g_strsplit (p + 2, " ", 0) : NULL;

    if (f && g_strv_length (f) > 12)
      cpu = (g_ascii_strtod (f[11], NULL) + g_ascii_strtod (f[12], NULL))
          / sysconf (_SC_CLK_TCK);
    g_strfreev (f);
  }
  g_free (text);
  g_free (path);
  return cpu;
}

static gboolean
on_job_timeout (gpointer data)
{
  SbJob *j = data;

  j->timeout_id = 0;
  j->timed_out = TRUE;
  /* the job reports its CPU time at its end; a killed one cannot */
  j->cpu_s = process_cpu_s (g_subprocess_get_identifier (j->proc));
  g_subprocess_force_exit (j->proc);
  return G_SOURCE_REMOVE;
}

static gboolean
open_log (SbJob * j, gint * fd)
{
  /* O_NOFOLLOW: a link planted at the log's path must not have us truncate
   * whatever it points at. A device or FIFO there is written in place. */
  gint flags = O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | (j->attempts == 1
      ? O_TRUNC : 0);
  GString *head = g_string_new (NULL);
  GDateTime *now = g_date_time_new_now_local ();
  gchar *ts = g_date_time_format_iso8601 (now);

  *fd = g_open (j->log_path, flags, 0644);
  if (*fd < 0) {
    j->error = g_strdup_printf ("cannot open the log \"%s\": %s", j->log_path,
        errno == ELOOP ? "it is a symbolic link" : g_strerror (errno));
    g_string_free (head, TRUE);
    g_free (ts);
    g_date_time_unref (now);
    return FALSE;
  }
  g_string_printf (head, "# stage-batch job %u (%s), attempt %u, %s\n"
      "# pipeline: %s\n", j->index, j->where, j->attempts, ts, j->pipeline);
  if (write (*fd, head->str, head->len) < 0) {
    /* The job can still run; its messages follow. */
  }
  g_string_free (head, TRUE);
  g_free (ts);
  g_date_time_unref (now);
  return TRUE;
}

/* In the job's process, before it runs anything: the terminal's Ctrl-C
 * (SIGINT to the whole process group) is the launcher's to handle, from
 * the first instant; the runner set SIG_IGN itself only once started, and
 * a job started a few ms before a Ctrl-C died of it. SIG_IGN survives
 * exec. */
static void
ignore_sigint (gpointer unused)
{
  signal (SIGINT, SIG_IGN);
}

static void
start_job (SbJob * j)
{
  GSubprocessLauncher *l;
  GError *err = NULL;
  gchar pid[32];
  gint fd;
  const gchar *argv[] = { B.self_exe, "--parent-pid", pid, "--run-one",
    j->pipeline, NULL
  };

  sb_job_reset_attempt (j);
  j->attempts++;
  j->state = SB_JOB_RUNNING;
  j->start_mono = g_get_monotonic_time ();
  j->end_mono = 0;
  j->start_wall_us = g_get_real_time ();
  B.running++;
  if (!open_log (j, &fd)) {
    j->pending = 1;
    job_finished (j);
    return;
  }
  g_snprintf (pid, sizeof (pid), "%d", (gint) getpid ());
  l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_child_setup (l, ignore_sigint, NULL, NULL);
  g_subprocess_launcher_take_stderr_fd (l, fd);
  if (j->prof_dir) {
    gchar *t = sb_job_tracers_env (j);
    g_subprocess_launcher_setenv (l, "GST_TRACERS", t, TRUE);
    g_free (t);
  }
  j->proc = g_subprocess_launcher_spawnv (l, argv, &err);
  g_object_unref (l);
  if (!j->proc) {
    j->error = g_strdup_printf ("cannot start the job: %s", err->message);
    g_error_free (err);
    j->pending = 1;
    job_finished (j);
    return;
  }
  j->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (j->proc));
  j->pending = 2;
  g_data_input_stream_read_line_async (j->out, G_PRIORITY_DEFAULT, NULL,
      on_child_line, j);
  g_subprocess_wait_async (j->proc, NULL, on_child_exit, j);
  if (B.timeout_s > 0)
    j->timeout_id = g_timeout_add ((guint) (B.timeout_s * 1000),
        on_job_timeout, j);
  if (B.progress == PROGRESS_JSONL) {
    JsonObject *o = event_new ("job-start");
    json_object_set_int_member (o, "job", j->index);
    json_object_set_string_member (o, "label", j->label);
    json_object_set_int_member (o, "attempt", j->attempts);
    json_object_set_string_member (o, "log", j->log_path);
    jsonl (o);
  }
}

static void
classify (SbJob * j)
{
  gint st;

  if (!j->proc) {
    j->state = SB_JOB_FAILED;
    return;
  }
  if (j->timed_out) {
    j->state = SB_JOB_TIMEOUT;
    g_free (j->error);
    j->error = g_strdup_printf ("killed after the --timeout of %g s",
        B.timeout_s);
  } else if (g_subprocess_get_if_signaled (j->proc)) {
    st = g_subprocess_get_term_sig (j->proc);
    j->state = SB_JOB_CRASHED;
    g_free (j->error);
    j->error = g_strdup_printf ("signal %d (%s)", st,
        g_strsignal (st));
  } else if (g_subprocess_get_exit_status (j->proc) == 0 && j->eos
      && g_strcmp0 (j->child_status, "ok") == 0) {
    j->state = SB_JOB_OK;
  } else {
    j->state = SB_JOB_FAILED;
    if (!j->error)
      j->error = g_strdup_printf ("exited with status %d without reaching "
          "EOS", g_subprocess_get_exit_status (j->proc));
  }
}

static void
job_finished (SbJob * j)
{
  GError *err = NULL;

  if (!j->end_mono)
    j->end_mono = g_get_monotonic_time ();
  B.running--;
  classify (j);
  sb_job_read_verdict (j);
  if (j->state == SB_JOB_OK && !sb_job_write_marker (j, B.state_dir, &err)) {
    j->state = SB_JOB_FAILED;
    j->error = g_strdup_printf ("cannot write its done marker: %s",
        err->message);
    g_clear_error (&err);
  }
  if (j->state == SB_JOB_OK && j->cpu_s > 0 && sb_job_wall_s (j) > 0) {
    B.util_sum += j->cpu_s / sb_job_wall_s (j);
    B.util_n++;
  }
  /* A job killed (timeout, crash) leaves its temporary outputs behind. */
  if (j->state != SB_JOB_OK) {
    guint k;
    for (k = 0; j->outputs && k < j->outputs->len; k++) {
      gchar *part = sb_partial_name (j->outputs->pdata[k]);
      g_unlink (part);
      g_free (part);
    }
  }
  if (!sb_job_write_record (j, B.m->rows->len, &err)) {
    g_printerr ("stage-batch: job %u: %s\n", j->index, err->message);
    g_clear_error (&err);
  }
  if (j->state != SB_JOB_OK && (gint) j->attempts <= B.retries
      && !B.interrupted) {
    if (B.progress == PROGRESS_JSONL) {
      JsonObject *o = event_new ("job-retry");
      json_object_set_int_member (o, "job", j->index);
      json_object_set_string_member (o, "status", sb_job_state_name
          (j->state));
      json_object_set_string_member (o, "error", j->error ? j->error : "");
      jsonl (o);
    }
    j->state = SB_JOB_PENDING;
    g_queue_push_tail (&B.retry, j);
  } else {
    if (j->state == SB_JOB_OK) {
      B.n_ok++;
      B.frames_done += j->frames;
    } else {
      B.n_failed++;
    }
    report_job_end (j);
  }
  start_more ();
}

/* --jobs auto: the cores over the cores a finished job kept busy (its CPU
 * time over its wall time), rounded up so short jobs' start-up gaps are
 * filled. */
static guint
wanted_jobs (void)
{
  guint cores = B.cpus;

  if (!B.auto_jobs || B.util_n == 0)
    return B.max_jobs;
  /* never more jobs than usable CPUs: while jobs compete for cores their
   * CPU/wall falls, which is no sign of room for more */
  return CLAMP ((guint) ceil (cores / MAX (B.util_sum / B.util_n, 0.25)), 1,
      cores);
}

static void
start_more (void)
{
  guint want = wanted_jobs ();

  while (!B.interrupted && B.running < want) {
    SbJob *j = g_queue_pop_head (&B.retry);
    if (!j) {
      while (B.next < B.jobs->len
          && ((SbJob *) B.jobs->pdata[B.next])->state != SB_JOB_PENDING)
        B.next++;
      if (B.next == B.jobs->len)
        break;
      j = B.jobs->pdata[B.next++];
    }
    start_job (j);
  }
  if (B.running == 0 && (B.interrupted || (B.next >= B.jobs->len
              && g_queue_is_empty (&B.retry))))
    g_main_loop_quit (B.loop);
}

static gboolean
on_interrupt (gpointer data)
{
  guint i;

  if (B.interrupted) {
    /* Twice: stop the jobs too. */
    for (i = 0; i < B.jobs->len; i++) {
      SbJob *j = B.jobs->pdata[i];
      if (j->state == SB_JOB_RUNNING && j->proc)
        g_subprocess_send_signal (j->proc, SIGTERM);
    }
    return G_SOURCE_CONTINUE;
  }
  B.interrupted = TRUE;
  g_printerr ("\nstage-batch: interrupted: no new jobs; waiting for the %u "
      "running (interrupt again to stop them)\n", B.running);
  if (B.running == 0)
    g_main_loop_quit (B.loop);
  return G_SOURCE_CONTINUE;
}

/* ---- the end ------------------------------------------------------------- */

static gboolean
write_profile (void)
{
  GHashTable *only = g_hash_table_new (NULL, NULL);
  gchar *trace, *summary, *suffix;
  GError *err = NULL;
  guint i, n = 0;
  gboolean ok;

  for (i = 0; i < B.jobs->len; i++)
    g_hash_table_add (only,
        GUINT_TO_POINTER (((SbJob *) B.jobs->pdata[i])->index));
  suffix = B.shard_n > 1 ? g_strdup_printf (".shard-%u-of-%u", B.shard_i,
      B.shard_n) : g_strdup ("");
  trace = g_strdup_printf ("%s/trace%s.json", B.profile_dir, suffix);
  summary = g_strdup_printf ("%s/summary%s.json", B.profile_dir, suffix);
  ok = sb_profile_merge (B.profile_dir, only, trace, summary, &n, &err);
  if (B.progress == PROGRESS_JSONL) {
    /* one stream, one format: JSON lines only */
    JsonObject *o = event_new (ok ? "profile" : "profile-error");

    if (ok) {
      json_object_set_int_member (o, "jobs", n);
      json_object_set_string_member (o, "trace", trace);
      json_object_set_string_member (o, "summary", summary);
    } else {
      json_object_set_string_member (o, "error", err->message);
    }
    jsonl (o);
  } else if (!ok) {
    g_printerr ("stage-batch: merging the profiles failed: %s\n",
        err->message);
  } else {
    g_printerr ("stage-batch: profile of %u job%s: %s, %s%s\n", n,
        n == 1 ? "" : "s", trace, summary, B.shard_n > 1 ? " (after every "
        "shard: stage-batch --merge-profile DIR)" : "");
  }
  g_clear_error (&err);
  g_hash_table_destroy (only);
  g_free (trace);
  g_free (summary);
  g_free (suffix);
  return ok;
}

/* The batch's jobs by their index (a split row's parts are consecutive). */
static GHashTable *
jobs_by_index (void)
{
  GHashTable *jobs = g_hash_table_new (NULL, NULL);
  guint i;

  for (i = 0; i < B.jobs->len; i++) {
    SbJob *j = B.jobs->pdata[i];
    g_hash_table_insert (jobs, GUINT_TO_POINTER (j->index), j);
  }
  return jobs;
}

/* --split: each row's parts joined, once every one of them completed
 * here; a sharded run leaves that to whoever merges the shards' stores.
 * FALSE when a join failed. */
static gboolean
join_splits (void)
{
  GHashTable *state = jobs_by_index ();
  gboolean ok = TRUE;
  guint i, k;

  for (i = 0; i < B.splits->len; i++) {
    SbSplit *s = B.splits->pdata[i];
    GError *err = NULL;
    GString *failed = g_string_new (NULL);
    SbSplitJoin res = SB_SPLIT_JOINED;
    JsonObject *o;

    if (B.shard_n > 1) {
      if (B.progress != PROGRESS_JSONL && i == 0)
        g_printerr ("stage-batch: split streams are joined once every "
            "shard is done: stage-store merge DEST STORES... (or stage-store "
            "join STORE where they share one)\n");
      g_string_free (failed, TRUE);
      continue;
    }
    for (k = s->first; k < s->first + s->n_parts; k++) {
      SbJob *j = g_hash_table_lookup (state, GUINT_TO_POINTER (k));
      if (!j || (j->state != SB_JOB_OK && j->state != SB_JOB_SKIPPED))
        g_string_append_printf (failed, "%s%u", failed->len ? ", " : "", k);
    }
    if (failed->len)
      g_set_error (&err, g_quark_from_static_string ("stage-batch-error"), 0,
          "not joined: its part jobs %s did not complete", failed->str);
    else
      sb_split_join (s, &res, &err);
    if (B.progress == PROGRESS_JSONL) {
      o = event_new ("join");
      json_object_set_string_member (o, "where", s->where);
      json_object_set_string_member (o, "store", s->out_store);
      json_object_set_string_member (o, "stream", s->out_stream);
      json_object_set_int_member (o, "parts", s->n_parts);
      json_object_set_boolean_member (o, "ok", err == NULL);
      json_object_set_boolean_member (o, "joined", err == NULL
          && res != SB_SPLIT_KEPT);
      json_object_set_boolean_member (o, "already", err == NULL
          && res == SB_SPLIT_ALREADY);
      if (err)
        json_object_set_string_member (o, "error", err->message);
      else
        json_object_set_null_member (o, "error");
      jsonl (o);
    } else if (err) {
      g_printerr ("stage-batch: %s: stream '%s' in '%s': %s\n", s->where,
          s->out_stream, s->out_store, err->message);
    } else if (res == SB_SPLIT_JOINED) {
      g_printerr ("stage-batch: joined %u parts into stream '%s' in '%s'\n",
          s->n_parts, s->out_stream, s->out_store);
    } else if (res == SB_SPLIT_ALREADY) {
      g_printerr ("stage-batch: stream '%s' in '%s' was joined by an earlier "
          "run\n", s->out_stream, s->out_store);
    } else {
      g_printerr ("stage-batch: stream '%s' in '%s' kept (mode=ignore): its "
          "%u parts were not joined\n", s->out_stream, s->out_store,
          s->n_parts);
    }
    ok &= err == NULL;
    g_clear_error (&err);
    g_string_free (failed, TRUE);
  }
  g_hash_table_destroy (state);
  return ok;
}

static gint
finish (void)
{
  JsonArray *failures = json_array_new ();
  guint i;
  gboolean profile_ok = TRUE;

  if (B.progress == PROGRESS_BAR)
    g_printerr ("\r\033[K");
  sb_jobs_print_table (B.jobs);
  for (i = 0; i < B.jobs->len; i++) {
    SbJob *j = B.jobs->pdata[i];
    JsonObject *f;

    if (j->state == SB_JOB_OK || j->state == SB_JOB_SKIPPED)
      continue;
    if (B.progress != PROGRESS_JSONL) {
      if (json_array_get_length (failures) == 0)
        g_printerr ("stage-batch: some jobs did not complete:\n");
      g_printerr ("  job %u (%s): %s%s%s%s%s\n", j->index, j->where,
          sb_job_state_name (j->state), j->error ? ": " : "",
          j->error ? j->error : "", j->attempts ? "; log: " : "",
          j->attempts ? j->log_path : "");
    }
    f = json_object_new ();
    json_object_set_int_member (f, "job", j->index);
    json_object_set_string_member (f, "where", j->where);
    json_object_set_string_member (f, "status", sb_job_state_name (j->state));
    if (j->error)
      json_object_set_string_member (f, "error", j->error);
    else
      json_object_set_null_member (f, "error");
    if (j->attempts && j->log_path)
      json_object_set_string_member (f, "log", j->log_path);
    else
      json_object_set_null_member (f, "log");
    json_array_add_object_element (failures, f);
  }
  if (B.profile_dir)
    profile_ok = write_profile ();
  if (B.splits && !join_splits ())
    profile_ok = FALSE;
  if (B.progress == PROGRESS_JSONL) {
    JsonObject *o = event_new ("end");
    json_object_set_int_member (o, "jobs", B.jobs->len);
    json_object_set_int_member (o, "ok", B.n_ok);
    json_object_set_int_member (o, "failed", B.n_failed);
    json_object_set_int_member (o, "skipped", B.n_skipped);
    json_object_set_int_member (o, "frames", B.frames_done);
    json_object_set_double_member (o, "wall_s",
        (g_get_monotonic_time () - B.t0_mono) / 1e6);
    json_object_set_array_member (o, "failures", json_array_ref (failures));
    jsonl (o);
  }
  i = json_array_get_length (failures);
  json_array_unref (failures);
  if (!profile_ok)
    return EXIT_SOME_FAILED;
  return i ? EXIT_SOME_FAILED : 0;
}

/* ---- main ---------------------------------------------------------------- */

static void
print_dry_run (void)
{
  guint i;

  for (i = 0; i < B.jobs->len; i++) {
    SbJob *j = B.jobs->pdata[i];
    gchar *line = sb_shell_line (j->pipeline);
    g_print ("# job %u (%s)%s\n%s\n", j->index, j->where,
        j->state == SB_JOB_SKIPPED ? ": completed by an earlier run" : "",
        line);
    g_free (line);
  }
}

/* --split --resume: a part whose job is done but which is in its store
 * neither as a part nor joined (removed since) runs again. */
static void
resume_split_parts (void)
{
  GHashTable *jobs = jobs_by_index ();
  guint i, k;

  for (i = 0; i < B.splits->len; i++) {
    SbSplit *s = B.splits->pdata[i];

    for (k = 0; k < s->n_parts; k++) {
      SbJob *j = g_hash_table_lookup (jobs, GUINT_TO_POINTER (s->first + k));

      if (j && j->state == SB_JOB_SKIPPED && !sb_split_part_present (s, k)) {
        j->state = SB_JOB_PENDING;
        B.n_skipped--;
      }
    }
  }
  g_hash_table_destroy (jobs);
}

static gint
run_batch (void)
{
  guint i, sig1, sig2, tick = 0;

  for (i = 0; i < B.jobs->len; i++) {
    SbJob *j = B.jobs->pdata[i];
    if (B.resume && sb_job_is_done (j, B.state_dir)) {
      j->state = SB_JOB_SKIPPED;
      B.n_skipped++;
    }
  }
  if (B.resume && B.splits)
    resume_split_parts ();
  if (B.dry_run) {
    print_dry_run ();
    return 0;
  }
  make_dirs ();

  B.loop = g_main_loop_new (NULL, FALSE);
  B.t0_mono = g_get_monotonic_time ();
  B.parallel_why = B.auto_jobs ?
      g_strdup_printf ("--jobs auto: %u usable CPU%s (%s), a job keeps about "
      "%u busy; adjusted as jobs finish, never above %u", B.cpus,
      B.cpus == 1 ? "" : "s", B.cpus_why, B.threads_guess, B.cpus) :
      g_strdup_printf ("--jobs %u (%u usable CPU%s: %s)", B.max_jobs, B.cpus,
      B.cpus == 1 ? "" : "s", B.cpus_why);
  if (B.progress == PROGRESS_BAR)
    g_printerr ("stage-batch: %u job%s at once: %s\n", B.max_jobs,
        B.max_jobs == 1 ? "" : "s", B.parallel_why);
  if (B.progress == PROGRESS_JSONL) {
    JsonObject *o = event_new ("start");
    gchar *shard = g_strdup_printf ("%u/%u", B.shard_i, B.shard_n);
    json_object_set_int_member (o, "jobs", B.jobs->len);
    json_object_set_int_member (o, "skipped", B.n_skipped);
    json_object_set_int_member (o, "parallel", B.max_jobs);
    json_object_set_int_member (o, "cpus", B.cpus);
    json_object_set_string_member (o, "parallel_why", B.parallel_why);
    json_object_set_string_member (o, "shard", shard);
    json_object_set_string_member (o, "state_dir", B.state_dir);
    jsonl (o);
    g_free (shard);
  }
  if (B.progress != PROGRESS_NONE)
    tick = g_timeout_add (B.progress == PROGRESS_BAR ? 200 : 1000,
        on_progress_tick, NULL);
  sig1 = g_unix_signal_add (SIGINT, on_interrupt, NULL);
  sig2 = g_unix_signal_add (SIGTERM, on_interrupt, NULL);
  start_more ();
  if (B.running > 0)
    g_main_loop_run (B.loop);
  if (tick)
    g_source_remove (tick);
  g_source_remove (sig1);
  g_source_remove (sig2);
  g_main_loop_unref (B.loop);
  return finish ();
}

static gint
merge_only (void)
{
  gchar *trace = g_build_filename (merge_dir, "trace.json", NULL);
  gchar *summary = g_build_filename (merge_dir, "summary.json", NULL);
  GError *err = NULL;
  guint n = 0;
  gint ret = 0;

  if (!sb_profile_merge (merge_dir, NULL, trace, summary, &n, &err)) {
    g_printerr ("stage-batch: --merge-profile %s: %s\n", merge_dir,
        err->message);
    ret = err->domain == G_IO_ERROR && err->code == G_IO_ERROR_NOT_FOUND ?
        1 : EXIT_USAGE;
    g_clear_error (&err);
  } else if (n == 0) {
    g_printerr ("stage-batch: --merge-profile %s: no job profiles there "
        "(DIR/job-N/job.json)\n", merge_dir);
    ret = EXIT_USAGE;
  } else {
    g_printerr ("stage-batch: profile of %u job%s: %s, %s\n", n,
        n == 1 ? "" : "s", trace, summary);
  }
  g_free (trace);
  g_free (summary);
  return ret;
}

/* The option context: every option, the summary and description --help
 * prints, and GStreamer's own options. */
static GOptionContext *
option_context (void)
{
  GOptionContext *ctx = g_option_context_new ("TEMPLATE [MANIFEST] - run a "
      "gst-launch pipeline over a batch of streams");
  GOptionGroup *hidden;

  g_option_context_set_summary (ctx,
      "Runs TEMPLATE, a gst-launch-1.0 description with {column} "
      "placeholders, once per row\nof MANIFEST (CSV or TSV with a header "
      "row), each job in its own process.\n\n"
      "Example:\n"
      "  printf 'input,width,height\\nclip1.mp4,640,360\\nclip2.mp4,320,180\\n'"
      " > jobs.csv\n"
      "  stage-batch --jobs 2 'filesrc location={input} ! qtdemux ! "
      "h264parse ! avdec_h264 !\n"
      "    stageresize width={width} height={height} ! openh264enc ! "
      "h264parse ! mp4mux !\n    filesink location=out/{stem}-{width}.mp4' "
      "jobs.csv\n"
      "  stage-batch --input a.mp4 --input b.mp4 'filesrc location={input} "
      "! ... ! filesink location=out/{stem}.mp4'");
  g_option_context_set_description (ctx,
      "Everything is checked before anything runs (exit 2 on bad usage, "
      "nothing started).\nA {column} value is one property value, quoted "
      "as needed; {column:pipeline}\nsplices it in as elements (trusted "
      "manifests only).\nJobs run longest input first; outputs are written "
      "under a temporary name and\nrenamed at EOS (a device or FIFO is "
      "written in place).\nData (the final table, "
      "--dry-run) goes to stdout, progress to stderr.\n"
      "Exit status: 0 all jobs succeeded, 1 some failed (their logs are "
      "listed), 2 bad usage.\nSee stage-batch(1) and docs/stage-batch.md.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  hidden = g_option_group_new ("internal", "", "", NULL, NULL);
  g_option_group_add_entries (hidden, hidden_entries);
  g_option_context_add_group (ctx, hidden);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  return ctx;
}

/* The options' values, checked; exits 2 (usage) on a bad one. */
static void
check_options (void)
{
  if (!B.jobs_opt || strcmp (B.jobs_opt, "auto") == 0) {
    B.auto_jobs = TRUE;
  } else {
    B.max_jobs = parse_uint (B.jobs_opt, "--jobs");
    if (B.max_jobs == 0)
      usage_error ("--jobs must be at least 1 (or auto)");
  }
  if (B.retries < 0)
    usage_error ("--retries must be 0 or more");
  if (B.split < 0)
    usage_error ("--split must be 1 or more");
  if (B.timeout_s < 0)
    usage_error ("--timeout must be 0 (none) or more seconds");
  parse_shard ();
  parse_progress ();
}

/* The manifest (or --input files) and the template, checked against each
 * other; the state and profile folders writable; the tracer there when
 * --profile asks for it. Exits 2 (usage) on any problem. */
static void
load_batch (const gchar * template_desc, const gchar * manifest)
{
  GError *err = NULL;
  gchar *bad = NULL;

  B.m = B.inputs ? sb_manifest_from_inputs ((const gchar * const *) B.inputs)
      : sb_manifest_load (manifest, &err);
  if (!B.m)
    usage_error ("%s", err->message);
  B.t = sb_template_new (template_desc, &err);
  if (!B.t)
    usage_error ("%s", err->message);
  /* {shard}: this process's shard (a store of its own per shard). */
  if (sb_manifest_column (B.m, "shard") < 0) {
    const gchar *const *names = sb_template_placeholders (B.t);
    guint i;
    for (i = 0; names[i]; i++)
      if (strcmp (names[i], "shard") == 0) {
        gchar *v = g_strdup_printf ("%u", B.shard_i);
        sb_manifest_add_column (B.m, "shard", v);
        g_free (v);
        break;
      }
  }
  if (B.split >= 1) {
    SbManifest *sm = sb_split_manifest (B.m, B.t, B.split, &B.splits, &err);
    if (!sm)
      usage_error ("%s", err->message);
    sb_manifest_free (B.m);
    B.m = sm;
  }
  if (!sb_template_check (B.t, B.m, &err))
    usage_error ("%s", err->message);
  if (!B.state_dir)
    B.state_dir = sb_default_state_dir (manifest);
  if (!sb_dir_writable (B.state_dir, &bad))
    usage_error ("the state directory \"%s\" cannot be created or "
        "written (\"%s\" is not a writable directory); see --state-dir",
        B.state_dir, bad);
  if (B.profile_dir && !sb_dir_writable (B.profile_dir, &bad))
    usage_error ("the profile directory \"%s\" cannot be created or "
        "written (\"%s\" is not a writable directory)", B.profile_dir, bad);
  if (B.profile_dir) {
    GstPluginFeature *f = gst_registry_find_feature (gst_registry_get (),
        "stageprof", GST_TYPE_TRACER_FACTORY);
    if (!f)
      usage_error ("--profile needs the stageprof tracer, which GStreamer "
          "cannot find (is the plugin installed, or GST_PLUGIN_PATH set?)");
    gst_object_unref (f);
  }
}

int
main (int argc, char *argv[])
{
  /* The wall clock at (just before) GStreamer's ts 0: see sbrun.h. */
  gint64 ts0_wall_us = g_get_real_time ();
  GOptionContext *ctx;
  GError *err = NULL;

  setlocale (LC_ALL, "");
  B.jobs_opt = NULL;
  ctx = option_context ();
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("stage-batch: %s (see --help)\n", err->message);
    return EXIT_USAGE;
  }
  if (!gst_init_check (NULL, NULL, &err)) {
    g_printerr ("stage-batch: GStreamer could not start: %s\n",
        err ? err->message : "unknown error");
    return EXIT_USAGE;
  }
  /* the internal modes: one job (in the child), or a merge only */
  if (run_one_desc)
    return sb_run_one (run_one_desc, parent_pid, ts0_wall_us);
  if (merge_dir)
    return merge_only ();

  if (argc < 2 || argc > 3 || (B.inputs && argc != 2)
      || (!B.inputs && argc != 3)) {
    g_printerr ("stage-batch: %s\nUsage: stage-batch [OPTIONS] TEMPLATE "
        "MANIFEST, or --input FILE... TEMPLATE (see --help)\n", B.inputs ?
        "with --input, give only the TEMPLATE" : "give a TEMPLATE and a "
        "MANIFEST");
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);
  check_options ();
  load_batch (argv[1], B.inputs ? NULL : argv[2]);
  B.self_exe = sb_find_self (argv[0]);
  make_jobs ();
  g_ptr_array_sort (B.jobs, longest_first);
  if (B.jobs->len == 0) {
    g_printerr ("stage-batch: shard %u/%u has no rows (the manifest has "
        "%u)\n", B.shard_i, B.shard_n, B.m->rows->len);
    return 0;
  }
  return run_batch ();
}
