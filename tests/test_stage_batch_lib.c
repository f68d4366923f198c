/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stage-batch's libraries on their own: the manifest and template
 * (tools/stage-batch/sbmanifest.c) and the trace and summary merge
 * (tools/spmerge/spmerge.c),
 * which stageprof-report can share. The tool end to end is
 * test_stage_batch.py. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sbmanifest.h"
#include "spmerge.h"
#include "spjson.h"

static SbManifest *
parse (const gchar * path, const gchar * text, GError ** err)
{
  return sb_manifest_parse (path, text, strlen (text), err);
}

GST_START_TEST (test_manifest_csv)
{
  GError *err = NULL;
  SbManifest *m = parse ("j.csv", "\xef\xbb\xbfinput, width \r\n"
      "\"a b.mp4\",640\r\n\r\n\"say \"\"hi\"\"\nthere\",  320  \r\nlast,1", &err);

  g_assert_no_error (err);
  fail_unless_equals_int (m->n_columns, 2);
  fail_unless_equals_string (m->columns[1], "width");
  fail_unless_equals_int (m->rows->len, 3);
  fail_unless_equals_string (sb_manifest_value (m, 0, "input"), "a b.mp4");
  fail_unless_equals_string (sb_manifest_value (m, 1, "input"),
      "say \"hi\"\nthere");
  fail_unless_equals_string (sb_manifest_value (m, 1, "width"), "320");
  fail_unless_equals_string (sb_manifest_value (m, 2, "width"), "1");
  {
    gchar *w = sb_manifest_where (m, 1), *l = sb_manifest_label (m, 0);
    fail_unless_equals_string (w, "j.csv:4");
    fail_unless_equals_string (l, "a b");
    g_free (w);
    g_free (l);
  }
  sb_manifest_free (m);

  m = parse ("j.txt", "a\tb\n1\t2,3\n", &err);
  g_assert_no_error (err);
  fail_unless_equals_string (sb_manifest_value (m, 0, "b"), "2,3");
  sb_manifest_free (m);
}

GST_END_TEST;

static void
expect_error (const gchar * text, const gchar * part)
{
  GError *err = NULL;
  SbManifest *m = parse ("bad.csv", text, &err);

  fail_unless (m == NULL, "accepted: %s", text);
  fail_unless (err && strstr (err->message, part), "\"%s\" not in \"%s\"",
      part, err ? err->message : "(no error)");
  g_clear_error (&err);
}

GST_START_TEST (test_manifest_errors)
{
  expect_error ("", "empty manifest");
  expect_error ("a,b\n", "no rows");
  expect_error ("a,a\n1,2\n", "\"a\" appears twice");
  expect_error ("a,,c\n1,2,3\n", "column 2 of the header has no name");
  expect_error ("a,b\n1,2\n3\n", "bad.csv:3: row 2 (job 1) has 1 value,");
  expect_error ("a,b\n1,2,3\n", "has 3 values");
  expect_error ("a,b\n\"1,2\n", "bad.csv:2: a quoted value is never closed");
  expect_error ("a\n\xff\n", "not UTF-8");
}

GST_END_TEST;

GST_START_TEST (test_template)
{
  GError *err = NULL;
  SbManifest *m = parse ("t.csv", "input,w,name\n/x/my clip.mp4,640,o\"k\n",
      &err);
  SbTemplate *t = sb_template_new ("filesrc location={input} ! "
      "video/x-raw,format={I420,NV12},w={w} ! x name=\"{name}-{{lit}}\" ! "
      "filesink location=out/{stem}-{job}-{w}.mp4 ! y p=\"{input}\"", &err);
  const gchar *const *ph = sb_template_placeholders (t);
  gchar *s;

  g_assert_no_error (err);
  fail_unless_equals_int (g_strv_length ((gchar **) ph), 5);
  fail_unless_equals_string (ph[0], "input");
  fail_unless_equals_string (ph[4], "job");
  fail_unless (sb_template_check (t, m, &err));
  s = sb_template_expand (t, m, 0);
  /* Unquoted values that need it are quoted; quoted ones escaped; caps
   * lists and {{ }} left as braces. */
  fail_unless_equals_string (s, "filesrc location=\"/x/my clip.mp4\" ! "
      "video/x-raw,format={I420,NV12},w=640 ! x name=\"o\\\"k-{lit}\" ! "
      "filesink location=\"out/my clip-0-640.mp4\" ! y p=\"/x/my clip.mp4\"");
  g_free (s);
  sb_template_free (t);

  t = sb_template_new ("a b={nope}", &err);
  fail_if (sb_template_check (t, m, &err));
  fail_unless (strstr (err->message, "{nope} has no column in t.csv"));
  g_clear_error (&err);
  sb_template_free (t);
  sb_manifest_free (m);

  /* Issue 30, defect 10: values are data. A placeholder where an element
   * would stand is refused unless declared {name:pipeline}; one after a
   * lone '=' is a value; a backslash in a value is refused. */
  m = parse ("v.csv", "e,p\n\"tee name=t ! queue ! filesink location=x t. ! "
      "queue\",a \"b\" c\n", &err);
  g_assert_no_error (err);
  t = sb_template_new ("videotestsrc ! {e} ! fakesink", &err);
  fail_unless (t == NULL);
  fail_unless (strstr (err->message, "{e:pipeline}"), "%s", err->message);
  g_clear_error (&err);
  t = sb_template_new ("a ! video/x-raw,{e}=1 ! b", &err);
  fail_unless (t == NULL);
  g_clear_error (&err);
  t = sb_template_new ("a ! {e:pipelines} ! b", &err);
  fail_unless (t == NULL);
  fail_unless (strstr (err->message, "unknown kind"), "%s", err->message);
  g_clear_error (&err);
  t = sb_template_new ("a ! b g=\"x\"{p}", &err);
  fail_unless (t == NULL);
  fail_unless (strstr (err->message, "closing quote"), "%s", err->message);
  g_clear_error (&err);
  t = sb_template_new ("a ! {e:pipeline} ! b name={e} c={p} d = {p} "
      "f=\"{p}\" h= x={p}", &err);
  g_assert_no_error (err);
  fail_unless (sb_template_check (t, m, &err));
  s = sb_template_expand (t, m, 0);
  fail_unless_equals_string (s, "a ! tee name=t ! queue ! filesink "
      "location=x t. ! queue ! b name=\"tee name=t ! queue ! filesink "
      "location=x t. ! queue\" c=\"a \\\"b\\\" c\" d = \"a \\\"b\\\" c\" "
      "f=\"a \\\"b\\\" c\" h= \"x=a \\\"b\\\" c\"");
  g_free (s);
  sb_template_free (t);
  sb_manifest_free (m);
  m = parse ("bs.csv", "p\na\\\n", &err);
  t = sb_template_new ("a name={p}", &err);
  fail_if (sb_template_check (t, m, &err));
  fail_unless (strstr (err->message, "bs.csv:2: row 1 (job 0) has a "
          "backslash"), "%s", err->message);
  g_clear_error (&err);
  sb_template_free (t);
  sb_manifest_free (m);

  m = parse ("e.csv", "input,w\na.mp4,\n", &err);
  t = sb_template_new ("x w={w}", &err);
  fail_if (sb_template_check (t, m, &err));
  fail_unless (strstr (err->message, "e.csv:2: row 1 (job 0) has no value "
          "for column \"w\""));
  g_clear_error (&err);
  sb_template_free (t);
  sb_manifest_free (m);
}

GST_END_TEST;

/* ---- spmerge (its whole-trace use: test_stageprof_report's merge) --------- */

static gchar *tmpdir;

static gchar *
write_tmp (const gchar * name, const gchar * text)
{
  gchar *p = g_build_filename (tmpdir, name, NULL);

  fail_unless (g_file_set_contents (p, text, -1, NULL));
  return p;
}

static JsonArray *
load_array (const gchar * path, JsonParser * p)
{
  GError *err = NULL;

  fail_unless (json_parser_load_from_file (p, path, &err), "%s",
      err ? err->message : "");
  return json_node_get_array (json_parser_get_root (p));
}

static JsonObject *
find_event (JsonArray * a, const gchar * name, gint64 pid)
{
  guint i;

  for (i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    if (strcmp (json_object_get_string_member (o, "name"), name) == 0
        && (pid < 0 || json_object_get_int_member_with_default (o, "pid",
                -1) == pid))
      return o;
  }
  return NULL;
}

static gchar *
write_tmp_first (const gchar * name, const gchar * text)
{
  tmpdir = g_dir_make_tmp ("sblib-XXXXXX", NULL);
  return write_tmp (name, text);
}

/* Whether the temporary file of a write of `path` (common/spfile.h:
 * .NAME.XXXXXX in the same folder) is there. */
static gboolean
temp_beside (const gchar * path)
{
  gchar *d = g_path_get_dirname (path), *base = g_path_get_basename (path);
  gchar *prefix = g_strdup_printf (".%s.", base);
  GDir *dir = g_dir_open (d, 0, NULL);
  const gchar *name;
  gboolean found = FALSE;

  while (dir && (name = g_dir_read_name (dir)))
    found |= g_str_has_prefix (name, prefix);
  if (dir)
    g_dir_close (dir);
  g_free (prefix);
  g_free (base);
  g_free (d);
  return found;
}

GST_START_TEST (test_merge_traces)
{
  /* A stageprof trace cut by kill -9 (no "]", a half line at the end),
   * with its wall-clock start and a trace-wide link event... */
  gchar *a = write_tmp_first ("a.json", "[\n"
      "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"pipeline0\"}}\n"
      ",{\"name\":\"stageprof_start\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"wall_clock_us\":1000500,\"ts_us\":500.000}}\n"
      ",{\"name\":\"stageprof_link\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"src\":\"a\"}}\n"
      ",{\"name\":\"dec\",\"ph\":\"X\",\"ts\":10.000,\"dur\":5.000,\"pid\":1,\"tid\":7}\n"
      ",{\"name\":\"p2\",\"ph\":\"X\",\"ts\":20.000,\"dur\":1.000,\"pid\":2,\"tid\":8}\n"
      ",{\"name\":\"cut\",\"ph\":\"X\",\"ts\":3");
  /* ...and any other trace, in the object format, read whole. */
  gchar *b = write_tmp ("b.json", "{\"traceEvents\":[{\"name\":\"enc\","
      "\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]}");
  gchar *out = g_build_filename (tmpdir, "merged.json", NULL);
  gchar *bad;
  JsonParser *p = json_parser_new ();
  GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);
  SpMergeWriter *w;
  JsonArray *ev;
  JsonObject *o;
  GError *err = NULL;
  guint64 n = 0;
  gint64 wall = 0;
  gboolean found;
  guint pa, pb;

  fail_unless (sp_merge_trace_wall_start (a, &wall, &found, &err));
  g_assert_no_error (err);
  fail_unless (found);
  fail_unless_equals_int64 (wall, 1000000);
  fail_unless (sp_merge_trace_wall_start (b, &wall, &found, &err));
  fail_if (found);

  w = sp_merge_writer_new (out, &err);
  g_assert_no_error (err);
  sp_merge_writer_set_origin (w, 999000);
  pa = sp_merge_writer_add_process (w, "job 0 a");
  fail_unless (sp_merge_writer_add_trace (w, a, "job 0 a", pa, 1000.0, &n,
          notes, &err));
  g_assert_no_error (err);
  /* Copied: the link, dec, p2; not the half line, nor the process name and
   * wall-clock start that the merge writes itself. The cut is noted. */
  fail_unless_equals_int (n, 3);
  fail_unless_equals_int (notes->len, 1);
  fail_unless (strstr (notes->pdata[0], "a.json") != NULL, "%s",
      (gchar *) notes->pdata[0]);
  pb = sp_merge_writer_add_process (w, "job 1 b");
  fail_unless (sp_merge_writer_add_trace (w, b, "job 1 b", pb, 0.0, &n,
          notes, &err));
  g_assert_no_error (err);
  fail_unless_equals_int (n, 1);
  fail_unless (pa != 0 && pb != 0 && pa != pb);
  sp_merge_writer_add_slice (w, pb, 0, "stage-batch", "stage-batch",
      "job 1: ok", 0, 9,
      NULL);
  /* Written beside the output, renamed into place when complete. */
  fail_unless (temp_beside (out));
  fail_if (g_file_test (out, G_FILE_TEST_EXISTS));
  fail_unless (sp_merge_writer_close (w, &err));
  fail_if (temp_beside (out));

  ev = load_array (out, p);
  o = find_event (ev, "dec", -1);
  fail_unless_equals_int64 (json_object_get_int_member (o, "pid"), pa);
  fail_unless (json_object_get_double_member (o, "ts") == 1010.0);
  o = find_event (ev, "p2", -1);
  fail_unless (json_object_get_int_member (o, "pid") != pa
      && json_object_get_int_member (o, "pid") != pb);
  fail_unless_equals_int64 (json_object_get_int_member (find_event (ev, "enc",
              -1), "pid"), pb);
  /* The first process keeps the caller's name, others are named
   * "PIPELINE (LABEL)"; a link (trace-wide, pid 0) goes to the caller's
   * process, so that each input keeps its own; one stageprof_start, ours;
   * the job slice in its category. */
  o = find_event (ev, "process_name", pa);
  fail_unless_equals_string (json_object_get_string_member
      (json_object_get_object_member (o, "args"), "name"), "job 0 a");
  o = find_event (ev, "process_name", json_object_get_int_member (find_event
          (ev, "p2", -1), "pid"));
  fail_unless_equals_string (json_object_get_string_member
      (json_object_get_object_member (o, "args"), "name"), "process (job 0 a)");
  fail_unless_equals_int64 (json_object_get_int_member (find_event (ev,
              "stageprof_link", -1), "pid"), pa);
  fail_unless_equals_string (json_object_get_string_member (find_event (ev,
              "job 1: ok", pb), "cat"), "stage-batch");
  o = find_event (ev, "stageprof_start", -1);
  fail_unless_equals_int64 (json_object_get_int_member
      (json_object_get_object_member (o, "args"), "wall_clock_us"), 999000);
  fail_unless (find_event (ev, "job 1: ok", pb) != NULL);

  /* A file that is no trace: an error, nothing written; abort leaves
   * nothing behind. */
  bad = write_tmp ("bad.txt", "hello\n");
  w = sp_merge_writer_new (out, &err);
  g_assert_no_error (err);
  fail_if (sp_merge_writer_add_trace (w, bad, "x", 0, 0, &n, NULL, &err));
  fail_unless (err != NULL && strstr (err->message, "bad.txt") != NULL);
  g_clear_error (&err);
  sp_merge_writer_abort (w);
  fail_if (temp_beside (out));
  g_unlink (bad);
  g_free (bad);

  g_ptr_array_free (notes, TRUE);
  g_object_unref (p);
  g_unlink (a);
  g_unlink (b);
  g_unlink (out);
  g_free (a);
  g_free (b);
  g_free (out);
  g_rmdir (tmpdir);
  g_free (tmpdir);
}

GST_END_TEST;

GST_START_TEST (test_merge_summaries)
{
  gchar *s0 = write_tmp_first ("s0.json", "{\"verdict\":\"decode-bound: x\","
      "\"elements\":[{\"name\":\"dec\",\"count\":10,\"total_s\":1.5},"
      "{\"name\":\"enc\",\"count\":10,\"total_s\":0.5}]}");
  JsonArray *jobs = json_array_new ();
  JsonObject *j0 = json_object_new (), *j1 = json_object_new (), *t;
  JsonNode *res;
  JsonArray *els;

  json_object_set_int_member (j0, "job", 0);
  json_object_set_string_member (j0, "status", "ok");
  json_object_set_int_member (j0, "frames", 10);
  json_object_set_double_member (j0, "wall_s", 2);
  json_object_set_string_member (j0, "verdict", "decode-bound: x");
  json_object_set_string_member (j0, "summary_path", s0);
  json_object_set_int_member (j1, "job", 1);
  json_object_set_string_member (j1, "status", "crashed");
  json_object_set_double_member (j1, "wall_s", 1);
  json_array_add_object_element (jobs, j0);
  json_array_add_object_element (jobs, j1);

  res = sp_merge_summaries (jobs);
  t = json_object_get_object_member (json_node_get_object (res), "totals");
  fail_unless_equals_int (json_object_get_int_member (t, "jobs"), 2);
  fail_unless_equals_int (json_object_get_int_member (t, "frames"), 10);
  fail_unless (json_object_get_double_member (t, "job_wall_s") == 3.0);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (t, "status"), "crashed"), 1);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (t, "verdicts"), "decode-bound"), 1);
  els = json_object_get_array_member (t, "elements");
  fail_unless_equals_string (json_object_get_string_member
      (json_array_get_object_element (els, 0), "name"), "dec");
  fail_unless (json_object_has_member (json_array_get_object_element
          (json_object_get_array_member (json_node_get_object (res), "jobs"),
              0), "summary"));
  json_node_unref (res);
  json_array_unref (jobs);
  g_unlink (s0);
  g_free (s0);
  g_rmdir (tmpdir);
  g_free (tmpdir);
}

GST_END_TEST;

/* The merged trace is strict JSON whatever the input: a number JSON does
 * not allow is not copied (the first event: not a trace; later: the end
 * of what is read, noted), nor is text that is not UTF-8 (noted). */
/* Numbers json-glib 1.6's generator wrote as non-JSON ("1e-08.0": a
 * merged summary with a blocked_s of 10 ns could not be read back), and
 * strings that need escaping: every output parses back to its values. */
GST_START_TEST (test_json_text)
{
  const gdouble values[] = { 1e-08, 4.9e-08, 1e300, -2.5e-7, 0.1, 3.0, 0 };
  JsonObject *o = json_object_new ();
  JsonArray *a = json_array_new ();
  JsonNode *root = json_node_init_object (json_node_alloc (), o);
  guint i, pretty;

  for (i = 0; i < G_N_ELEMENTS (values); i++)
    json_array_add_double_element (a, values[i]);
  json_object_set_array_member (o, "v", a);
  json_object_set_string_member (o, "s\"q", "a\\b\n\"c\"");
  json_object_set_int_member (o, "n", G_GINT64_CONSTANT (1800000000000000));
  json_object_set_boolean_member (o, "b", TRUE);
  json_object_set_null_member (o, "z");
  json_object_set_object_member (o, "empty", json_object_new ());
  json_object_set_array_member (o, "none", json_array_new ());
  for (pretty = 0; pretty < 2; pretty++) {
    gchar *text = sp_json_to_string (root, 17, pretty);
    JsonParser *p = json_parser_new ();
    JsonObject *back;
    JsonArray *v;

    fail_unless (json_parser_load_from_data (p, text, -1, NULL), "%s", text);
    back = json_node_get_object (json_parser_get_root (p));
    v = json_object_get_array_member (back, "v");
    for (i = 0; i < G_N_ELEMENTS (values); i++)
      fail_unless (json_array_get_double_element (v, i) == values[i],
          "%s: %g", text, values[i]);
    fail_unless_equals_string (json_object_get_string_member (back, "s\"q"),
        "a\\b\n\"c\"");
    fail_unless_equals_int64 (json_object_get_int_member (back, "n"),
        G_GINT64_CONSTANT (1800000000000000));
    fail_unless (json_object_get_boolean_member (back, "b"));
    fail_unless (json_object_get_null_member (back, "z"));
    fail_unless_equals_int (json_object_get_size
        (json_object_get_object_member (back, "empty")), 0);
    g_object_unref (p);
    g_free (text);
  }
  json_node_unref (root);
}

GST_END_TEST;

GST_START_TEST (test_merge_strict)
{
  gchar *bad = write_tmp_first ("bad.json", "[{\"name\":\"a\",\"ph\":\"X\","
      "\"ts\":01,\"pid\":1}]");
  gchar *odd = write_tmp ("odd.json", "[\n"
      "{\"name\":\"ok\",\"ph\":\"X\",\"ts\":1,\"dur\":1e2,\"pid\":1,\"tid\":1}\n"
      ",{\"name\":\"x\xff\",\"ph\":\"X\",\"ts\":2,\"pid\":1,\"tid\":1}\n"
      ",{\"name\":\"late\",\"ph\":\"X\",\"ts\":.5,\"pid\":1,\"tid\":1}\n]\n");
  gchar *out = g_build_filename (tmpdir, "strict.json", NULL);
  GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);
  JsonParser *p = json_parser_new ();
  SpMergeWriter *w;
  JsonArray *ev;
  GError *err = NULL;
  guint64 n = 0;

  w = sp_merge_writer_new (out, &err);
  g_assert_no_error (err);
  fail_if (sp_merge_writer_add_trace (w, bad, "b", 0, 0, &n, notes, &err));
  fail_unless (err && strstr (err->message, "bad.json"));
  g_clear_error (&err);
  fail_unless (sp_merge_writer_add_trace (w, odd, "o", 0, 0, &n, notes, &err));
  g_assert_no_error (err);
  fail_unless_equals_int (n, 1);
  fail_unless_equals_int (notes->len, 2);
  fail_unless (sp_merge_writer_close (w, &err));
  ev = load_array (out, p);     /* json-glib: strict */
  fail_unless (find_event (ev, "ok", -1) != NULL);
  fail_unless (find_event (ev, "late", -1) == NULL);

  g_object_unref (p);
  g_ptr_array_free (notes, TRUE);
  g_unlink (bad);
  g_unlink (odd);
  g_unlink (out);
  g_free (bad);
  g_free (odd);
  g_free (out);
  g_rmdir (tmpdir);
  g_free (tmpdir);
}

GST_END_TEST;

static Suite *
stage_batch_lib_suite (void)
{
  Suite *s = suite_create ("stage_batch_lib");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_manifest_csv);
  tcase_add_test (tc, test_manifest_errors);
  tcase_add_test (tc, test_template);
  tcase_add_test (tc, test_merge_traces);
  tcase_add_test (tc, test_merge_summaries);
  tcase_add_test (tc, test_merge_strict);
  tcase_add_test (tc, test_json_text);
  return s;
}

GST_CHECK_MAIN (stage_batch_lib);
