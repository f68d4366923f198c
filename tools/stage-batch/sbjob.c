/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbjob: stage-batch's per-job bookkeeping and records.
 *
 * Resume. A job is done when its marker STATE/done/job-N.json exists, holds
 * the same pipeline description (so an edited template or manifest row runs
 * again), and every output it lists exists. The launcher writes the marker
 * only after the child reported EOS, closed its outputs and renamed them
 * from their temporary names: a job killed at any point (even with the
 * launcher itself) has no marker and no output under its final name.
 *
 * Profiles. Each job's stageprof outputs go to DIR/job-N/, beside a
 * job.json the launcher writes when the job ends: its row, status, frames,
 * and the wall clock of the child's ts 0 (read by the child just before
 * gst_init, where GStreamer takes the tracers' ts 0), unless the trace records
 * its own (stageprof_start, from newer stageprof). The merge puts every
 * job's trace on one axis from those wall clocks, a process per job named
 * after its row, and adds one "job" slice per job on a "stage-batch" track,
 * so a job that crashed before tracing anything is still there.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sbjob.h"
#include "spfile.h"
#include "spmerge.h"
#include "spjson.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

SbJob *
sb_job_new (guint index)
{
  SbJob *j = g_new0 (SbJob, 1);

  j->index = index;
  j->row = json_object_new ();
  return j;
}

void
sb_job_reset_attempt (SbJob * j)
{
  g_clear_object (&j->proc);
  g_clear_object (&j->out);
  j->pending = 0;
  j->timed_out = FALSE;
  j->frames = 0;
  j->position_s = j->duration_s = 0;
  j->cpu_s = 0;
  j->eos = FALSE;
  j->ts0_wall_us = 0;
  g_clear_pointer (&j->child_status, g_free);
  g_clear_pointer (&j->error, g_free);
  g_clear_pointer (&j->verdict, g_free);
}

void
sb_job_free (SbJob * j)
{
  sb_job_reset_attempt (j);
  if (j->timeout_id)
    g_source_remove (j->timeout_id);
  json_object_unref (j->row);
  if (j->outputs)
    g_ptr_array_free (j->outputs, TRUE);
  g_free (j->label);
  g_free (j->where);
  g_free (j->pipeline);
  g_free (j->log_path);
  g_free (j->prof_dir);
  g_free (j);
}

const gchar *
sb_job_state_name (SbJobState s)
{
  static const gchar *names[] = { "pending", "running", "ok", "failed",
    "crashed", "timeout", "skipped"
  };
  return names[s];
}

gdouble
sb_job_wall_s (const SbJob * j)
{
  if (!j->start_mono)
    return 0;
  return ((j->end_mono ? j->end_mono : g_get_monotonic_time ()) -
      j->start_mono) / 1e6;
}

gboolean
sb_write_json (JsonNode * node, const gchar * path, GError ** error)
{
  gchar *s = sp_json_to_string (node, 17, TRUE);
  gboolean ok = sp_file_replace_contents (path, s, strlen (s), "the file",
      error);

  g_free (s);
  return ok;
}

gchar *
sb_job_marker_path (const gchar * state_dir, guint index)
{
  gchar *name = g_strdup_printf ("job-%u.json", index);
  gchar *p = g_build_filename (state_dir, "done", name, NULL);

  g_free (name);
  return p;
}

JsonObject *
sb_job_to_json (const SbJob * j)
{
  JsonObject *o = json_object_new ();
  JsonArray *outs = json_array_new ();
  gdouble wall = sb_job_wall_s (j);
  guint i;

  json_object_set_int_member (o, "job", j->index);
  json_object_set_string_member (o, "label", j->label);
  json_object_set_string_member (o, "where", j->where);
  json_object_set_object_member (o, "row", json_object_ref (j->row));
  json_object_set_string_member (o, "pipeline", j->pipeline);
  json_object_set_string_member (o, "status", sb_job_state_name (j->state));
  json_object_set_int_member (o, "attempts", j->attempts);
  json_object_set_int_member (o, "frames", j->frames);
  json_object_set_double_member (o, "fps", wall > 0 ? j->frames / wall : 0);
  json_object_set_double_member (o, "wall_s", wall);
  json_object_set_double_member (o, "cpu_s", j->cpu_s);
  json_object_set_int_member (o, "start_wall_us", j->start_wall_us);
  json_object_set_int_member (o, "ts0_wall_us", j->ts0_wall_us ?
      j->ts0_wall_us : j->start_wall_us);
  /* null rather than absent: every record has the same members */
  if (j->verdict)
    json_object_set_string_member (o, "verdict", j->verdict);
  else
    json_object_set_null_member (o, "verdict");
  if (j->error)
    json_object_set_string_member (o, "error", j->error);
  else
    json_object_set_null_member (o, "error");
  if (j->log_path)
    json_object_set_string_member (o, "log", j->log_path);
  for (i = 0; j->outputs && i < j->outputs->len; i++)
    json_array_add_string_element (outs, j->outputs->pdata[i]);
  json_object_set_array_member (o, "outputs", outs);
  return o;
}

static gboolean
write_object (JsonObject * o, const gchar * path, GError ** error)
{
  JsonNode *n = json_node_init_object (json_node_alloc (), o);
  gboolean ok = sb_write_json (n, path, error);

  json_node_unref (n);
  return ok;
}

gboolean
sb_job_write_marker (const SbJob * j, const gchar * state_dir,
    GError ** error)
{
  gchar *path = sb_job_marker_path (state_dir, j->index);
  JsonObject *o = sb_job_to_json (j);
  gboolean ok = write_object (o, path, error);

  json_object_unref (o);
  g_free (path);
  return ok;
}

gboolean
sb_job_is_done (const SbJob * j, const gchar * state_dir)
{
  gchar *path = sb_job_marker_path (state_dir, j->index);
  JsonParser *p = json_parser_new ();
  gboolean done = FALSE;

  if (json_parser_load_from_file (p, path, NULL)
      && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p))) {
    JsonObject *o = json_node_get_object (json_parser_get_root (p));
    const gchar *pl = json_object_get_string_member_with_default (o,
        "pipeline", "");
    JsonArray *outs = json_object_has_member (o, "outputs") ?
        json_object_get_array_member (o, "outputs") : NULL;
    guint i;

    done = strcmp (pl, j->pipeline) == 0 && strcmp
        (json_object_get_string_member_with_default (o, "status", ""),
        "ok") == 0;
    for (i = 0; done && outs && i < json_array_get_length (outs); i++)
      done = g_file_test (json_array_get_string_element (outs, i),
          G_FILE_TEST_EXISTS);
  }
  g_object_unref (p);
  g_free (path);
  return done;
}

gboolean
sb_job_write_record (const SbJob * j, guint jobs_total, GError ** error)
{
  JsonObject *o;
  gchar *path;
  gboolean ok;

  if (!j->prof_dir)
    return TRUE;
  o = sb_job_to_json (j);
  /* relative to the job's own folder, so that a profile folder merges
   * from anywhere and after a copy */
  json_object_set_string_member (o, "trace_path", "trace.json");
  json_object_set_string_member (o, "summary_path", "summary.json");
  json_object_set_int_member (o, "jobs_total", jobs_total);
  path = g_build_filename (j->prof_dir, "job.json", NULL);
  ok = write_object (o, path, error);
  json_object_unref (o);
  g_free (path);
  return ok;
}

/* ---- merge ---------------------------------------------------------------- */

static gint
by_job (gconstpointer a, gconstpointer b)
{
  JsonObject *x = *(JsonObject **) a, *y = *(JsonObject **) b;
  gint64 i = json_object_get_int_member (x, "job");
  gint64 k = json_object_get_int_member (y, "job");

  return i < k ? -1 : i > k;
}

/* A record's file names are relative to its job folder; records written
 * before that hold the path the batch used, which may be relative to
 * another working directory or to where the folder was before a copy:
 * the file of that name in the job folder is the one. */
static void
resolve_path (JsonObject * r, const gchar * member, const gchar * jobdir)
{
  const gchar *v = json_object_get_string_member_with_default (r, member,
      NULL);
  gchar *path;

  if (v == NULL)
    return;
  if (g_path_is_absolute (v) && g_file_test (v, G_FILE_TEST_EXISTS))
    return;
  if (g_path_is_absolute (v) || strchr (v, G_DIR_SEPARATOR)) {
    gchar *base = g_path_get_basename (v);

    path = g_build_filename (jobdir, base, NULL);
    g_free (base);
  } else {
    path = g_build_filename (jobdir, v, NULL);
  }
  json_object_set_string_member (r, member, path);
  g_free (path);
}

/* Every DIR/job-N/job.json, sorted by job number. */
static GPtrArray *
read_records (const gchar * dir, GHashTable * only, GError ** error)
{
  GPtrArray *recs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      json_object_unref);
  GDir *d = g_dir_open (dir, 0, error);
  JsonParser *p = json_parser_new ();
  const gchar *name;

  if (!d) {
    g_object_unref (p);
    g_ptr_array_free (recs, TRUE);
    return NULL;
  }
  while ((name = g_dir_read_name (d))) {
    gchar *path;
    guint idx;

    if (!g_str_has_prefix (name, "job-") || sscanf (name + 4, "%u", &idx) != 1)
      continue;
    if (only && !g_hash_table_contains (only, GUINT_TO_POINTER (idx)))
      continue;
    path = g_build_filename (dir, name, "job.json", NULL);
    if (json_parser_load_from_file (p, path, NULL)
        && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p))) {
      JsonObject *r = json_node_get_object (json_parser_get_root (p));
      gchar *jobdir = g_build_filename (dir, name, NULL);

      resolve_path (r, "trace_path", jobdir);
      resolve_path (r, "summary_path", jobdir);
      g_ptr_array_add (recs, json_object_ref (r));
      g_free (jobdir);
    }
    g_free (path);
  }
  g_dir_close (d);
  g_object_unref (p);
  g_ptr_array_sort (recs, by_job);
  return recs;
}

/* The wall clock of the job's trace's ts 0: the one the trace records, else
 * the one the runner read before gst_init (see the top of this file). */
static gint64
record_ts0 (JsonObject * r)
{
  const gchar *trace = json_object_get_string_member_with_default (r,
      "trace_path", NULL);
  gint64 ts0 = json_object_get_int_member_with_default (r, "ts0_wall_us", 0);
  gboolean found = FALSE;

  if (trace && g_file_test (trace, G_FILE_TEST_EXISTS))
    sp_merge_trace_wall_start (trace, &ts0, &found, NULL);
  return ts0;
}

static void
merge_one_trace (SpMergeWriter * w, JsonObject * r, gint64 ts0,
    gint64 origin)
{
  const gchar *label = json_object_get_string_member_with_default (r,
      "label", "");
  const gchar *trace = json_object_get_string_member_with_default (r,
      "trace_path", NULL);
  gint64 job = json_object_get_int_member (r, "job");
  gint64 start = json_object_get_int_member_with_default (r,
      "start_wall_us", json_object_get_int_member_with_default (r,
          "ts0_wall_us", 0));
  gchar *pname = g_strdup_printf ("job %" G_GINT64_FORMAT " %s", job, label);
  gchar *sname = g_strdup_printf ("job %" G_GINT64_FORMAT ": %s", job,
      json_object_get_string_member_with_default (r, "status", "?"));
  JsonObject *args = json_object_new ();
  const gchar *keys[] = { "status", "frames", "fps", "wall_s", "verdict",
    "error", "where", "log", NULL
  };
  GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);
  guint pid, i;
  GError *err = NULL;

  /* The job's process, there even when its trace is not (a failed job):
   * the trace's first pipeline goes into it. */
  pid = sp_merge_writer_add_process (w, pname);
  if (trace && g_file_test (trace, G_FILE_TEST_EXISTS)
      && !sp_merge_writer_add_trace (w, trace, pname, pid, ts0 - origin,
          NULL, notes, &err)) {
    g_printerr ("stage-batch: job %" G_GINT64_FORMAT ": %s\n", job,
        err->message);
    g_clear_error (&err);
  }
  for (i = 0; i < notes->len; i++)
    g_printerr ("stage-batch: job %" G_GINT64_FORMAT ": note: %s\n", job,
        (gchar *) notes->pdata[i]);
  for (i = 0; keys[i]; i++)
    if (json_object_has_member (r, keys[i]))
      json_object_set_member (args, keys[i],
          json_node_copy (json_object_get_member (r, keys[i])));
  sp_merge_writer_add_slice (w, pid, 0, "stage-batch", "stage-batch", sname,
      (gdouble) (start - origin),
      json_object_get_double_member_with_default (r, "wall_s", 0) * 1e6,
      args);
  g_ptr_array_free (notes, TRUE);
  g_free (pname);
  g_free (sname);
}

/* What a merge would silently lose: jobs of the batch without a record
 * (a shard not run, or not copied), and finished jobs whose trace or
 * summary is missing. Named, all of them, before anything is written. */
static gboolean
check_complete (const gchar * dir, GPtrArray * recs, GHashTable * only,
    GError ** error)
{
  GString *msg = g_string_new (NULL);
  GHashTable *have = g_hash_table_new (NULL, NULL);
  gint64 total = 0, k;
  guint i, missing = 0;

  for (i = 0; i < recs->len; i++) {
    JsonObject *r = recs->pdata[i];
    const gchar *members[] = { "trace_path", "summary_path" };
    guint m;

    g_hash_table_add (have, GINT_TO_POINTER (json_object_get_int_member (r,
                "job")));
    total = MAX (total, json_object_get_int_member_with_default (r,
            "jobs_total", 0));
    if (g_strcmp0 (json_object_get_string_member_with_default (r, "status",
                ""), "ok") != 0)
      continue;
    for (m = 0; m < G_N_ELEMENTS (members); m++) {
      const gchar *f = json_object_get_string_member_with_default (r,
          members[m], NULL);

      if (f && !g_file_test (f, G_FILE_TEST_EXISTS)) {
        g_string_append_printf (msg, "\n  job %" G_GINT64_FORMAT " (%s): its "
            "%s is missing: %s", json_object_get_int_member (r, "job"),
            json_object_get_string_member_with_default (r, "label", ""),
            m == 0 ? "trace" : "summary", f);
        missing++;
      }
    }
  }
  for (k = 0; k < total; k++) {
    if (only && !g_hash_table_contains (only, GUINT_TO_POINTER ((guint) k)))
      continue;
    if (!g_hash_table_contains (have, GINT_TO_POINTER (k))) {
      if (missing < 20)
        g_string_append_printf (msg, "\n  job %" G_GINT64_FORMAT ": no "
            "profile (%s/job-%" G_GINT64_FORMAT "/job.json): its shard has "
            "not run, or its folder was not copied here", k, dir, k);
      missing++;
    }
  }
  g_hash_table_destroy (have);
  if (missing > 0)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%u of the %"
        G_GINT64_FORMAT " jobs' profiles are incomplete; nothing was written:"
        "%s", missing, MAX (total, (gint64) recs->len), msg->str);
  g_string_free (msg, TRUE);
  return missing == 0;
}

gboolean
sb_profile_merge (const gchar * dir, GHashTable * only,
    const gchar * trace_path, const gchar * summary_path, guint * n_jobs,
    GError ** error)
{
  GPtrArray *recs;
  SpMergeWriter *w;
  JsonArray *jobs;
  JsonNode *sum;
  gint64 origin = G_MAXINT64, *ts0;
  guint i;
  gboolean ok;
  gboolean in_place;

  /* Refusals (a link, a socket) before any work; a device or a FIFO is
   * written in place by the merge writer itself (common/spfile.h). */
  if (!sp_file_output_in_place (trace_path, "the merged trace", &in_place,
          error) || !sp_file_output_in_place (summary_path,
          "the merged summary", &in_place, error))
    return FALSE;
  recs = read_records (dir, only, error);
  if (!recs)
    return FALSE;
  if (!check_complete (dir, recs, only, error)) {
    g_ptr_array_free (recs, TRUE);
    return FALSE;
  }
  ts0 = g_new0 (gint64, recs->len + 1);
  for (i = 0; i < recs->len; i++) {
    JsonObject *r = recs->pdata[i];
    gint64 st;
    ts0[i] = record_ts0 (r);
    st = json_object_get_int_member_with_default (r, "start_wall_us", ts0[i]);
    origin = MIN (origin, MIN (ts0[i], st));
  }
  w = sp_merge_writer_new (trace_path, error);
  if (!w) {
    g_free (ts0);
    g_ptr_array_free (recs, TRUE);
    return FALSE;
  }
  if (recs->len)
    sp_merge_writer_set_origin (w, origin);
  jobs = json_array_new ();
  for (i = 0; i < recs->len; i++) {
    merge_one_trace (w, recs->pdata[i], ts0[i], origin);
    json_array_add_object_element (jobs, json_object_ref (recs->pdata[i]));
  }
  ok = sp_merge_writer_close (w, error);
  sum = sp_merge_summaries (jobs);
  if (ok) {
    JsonObject *totals = json_object_get_object_member
        (json_node_get_object (sum), "totals");
    json_object_set_int_member (totals, "origin_wall_us",
        recs->len ? origin : 0);
    ok = sb_write_json (sum, summary_path, error);
  }
  if (n_jobs)
    *n_jobs = recs->len;
  json_node_unref (sum);
  json_array_unref (jobs);
  g_free (ts0);
  g_ptr_array_free (recs, TRUE);
  return ok;
}

/* ---- stage-batch's side of a job ------------------------------------------ */

gchar *
sb_job_tracers_env (const SbJob * j)
{
  const gchar *old = g_getenv ("GST_TRACERS");
  gchar *t = g_build_filename (j->prof_dir, "trace.json", NULL);
  gchar *s = g_build_filename (j->prof_dir, "summary.json", NULL);
  gchar *d = g_build_filename (j->prof_dir, "profile.db", NULL);
  gchar *qt = g_strescape (t, NULL), *qs = g_strescape (s, NULL);
  gchar *qd = g_strescape (d, NULL);
  gchar *v = g_strdup_printf ("%s%sstageprof(trace=\"%s\",summary=\"%s\","
      "db=\"%s\")", old && *old ? old : "", old && *old ? ";" : "", qt, qs,
      qd);

  g_free (t);
  g_free (s);
  g_free (d);
  g_free (qt);
  g_free (qs);
  g_free (qd);
  return v;
}

void
sb_job_read_verdict (SbJob * j)
{
  gchar *path;
  JsonParser *p;

  if (!j->prof_dir)
    return;
  path = g_build_filename (j->prof_dir, "summary.json", NULL);
  p = json_parser_new ();
  if (json_parser_load_from_file (p, path, NULL)
      && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p))) {
    const gchar *v = json_object_get_string_member_with_default
        (json_node_get_object (json_parser_get_root (p)), "verdict", NULL);
    if (v) {
      g_free (j->verdict);
      j->verdict = g_strdup (v);
    }
  }
  g_object_unref (p);
  g_free (path);
}

static gint
by_index (gconstpointer a, gconstpointer b)
{
  const SbJob *x = *(SbJob **) a, *y = *(SbJob **) b;
  return x->index < y->index ? -1 : x->index > y->index;
}

void
sb_jobs_print_table (GPtrArray * jobs)
{
  guint i, lw = 5;

  g_ptr_array_sort (jobs, by_index);
  for (i = 0; i < jobs->len; i++)
    lw = MAX (lw, g_utf8_strlen (((SbJob *) jobs->pdata[i])->label, -1));
  lw = MIN (lw, 32);
  g_print ("%5s  %-*s  %-8s  %8s  %8s  %8s  %s\n", "job", lw, "label",
      "status", "frames", "fps", "wall_s", "verdict");
  for (i = 0; i < jobs->len; i++) {
    SbJob *j = jobs->pdata[i];
    gdouble wall = sb_job_wall_s (j);
    /* A job that did not succeed shows why; one that did, its bottleneck. */
    const gchar *v = j->state != SB_JOB_OK && j->error ? j->error :
        j->verdict ? j->verdict : "-";

    if (j->state == SB_JOB_SKIPPED || j->state == SB_JOB_PENDING)
      g_print ("%5u  %-*s  %-8s  %8s  %8s  %8s  %s\n", j->index, lw,
          j->label, sb_job_state_name (j->state), "-", "-", "-",
          j->state == SB_JOB_SKIPPED ? "completed by an earlier run" : "-");
    else
      g_print ("%5u  %-*s  %-8s  %8" G_GUINT64_FORMAT "  %8.1f  %8.2f  %s\n",
          j->index, lw, j->label, sb_job_state_name (j->state), j->frames,
          wall > 0 ? j->frames / wall : 0.0, wall, v);
  }
}
