/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spmerge: stageprof traces and summaries of several processes merged into
 * one. See spmerge.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "spmerge.h"
#include "spjson.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include "spfile.h"
#include "sprow.h"
#include "jsontext.h"
#include "sptracereader.h"

/* What is buffered before a write. */
#define FLUSH_AT (1 << 20)

struct _SpMergeWriter
{
  SpFileReplace *f;             /* a temporary beside the path, or the
                                 * device or FIFO itself (common/spfile.h) */
  GString *o;
  gboolean first;
  guint next_pid;
  gint64 origin_wall_us;        /* 0: not set */
};

SpMergeWriter *
sp_merge_writer_new (const gchar * path, GError ** error)
{
  SpMergeWriter *w;
  GError *err = NULL;
  SpFileReplace *f = sp_file_replace_begin (path, "merged trace", &err);

  if (!f) {
    g_set_error_literal (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        err->message);
    g_error_free (err);
    return NULL;
  }
  w = g_new0 (SpMergeWriter, 1);
  w->f = f;
  w->o = g_string_new ("[\n");
  w->first = TRUE;
  w->next_pid = 1;
  return w;
}

static void
flush (SpMergeWriter * w, gboolean force)
{
  if (w->o->len < FLUSH_AT && !force)
    return;
  sp_file_replace_write (w->f, w->o->str, w->o->len);
  g_string_truncate (w->o, 0);
}

/* One event a line, the stageprof way: lines after the first start with
 * ',' so a cut file is fixed by appending ']'. */
static GString *
begin_event (SpMergeWriter * w)
{
  flush (w, FALSE);
  if (!w->first)
    g_string_append_c (w->o, ',');
  w->first = FALSE;
  return w->o;
}

static void
write_meta_str (SpMergeWriter * w, const gchar * what, guint pid,
    const gchar * key, const gchar * value)
{
  GString *o = begin_event (w);

  g_string_append_printf (o, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,"
      "\"args\":{\"%s\":", what, pid, key);
  stage_json_str (o, value);
  g_string_append (o, "}}\n");
}

static void
process_name (SpMergeWriter * w, guint pid, const gchar * name,
    const gchar * label)
{
  gchar *full = g_strdup_printf ("%s (%s)", name, label);

  write_meta_str (w, "process_name", pid, "name", full);
  g_free (full);
}

static guint
new_pid (SpMergeWriter * w)
{
  guint pid = w->next_pid++;

  g_string_append_printf (begin_event (w), "{\"name\":\"process_sort_index\","
      "\"ph\":\"M\",\"pid\":%u,\"args\":{\"sort_index\":%u}}\n", pid, pid);
  return pid;
}

guint
sp_merge_writer_add_process (SpMergeWriter * w, const gchar * name)
{
  guint pid = new_pid (w);

  write_meta_str (w, "process_name", pid, "name", name);
  return pid;
}

typedef struct
{
  SpMergeWriter *w;
  GHashTable *pids;             /* old pid -> new pid */
  GHashTable *named;            /* old pids with a process_name */
  guint own_pid;
} SpMergeInput;

static guint
map_pid (SpMergeInput * in, gint64 old)
{
  gpointer key = GINT_TO_POINTER ((gint) old), v;

  if (g_hash_table_lookup_extended (in->pids, key, NULL, &v))
    return GPOINTER_TO_UINT (v);
  if (g_hash_table_size (in->pids) == 0 && in->own_pid)
    v = GUINT_TO_POINTER (in->own_pid);
  else
    v = GUINT_TO_POINTER (new_pid (in->w));
  g_hash_table_insert (in->pids, key, v);
  return GPOINTER_TO_UINT (v);
}

/* A time in µs as stageprof writes them (ns precision); a damaged trace
 * may hold any time: kept a finite number. */
static void
append_us (GString * o, gdouble us)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (o, g_ascii_formatd (buf, sizeof (buf), "%.3f",
          CLAMP (us, -1e300, 1e300)));
}

/* The event as it was read, with its pid and ts values replaced: every
 * other field passes through unchanged (the reader checked it is JSON). */
static void
copy_event (GString * o, const SpEvent * ev, guint pid, gdouble shift_us)
{
  gsize cut[2][3];              /* offset, length, which */
  guint n = 0, i;
  gsize at = 0;

  if (ev->has_pid && ev->pid_len) {
    cut[n][0] = ev->pid_off;
    cut[n][1] = ev->pid_len;
    cut[n++][2] = 0;
  }
  if (ev->has_ts && ev->ts_len) {
    cut[n][0] = ev->ts_off;
    cut[n][1] = ev->ts_len;
    cut[n++][2] = 1;
  }
  if (n == 2 && cut[0][0] > cut[1][0]) {
    gsize tmp[3];
    memcpy (tmp, cut[0], sizeof (tmp));
    memcpy (cut[0], cut[1], sizeof (tmp));
    memcpy (cut[1], tmp, sizeof (tmp));
  }
  for (i = 0; i < n; i++) {
    g_string_append_len (o, ev->raw + at, cut[i][0] - at);
    if (cut[i][2] == 0)
      g_string_append_printf (o, "%u", pid);
    else
      append_us (o, ev->ts + shift_us);
    at = cut[i][0] + cut[i][1];
  }
  g_string_append_len (o, ev->raw + at, ev->raw_len - at);
  g_string_append_c (o, '\n');
}

static gboolean
is_meta (const SpEvent * ev, const gchar * name)
{
  return ev->ph == 'M' && strcmp (ev->name, name) == 0;
}

gboolean
sp_merge_writer_add_trace (SpMergeWriter * w, const gchar * trace_path,
    const gchar * label, guint own_pid, gdouble offset_us,
    guint64 * n_events, GPtrArray * notes, GError ** error)
{
  SpTraceReader *r = sp_trace_reader_open (trace_path, error);
  SpMergeInput in = { w, NULL, NULL, own_pid };
  GError *err = NULL;
  SpEvent *ev;
  GHashTableIter it;
  gpointer k, v;
  guint64 n = 0, bad_text = 0;
  gboolean ok;

  if (n_events)
    *n_events = 0;
  if (!r)
    return FALSE;
  in.pids = g_hash_table_new (NULL, NULL);
  in.named = g_hash_table_new (NULL, NULL);
  while (sp_trace_reader_next (r, &ev, &err)) {
    guint pid;

    /* The merged trace gets one wall-clock start and one process order
     * of its own. */
    if (is_meta (ev, "stageprof_start") || is_meta (ev, "process_sort_index"))
      continue;
    /* A job's run summaries name its pipelines as every job does
     * (pipeline0): the merged trace's figures come from its slices. */
    if (is_meta (ev, "stageprof_summary"))
      continue;
    /* Strings the reader passes as they are must be UTF-8 to be JSON. */
    if (!g_utf8_validate (ev->raw, ev->raw_len, NULL)) {
      bad_text++;
      continue;
    }
    /* pid 0: trace-wide metadata (links), not a process; in a merge they
     * go to the caller's process, so that each input's links stay its
     * own (every job of a batch has a pipeline0) */
    pid = ev->has_pid && ev->pid != 0 ? map_pid (&in, ev->pid) :
        is_meta (ev, "stageprof_link") ? own_pid : 0;
    if (is_meta (ev, "process_name") && pid) {
      const SpEventArg *a = sp_event_arg (ev, "name");
      g_hash_table_add (in.named, GINT_TO_POINTER ((gint) ev->pid));
      /* The caller's process keeps the caller's name. */
      if (pid == own_pid)
        continue;
      process_name (w, pid, a && !a->is_num ? a->str : "?", label);
    } else {
      /* A link's ts is its pipeline's, not a time on the axis. */
      copy_event (begin_event (w), ev, pid, is_meta (ev, "stageprof_link") ?
          0 : offset_us);
    }
    n++;
  }
  ok = err == NULL;
  if (!ok) {
    /* Nothing was written: the reader fails only before its first event. */
    g_propagate_error (error, err);
  } else {
    /* Processes without a name still get the label. */
    g_hash_table_iter_init (&it, in.pids);
    while (g_hash_table_iter_next (&it, &k, &v))
      if (!g_hash_table_contains (in.named, k)
          && GPOINTER_TO_UINT (v) != own_pid)
        process_name (w, GPOINTER_TO_UINT (v), "process", label);
    if (notes && sp_trace_reader_skipped (r))
      g_ptr_array_add (notes, g_strdup_printf ("%s: %s", trace_path,
              sp_trace_reader_skipped (r)));
    if (notes && sp_trace_reader_cut (r))
      g_ptr_array_add (notes, g_strdup_printf ("%s: %s", trace_path,
              sp_trace_reader_cut (r)));
    if (notes && bad_text)
      g_ptr_array_add (notes, g_strdup_printf ("%s: events with text that "
              "is not UTF-8 left out: %" G_GUINT64_FORMAT, trace_path,
              bad_text));
  }
  if (n_events)
    *n_events = n;
  g_hash_table_destroy (in.pids);
  g_hash_table_destroy (in.named);
  sp_trace_reader_free (r);
  return ok;
}

void
sp_merge_writer_add_slice (SpMergeWriter * w, guint pid, guint64 tid,
    const gchar * thread_name, const gchar * cat, const gchar * name,
    gdouble ts_us, gdouble dur_us, JsonObject * args)
{
  GString *o;

  if (thread_name) {
    o = begin_event (w);
    g_string_append_printf (o, "{\"name\":\"thread_name\",\"ph\":\"M\","
        "\"pid\":%u,\"tid\":%" G_GUINT64_FORMAT ",\"args\":{\"name\":", pid,
        tid);
    stage_json_str (o, thread_name);
    g_string_append (o, "}}\n");
  }
  o = begin_event (w);
  g_string_append (o, "{\"name\":");
  stage_json_str (o, name);
  if (cat) {
    g_string_append (o, ",\"cat\":");
    stage_json_str (o, cat);
  }
  g_string_append (o, ",\"ph\":\"X\",\"ts\":");
  append_us (o, ts_us);
  g_string_append (o, ",\"dur\":");
  append_us (o, dur_us);
  g_string_append_printf (o, ",\"pid\":%u,\"tid\":%" G_GUINT64_FORMAT, pid,
      tid);
  if (args) {
    JsonNode *n = json_node_init_object (json_node_alloc (), args);
    gchar *text = sp_json_to_string (n, 17, FALSE);
    g_string_append_printf (o, ",\"args\":%s", text);
    g_free (text);
    json_node_unref (n);
    json_object_unref (args);
  }
  g_string_append (o, "}\n");
}

void
sp_merge_writer_set_origin (SpMergeWriter * w, gint64 origin_wall_us)
{
  w->origin_wall_us = origin_wall_us;
}

gboolean
sp_merge_trace_wall_start (const gchar * path, gint64 * ts0_wall_us,
    gboolean * found, GError ** error)
{
  SpTraceReader *r = sp_trace_reader_open (path, error);
  GError *err = NULL;
  SpEvent *ev;

  *found = FALSE;
  if (!r)
    return FALSE;
  while (!*found && sp_trace_reader_next (r, &ev, &err)) {
    const SpEventArg *wc, *t;

    if (!is_meta (ev, "stageprof_start"))
      continue;
    wc = sp_event_arg (ev, "wall_clock_us");
    t = sp_event_arg (ev, "ts_us");
    if (wc && wc->is_num) {
      /* Clamped so that differences of two starts stay in range. */
      *ts0_wall_us = sp_to_int64 (CLAMP (wc->num - (t && t->is_num ?
                  t->num : 0), -4e18, 4e18));
      *found = TRUE;
    }
  }
  if (!err && sp_trace_reader_events (r) == 0)
    g_set_error (&err, SP_REPORT_ERROR, SP_REPORT_ERROR_EMPTY,
        "%s: no event in this trace", path);
  sp_trace_reader_free (r);
  if (err) {
    g_propagate_error (error, err);
    return FALSE;
  }
  return TRUE;
}

void
sp_merge_writer_abort (SpMergeWriter * w)
{
  sp_file_replace_abort (w->f);
  g_string_free (w->o, TRUE);
  g_free (w);
}

gboolean
sp_merge_writer_close (SpMergeWriter * w, GError ** error)
{
  GError *err = NULL;
  gboolean ok;

  if (w->origin_wall_us)
    g_string_append_printf (begin_event (w), "{\"name\":\"stageprof_start\","
        "\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"wall_clock_us\":%"
        G_GINT64_FORMAT ",\"ts_us\":0.000}}\n", w->origin_wall_us);
  g_string_append (w->o, "]\n");
  flush (w, TRUE);
  ok = sp_file_replace_commit (w->f, &err);
  g_string_free (w->o, TRUE);
  g_free (w);
  if (!ok) {
    g_set_error_literal (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        err->message);
    g_error_free (err);
  }
  return ok;
}

gboolean
sp_merge_traces (const gchar * const *inputs, const gchar * const *labels,
    const gchar * out_path, GPtrArray * notes, GError ** error)
{
  guint n = g_strv_length ((gchar **) inputs), i;
  gint64 *ts0 = g_new0 (gint64, n), origin = G_MAXINT64;
  gboolean *found = g_new0 (gboolean, n), ok = TRUE;
  SpMergeWriter *w = NULL;

  /* First pass: each input's wall-clock start (and whether it is a trace
   * at all, before anything is written). */
  for (i = 0; i < n && ok; i++) {
    ok = sp_merge_trace_wall_start (inputs[i], &ts0[i], &found[i], error);
    if (ok && found[i])
      origin = MIN (origin, ts0[i]);
  }
  if (origin == G_MAXINT64)
    origin = 0;
  if (ok)
    ok = (w = sp_merge_writer_new (out_path, error)) != NULL;
  for (i = 0; i < n && ok; i++) {
    gchar *base = g_path_get_basename (inputs[i]);
    const gchar *label = labels && labels[i] ? labels[i] : base;

    if (!found[i])
      g_ptr_array_add (notes, g_strdup_printf ("%s: no wall-clock start in "
              "this trace (written by an older stageprof?): placed at the "
              "start of the earliest input", inputs[i]));
    ok = sp_merge_writer_add_trace (w, inputs[i], label, 0,
        found[i] ? (gdouble) (ts0[i] - origin) : 0, NULL, notes, error);
    g_free (base);
  }
  if (w) {
    sp_merge_writer_set_origin (w, origin);
    if (ok)
      ok = sp_merge_writer_close (w, error);
    else
      sp_merge_writer_abort (w);
  }
  g_free (ts0);
  g_free (found);
  return ok;
}

/* ---- summaries ----------------------------------------------------------- */

typedef struct
{
  gint64 count;
  gdouble total_s;
  guint jobs;
  const JsonObject *last_summary;       /* the job that counted last */
} SpElemTotal;

static void
add_elements (GHashTable * totals, GPtrArray * order, JsonObject * summary)
{
  JsonArray *els;
  guint i;

  if (!json_object_has_member (summary, "elements"))
    return;
  els = json_object_get_array_member (summary, "elements");
  for (i = 0; els && i < json_array_get_length (els); i++) {
    JsonObject *e = json_array_get_object_element (els, i);
    const gchar *name = e ?
        json_object_get_string_member_with_default (e, "name", NULL) : NULL;
    SpElemTotal *t;

    if (!name)
      continue;
    t = g_hash_table_lookup (totals, name);
    if (!t) {
      t = g_new0 (SpElemTotal, 1);
      g_hash_table_insert (totals, g_strdup (name), t);
      g_ptr_array_add (order, g_strdup (name));
    }
    t->count += json_object_get_int_member_with_default (e, "count", 0);
    t->total_s += json_object_get_double_member_with_default (e,
        SP_KEY (elements, total_s), 0);
    /* an element has a row per thread it ran on: count the job once */
    if (t->last_summary != summary) {
      t->last_summary = summary;
      t->jobs++;
    }
  }
}

static gint
by_total (gconstpointer a, gconstpointer b, gpointer data)
{
  SpElemTotal *x = g_hash_table_lookup (data, *(gchar **) a);
  SpElemTotal *y = g_hash_table_lookup (data, *(gchar **) b);

  return x->total_s < y->total_s ? 1 : x->total_s > y->total_s ? -1 : 0;
}

static void
count_member (JsonObject * o, const gchar * key)
{
  json_object_set_int_member (o, key,
      json_object_get_int_member_with_default (o, key, 0) + 1);
}

JsonNode *
sp_merge_summaries (JsonArray * jobs)
{
  JsonObject *root = json_object_new (), *totals = json_object_new ();
  JsonObject *statuses = json_object_new (), *verdicts = json_object_new ();
  JsonArray *out = json_array_new (), *els = json_array_new ();
  GHashTable *elt = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  GPtrArray *order = g_ptr_array_new_with_free_func (g_free);
  JsonParser *p = json_parser_new ();
  gint64 frames = 0;
  gdouble wall = 0, cpu = 0;
  guint i;

  for (i = 0; i < json_array_get_length (jobs); i++) {
    JsonObject *job = json_object_ref (json_array_get_object_element (jobs, i));
    const gchar *sp = json_object_get_string_member_with_default (job,
        "summary_path", NULL);
    const gchar *verdict;

    count_member (statuses, json_object_get_string_member_with_default (job,
            "status", "unknown"));
    frames += json_object_get_int_member_with_default (job, "frames", 0);
    wall += json_object_get_double_member_with_default (job, "wall_s", 0);
    cpu += json_object_get_double_member_with_default (job, "cpu_s", 0);
    if (sp && sp_json_load_file (p, sp, NULL)
        && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p))) {
      JsonObject *s = json_node_get_object (json_parser_get_root (p));
      json_object_set_object_member (job, "summary", json_object_ref (s));
      add_elements (elt, order, s);
    }
    verdict = json_object_get_string_member_with_default (job, "verdict",
        NULL);
    if (verdict && *verdict && strcmp (verdict, "-") != 0) {
      gchar *kind = g_strdup (verdict);
      gchar *colon = strchr (kind, ':');
      if (colon)
        *colon = '\0';
      count_member (verdicts, g_strstrip (kind));
      g_free (kind);
    }
    json_array_add_object_element (out, job);
  }

  g_ptr_array_sort_with_data (order, by_total, elt);
  for (i = 0; i < order->len; i++) {
    SpElemTotal *t = g_hash_table_lookup (elt, order->pdata[i]);
    JsonObject *e = json_object_new ();
    json_object_set_string_member (e, "name", order->pdata[i]);
    json_object_set_int_member (e, "jobs", t->jobs);
    json_object_set_int_member (e, "count", t->count);
    json_object_set_double_member (e, SP_KEY (elements, total_s), t->total_s);
    json_array_add_object_element (els, e);
  }

  json_object_set_int_member (totals, "jobs", json_array_get_length (jobs));
  json_object_set_object_member (totals, "status", statuses);
  json_object_set_int_member (totals, "frames", frames);
  json_object_set_double_member (totals, "job_wall_s", wall);
  json_object_set_double_member (totals, "job_cpu_s", cpu);
  json_object_set_object_member (totals, "verdicts", verdicts);
  json_object_set_array_member (totals, "elements", els);
  json_object_set_array_member (root, "jobs", out);
  json_object_set_object_member (root, "totals", totals);

  g_object_unref (p);
  g_ptr_array_free (order, TRUE);
  g_hash_table_destroy (elt);
  {
    JsonNode *n = json_node_init_object (json_node_alloc (), root);
    json_object_unref (root);
    return n;
  }
}
