/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof parameters: parsed from GST_TRACERS, the same as properties;
 * bad values and unwritable paths give a warning naming them and the rest
 * still works.
 *
 * Most tests run gst-launch-1.0 the way a user does and read its output.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>

static G_GNUC_UNUSED GstTracer *
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

typedef struct
{
  gchar *out, *err;
  gint status;
} Launch;

/* Runs gst-launch-1.0 `desc` with GST_TRACERS=`tracers`. */
static Launch
launch (const gchar * tracers, const gchar * desc, const gchar * debug)
{
  gchar *cmd = g_strdup_printf ("gst-launch-1.0 -q %s", desc);
  gchar **argv = NULL;
  gchar **envp = g_environ_setenv (g_get_environ (), "GST_TRACERS", tracers,
      TRUE);
  GError *e = NULL;
  Launch l = { NULL, NULL, -1 };

  if (debug)
    envp = g_environ_setenv (envp, "GST_DEBUG", debug, TRUE);
  fail_unless (g_shell_parse_argv (cmd, NULL, &argv, NULL));
  fail_unless (g_spawn_sync (NULL, argv, envp, G_SPAWN_SEARCH_PATH, NULL,
          NULL, &l.out, &l.err, &l.status, &e), "%s", e ? e->message : "");
  g_strfreev (argv);
  g_strfreev (envp);
  g_free (cmd);
  return l;
}

static void
launch_clear (Launch * l)
{
  g_free (l->out);
  g_free (l->err);
}

#define SMALL "videotestsrc num-buffers=5 ! video/x-raw,width=32,height=24 ! " \
  "identity name=p_id ! fakesink sync=false"

static void
assert_ran (Launch * l)
{
  fail_unless (g_spawn_check_wait_status (l->status, NULL),
      "gst-launch failed:\n%s", l->err);
  fail_if (strstr (l->err, "CRITICAL"), "%s", l->err);
}

/* Runs SMALL with GST_TRACERS `tracers_fmt`, whose one %s is the path of
 * the summary file `name` in the build dir; returns the file's text (the
 * file itself is removed) and leaves the run in `l`. */
static gchar *
summary_file_run (const gchar * name, const gchar * tracers_fmt, Launch * l)
{
  gchar *path = g_build_filename (TESTS_BUILD_DIR, name, NULL);
  gchar *tracers = g_strdup_printf (tracers_fmt, path);
  gchar *text = NULL;

  g_unlink (path);
  *l = launch (tracers, SMALL, NULL);
  assert_ran (l);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "%s", l->err);
  g_unlink (path);
  g_free (path);
  g_free (tracers);
  return text;
}

GST_START_TEST (test_params_parsed)
{
  GstTracer *t = find_prof ();
  guint skip = 0;
  gchar *summary = NULL, *trace = (gchar *) "x", *filter = NULL;
  gdouble interval = -1;

  g_object_get (t, "skip-first", &skip, "summary", &summary, "trace", &trace,
      "interval", &interval, "filter", &filter, NULL);
  fail_unless_equals_int (skip, 2);
  fail_unless_equals_string (summary, "none");
  fail_unless (trace == NULL);
  fail_unless_equals_string (filter, "^p_.*");
  fail_unless (interval == 0.0);
  g_free (summary);
  g_free (filter);
  gst_object_unref (t);
}

GST_END_TEST;

GST_START_TEST (test_defaults_and_stdout)
{
  Launch l = launch ("stageprof", SMALL, NULL);

  assert_ran (&l);
  /* The default summary goes to stdout, with the tables and the verdict. */
  fail_unless (strstr (l.out, "p_id"), "%s", l.out);
  fail_unless (strstr (l.out, "Node") && strstr (l.out, "Verdict:"), "%s",
      l.out);
  launch_clear (&l);
}

GST_END_TEST;

GST_START_TEST (test_bad_params)
{
  Launch l = launch ("stageprof(skip-first=abc,bogus=1,interval=-3,"
      "summary=stdout)", SMALL, NULL);

  assert_ran (&l);
  fail_unless (strstr (l.err, "skip-first='abc'"), "%s", l.err);
  fail_unless (strstr (l.err, "unknown parameter 'bogus'"), "%s", l.err);
  fail_unless (strstr (l.err, "interval='-3'"), "%s", l.err);
  /* the parameters are the tracer's properties (one list, issue 38): the
   * warning names each of them */
  {
    GstTracerFactory *f = GST_TRACER_FACTORY (gst_registry_find_feature
        (gst_registry_get (), "stageprof", GST_TYPE_TRACER_FACTORY));
    GObjectClass *k;
    GParamSpec **all;
    guint n, i, own = 0;

    fail_unless (f != NULL);
    k = g_type_class_ref (gst_tracer_factory_get_tracer_type (f));
    all = g_object_class_list_properties (k, &n);
    for (i = 0; i < n; i++) {
      gchar *word;

      if (all[i]->owner_type != G_TYPE_FROM_CLASS (k))
        continue;
      own++;
      word = g_strdup_printf (" %s", all[i]->name);
      fail_unless (strstr (strstr (l.err, "known:"), word), "%s missing: %s",
          all[i]->name, l.err);
      g_free (word);
    }
    fail_unless (own >= 9);
    g_free (all);
    g_type_class_unref (k);
    gst_object_unref (f);
  }
  /* The tracer still works with the rest. */
  fail_unless (strstr (l.out, "p_id") && strstr (l.out, "Verdict:"), "%s",
      l.out);
  launch_clear (&l);
}

GST_END_TEST;

/* A space or a ';' where a ',' was meant: the space made a file named
 * "t.json summary=none", the ';' dropped what followed; both silently. */
GST_START_TEST (test_separator_typos)
{
  gchar *dir = g_dir_make_tmp ("stageprof-params-XXXXXX", NULL);
  gchar *t = g_build_filename (dir, "t.json", NULL);
  gchar *odd = g_strdup_printf ("%s summary=none", t);
  gchar *tracers = g_strdup_printf ("stageprof(trace=%s summary=none)", t);
  Launch l = launch (tracers, SMALL, NULL);

  assert_ran (&l);
  fail_unless (strstr (l.err, "separated by ','"), "%s", l.err);
  fail_unless (g_file_test (t, G_FILE_TEST_EXISTS), "%s", l.err);
  fail_if (g_file_test (odd, G_FILE_TEST_EXISTS));
  /* taken as meant: no summary on stdout */
  fail_if (strstr (l.out, "Verdict:"), "%s", l.out);
  launch_clear (&l);
  g_unlink (t);
  g_free (tracers);

  tracers = g_strdup_printf ("stageprof(trace=%s;summary=none)", t);
  l = launch (tracers, SMALL, NULL);
  assert_ran (&l);
  fail_unless (strstr (l.err, "splits tracers at ';'")
      && strstr (l.err, "'summary=none'"), "%s", l.err);
  launch_clear (&l);
  g_unlink (t);
  g_rmdir (dir);
  g_free (tracers);
  g_free (odd);
  g_free (t);
  g_free (dir);
}

GST_END_TEST;

/* "[" is not a valid GstStructure value either: the fallback parser still
 * gets the key, and the regex error names the filter. */
GST_START_TEST (test_bad_filter)
{
  Launch l = launch ("stageprof(filter=[,summary=stderr)", SMALL, NULL);

  assert_ran (&l);
  fail_unless (strstr (l.err, "filter='['"), "%s", l.err);
  fail_unless (strstr (l.err, "Verdict:"), "%s", l.err);
  fail_if (strstr (l.out, "Verdict:"), "%s", l.out);
  launch_clear (&l);
}

GST_END_TEST;

GST_START_TEST (test_unwritable_paths)
{
  Launch l = launch ("stageprof(trace=/nonexistent-dir/t.json)", SMALL, NULL);

  assert_ran (&l);
  fail_unless (strstr (l.err, "/nonexistent-dir/t.json"), "%s", l.err);
  fail_unless (strstr (l.out, "Verdict:"), "%s", l.out);
  launch_clear (&l);

  l = launch ("stageprof(summary=/nonexistent-dir/s.json)", SMALL, NULL);
  assert_ran (&l);
  fail_unless (strstr (l.err, "/nonexistent-dir/s.json"), "%s", l.err);
  launch_clear (&l);
}

GST_END_TEST;

/* Numbers, booleans and a file in one params string: GStreamer 1.26+ would
 * parse "5" as a gint and refuse a guint property; the tracer must load and
 * apply every one on every version. */
GST_START_TEST (test_typed_values)
{
  Launch l;
  gchar *text = summary_file_run ("stageprof_params_typed.json",
      "stageprof(summary=%s,skip-first=5,interval=0.5,progress=false)", &l);

  fail_if (strstr (l.err, "Can't instantiate"), "%s", l.err);
  fail_if (strstr (l.err, "stageprof:"), "%s", l.err);
  fail_unless (strstr (text, "\"p_id\"") && strstr (text, "\"verdict\""),
      "%s", text);
  g_free (text);
  launch_clear (&l);
}

GST_END_TEST;

/* gst-inspect-1.0 finds the tracer on every version; from GStreamer 1.26
 * it also lists the parameters with their documentation. */
GST_START_TEST (test_inspect)
{
  gchar *argv[] = { (gchar *) "gst-inspect-1.0", (gchar *) "stageprof", NULL };
  gchar *out = NULL, *err = NULL;
  gint status = -1;
  guint major, minor, micro, nano;

  fail_unless (g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
          NULL, &out, &err, &status, NULL));
  fail_unless (g_spawn_check_wait_status (status, NULL), "%s", err);
  fail_unless (strstr (out, "stageprof"), "%s", out);
  gst_version (&major, &minor, &micro, &nano);
  if (major > 1 || minor >= 26) {
    fail_unless (strstr (out, "skip-first"), "%s", out);
    fail_unless (strstr (out, "Warm-up samples"), "%s", out);
    fail_unless (strstr (out, "summary"), "%s", out);
  }
  g_free (out);
  g_free (err);
}

GST_END_TEST;

/* Quoted values may hold what the structure syntax reserves (a space). */
GST_START_TEST (test_quoted_path_text)
{
  Launch l;
  gchar *text = summary_file_run ("stageprof params summary.txt",
      "stageprof(summary=\"%s\")", &l);

  fail_unless (strstr (text, "p_id") && strstr (text, "Verdict:"), "%s",
      text);
  g_free (text);
  launch_clear (&l);
}

GST_END_TEST;

GST_START_TEST (test_interval)
{
  Launch l = launch ("stageprof(interval=0.1,summary=none)",
      "videotestsrc is-live=true num-buffers=40 ! "
      "video/x-raw,width=32,height=24,framerate=100/1 ! fakesink",
      "stageprof:4");

  assert_ran (&l);
  fail_unless (strstr (l.err, "snapshot"), "%s", l.err);
  fail_if (strstr (l.out, "Verdict:"), "%s", l.out);
  launch_clear (&l);
}

GST_END_TEST;

GST_START_TEST (test_db)
{
  gchar *path = g_build_filename (TESTS_BUILD_DIR, "stageprof_params.sqlite",
      NULL);
  gchar *tracers = g_strdup_printf ("stageprof(db=\"%s\",summary=none)",
      path);
  Launch l;

  g_unlink (path);
  l = launch (tracers, SMALL, NULL);
  assert_ran (&l);
#ifdef HAVE_SPDB
  {
    GStatBuf st;
    fail_unless (g_stat (path, &st) == 0 && st.st_size > 0, "%s", l.err);
  }
#else
  /* Built without SQLite: said clearly, and nothing else breaks. */
  fail_unless (strstr (l.err, "SQLite"), "%s", l.err);
#endif
  g_unlink (path);
  g_free (path);
  g_free (tracers);
  launch_clear (&l);
}

GST_END_TEST;

static Suite *
stageprof_params_suite (void)
{
  Suite *s = suite_create ("stageprof_params");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_params_parsed);
  tcase_add_test (tc, test_defaults_and_stdout);
  tcase_add_test (tc, test_bad_params);
  tcase_add_test (tc, test_separator_typos);
  tcase_add_test (tc, test_bad_filter);
  tcase_add_test (tc, test_unwritable_paths);
  tcase_add_test (tc, test_typed_values);
  tcase_add_test (tc, test_inspect);
  tcase_add_test (tc, test_quoted_path_text);
  tcase_add_test (tc, test_interval);
  tcase_add_test (tc, test_db);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  g_setenv ("GST_TRACERS",
      "stageprof(summary=none,skip-first=2,filter=\"^p_.*\")", TRUE);
  gst_check_init (&argc, &argv);
  s = stageprof_params_suite ();
  return gst_check_run_suite (s, "stageprof_params", __FILE__);
}
