/* stageprof: queue occupancy counted from the hooks, wait on input and wait
 * on output per thread.
 *
 * Output-bound: a slow element behind a small queue keeps it full, so the
 * producer's thread waits inside the queue's chain. Input-bound: a slow
 * element before the queue keeps it empty, so the queue's task waits.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>

/* Helpers shared (by copy) by the stageprof suites. */
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

static G_GNUC_UNUSED GstStructure *
get_summary (void)
{
  GstTracer *t = find_prof ();
  GstStructure *s = NULL;

  g_signal_emit_by_name (t, "get-summary", &s);
  gst_object_unref (t);
  fail_unless (s != NULL);
  fail_unless (gst_structure_has_name (s, "stageprof-summary"));
  return s;
}

static G_GNUC_UNUSED void
run_pipeline (const gchar * name, const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstBus *bus;
  GstMessage *msg;

  fail_unless (p != NULL, "cannot parse '%s': %s", desc,
      err ? err->message : "?");
  gst_object_set_name (GST_OBJECT (p), name);
  bus = gst_element_get_bus (p);
  fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no EOS within 60 s", name);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gst_message_parse_error (msg, &e, NULL);
    fail ("%s: error: %s", name, e->message);
  }
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
}

/* Rows of `table` for element `name` in `pipeline` (one per thread). */
static G_GNUC_UNUSED GPtrArray *
rows (const GstStructure * s, const gchar * table, const gchar * name,
    const gchar * pipeline)
{
  const GValue *arr = gst_structure_get_value (s, table);
  GPtrArray *res = g_ptr_array_new ();
  guint i;

  fail_unless (arr != NULL && GST_VALUE_HOLDS_ARRAY (arr), "no %s", table);
  for (i = 0; i < gst_value_array_get_size (arr); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    if (g_strcmp0 (gst_structure_get_string (r, "name"), name) == 0
        && (!pipeline || g_strcmp0 (gst_structure_get_string (r,
                    "pipeline"), pipeline) == 0))
      g_ptr_array_add (res, (gpointer) r);
  }
  return res;
}

static G_GNUC_UNUSED const GstStructure *
row (const GstStructure * s, const gchar * table, const gchar * name,
    const gchar * pipeline)
{
  GPtrArray *r = rows (s, table, name, pipeline);
  const GstStructure *res;

  fail_unless (r->len == 1, "%u rows for %s in %s (first on thread %s)",
      r->len, name, pipeline ? pipeline : "any", r->len ?
      gst_structure_get_string (g_ptr_array_index (r, 0), "thread") : "-");
  res = g_ptr_array_index (r, 0);
  g_ptr_array_free (r, TRUE);
  return res;
}

static G_GNUC_UNUSED gdouble
dget (const GstStructure * r, const gchar * f)
{
  gdouble d = -1;

  fail_unless (gst_structure_get_double (r, f, &d), "no field %s", f);
  return d;
}

static G_GNUC_UNUSED guint64
uget (const GstStructure * r, const gchar * f)
{
  guint64 u = 0;

  fail_unless (gst_structure_get_uint64 (r, f, &u), "no field %s", f);
  return u;
}

static G_GNUC_UNUSED guint64
count_sum (const GstStructure * s, const gchar * name, const gchar * pipeline)
{
  GPtrArray *r = rows (s, "elements", name, pipeline);
  guint64 n = 0;
  guint i;

  for (i = 0; i < r->len; i++)
    n += uget (g_ptr_array_index (r, i), "count");
  g_ptr_array_free (r, TRUE);
  return n;
}

static G_GNUC_UNUSED void
set_skip_first (guint n)
{
  GstTracer *t = find_prof ();

  g_object_set (t, "skip-first", n, NULL);
  gst_object_unref (t);
}

/* The thread row of the (single) thread element `name` ran on. */
static G_GNUC_UNUSED const GstStructure *
thread_of (const GstStructure * s, const gchar * name, const gchar * pipeline)
{
  const gchar *t = gst_structure_get_string (row (s, "elements", name,
          pipeline), "thread");

  return row (s, "threads", t, pipeline);
}

GST_START_TEST (test_output_bound)
{
  GstStructure *s;
  const GstStructure *q, *src_th, *q_th;

  run_pipeline ("outb",
      "videotestsrc name=ob_src num-buffers=60 ! "
      "video/x-raw,width=64,height=48 ! queue name=ob_q max-size-buffers=3 "
      "max-size-bytes=0 max-size-time=0 ! identity name=ob_slow "
      "sleep-time=2000 ! fakesink sync=false");
  s = get_summary ();
  q = row (s, "queues", "ob_q", "outb");
  fail_unless_equals_int (uget (q, "items"), 60);
  /* Never above the limit, and the slow consumer keeps it at the limit. */
  fail_unless (uget (q, "max_level") <= 3, "max level %" G_GUINT64_FORMAT,
      uget (q, "max_level"));
  fail_unless (uget (q, "max_level") >= 2);
  fail_unless (dget (q, "mean_level") <= 3.0 && dget (q, "mean_level") > 1.0,
      "mean level %f", dget (q, "mean_level"));
  fail_unless (dget (q, "full_pct") > 20.0, "full %f", dget (q, "full_pct"));
  fail_unless (dget (q, "ave_put_ms") > 0.3, "put %f",
      dget (q, "ave_put_ms"));
  fail_unless (uget (q, "max_bytes") > 0);

  src_th = thread_of (s, "ob_src", "outb");
  fail_unless (dget (src_th, "wait_output_pct") > 40.0, "wait output %f",
      dget (src_th, "wait_output_pct"));
  q_th = thread_of (s, "ob_slow", "outb");
  fail_unless_equals_string (gst_structure_get_string (q_th, "name"), "ob_q");
  fail_unless (dget (q_th, "busy_pct") > 60.0, "busy %f",
      dget (q_th, "busy_pct"));
  fail_unless (dget (q_th, "wait_input_pct") < 30.0, "wait input %f",
      dget (q_th, "wait_input_pct"));
  gst_structure_free (s);
}

GST_END_TEST;

GST_START_TEST (test_input_bound)
{
  GstStructure *s;
  const GstStructure *q, *src_th, *q_th;

  run_pipeline ("inb",
      "videotestsrc name=ib_src num-buffers=40 ! "
      "video/x-raw,width=64,height=48 ! identity name=ib_slow "
      "sleep-time=3000 ! queue name=ib_q ! fakesink name=ib_sink sync=false");
  s = get_summary ();
  q = row (s, "queues", "ib_q", "inb");
  fail_unless_equals_int (uget (q, "items"), 40);
  fail_unless (dget (q, "empty_pct") > 50.0, "empty %f",
      dget (q, "empty_pct"));
  fail_unless (dget (q, "full_pct") == 0.0);
  fail_unless (dget (q, "ave_get_ms") > 1.0, "get %f",
      dget (q, "ave_get_ms"));
  q_th = thread_of (s, "ib_sink", "inb");
  fail_unless_equals_string (gst_structure_get_string (q_th, "name"), "ib_q");
  fail_unless (dget (q_th, "wait_input_pct") > 60.0, "wait input %f",
      dget (q_th, "wait_input_pct"));
  src_th = thread_of (s, "ib_slow", "inb");
  fail_unless (dget (src_th, "busy_pct") > 60.0);
  fail_unless (dget (src_th, "wait_output_pct") < 20.0, "wait output %f",
      dget (src_th, "wait_output_pct"));
  fail_unless (strstr (gst_structure_get_string (s, "verdict"), "ib_slow"),
      "verdict: %s", gst_structure_get_string (s, "verdict"));
  gst_structure_free (s);
}

GST_END_TEST;

/* A leaky queue drops instead of blocking: the level still never exceeds
 * the limit and the producer never waits. */
GST_START_TEST (test_leaky)
{
  GstStructure *s;
  const GstStructure *q;

  run_pipeline ("leaky",
      "videotestsrc name=lk_src num-buffers=40 ! "
      "video/x-raw,width=64,height=48 ! queue name=lk_q max-size-buffers=2 "
      "max-size-bytes=0 max-size-time=0 leaky=downstream ! identity "
      "sleep-time=2000 ! fakesink sync=false");
  s = get_summary ();
  q = row (s, "queues", "lk_q", "leaky");
  fail_unless (uget (q, "max_level") <= 2, "max level %" G_GUINT64_FORMAT,
      uget (q, "max_level"));
  fail_unless (uget (q, "items") < 40, "items %" G_GUINT64_FORMAT,
      uget (q, "items"));
  gst_structure_free (s);
}

GST_END_TEST;

/* queue2 and multiqueue are queues too; a byte limit is honoured. */
GST_START_TEST (test_queue2_multiqueue)
{
  GstStructure *s;
  const GstStructure *q;

  run_pipeline ("q2mq",
      "videotestsrc num-buffers=30 ! "
      "video/x-raw,format=I420,width=64,height=48 ! "
      "queue2 name=qm_q2 ! multiqueue name=qm_mq ! identity sleep-time=1000 "
      "! queue name=qm_bytes max-size-buffers=0 max-size-time=0 "
      "max-size-bytes=10000 ! identity sleep-time=2000 ! fakesink sync=false");
  s = get_summary ();
  fail_unless_equals_int (uget (row (s, "queues", "qm_q2", "q2mq"), "items"),
      30);
  fail_unless_equals_int (uget (row (s, "queues", "qm_mq", "q2mq"), "items"),
      30);
  q = row (s, "queues", "qm_bytes", "q2mq");
  fail_unless_equals_int (uget (q, "items"), 30);
  /* 64x48 I420 is 4608 bytes: full at 3 buffers (>= 10000 bytes). */
  fail_unless (uget (q, "max_bytes") <= 3 * 4608, "max bytes %"
      G_GUINT64_FORMAT, uget (q, "max_bytes"));
  fail_unless (dget (q, "full_pct") > 10.0, "full %f", dget (q, "full_pct"));
  gst_structure_free (s);
}

GST_END_TEST;

static Suite *
stageprof_queues_suite (void)
{
  Suite *s = suite_create ("stageprof_queues");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_output_bound);
  tcase_add_test (tc, test_input_bound);
  tcase_add_test (tc, test_leaky);
  tcase_add_test (tc, test_queue2_multiqueue);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  g_setenv ("GST_TRACERS", "stageprof(summary=none)", TRUE);
  gst_check_init (&argc, &argv);
  s = stageprof_queues_suite ();
  return gst_check_run_suite (s, "stageprof_queues", __FILE__);
}
