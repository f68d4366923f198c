/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stagebin under errors, downstream EOS, leaks and 1,000 state cycles.
 *
 * The reference for every output check is the plain chain: stagebin with
 * any replicas / packet / queue sizes must give the same buffers (bytes,
 * timestamps) and events in the same order.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "lib/stagebintest.h"
#include "lib/stagetest.h"

/* ---------------------------------------------------------------------- */
/* Errors                                                                   */

GST_START_TEST (test_error_in_replica)
{
  Recorder r;
  gchar *src = ball_src (60);
  GstElement *p;
  GstMessage *msg;
  GError *err = NULL;

  recorder_init (&r);
  p = make_pipeline (src, "stagebin ops=\"videoflip ! stagetestop mode=2 "
      "fail-at=7\" replicas=3 work-packet-size=2", &r);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = stage_test_expect_error (p, 20 * GST_SECOND, NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "test failure at frame 7") != NULL,
      "unexpected error: %s", err->message);
  /* the error comes from the op, inside replica 7 / 2 % 3 = 0 */
  fail_unless_equals_string (GST_OBJECT_NAME (gst_element_get_factory
          (GST_ELEMENT (GST_MESSAGE_SRC (msg)))), "stagetestop");
  fail_unless_equals_string (GST_OBJECT_NAME (GST_OBJECT_PARENT
          (GST_MESSAGE_SRC (msg))), "replica0");
  g_clear_error (&err);
  gst_message_unref (msg);
  /* stopping must not hang on replicas waiting for their turn */
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  /* nothing from frame 7 on went out */
  {
    guint i;

    for (i = 0; i < r.items->len; i++)
      fail_if (g_str_has_prefix (g_ptr_array_index (r.items, i),
              "B 0:00:00.233333333"));
  }
  gst_object_unref (p);
  g_free (src);
  recorder_clear (&r);
}

GST_END_TEST;

/* Error messages stay valid UTF-8 whatever bytes the ops string, its
 * element names or a long string cut short hold. */
GST_START_TEST (test_bad_ops_utf8)
{
  gchar *x = g_strnfill (398, 'x'), *ops;

  check_bad_ops ("identity name=ab\xff\xfe" "cd ! tee", "");
  check_bad_ops ("videoconvert ! \xff\xfe", "");
  ops = g_strdup_printf ("identity name=%s\xe2\x82\xac ! tee", x);
  check_bad_ops (ops, "");
  g_free (ops);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_bad_ops)
{
  GObjectClass *klass;
  GParamSpecUInt *ps;

  check_bad_ops ("", "empty");
  check_bad_ops ("nosuchelement_xyz ! videoflip", "no element");
  check_bad_ops ("videoflip ! ! videoflip", "does not parse");
  check_bad_ops ("videoflip method=nosuchmethod", "does not parse");
  check_bad_ops ("videotestsrc", "0 input(s)");
  check_bad_ops ("videoflip ! fakesink", "0 output(s)");
  check_bad_ops ("tee name=t ! queue t. ! queue", "2 output(s)");
  check_bad_ops ("decodebin", "0 output(s)");
  check_bad_ops ("videoflip name=a videoflip name=b", "more than one");
  /* an op named like stagebin's own queues cannot join the replica */
  check_bad_ops ("identity name=queue0_ops0", "name 'queue0_ops0' is taken");

  /* the limits are checked at start, not by the property specs (GObject
   * only warns and keeps the default): see test_stagebin's
   * test_out_of_range_refused; the specs take any value */
  klass = g_type_class_ref (g_type_from_name ("GstStageBin"));
  ps = G_PARAM_SPEC_UINT (g_object_class_find_property (klass, "replicas"));
  fail_unless_equals_int (ps->maximum, G_MAXUINT);
  g_type_class_unref (klass);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Leaks: the leaks tracer (enabled in main) lists what a run left alive.  */

static GstTracer *
leaks_tracer (void)
{
  GList *l, *tracers = gst_tracing_get_active_tracers ();
  GstTracer *found = NULL;

  for (l = tracers; l; l = l->next)
    if (found == NULL && g_str_equal (G_OBJECT_TYPE_NAME (l->data),
            "GstLeaksTracer"))
      found = gst_object_ref (l->data);
  g_list_free_full (tracers, gst_object_unref);
  return found;
}

static void
run_stagebin_once (void)
{
  Recorder r;
  gchar *src = ball_src (20);

  recorder_init (&r);
  run_and_record (src, "stagebin ops=\"" FLIP_OPS "\" replicas=3 "
      "work-packet-size=2", &r);
  fail_unless_equals_int (r.items->len > 20, TRUE);
  recorder_clear (&r);
  g_free (src);
}

/* Adds the objects created since the last checkpoint to @alive and drops
 * those removed. */
static void
leaks_checkpoint (GstTracer * leaks, GHashTable * alive)
{
  GstStructure *cp = NULL;
  const GValue *list;
  guint i;

  g_signal_emit_by_name (leaks, "activity-get-checkpoint", &cp);
  fail_unless (cp != NULL);
  list = gst_structure_get_value (cp, "objects-created-list");
  for (i = 0; i < gst_value_list_get_size (list); i++) {
    const GstStructure *c =
        gst_value_get_structure (gst_value_list_get_value (list, i));

    g_hash_table_insert (alive,
        g_strdup (gst_structure_get_string (c, "address")),
        g_strdup (gst_structure_get_string (c, "type-name")));
  }
  list = gst_structure_get_value (cp, "objects-removed-list");
  for (i = 0; i < gst_value_list_get_size (list); i++) {
    const GstStructure *c =
        gst_value_get_structure (gst_value_list_get_value (list, i));

    g_hash_table_remove (alive, gst_structure_get_string (c, "address"));
  }
  gst_structure_free (cp);
}

GST_START_TEST (test_no_leaks)
{
  GstTracer *leaks = leaks_tracer ();
  GHashTable *alive = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  GString *left = g_string_new (NULL);
  GHashTableIter it;
  gpointer type;
  guint tries;

  fail_unless (leaks != NULL, "the leaks tracer is not active");
  /* a first run loads plugins and fills caches that live until exit */
  run_stagebin_once ();
  g_signal_emit_by_name (leaks, "activity-start-tracking");
  run_stagebin_once ();
  /* A task pool thread drops its last task ref just after the join
   * returns: give such late releases a moment before calling it a leak. */
  leaks_checkpoint (leaks, alive);
  for (tries = 0; tries < 40 && g_hash_table_size (alive) > 0; tries++) {
    g_usleep (50000);
    leaks_checkpoint (leaks, alive);
  }
  g_signal_emit_by_name (leaks, "activity-stop-tracking");

  g_hash_table_iter_init (&it, alive);
  while (g_hash_table_iter_next (&it, NULL, &type))
    g_string_append_printf (left, " %s", (gchar *) type);
  fail_unless (g_hash_table_size (alive) == 0, "%u objects left alive:%s",
      g_hash_table_size (alive), left->str);
  g_string_free (left, TRUE);
  g_hash_table_unref (alive);
  gst_object_unref (leaks);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Downstream ends the stream                                    */

/* A tag before every 3rd frame, as a parser's bitrate tags: sticky events
 * that a waiting replica still holds when downstream returns EOS. */
static GstPadProbeReturn
tag_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  guint *n = user_data;

  if ((*n)++ % 3 == 0)
    gst_pad_push_event (pad, gst_event_new_tag (gst_tag_list_new
            (GST_TAG_BITRATE, *n, NULL)));
  return GST_PAD_PROBE_OK;
}

/* Runs "<frames> ! stagebin replicas=@n ! @down" and expects EOS and not a
 * single error message: a downstream GST_FLOW_EOS ends the stream as it
 * does for the plain chain. */
static void
check_downstream_eos (guint n, const gchar * down)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=300 ! "
      CAPS_64x48 " ! identity name=tagger ! stagebin replicas=%u "
      "work-packet-size=2 ops=\"stageresize width=32 height=24\" ! %s", n,
      down);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *tagger = gst_bin_get_by_name (GST_BIN (p), "tagger");
  GstPad *pad = gst_element_get_static_pad (tagger, "src");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  guint tags = 0;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, tag_probe, &tags, NULL);
  stage_test_play_to_eos (p, 30 * GST_SECOND, desc);
  /* let the replicas and the source run into the end too */
  g_usleep (100 * 1000);
  gst_element_set_state (p, GST_STATE_NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "%s: error after EOS: %" GST_PTR_FORMAT, desc,
      msg);
  gst_object_unref (pad);
  gst_object_unref (tagger);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
}

GST_START_TEST (test_downstream_eos)
{
  static const gchar *downs[] = {
    "identity eos-after=20 ! fakesink sync=false",
    /* a tee returns EOS once all its branches have ended */
    "tee name=t t. ! queue ! identity eos-after=10 ! fakesink sync=false "
        "t. ! queue ! identity eos-after=25 ! fakesink sync=false",
  };
  guint n, d, run;

  for (run = 0; run < 3; run++)
    for (d = 0; d < G_N_ELEMENTS (downs); d++)
      for (n = 1; n <= 3; n++)
        check_downstream_eos (n, downs[d]);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Lifecycle                                                     */

static guint
count_threads (void)
{
  GDir *d = g_dir_open ("/proc/self/task", 0, NULL);
  guint n = 0;

  if (d == NULL)
    return 0;
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}

/* The threads of the process once idle pool threads are gone. GstTask
 * threads come from the default GstTaskPool, a GLib thread pool that keeps
 * finished threads parked for a while, and GLib's shared pool keeps some
 * more: how many exist at a given moment says nothing about a leak (on
 * Debian 13 and unstable the count was 6 at one moment and 7 at another,
 * parked threads still named after their last task). gst_task_cleanup_all()
 * waits for every task and lets the pool's threads go (GStreamer's API for
 * test suites), g_thread_pool_stop_unused_threads() ends them; a thread
 * that still runs is counted. Returns once the count is at most `limit`,
 * or has not fallen for 500 ms, within 5 s. */
static guint
count_running_threads (guint limit)
{
  guint i, n = G_MAXUINT, same = 0;

  gst_task_cleanup_all ();
  for (i = 0; i < 250 && same < 25; i++) {
    guint now;

    g_thread_pool_stop_unused_threads ();
    now = count_threads ();
    if (now <= limit)
      return now;
    same = now < n ? 0 : same + 1;
    n = now;
    g_usleep (20 * 1000);
  }
  return n;
}

/* The names of the process's threads, for a failure message. */
static gchar *
thread_names (void)
{
  GDir *d = g_dir_open ("/proc/self/task", 0, NULL);
  GString *names = g_string_new (NULL);
  const gchar *tid;

  while (d && (tid = g_dir_read_name (d))) {
    gchar *path = g_build_filename ("/proc/self/task", tid, "comm", NULL);
    gchar *comm = NULL;

    if (g_file_get_contents (path, &comm, NULL, NULL))
      g_string_append_printf (names, "%s%s", names->len ? ", " : "",
          g_strstrip (comm));
    g_free (comm);
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  return g_string_free (names, FALSE);
}

static gsize
heap_in_use (void)
{
#if defined(__GLIBC__) && defined(__GLIBC_MINOR__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  return mallinfo2 ().uordblks;
#else
  return 0;
#endif
}

/* 1,000 PLAYING -> NULL cycles of one pipeline of our elements (stagebin
 * with two replicas, a selector, a resize): the replicas' threads and
 * queues are built and torn down every time; thread count and heap must
 * come back to where they were. */
GST_START_TEST (test_state_cycles)
{
  GstElement *p = gst_parse_launch ("videotestsrc ! " CAPS_64x48 " ! "
      "stagebin replicas=2 work-packet-size=2 ops=\"stageresize width=32 "
      "height=24\" ! stagestride stride=2 ! fakesink sync=false", NULL);
  guint i, threads0 = 0, threads;
  gsize heap0 = 0, heap;
  gchar *names0 = NULL;

  fail_unless (p != NULL);
  for (i = 0; i < 1000; i++) {
    fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    fail_unless (gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND) ==
        GST_STATE_CHANGE_SUCCESS, "cycle %u: no PLAYING", i);
    fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    if (i == 49) {
      /* after warm-up: caches, task pool threads, the first allocations */
      threads0 = count_running_threads (0);
      names0 = thread_names ();
      heap0 = heap_in_use ();
    }
  }
  threads = count_running_threads (threads0);
  heap = heap_in_use ();
  GST_INFO ("threads %u -> %u, heap %" G_GSIZE_FORMAT " -> %" G_GSIZE_FORMAT,
      threads0, threads, heap0, heap);
  fail_unless (threads <= threads0, "threads %u -> %u over 950 cycles "
      "(baseline: %s; now: %s)", threads0, threads, names0, thread_names ());
  /* 950 cycles: a leak of even 1 KB per cycle would be ~1 MB */
  fail_unless (heap <= heap0 + 256 * 1024, "heap %" G_GSIZE_FORMAT " -> %"
      G_GSIZE_FORMAT " over 950 cycles", heap0, heap);
  g_free (names0);
  gst_object_unref (p);
}

GST_END_TEST;


static Suite *
stagebin_lifecycle_suite (void)
{
  Suite *s = suite_create ("stagebin_lifecycle");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_error_in_replica);
  tcase_add_test (tc, test_bad_ops);
  tcase_add_test (tc, test_bad_ops_utf8);
  tcase_add_test (tc, test_no_leaks);
  tcase_add_test (tc, test_downstream_eos);
  tcase_add_test (tc, test_state_cycles);
  return s;
}

STAGEBIN_CHECK_MAIN (stagebin_lifecycle);
