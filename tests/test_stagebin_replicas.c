/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stagebin's replicas: threads, device groups, estimates, stateful
 * ops, QoS, stopping, dead replicas, memory bounds.
 *
 * The reference for every output check is the plain chain: stagebin with
 * any replicas / packet / queue sizes must give the same buffers (bytes,
 * timestamps) and events in the same order.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "../gst/gststagebinplan.h"
#include "lib/stagebintest.h"
#include "lib/stagetest.h"

/* ---------------------------------------------------------------------- */
/* Threads, device groups, estimates                                       */

static gboolean
thread_named_now (const gchar * name)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *tid;
  gboolean found = FALSE;

  while (dir && !found && (tid = g_dir_read_name (dir))) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/comm", tid), *comm;

    if (g_file_get_contents (path, &comm, NULL, NULL)) {
      found = g_str_equal (g_strstrip (comm), name);
      g_free (comm);
    }
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  return found;
}

/* A queue's thread starts when its pad activates, maybe a moment after the
 * pipeline prerolled through another replica. */
static gboolean
thread_named (const gchar * name)
{
  guint i;

  for (i = 0; i < 200; i++) {
    if (thread_named_now (name))
      return TRUE;
    g_usleep (10000);
  }
  return FALSE;
}

static GPtrArray *
full_thread_names (GstElement * bin)
{
  GPtrArray *names = g_ptr_array_new ();
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (bin));
  GValue v = G_VALUE_INIT;

  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    const gchar *n = g_object_get_data (g_value_get_object (&v),
        "stage-thread-name");

    if (n)
      g_ptr_array_add (names, (gpointer) n);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return names;
}

static gboolean
has_string (GPtrArray * a, const gchar * s)
{
  guint i;

  for (i = 0; i < a->len; i++)
    if (g_str_equal (g_ptr_array_index (a, i), s))
      return TRUE;
  return FALSE;
}

GST_START_TEST (test_thread_names_and_groups)
{
  GstElement *p = gst_parse_launch ("videotestsrc ! " CAPS_64x48 " ! "
      "stagebin name=sb stage-name=Dec replicas=2 ops=\"videoflip name=a ! "
      "stagetestcuda name=b ! stagetestcuda name=c ! videobalance name=d\" ! "
      "stagebin name=sb2 replicas=2 ops=\"identity name=i ! "
      "stagetestcuda name=e ! capsfilter name=f ! videoflip name=g\" ! "
      "fakesink", NULL);
  GstElement *sb = gst_bin_get_by_name (GST_BIN (p), "sb");
  GstElement *sb2 = gst_bin_get_by_name (GST_BIN (p), "sb2");
  GPtrArray *names;
  gchar *groups;

  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);

  g_object_get (sb, "device-groups", &groups, NULL);
  fail_unless_equals_string (groups,
      "Ops[0]=cpu: a; Ops[1]=cuda: b ! c; Ops[2]=cpu: d");
  g_free (groups);
  g_object_get (sb2, "device-groups", &groups, NULL);
  fail_unless_equals_string (groups, "Ops[0]=cuda: i ! e ! f; Ops[1]=cpu: g");
  g_free (groups);

  /* one queue, one thread per replica and device group */
  names = full_thread_names (sb);
  fail_unless_equals_int (names->len, 6);
  fail_unless (has_string (names, "Dec[0]:Ops[0]"));
  fail_unless (has_string (names, "Dec[1]:Ops[2]"));
  g_ptr_array_unref (names);
  names = full_thread_names (sb2);
  fail_unless_equals_int (names->len, 4);
  fail_unless (has_string (names, "Pipeline[1]:Ops[1]"));
  g_ptr_array_unref (names);

  fail_unless (thread_named ("Dec[0]:Ops[0]"));
  fail_unless (thread_named ("Dec[1]:Ops[1]"));
  fail_unless (thread_named ("Dec[1]:Ops[2]"));
  fail_unless (thread_named ("Pipel[0]:Ops[0]"));
  fail_unless (thread_named ("Pipel[1]:Ops[1]"));

  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sb);
  gst_object_unref (sb2);
  gst_object_unref (p);
}

GST_END_TEST;

/* Factory names along a replica, from its input to its output. */
static gchar *
replica_layout (GstElement * replica)
{
  GString *s = g_string_new (NULL);
  GstPad *ghost = gst_element_get_static_pad (replica, "sink");
  GstPad *pad = gst_ghost_pad_get_target (GST_GHOST_PAD (ghost));

  gst_object_unref (ghost);
  while (pad) {
    GstElement *e = gst_pad_get_parent_element (pad);
    GstPad *src = gst_element_get_static_pad (e, "src");

    g_string_append_printf (s, "%s%s", s->len ? " " : "",
        GST_OBJECT_NAME (gst_element_get_factory (e)));
    gst_object_unref (pad);
    pad = gst_pad_get_peer (src);
    gst_object_unref (src);
    gst_object_unref (e);
    if (pad && GST_IS_PROXY_PAD (pad)) {
      /* the replica's ghost src: the end */
      gst_object_unref (pad);
      pad = NULL;
    }
  }
  return g_string_free (s, FALSE);
}

static void
check_layout (const gchar * ops, const gchar * groups, const gchar * layout)
{
  GstElement *sb = gst_element_factory_make ("stagebin", NULL);
  GstElement *replica;
  gchar *got;

  g_object_set (sb, "replicas", 2, "ops", ops, NULL);
  fail_unless_equals_int (gst_element_set_state (sb, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  g_object_get (sb, "device-groups", &got, NULL);
  fail_unless_equals_string (got, groups);
  g_free (got);
  replica = gst_bin_get_by_name (GST_BIN (sb), "replica1");
  got = replica_layout (replica);
  fail_unless_equals_string (got, layout);
  g_free (got);
  gst_object_unref (replica);
  gst_element_set_state (sb, GST_STATE_NULL);
  gst_object_unref (sb);
}

GST_START_TEST (test_cuda_transfers)
{
  if (!have_fake_cuda_transfers) {
    GST_WARNING ("SKIPPED: real cudaupload present, fake transfers not set");
    return;
  }
  /* a chain that starts and ends on the GPU: stagebin adds the transfers */
  check_layout ("stagetestcudamem name=b ! stagetestcudamem name=c",
      "Ops[0]=cuda: b ! c",
      "queue cudaupload stagetestcudamem stagetestcudamem cudadownload");
  /* the user's transfers start and end the GPU group; a download/upload
   * pair between two GPU ops goes: one upload before, one download after */
  check_layout ("videoflip name=a ! cudaupload name=u ! "
      "stagetestcudamem name=b ! cudadownload name=x ! cudaupload name=y ! "
      "stagetestcudamem name=c ! cudadownload name=z ! videobalance name=d",
      "Ops[0]=cpu: a; Ops[1]=cuda: u ! b ! c ! z; Ops[2]=cpu: d",
      "queue videoflip queue cudaupload stagetestcudamem stagetestcudamem "
      "cudadownload queue videobalance");
}

GST_END_TEST;

static gboolean
machine_has_gpu (void)
{
  return g_file_test ("/proc/driver/nvidia/gpus", G_FILE_TEST_IS_DIR);
}

static gchar *
device_groups_of (const gchar * ops, guint replicas, guint * used,
    guint * n_threads)
{
  GstElement *p;
  GstElement *sb;
  GPtrArray *names;
  gchar *pipe, *groups;

  pipe = g_strdup_printf ("videotestsrc num-buffers=5 ! " CAPS_64x48 " ! "
      "stagebin name=sb replicas=%u ops=\"%s\" ! fakesink", replicas, ops);
  p = gst_parse_launch (pipe, NULL);
  fail_unless (p != NULL, "%s", pipe);
  sb = gst_bin_get_by_name (GST_BIN (p), "sb");
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  g_object_get (sb, "device-groups", &groups, "replicas-used", used, NULL);
  names = full_thread_names (sb);
  *n_threads = names->len;
  g_ptr_array_unref (names);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sb);
  gst_object_unref (p);
  g_free (pipe);
  return groups;
}

/* An op that takes CPU or CUDA memory (stageresize when the plugin is built
 * with CUDA) is no GPU op on system-memory caps, and never without a GPU:
 * one device group, one queue and thread per replica, and replicas=0
 * sizes from the cores. Built without CUDA stageresize is a CPU op anyway;
 * built with it (meson -Dcuda=enabled, no GPU needed) this is the check. */
GST_START_TEST (test_flexible_ops_on_cpu)
{
  guint used, threads, cores = CLAMP (g_get_num_processors (), 1,
      GST_STAGE_PLAN_MAX_REPLICAS);
  gchar *groups;

  groups = device_groups_of ("stageresize name=r width=64 height=48 ! "
      "videoconvert name=c", 2, &used, &threads);
  fail_unless_equals_string (groups, "Ops[0]=cpu: r ! c");
  fail_unless_equals_int (used, 2);
  fail_unless_equals_int (threads, 2);
  g_free (groups);

  groups = device_groups_of ("stageresize name=r width=32 height=24 ! "
      "videoconvert name=c", 0, &used, &threads);
  fail_unless_equals_string (groups, "Ops[0]=cpu: r ! c");
  fail_unless_equals_int (used, cores);
  g_free (groups);

  /* the same with the test op, whatever the build */
  groups = device_groups_of ("stagetestflex name=f ! videoconvert name=c", 2,
      &used, &threads);
  fail_unless_equals_string (groups, "Ops[0]=cpu: f ! c");
  fail_unless_equals_int (threads, 2);
  g_free (groups);
  groups = device_groups_of ("stagetestflex name=f ! videoconvert name=c", 0,
      &used, &threads);
  fail_unless_equals_int (used, cores);
  g_free (groups);

  /* after a GPU op it follows that op's memory, where there is a GPU */
  groups = device_groups_of ("stagetestcuda name=g ! stagetestflex name=f", 1,
      &used, &threads);
  fail_unless_equals_string (groups, machine_has_gpu ()?
      "Ops[0]=cuda: g ! f" : "Ops[0]=cuda: g; Ops[1]=cpu: f");
  g_free (groups);
}

GST_END_TEST;

/* replicas, like every property the replicas are built from, is locked
 * while PAUSED or PLAYING: a change is refused with a warning the user
 * sees (as the selectors do), and the value stays. */
GST_START_TEST (test_locked_property_warns)
{
  GstElement *p = gst_parse_launch ("videotestsrc is-live=true ! "
      CAPS_64x48 " ! stagebin name=sb replicas=2 ops=videoflip ! fakesink",
      NULL);
  GstElement *sb = gst_bin_get_by_name (GST_BIN (p), "sb");
  gint hits = 0;
  GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
      G_LOG_LEVEL_WARNING, g_regex_new ("sb: property 'replicas' can only be "
          "changed in the NULL or READY state", 0, 0, NULL), count_warning,
      &hits, NULL);
  guint replicas;
  gchar *ops;

  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  g_object_set (sb, "replicas", 3, NULL);
  fail_unless_equals_int (hits, 1);
  g_object_get (sb, "replicas", &replicas, NULL);
  fail_unless_equals_int (replicas, 2);
  gst_check_remove_log_filter (filter);

  hits = 0;
  filter = gst_check_add_log_filter (NULL, G_LOG_LEVEL_WARNING,
      g_regex_new ("sb: property 'ops' can only be changed", 0, 0, NULL),
      count_warning, &hits, NULL);
  g_object_set (sb, "ops", "videobalance", NULL);
  fail_unless_equals_int (hits, 1);
  g_object_get (sb, "ops", &ops, NULL);
  fail_unless_equals_string (ops, "videoflip");
  g_free (ops);
  gst_check_remove_log_filter (filter);

  /* back in READY the change is taken */
  gst_element_set_state (p, GST_STATE_READY);
  g_object_set (sb, "replicas", 3, NULL);
  g_object_get (sb, "replicas", &replicas, NULL);
  fail_unless_equals_int (replicas, 3);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sb);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_device_groups_output)
{
  gchar *src = ball_src (11);

  check_same_as_plain (src, "videoflip method=clockwise ! stagetestcuda ! "
      "stagetestcuda ! videobalance saturation=0.3", 3, 2, 1);
  g_free (src);
}

GST_END_TEST;

GST_START_TEST (test_estimates)
{
  Recorder r;
  gchar *src = ball_src (5);
  GstElement *p, *sb;
  guint n, k, q;

  recorder_init (&r);
  p = make_pipeline (src, "stagebin name=sb ops=videoflip", &r);
  sb = gst_bin_get_by_name (GST_BIN (p), "sb");
  g_object_get (sb, "replicas-used", &n, "work-packet-size-used", &k,
      "queue-size-used", &q, NULL);
  fail_unless_equals_int (n, 0);
  fail_unless_equals_int (k, 0);
  gst_element_set_state (p, GST_STATE_PLAYING);
  stage_test_expect_eos (p, 20 * GST_SECOND, NULL);
  g_object_get (sb, "replicas-used", &n, "work-packet-size-used", &k,
      "queue-size-used", &q, NULL);
  fail_unless_equals_int (n, MIN (g_get_num_processors (), 256));
  fail_unless_equals_int (k, 8);        /* 64x48 frames */
  fail_unless_equals_int (q, 4);
  /* refused while PAUSED/PLAYING, with a warning (see
   * test_locked_property_warns): the value in use would not change */
  {
    gint hits = 0;
    GstCheckLogFilter *filter = gst_check_add_log_filter (NULL,
        G_LOG_LEVEL_WARNING, g_regex_new ("'replicas' can only be changed",
            0, 0, NULL), count_warning, &hits, NULL);

    g_object_set (sb, "replicas", 7, NULL);
    fail_unless_equals_int (hits, 1);
    gst_check_remove_log_filter (filter);
  }
  g_object_get (sb, "replicas", &n, NULL);
  fail_unless_equals_int (n, 0);
  gst_element_set_state (p, GST_STATE_NULL);

  /* explicit values are used as given */
  g_object_set (sb, "replicas", 3, "work-packet-size", 2, "queue-size", 5,
      NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  stage_test_expect_eos (p, 20 * GST_SECOND, NULL);
  g_object_get (sb, "replicas-used", &n, "work-packet-size-used", &k,
      "queue-size-used", &q, NULL);
  fail_unless_equals_int (n, 3);
  fail_unless_equals_int (k, 2);
  fail_unless_equals_int (q, 5);
  /* both runs, the second through rebuilt replicas, ended with one EOS */
  fail_unless_equals_int (r.eos, 2);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sb);
  gst_object_unref (p);
  g_free (src);
  recorder_clear (&r);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Review: stateful ops, QoS, stopping, dead replicas, bounds              */

/* Ops that count or keep frames see only their replica's packets, so with
 * replicas > 1 they would silently give other output than the plain chain:
 * an explicit replicas > 1 is refused naming the op, and the estimate
 * (replicas=0) runs such a chain once and says so. */
GST_START_TEST (test_stateful_ops)
{
  GstElementFactory *f = gst_element_factory_find ("stagestride");
  gchar *src = ball_src (20);
  Recorder plain, staged;
  GstElement *p, *sb;
  GstBus *bus;
  GstMessage *msg;
  GPtrArray *a, *b;
  guint n, warnings = 0;

  check_bad_ops ("videoflip ! stageteststateful", "(stageteststateful)");
  check_bad_ops ("stageteststateful", "replicas=1");
  fail_unless (f != NULL);
  gst_object_unref (f);
  check_bad_ops ("videoflip ! stagestride stride=3", "(stagestride)");
  check_bad_ops ("stagerange ranges=0:5", "(stagerange)");
  check_bad_ops ("stagegather indices=1,2", "(stagegather)");

  recorder_init (&plain);
  recorder_init (&staged);
  run_and_record (src, "stagestride stride=3 offset=1", &plain);
  p = make_pipeline (src, "stagebin name=sb ops=\"stagestride stride=3 "
      "offset=1\"", &staged);
  sb = gst_bin_get_by_name (GST_BIN (p), "sb");
  bus = gst_element_get_bus (p);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (;;) {
    msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    fail_unless (msg != NULL, "no EOS within 20 s");
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      gst_message_unref (msg);
      break;
    }
    {
      GError *err = NULL;

      gst_message_parse_warning (msg, &err, NULL);
      fail_unless (strstr (err->message, "stagestride") != NULL,
          "warning does not name the op: %s", err->message);
      g_clear_error (&err);
      warnings++;
    }
    gst_message_unref (msg);
  }
  g_object_get (sb, "replicas-used", &n, NULL);
  fail_unless_equals_int (n, 1);
  if (g_get_num_processors () > 1)
    fail_unless_equals_int (warnings, 1);
  a = buffers_and_eos (&plain);
  b = buffers_and_eos (&staged);
  assert_same_items (a, b, "stateful op, estimated replicas");
  g_ptr_array_unref (a);
  g_ptr_array_unref (b);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sb);
  gst_object_unref (p);
  recorder_clear (&plain);
  recorder_clear (&staged);
  g_free (src);
}

GST_END_TEST;

static GstPadProbeReturn
count_qos (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_QOS)
    g_atomic_int_inc ((gint *) user_data);
  return GST_PAD_PROBE_OK;
}

/* QoS says frames come late downstream: in the plain chain every op learns
 * it (basetransform drops late frames), so every replica must, while
 * upstream still sees it once. A seek goes upstream once too. */
GST_START_TEST (test_qos_reaches_every_replica)
{
  Recorder r;
  GstHarness *h;
  GstIterator *it;
  GValue v = G_VALUE_INIT;
  gint per_op[4] = { 0, }, upstream = 0, seeks = 0;
  guint n_ops = 0, f, i;
  GstEvent *seek;

  recorder_init (&r);
  h = stagebin_harness ("stagetestop ! identity", 4, 1, &r);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=16,"
      "height=8,framerate=100/1");
  for (f = 0; f < 8; f++)
    fail_unless_equals_int (gst_harness_push (h, frame (f, 128)), GST_FLOW_OK);

  it = gst_bin_iterate_all_by_element_factory_name (GST_BIN (h->element),
      "stagetestop");
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstPad *pad = gst_element_get_static_pad (g_value_get_object (&v), "src");

    fail_unless (n_ops < 4);
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, count_qos,
        &per_op[n_ops++], NULL);
    gst_object_unref (pad);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  fail_unless_equals_int (n_ops, 4);
  gst_pad_add_probe (h->srcpad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, count_qos,
      &upstream, NULL);

  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.5, GST_MSECOND * 30,
              GST_MSECOND * 40)));
  for (i = 0; i < n_ops; i++)
    fail_unless_equals_int (g_atomic_int_get (&per_op[i]), 1);
  fail_unless_equals_int (g_atomic_int_get (&upstream), 1);

  /* a seek reaches upstream exactly once */
  seek = gst_event_new_seek (1.0, GST_FORMAT_TIME, 0, GST_SEEK_TYPE_SET, 0,
      GST_SEEK_TYPE_NONE, 0);
  gst_harness_push_upstream_event (h, seek);
  while (gst_harness_upstream_events_in_queue (h) > 0) {
    GstEvent *ev = gst_harness_pull_upstream_event (h);

    if (GST_EVENT_TYPE (ev) == GST_EVENT_SEEK)
      seeks++;
    gst_event_unref (ev);
  }
  fail_unless_equals_int (seeks, 1);
  gst_harness_teardown (h);
  recorder_clear (&r);
}

GST_END_TEST;

typedef struct
{
  GstElement *element;
  GstState state;
  GstStateChangeReturn ret;
  gboolean done;
  GMutex lock;
  GCond cond;
} StateJob;

static gpointer
state_job_run (gpointer data)
{
  StateJob *job = data;
  GstStateChangeReturn ret = gst_element_set_state (job->element, job->state);

  g_mutex_lock (&job->lock);
  job->ret = ret;
  job->done = TRUE;
  g_cond_signal (&job->cond);
  g_mutex_unlock (&job->lock);
  return NULL;
}

/* gst_element_set_state that fails the test instead of hanging it. */
static GstStateChangeReturn
set_state_or_fail (GstElement * e, GstState state, const gchar * what)
{
  StateJob job = {.element = e,.state = state };
  gint64 end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  GThread *t;

  g_mutex_init (&job.lock);
  g_cond_init (&job.cond);
  t = g_thread_new ("set-state", state_job_run, &job);
  g_mutex_lock (&job.lock);
  while (!job.done)
    if (!g_cond_wait_until (&job.cond, &job.lock, end))
      break;
  g_mutex_unlock (&job.lock);
  fail_unless (job.done, "%s: going to %s hangs", what,
      gst_element_state_get_name (state));
  g_thread_join (t);
  g_mutex_clear (&job.lock);
  g_cond_clear (&job.cond);
  return job.ret;
}

/* Stopping while replicas wait in the reorder for their turn, or for a
 * blocked downstream, must not hang, from PLAYING and from a prerolled
 * PAUSED; and the same element must start again after NULL. */
GST_START_TEST (test_stop_while_blocked)
{
  Recorder r;
  GstElement *p;
  guint round;

  recorder_init (&r);
  p = gst_parse_launch ("videotestsrc pattern=ball ! " CAPS_64x48 " ! "
      "stagebin ops=\"stagetestop sleep-us=3000 slow-n=4 slow-k=2 ! "
      "videoflip\" replicas=4 work-packet-size=2 queue-size=1 ! "
      "fakesink sync=true", NULL);
  fail_unless (p != NULL);
  for (round = 0; round < 6; round++) {
    if (round % 2 == 0) {
      set_state_or_fail (p, GST_STATE_PLAYING, "stagebin");
      g_usleep (20000 + round * 15000);
    } else {
      set_state_or_fail (p, GST_STATE_PAUSED, "stagebin");
      fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
              10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
    }
    fail_unless_equals_int (set_state_or_fail (p, round == 2 ?
            GST_STATE_READY : GST_STATE_NULL, "stagebin"),
        GST_STATE_CHANGE_SUCCESS);
  }
  /* and it still runs to the end afterwards */
  gst_object_unref (p);
  p = make_pipeline ("videotestsrc pattern=ball num-buffers=30 ! "
      CAPS_64x48, "stagebin ops=videoflip replicas=4 work-packet-size=2 "
      "queue-size=1", &r);
  set_state_or_fail (p, GST_STATE_PLAYING, "stagebin");
  g_usleep (5000);
  set_state_or_fail (p, GST_STATE_NULL, "stagebin");
  g_mutex_lock (&r.lock);
  g_ptr_array_set_size (r.items, 0);
  r.eos = 0;
  g_mutex_unlock (&r.lock);
  set_state_or_fail (p, GST_STATE_PLAYING, "stagebin");
  stage_test_expect_eos (p, 20 * GST_SECOND, NULL);
  fail_unless_equals_int (r.eos, 1);
  set_state_or_fail (p, GST_STATE_NULL, "stagebin");
  gst_object_unref (p);
  recorder_clear (&r);
}

GST_END_TEST;

/* A replica that stops with a fatal flow and posts nothing (here
 * not-negotiated, as the plain chain's source would report it): the other
 * replicas wait for its turn forever and the dispatcher waits on their full
 * queues, unless the reorder notices. The pipeline must end with an error,
 * as the plain chain does. */
GST_START_TEST (test_dead_replica_without_message)
{
  const gchar *chains[] = {
    "stagetestop mode=3 fail-at=7",
    /* replica 0 is slow on its packets (0, 3, ...) and fails at the end
     * of packet 3: by then the others wait for its turn with full queues,
     * and the dispatcher waits on replica 1 */
    "stagebin ops=\"stagetestop mode=3 fail-at=7 sleep-us=20000 slow-n=3 "
        "slow-k=2 ! videoflip\" replicas=3 work-packet-size=2 queue-size=1",
    /* the same with an op that posts its error */
    "stagebin ops=\"stagetestop mode=2 fail-at=7 sleep-us=20000 slow-n=3 "
        "slow-k=2 ! videoflip\" replicas=3 work-packet-size=2 queue-size=1",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (chains); i++) {
    Recorder r;
    GstElement *p, *src;
    GstPad *pad;
    guint tries;

    recorder_init (&r);
    p = make_pipeline ("videotestsrc name=src pattern=ball num-buffers=200 ! "
        CAPS_64x48, chains[i], &r);
    src = gst_bin_get_by_name (GST_BIN (p), "src");
    pad = gst_element_get_static_pad (src, "src");
    set_state_or_fail (p, GST_STATE_PLAYING, chains[i]);
    gst_message_unref (stage_test_expect_error (p, 10 * GST_SECOND,
            chains[i]));
    /* the stream stopped by itself, as the plain chain's does: the
     * source's task is not stuck in a push */
    for (tries = 0; tries < 500 &&
        gst_pad_get_task_state (pad) != GST_TASK_PAUSED; tries++)
      g_usleep (10000);
    fail_unless_equals_int (gst_pad_get_task_state (pad), GST_TASK_PAUSED);
    fail_unless_equals_int (set_state_or_fail (p, GST_STATE_NULL,
            chains[i]), GST_STATE_CHANGE_SUCCESS);
    gst_object_unref (pad);
    gst_object_unref (src);
    gst_object_unref (p);
    recorder_clear (&r);
  }
}

GST_END_TEST;

/* Many replicas, packets of one tiny frame: the turn moves every frame. */
GST_START_TEST (test_many_replicas_tiny_packets)
{
  /* 16x16: videotestsrc 1.22 draws the ball 1 byte out of bounds at 8x8 */
  gchar *src = g_strdup_printf ("videotestsrc pattern=ball num-buffers=150 ! "
      "video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1");

  check_same_as_plain (src, "videoflip method=clockwise", 16, 1, 1);
  check_same_as_plain (src, "stagetestop mode=1 ! videoflip", 16, 3, 2);
  g_free (src);
}

GST_END_TEST;

typedef struct
{
  gint in, out, max;
} Flight;

static GstPadProbeReturn
flight_in (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Flight *f = user_data;
  gint now = g_atomic_int_add (&f->in, 1) + 1 - g_atomic_int_get (&f->out);
  gint max;

  while ((max = g_atomic_int_get (&f->max)) < now &&
      !g_atomic_int_compare_and_exchange (&f->max, max, now));
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
flight_out (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  g_atomic_int_inc (&((Flight *) user_data)->out);
  return GST_PAD_PROBE_OK;
}

/* One slow replica stalls the others: frames inside the stagebin never
 * exceed the N x Q x K in the queues, plus the one each replica thread
 * works on and the one the dispatcher is handing over. */
GST_START_TEST (test_memory_bound)
{
  static const guint cfg[][3] = { {3, 2, 2}, {2, 1, 1}, {4, 3, 1} };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cfg); i++) {
    guint n = cfg[i][0], k = cfg[i][1], q = cfg[i][2];
    Recorder r;
    Flight f = { 0, };
    GstElement *p, *sb;
    GstPad *pad;
    gchar *middle = g_strdup_printf ("stagebin name=sb ops=\"stagetestop "
        "sleep-us=4000 slow-n=%u slow-k=%u\" replicas=%u "
        "work-packet-size=%u queue-size=%u", n, k, n, k, q);
    gchar *src = ball_src (20 * n * k);

    recorder_init (&r);
    p = make_pipeline (src, middle, &r);
    sb = gst_bin_get_by_name (GST_BIN (p), "sb");
    pad = gst_element_get_static_pad (sb, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, flight_in, &f, NULL);
    gst_object_unref (pad);
    pad = gst_element_get_static_pad (sb, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, flight_out, &f, NULL);
    gst_object_unref (pad);
    set_state_or_fail (p, GST_STATE_PLAYING, middle);
    stage_test_expect_eos (p, 20 * GST_SECOND, NULL);
    fail_unless_equals_int (f.in, 20 * n * k);
    fail_unless_equals_int (f.out, 20 * n * k);
    fail_unless (f.max <= (gint) (n * (q * k + 1) + 1),
        "%s: %d frames inside, bound %u", middle, f.max, n * (q * k + 1) + 1);
    /* the slow replica did stall the others against the bound */
    fail_unless (f.max >= (gint) ((n - 1) * q * k), "%s: only %d frames "
        "inside: the test does not load the queues", middle, f.max);
    set_state_or_fail (p, GST_STATE_NULL, middle);
    gst_object_unref (sb);
    gst_object_unref (p);
    recorder_clear (&r);
    g_free (middle);
    g_free (src);
  }
}

GST_END_TEST;

/* A flush right behind EOS, while the replicas still drain: only what
 * follows the flush comes out, with one EOS, every time. */
GST_START_TEST (test_flush_racing_eos)
{
  guint round;

  for (round = 0; round < 20; round++) {
    Recorder r;
    GstHarness *h;
    GstSegment seg;
    GPtrArray *got, *expected = g_ptr_array_new_with_free_func (g_free);
    guint f, before = 1 + round % 7, after = 1 + round % 5;

    recorder_init (&r);
    h = stagebin_harness ("stagetestop sleep-us=300 ! identity", 3, 2, &r);
    gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=16,"
        "height=8,framerate=100/1");
    for (f = 0; f < before; f++)
      gst_harness_push (h, frame (f, 128));
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    if (round % 3)
      g_usleep (round * 100);
    gst_harness_push_event (h, gst_event_new_flush_start ());
    gst_harness_push_event (h, gst_event_new_flush_stop (TRUE));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    for (f = 0; f < after; f++) {
      GstBuffer *buf = frame (100 + f, 128);

      g_ptr_array_add (expected, describe_buffer (buf));
      fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    g_ptr_array_add (expected, g_strdup ("EOS"));
    wait_eos (&r);
    g_mutex_lock (&r.lock);
    got = buffers_and_eos (&r);
    assert_same_items (expected, got, "after a flush behind EOS");
    fail_unless_equals_int (r.eos, 1);
    g_mutex_unlock (&r.lock);
    g_ptr_array_unref (got);
    g_ptr_array_unref (expected);
    gst_harness_teardown (h);
    recorder_clear (&r);
  }
}

GST_END_TEST;


static Suite *
stagebin_replicas_suite (void)
{
  Suite *s = suite_create ("stagebin_replicas");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_flexible_ops_on_cpu);
  tcase_add_test (tc, test_locked_property_warns);
  tcase_add_test (tc, test_thread_names_and_groups);
  tcase_add_test (tc, test_device_groups_output);
  tcase_add_test (tc, test_cuda_transfers);
  tcase_add_test (tc, test_estimates);
  tcase_add_test (tc, test_stateful_ops);
  tcase_add_test (tc, test_qos_reaches_every_replica);
  tcase_add_test (tc, test_stop_while_blocked);
  tcase_add_test (tc, test_dead_replica_without_message);
  tcase_add_test (tc, test_many_replicas_tiny_packets);
  tcase_add_test (tc, test_memory_bound);
  tcase_add_test (tc, test_flush_racing_eos);
  return s;
}

STAGEBIN_CHECK_MAIN (stagebin_replicas);
