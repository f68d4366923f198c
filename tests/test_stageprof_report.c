/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof-report: every command on outputs the tracer writes in this
 * test (gst-launch-1.0 runs with GST_TRACERS set, one process per run, so
 * each trace is one pipeline as a user gets it), including a trace cut by
 * kill -9, a known 2x slowdown, a merge of three traces, the HTML report in
 * headless Chromium and the DOT graph through Graphviz.
 *
 * The runs are made once, before the tests fork (an unchecked fixture);
 * everything lives in one temporary directory removed at the end.
 */
#ifdef HAVE_CONFIG_H
#include "tmpdir.h"
#include "config.h"
#endif

#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <json-glib/json-glib.h>
#include <sqlite3.h>

#define TOOL TESTS_BUILD_DIR "/../tools/stageprof-report"

static gchar *dir;

static gchar *
path (const gchar * name)
{
  return g_build_filename (dir, name, NULL);
}

/* ---- running things ----------------------------------------------- */

/* Runs argv; fails the test if it did not exit normally (a crash). */
static gint
spawn (gchar ** argv, gchar ** envp, gchar ** out, gchar ** err)
{
  GError *e = NULL;
  gint status = 0;
  gchar *o = NULL, *r = NULL;

  fail_unless (g_spawn_sync (NULL, argv, envp, G_SPAWN_SEARCH_PATH, NULL,
          NULL, &o, &r, &status, &e), "cannot run %s: %s", argv[0],
      e ? e->message : "");
  fail_unless (WIFEXITED (status), "%s %s died by signal %d; stderr:\n%s",
      argv[0], argv[1] ? argv[1] : "", WTERMSIG (status), r);
  if (out)
    *out = o;
  else
    g_free (o);
  if (err)
    *err = r;
  else
    g_free (r);
  return WEXITSTATUS (status);
}

/* stageprof-report ARGS... (NULL-terminated): the exit status. */
static gint
tool (gchar ** out, gchar ** err, const gchar * first, ...)
{
  GPtrArray *argv = g_ptr_array_new ();
  const gchar *a;
  va_list ap;
  gint rc;

  g_ptr_array_add (argv, (gpointer) TOOL);
  va_start (ap, first);
  for (a = first; a; a = va_arg (ap, const gchar *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  rc = spawn ((gchar **) argv->pdata, NULL, out, err);
  g_ptr_array_free (argv, TRUE);
  return rc;
}

static gchar **
tracer_env (const gchar * tracers)
{
  return g_environ_setenv (g_get_environ (), "GST_TRACERS", tracers, TRUE);
}

/* gst-launch-1.0 DESC under stageprof with `params`. */
static void
launch (const gchar * params, const gchar * desc)
{
  gchar *tracers = g_strdup_printf ("stageprof(%s)", params);
  gchar *cmd = g_strdup_printf ("gst-launch-1.0 -q %s", desc);
  gchar **argv = NULL, **env = tracer_env (tracers), *err = NULL;
  gint rc;

  fail_unless (g_shell_parse_argv (cmd, NULL, &argv, NULL));
  rc = spawn (argv, env, NULL, &err);
  fail_unless (rc == 0, "'%s' failed (%d): %s", cmd, rc, err);
  g_free (err);
  g_strfreev (argv);
  g_strfreev (env);
  g_free (cmd);
  g_free (tracers);
}

/* A run where `slow` costs `burn_us` of CPU time a buffer and `steady`
 * 6 ms (stagetruth, tests/truth-element.h: it spins on its thread's CPU
 * clock, so its cost hardly moves with the machine's load, and the tracer
 * times it by that clock too); `nap` sleeps 1 ms a buffer (blocked, no
 * work) with the elements after it nested in its slice. */
static void
run_base (const gchar * tag, guint burn_us)
{
  gchar *trace = path (tag), *summary, *db = path ("runs.db"), *params, *desc;

  summary = g_strdup_printf ("%s-summary.json", trace);
  params = g_strdup_printf ("trace=%s.json,summary=%s,db=%s", trace,
      summary, db);
  desc = g_strdup_printf ("videotestsrc num-buffers=60 "
      "! video/x-raw,format=I420,width=320,height=240 ! queue "
      "! videoconvert ! video/x-raw,format=RGB "
      "! stagetruth name=slow mode=burn us=%u "
      "! stagetruth name=steady mode=burn us=6000 "
      "! stagetruth name=nap mode=sleep us=1000 ! fakesink", burn_us);
  launch (params, desc);
  g_free (desc);
  g_free (params);
  g_free (summary);
  g_free (db);
  g_free (trace);
}

static void
setup_runs (void)
{
  gchar *p, *params;

  dir = g_dir_make_tmp ("stageprof-report-XXXXXX", NULL);
  fail_unless (dir != NULL);
  run_base ("a", 2000);         /* a.json, a-summary.json, runs.db run 1 */
  run_base ("b", 4000);         /* 2x slower in `slow`; runs.db run 2 */
  p = path ("c.json");
  params = g_strdup_printf ("trace=%s,summary=none", p);
  launch (params, "videotestsrc name=src2 num-buffers=30 "
      "! video/x-raw,width=160,height=120 "
      "! videoflip name=flip method=clockwise ! fakesink name=out2");
  g_free (params);
  g_free (p);
}

static void
teardown_runs (void)
{
  rm_rf (dir);
  g_free (dir);
}

/* ---- JSON helpers -------------------------------------------------- */

static JsonNode *
parse (const gchar * text)
{
  JsonParser *p = json_parser_new ();
  GError *e = NULL;
  JsonNode *n;

  fail_unless (json_parser_load_from_data (p, text, -1, &e),
      "not JSON (%s):\n%.400s", e ? e->message : "", text);
  n = json_node_copy (json_parser_get_root (p));
  g_object_unref (p);
  return n;
}

static JsonObject *
find_row (JsonObject * root, const gchar * table, const gchar * name)
{
  JsonArray *a = json_object_get_array_member (root, table);
  guint i;

  for (i = 0; a && i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    if (!g_strcmp0 (json_object_get_string_member (o, "name"), name))
      return o;
  }
  return NULL;
}

static gdouble
dmember (JsonObject * o, const gchar * f)
{
  fail_unless (json_object_has_member (o, f), "no field %s", f);
  return json_object_get_double_member (o, f);
}

/* show FILE --format json, parsed. */
static JsonNode *
show_json (const gchar * file)
{
  gchar *out = NULL, *err = NULL;
  gint rc = tool (&out, &err, "show", file, "--format", "json", NULL);
  JsonNode *n;

  fail_unless (rc == 0, "show %s: exit %d: %s", file, rc, err);
  n = parse (out);
  g_free (out);
  g_free (err);
  return n;
}

/* ---- show ---------------------------------------------------------- */

/* Self time per element recomputed here from the trace's own slices, the
 * plain way (all in memory, sorted, a stack per thread): the reference the
 * tool's streaming pass must match. Element slices have no "cat" (or
 * "gpu"); "NAME event" slices are not samples; every nested slice is
 * subtracted. */
typedef struct
{
  gdouble ts, end;
  gchar *name;
  gboolean sample;
  gdouble work;                 /* its stageprof_work event's, or -1 */
} RefSlice;

static gint
cmp_ref (gconstpointer a, gconstpointer b)
{
  const RefSlice *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->end > y->end ? -1 : x->end < y->end;
}

static void
ref_finish (GHashTable * tot, GHashTable * cnt, RefSlice * s, gdouble child)
{
  gdouble *t, *c;

  if (!s->sample)
    return;
  t = g_hash_table_lookup (tot, s->name);
  if (!t) {
    t = g_new0 (gdouble, 1);
    c = g_new0 (gdouble, 1);
    g_hash_table_insert (tot, g_strdup (s->name), t);
    g_hash_table_insert (cnt, g_strdup (s->name), c);
  }
  c = g_hash_table_lookup (cnt, s->name);
  /* A slice drawn whole that also waited: its work is its self time. */
  *t += s->work >= 0 ? MIN (s->work, s->end - s->ts - child) :
      s->end - s->ts - child;
  *c += 1;
}

static gchar *
ref_key (gint64 tid, gdouble ts, const gchar * name)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%.0f:%s", tid, ts, name);
}

static void
reference_self_times (const gchar * trace, GHashTable * tot, GHashTable * cnt)
{
  gchar *text;
  JsonNode *n;
  JsonArray *ev;
  GHashTable *by_tid = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, (GDestroyNotify) g_array_unref);
  GHashTable *works = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, g_free);
  GHashTableIter it;
  gpointer k, v;
  guint i;

  fail_unless (g_file_get_contents (trace, &text, NULL, NULL));
  n = parse (text);
  g_free (text);
  ev = json_node_get_array (n);
  /* The work of slices drawn whole: by thread, start (ns) and name. */
  for (i = 0; i < json_array_get_length (ev); i++) {
    JsonObject *e = json_array_get_object_element (ev, i), *args;
    gdouble *w;
    if (g_strcmp0 (json_object_get_string_member (e, "name"),
            "stageprof_work"))
      continue;
    args = json_object_get_object_member (e, "args");
    w = g_new (gdouble, 1);
    *w = round (json_object_get_double_member (args, "work") * 1000);
    g_hash_table_insert (works, ref_key (json_object_get_int_member (e,
                "tid"), round (json_object_get_double_member (e, "ts") *
                1000), json_object_get_string_member (args, "element")), w);
  }
  for (i = 0; i < json_array_get_length (ev); i++) {
    JsonObject *e = json_array_get_object_element (ev, i);
    gint64 tid;
    GArray *a;
    RefSlice s;
    gchar *key;
    gdouble *w;
    if (g_strcmp0 (json_object_get_string_member (e, "ph"), "X"))
      continue;
    tid = json_object_get_int_member (e, "tid");
    a = g_hash_table_lookup (by_tid, &tid);
    if (!a) {
      a = g_array_new (FALSE, FALSE, sizeof (RefSlice));
      g_hash_table_insert (by_tid, g_memdup2 (&tid, sizeof (tid)), a);
    }
    /* In integer nanoseconds, as the trace has them. */
    s.ts = round (json_object_get_double_member (e, "ts") * 1000);
    s.end = s.ts + round (json_object_get_double_member (e, "dur") * 1000);
    s.name = g_strdup (json_object_get_string_member (e, "name"));
    s.sample = (!json_object_has_member (e, "cat")
        || !g_strcmp0 (json_object_get_string_member (e, "cat"), "gpu"))
        && !g_str_has_suffix (s.name, " event");
    key = ref_key (tid, s.ts, s.name);
    w = g_hash_table_lookup (works, key);
    s.work = w ? *w : -1;
    g_free (key);
    g_array_append_val (a, s);
  }
  g_hash_table_iter_init (&it, by_tid);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    GArray *a = v;
    RefSlice *stack[64];
    gdouble child[64];
    gint top = -1;
    g_array_sort (a, cmp_ref);
    for (i = 0; i < a->len; i++) {
      RefSlice *s = &g_array_index (a, RefSlice, i);
      while (top >= 0 && stack[top]->end <= s->ts) {
        ref_finish (tot, cnt, stack[top], child[top]);
        top--;
      }
      if (top >= 0)
        child[top] += s->end - s->ts;
      fail_unless (top < 63);
      stack[++top] = s;
      child[top] = 0;
    }
    for (; top >= 0; top--)
      ref_finish (tot, cnt, stack[top], child[top]);
    for (i = 0; i < a->len; i++)
      g_free (g_array_index (a, RefSlice, i).name);
  }
  g_hash_table_destroy (by_tid);
  g_hash_table_destroy (works);
  json_node_unref (n);
}

/* `src` without its stageprof_summary events, as a trace is that the
 * process did not finish (killed): the tool recomputes from the slices. */
static gchar *
strip_summaries (const gchar * src, const gchar * name)
{
  gchar *text = NULL, *dst = path (name), **lines;
  GString *out = g_string_new (NULL);
  guint i, n = 0;

  fail_unless (g_file_get_contents (src, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    if (strstr (lines[i], "\"stageprof_summary\"")) {
      n++;
      continue;
    }
    g_string_append (out, lines[i]);
    if (lines[i + 1])
      g_string_append_c (out, '\n');
  }
  fail_unless (n >= 1, "%s carries no run summary", src);
  fail_unless (g_file_set_contents (dst, out->str, out->len, NULL));
  g_strfreev (lines);
  g_string_free (out, TRUE);
  g_free (text);
  return dst;
}

/* Rows of `b` (show --format json) equal to those of `a` within the
 * rounding of a summary file (6 digits; a database keeps the doubles),
 * and the verdicts, exactly. */
static void
assert_same_profile (JsonObject * a, JsonObject * b, const gchar * what)
{
  static const gchar *const tables[] = { "elements", "threads", "queues" };
  static const gchar *const cols[] = { "count", "mean_ms", "median_ms",
    "total_s", "busy_pct", "worker_cpu_s", "mean_level", "blocked_pct",
    "cpu_wait_pct", NULL
  };
  guint ti, i, c;

  fail_unless_equals_string (json_object_get_string_member (b, "verdict"),
      json_object_get_string_member (a, "verdict"));
  /* the running time in the header is the run's, not the span of the
   * trace's events */
  fail_unless (fabs (dmember (b, "wall_s") - dmember (a, "wall_s")) <=
      1e-4 * dmember (a, "wall_s"), "%s: wall %f, %f in the summary", what,
      dmember (b, "wall_s"), dmember (a, "wall_s"));
  for (ti = 0; ti < G_N_ELEMENTS (tables); ti++) {
    JsonArray *rs = json_object_get_array_member (a, tables[ti]);
    fail_unless_equals_int (json_array_get_length (rs),
        json_array_get_length (json_object_get_array_member (b,
                tables[ti])));
    for (i = 0; i < json_array_get_length (rs); i++) {
      JsonObject *r = json_array_get_object_element (rs, i);
      const gchar *name = json_object_get_string_member (r, "name");
      JsonObject *m = find_row (b, tables[ti], name);
      fail_unless (m != NULL, "%s: %s %s missing", what, tables[ti], name);
      for (c = 0; cols[c]; c++)
        if (json_object_has_member (r, cols[c])
            && !json_node_is_null (json_object_get_member (r, cols[c])))
          fail_unless (json_object_has_member (m, cols[c])
              && fabs (dmember (m, cols[c]) - dmember (r, cols[c])) <=
              1e-5 * fabs (dmember (r, cols[c])) + 1e-9,
              "%s: %s %s %s: %f, %f in the summary", what, tables[ti], name,
              cols[c], json_object_has_member (m, cols[c]) ?
              dmember (m, cols[c]) : NAN, dmember (r, cols[c]));
    }
  }
}

/* A trace carries each run's summary: `show` on it gives the summary's
 * rows and verdict, exactly (the slices' self time of h264parse was 5x
 * the summary's: it could not tell work from a wait the tracer splits by
 * CPU time). */
GST_START_TEST (test_trace_carries_summary)
{
  gchar *trace = path ("a.json"), *summary = path ("a-summary.json");
  JsonNode *t = show_json (trace), *s = show_json (summary);

  assert_same_profile (json_node_get_object (s), json_node_get_object (t),
      "trace");
  json_node_unref (t);
  json_node_unref (s);
  g_free (trace);
  g_free (summary);
}

GST_END_TEST;

/* A codec pipeline (an encoder and a decoder with threads of their own, a
 * parser, a queue): the summary, the database, the trace, html and dot
 * give the same rows, workers' CPU included, and the same verdict. */
GST_START_TEST (test_outputs_agree_codec)
{
  gchar *t = path ("k.json"), *s = path ("k-summary.json"), *d =
      path ("k.db"), *h = path ("k.html"), *params, *out = NULL, *err =
      NULL, *text = NULL;
  JsonNode *nt, *ns, *nd;
  const gchar *verdict;

  params = g_strdup_printf ("trace=%s,summary=%s,db=%s", t, s, d);
  launch (params, "videotestsrc num-buffers=90 "
      "! video/x-raw,width=320,height=240 ! x264enc threads=2 "
      "speed-preset=faster ! h264parse ! queue ! avdec_h264 max-threads=2 "
      "! videoconvert ! fakesink");
  nt = show_json (t);
  ns = show_json (s);
  nd = show_json (d);
  assert_same_profile (json_node_get_object (ns), json_node_get_object (nt),
      "trace");
  assert_same_profile (json_node_get_object (ns), json_node_get_object (nd),
      "database");
  fail_unless (dmember (find_row (json_node_get_object (nt), "elements",
              "x264enc0"), "worker_cpu_s") > 0);
  verdict = json_object_get_string_member (json_node_get_object (ns),
      "verdict");
  fail_unless (tool (&out, &err, "html", "-o", h, t, NULL) == 0, "%s", err);
  fail_unless (g_file_get_contents (h, &text, NULL, NULL));
  fail_unless (strstr (text, verdict) != NULL, "html lacks '%s'", verdict);
  g_free (text);
  g_free (out);
  g_free (err);
  fail_unless (tool (&out, &err, "dot", "-o", "-", t, NULL) == 0, "%s", err);
  fail_unless (strstr (out, verdict) != NULL, "dot lacks '%s'", verdict);
  fail_unless (strstr (out, "threads:") != NULL, "dot: no workers' CPU");
  g_free (out);
  g_free (err);
  json_node_unref (nt);
  json_node_unref (ns);
  json_node_unref (nd);
  g_free (params);
  g_free (t);
  g_free (s);
  g_free (d);
  g_free (h);
}

GST_END_TEST;

/* Without the summary (a killed process), the tool's figures from a trace
 * are the trace's own: counts exact, totals to the nanosecond; and it
 * finds what the tracer's summary of the same run has. */
GST_START_TEST (test_show_trace)
{
  gchar *full = path ("a.json"), *trace = strip_summaries (full,
      "a-cut.json"), *summary = path ("a-summary.json");
  JsonNode *t = show_json (trace), *s = show_json (summary);
  JsonObject *to = json_node_get_object (t), *so = json_node_get_object (s);
  GHashTable *tot = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free), *cnt = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  JsonArray *rows = json_object_get_array_member (to, "elements");
  GHashTableIter it;
  gpointer k, v;
  guint i;

  fail_unless_equals_string (json_object_get_string_member (to, "kind"),
      "trace");
  fail_unless_equals_string (json_object_get_string_member (so, "kind"),
      "summary");
  reference_self_times (trace, tot, cnt);
  fail_unless (g_hash_table_size (tot) >= 5);
  /* One thread per element here, so one row per element. */
  fail_unless_equals_int (json_array_get_length (rows),
      g_hash_table_size (tot));
  g_hash_table_iter_init (&it, tot);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    JsonObject *r = find_row (to, "elements", k);
    gdouble want = *(gdouble *) v / 1e9;
    fail_unless (r != NULL, "%s missing", (gchar *) k);
    fail_unless_equals_float (dmember (r, "count"),
        *(gdouble *) g_hash_table_lookup (cnt, k));
    fail_unless (fabs (dmember (r, "total_s") - want) < 1e-9 + want * 1e-6,
        "%s: total %.9f s, the trace's slices give %.9f s", (gchar *) k,
        dmember (r, "total_s"), want);
    fail_unless (dmember (r, "min_ms") <= dmember (r, "median_ms") + 1e-9
        && dmember (r, "median_ms") <= dmember (r, "max_ms") + 1e-9);
  }
  /* Every element of the tracer's summary is there, with its count where
   * the element has a chain (a source's count depends on how the tracer
   * splits its intervals). */
  rows = json_object_get_array_member (so, "elements");
  for (i = 0; i < json_array_get_length (rows); i++) {
    const gchar *name = json_object_get_string_member
        (json_array_get_object_element (rows, i), "name");
    fail_unless (find_row (to, "elements", name) != NULL, "%s", name);
  }
  fail_unless_equals_float (dmember (find_row (to, "elements", "slow"),
          "count"), dmember (find_row (so, "elements", "slow"), "count"));
  fail_unless_equals_float (dmember (find_row (to, "elements", "slow"),
          "count"), 60);
  /* stagetruth burns 2 ms of CPU per buffer, inside its slice. */
  fail_unless (dmember (find_row (to, "elements", "slow"), "median_ms") >=
      2.0);
  /* The queue's levels come from its counter track(s). */
  fail_unless (dmember (find_row (to, "queues", "queue0"), "max_level") >=
      1);
  fail_unless (find_row (to, "threads", "queue0") != NULL);
  /* The verdict from the trace names the costliest element (6 ms). */
  fail_unless (strstr (json_object_get_string_member (to, "verdict"),
          "-bound: steady on thread queue0") != NULL, "%s",
      json_object_get_string_member (to, "verdict"));
  g_hash_table_destroy (tot);
  g_hash_table_destroy (cnt);
  json_node_unref (t);
  json_node_unref (s);
  g_free (trace);
  g_free (summary);
  g_free (full);
}

GST_END_TEST;

/* The summary, the database and the trace of one run give the same
 * figures: the trace says how much of a slice that also waited was work
 * (`nap` sleeps 1 ms inside its slice, around the sink's), and each
 * thread's run-queue delay. */
GST_START_TEST (test_three_outputs_agree)
{
  gchar *trace = path ("a.json"), *summary = path ("a-summary.json"),
      *db = path ("runs.db"), *out = NULL, *err = NULL;
  JsonNode *sn = show_json (summary), *tn = show_json (trace), *dn;
  JsonObject *so = json_node_get_object (sn), *to = json_node_get_object (tn),
      *dbo;
  JsonArray *rows;
  static const gchar *const shares[] = { "busy_pct", "wait_input_pct",
    "wait_output_pct", "blocked_pct", "cpu_wait_pct"
  };
  guint i, j, checked = 0;

  fail_unless (tool (&out, &err, "show", db, "--run", "1", "--format",
          "json", NULL) == 0, "%s", err);
  dn = parse (out);
  dbo = json_node_get_object (dn);
  rows = json_object_get_array_member (so, "elements");
  for (i = 0; i < json_array_get_length (rows); i++) {
    JsonObject *s = json_array_get_object_element (rows, i);
    const gchar *name = json_object_get_string_member (s, "name");
    JsonObject *t = find_row (to, "elements", name),
        *d = find_row (dbo, "elements", name);
    gdouble sm = dmember (s, "mean_ms");

    fail_unless (t && d, "%s: not in the trace's or the db's rows", name);
    /* The database holds the summary's figures (the JSON to 6 figures). */
    fail_unless (fabs (dmember (d, "mean_ms") - sm) <= 1e-5 * sm + 1e-6,
        "%s: mean %.6f ms in the db, %.6f ms in the summary", name,
        dmember (d, "mean_ms"), sm);
    fail_unless (dmember (d, "count") == dmember (s, "count"), "%s: count %.0f in the db, %.0f in the summary", name, dmember (d, "count"), dmember (s, "count"));
    /* A source's intervals are split by events too: its count may differ;
     * every element with a chain has one slice a buffer. */
    if (g_str_has_prefix (name, "videotestsrc"))
      continue;
    fail_unless_equals_float (dmember (t, "count"), dmember (s, "count"));
    fail_unless (fabs (dmember (t, "mean_ms") - sm) <= 0.01 + 0.02 * sm,
        "%s: mean %.4f ms from the trace, %.4f ms in the summary", name,
        dmember (t, "mean_ms"), sm);
    /* A put into a queue that did not wait is not drawn (a few us in the
     * slice around it, capsfilter0's here): 5 us a buffer. */
    fail_unless (fabs (dmember (t, "total_s") - dmember (s, "total_s")) <=
        5e-6 * dmember (s, "count") + 0.02 * dmember (s, "total_s"),
        "%s: total %.6f s from the "
        "trace, %.6f s in the summary", name, dmember (t, "total_s"),
        dmember (s, "total_s"));
    checked++;
  }
  fail_unless (checked >= 5, "%u elements compared", checked);
  /* nap's 1 ms sleep is not its work, in the trace either. */
  fail_unless (dmember (find_row (to, "elements", "nap"), "mean_ms") < 0.3,
      "nap: %.3f ms from the trace", dmember (find_row (to, "elements",
              "nap"), "mean_ms"));
  fail_unless (dmember (find_row (to, "elements", "steady"), "mean_ms") >=
      5.9);
  /* Each thread's shares, within 3 points (the trace's span of a thread
   * is its first slice to its last; the summary's its first hook to its
   * last). */
  rows = json_object_get_array_member (so, "threads");
  for (i = 0; i < json_array_get_length (rows); i++) {
    JsonObject *s = json_array_get_object_element (rows, i);
    const gchar *name = json_object_get_string_member (s, "name");
    JsonObject *t = find_row (to, "threads", name);

    fail_unless (t != NULL, "thread %s not in the trace's rows", name);
    for (j = 0; j < G_N_ELEMENTS (shares); j++)
      fail_unless (fabs (dmember (t, shares[j]) - dmember (s, shares[j])) <=
          3.0, "thread %s: %s %.1f from the trace, %.1f in the summary",
          name, shares[j], dmember (t, shares[j]), dmember (s, shares[j]));
  }
  /* The queue thread sleeps in nap 60 ms of its ~0.6 s. */
  fail_unless (dmember (find_row (to, "threads", "queue0"), "blocked_pct") >=
      5.0);
  json_node_unref (sn);
  json_node_unref (tn);
  json_node_unref (dn);
  g_free (out);
  g_free (err);
  g_free (db);
  g_free (trace);
  g_free (summary);
}

GST_END_TEST;

/* A trace's work events, blocked slices and run-queue delays, by hand:
 * every figure known to the nanosecond. */
GST_START_TEST (test_trace_work_events)
{
  static const gchar trace[] = "[\n"
      "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
      "\"args\":{\"name\":\"p\"}}\n"
      ",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":5,"
      "\"args\":{\"name\":\"src\"}}\n"
      /* dec: 20 ms around sink's 2, of its 18 ms of its own 1 ms work */
      ",{\"name\":\"dec\",\"ph\":\"X\",\"ts\":0,\"dur\":20000,\"pid\":1,"
      "\"tid\":5}\n"
      ",{\"name\":\"stageprof_work\",\"ph\":\"M\",\"ts\":0,\"pid\":1,"
      "\"tid\":5,\"args\":{\"element\":\"dec\",\"work\":1000,"
      "\"rest\":\"blocked\"}}\n"
      ",{\"name\":\"sink\",\"ph\":\"X\",\"ts\":2000,\"dur\":2000,"
      "\"pid\":1,\"tid\":5}\n"
      /* nap: blocked 4 ms, then 1 ms of work */
      ",{\"name\":\"Blocked\",\"cat\":\"wait\",\"ph\":\"X\",\"ts\":20000,"
      "\"dur\":4000,\"pid\":1,\"tid\":5,\"args\":{\"element\":\"nap\"}}\n"
      ",{\"name\":\"nap\",\"ph\":\"X\",\"ts\":24000,\"dur\":1000,\"pid\":1,"
      "\"tid\":5}\n"
      /* a work event before its slice (a reordered file): 2 ms of 5,
       * the rest waiting on output */
      ",{\"name\":\"stageprof_work\",\"ph\":\"M\",\"ts\":25000,\"pid\":1,"
      "\"tid\":5,\"args\":{\"element\":\"dec\",\"work\":2000,"
      "\"rest\":\"output\"}}\n"
      ",{\"name\":\"dec\",\"ph\":\"X\",\"ts\":25000,\"dur\":5000,"
      "\"pid\":1,\"tid\":5}\n"
      ",{\"name\":\"stageprof_thread\",\"ph\":\"M\",\"pid\":1,\"tid\":5,"
      "\"args\":{\"cpu_wait\":0.001}}\n]\n";
  gchar *file = path ("work.json");
  JsonNode *n;
  JsonObject *o, *r;

  fail_unless (g_file_set_contents (file, trace, -1, NULL));
  n = show_json (file);
  o = json_node_get_object (n);
  r = find_row (o, "elements", "dec");
  fail_unless (r != NULL);
  fail_unless_equals_float (dmember (r, "count"), 2);
  fail_unless (fabs (dmember (r, "total_s") - 0.003) < 1e-9, "%.9f",
      dmember (r, "total_s"));
  fail_unless (fabs (dmember (find_row (o, "elements", "sink"), "total_s") -
          0.002) < 1e-9);
  fail_unless (fabs (dmember (find_row (o, "elements", "nap"), "total_s") -
          0.001) < 1e-9);
  /* 30 ms: busy 6, wait on output 3, blocked 21 less 1 of CPU wait. */
  r = find_row (o, "threads", "src");
  fail_unless (r != NULL);
  fail_unless (fabs (dmember (r, "busy_pct") - 20.0) < 1e-6, "%f",
      dmember (r, "busy_pct"));
  fail_unless (fabs (dmember (r, "wait_output_pct") - 10.0) < 1e-6);
  fail_unless (fabs (dmember (r, "wait_input_pct")) < 1e-6);
  fail_unless (fabs (dmember (r, "blocked_pct") - 200.0 / 3) < 1e-6, "%f",
      dmember (r, "blocked_pct"));
  fail_unless (fabs (dmember (r, "cpu_wait_pct") - 10.0 / 3) < 1e-6, "%f",
      dmember (r, "cpu_wait_pct"));
  /* dec was blocked 17 of the thread's 30 ms. */
  fail_unless (g_str_has_prefix (json_object_get_string_member (o,
              "verdict"), "blocked: dec on thread src (blocked 5"), "%s",
      json_object_get_string_member (o, "verdict"));
  json_node_unref (n);
  g_free (file);
}

GST_END_TEST;

/* A slice longer than the tracer's 100 ms ordering window comes after the
 * slices it encloses (some of them, the rest after it), then its work
 * event: its children are still subtracted and its work still found. An
 * element's worker threads name the verdict. */
GST_START_TEST (test_trace_late_slice)
{
  static const gchar trace[] = "[\n"
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":6,"
      "\"args\":{\"name\":\"q\"}}\n"
      ",{\"name\":\"a\",\"ph\":\"X\",\"ts\":1000,\"dur\":1000,\"pid\":1,"
      "\"tid\":6}\n"
      ",{\"name\":\"b\",\"ph\":\"X\",\"ts\":3000,\"dur\":1000,\"pid\":1,"
      "\"tid\":6}\n"
      ",{\"name\":\"b\",\"ph\":\"X\",\"ts\":3100,\"dur\":500,\"pid\":1,"
      "\"tid\":6}\n"
      ",{\"name\":\"enc\",\"ph\":\"X\",\"ts\":0,\"dur\":200000,"
      "\"pid\":1,\"tid\":6}\n"
      ",{\"name\":\"stageprof_work\",\"ph\":\"M\",\"ts\":0,\"pid\":1,"
      "\"tid\":6,\"args\":{\"element\":\"enc\",\"work\":5000,"
      "\"rest\":\"blocked\"}}\n"
      ",{\"name\":\"a\",\"ph\":\"X\",\"ts\":150000,\"dur\":2000,"
      "\"pid\":1,\"tid\":6}\n"
      ",{\"name\":\"stageprof_workers\",\"ph\":\"M\",\"pid\":1,\"tid\":6,"
      "\"args\":{\"element\":\"enc\",\"kind\":\"encode\",\"workers\":2,"
      "\"cpu\":0.3}}\n]\n";
  gchar *file = path ("late.json"), *out = NULL, *err = NULL;
  JsonNode *n;
  JsonObject *o, *r;

  fail_unless (g_file_set_contents (file, trace, -1, NULL));
  fail_unless (tool (&out, &err, "show", file, "--format", "json", NULL) ==
      0, "%s", err);
  /* Every slice was placed: no note. */
  fail_if (strstr (err, "could not be matched") != NULL, "%s", err);
  n = parse (out);
  o = json_node_get_object (n);
  r = find_row (o, "elements", "enc");
  fail_unless (r != NULL);
  fail_unless (fabs (dmember (r, "total_s") - 0.005) < 1e-9, "%.9f",
      dmember (r, "total_s"));
  fail_unless_equals_float (dmember (r, "workers"), 2);
  fail_unless (fabs (dmember (r, "worker_cpu_s") - 0.3) < 1e-9);
  /* a: 1 + 2 ms; b: 0.5 + 0.5 ms (the second b nested in the first). */
  fail_unless (fabs (dmember (find_row (o, "elements", "a"), "total_s") -
          0.003) < 1e-9);
  fail_unless (fabs (dmember (find_row (o, "elements", "b"), "total_s") -
          0.001) < 1e-9, "%.9f", dmember (find_row (o, "elements", "b"),
          "total_s"));
  /* 200 ms: 9 ms of work, the rest blocked in enc (waiting for its
   * workers). */
  r = find_row (o, "threads", "q");
  fail_unless (fabs (dmember (r, "busy_pct") - 4.5) < 1e-6, "%f",
      dmember (r, "busy_pct"));
  fail_unless (fabs (dmember (r, "blocked_pct") - 95.5) < 1e-6);
  fail_unless (g_str_has_prefix (json_object_get_string_member (o,
              "verdict"), "encode-bound: enc on thread q (working 2 % of "
          "the running time, waiting 96 % for its 2 threads (1.5 cores))"),
      "%s", json_object_get_string_member (o, "verdict"));
  json_node_unref (n);
  g_free (out);
  g_free (err);
  g_free (file);
}

GST_END_TEST;

GST_START_TEST (test_show_db_and_formats)
{
  gchar *db = path ("runs.db"), *trace = path ("a.json"), *out = NULL,
      *err = NULL;
  JsonNode *n;
  JsonObject *slow;

  /* The latest run (b) by default, any run on request. */
  {
    gchar *r1 = NULL, *r2 = NULL, *dflt = NULL;
    fail_unless (tool (&dflt, &err, "show", db, "--format", "json",
            NULL) == 0, "%s", err);
    g_free (err);
    fail_unless (tool (&r2, &err, "show", db, "--run", "2", "--format",
            "json", NULL) == 0, "%s", err);
    g_free (err);
    fail_unless (tool (&r1, &err, "show", db, "--run", "1", "--format",
            "json", NULL) == 0, "%s", err);
    g_free (err);
    fail_unless_equals_string (dflt, r2);
    fail_unless (strcmp (r1, r2) != 0);
    n = parse (r1);
    slow = find_row (json_node_get_object (n), "elements", "slow");
    fail_unless (slow && dmember (slow, "count") == 60);
    fail_unless_equals_string (json_object_get_string_member (slow, "run"),
        "1");
    json_node_unref (n);
    g_free (r1);
    g_free (r2);
    g_free (dflt);
  }

  /* Text: the tables and the verdict. */
  fail_unless (tool (&out, &err, "show", trace, NULL) == 0);
  fail_unless (strstr (out, "Elements") && strstr (out, "Verdict:")
      && strstr (out, "slow"), "%s", out);
  g_free (out);
  g_free (err);
  /* --top 1 --sort count: one element row, then a "more rows" line. */
  fail_unless (tool (&out, &err, "show", trace, "--top", "1", "--sort",
          "name", "--format", "csv", NULL) == 0);
  fail_unless (g_str_has_prefix (out, "Node,Thread,Count,"), "%s", out);
  fail_unless (strstr (out, "capsfilter0,") != NULL, "%s", out);
  fail_unless_equals_int (g_strv_length (g_strsplit (out, "\n", -1)), 3);
  g_free (out);
  g_free (err);
  fail_unless (tool (&out, &err, "show", trace, "--format", "csv", "--table",
          "queues", NULL) == 0);
  fail_unless (g_str_has_prefix (out, "Queue,Items,") && strstr (out,
          "\nqueue0,"), "%s", out);
  g_free (out);
  g_free (err);
  fail_unless (tool (&out, &err, "show", trace, "--format", "markdown",
          NULL) == 0);
  fail_unless (strstr (out, "| slow | queue0 |") && strstr (out, "| --- |"),
      "%s", out);
  g_free (out);
  g_free (err);
  /* Selecting what is not there: exit 2, naming what is. */
  fail_unless_equals_int (tool (&out, &err, "show", trace, "--pipeline",
          "nope", NULL), 2);
  fail_unless (strstr (err, "nope") && strstr (err, "pipeline0"), "%s", err);
  g_free (out);
  g_free (err);
  fail_unless_equals_int (tool (&out, &err, "show", db, "--run", "9", NULL),
      2);
  fail_unless (strstr (err, "no run '9'") != NULL, "%s", err);
  g_free (out);
  g_free (err);
  fail_unless_equals_int (tool (NULL, NULL, "show", trace, "--sort", "x",
          NULL), 2);
  fail_unless_equals_int (tool (NULL, NULL, "show", NULL), 2);
  fail_unless_equals_int (tool (NULL, NULL, "frobnicate", NULL), 2);
  g_free (db);
  g_free (trace);
}

GST_END_TEST;

/* kill -9 in the middle of a run: the complete events are read and the
 * note says where the trace was cut; a cut inside a line too. */
GST_START_TEST (test_truncated_trace)
{
  gchar *trace = path ("killed.json"), *cut = path ("cut.json");
  gchar *tracers = g_strdup_printf ("stageprof(trace=%s,summary=none)",
      trace);
  gchar **env = tracer_env (tracers), *out = NULL, *err = NULL, *text;
  const gchar *argv[] = { "gst-launch-1.0", "-q", "videotestsrc",
    "num-buffers=100000", "!", "video/x-raw,width=160,height=120", "!",
    "queue", "!", "identity", "name=slow", "sleep-time=1000", "!",
    "fakesink", NULL
  };
  GPid pid;
  gsize len = 0;
  gint i, status;

  fail_unless (g_spawn_async (NULL, (gchar **) argv, env,
          G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, &pid, NULL));
  /* Until the writer has flushed some slices (it does every 100 ms). */
  for (i = 0; i < 600; i++) {
    GStatBuf st;
    if (g_stat (trace, &st) == 0 && st.st_size > 30000)
      break;
    g_usleep (50000);
  }
  kill (pid, SIGKILL);
  waitpid (pid, &status, 0);
  g_spawn_close_pid (pid);
  fail_unless (WIFSIGNALED (status), "gst-launch ended before the kill");

  fail_unless (tool (&out, &err, "show", trace, NULL) == 0, "%s", err);
  fail_unless (strstr (err, "without its closing") != NULL, "%s", err);
  fail_unless (strstr (out, "slow") != NULL, "%s", out);
  g_free (out);
  g_free (err);

  /* Cut inside an event: the same, the partial event left out. */
  fail_unless (g_file_get_contents (trace, &text, &len, NULL));
  fail_unless (len > 1000);
  fail_unless (g_file_set_contents (cut, text, len - 25, NULL));
  g_free (text);
  fail_unless (tool (&out, &err, "show", cut, "--format", "json", NULL) == 0,
      "%s", err);
  fail_unless (strstr (err, "inside an event") != NULL, "%s", err);
  {
    JsonNode *n = parse (out);
    JsonObject *o = json_node_get_object (n);
    JsonObject *slow = find_row (o, "elements", "slow");
    fail_unless (slow && dmember (slow, "count") >= 1);
    fail_unless (json_array_get_length (json_object_get_array_member (o,
                "notes")) == 1);
    json_node_unref (n);
  }
  g_free (out);
  g_free (err);
  g_strfreev (env);
  g_free (tracers);
  g_free (trace);
  g_free (cut);
}

GST_END_TEST;

static void
write_file (const gchar * name, const gchar * text, gssize len)
{
  gchar *p = path (name);

  fail_unless (g_file_set_contents (p, text, len, NULL));
  g_free (p);
}

/* Each: exit 2 (nothing to show), a message naming the file, no crash. */
static void
expect_refused (const gchar * name, const gchar * what)
{
  gchar *p = path (name), *out = NULL, *err = NULL;
  gint rc = tool (&out, &err, "show", p, NULL);

  fail_unless_equals_int (rc, 2);
  fail_unless (strstr (err, name) != NULL, "%s: message without the file "
      "name: %s", name, err);
  fail_unless (strstr (err, what) != NULL, "%s: expected '%s' in: %s", name,
      what, err);
  fail_unless_equals_string (out, "");
  g_free (out);
  g_free (err);
  g_free (p);
}

GST_START_TEST (test_bad_inputs)
{
  static const gchar bin[] = { 0x7f, 'E', 'L', 'F', 0, 1, 2, 3 };
  gchar *p = path ("empty.db");
  sqlite3 *db;

  write_file ("text.txt", "hello, world\n", -1);
  expect_refused ("text.txt", "not a stageprof output");
  write_file ("other.json", "{\"a\": [1, 2]}", -1);
  expect_refused ("other.json", "not a stageprof summary");
  write_file ("broken.json", "{\"elements\": [", -1);
  expect_refused ("broken.json", "not valid JSON");
  write_file ("zero.json", "", 0);
  expect_refused ("zero.json", "empty");
  write_file ("bin.dat", bin, sizeof (bin));
  expect_refused ("bin.dat", "not a stageprof output");
  write_file ("array.json", "[1, 2, 3]", -1);
  expect_refused ("array.json", "not a trace event");
  write_file ("meta.json", "[{\"name\":\"process_name\",\"ph\":\"M\","
      "\"pid\":1,\"args\":{\"name\":\"p\"}}]", -1);
  expect_refused ("meta.json", "no slices");
  write_file ("csv.csv", "table,name\nelement,x\n", -1);
  expect_refused ("csv.csv", "CSV");
  expect_refused ("missing.json", "cannot open");

  /* An empty stageprof database: the schema, no run. */
  fail_unless (sqlite3_open (p, &db) == SQLITE_OK);
  fail_unless (sqlite3_exec (db, "CREATE TABLE runs (run_id INTEGER PRIMARY "
          "KEY, started_at TEXT, pid INTEGER, argv TEXT); CREATE TABLE "
          "snapshots (snapshot_id INTEGER PRIMARY KEY, run_id INTEGER, "
          "taken_at TEXT, wall_s REAL, final INTEGER, verdict TEXT); CREATE "
          "TABLE elements (snapshot_id INTEGER, name TEXT, thread TEXT);",
          NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close (db);
  expect_refused ("empty.db", "no snapshot");
  fail_unless (sqlite3_open (p, &db) == SQLITE_OK);
  fail_unless (sqlite3_exec (db, "DROP TABLE elements", NULL, NULL,
          NULL) == SQLITE_OK);
  sqlite3_close (db);
  expect_refused ("empty.db", "not stageprof's");
  g_free (p);
}

GST_END_TEST;

/* json-glib recurses: 100,000 nested arrays overflowed the stack. */
GST_START_TEST (test_deep_nesting)
{
  GString *deep = g_string_new ("{\"elements\":");
  guint i;

  for (i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  for (i = 0; i < 100000; i++)
    g_string_append_c (deep, ']');
  g_string_append_c (deep, '}');
  write_file ("deep.json", deep->str, deep->len);
  expect_refused ("deep.json", "nested more than 512 deep");
  g_string_free (deep, TRUE);
}

GST_END_TEST;

/* Issue 37 #6-8 and #12: inputs that cost memory without bound or ended
 * the read quietly. */
GST_START_TEST (test_bounded_inputs)
{
  GString *t = g_string_new ("[");
  gchar *p, *out = NULL, *err = NULL, *big;
  guint i;
  gint rc;
  FILE *f;

  /* more distinct names than stageprof-report keeps: refused, saying so */
  for (i = 0; i <= 100001; i++)
    g_string_append_printf (t, "%s{\"name\":\"el%u\",\"ph\":\"X\","
        "\"ts\":%u,\"dur\":1,\"pid\":1,\"tid\":1}", i ? "," : "", i, i * 2);
  g_string_append (t, "]");
  write_file ("names.json", t->str, t->len);
  p = path ("names.json");
  rc = tool (&out, &err, "show", p, NULL);
  fail_unless (rc != 0 && strstr (err, "more than 100000 distinct") != NULL,
      "exit %d: %s", rc, err);
  g_free (out);
  g_free (err);
  g_free (p);

  /* an event over 16 MiB between two good ones: skipped, and said with
   * its byte offset; the one after it is read */
  g_string_assign (t, "[{\"name\":\"before0\",\"ph\":\"X\",\"ts\":1,"
      "\"dur\":5,\"pid\":1,\"tid\":1},");
  i = t->len;
  g_string_append (t, "{\"name\":\"huge\",\"ph\":\"X\",\"ts\":10,\"dur\":1,"
      "\"pid\":1,\"tid\":1,\"args\":{\"s\":\"");
  big = g_strnfill (17 << 20, 'x');
  g_string_append (t, big);
  g_free (big);
  g_string_append (t, "\\\"}\"}},{\"name\":\"after0\",\"ph\":\"X\",\"ts\":20,"
      "\"dur\":5,\"pid\":1,\"tid\":1}]");
  write_file ("huge.json", t->str, t->len);
  p = path ("huge.json");
  rc = tool (&out, &err, "show", p, NULL);
  big = g_strdup_printf ("(the first at byte %u)", i);
  fail_unless (rc == 0 && strstr (out, "before0") && strstr (out, "after0")
      && (strstr (out, big) || strstr (err, big)), "exit %d, %s\n%s\n%s",
      rc, big, out, err);
  g_free (big);
  g_free (out);
  g_free (err);
  g_free (p);
  g_string_free (t, TRUE);

  /* a summary larger than any stageprof writes: refused before it is
   * read (sparse: no disk used) */
  p = path ("vast.json");
  f = fopen (p, "w");
  fail_unless (f != NULL);
  fputs ("{\"elements\": [", f);
  fail_unless (ftruncate (fileno (f), (off_t) 300 << 20) == 0);
  fclose (f);
  g_free (p);
  expect_refused ("vast.json", "at most 256 MB");

  /* a directory is not "empty" */
  p = path ("adir");
  fail_unless (g_mkdir (p, 0755) == 0);
  g_free (p);
  expect_refused ("adir", "Is a directory");
}

GST_END_TEST;

static gchar *
with_bom (const gchar * src, const gchar * name)
{
  gchar *text = NULL, *p = path (name), *bom;
  gsize len = 0;

  fail_unless (g_file_get_contents (src, &text, &len, NULL));
  bom = g_strconcat ("\xef\xbb\xbf", text, NULL);
  fail_unless (g_file_set_contents (p, bom, -1, NULL));
  g_free (bom);
  g_free (text);
  return p;
}

static gboolean
same_contents (const gchar * a, const gchar * b)
{
  gchar *ta = NULL, *tb = NULL;
  gboolean same;

  fail_unless (g_file_get_contents (a, &ta, NULL, NULL));
  fail_unless (g_file_get_contents (b, &tb, NULL, NULL));
  same = strcmp (ta, tb) == 0;
  g_free (ta);
  g_free (tb);
  return same;
}

/* -o naming an input is refused before anything is written (merge did,
 * html and dot overwrote their input); -o on a device writes into it and
 * leaves it a device; a summary or a trace that an editor saved with a
 * byte-order mark reads as without. */
GST_START_TEST (test_outputs_and_bom)
{
  gchar *sum = path ("o-summary.json"), *trace = path ("o-trace.json");
  gchar *keep = path ("o-keep.json"), *alias, *dev = path ("o-null");
  gchar *params, *bsum, *btrace, *out = NULL, *err = NULL;
  const gchar *cmds[] = { "html", "dot", "show", "merge" };
  GStatBuf st;
  guint i;

  params = g_strdup_printf ("summary=%s,trace=%s", sum, trace);
  launch (params, "videotestsrc num-buffers=10 ! fakesink");
  fail_unless (g_file_get_contents (trace, &out, NULL, NULL));
  fail_unless (g_file_set_contents (keep, out, -1, NULL));
  g_free (out);
  alias = g_strdup_printf ("%s/./o-trace.json", dir);
  for (i = 0; i < G_N_ELEMENTS (cmds); i++) {
    fail_unless_equals_int (tool (&out, &err, cmds[i], "-o", alias, trace,
            NULL), 2);
    fail_unless (strstr (err, "the output is also an input"), "%s: %s",
        cmds[i], err);
    fail_unless (same_contents (trace, keep), "%s -o IN IN changed IN",
        cmds[i]);
    g_free (out);
    g_free (err);
  }

  fail_unless (mknod (dev, S_IFCHR | 0666, makedev (1, 3)) == 0);
  for (i = 0; i < G_N_ELEMENTS (cmds); i++) {
    fail_unless_equals_int (tool (&out, &err, cmds[i], "-o", dev, trace,
            NULL), 0);
    fail_unless (g_lstat (dev, &st) == 0 && S_ISCHR (st.st_mode),
        "%s -o DEVICE replaced the device", cmds[i]);
    g_free (out);
    g_free (err);
  }

  bsum = with_bom (sum, "o-bom-summary.json");
  btrace = with_bom (trace, "o-bom-trace.json");
  fail_unless_equals_int (tool (&out, &err, "show", bsum, NULL), 0);
  fail_unless (strstr (out, "videotestsrc0"), "%s", err);
  g_free (out);
  g_free (err);
  fail_unless_equals_int (tool (&out, &err, "show", btrace, NULL), 0);
  fail_unless (strstr (out, "videotestsrc0"), "%s", err);
  g_free (out);
  g_free (err);

  g_free (bsum);
  g_free (btrace);
  g_free (params);
  g_free (alias);
  g_free (dev);
  g_free (keep);
  g_free (sum);
  g_free (trace);
}

GST_END_TEST;

/* A trace cut anywhere or with any byte damaged: exit 0 (what was
 * complete) or 2 (nothing to show), never a crash or a hang. */
GST_START_TEST (test_damaged_traces)
{
  gchar *a = path ("a.json"), *d = path ("damaged.json"), *text, *out, *err;
  GRand *rand = g_rand_new_with_seed (12);
  gsize len = 0;
  guint i;

  fail_unless (g_file_get_contents (a, &text, &len, NULL));
  for (i = 0; i < 60; i++) {
    gint rc;
    if (i < 30) {
      fail_unless (g_file_set_contents (d, text, len * i / 30 +
              g_rand_int_range (rand, 0, 50), NULL));
    } else {
      gchar *copy = g_memdup2 (text, len);
      guint k;
      for (k = 0; k < 1 + i % 4; k++)
        copy[g_rand_int_range (rand, 0, len)] = (gchar) g_rand_int_range
            (rand, 0, 256);
      fail_unless (g_file_set_contents (d, copy, len, NULL));
      g_free (copy);
    }
    rc = tool (&out, &err, "show", d, NULL);
    fail_unless (rc == 0 || rc == 2, "exit %d on damaged input %u: %s", rc,
        i, err);
    if (rc == 2)
      fail_unless (strstr (err, "damaged.json") != NULL, "%s", err);
    g_free (out);
    g_free (err);
  }
  g_rand_free (rand);
  g_free (text);
  g_free (a);
  g_free (d);
}

GST_END_TEST;

/* Newer or older stageprof outputs: unknown fields ignored, optional ones
 * missing, per-quantity counter tracks, extra db columns. */
GST_START_TEST (test_tolerant_readers)
{
  gchar *out = NULL, *err = NULL, *p;
  JsonNode *n;
  JsonObject *o;
  sqlite3 *db;

  write_file ("new.json", "{\"wall_s\":1.5,\"schema\":7,\"elements\":["
      "{\"name\":\"dec\",\"thread\":\"t1\",\"pipeline\":\"p\",\"run\":2,"
      "\"count\":10,\"mean_ms\":2,\"total_s\":0.02,\"future\":[1,{}]},"
      "{\"name\":\"conv\",\"count\":5}],\"threads\":[{\"name\":\"t1\","
      "\"busy_pct\":50,\"cpu_wait_pct\":3}],\"os_threads\":[{}]}", -1);
  p = path ("new.json");
  n = show_json (p);
  o = json_node_get_object (n);
  fail_unless_equals_float (dmember (find_row (o, "elements", "dec"),
          "mean_ms"), 2);
  fail_unless (json_node_is_null (json_object_get_member (find_row (o,
                  "elements", "conv"), "p90_ms")));
  json_node_unref (n);
  fail_unless (tool (&out, &err, "show", p, "--run", "2", NULL) == 0, "%s",
      err);
  g_free (out);
  g_free (err);
  g_free (p);

  write_file ("split.json", "[\n"
      "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":3,\"args\":{\"name\":"
      "\"p\"}},\n"
      "{\"name\":\"dec\",\"ph\":\"X\",\"ts\":10,\"dur\":100,\"pid\":3,"
      "\"tid\":\"main\",\"extra\":{\"deep\":[1,2,{\"x\":null}]},"
      "\"args\":{\"frame\":1,\"nested\":{\"a\":1}}},\n"
      "{\"name\":\"Blocked\",\"cat\":\"blocked\",\"ph\":\"X\",\"ts\":20,"
      "\"dur\":10,\"pid\":3,\"tid\":\"main\"},\n"
      "{\"name\":\"sink\",\"ph\":\"X\",\"ts\":50,\"dur\":20,\"pid\":3,"
      "\"tid\":\"main\"},\n"
      "{\"name\":\"q buffers\",\"ph\":\"C\",\"ts\":10,\"pid\":3,"
      "\"args\":{\"value\":7}},\n"
      "{\"name\":\"q bytes\",\"ph\":\"C\",\"ts\":10,\"pid\":3,"
      "\"args\":{\"value\":7000}},\n"
      "{\"name\":\"q buffers\",\"ph\":\"C\",\"ts\":60,\"pid\":3,"
      "\"args\":{\"value\":0}},\n"
      "{\"name\":\"thing\",\"ph\":\"i\",\"ts\":61,\"pid\":3,\"s\":\"g\"}\n]",
      -1);
  p = path ("split.json");
  n = show_json (p);
  o = json_node_get_object (n);
  /* dec: 100 us, minus the 20 us of sink and the 10 us of a slice of an
   * unknown category nested in it; that slice is no element. */
  fail_unless (fabs (dmember (find_row (o, "elements", "dec"), "total_s") -
          70e-6) < 1e-9);
  fail_unless (find_row (o, "elements", "Blocked") == NULL);
  fail_unless_equals_float (dmember (find_row (o, "queues", "q"),
          "max_level"), 7);
  fail_unless_equals_float (dmember (find_row (o, "queues", "q"),
          "max_bytes"), 7000);
  json_node_unref (n);
  g_free (p);

  /* A db with the pipeline and run columns other versions add. */
  p = path ("cols.db");
  fail_unless (sqlite3_open (p, &db) == SQLITE_OK);
  fail_unless (sqlite3_exec (db, "CREATE TABLE runs (run_id INTEGER PRIMARY "
          "KEY, started_at TEXT, pid INTEGER, argv TEXT); CREATE TABLE "
          "snapshots (snapshot_id INTEGER PRIMARY KEY, run_id INTEGER, "
          "taken_at TEXT, wall_s REAL, final INTEGER, verdict TEXT);"
          "CREATE TABLE elements (snapshot_id INTEGER, pipeline TEXT, "
          "run INTEGER, name TEXT, thread TEXT, count INTEGER, mean_ms REAL,"
          " total_s REAL, novel REAL);"
          "INSERT INTO runs VALUES (1, 'x', 1, 'a');"
          "INSERT INTO snapshots VALUES (1, 1, 'x', 1.0, 1, 'v1');"
          "INSERT INTO snapshots VALUES (2, 1, 'x', 2.0, 1, 'v2');"
          "INSERT INTO elements VALUES (1, 'p1', 1, 'e', 't', 3, 1.0, 0.003,"
          " 9);"
          "INSERT INTO elements VALUES (2, 'p2', 1, 'e', 't', 4, 2.0, 0.008,"
          " 9);", NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close (db);
  fail_unless (tool (&out, &err, "show", p, "--pipeline", "p1", "--format",
          "json", NULL) == 0, "%s", err);
  n = parse (out);
  fail_unless_equals_float (dmember (find_row (json_node_get_object (n),
              "elements", "e"), "count"), 3);
  json_node_unref (n);
  g_free (out);
  g_free (err);
  g_free (p);
}

GST_END_TEST;

/* ---- diff ---------------------------------------------------------- */

static JsonObject *
diff_row (JsonObject * o, const gchar * name)
{
  return find_row (o, "elements", name);
}

GST_START_TEST (test_diff_slowdown)
{
  gchar *a = path ("a.json"), *b = path ("b.json"), *bs =
      path ("b-summary.json"), *out = NULL, *err = NULL;
  JsonNode *n;
  JsonObject *o, *slow, *conv;

  /* `slow` twice as slow: flagged; `steady` unchanged: not. */
  fail_unless (tool (&out, &err, "diff", a, b, "--format", "json", NULL) ==
      0, "%s", err);
  n = parse (out);
  o = json_node_get_object (n);
  slow = diff_row (o, "slow");
  conv = diff_row (o, "steady");
  fail_unless (slow && conv);
  fail_unless_equals_string (json_object_get_string_member (slow, "change"),
      "slower");
  /* +100 % of its CPU time (a loaded machine's cold caches add a little
   * to both runs). */
  fail_unless (dmember (slow, "mean_change_pct") > 60, "%f",
      dmember (slow, "mean_change_pct"));
  fail_unless_equals_string (json_object_get_string_member (conv, "change"),
      "noise");
  fail_unless (json_object_get_string_member (o, "verdict_a") != NULL);
  json_node_unref (n);
  g_free (out);
  g_free (err);

  /* Text: both verdicts, the marks. */
  fail_unless (tool (&out, &err, "diff", a, b, NULL) == 0);
  fail_unless (strstr (out, "Verdict A:") && strstr (out, "Verdict B:")
      && strstr (out, "SLOWER"), "%s", out);
  g_free (out);
  g_free (err);

  /* The CI gate: +100 % > 50 %: exit 1, naming it; the other way: 0. */
  fail_unless_equals_int (tool (&out, &err, "diff", a, b, "--fail-above",
          "50", NULL), 1);
  fail_unless (strstr (err, "slow") && strstr (err, "regression"), "%s",
      err);
  g_free (out);
  g_free (err);
  fail_unless_equals_int (tool (&out, &err, "diff", b, a, "--fail-above",
          "50", "--format", "json", NULL), 0);
  n = parse (out);
  fail_unless_equals_string (json_object_get_string_member (diff_row
          (json_node_get_object (n), "slow"), "change"), "faster");
  json_node_unref (n);
  g_free (out);
  g_free (err);
  /* A summary against a trace, and two runs of one database: matched
   * element by element. (Whether the tracer's own tables count identity's
   * sleep as self time is the tracer's business, so no verdict here.) */
  fail_unless (tool (&out, &err, "diff", a, bs, NULL) == 0, "%s", err);
  fail_unless (strstr (out, "\n  slow ") && strstr (out, "\n  steady ")
      && !strstr (out, "only in"), "%s", out);
  g_free (out);
  g_free (err);
  g_free (bs);
  bs = path ("runs.db");
  fail_unless (tool (&out, &err, "diff", bs, bs, "--run-a", "1", "--run-b",
          "2", NULL) == 0, "%s", err);
  fail_unless (strstr (out, "\n  slow ") && strstr (out, "\n  steady ")
      && !strstr (out, "only in"), "%s", out);
  g_free (out);
  g_free (err);
  g_free (a);
  g_free (b);
  g_free (bs);
}

GST_END_TEST;

/* An encoder whose own thread does the same while its threads use 60 %
 * more CPU (x264enc preset medium -> slow): diff said "0 of N changed",
 * comparing only the element's own thread. The second summary is the
 * first with the encoder's worker_cpu_s times 1.6, so nothing else moves. */
GST_START_TEST (test_diff_workers)
{
  gchar *a = path ("w-a.json"), *b = path ("w-b.json"), *c =
      path ("w-c.json"), *params, *text = NULL, *out = NULL, *err = NULL;
  JsonParser *jp = json_parser_new ();
  JsonGenerator *gen = json_generator_new ();
  JsonArray *rows;
  JsonObject *enc = NULL;
  JsonNode *n;
  gdouble w;
  guint i;

  params = g_strdup_printf ("summary=%s", a);
  launch (params, "videotestsrc num-buffers=40 "
      "! video/x-raw,width=640,height=360 ! x264enc name=enc threads=2 "
      "speed-preset=faster ! fakesink");
  fail_unless (json_parser_load_from_file (jp, a, NULL));
  rows = json_object_get_array_member (json_node_get_object
      (json_parser_get_root (jp)), "elements");
  for (i = 0; i < json_array_get_length (rows); i++) {
    JsonObject *r = json_array_get_object_element (rows, i);
    if (!g_strcmp0 (json_object_get_string_member (r, "name"), "enc"))
      enc = r;
  }
  fail_unless (enc && json_object_has_member (enc, "worker_cpu_s"),
      "x264enc threads=2 has no workers in the summary");
  w = json_object_get_double_member (enc, "worker_cpu_s");
  fail_unless (w > 0.01, "%f", w);
  json_generator_set_root (gen, json_parser_get_root (jp));
  fail_unless (json_generator_to_file (gen, c, NULL));
  json_object_set_double_member (enc, "worker_cpu_s", w * 1.6);
  fail_unless (json_generator_to_file (gen, b, NULL));

  fail_unless (tool (&out, &err, "diff", a, b, "--format", "json", NULL) ==
      0, "%s", err);
  n = parse (out);
  enc = diff_row (json_node_get_object (n), "enc");
  fail_unless (enc != NULL);
  fail_unless_equals_string (json_object_get_string_member (enc, "change"),
      "slower");
  fail_unless (fabs (dmember (enc, "workers_change_pct") - 60) < 0.5, "%f",
      dmember (enc, "workers_change_pct"));
  json_node_unref (n);
  g_free (out);
  g_free (err);
  /* The gate names it; the same profile twice changes nothing. */
  fail_unless_equals_int (tool (&out, &err, "diff", a, b, "--fail-above",
          "30", NULL), 1);
  fail_unless (strstr (err, "enc: its threads' CPU") != NULL, "%s", err);
  g_free (out);
  g_free (err);
  fail_unless_equals_int (tool (&out, &err, "diff", a, c, "--fail-above",
          "30", "--format", "json", NULL), 0);
  n = parse (out);
  fail_unless_equals_string (json_object_get_string_member (diff_row
          (json_node_get_object (n), "enc"), "change"), "noise");
  json_node_unref (n);
  g_free (out);
  g_free (err);
  g_free (text);
  g_object_unref (gen);
  g_object_unref (jp);
  g_free (params);
  g_free (a);
  g_free (b);
  g_free (c);
}

GST_END_TEST;

/* A CPU hog beside the runs, as a loaded shared machine is. */
static gpointer
hog (gpointer stop)
{
  volatile guint64 x = 0;

  while (!g_atomic_int_get ((gint *) stop))
    x++;
  return NULL;
}

/* `diff A1 .. A5 -- B1 .. B5` on a loaded machine: between quintuples of
 * runs of one setting nothing is flagged (20 pairs); a 2x change of one
 * element (stageresize making twice the pixels, nearest, one thread) is
 * flagged and nothing else is; --fail-above names only what is judged SLOWER. */
static void
work_run (const gchar * tag, guint w, guint h)
{
  gchar *sum = path (tag), *params = g_strdup_printf ("summary=%s", sum);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=150 "
      "! video/x-raw,format=I420,width=640,height=480 "
      "! stageresize name=work method=nearest n-threads=1 width=%u "
      "height=%u ! fakesink", w, h);

  launch (params, desc);
  g_free (desc);
  g_free (params);
  g_free (sum);
}

static gint
diff_runs (gchar ** out, const gchar * const *a, const gchar * const *b,
    guint n, const gchar * extra)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  gchar *err = NULL;
  guint i;
  gint rc;

  g_ptr_array_add (argv, g_strdup (TOOL));
  g_ptr_array_add (argv, g_strdup ("diff"));
  for (i = 0; i < n; i++)
    g_ptr_array_add (argv, path (a[i]));
  g_ptr_array_add (argv, g_strdup ("--"));
  for (i = 0; i < n; i++)
    g_ptr_array_add (argv, path (b[i]));
  g_ptr_array_add (argv, g_strdup ("--format"));
  g_ptr_array_add (argv, g_strdup ("json"));
  if (extra) {
    g_ptr_array_add (argv, g_strdup ("--fail-above"));
    g_ptr_array_add (argv, g_strdup (extra));
  }
  g_ptr_array_add (argv, NULL);
  rc = spawn ((gchar **) argv->pdata, NULL, out, &err);
  g_free (err);
  g_ptr_array_unref (argv);
  return rc;
}

static guint
flagged (const gchar * out, const gchar * only)
{
  JsonNode *n = parse (out);
  JsonArray *els = json_object_get_array_member (json_node_get_object (n),
      "elements");
  guint i, k = 0;

  for (i = 0; i < json_array_get_length (els); i++) {
    JsonObject *e = json_array_get_object_element (els, i);

    if (g_strcmp0 (json_object_get_string_member (e, "change"), "noise")
        && (!only || !g_strcmp0 (json_object_get_string_member (e, "name"),
                only))) {
      g_printerr ("flagged: %s %s (median %+.1f %%)\n",
          json_object_get_string_member (e, "name"),
          json_object_get_string_member (e, "change"),
          json_object_get_double_member (e, "median_change_pct"));
      k++;
    }
  }
  json_node_unref (n);
  return k;
}

GST_START_TEST (test_diff_runs)
{
  gchar *same[15], *big[5];
  gint stop = 0;
  GThread *t = g_thread_new ("hog", hog, &stop);
  guint i, k, pairs = 0, false_flags = 0;
  gchar *out = NULL;
  GRand *rand = g_rand_new_with_seed (7);

  /* interleaved, so that a drift of the machine's load hits both; nearest
   * with one thread costs per output pixel (1.9x measured for 2x the
   * pixels; an exact 2:1 has a faster path of its own) */
  for (i = 0; i < 15; i++) {
    same[i] = g_strdup_printf ("s%u.json", i);
    work_run (same[i], 300, 200);
    if (i % 3 == 1) {
      big[i / 3] = g_strdup_printf ("d%u.json", i / 3);
      work_run (big[i / 3], 424, 283);  /* 2.0x the output pixels */
    }
  }
  g_atomic_int_set (&stop, 1);
  g_thread_join (t);

  /* 20 pairs of disjoint quintuples of same-setting runs, drawn at random */
  for (i = 0; i < 20; i++) {
    const gchar *a[5], *b[5];
    gchar *pool[15];

    memcpy (pool, same, sizeof (pool));
    for (k = 0; k < 10; k++) {
      guint j = g_rand_int_range (rand, k, 15);
      gchar *tmp = pool[k];

      pool[k] = pool[j];
      pool[j] = tmp;
      if (k < 5)
        a[k] = pool[k];
      else
        b[k - 5] = pool[k];
    }
    fail_unless_equals_int (diff_runs (&out, a, b, 5, "20"), 0);
    false_flags += flagged (out, NULL);
    g_free (out);
    pairs++;
  }
  fail_unless_equals_int (false_flags, 0);

  fail_unless_equals_int (diff_runs (&out, (const gchar * const *) same,
          (const gchar * const *) big, 5, NULL), 0);
  fail_unless_equals_int (flagged (out, "work"), 1);
  fail_unless_equals_int (flagged (out, NULL), 1);
  fail_unless (strstr (out, "\"runs_a\":5") && strstr (out,
          "\"cpu_wait_pct_a\":["), "%s", out);
  g_free (out);
  /* --fail-above fails the run: 1.9x the work measured alone, under 1.5x
   * once beside two parallel builds, so a threshold well below */
  fail_unless_equals_int (diff_runs (&out, (const gchar * const *) same,
          (const gchar * const *) big, 5, "30"), 1);
  g_free (out);
  for (i = 0; i < 15; i++)
    g_free (same[i]);
  for (i = 0; i < 5; i++)
    g_free (big[i]);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_diff_other_pipeline)
{
  gchar *a = path ("a.json"), *c = path ("c.json"), *x, *out = NULL,
      *err = NULL;

  /* Matched by element path; what is on one side only is listed. */
  fail_unless (tool (&out, &err, "diff", a, c, NULL) == 0, "%s", err);
  fail_unless (strstr (out, "only in A: slow") && strstr (out,
          "only in B: flip"), "%s", out);
  g_free (out);
  g_free (err);
  /* Nothing in common: exit 2 with the reason. */
  write_file ("x.json", "{\"elements\":[{\"name\":\"foo\",\"thread\":\"t\","
      "\"pipeline\":\"other\",\"count\":1,\"mean_ms\":1,\"total_s\":0.001}]}",
      -1);
  x = path ("x.json");
  fail_unless_equals_int (tool (&out, &err, "diff", a, x, NULL), 2);
  fail_unless (strstr (err, "no element in common") != NULL, "%s", err);
  fail_unless (strstr (out, "only in B: foo") != NULL, "%s", out);
  g_free (out);
  g_free (err);
  fail_unless_equals_int (tool (NULL, NULL, "diff", a, NULL), 2);
  g_free (a);
  g_free (c);
  g_free (x);
}

GST_END_TEST;

/* ---- merge --------------------------------------------------------- */

typedef struct
{
  gdouble first, last;
  guint n;
} Span;

GST_START_TEST (test_merge_three)
{
  gchar *in[3] = { path ("a.json"), path ("b.json"), path ("c.json") };
  gchar *m = path ("merged.json"), *out = NULL, *err = NULL, *text;
  const gchar *labels[] = { "job-a", "job-b", "job-c" };
  JsonNode *n;
  JsonArray *ev;
  Span span[4] = { {0} };
  GHashTable *label_of = g_hash_table_new (g_int64_hash, g_int64_equal);
  gint64 pids[64];
  guint npids = 0, seen[3] = { 0 };
  guint i, j, total_in = 0, starts = 0;

  fail_unless (tool (&out, &err, "merge", "-o", m, "--label", labels[0],
          "--label", labels[1], "--label", labels[2], in[0], in[1], in[2],
          NULL) == 0, "%s", err);
  g_free (out);
  g_free (err);
  fail_unless (g_file_get_contents (m, &text, NULL, NULL));
  n = parse (text);             /* strict JSON */
  g_free (text);
  ev = json_node_get_array (n);

  /* Processes of their own per input (one per pipeline, or per run of a
   * pipeline), named by pipeline and label. */
  for (i = 0; i < json_array_get_length (ev); i++) {
    JsonObject *e = json_array_get_object_element (ev, i);
    const gchar *name = json_object_get_string_member (e, "name");
    if (!g_strcmp0 (name, "stageprof_start"))
      starts++;
    if (g_strcmp0 (name, "process_name"))
      continue;
    for (j = 0; j < 3; j++)
      if (g_str_has_suffix (json_object_get_string_member
              (json_object_get_object_member (e, "args"), "name"),
              g_strdup_printf ("(%s)", labels[j]))) {
        fail_unless (npids < G_N_ELEMENTS (pids));
        pids[npids] = json_object_get_int_member (e, "pid");
        fail_if (g_hash_table_contains (label_of, &pids[npids]),
            "one process for two inputs");
        g_hash_table_insert (label_of, &pids[npids], GUINT_TO_POINTER (j));
        npids++;
        seen[j]++;
      }
  }
  fail_unless_equals_int (starts, 1);
  for (j = 0; j < 3; j++)
    fail_unless (seen[j] > 0, "no process for %s", labels[j]);

  /* The three ran one after the other: on the merged time axis each
   * input's slices come after the previous input's. */
  for (i = 0; i < json_array_get_length (ev); i++) {
    JsonObject *e = json_array_get_object_element (ev, i);
    gint64 pid;
    gdouble ts;
    if (g_strcmp0 (json_object_get_string_member (e, "ph"), "X"))
      continue;
    pid = json_object_get_int_member (e, "pid");
    ts = json_object_get_double_member (e, "ts");
    fail_unless (g_hash_table_contains (label_of, &pid),
        "a slice of an unknown process %" G_GINT64_FORMAT, pid);
    j = GPOINTER_TO_UINT (g_hash_table_lookup (label_of, &pid));
    if (span[j].n == 0 || ts < span[j].first)
      span[j].first = ts;
    span[j].last = MAX (span[j].last, ts + json_object_get_double_member (e,
            "dur"));
    span[j].n++;
  }
  for (j = 0; j < 3; j++) {
    JsonNode *src;
    guint k, nx = 0;
    fail_unless (g_file_get_contents (in[j], &text, NULL, NULL));
    src = parse (text);
    g_free (text);
    for (k = 0; k < json_array_get_length (json_node_get_array (src)); k++)
      nx += !g_strcmp0 (json_object_get_string_member
          (json_array_get_object_element (json_node_get_array (src), k),
              "ph"), "X");
    json_node_unref (src);
    fail_unless_equals_int (span[j].n, nx);
    total_in += nx;
  }
  fail_unless (span[0].last < span[1].first, "a ends at %f, b starts at %f",
      span[0].last, span[1].first);
  fail_unless (span[1].last < span[2].first, "b ends at %f, c starts at %f",
      span[1].last, span[2].first);
  fail_unless (total_in > 100);
  json_node_unref (n);
  g_hash_table_destroy (label_of);

  /* The merged trace reads like any other. */
  fail_unless (tool (&out, &err, "show", m, NULL) == 0, "%s", err);
  fail_unless (strstr (out, "(job-b)") != NULL, "%s", out);
  g_free (out);
  g_free (err);
  /* A bad input fails the merge, leaving nothing behind. */
  write_file ("text.txt", "hello\n", -1);
  g_free (in[2]);
  in[2] = path ("text.txt");
  g_unlink (m);
  fail_unless_equals_int (tool (&out, &err, "merge", "-o", m, in[0], in[2],
          NULL), 2);
  fail_unless (strstr (err, "text.txt") != NULL, "%s", err);
  fail_unless (!g_file_test (m, G_FILE_TEST_EXISTS));
  g_free (out);
  g_free (err);
  fail_unless_equals_int (tool (NULL, NULL, "merge", in[0], NULL), 2);
  for (j = 0; j < 3; j++)
    g_free (in[j]);
  g_free (m);
}

GST_END_TEST;

/* ---- html ---------------------------------------------------------- */

static gchar *
find_chromium (void)
{
  const gchar *names[] = { "chromium", "chromium-browser", "google-chrome",
    NULL
  };
  guint i;

  for (i = 0; names[i]; i++) {
    gchar *p = g_find_program_in_path (names[i]);
    if (p)
      return p;
  }
  return NULL;
}

static gint
chromium (const gchar * exe, const gchar * profile, const gchar * extra,
    const gchar * url, gchar ** out, gchar ** err)
{
  gchar *pd = g_strdup_printf ("--user-data-dir=%s", profile);
  const gchar *argv[] = { exe, "--headless", "--no-sandbox", "--disable-gpu",
    "--no-first-run", "--disable-extensions", "--enable-logging=stderr",
    "--v=0", pd, "--window-size=1200,2600", extra, url, NULL
  };
  /* The sanitizer pass preloads ASan into what the tests start: not into
   * the browser, which only reads our HTML. */
  gchar **env = g_environ_unsetenv (g_get_environ (), "LD_PRELOAD");
  gint rc = spawn ((gchar **) argv, env, out, err);

  g_strfreev (env);
  g_free (pd);
  return rc;
}

GST_START_TEST (test_html)
{
  gchar *a = path ("a.json"), *b = path ("b.json"), *h1 = path ("one.html"),
      *h2 = path ("two.html"), *png = path ("shot.png"), *prof =
      path ("chromium-profile"), *out = NULL, *err = NULL, *text, *exe,
      *url, *shot;
  gsize len = 0;
  gchar **lines;
  guint i;

  fail_unless (tool (&out, &err, "html", "-o", h1, a, NULL) == 0, "%s", err);
  g_free (out);
  g_free (err);
  fail_unless (tool (&out, &err, "html", "-o", h2, a, b, NULL) == 0, "%s",
      err);
  g_free (out);
  g_free (err);

  /* Self-contained: no fetch of anything. */
  for (i = 0; i < 2; i++) {
    fail_unless (g_file_get_contents (i ? h2 : h1, &text, NULL, NULL));
    fail_if (strstr (text, "<script src") || strstr (text, "<link")
        || strstr (text, "<img") || strstr (text, "@import"));
    fail_if (strstr (text, "https://") != NULL);
    fail_unless (g_str_has_prefix (text, "<!DOCTYPE html>"));
    fail_unless (strstr (text, "<svg") && strstr (text, "<polyline"),
        "no queue-level plot");
    /* The queue's limit came with the trace (stageprof_queue metadata);
     * far above its levels, it is named rather than drawn. */
    fail_unless (strstr (text, "queue0 (of 200)") != NULL,
        "the queue's limit is not in the plot");
    fail_unless (strstr (text, "Verdict") != NULL);
    if (i) {
      fail_unless (strstr (text, "Change of total self time") != NULL);
      /* A and B on one scale, side by side, figures on the bars */
      fail_unless (strstr (text, "A and B on one scale") != NULL);
      fail_unless (g_regex_match_simple (">A [0-9.]+ s<", text, 0, 0)
          && g_regex_match_simple (">B [0-9.]+ s<", text, 0, 0)
          && g_regex_match_simple (">[+-][0-9]+%<", text, 0, 0),
          "no figures on the bars");
    }
    g_free (text);
  }

  exe = find_chromium ();
  if (!exe) {
    g_printerr ("\n*** SKIPPED: the HTML report in a browser: no chromium "
        "in PATH (apt-get install chromium) ***\n\n");
    goto done;
  }
  url = g_strdup_printf ("file://%s", h2);
  /* Loaded and laid out: the page's own check says every plot has a size
   * and content; no console error. */
  fail_unless (chromium (exe, prof, "--dump-dom", url, &out, &err) == 0,
      "%s", err);
  fail_unless (strstr (out, "id=\"selfcheck\" data-ok=\"1\"") != NULL,
      "the page did not check out:\n%.2000s", strstr (out, "selfcheck") ?
      strstr (out, "selfcheck") : out);
  lines = g_strsplit (err, "\n", -1);
  for (i = 0; lines[i]; i++)
    fail_if (strstr (lines[i], "CONSOLE") && (strstr (lines[i], "rror")
            || strstr (lines[i], "Uncaught")), "console: %s", lines[i]);
  g_strfreev (lines);
  g_free (out);
  g_free (err);

  /* The screenshot shows the plots: a page of flat colour compresses to a
   * few kB, plots and tables to far more. */
  shot = g_strdup_printf ("--screenshot=%s", png);
  fail_unless (chromium (exe, prof, shot, url, &out, &err) == 0, "%s", err);
  fail_unless (g_file_get_contents (png, &text, &len, NULL),
      "no screenshot: %s", err);
  fail_unless (len > 40000 && memcmp (text, "\x89PNG", 4) == 0,
      "screenshot of %" G_GSIZE_FORMAT " bytes", len);
  if (g_getenv ("STAGES_REPORT_SCREENSHOT"))
    fail_unless (g_file_set_contents (g_getenv ("STAGES_REPORT_SCREENSHOT"),
            text, len, NULL));
  g_free (text);
  g_free (out);
  g_free (err);
  g_free (shot);
  g_free (url);
  g_free (exe);
done:
  g_free (a);
  g_free (b);
  g_free (h1);
  g_free (h2);
  g_free (png);
  g_free (prof);
}

GST_END_TEST;

/* A queue alternating 0/1 at every counter event for 17 s, far more
 * events than the plot keeps points: the plot shows its range 0..1 to the
 * end (thinning by two once drew a flat 1), and its limit line. */
GST_START_TEST (test_html_queue_range)
{
  gchar *file = path ("alt.json"), *html = path ("alt.html"), *out = NULL,
      *err = NULL, *text = NULL, *band, *pts, *end;
  GString *t = g_string_new ("[\n{\"name\":\"thread_name\",\"ph\":\"M\","
      "\"pid\":1,\"tid\":6,\"args\":{\"name\":\"src\"}}\n"
      ",{\"name\":\"stageprof_queue\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
      "\"args\":{\"queue\":\"aq\",\"limit_buffers\":2}}\n");
  gchar **xy;
  gdouble xmax = 0, y0, y1;
  guint i, lo = 0, hi = 0;

  /* 17 s of counter events 1 ms apart, levels 0 1 0 1 ... */
  for (i = 0; i < 17000; i++)
    g_string_append_printf (t, ",{\"name\":\"aq\",\"ph\":\"C\",\"ts\":%u,"
        "\"pid\":1,\"tid\":6,\"args\":{\"buffers\":%u}}\n", i * 1000,
        i % 2);
  g_string_append (t, ",{\"name\":\"s\",\"ph\":\"X\",\"ts\":0,"
      "\"dur\":17000000,\"pid\":1,\"tid\":6}\n]\n");
  fail_unless (g_file_set_contents (file, t->str, -1, NULL));
  g_string_free (t, TRUE);
  fail_unless (tool (&out, &err, "html", "-o", html, file, NULL) == 0, "%s",
      err);
  fail_unless (g_file_get_contents (html, &text, NULL, NULL));
  band = strstr (text, "<polygon class=\"qrange\"");
  fail_unless (band != NULL, "no range band in the queue plot");
  fail_unless (strstr (text, "class=\"qlimit\"") != NULL, "no limit line");
  fail_unless (strstr (text, "class=\"qmean\"") != NULL, "no mean line");
  pts = strstr (band, "points=\"") + 8;
  end = strchr (pts, '"');
  *end = '\0';
  xy = g_strsplit (pts, " ", -1);
  for (i = 0; xy[i]; i++)
    if (*xy[i])
      xmax = MAX (xmax, g_ascii_strtod (xy[i], NULL));
  /* y of level 0 and of 1: the band's lowest and highest edge (the limit
   * line is higher still, at 2). */
  y0 = -1;
  y1 = G_MAXDOUBLE;
  for (i = 0; xy[i]; i++) {
    gchar *comma = strchr (xy[i], ',');
    if (comma) {
      gdouble y = g_ascii_strtod (comma + 1, NULL);
      y0 = MAX (y0, y);
      y1 = MIN (y1, y);
    }
  }
  fail_unless (y0 - y1 > 10, "a flat band: %f..%f", y1, y0);
  /* Both edges all along the last half of the run, not only at its start. */
  for (i = 0; xy[i]; i++) {
    gchar *comma = strchr (xy[i], ',');
    gdouble x, y;
    if (!comma)
      continue;
    x = g_ascii_strtod (xy[i], NULL);
    y = g_ascii_strtod (comma + 1, NULL);
    if (x < xmax * 0.6)
      continue;
    lo += fabs (y - y0) < 0.5;
    hi += fabs (y - y1) < 0.5;
  }
  fail_unless (lo > 10 && hi > 10, "%u points at 0, %u at 1 in the last "
      "half", lo, hi);
  g_strfreev (xy);
  g_free (text);
  g_free (out);
  g_free (err);
  g_free (file);
  g_free (html);
}

GST_END_TEST;

/* ---- dot ----------------------------------------------------------- */

GST_START_TEST (test_dot)
{
  gchar *a = path ("a.json"), *s = path ("a-summary.json"), *d =
      path ("a.dot"), *svg = path ("a.svg"), *out = NULL, *err = NULL, *text,
      *dotexe;
  const gchar *argv[] = { "dot", "-Tsvg", NULL, "-o", NULL, NULL };

  fail_unless (tool (&out, &err, "dot", "-o", d, a, NULL) == 0, "%s", err);
  g_free (out);
  g_free (err);
  fail_unless (g_file_get_contents (d, &text, NULL, NULL));
  /* The links the tracer recorded, threads as clusters, the queue level,
   * the slow element in the hottest colour. */
  fail_unless (strstr (text, "\"slow\" -> \"steady\"")
      && strstr (text, "\"capsfilter0\" -> \"queue0\"")
      && strstr (text, "\"queue0\" -> \"videoconvert0\""), "%s", text);
  fail_unless (strstr (text, "subgraph cluster_") && strstr (text,
          "thread queue0"), "%s", text);
  fail_unless (strstr (text, "level mean") != NULL);
  fail_unless (strstr (text, "\"steady\" [label=\"steady\\nself")
      && strstr (text, "fillcolor=\"#e15759\""), "%s", text);
  g_free (text);

  /* A summary has no links: nodes only, and it says so. */
  fail_unless (tool (&out, &err, "dot", "-o", "-", s, NULL) == 0, "%s", err);
  fail_unless (strstr (out, "links not recorded") && !strstr (out, "->"),
      "%s", out);
  g_free (out);
  g_free (err);

  dotexe = g_find_program_in_path ("dot");
  if (!dotexe) {
    g_printerr ("\n*** SKIPPED: rendering the DOT graph: no dot in PATH "
        "(apt-get install graphviz) ***\n\n");
  } else {
    argv[2] = d;
    argv[4] = svg;
    fail_unless (spawn ((gchar **) argv, NULL, &out, &err) == 0, "%s", err);
    fail_unless (g_file_get_contents (svg, &text, NULL, NULL));
    fail_unless (strstr (text, "<svg") && strstr (text, "slow"));
    g_free (text);
    g_free (out);
    g_free (err);
    g_free (dotexe);
  }
  g_free (a);
  g_free (s);
  g_free (d);
  g_free (svg);
}

GST_END_TEST;

/* ---- what the tracer records for the tool --------------------------- */

static GstTracer *
find_prof (void)
{
  GList *list = gst_tracing_get_active_tracers (), *l;
  GstTracer *found = NULL;

  for (l = list; l; l = l->next)
    if (!found && strcmp (G_OBJECT_TYPE_NAME (l->data), "GstStageProf") == 0)
      found = gst_object_ref (l->data);
  g_list_free_full (list, gst_object_unref);
  fail_unless (found != NULL, "stageprof is not among the active tracers");
  return found;
}

/* A trace opened while the pipeline already plays still gets the
 * wall-clock start and the links made before it existed. */
GST_START_TEST (test_trace_set_late)
{
  gchar *trace = path ("late.json"), *text, *out = NULL, *err = NULL;
  GstElement *p = gst_parse_launch ("videotestsrc "
      "! video/x-raw,width=160,height=120,framerate=100/1 ! queue name=lq "
      "! fakesink name=late_sink sync=true", NULL);
  GstTracer *prof = find_prof ();
  gint64 now = g_get_real_time ();
  const gchar *w;

  fail_unless (p != NULL);
  gst_object_set_name (GST_OBJECT (p), "late");
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (p, NULL, NULL, 30 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  g_object_set (prof, "trace", trace, NULL);
  g_usleep (300 * 1000);
  g_object_set (prof, "trace", NULL, NULL);     /* flushes it */
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  gst_object_unref (prof);

  fail_unless (g_file_get_contents (trace, &text, NULL, NULL));
  fail_unless (strstr (text, "\"src\":\"lq\",\"src_pad\":\"src\","
          "\"sink\":\"late_sink\"") != NULL, "%.3000s", text);
  w = strstr (text, "\"wall_clock_us\":");
  fail_unless (w != NULL, "no stageprof_start");
  /* Within a minute of when this test set the trace. */
  fail_unless (ABS (g_ascii_strtoll (w + 16, NULL, 10) - now) <
      60 * G_USEC_PER_SEC, "%.80s", w);
  g_free (text);
  fail_unless (tool (&out, &err, "show", trace, NULL) == 0, "%s", err);
  fail_unless (strstr (out, "late_sink") != NULL, "%s", out);
  g_free (out);
  g_free (err);
  g_free (trace);
}

GST_END_TEST;

/* latency=true's tables through show (JSON, CSV), diff and html, from a
 * summary and a database: an identity holding each frame 2 ms, then 6 ms. */
GST_START_TEST (test_latency_tables)
{
  gchar *la = path ("lat-a.json"), *lb = path ("lat-b.json"),
      *db = path ("lat.db"), *html = path ("lat.html");
  gchar *out = NULL, *err = NULL, *params;
  JsonNode *n;
  JsonObject *row;
  const guint holds[] = { 2000, 6000 };

  for (guint i = 0; i < 2; i++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=30 ! "
        "video/x-raw,width=64,height=48 ! identity name=hold sleep-time=%u "
        "! fakesink name=out sync=false", holds[i]);
    params = g_strdup_printf ("latency=true,summary=%s,db=%s",
        i ? lb : la, db);
    launch (params, desc);
    g_free (params);
    g_free (desc);
  }
  n = show_json (lb);
  row = find_row (json_node_get_object (n), "latency", "out");
  fail_unless (row != NULL, "no latency row for out");
  fail_unless_equals_float (dmember (row, "frames"), 30);
  row = find_row (json_node_get_object (n), "element_latency", "hold");
  fail_unless (row != NULL);
  fail_unless (dmember (row, "mean_ms") >= 6.0, "hold: %.3f ms",
      dmember (row, "mean_ms"));
  json_node_unref (n);
  /* the database's latest run is the second */
  fail_unless_equals_int (tool (&out, &err, "show", db, "--format", "csv",
          "--table", "element_latency", NULL), 0);
  fail_unless (g_str_has_prefix (out, "Node,Count,Mean,"), "%s", out);
  fail_unless (strstr (out, "\nhold,30,") != NULL, "%s", out);
  g_free (out);
  g_free (err);
  fail_unless_equals_int (tool (&out, &err, "diff", la, lb, NULL), 0);
  fail_unless (strstr (out, "Latency through elements") != NULL, "%s", out);
  fail_unless (strstr (out, "\n  hold ") != NULL, "%s", out);
  g_free (out);
  g_free (err);
  fail_unless_equals_int (tool (&out, &err, "html", lb, "-o", html, NULL),
      0);
  g_free (out);
  g_free (err);
  fail_unless (g_file_get_contents (html, &out, NULL, NULL));
  fail_unless (strstr (out, "Latency through elements") != NULL);
  fail_unless (strstr (out, "<td class=\"l\">hold</td>") != NULL);
  g_free (out);
  g_free (la);
  g_free (lb);
  g_free (db);
  g_free (html);
}

GST_END_TEST;

static Suite *
stageprof_report_suite (void)
{
  Suite *s = suite_create ("stageprof_report");
  TCase *tc = tcase_create ("report");

  tcase_set_timeout (tc, 120);
  tcase_add_unchecked_fixture (tc, setup_runs, teardown_runs);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_show_trace);
  tcase_add_test (tc, test_trace_carries_summary);
  tcase_add_test (tc, test_outputs_agree_codec);
  tcase_add_test (tc, test_three_outputs_agree);
  tcase_add_test (tc, test_trace_work_events);
  tcase_add_test (tc, test_trace_late_slice);
  tcase_add_test (tc, test_show_db_and_formats);
  tcase_add_test (tc, test_truncated_trace);
  tcase_add_test (tc, test_bad_inputs);
  tcase_add_test (tc, test_deep_nesting);
  tcase_add_test (tc, test_bounded_inputs);
  tcase_add_test (tc, test_outputs_and_bom);
  tcase_add_test (tc, test_damaged_traces);
  tcase_add_test (tc, test_tolerant_readers);
  tcase_add_test (tc, test_diff_slowdown);
  tcase_add_test (tc, test_diff_workers);
  tcase_add_test (tc, test_diff_other_pipeline);
  tcase_add_test (tc, test_diff_runs);
  tcase_add_test (tc, test_merge_three);
  tcase_add_test (tc, test_html);
  tcase_add_test (tc, test_html_queue_range);
  tcase_add_test (tc, test_dot);
  tcase_add_test (tc, test_trace_set_late);
  tcase_add_test (tc, test_latency_tables);
  return s;
}

int
main (int argc, char **argv)
{
  /* In this process too, for test_trace_set_late (the gst-launch runs set
   * their own). */
  g_setenv ("GST_TRACERS", "stageprof(summary=none)", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (stageprof_report_suite (), "stageprof_report",
      __FILE__);
}
