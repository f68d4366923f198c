/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests for stageprof's writers: the Chrome trace writer (sptrace) and,
 * when built with SQLite, the database writer (spdb). */
#include <gst/check/gstcheck.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmpdir.h"
#include "sptrace.h"
#include "jsontext.h"
#ifdef HAVE_SPDB
#include <sqlite3.h>
#include "spdb.h"
#include "lib/stagetest.h"
#endif

/* Every test's files live in one folder per run of the suite, which main()
 * removes after the suite whatever the tests did (a failed check leaves
 * its test before its own cleanup). */
static gchar *suite_tmp;

static gchar *
tmp_path (const gchar * base)
{
  gchar *tmpl = g_build_filename (suite_tmp, "t-XXXXXX", NULL);
  gchar *dir = g_mkdtemp (tmpl);
  gchar *p;

  fail_unless (dir != NULL);
  p = g_build_filename (dir, base, NULL);
  g_free (dir);
  return p;
}

static void
rm_tmp (gchar * path)
{
  gchar *dir = g_path_get_dirname (path);
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *n;

  while (d && (n = g_dir_read_name (d))) {
    gchar *f = g_build_filename (dir, n, NULL);
    g_unlink (f);
    g_free (f);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
  g_free (path);
}

/* Parse `path` (optionally with "]" appended) as strict JSON; returns the
 * array of events (owned by the returned parser). */
static JsonArray *
parse_trace (const gchar * path, gboolean append_bracket, JsonParser ** pp)
{
  gchar *text = NULL;
  gsize len;
  GError *err = NULL;
  JsonParser *p = json_parser_new ();
  JsonNode *root;

  fail_unless (g_file_get_contents (path, &text, &len, &err), "%s",
      err ? err->message : "");
  if (append_bracket) {
    gchar *t2 = g_strconcat (text, "]", NULL);
    g_free (text);
    text = t2;
  }
  fail_unless (json_parser_load_from_data (p, text, -1, &err),
      "trace %s is not valid JSON: %s", path, err ? err->message : "");
  g_free (text);
  root = json_parser_get_root (p);
  fail_unless (JSON_NODE_HOLDS_ARRAY (root));
  *pp = p;
  return json_node_get_array (root);
}

GST_START_TEST (test_trace_format)
{
  gchar *path = tmp_path ("t.json");
  GError *err = NULL;
  SpTrace *t = sp_trace_new (path, &err);
  JsonParser *p;
  JsonArray *a;
  JsonObject *o, *args;
  const gchar *el = g_intern_string ("identity0");
  const gchar *q = g_intern_string ("queue0");
  gchar *text;

  fail_unless (t != NULL);
  sp_trace_process_name (t, 1, "pipeline0");
  sp_trace_thread_name (t, 1, 77, "fakesrc0:src");
  sp_trace_slice (t, 1, 77, el, 1234567, 2001, SP_SLICE_ELEMENT);
  sp_trace_slice (t, 1, 77, el, 1240000, 999, SP_SLICE_WAIT_INPUT);
  sp_trace_slice (t, 1, 77, el, 1250000, 5, SP_SLICE_WAIT_OUTPUT);
  sp_trace_slice (t, 1, 77, el, 1260000, 1000000, SP_SLICE_GPU);
  sp_trace_counter (t, 1, q, 1270000, 3, -4096);
  sp_trace_slice (t, 1, 77, el, 1280000, 7000, SP_SLICE_WAIT_CLOCK);
  sp_trace_slice (t, 1, 77, el, 1290000, 8000, SP_SLICE_BLOCKED);
  /* A slice drawn whole, and its work: after it, at its start. */
  sp_trace_slice (t, 1, 77, el, 1300000, 9000, SP_SLICE_ELEMENT);
  sp_trace_work (t, 1, 77, el, 1300000, 2500, SP_SLICE_BLOCKED);
  sp_trace_free (t);

  /* One event per line, continuation lines start with ",". */
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  fail_unless (g_str_has_prefix (text, "[\n{"), "starts: %.20s", text);
  fail_unless (g_str_has_suffix (text, "}\n]\n"));
  fail_unless (strstr (text, "\n,{") != NULL);
  fail_unless (strstr (text, "\"ts\":1234.567,\"dur\":2.001") != NULL, "%s",
      text);
  g_free (text);

  a = parse_trace (path, FALSE, &p);
  fail_unless_equals_int (json_array_get_length (a), 12);
  /* Metadata first (queued before the drain), then slices by ts. */
  o = json_array_get_object_element (a, 0);
  fail_unless_equals_string (json_object_get_string_member (o, "ph"), "M");
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "process_name");
  fail_unless_equals_string (json_object_get_string_member
      (json_object_get_object_member (o, "args"), "name"), "pipeline0");
  o = json_array_get_object_element (a, 1);
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "thread_name");
  fail_unless_equals_int (json_object_get_int_member (o, "tid"), 77);

  o = json_array_get_object_element (a, 2);
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "identity0");
  fail_if (json_object_has_member (o, "cat"),
      "element slices carry no category");
  fail_unless_equals_string (json_object_get_string_member (o, "ph"), "X");
  fail_unless_equals_float (json_object_get_double_member (o, "ts"),
      1234.567);
  fail_unless_equals_float (json_object_get_double_member (o, "dur"), 2.001);
  fail_unless_equals_int (json_object_get_int_member (o, "pid"), 1);
  fail_unless_equals_int (json_object_get_int_member (o, "tid"), 77);

  o = json_array_get_object_element (a, 3);
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "Wait on Input Queue");
  fail_unless_equals_string (json_object_get_string_member (o, "cat"),
      "wait");
  fail_unless_equals_string (json_object_get_string_member (o, "cname"),
      "grey");
  fail_unless_equals_string (json_object_get_string_member
      (json_object_get_object_member (o, "args"), "element"), "identity0");
  o = json_array_get_object_element (a, 4);
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "Wait on Output Queue");
  fail_unless_equals_float (json_object_get_double_member (o, "dur"), 0.005);
  o = json_array_get_object_element (a, 5);
  fail_unless_equals_string (json_object_get_string_member (o, "cat"), "gpu");
  fail_unless_equals_float (json_object_get_double_member (o, "dur"), 1000.0);

  /* One counter track per quantity: buffers and bytes apart. */
  o = json_array_get_object_element (a, 6);
  fail_unless_equals_string (json_object_get_string_member (o, "ph"), "C");
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "queue0 buffers");
  fail_if (json_object_has_member (o, "tid"));
  args = json_object_get_object_member (o, "args");
  fail_unless_equals_int (json_object_get_int_member (args, "buffers"), 3);
  fail_unless_equals_int (json_object_get_size (args), 1);
  o = json_array_get_object_element (a, 7);
  fail_unless_equals_string (json_object_get_string_member (o, "ph"), "C");
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "queue0 bytes");
  fail_unless_equals_float (json_object_get_double_member (o, "ts"), 1270.0);
  args = json_object_get_object_member (o, "args");
  fail_unless_equals_int (json_object_get_int_member (args, "bytes"), -4096);
  fail_unless_equals_int (json_object_get_size (args), 1);
  o = json_array_get_object_element (a, 8);
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "Wait on Clock");
  fail_unless_equals_string (json_object_get_string_member (o, "cat"),
      "wait");
  fail_unless_equals_string (json_object_get_string_member
      (json_object_get_object_member (o, "args"), "element"), "identity0");
  o = json_array_get_object_element (a, 9);
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "Blocked");
  fail_unless_equals_string (json_object_get_string_member (o, "cat"),
      "wait");
  fail_unless_equals_float (json_object_get_double_member (o, "dur"), 8.0);
  o = json_array_get_object_element (a, 10);
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "identity0");
  o = json_array_get_object_element (a, 11);
  fail_unless_equals_string (json_object_get_string_member (o, "name"),
      "stageprof_work");
  fail_unless_equals_string (json_object_get_string_member (o, "ph"), "M");
  fail_unless_equals_float (json_object_get_double_member (o, "ts"), 1300.0);
  fail_unless_equals_int (json_object_get_int_member (o, "tid"), 77);
  args = json_object_get_object_member (o, "args");
  fail_unless_equals_string (json_object_get_string_member (args,
          "element"), "identity0");
  fail_unless_equals_float (json_object_get_double_member (args, "work"),
      2.5);
  fail_unless_equals_string (json_object_get_string_member (args, "rest"),
      "blocked");
  g_object_unref (p);
  rm_tmp (path);
}

GST_END_TEST;

GST_START_TEST (test_trace_escaping)
{
  static const gchar *names[] = {
    "plain",
    "with \"quotes\"",
    "back\\slash\\",
    "ctl\x01\x1f\n\t\r\b end",
    "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x8e\xa5",   /* café ✓ 🎥 */
    "bad \xff\xfe utf8 \xc3",   /* invalid bytes, truncated sequence */
    "</script>{}[],:",
  };
  const gchar *expect_bad = "bad \xef\xbf\xbd\xef\xbf\xbd utf8 \xef\xbf\xbd";
  gchar *path = tmp_path ("esc.json");
  SpTrace *t = sp_trace_new (path, NULL);
  JsonParser *p;
  JsonArray *a;
  guint i, n = G_N_ELEMENTS (names);

  for (i = 0; i < n; i++) {
    sp_trace_slice (t, 1, 1, g_intern_string (names[i]), 1000 * (i + 1), 10,
        SP_SLICE_ELEMENT);
    sp_trace_thread_name (t, 1, i + 10, names[i]);
  }
  sp_trace_counter (t, 2, g_intern_string (names[1]), 50000, 1, 1);
  sp_trace_slice (t, 2, 3, g_intern_string (names[3]), 60000, 1,
      SP_SLICE_WAIT_INPUT);
  sp_trace_process_name (t, 2, names[5]);
  sp_trace_free (t);

  a = parse_trace (path, FALSE, &p);
  fail_unless_equals_int (json_array_get_length (a), 2 * n + 4);
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    const gchar *ph = json_object_get_string_member (o, "ph");
    const gchar *got;
    gint idx = -1, k;

    if (g_str_equal (ph, "M")) {
      got = json_object_get_string_member (json_object_get_object_member (o,
              "args"), "name");
      if (json_object_has_member (o, "tid"))
        idx = json_object_get_int_member (o, "tid") - 10;
      else
        idx = 5;
    } else if (json_object_has_member (o, "cname")) {
      got = json_object_get_string_member (json_object_get_object_member (o,
              "args"), "element");
      idx = 3;
    } else {
      got = json_object_get_string_member (o, "name");
      if (g_str_equal (ph, "C")) {
        /* "<queue> buffers" and "<queue> bytes" */
        fail_unless (g_str_has_suffix (got, " buffers")
            || g_str_has_suffix (got, " bytes"), "%s", got);
        got = g_strndup (got, strrchr (got, ' ') - got);
        fail_unless_equals_string (got, names[1]);
        g_free ((gchar *) got);
        continue;
      }
      for (k = 0; k < (gint) n; k++)
        if (g_str_equal (got, k == 5 ? expect_bad : names[k]))
          idx = k;
    }
    fail_unless (idx >= 0 && idx < (gint) n, "unexpected name '%s'", got);
    fail_unless_equals_string (got, idx == 5 ? expect_bad : names[idx]);
    fail_unless (g_utf8_validate (got, -1, NULL));
  }
  g_object_unref (p);
  rm_tmp (path);
}

GST_END_TEST;

GST_START_TEST (test_escape_function)
{
  GString *s = g_string_new (NULL);

  stage_json_escape (s, "a\"b\\c\x01\x7f\xc3\xa9\xff");
  fail_unless_equals_string (s->str,
      "a\\\"b\\\\c\\u0001\x7f\xc3\xa9\xef\xbf\xbd");
  g_string_free (s, TRUE);
}

GST_END_TEST;

#define N_THREADS 8
#define N_PER_THREAD 12000

typedef struct
{
  SpTrace *t;
  guint idx;
  guint n;
} Worker;

/* Each worker records nested slices the way a tracer does: a child chain
 * ends (and is recorded) before its parent, so recording order is not ts
 * order; the writer must put them in ts order per thread. */
static gpointer
worker (gpointer data)
{
  Worker *w = data;
  const gchar *parent = g_intern_string ("parent");
  const gchar *child = g_intern_string ("child");
  const gchar *q = g_intern_string ("q");
  guint i;

  for (i = 0; i < w->n; i += 3) {
    guint64 base = (guint64) i * 1000;
    sp_trace_slice (w->t, 1, w->idx, child, base + 100, 300, SP_SLICE_ELEMENT);
    sp_trace_slice (w->t, 1, w->idx, parent, base, 900, SP_SLICE_ELEMENT);
    sp_trace_counter (w->t, 1, q, base + 950, i, i * 10);
  }
  return NULL;
}

GST_START_TEST (test_trace_threads)
{
  gchar *path = tmp_path ("mt.json");
  SpTrace *t = sp_trace_new (path, NULL);
  GThread *th[N_THREADS];
  Worker w[N_THREADS];
  guint64 per_tid[N_THREADS] = { 0 };
  gdouble last_ts[N_THREADS];
  JsonParser *p;
  JsonArray *a;
  guint i, expected = 0;

  for (i = 0; i < N_THREADS; i++) {
    w[i].t = t;
    w[i].idx = i;
    /* Some threads record less than one chunk and exit at once: their
     * partial chunk must still reach the file. */
    w[i].n = (i % 2) ? 30 : N_PER_THREAD;
    expected += (w[i].n + 2) / 3 * 2;
    th[i] = g_thread_new ("worker", worker, &w[i]);
    last_ts[i] = -1;
  }
  for (i = 0; i < N_THREADS; i++)
    g_thread_join (th[i]);
  /* The workers are gone; now a drain must still find their events. */
  sp_trace_flush (t);
  /* A counter record is two events: one track per quantity. */
  fail_unless_equals_uint64 (sp_trace_get_events_written (t), 2 * expected);
  fail_unless_equals_uint64 (sp_trace_get_dropped (t), 0);
  sp_trace_free (t);

  a = parse_trace (path, FALSE, &p);
  fail_unless_equals_int (json_array_get_length (a), 2 * expected);
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    gint64 tid;
    gdouble ts;

    if (!g_str_equal (json_object_get_string_member (o, "ph"), "X"))
      continue;
    tid = json_object_get_int_member (o, "tid");
    ts = json_object_get_double_member (o, "ts");
    fail_unless (tid >= 0 && tid < N_THREADS);
    fail_unless (ts > last_ts[tid], "thread %d: ts %f after %f", (gint) tid,
        ts, last_ts[tid]);
    last_ts[tid] = ts;
    per_tid[tid]++;
  }
  for (i = 0; i < N_THREADS; i++)
    fail_unless_equals_uint64 (per_tid[i], (w[i].n + 2) / 3 * 2);
  g_object_unref (p);
  rm_tmp (path);
}

GST_END_TEST;

/* A parent slice recorded long (in wall time) after the children it
 * encloses, with periodic drains in between: it must still come out before
 * them (ts order per thread), since it is shorter than the 100 ms hold. */
GST_START_TEST (test_trace_order_across_drains)
{
  gchar *path = tmp_path ("order.json");
  SpTrace *t = sp_trace_new (path, NULL);
  const gchar *child = g_intern_string ("child");
  const gchar *parent = g_intern_string ("parent");
  const guint64 ms = 1000000;
  JsonParser *p;
  JsonArray *a;
  gdouble last = -1;
  guint i;

  for (i = 0; i < 15; i++) {
    /* children at 1000, 1004, ... 1056 ms; 20 ms of wall time apart, so
     * the writer drains several times while the parent is still open */
    sp_trace_slice (t, 1, 9, child, (1000 + 4 * i) * ms, 2 * ms,
        SP_SLICE_ELEMENT);
    g_usleep (20000);
  }
  sp_trace_slice (t, 1, 9, parent, 999 * ms, 60 * ms, SP_SLICE_ELEMENT);
  sp_trace_free (t);

  a = parse_trace (path, FALSE, &p);
  fail_unless_equals_int (json_array_get_length (a), 16);
  fail_unless_equals_string (json_object_get_string_member
      (json_array_get_object_element (a, 0), "name"), "parent");
  for (i = 0; i < json_array_get_length (a); i++) {
    gdouble ts = json_object_get_double_member (json_array_get_object_element
        (a, i), "ts");
    fail_unless (ts > last);
    last = ts;
  }
  g_object_unref (p);
  rm_tmp (path);
}

GST_END_TEST;

/* One thread records into two traces alternately, and outlives both. */
GST_START_TEST (test_trace_two_traces)
{
  gchar *p1 = tmp_path ("a.json"), *p2 = tmp_path ("b.json");
  SpTrace *t1 = sp_trace_new (p1, NULL), *t2 = sp_trace_new (p2, NULL);
  const gchar *n = g_intern_string ("x");
  JsonParser *p;
  guint i;

  for (i = 0; i < 5000; i++) {
    sp_trace_slice (t1, 1, 1, n, i, 1, SP_SLICE_ELEMENT);
    sp_trace_slice (t2, 2, 2, n, i, 1, SP_SLICE_ELEMENT);
  }
  sp_trace_free (t1);
  for (i = 0; i < 10; i++)
    sp_trace_slice (t2, 2, 2, n, 10000 + i, 1, SP_SLICE_ELEMENT);
  sp_trace_free (t2);
  fail_unless_equals_int (json_array_get_length (parse_trace (p1, FALSE, &p)),
      5000);
  g_object_unref (p);
  fail_unless_equals_int (json_array_get_length (parse_trace (p2, FALSE, &p)),
      5010);
  g_object_unref (p);
  rm_tmp (p1);
  rm_tmp (p2);
}

GST_END_TEST;

GST_START_TEST (test_trace_periodic_flush)
{
  gchar *path = tmp_path ("per.json");
  SpTrace *t = sp_trace_new (path, NULL);
  const gchar *n = g_intern_string ("e");
  gint64 start;
  gboolean seen = FALSE;

  sp_trace_slice (t, 1, 1, n, 1000, 1, SP_SLICE_ELEMENT);
  start = g_get_monotonic_time ();
  /* No explicit flush: the writer must get it to the file by itself
   * (promised within 200 ms; allow for a loaded machine). */
  while (!seen && g_get_monotonic_time () - start < 2 * G_USEC_PER_SEC) {
    gchar *text = NULL;
    g_usleep (20000);
    if (g_file_get_contents (path, &text, NULL, NULL))
      seen = strstr (text, "\"name\":\"e\"") != NULL;
    g_free (text);
  }
  GST_INFO ("event on disk after %" G_GINT64_FORMAT " ms",
      (g_get_monotonic_time () - start) / 1000);
  fail_unless (seen, "event not written within 2 s without a flush");
  sp_trace_free (t);
  rm_tmp (path);
}

GST_END_TEST;

GST_START_TEST (test_trace_write_copy)
{
  gchar *path = tmp_path ("live.json"), *copy = tmp_path ("copy.json");
  SpTrace *t = sp_trace_new (path, NULL);
  const gchar *n = g_intern_string ("e");
  GError *err = NULL;
  JsonParser *p;
  guint i;

  for (i = 0; i < 3000; i++)
    sp_trace_slice (t, 1, 1, n, i * 10, 5, SP_SLICE_ELEMENT);
  fail_unless (sp_trace_write_copy (t, copy, &err));
  fail_unless_equals_int (json_array_get_length (parse_trace (copy, FALSE,
              &p)), 3000);
  g_object_unref (p);
  /* The live trace goes on. */
  for (i = 0; i < 10; i++)
    sp_trace_slice (t, 1, 1, n, 100000 + i, 5, SP_SLICE_ELEMENT);

  fail_if (sp_trace_write_copy (t, "/nonexistent-dir/copy.json", &err));
  fail_unless (err != NULL);
  fail_unless (strstr (err->message, "/nonexistent-dir/copy.json") != NULL,
      "%s", err->message);
  g_clear_error (&err);

  sp_trace_free (t);
  fail_unless_equals_int (json_array_get_length (parse_trace (path, FALSE,
              &p)), 3010);
  g_object_unref (p);
  rm_tmp (path);
  rm_tmp (copy);
}

GST_END_TEST;

GST_START_TEST (test_trace_unwritable)
{
  GError *err = NULL;
  SpTrace *t = sp_trace_new ("/nonexistent-dir/sub/trace.json", &err);

  fail_unless (t == NULL);
  fail_unless (err != NULL);
  fail_unless (g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_NOENT));
  fail_unless (strstr (err->message, "/nonexistent-dir/sub/trace.json") !=
      NULL, "%s", err->message);
  g_clear_error (&err);
}

GST_END_TEST;

/* The child records, flushes, tells the parent, then keeps recording (and
 * flushing) until it is killed mid-write. */
static void
kill_child (const gchar * path, int fd)
{
  SpTrace *t = sp_trace_new (path, NULL);
  const gchar *n = g_intern_string ("before \"kill\"");
  const gchar *m = g_intern_string ("after");
  guint64 i;

  if (!t)
    _exit (2);
  sp_trace_thread_name (t, 1, 1, "main");
  for (i = 0; i < 5000; i++)
    sp_trace_slice (t, 1, 1, n, i * 1000, 500, SP_SLICE_ELEMENT);
  sp_trace_flush (t);
  if (write (fd, "k", 1) != 1)
    _exit (3);
  for (i = 5000;; i++) {
    sp_trace_slice (t, 1, 1, m, i * 1000, 500, SP_SLICE_ELEMENT);
    /* Paced, so the file stays small enough to parse quickly. */
    if (i % 200 == 0)
      g_usleep (1000);
    if (i % 20000 == 0)
      sp_trace_flush (t);
  }
}

GST_START_TEST (test_trace_kill9)
{
  gchar *path = tmp_path ("kill.json");
  int fds[2], status;
  pid_t pid;
  gchar c, *text;
  gsize len;
  JsonParser *p;
  JsonArray *a;
  guint i, before = 0;

  fail_unless (pipe (fds) == 0);
  pid = fork ();
  fail_unless (pid >= 0);
  if (pid == 0) {
    close (fds[0]);
    kill_child (path, fds[1]);
    _exit (1);
  }
  close (fds[1]);
  fail_unless_equals_int (read (fds[0], &c, 1), 1);
  g_usleep (150000);            /* let it write more, and be mid-write */
  kill (pid, SIGKILL);
  fail_unless (waitpid (pid, &status, 0) == pid);
  fail_unless (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
  close (fds[0]);

  fail_unless (g_file_get_contents (path, &text, &len, NULL));
  fail_unless (len > 0 && text[len - 1] == '\n', "file cut mid-line");
  fail_if (g_str_has_suffix (text, "]\n"));
  g_free (text);

  a = parse_trace (path, TRUE, &p);
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    if (g_str_equal (json_object_get_string_member (o, "name"),
            "before \"kill\""))
      before++;
  }
  fail_unless_equals_int (before, 5000);
  GST_INFO ("%u events readable after kill -9", json_array_get_length (a));
  g_object_unref (p);
  rm_tmp (path);
}

GST_END_TEST;

/* Child of test_trace_disk_full: a file-size limit (write(2) then fails
 * with EFBIG, as a full disk fails with ENOSPC), then far more than fits.
 * Reports "written lost" on `fd`. */
static void
full_child (const gchar * path, int fd)
{
  struct rlimit rl = { 50000, 50000 };
  const gchar *n = g_intern_string ("e");
  SpTrace *t;
  gchar *msg;
  guint i;

  /* The warnings are the point here, not failures. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK);
  g_log_set_handler (NULL, G_LOG_LEVEL_WARNING, g_log_default_handler, NULL);
  signal (SIGXFSZ, SIG_IGN);
  if (setrlimit (RLIMIT_FSIZE, &rl) != 0)
    _exit (2);
  t = sp_trace_new (path, NULL);
  if (!t)
    _exit (3);
  for (i = 0; i < 20000; i++) {
    sp_trace_slice (t, 1, 1, n, i * 1000, 500, SP_SLICE_ELEMENT);
    if (i % 500 == 0)
      sp_trace_flush (t);
  }
  sp_trace_flush (t);
  msg = g_strdup_printf ("%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
      sp_trace_get_events_written (t), sp_trace_get_lost (t));
  if (write (fd, msg, strlen (msg)) < 0)
    _exit (4);
  sp_trace_free (t);
  _exit (0);
}

/* Whole events or nothing: the file ends at a line boundary, "]" makes it
 * parse, and every event is either in it or counted as lost. */
GST_START_TEST (test_trace_disk_full)
{
  gchar *path = tmp_path ("full.json"), buf[64] = { 0 }, *text;
  int fds[2], status;
  guint64 written = 0, lost = 0;
  gsize len;
  pid_t pid;
  JsonParser *p;
  JsonArray *a;

  fail_unless (pipe (fds) == 0);
  pid = fork ();
  fail_unless (pid >= 0);
  if (pid == 0) {
    close (fds[0]);
    full_child (path, fds[1]);
  }
  close (fds[1]);
  fail_unless (read (fds[0], buf, sizeof (buf) - 1) > 0);
  close (fds[0]);
  fail_unless (waitpid (pid, &status, 0) == pid);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0, "status %d",
      status);
  fail_unless (sscanf (buf, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
          &written, &lost) == 2);
  fail_unless_equals_uint64 (written + lost, 20000);
  fail_unless (lost > 10000, "%s", buf);

  fail_unless (g_file_get_contents (path, &text, &len, NULL));
  fail_unless (len <= 50000 && len > 40000, "%" G_GSIZE_FORMAT, len);
  fail_unless (text[len - 1] == '\n', "cut mid-line");
  g_free (text);
  a = parse_trace (path, TRUE, &p);
  fail_unless_equals_int (json_array_get_length (a), written);
  g_object_unref (p);
  rm_tmp (path);
}

GST_END_TEST;

/* Far more events than the chunk budget holds: memory stays within the
 * budget, and every event is either written or counted as dropped (with a
 * warning at free). */
GST_START_TEST (test_trace_bounded)
{
  gchar *path = tmp_path ("long.json");
  SpTrace *t = sp_trace_new (path, NULL);
  const gchar *n = g_intern_string ("e");
  const gsize budget = 256 * 1024;
  const guint total = 1000000;
  guint64 dropped;
  guint i;

  sp_trace_set_max_bytes (t, budget);
  for (i = 0; i < total; i++)
    sp_trace_slice (t, 1, 1, n, i, 1, SP_SLICE_ELEMENT);
  fail_unless (sp_trace_get_allocated_bytes (t) <= budget,
      "%" G_GSIZE_FORMAT " bytes of chunks for a %" G_GSIZE_FORMAT
      " budget", sp_trace_get_allocated_bytes (t), budget);
  sp_trace_flush (t);
  dropped = sp_trace_get_dropped (t);
  GST_INFO ("written %" G_GUINT64_FORMAT " dropped %" G_GUINT64_FORMAT,
      sp_trace_get_events_written (t), dropped);
  fail_unless_equals_uint64 (sp_trace_get_events_written (t) + dropped, total);
  /* A tight loop outruns the writer by far: some must have been dropped. */
  fail_unless (dropped > 0);
  ASSERT_WARNING (sp_trace_free (t));
  rm_tmp (path);
}

GST_END_TEST;


#ifdef HAVE_SPDB
/* ---- spdb ----------------------------------------------------------------- */

/* The example queries of docs/tracer-db.md, run here so they stay valid. */
#define Q_TOP_ELEMENTS \
  "SELECT e.name, e.thread, e.count, e.mean_ms, e.p99_ms, e.total_s, e.busy_pct\n" \
  "FROM elements e\n" \
  "WHERE e.snapshot_id = (SELECT MAX(snapshot_id) FROM snapshots\n" \
  "                       WHERE final = 1\n" \
  "                         AND run_id = (SELECT MAX(run_id) FROM runs))\n" \
  "ORDER BY e.total_s DESC\n" \
  "LIMIT 10;"
#define Q_QUEUE_FULL \
  "SELECT s.wall_s, q.name, q.full_pct,\n" \
  "       (q.full_pct * s.wall_s\n" \
  "        - LAG(q.full_pct * s.wall_s, 1, 0) OVER w)\n" \
  "       / (s.wall_s - LAG(s.wall_s, 1, 0) OVER w) AS full_pct_in_interval\n" \
  "FROM queues q JOIN snapshots s USING (snapshot_id)\n" \
  "WHERE s.run_id = (SELECT MAX(run_id) FROM runs)\n" \
  "WINDOW w AS (PARTITION BY q.name ORDER BY s.snapshot_id)\n" \
  "ORDER BY q.name, s.snapshot_id;"

static GstStructure *
make_row (const gchar * type, const gchar * first_field, ...)
{
  GstStructure *s;
  va_list ap;

  va_start (ap, first_field);
  s = gst_structure_new_valist (type, first_field, ap);
  va_end (ap);
  return s;
}

static void
append_row (GValue * arr, GstStructure * row)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, GST_TYPE_STRUCTURE);
  gst_value_set_structure (&v, row);
  gst_value_array_append_and_take_value (arr, &v);
  gst_structure_free (row);
}

/* A summary as stageprof's get-summary returns it, built by hand; `k`
 * scales the figures so snapshots differ. */
static GstStructure *
make_summary (gdouble wall_s, gboolean final, gdouble k)
{
  GstStructure *s = gst_structure_new ("stageprof-summary",
      "wall_s", G_TYPE_DOUBLE, wall_s, "final", G_TYPE_BOOLEAN, final,
      "verdict", G_TYPE_STRING, "decode-bound: avdec_h264 on \"dec\" thread",
      "unknown-extra", G_TYPE_STRING, "ignored", NULL);
  GValue el = G_VALUE_INIT, qu = G_VALUE_INIT, th = G_VALUE_INIT,
      sk = G_VALUE_INIT;

  g_value_init (&el, GST_TYPE_ARRAY);
  g_value_init (&qu, GST_TYPE_ARRAY);
  g_value_init (&th, GST_TYPE_ARRAY);
  g_value_init (&sk, GST_TYPE_ARRAY);
  append_row (&el, make_row ("element", "name", G_TYPE_STRING, "avdec_h264-0",
          "thread", G_TYPE_STRING, "queue0:src", "count", G_TYPE_UINT64,
          (guint64) 1 << 40, "mean_ms", G_TYPE_DOUBLE, 12.5 * k,
          "std_ms", G_TYPE_DOUBLE, 1.0, "min_ms", G_TYPE_DOUBLE, 10.0,
          "max_ms", G_TYPE_DOUBLE, 30.0, "median_ms", G_TYPE_DOUBLE, 12.0,
          "p90_ms", G_TYPE_DOUBLE, 14.0, "p99_ms", G_TYPE_DOUBLE, 20.0,
          "total_s", G_TYPE_DOUBLE, 3.0 * k, "busy_pct", G_TYPE_DOUBLE, 90.0,
          "new-field", G_TYPE_INT, 7, NULL));
  /* Missing fields become NULL; a quote and non-ASCII survive. */
  append_row (&el, make_row ("element", "name", G_TYPE_STRING,
          "sc\"ale \xc3\xa9", "thread", G_TYPE_STRING, "queue1:src",
          "count", G_TYPE_UINT64, (guint64) 100, "total_s", G_TYPE_DOUBLE,
          0.5 * k, NULL));
  append_row (&qu, make_row ("queue", "name", G_TYPE_STRING, "queue0",
          "items", G_TYPE_UINT64, (guint64) 100, "qps", G_TYPE_DOUBLE, 25.0,
          "mean_level", G_TYPE_DOUBLE, 2.5, "max_level", G_TYPE_UINT64,
          (guint64) 5, "mean_bytes", G_TYPE_DOUBLE, 1e6, "max_bytes",
          G_TYPE_UINT64, (guint64) 3000000, "empty_pct", G_TYPE_DOUBLE, 10.0,
          "full_pct", G_TYPE_DOUBLE, 20.0 * k, "ave_put_ms", G_TYPE_DOUBLE,
          0.1, "ave_get_ms", G_TYPE_DOUBLE, 0.2, "span_s", G_TYPE_DOUBLE, 4.0,
          NULL));
  append_row (&th, make_row ("thread", "name", G_TYPE_STRING, "queue0:src",
          "busy_pct", G_TYPE_DOUBLE, 90.0, "wait_input_pct", G_TYPE_DOUBLE,
          5.0, "wait_output_pct", G_TYPE_DOUBLE, 2.0, "blocked_pct",
          G_TYPE_DOUBLE, 1.0, "cpu_wait_pct", G_TYPE_DOUBLE, 2.0, NULL));
  append_row (&th, make_row ("thread", "name", G_TYPE_STRING, "qtdemux0:sink",
          "busy_pct", G_TYPE_DOUBLE, 10.0, "wait_input_pct", G_TYPE_DOUBLE,
          0.0, "wait_output_pct", G_TYPE_DOUBLE, 90.0, NULL));
  append_row (&sk, make_row ("sink", "name", G_TYPE_STRING, "fakesink0",
          "frames", G_TYPE_UINT64, (guint64) 132, "fps", G_TYPE_DOUBLE,
          44.0, "buffers", G_TYPE_UINT64, (guint64) 132, "unit",
          G_TYPE_STRING, "frames", "media", G_TYPE_STRING, "video/x-raw",
          NULL));
  gst_structure_take_value (s, "elements", &el);
  gst_structure_take_value (s, "queues", &qu);
  gst_structure_take_value (s, "threads", &th);
  gst_structure_take_value (s, "sinks", &sk);
  return s;
}

static sqlite3 *
open_ro (const gchar * path)
{
  sqlite3 *db = NULL;

  fail_unless_equals_int (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY,
          NULL), SQLITE_OK);
  return db;
}

static gint64
query_int (sqlite3 * db, const gchar * sql)
{
  sqlite3_stmt *st;
  gint64 v;

  fail_unless_equals_int (sqlite3_prepare_v2 (db, sql, -1, &st, NULL),
      SQLITE_OK);
  fail_unless_equals_int (sqlite3_step (st), SQLITE_ROW);
  v = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return v;
}

GST_START_TEST (test_db_roundtrip)
{
  gchar *path = tmp_path ("prof.db");
  GError *err = NULL;
  SpDb *db = sp_db_open (path, &err);
  GstStructure *s;
  sqlite3 *rd;
  sqlite3_stmt *st;

  fail_unless (db != NULL, "%s", err ? err->message : "");
  s = make_summary (1.0, FALSE, 1.0);
  sp_db_add_snapshot (db, s);
  gst_structure_free (s);       /* it was copied */
  s = make_summary (2.0, TRUE, 2.0);
  sp_db_add_snapshot (db, s);
  gst_structure_free (s);
  sp_db_close (db);

  rd = open_ro (path);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM runs"), 1);
  fail_unless_equals_int (query_int (rd, "SELECT pid FROM runs"), getpid ());
  fail_unless_equals_int (query_int (rd,
          "SELECT COUNT(*) FROM runs WHERE argv LIKE '%test_stageprof_writer%'"
          " AND started_at LIKE '____-__-__T__:__:__%Z'"), 1);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM snapshots"), 2);
  fail_unless_equals_int (query_int (rd,
          "SELECT COUNT(*) FROM snapshots WHERE final = 1 AND wall_s = 2.0"
          " AND verdict = 'decode-bound: avdec_h264 on \"dec\" thread'"), 1);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM elements"), 4);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM queues"), 2);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM threads"), 4);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM sinks"), 2);
  fail_unless_equals_int (query_int (rd, "PRAGMA user_version"),
      SP_DB_SCHEMA_VERSION);
  /* The shares beyond busy/wait and the sink's unit reach the db. */
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM threads"
          " WHERE name = 'queue0:src' AND blocked_pct = 1.0"
          " AND cpu_wait_pct = 2.0"), 2);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM sinks"
          " WHERE buffers = 132 AND unit = 'frames'"
          " AND media = 'video/x-raw'"), 2);

  /* Values, types and NULLs of the final snapshot. */
  fail_unless_equals_int (sqlite3_prepare_v2 (rd,
          "SELECT e.count, e.mean_ms, e.total_s, e.busy_pct, e.thread"
          " FROM elements e JOIN snapshots s USING (snapshot_id)"
          " WHERE s.final = 1 AND e.name = 'avdec_h264-0'", -1, &st, NULL),
      SQLITE_OK);
  fail_unless_equals_int (sqlite3_step (st), SQLITE_ROW);
  fail_unless_equals_int64 (sqlite3_column_int64 (st, 0), (gint64) 1 << 40);
  fail_unless_equals_float (sqlite3_column_double (st, 1), 25.0);
  fail_unless_equals_float (sqlite3_column_double (st, 2), 6.0);
  fail_unless_equals_float (sqlite3_column_double (st, 3), 90.0);
  fail_unless_equals_string ((const gchar *) sqlite3_column_text (st, 4),
      "queue0:src");
  sqlite3_finalize (st);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM elements"
          " WHERE name = 'sc\"ale \xc3\xa9' AND mean_ms IS NULL"
          " AND p99_ms IS NULL AND count = 100"), 2);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM queues"
          " WHERE max_bytes = 3000000 AND max_level = 5 AND items = 100"), 2);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM threads"
          " WHERE name = 'qtdemux0:sink' AND wait_output_pct = 90.0"), 2);
  fail_unless_equals_int (query_int (rd, "SELECT frames FROM sinks LIMIT 1"),
      132);

  /* The documented queries. */
  fail_unless_equals_int (sqlite3_prepare_v2 (rd, Q_TOP_ELEMENTS, -1, &st,
          NULL), SQLITE_OK);
  fail_unless_equals_int (sqlite3_step (st), SQLITE_ROW);
  fail_unless_equals_string ((const gchar *) sqlite3_column_text (st, 0),
      "avdec_h264-0");
  fail_unless_equals_float (sqlite3_column_double (st, 5), 6.0);
  fail_unless_equals_int (sqlite3_step (st), SQLITE_ROW);
  fail_unless_equals_int (sqlite3_step (st), SQLITE_DONE);
  sqlite3_finalize (st);

  fail_unless_equals_int (sqlite3_prepare_v2 (rd, Q_QUEUE_FULL, -1, &st,
          NULL), SQLITE_OK);
  /* 20 % over the first second, then 40 % cumulative over two seconds:
   * 60 % in the second interval. */
  fail_unless_equals_int (sqlite3_step (st), SQLITE_ROW);
  fail_unless_equals_float (sqlite3_column_double (st, 3), 20.0);
  fail_unless_equals_int (sqlite3_step (st), SQLITE_ROW);
  fail_unless_equals_float (sqlite3_column_double (st, 2), 40.0);
  fail_unless (fabs (sqlite3_column_double (st, 3) - 60.0) < 1e-9);
  sqlite3_finalize (st);
  sqlite3_close (rd);

  /* Opening again appends a second run. */
  db = sp_db_open (path, &err);
  fail_unless (db != NULL);
  fail_unless_equals_int64 (sp_db_get_run_id (db), 2);
  sp_db_close (db);
  rd = open_ro (path);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM runs"), 2);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM snapshots"), 2);
  sqlite3_close (rd);
  rm_tmp (path);
}

GST_END_TEST;

typedef struct
{
  SpDb *db;
  guint n;
} DbWorker;

static gpointer
db_worker (gpointer data)
{
  DbWorker *w = data;
  guint i;

  for (i = 0; i < w->n; i++) {
    GstStructure *s = make_summary (i + 1.0, FALSE, 1.0);
    sp_db_add_snapshot (w->db, s);
    gst_structure_free (s);
  }
  return NULL;
}

/* Many snapshots from several threads; close drains every one. */
GST_START_TEST (test_db_drain)
{
  gchar *path = tmp_path ("drain.db");
  SpDb *db = sp_db_open (path, NULL);
  DbWorker w = { db, 100 };
  GThread *th[3];
  gint64 t0;
  sqlite3 *rd;
  guint i;

  fail_unless (db != NULL);
  t0 = g_get_monotonic_time ();
  for (i = 0; i < 3; i++)
    th[i] = g_thread_new ("snap", db_worker, &w);
  for (i = 0; i < 3; i++)
    g_thread_join (th[i]);
  /* Queuing is a copy and a push, never a wait on the disk. */
  GST_INFO ("queued 300 snapshots in %" G_GINT64_FORMAT " us",
      g_get_monotonic_time () - t0);
  sp_db_close (db);
  rd = open_ro (path);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM snapshots"),
      300);
  fail_unless_equals_int (query_int (rd, "SELECT COUNT(*) FROM elements"),
      600);
  sqlite3_close (rd);
  rm_tmp (path);
}

GST_END_TEST;

/* A database written by the first schema (no pipeline/run columns) is
 * upgraded in place, its rows kept; new snapshots carry pipeline and run,
 * from the rows or from the snapshot, and a queue's own span. */
GST_START_TEST (test_db_upgrade)
{
  gchar *path = tmp_path ("v1.db");
  sqlite3 *w;
  SpDb *db;
  GstStructure *s;
  GError *err = NULL;

  fail_unless_equals_int (sqlite3_open (path, &w), SQLITE_OK);
  fail_unless_equals_int (sqlite3_exec (w,
          "CREATE TABLE runs (run_id INTEGER PRIMARY KEY, started_at TEXT NOT"
          " NULL, pid INTEGER NOT NULL, argv TEXT);"
          "CREATE TABLE snapshots (snapshot_id INTEGER PRIMARY KEY, run_id"
          " INTEGER NOT NULL, taken_at TEXT NOT NULL, wall_s REAL, final"
          " INTEGER NOT NULL, verdict TEXT);"
          "CREATE TABLE elements (snapshot_id INTEGER NOT NULL, name TEXT,"
          " thread TEXT, count INTEGER, mean_ms REAL, std_ms REAL, min_ms REAL,"
          " max_ms REAL, median_ms REAL, p90_ms REAL, p99_ms REAL,"
          " total_s REAL, busy_pct REAL);"
          "CREATE TABLE queues (snapshot_id INTEGER NOT NULL, name TEXT, items"
          " INTEGER, qps REAL, mean_level REAL, max_level INTEGER, mean_bytes"
          " REAL, max_bytes INTEGER, empty_pct REAL, full_pct REAL,"
          " ave_put_ms REAL, ave_get_ms REAL);"
          "CREATE TABLE threads (snapshot_id INTEGER NOT NULL, name TEXT,"
          " busy_pct REAL, wait_input_pct REAL, wait_output_pct REAL);"
          "CREATE TABLE sinks (snapshot_id INTEGER NOT NULL, name TEXT, frames"
          " INTEGER, fps REAL);"
          "INSERT INTO runs VALUES (1, '2020-01-01T00:00:00Z', 1, 'old');"
          "INSERT INTO snapshots VALUES (1, 1, '2020-01-01T00:00:01Z', 1.0, 1,"
          " 'old');"
          "INSERT INTO elements (snapshot_id, name) VALUES (1, 'old0');"
          "PRAGMA user_version = 1;", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close (w);

  db = sp_db_open (path, &err);
  fail_unless (db != NULL, "%s", err ? err->message : "");
  s = make_summary (1.0, TRUE, 1.0);
  /* The snapshot's pipeline and run; rows have none of their own. */
  gst_structure_set (s, "pipeline", G_TYPE_STRING, "p0", "run", G_TYPE_UINT,
      2, NULL);
  sp_db_add_snapshot (db, s);
  gst_structure_free (s);
  sp_db_close (db);

  w = open_ro (path);
  fail_unless_equals_int (query_int (w, "PRAGMA user_version"),
      SP_DB_SCHEMA_VERSION);
  fail_unless_equals_int (query_int (w, "SELECT COUNT(*) FROM elements"
          " WHERE name = 'old0' AND pipeline IS NULL"), 1);
  fail_unless_equals_int (query_int (w, "SELECT COUNT(*) FROM snapshots"
          " WHERE pipeline = 'p0' AND run = 2"), 1);
  fail_unless_equals_int (query_int (w, "SELECT COUNT(*) FROM elements"
          " WHERE pipeline = 'p0' AND run = 2"), 2);
  fail_unless_equals_int (query_int (w, "SELECT COUNT(*) FROM threads"
          " WHERE pipeline = 'p0' AND run = 2"), 2);
  fail_unless_equals_int (query_int (w, "SELECT COUNT(*) FROM sinks"
          " WHERE pipeline = 'p0' AND run = 2"), 1);
  /* 100 items at 25/s: a span of 4 s. */
  fail_unless_equals_int (query_int (w, "SELECT COUNT(*) FROM queues"
          " WHERE pipeline = 'p0' AND ABS(span_s - 4.0) < 1e-9"), 1);
  sqlite3_close (w);
  rm_tmp (path);
}

GST_END_TEST;

GST_START_TEST (test_db_bad_path)
{
  GError *err = NULL;
  gchar *path = tmp_path ("not-a-db.db");
  SpDb *db = sp_db_open ("/nonexistent-dir/prof.db", &err);

  fail_unless (db == NULL);
  fail_unless (err != NULL);
  fail_unless (strstr (err->message, "/nonexistent-dir/prof.db") != NULL,
      "%s", err->message);
  g_clear_error (&err);

  /* A file that is not a database: refused, naming it, not overwritten. */
  fail_unless (g_file_set_contents (path, "hello, I am text\n", -1, NULL));
  db = sp_db_open (path, &err);
  fail_unless (db == NULL);
  fail_unless (err != NULL);
  fail_unless (strstr (err->message, path) != NULL, "%s", err->message);
  g_clear_error (&err);
  rm_tmp (path);
}

GST_END_TEST;
#endif /* HAVE_SPDB */

/* ---- stagenull -------------------------------------------------------- */

/* main() sets GST_TRACERS=stagenull before init: the benchmark floor must
 * load, hook in, and leave a pipeline working. */
GST_START_TEST (test_null_tracer)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  GstElement *pipe;
  gboolean found = FALSE;

  for (l = tracers; l; l = l->next)
    found |= g_str_equal (G_OBJECT_TYPE_NAME (l->data), "GstStageNullTracer");
  g_list_free_full (tracers, gst_object_unref);
  fail_unless (found, "stagenull is not among the active tracers");

  pipe = gst_parse_launch ("fakesrc num-buffers=1000 ! identity ! queue ! "
      "fakesink", NULL);
  fail_unless (pipe != NULL);
  stage_test_play_to_eos (pipe, 10 * GST_SECOND, NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
stageprof_writer_suite (void)
{
  Suite *s = suite_create ("stageprof_writer");
  TCase *tc = tcase_create ("trace");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_trace_format);
  tcase_add_test (tc, test_trace_escaping);
  tcase_add_test (tc, test_escape_function);
  tcase_add_test (tc, test_trace_threads);
  tcase_add_test (tc, test_trace_order_across_drains);
  tcase_add_test (tc, test_trace_two_traces);
  tcase_add_test (tc, test_trace_periodic_flush);
  tcase_add_test (tc, test_trace_write_copy);
  tcase_add_test (tc, test_trace_unwritable);
  tcase_add_test (tc, test_trace_kill9);
  tcase_add_test (tc, test_trace_bounded);
  tcase_add_test (tc, test_trace_disk_full);
  tc = tcase_create ("null");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_null_tracer);
#ifdef HAVE_SPDB
  tc = tcase_create ("db");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_db_roundtrip);
  tcase_add_test (tc, test_db_drain);
  tcase_add_test (tc, test_db_bad_path);
  tcase_add_test (tc, test_db_upgrade);
#endif
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;
  int ret;

  /* Tracers are chosen at init. */
  g_setenv ("GST_TRACERS", "stagenull", TRUE);
  gst_check_init (&argc, &argv);
  suite_tmp = g_dir_make_tmp ("stageprof_writer-XXXXXX", NULL);
  g_assert (suite_tmp != NULL);
  s = stageprof_writer_suite ();
  ret = gst_check_run_suite (s, "stageprof_writer", __FILE__);
  rm_rf (suite_tmp);
  g_free (suite_tmp);
  return ret;
}
