/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof under fault: outputs replaced while pipelines play, output
 * paths that are links or exist already, thousands of state cycles and
 * pipelines, kill -9, SIGINT and a full filesystem, and the live status
 * line: the tracer's outputs under faults (replaced, linked, unwritable or
 * full files, kill -9, the live status line).
 *
 * Runs without fork: the tracer's threads live in this process, and the
 * thread and descriptor counts are the process's own.
 */
#define _GNU_SOURCE             /* posix_openpt, ptsname */
#ifdef HAVE_CONFIG_H
#include "tmpdir.h"
#include "config.h"
#endif

#include <malloc.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <json-glib/json-glib.h>
#ifdef HAVE_SPDB
#include <sqlite3.h>
#endif

#include "stageprof-check.h"
#include "lib/stagetest.h"

static gchar *tmpdir;
/* On a tmpfs where there is one: closing a database syncs it, which on a
 * disk would make thousands of open/close cycles take minutes. */
static gchar *fastdir;

static gchar *
tmp_file (const gchar * name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static guint
count_dir (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  guint n = 0;

  fail_unless (d != NULL);
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}

#define n_threads() count_dir ("/proc/self/task")

/* Threads of the tracer's own (writer threads, the ticker). */
static guint
n_own_threads (void)
{
  GDir *d = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *n;
  guint k = 0;

  while (d && (n = g_dir_read_name (d))) {
    gchar *f = g_strdup_printf ("/proc/self/task/%s/comm", n), *c = NULL;
    if (g_file_get_contents (f, &c, NULL, NULL)
        && (g_str_has_prefix (c, "sptrace-") || g_str_has_prefix (c, "spdb-")
            || g_str_has_prefix (c, "stageprof-")))
      k++;
    g_free (c);
    g_free (f);
  }
  if (d)
    g_dir_close (d);
  return k;
}

/* A new thread names itself once it runs: give it a moment. */
static guint
own_threads_settled (guint want)
{
  guint i, n = n_own_threads ();

  for (i = 0; i < 200 && n != want; i++) {
    g_usleep (10000);
    n = n_own_threads ();
  }
  return n;
}

/* "name name ..." of this process's threads, for messages. */
static gchar *
thread_names (void)
{
  GDir *d = g_dir_open ("/proc/self/task", 0, NULL);
  GString *s = g_string_new (NULL);
  const gchar *n;

  while (d && (n = g_dir_read_name (d))) {
    gchar *f = g_strdup_printf ("/proc/self/task/%s/comm", n), *c = NULL;
    if (g_file_get_contents (f, &c, NULL, NULL))
      g_string_append_printf (s, "%s ", g_strstrip (c));
    g_free (c);
    g_free (f);
  }
  if (d)
    g_dir_close (d);
  return g_string_free (s, FALSE);
}
#define n_fds() count_dir ("/proc/self/fd")

/* Bytes of heap in use (not RSS: freed memory stays in the
 * process; under ASan, which replaces malloc, this reads 0). */
static gsize
heap_in_use (void)
{
  struct mallinfo2 mi = mallinfo2 ();

  return mi.uordblks + mi.hblkhd;
}

/* Strict JSON array of events; with `close`, a missing "]" is added (a
 * trace cut by kill -9 or a full disk). Fails on NUL bytes. */
static JsonArray *
load_trace (const gchar * path, gboolean close, JsonParser ** pp)
{
  gchar *text = NULL;
  gsize len = 0;
  GError *err = NULL;
  JsonParser *p = json_parser_new ();
  GString *s;

  fail_unless (g_file_get_contents (path, &text, &len, &err), "%s",
      err ? err->message : "");
  fail_unless (memchr (text, '\0', len) == NULL, "%s has NUL bytes", path);
  s = g_string_new_len (text, len);
  g_free (text);
  if (close) {
    g_strchomp (s->str);
    g_string_set_size (s, strlen (s->str));
    if (s->len == 0 || s->str[s->len - 1] != ']')
      g_string_append (s, "\n]");
  }
  fail_unless (json_parser_load_from_data (p, s->str, -1, &err),
      "%s is not valid JSON: %s", path, err ? err->message : "");
  g_string_free (s, TRUE);
  *pp = p;
  fail_unless (JSON_NODE_HOLDS_ARRAY (json_parser_get_root (p)));
  return json_node_get_array (json_parser_get_root (p));
}

/* A pipeline that runs until stopped, at a bounded rate. */
static GstElement *
start_live (const gchar * name)
{
  GstElement *p = gst_parse_launch ("videotestsrc is-live=true ! "
      "video/x-raw,width=64,height=48,framerate=500/1 ! identity ! queue ! "
      "fakesink sync=false", NULL);

  fail_unless (p != NULL);
  gst_object_set_name (GST_OBJECT (p), name);
  fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  return p;
}

static void
stop (GstElement * p)
{
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

#ifdef HAVE_SPDB
static sqlite3 *
open_db (const gchar * path)
{
  sqlite3 *db = NULL;

  fail_unless_equals_int (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READWRITE,
          NULL), SQLITE_OK);
  return db;
}

static gint64
q_int (sqlite3 * db, const gchar * sql)
{
  sqlite3_stmt *st = NULL;
  gint64 v;

  fail_unless (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK,
      "%s: %s", sql, sqlite3_errmsg (db));
  fail_unless_equals_int (sqlite3_step (st), SQLITE_ROW);
  v = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return v;
}

static void
assert_db_consistent (const gchar * path)
{
  sqlite3 *db = open_db (path);
  sqlite3_stmt *st = NULL;

  fail_unless_equals_int (sqlite3_prepare_v2 (db, "PRAGMA integrity_check",
          -1, &st, NULL), SQLITE_OK);
  fail_unless_equals_int (sqlite3_step (st), SQLITE_ROW);
  fail_unless_equals_string ((const gchar *) sqlite3_column_text (st, 0),
      "ok");
  sqlite3_finalize (st);
  /* Whole snapshots only: none without its rows. */
  fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM snapshots s"
          " WHERE NOT EXISTS (SELECT 1 FROM elements e"
          " WHERE e.snapshot_id = s.snapshot_id)"), 0);
  sqlite3_close (db);
}
#endif

/* ---- db replaced while interval snapshots run --------------- */

/* The ticker used to read the db pointer unlocked while the setter closed
 * and freed it (a use-after-free ASan saw 3 runs of 3). */
GST_START_TEST (test_db_toggle_under_interval)
{
#ifdef HAVE_SPDB
  GstTracer *t = find_prof ();
  gchar *path = g_build_filename (fastdir, "toggle.db", NULL);
  GstElement *p;
  sqlite3 *db;
  guint i, n = 3000;

  g_object_set (t, "interval", 0.001, NULL);
  p = start_live ("toggle");
  for (i = 0; i < n; i++) {
    g_object_set (t, "db", path, NULL);
    g_usleep (i % 50 == 0 ? 2000 : 0);
    g_object_set (t, "db", NULL, NULL);
  }
  stop (p);
  g_object_set (t, "interval", 0.0, NULL);
  gst_object_unref (t);

  db = open_db (path);
  fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM runs"), n);
  fail_unless (q_int (db, "SELECT COUNT(*) FROM snapshots") > 0);
  sqlite3_close (db);
  assert_db_consistent (path);
  g_free (path);
#endif
}

GST_END_TEST;

/* ---- trace replaced at runtime ------------------------------ */

GST_START_TEST (test_trace_replaced)
{
  GstTracer *t = find_prof ();
  gchar *a = tmp_file ("a.json"), *b = tmp_file ("b.json");
  guint threads0, fds0, i;
  gsize heap0;
  GstElement *p = start_live ("replaced");
  JsonParser *jp;
  JsonArray *arr;

  /* Warm up: the first traces create the pools every later one reuses. */
  for (i = 0; i < 20; i++)
    g_object_set (t, "trace", i % 2 ? a : b, NULL);
  threads0 = n_threads ();
  fds0 = n_fds ();
  heap0 = heap_in_use ();
  for (i = 0; i < 300; i++) {
    /* a, b, a, ...: never two writers on one file. */
    g_object_set (t, "trace", i % 2 ? b : a, NULL);
    if (i % 30 == 0)
      g_usleep (20000);         /* let slices land in the current one */
  }
  GST_INFO ("after 300 replacements: threads %u -> %u, fds %u -> %u, "
      "heap %" G_GSIZE_FORMAT " -> %" G_GSIZE_FORMAT " kB", threads0,
      n_threads (), fds0, n_fds (), heap0 / 1024, heap_in_use () / 1024);
  /* One writer thread and one descriptor at a time (the pipeline's own
   * threads may come and go by one or two). */
  fail_unless (n_threads () <= threads0 + 2, "threads %u -> %u", threads0,
      n_threads ());
  fail_unless (n_fds () <= fds0 + 1, "fds %u -> %u", fds0, n_fds ());
  fail_unless (heap_in_use () < heap0 + 2 * 1024 * 1024, "heap %"
      G_GSIZE_FORMAT " -> %" G_GSIZE_FORMAT " kB", heap0 / 1024,
      heap_in_use () / 1024);
  g_usleep (50000);
  g_object_set (t, "trace", NULL, NULL);
  stop (p);

  /* b.json was closed (strict JSON), a.json too, each by its one writer. */
  arr = load_trace (a, FALSE, &jp);
  g_object_unref (jp);
  arr = load_trace (b, FALSE, &jp);
  fail_unless (json_array_get_length (arr) > 0);
  g_object_unref (jp);
  gst_object_unref (t);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* ---- write-trace onto the live trace ------------------------ */

static void
make_link (const gchar * target, const gchar * link)
{
  fail_unless (g_file_set_contents (target, "precious\n", -1, NULL));
  fail_unless (symlink (target, link) == 0);
}

static void
assert_untouched (const gchar * target, const gchar * link)
{
  gchar *text = NULL;
  GStatBuf st;

  fail_unless (g_file_get_contents (target, &text, NULL, NULL));
  fail_unless_equals_string (text, "precious\n");
  g_free (text);
  fail_unless (g_lstat (link, &st) == 0 && S_ISLNK (st.st_mode));
}


GST_START_TEST (test_write_trace_own_path)
{
  GstTracer *t = find_prof ();
  gchar *live = tmp_file ("live.json");
  gchar *alias = g_strdup_printf ("%s/./live.json", tmpdir);
  gchar *copy = tmp_file ("copy.json");
  gchar *target = tmp_file ("wt-target.txt"), *link = tmp_file ("wt-link");
  GstElement *p;
  gboolean ok = TRUE;
  JsonParser *jp;
  JsonArray *arr;
  guint n_copy;

  g_object_set (t, "trace", live, NULL);
  p = start_live ("ownpath");
  g_usleep (100000);
  ASSERT_WARNING (g_signal_emit_by_name (t, "write-trace", live, &ok));
  fail_if (ok, "write-trace onto the live trace was accepted");
  ok = TRUE;
  ASSERT_WARNING (g_signal_emit_by_name (t, "write-trace", alias, &ok));
  fail_if (ok);
  /* Nor through a symbolic link. */
  make_link (target, link);
  ok = TRUE;
  ASSERT_WARNING (g_signal_emit_by_name (t, "write-trace", link, &ok));
  fail_if (ok);
  assert_untouched (target, link);
  /* The live trace is intact and goes on. */
  g_signal_emit_by_name (t, "write-trace", copy, &ok);
  fail_unless (ok);
  arr = load_trace (copy, FALSE, &jp);
  n_copy = json_array_get_length (arr);
  fail_unless (n_copy > 10);
  g_object_unref (jp);
  g_usleep (50000);
  stop (p);
  g_object_set (t, "trace", NULL, NULL);
  arr = load_trace (live, FALSE, &jp);
  fail_unless (json_array_get_length (arr) >= n_copy);
  g_object_unref (jp);
  gst_object_unref (t);
  g_free (live);
  g_free (alias);
  g_free (copy);
  g_free (target);
  g_free (link);
}

GST_END_TEST;

/* ---- output paths: links and existing files ----------------- */

GST_START_TEST (test_output_symlinks)
{
  GstTracer *t = find_prof ();
  gchar *target = tmp_file ("target.txt"), *link = tmp_file ("link.json");
  gchar *slink = tmp_file ("slink.json"), *dlink = tmp_file ("dlink.db");
  gchar *v = NULL;

  make_link (target, link);
  ASSERT_WARNING (g_object_set (t, "trace", link, NULL));
  g_object_get (t, "trace", &v, NULL);
  fail_unless (v == NULL, "trace=%s", v);
  assert_untouched (target, link);

  /* summary= is written at the stop: refused then, the link stays. */
  fail_unless (symlink (target, slink) == 0);
  g_object_set (t, "summary", slink, NULL);
  ASSERT_WARNING (run_pipeline ("links", "videotestsrc num-buffers=3 ! "
          "fakesink"));
  assert_untouched (target, slink);
  g_object_set (t, "summary", "none", NULL);

#ifdef HAVE_SPDB
  fail_unless (symlink (target, dlink) == 0);
  ASSERT_WARNING (g_object_set (t, "db", dlink, NULL));
  g_object_get (t, "db", &v, NULL);
  fail_unless (v == NULL, "db=%s", v);
  assert_untouched (target, dlink);
#endif
  gst_object_unref (t);
  g_free (target);
  g_free (link);
  g_free (slink);
  g_free (dlink);
}

GST_END_TEST;

GST_START_TEST (test_output_existing_files)
{
  GstTracer *t = find_prof ();
  gchar *dir = tmp_file ("existing");
  gchar *trace = g_build_filename (dir, "old.json", NULL);
  gchar *sum = g_build_filename (dir, "old-summary.json", NULL);
  gchar *junk = tmp_file ("junk.db"), *text = NULL, *v = NULL;
  GString *big = g_string_new (NULL);
  JsonParser *jp;
  guint i;

  fail_unless (g_mkdir (dir, 0700) == 0);
  /* Longer than what replaces them: no old tail may survive. */
  for (i = 0; i < 20000; i++)
    g_string_append (big, "old old old\n");
  fail_unless (g_file_set_contents (trace, big->str, big->len, NULL));
  fail_unless (g_file_set_contents (sum, big->str, big->len, NULL));
  g_object_set (t, "trace", trace, "summary", sum, NULL);
  run_pipeline ("existing", "videotestsrc num-buffers=3 ! fakesink");
  g_object_set (t, "trace", NULL, "summary", "none", NULL);
  load_trace (trace, FALSE, &jp);       /* truncated, then a whole trace */
  g_object_unref (jp);
  fail_unless (g_file_get_contents (sum, &text, NULL, NULL));
  fail_if (strstr (text, "old old"), "summary file kept old bytes");
  fail_unless (json_from_string (text, NULL) != NULL, "%s", text);
  g_free (text);
  /* The replacement left no temporary file behind. */
  fail_unless_equals_int (count_dir (dir), 2);

#ifdef HAVE_SPDB
  /* An existing file that is not a database is refused and kept. */
  fail_unless (g_file_set_contents (junk, "not a database\n", -1, NULL));
  ASSERT_WARNING (g_object_set (t, "db", junk, NULL));
  g_object_get (t, "db", &v, NULL);
  fail_unless (v == NULL);
  fail_unless (g_file_get_contents (junk, &text, NULL, NULL));
  fail_unless_equals_string (text, "not a database\n");
  g_free (text);
#endif
  g_string_free (big, TRUE);
  gst_object_unref (t);
  g_free (trace);
  g_free (sum);
  g_free (junk);
  g_free (dir);
}

GST_END_TEST;

/* ---- output paths: devices, FIFOs, sockets ------------------- */

static gboolean
is_char_device (const gchar * path)
{
  GStatBuf st;

  return g_lstat (path, &st) == 0 && S_ISCHR (st.st_mode);
}

static gpointer
read_fifo (gpointer path)
{
  gchar *text = NULL;

  g_file_get_contents (path, &text, NULL, NULL);
  return text;
}

/* Run as root, a summary renamed over /dev/null made it a regular file for
 * the whole machine. A device is written in place, a FIFO too while a
 * program reads it (with none, an error and no hang), a socket refused;
 * each stays what it was. The nodes are made here, never in /dev. */
GST_START_TEST (test_output_special_files)
{
  GstTracer *t = find_prof ();
  gchar *null = tmp_file ("null"), *fifo = tmp_file ("fifo");
  gchar *sock = tmp_file ("sock"), *csv = tmp_file ("table.csv");
  gchar *csv_threads = tmp_file ("table.threads.csv");
  gchar *null2 = tmp_file ("null2"), *trace = tmp_file ("special.json");
  gchar *text, *v = NULL;
  struct sockaddr_un sa = { AF_UNIX };
  gint sfd = socket (AF_UNIX, SOCK_STREAM, 0);
  gboolean ok = FALSE;
  GStatBuf st;
  GThread *reader;
  gint64 t0;

  fail_unless (mknod (null, S_IFCHR | 0666, makedev (1, 3)) == 0);
  fail_unless (mknod (null2, S_IFCHR | 0666, makedev (1, 3)) == 0);
  fail_unless (mknod (csv_threads, S_IFCHR | 0666, makedev (1, 3)) == 0);
  fail_unless (mkfifo (fifo, 0600) == 0);
  g_strlcpy (sa.sun_path, sock, sizeof (sa.sun_path));
  fail_unless (sfd >= 0 && bind (sfd, (struct sockaddr *) &sa,
          sizeof (sa)) == 0);

  /* A device: the summary, a CSV set with one table on a device, the
   * trace and a write-trace copy all go into it. */
  g_object_set (t, "summary", null, "trace", null, NULL);
  run_pipeline ("dev", "videotestsrc num-buffers=3 ! fakesink");
  g_object_set (t, "trace", trace, NULL);
  run_pipeline ("devcopy", "videotestsrc num-buffers=3 ! fakesink");
  g_signal_emit_by_name (t, "write-trace", null2, &ok);
  fail_unless (ok);
  g_object_set (t, "trace", NULL, "summary", csv, NULL);
  run_pipeline ("devcsv", "videotestsrc num-buffers=3 ! fakesink");
  fail_unless (is_char_device (null), "the device was replaced");
  fail_unless (is_char_device (null2), "the copy's device was replaced");
  fail_unless (is_char_device (csv_threads), "the CSV table's device was "
      "replaced");
  fail_unless (g_file_test (csv, G_FILE_TEST_IS_REGULAR));

  /* A FIFO with a reader gets the summary; the FIFO stays. */
  reader = g_thread_new ("fifo-reader", read_fifo, fifo);
  g_usleep (100000);
  g_object_set (t, "summary", fifo, NULL);
  run_pipeline ("fifo", "videotestsrc num-buffers=3 ! fakesink");
  g_object_set (t, "summary", "none", NULL);
  text = g_thread_join (reader);
  fail_unless (text && strstr (text, "videotestsrc0"), "%s", text);
  g_free (text);
  fail_unless (g_lstat (fifo, &st) == 0 && S_ISFIFO (st.st_mode));

  /* With no reader: a warning at once, not a hang. */
  t0 = g_get_monotonic_time ();
  g_object_set (t, "summary", fifo, NULL);
  ASSERT_WARNING (run_pipeline ("fifo0", "videotestsrc num-buffers=3 ! "
          "fakesink"));
  g_object_set (t, "summary", "none", NULL);
  ASSERT_WARNING (g_object_set (t, "trace", fifo, NULL));
  g_object_get (t, "trace", &v, NULL);
  fail_unless (v == NULL, "trace=%s", v);
  fail_unless (g_get_monotonic_time () - t0 < 10 * G_TIME_SPAN_SECOND);
  fail_unless (g_lstat (fifo, &st) == 0 && S_ISFIFO (st.st_mode));

  /* A socket is refused and stays. */
  g_object_set (t, "summary", sock, NULL);
  ASSERT_WARNING (run_pipeline ("sock", "videotestsrc num-buffers=3 ! "
          "fakesink"));
  g_object_set (t, "summary", "none", NULL);
  fail_unless (g_lstat (sock, &st) == 0 && S_ISSOCK (st.st_mode));

  close (sfd);
  gst_object_unref (t);
  g_free (null);
  g_free (null2);
  g_free (trace);
  g_free (fifo);
  g_free (sock);
  g_free (csv);
  g_free (csv_threads);
}

GST_END_TEST;

#ifdef HAVE_SPDB
/* A database made by @sql at @path, given to db=: refused with a warning,
 * db= left unset. Returns it opened again, for the checks that nothing in
 * it changed. */
static sqlite3 *
db_refused (GstTracer * t, const gchar * path, const gchar * sql)
{
  sqlite3 *db = NULL;
  gchar *v = NULL;

  fail_unless (sqlite3_open (path, &db) == SQLITE_OK);
  fail_unless (sqlite3_exec (db, sql, NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close (db);
  ASSERT_WARNING (g_object_set (t, "db", path, NULL));
  g_object_get (t, "db", &v, NULL);
  fail_unless (v == NULL, "db=%s", v);
  return open_db (path);
}

/* db= naming an application's database: refused, nothing added to it. */
GST_START_TEST (test_db_foreign_tables)
{
  GstTracer *t = find_prof ();
  gchar *path = tmp_file ("app.db");
  sqlite3 *db = db_refused (t, path, "CREATE TABLE users (id INTEGER, name "
      "TEXT); INSERT INTO users VALUES (1, 'ann')");

  fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM sqlite_master"),
      1);
  fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM users"), 1);
  sqlite3_close (db);
  gst_object_unref (t);
  g_free (path);
}

GST_END_TEST;

/* Issue 37 #11: db= naming a database from a newer stageprof: refused,
 * its version and rows as they were (it was appended to and set back). */
GST_START_TEST (test_db_newer_version)
{
  GstTracer *t = find_prof ();
  gchar *path = tmp_file ("newer.db");
  sqlite3 *db = db_refused (t, path, "CREATE TABLE runs (id INTEGER PRIMARY "
      "KEY, started TEXT, pid INTEGER, command TEXT); "
      "PRAGMA user_version = 99");

  fail_unless_equals_int (q_int (db, "PRAGMA user_version"), 99);
  fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM runs"), 0);
  fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM sqlite_master"),
      1);
  sqlite3_close (db);
  gst_object_unref (t);
  g_free (path);
}

GST_END_TEST;
#endif

/* interval=1e-7 made a step that rounds to 0 µs: the ticker spun at 100 %
 * and the process never exited. Below 1 ms it is refused. */
GST_START_TEST (test_interval_minimum)
{
  GstTracer *t = find_prof ();
  gdouble v = -1;

  ASSERT_WARNING (g_object_set (t, "interval", 1e-7, NULL));
  g_object_get (t, "interval", &v, NULL);
  fail_unless (v == 0.0, "interval=%g", v);
  g_object_set (t, "interval", 0.001, NULL);
  g_object_get (t, "interval", &v, NULL);
  fail_unless (v == 0.001, "interval=%g", v);
  run_pipeline ("interval", "videotestsrc num-buffers=3 ! fakesink");
  g_object_set (t, "interval", 0.0, NULL);
  gst_object_unref (t);
}

GST_END_TEST;

/* ---- summary=bogus ----------------------------------------- */

GST_START_TEST (test_summary_mistyped)
{
  GstTracer *t = find_prof ();
  gchar *v = NULL;

  g_object_set (t, "summary", "none", NULL);
  ASSERT_WARNING (g_object_set (t, "summary", "bogus", NULL));
  g_object_get (t, "summary", &v, NULL);
  fail_unless_equals_string (v, "none");
  g_free (v);
  ASSERT_WARNING (g_object_set (t, "summary", "stdot", NULL));
  /* What names a file is taken. */
  g_object_set (t, "summary", "out.json", NULL);
  g_object_get (t, "summary", &v, NULL);
  fail_unless_equals_string (v, "out.json");
  g_free (v);
  g_object_set (t, "summary", "./bogus", NULL);
  g_object_set (t, "summary", "none", NULL);
  fail_if (g_file_test ("bogus", G_FILE_TEST_EXISTS));
  gst_object_unref (t);
}

GST_END_TEST;

/* ---- lifecycle --------------------------------------------- */

static void
cycle (GstElement * p)
{
  stage_test_play_to_eos (p, 20 * GST_SECOND, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
}

#define CYCLE_DESC "fakesrc num-buffers=2 sizetype=empty ! queue ! fakesink"

static void
set_db (GstTracer * t, const gchar * path)
{
#ifdef HAVE_SPDB
  g_object_set (t, "db", path, NULL);
#endif
}

/* Ours exactly as before; GStreamer's task pool keeps idle threads for a
 * while, a few more after a burst: bounded, not one per cycle. */
static void
check_threads (guint th0, guint own0)
{
  fail_unless_equals_int (own_threads_settled (own0), own0);
  fail_unless (n_threads () <= th0 + 10, "threads %u -> %u (%s)", th0,
      n_threads (), thread_names ());
}

static void
outputs_on (GstTracer * t, const gchar * trace, const gchar * db)
{
  g_object_set (t, "trace", trace, "interval", 0.005, NULL);
  set_db (t, db);
}

static void
outputs_off (GstTracer * t)
{
  g_object_set (t, "trace", NULL, "interval", 0.0, NULL);
  set_db (t, NULL);
}

/* 1,000 PLAYING->NULL cycles and 1,000 pipelines made and destroyed with
 * trace, db and interval on: threads and descriptors stay flat, and the
 * outputs add nothing that grows with restarts. */
GST_START_TEST (test_lifecycle)
{
  GstTracer *t = find_prof ();
  gchar *trace = tmp_file ("life.json"), *dbp = tmp_file ("life.db");
  GstElement *p;
  guint i, th0, fd0, own0;
  gsize a0, a1, b0, b1, c1;
  gint64 t0 = g_get_monotonic_time ();

  outputs_on (t, trace, dbp);
  /* Warm up both ways: GStreamer's task pool keeps a few idle threads. */
  for (i = 0; i < 50; i++) {
    p = gst_parse_launch (CYCLE_DESC, NULL);
    cycle (p);
    gst_object_unref (p);
  }
  p = gst_parse_launch (CYCLE_DESC, NULL);
  for (i = 0; i < 50; i++)
    cycle (p);
  th0 = n_threads ();
  own0 = own_threads_settled (3);
  fail_unless_equals_int (own0, 3);     /* trace, db, ticker */
  fd0 = n_fds ();

  /* What 500 restarts cost without outputs (the recorder's own records
   * of each run), then with them: the difference is the outputs'. */
  outputs_off (t);
  a0 = heap_in_use ();
  for (i = 0; i < 500; i++)
    cycle (p);
  a1 = heap_in_use ();
  /* Outputs closed for each reading: the db queue drained, the trace's
   * chunk pool (which keeps its high-water mark while open) freed. */
  outputs_on (t, trace, dbp);
  for (i = 0; i < 10; i++)
    cycle (p);
  outputs_off (t);
  b0 = heap_in_use ();
  outputs_on (t, trace, dbp);
  for (i = 0; i < 490; i++)
    cycle (p);
  check_threads (th0, own0);
  fail_unless (n_fds () <= fd0, "fds %u -> %u", fd0, n_fds ());
  outputs_off (t);
  b1 = heap_in_use ();
  outputs_on (t, trace, dbp);
  gst_object_unref (p);

  for (i = 0; i < 1000; i++) {
    p = gst_parse_launch (CYCLE_DESC, NULL);
    cycle (p);
    gst_object_unref (p);
  }
  check_threads (th0, own0);
  fail_unless (n_fds () <= fd0, "fds %u -> %u", fd0, n_fds ());
  set_db (t, NULL);
  c1 = heap_in_use ();
  GST_INFO ("2100 cycles in %.1f s; threads %u -> %u, fds %u -> %u; heap "
      "over 500 restarts: %+" G_GSSIZE_FORMAT " kB without outputs, %+"
      G_GSSIZE_FORMAT " kB with; over 1000 pipelines %+" G_GSSIZE_FORMAT
      " kB", (g_get_monotonic_time () - t0) / 1e6, th0, n_threads (), fd0,
      n_fds (), ((gssize) a1 - (gssize) a0) / 1024,
      ((gssize) b1 - (gssize) b0) / 1024, ((gssize) c1 - (gssize) b1) / 1024);
  fail_unless ((gssize) (b1 - b0) - (gssize) (a1 - a0) < 256 * 1024,
      "heap over 500 restarts: %+" G_GSSIZE_FORMAT " kB without outputs, %+"
      G_GSSIZE_FORMAT " kB with", ((gssize) a1 - (gssize) a0) / 1024,
      ((gssize) b1 - (gssize) b0) / 1024);
  outputs_off (t);
#ifdef HAVE_SPDB
  {
    sqlite3 *db = open_db (dbp);
    /* One final snapshot per pipeline stop, never a duplicate at exit. */
    fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM snapshots"
            " WHERE final = 1"), 50 + 50 + 10 + 490 + 1000);
    fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM snapshots"
            " WHERE pipeline IS NULL"), 0);
    sqlite3_close (db);
    assert_db_consistent (dbp);
  }
#endif
  gst_object_unref (t);
  g_free (trace);
  g_free (dbp);
}

GST_END_TEST;

/* ---- gst-launch-1.0 killed, interrupted, out of disk -------- */

typedef struct
{
  rlim_t fsize;
} ChildSetup;

static void
child_setup (gpointer data)
{
  ChildSetup *cs = data;

  if (cs && cs->fsize) {
    struct rlimit rl = { cs->fsize, cs->fsize };
    /* EFBIG from write(2) instead of a SIGXFSZ death: a full disk. */
    signal (SIGXFSZ, SIG_IGN);
    setrlimit (RLIMIT_FSIZE, &rl);
  }
}

static GPid
spawn_launch (const gchar * tracers, const gchar * desc, rlim_t fsize,
    gint * err_fd)
{
  gchar *cmd = g_strdup_printf ("gst-launch-1.0 -q %s", desc);
  gchar **argv = NULL;
  gchar **envp = g_environ_setenv (g_get_environ (), "GST_TRACERS", tracers,
      TRUE);
  static ChildSetup cs;
  GError *e = NULL;
  GPid pid;

  cs.fsize = fsize;
  envp = g_environ_unsetenv (envp, "GST_DEBUG");
  fail_unless (g_shell_parse_argv (cmd, NULL, &argv, NULL));
  fail_unless (g_spawn_async_with_pipes (NULL, argv, envp,
          G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
          G_SPAWN_STDOUT_TO_DEV_NULL, child_setup, &cs, &pid, NULL, NULL,
          err_fd, &e), "%s", e ? e->message : "");
  g_strfreev (argv);
  g_strfreev (envp);
  g_free (cmd);
  return pid;
}

static gchar *
read_all (gint fd)
{
  GString *s = g_string_new (NULL);
  gchar buf[4096];
  gssize n;

  while ((n = read (fd, buf, sizeof (buf))) > 0)
    g_string_append_len (s, buf, n);
  close (fd);
  return g_string_free (s, FALSE);
}

static gint
wait_child (GPid pid)
{
  gint status = 0;

  fail_unless (waitpid (pid, &status, 0) == pid);
  g_spawn_close_pid (pid);
  return status;
}

#define LIVE_DESC "videotestsrc is-live=true ! " \
  "video/x-raw,width=64,height=48,framerate=200/1 ! identity name=f_id ! " \
  "queue ! fakesink sync=false"

static guint
count_named (JsonArray * a, const gchar * name)
{
  guint i, n = 0;

  for (i = 0; i < json_array_get_length (a); i++)
    if (g_strcmp0 (json_object_get_string_member
            (json_array_get_object_element (a, i), "name"), name) == 0)
      n++;
  return n;
}

static void
launch_and_signal (gint sig)
{
  gchar *trace = tmp_file ("sig.json"), *dbp = tmp_file ("sig.db");
  gchar *tracers = g_strdup_printf ("stageprof(trace=\"%s\",db=\"%s\","
      "interval=0.1,summary=none)", trace, dbp);
  gint err_fd, status;
  GPid pid = spawn_launch (tracers, LIVE_DESC, 0, &err_fd);
  gchar *err;
  JsonParser *jp;
  JsonArray *a;

  g_usleep (2 * G_USEC_PER_SEC);
  kill (pid, sig);
  err = read_all (err_fd);
  status = wait_child (pid);
  if (sig == SIGKILL) {
    fail_unless (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
  } else {
    /* gst-launch stops the pipeline and exits: everything is closed. */
    fail_unless (WIFEXITED (status), "status %d: %s", status, err);
  }
  fail_if (strstr (err, "CRITICAL"), "%s", err);
  /* Readable up to the last flush; after SIGINT, whole. */
  a = load_trace (trace, sig == SIGKILL, &jp);
  fail_unless (count_named (a, "f_id") >= 20, "%u slices",
      count_named (a, "f_id"));
  g_object_unref (jp);
#ifdef HAVE_SPDB
  {
    sqlite3 *db;
    assert_db_consistent (dbp);
    db = open_db (dbp);
    fail_unless (q_int (db, "SELECT COUNT(*) FROM snapshots") >= 3);
    fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM snapshots"
            " WHERE final = 1"), sig == SIGKILL ? 0 : 1);
    sqlite3_close (db);
  }
#endif
  g_free (err);
  g_free (trace);
  g_free (dbp);
  g_free (tracers);
}

GST_START_TEST (test_launch_kill9)
{
  launch_and_signal (SIGKILL);
}

GST_END_TEST;

GST_START_TEST (test_launch_sigint)
{
  launch_and_signal (SIGINT);
}

GST_END_TEST;

/* A file-size limit (EFBIG, as a full disk gives ENOSPC): the trace holds
 * whole events only, the warning counts the lost ones. */
GST_START_TEST (test_launch_trace_disk_full)
{
  gchar *trace = tmp_file ("full.json");
  gchar *tracers = g_strdup_printf ("stageprof(trace=\"%s\",summary=none)",
      trace);
  const rlim_t limit = 64 * 1024;
  gint err_fd, status;
  GPid pid = spawn_launch (tracers, "videotestsrc num-buffers=3000 ! "
      "video/x-raw,width=16,height=16 ! identity ! identity ! fakesink",
      limit, &err_fd);
  gchar *err = read_all (err_fd), *text = NULL, *lost;
  gsize len;
  JsonParser *jp;

  status = wait_child (pid);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0, "%s", err);
  fail_unless (g_file_get_contents (trace, &text, &len, NULL));
  fail_unless (len <= limit);
  fail_unless (len > 0 && text[len - 1] == '\n', "cut mid-line");
  g_free (text);
  load_trace (trace, TRUE, &jp);
  g_object_unref (jp);
  lost = strstr (err, "events were lost");
  fail_unless (lost != NULL, "%s", err);
  /* "...: N events were lost": a real count. */
  fail_unless (g_ascii_strtoull (g_strrstr_len (err, lost - err - 1, " ") + 1,
          NULL, 10) > 1000, "%s", err);
  g_free (err);
  g_free (trace);
  g_free (tracers);
}

GST_END_TEST;

/* Issue 37 #12: not one byte can be written (a disk with 0 bytes free,
 * here a file-size limit of 1 byte): no empty trace= or db= file is left
 * behind as if it were a profile. */
GST_START_TEST (test_launch_no_byte_written)
{
  gchar *trace = tmp_file ("none.json"), *dbp = tmp_file ("none.db");
  gchar *tracers = g_strdup_printf ("stageprof(trace=\"%s\",summary=none)",
      trace);
  gint err_fd, status;
  GPid pid = spawn_launch (tracers, "videotestsrc num-buffers=30 ! "
      "video/x-raw,width=16,height=16 ! identity ! fakesink", 1, &err_fd);
  gchar *err = read_all (err_fd);

  status = wait_child (pid);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0, "%s", err);
  fail_if (g_file_test (trace, G_FILE_TEST_EXISTS), "%s", err);
  fail_unless (strstr (err, "the empty file was removed") != NULL, "%s", err);
  g_free (err);
  g_free (tracers);
#ifdef HAVE_SPDB
  tracers = g_strdup_printf ("stageprof(db=\"%s\",summary=none)", dbp);
  pid = spawn_launch (tracers, "videotestsrc num-buffers=30 ! "
      "video/x-raw,width=16,height=16 ! identity ! fakesink", 1, &err_fd);
  err = read_all (err_fd);
  status = wait_child (pid);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0, "%s", err);
  fail_if (g_file_test (dbp, G_FILE_TEST_EXISTS), "%s", err);
  g_free (err);
  g_free (tracers);
#endif
  g_free (trace);
  g_free (dbp);
}

GST_END_TEST;

GST_START_TEST (test_launch_db_disk_full)
{
#ifdef HAVE_SPDB
  gchar *dbp = tmp_file ("full.db");
  gchar *tracers = g_strdup_printf ("stageprof(db=\"%s\",interval=0.002,"
      "summary=none)", dbp);
  gint err_fd, status;
  GPid pid = spawn_launch (tracers, "videotestsrc is-live=true "
      "num-buffers=300 ! video/x-raw,width=16,height=16,framerate=300/1 ! "
      "identity ! identity ! identity ! queue ! fakesink", 96 * 1024, &err_fd);
  gchar *err = read_all (err_fd);

  status = wait_child (pid);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0, "%s", err);
  fail_unless (strstr (err, "rolled back") != NULL, "%s", err);
  assert_db_consistent (dbp);
  g_free (err);
  g_free (dbp);
  g_free (tracers);
#endif
}

GST_END_TEST;

/* ---- the documented queries, on a real run ------------------ */

#ifdef HAVE_SPDB
/* The ```sql blocks of docs/tracer-db.md after "## Example queries". */
static GPtrArray *
doc_queries (void)
{
  gchar *text = NULL, *p;
  GPtrArray *q = g_ptr_array_new_with_free_func (g_free);

  fail_unless (g_file_get_contents (TESTS_SOURCE_DIR "/../docs/tracer-db.md",
          &text, NULL, NULL));
  p = strstr (text, "## Example queries");
  fail_unless (p != NULL);
  while ((p = strstr (p, "```sql\n"))) {
    gchar *end = strstr (p + 7, "```");
    fail_unless (end != NULL);
    g_ptr_array_add (q, g_strndup (p + 7, end - p - 7));
    p = end + 3;
  }
  g_free (text);
  return q;
}
#endif

GST_START_TEST (test_db_documented_queries)
{
#ifdef HAVE_SPDB
  GstTracer *t = find_prof ();
  gchar *dbp = tmp_file ("docs.db");
  GPtrArray *q = doc_queries ();
  sqlite3 *db;
  sqlite3_stmt *st;
  guint rows;

  g_object_set (t, "db", dbp, "interval", 0.05, NULL);
  /* A queue that is full part of the time; three pipelines. */
  run_pipeline ("docs_a", "videotestsrc num-buffers=60 ! "
      "video/x-raw,width=64,height=48 ! queue name=dq max-size-buffers=3 ! "
      "identity sleep-time=5000 ! fakesink name=dsink sync=false");
  run_pipeline ("docs_b", "videotestsrc num-buffers=20 ! fakesink");
  run_pipeline ("docs_c", "videotestsrc num-buffers=20 ! fakesink");
  g_object_set (t, "db", NULL, "interval", 0.0, NULL);
  gst_object_unref (t);

  db = open_db (dbp);
  fail_unless_equals_int (q->len, 4);
  /* One final snapshot per pipeline run; every row knows its pipeline. */
  fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM snapshots"
          " WHERE final = 1"), 3);
  fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM snapshots"
          " WHERE final = 1 AND pipeline = 'docs_a'"), 1);
  fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM elements"
          " WHERE pipeline IS NULL"), 0);
  fail_unless_equals_int (q_int (db, "SELECT COUNT(*) FROM queues"
          " WHERE pipeline IS NULL"), 0);
  fail_unless (q_int (db, "SELECT COUNT(*) FROM snapshots WHERE final = 0"
          " AND pipeline = 'docs_a'") >= 3);

  /* Top elements: no element twice (one final snapshot per run). */
  fail_unless (sqlite3_prepare_v2 (db, q->pdata[0], -1, &st, NULL) ==
      SQLITE_OK, "%s", sqlite3_errmsg (db));
  {
    GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal,
        g_free, NULL);
    rows = 0;
    while (sqlite3_step (st) == SQLITE_ROW) {
      gchar *k = g_strdup_printf ("%s/%s/%s/%s",
          sqlite3_column_text (st, 0), sqlite3_column_text (st, 1),
          sqlite3_column_text (st, 2), sqlite3_column_text (st, 3));
      fail_if (g_hash_table_contains (seen, k), "%s twice", k);
      g_hash_table_add (seen, k);
      rows++;
    }
    g_hash_table_destroy (seen);
    fail_unless (rows >= 3);
  }
  sqlite3_finalize (st);

  /* Full % within each interval: a share, in [0, 100]. */
  fail_unless (sqlite3_prepare_v2 (db, q->pdata[1], -1, &st, NULL) ==
      SQLITE_OK, "%s", sqlite3_errmsg (db));
  rows = 0;
  while (sqlite3_step (st) == SQLITE_ROW) {
    if (sqlite3_column_type (st, 4) == SQLITE_NULL)
      continue;                 /* an interval with no queue activity */
    fail_unless (sqlite3_column_double (st, 4) >= 0
        && sqlite3_column_double (st, 4) <= 100, "%s: %f",
        sqlite3_column_text (st, 1), sqlite3_column_double (st, 4));
    rows++;
  }
  fail_unless (rows >= 3, "%u rows", rows);
  sqlite3_finalize (st);

  /* Frames per run: one row per sink per pipeline run. */
  fail_unless (sqlite3_prepare_v2 (db, q->pdata[2], -1, &st, NULL) ==
      SQLITE_OK, "%s", sqlite3_errmsg (db));
  rows = 0;
  while (sqlite3_step (st) == SQLITE_ROW) {
    gint64 want = g_strcmp0 ((const gchar *) sqlite3_column_text (st, 2),
        "docs_a") == 0 ? 60 : 20;
    fail_unless_equals_int64 (sqlite3_column_int64 (st, 5), want);
    rows++;
  }
  fail_unless_equals_int (rows, 3);
  sqlite3_finalize (st);

  fail_unless (sqlite3_prepare_v2 (db, q->pdata[3], -1, &st, NULL) ==
      SQLITE_OK, "%s", sqlite3_errmsg (db));
  fail_unless_equals_int (sqlite3_step (st), SQLITE_ROW);
  sqlite3_finalize (st);
  sqlite3_close (db);
  g_ptr_array_free (q, TRUE);
  g_free (dbp);
#endif
}

GST_END_TEST;

/* ---- the live status line --------------------------------- */

static gchar *
launch_err (const gchar * tracers, const gchar * desc)
{
  gint err_fd;
  GPid pid = spawn_launch (tracers, desc, 0, &err_fd);
  gchar *err = read_all (err_fd);
  gint status = wait_child (pid);

  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0, "%s", err);
  return err;
}

#define PACED "videotestsrc num-buffers=75 ! " \
  "video/x-raw,width=320,height=240,framerate=50/1 ! queue name=pq ! " \
  "fakesink name=psink sync=true"

static guint
check_status_lines (const gchar * err)
{
  gchar **lines = g_strsplit (err, "\n", -1);
  guint i, n = 0, paced = 0;

  for (i = 0; lines[i]; i++) {
    gchar *fps;
    gdouble v;

    if (!g_str_has_prefix (lines[i], "stageprof "))
      continue;
    n++;
    /* "stageprof 0:01 | psink 50.0 fps | busiest ... | pq 1% of 200
     * buffers" */
    fail_unless (g_regex_match_simple ("^stageprof [0-9]+:[0-9]{2} \\| ",
            lines[i], 0, 0), "%s", lines[i]);
    fail_unless (strstr (lines[i], " | busiest ") != NULL, "%s", lines[i]);
    fps = strstr (lines[i], "psink ");
    if (!fps)
      continue;
    v = g_ascii_strtod (fps + 6, NULL);
    fail_unless (v >= 0 && v < 1000, "%s", lines[i]);
    /* Paced by the clock at 50/s: the rate over an interval, not a
     * cumulative one, is near 50 once running. */
    if (n > 1 && v > 25 && v < 75)
      paced++;
    fail_unless (strstr (lines[i], "pq ") != NULL, "%s", lines[i]);
  }
  g_strfreev (lines);
  fail_unless (paced >= 1, "no line with about 50 fps:\n%s", err);
  return n;
}

GST_START_TEST (test_progress_lines)
{
  gchar *err;

  /* stderr is a pipe here: one line per interval, no \r. */
  err = launch_err ("stageprof(progress=true,interval=0.3,summary=none)",
      PACED);
  fail_if (strchr (err, '\r'), "%s", err);
  fail_unless (check_status_lines (err) >= 3, "%s", err);
  g_free (err);

  /* interval= with summary=stderr turns it on too. */
  err = launch_err ("stageprof(interval=0.3,summary=stderr)", PACED);
  fail_unless (check_status_lines (err) >= 3, "%s", err);
  fail_unless (strstr (err, "Verdict") || strstr (err, "verdict"), "%s", err);
  g_free (err);

  /* Off by default. */
  err = launch_err ("stageprof(summary=none)", PACED);
  fail_if (strstr (err, "stageprof "), "%s", err);
  g_free (err);
}

GST_END_TEST;

static guint
count_status_lines (const gchar * err)
{
  gchar **lines = g_strsplit (err, "\n", -1);
  guint i, n = 0;

  for (i = 0; lines[i]; i++)
    n += g_str_has_prefix (lines[i], "stageprof ");
  g_strfreev (lines);
  return n;
}

/* A live source of 2 s: 50 frames at 25/s. */
#define LIVE_2S "videotestsrc is-live=true num-buffers=50 ! " \
  "video/x-raw,width=160,height=120,framerate=25/1 ! queue name=pq ! " \
  "fakesink name=psink sync=true"

/* interval= alone shows the run as it goes: a status line an interval on
 * stderr (the tables still go to stdout); progress=false or summary=none
 * keep stderr quiet. */
GST_START_TEST (test_interval_alone_lines)
{
  gchar *err;
  guint n;

  err = launch_err ("stageprof(interval=0.5)", LIVE_2S);
  n = count_status_lines (err);
  /* About 4 (2 s / 0.5 s); start-up and a loaded machine move the ticks. */
  fail_unless (n >= 2 && n <= 6, "%u status lines:\n%s", n, err);
  fail_unless (strstr (err, "stageprof 0:0") != NULL, "%s", err);
  fail_unless (strstr (err, "pq ") != NULL, "%s", err);
  g_free (err);

  err = launch_err ("stageprof(interval=0.5,progress=false)", LIVE_2S);
  fail_unless_equals_int (count_status_lines (err), 0);
  g_free (err);

  err = launch_err ("stageprof(interval=0.5,summary=none)", LIVE_2S);
  fail_unless_equals_int (count_status_lines (err), 0);
  g_free (err);
}

GST_END_TEST;

/* Frames of 640x480 I420 (460,800 bytes) into a queue of 1 MiB ahead of a
 * slow element: two or three buffers fill it, 1 % of its 200 buffers and
 * a few % of its second. The line names the byte limit, which binds. */
GST_START_TEST (test_progress_binding_limit)
{
  gchar **lines, *err;
  guint i, n = 0;

  err = launch_err ("stageprof(progress=true,interval=0.3,summary=none)",
      "videotestsrc num-buffers=40 ! video/x-raw,format=I420,width=640,"
      "height=480,framerate=25/1 ! queue name=bq max-size-bytes=1048576 "
      "max-size-buffers=200 max-size-time=1000000000 ! identity "
      "sleep-time=40000 ! fakesink sync=false");
  lines = g_strsplit (err, "\n", -1);
  for (i = 0; lines[i]; i++) {
    const gchar *q = strstr (lines[i], "| bq ");
    gdouble pct;

    if (!g_str_has_prefix (lines[i], "stageprof ") || !q)
      continue;
    n++;
    /* "stageprof 0:01 | ... | bq 96% of 1.0 MiB" */
    fail_unless (g_str_has_suffix (lines[i], "% of 1.0 MiB"), "%s", lines[i]);
    pct = g_ascii_strtod (q + 5, NULL);
    if (n > 1)
      fail_unless (pct > 50 && pct < 200, "%s", lines[i]);
  }
  g_strfreev (lines);
  fail_unless (n >= 2, "%s", err);
  g_free (err);
}

GST_END_TEST;

/* Off (the default), the status line costs no thread; on, one ticker. */
GST_START_TEST (test_progress_thread)
{
  GstTracer *t = find_prof ();
  gboolean on = TRUE;

  g_object_get (t, "progress", &on, NULL);
  fail_if (on, "progress is on by default");
  fail_unless_equals_int (own_threads_settled (0), 0);
  g_object_set (t, "progress", TRUE, NULL);
  fail_unless_equals_int (own_threads_settled (1), 1);
  g_object_set (t, "progress", FALSE, NULL);
  fail_unless_equals_int (own_threads_settled (0), 0);
  /* interval= with summary=stderr: snapshots and the line, one thread. */
  g_object_set (t, "summary", "stderr", "interval", 100.0, NULL);
  fail_unless_equals_int (own_threads_settled (1), 1);
  g_object_set (t, "summary", "none", "interval", 0.0, NULL);
  fail_unless_equals_int (own_threads_settled (0), 0);
  gst_object_unref (t);
}

GST_END_TEST;

/* On a terminal: one line redrawn in place ("\r...\033[K") every second,
 * and the tables start on a line of their own. */
GST_START_TEST (test_progress_tty)
{
  gchar *argv[] = { (gchar *) "gst-launch-1.0", (gchar *) "-q",
    (gchar *) "videotestsrc", (gchar *) "num-buffers=125", (gchar *) "!",
    (gchar *) "video/x-raw,width=320,height=240,framerate=50/1", (gchar *) "!",
    (gchar *) "queue", (gchar *) "name=pq", (gchar *) "!",
    (gchar *) "fakesink", (gchar *) "name=psink", (gchar *) "sync=true", NULL
  };
  gchar **envp = g_environ_setenv (g_get_environ (), "GST_TRACERS",
      "stageprof(progress=true,summary=stderr)", TRUE);
  int master = posix_openpt (O_RDWR | O_NOCTTY), slave, status;
  GString *out = g_string_new (NULL);
  GError *e = NULL;
  GPid pid;
  gchar buf[4096], *p;
  gssize n;
  guint redraws = 0;

  fail_unless (master >= 0 && grantpt (master) == 0
      && unlockpt (master) == 0);
  slave = open (ptsname (master), O_RDWR | O_NOCTTY);
  fail_unless (slave >= 0);
  envp = g_environ_unsetenv (envp, "GST_DEBUG");
  fail_unless (g_spawn_async_with_fds (NULL, argv, envp, G_SPAWN_SEARCH_PATH
          | G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
          NULL, &pid, -1, -1, slave, &e), "%s", e ? e->message : "");
  close (slave);
  /* EIO once the child (the last holder of the slave) is gone. */
  while ((n = read (master, buf, sizeof (buf))) > 0)
    g_string_append_len (out, buf, n);
  close (master);
  status = wait_child (pid);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0, "%s",
      out->str);
  for (p = out->str; (p = strstr (p, "\rstageprof ")); p++)
    redraws++;
  /* 2.5 s at one redraw a second. */
  fail_unless (redraws >= 2, "%u redraws:\n%s", redraws, out->str);
  fail_unless (strstr (out->str, "\033[K") != NULL);
  fail_if (strstr (out->str, "\nstageprof 0:"), "a status line on a line of "
      "its own on a terminal:\n%s", out->str);
  /* The status line is ended before the tables. */
  p = strstr (out->str, "=== stageprof");
  fail_unless (p != NULL && p > out->str && (p[-1] == '\n'), "%s",
      out->str);
  g_string_free (out, TRUE);
  g_strfreev (envp);
}

GST_END_TEST;

static Suite *
stageprof_faults_suite (void)
{
  Suite *s = suite_create ("stageprof_faults");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 240);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_db_toggle_under_interval);
  tcase_add_test (tc, test_trace_replaced);
  tcase_add_test (tc, test_write_trace_own_path);
  tcase_add_test (tc, test_output_symlinks);
  tcase_add_test (tc, test_output_existing_files);
  tcase_add_test (tc, test_output_special_files);
#ifdef HAVE_SPDB
  tcase_add_test (tc, test_db_foreign_tables);
  tcase_add_test (tc, test_db_newer_version);
#endif
  tcase_add_test (tc, test_interval_minimum);
  tcase_add_test (tc, test_summary_mistyped);
  tcase_add_test (tc, test_lifecycle);
  tcase_add_test (tc, test_db_documented_queries);
  tcase_add_test (tc, test_launch_kill9);
  tcase_add_test (tc, test_launch_sigint);
  tcase_add_test (tc, test_launch_trace_disk_full);
  tcase_add_test (tc, test_launch_db_disk_full);
  tcase_add_test (tc, test_launch_no_byte_written);
  tcase_add_test (tc, test_progress_thread);
  tcase_add_test (tc, test_progress_lines);
  tcase_add_test (tc, test_interval_alone_lines);
  tcase_add_test (tc, test_progress_binding_limit);
  tcase_add_test (tc, test_progress_tty);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;
  int ret;

  g_setenv ("GST_TRACERS", "stageprof(summary=none)", TRUE);
  /* The tracer's threads and files must be this process's. */
  g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);
  tmpdir = g_dir_make_tmp ("stageprof_faults-XXXXXX", NULL);
  g_assert (tmpdir != NULL);
  fastdir = g_strdup ("/dev/shm/stageprof_faults-XXXXXX");
  if (!g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR) || !g_mkdtemp (fastdir)) {
    g_free (fastdir);
    fastdir = g_build_filename (tmpdir, "fast", NULL);
    g_mkdir (fastdir, 0700);
  }
  s = stageprof_faults_suite ();
  ret = gst_check_run_suite (s, "stageprof_faults", __FILE__);
  rm_rf (fastdir);
  rm_rf (tmpdir);
  g_free (fastdir);
  g_free (tmpdir);
  return ret;
}
