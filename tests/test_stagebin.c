/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: stagebin (replicated pipeline stages): planning, output identical to
 * the plain chain, events.
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
#include "prop-check.h"

/* ---------------------------------------------------------------------- */
/* Planning (pure functions)                                               */

GST_START_TEST (test_plan_groups)
{
  const gchar *cpu = "cpu", *cuda = "cuda";
  guint groups[8];
  const gchar *devs[8];

  {
    const gchar *ops[] = { cpu, cpu, cpu };
    fail_unless_equals_int (gst_stage_plan_groups (ops, 3, groups, devs), 1);
    fail_unless_equals_string (devs[0], "cpu");
    fail_unless_equals_int (groups[2], 0);
  }
  {
    const gchar *ops[] = { cpu, cuda, cuda, cpu };
    fail_unless_equals_int (gst_stage_plan_groups (ops, 4, groups, devs), 3);
    fail_unless_equals_string (devs[1], "cuda");
    fail_unless_equals_int (groups[0], 0);
    fail_unless_equals_int (groups[1], 1);
    fail_unless_equals_int (groups[2], 1);
    fail_unless_equals_int (groups[3], 2);
  }
  {
    /* neutral ops join the group before them, or the first group */
    const gchar *ops[] = { NULL, cuda, NULL, cpu, NULL };
    fail_unless_equals_int (gst_stage_plan_groups (ops, 5, groups, devs), 2);
    fail_unless_equals_string (devs[0], "cuda");
    fail_unless_equals_int (groups[0], 0);
    fail_unless_equals_int (groups[2], 0);
    fail_unless_equals_int (groups[3], 1);
    fail_unless_equals_int (groups[4], 1);
  }
  {
    const gchar *ops[] = { NULL, NULL };
    fail_unless_equals_int (gst_stage_plan_groups (ops, 2, groups, devs), 1);
    fail_unless_equals_string (devs[0], "cpu");
  }
  {
    const gchar *ops[] = { cuda, cpu, cuda };
    fail_unless_equals_int (gst_stage_plan_groups (ops, 3, groups, devs), 3);
  }
  fail_unless_equals_int (gst_stage_plan_groups (devs, 0, groups, devs), 0);
}

GST_END_TEST;

/* Ops that take CPU or CUDA memory run where their memory comes from. */
GST_START_TEST (test_plan_flexible)
{
  const gchar *cpu = "cpu", *cuda = "cuda", *flex = GST_STAGE_PLAN_FLEXIBLE;

  {
    /* no GPU: always the CPU, whatever the neighbours and the caps */
    const gchar *ops[] = { cuda, flex, NULL };
    gst_stage_plan_resolve_flexible (ops, 3, "cuda", "cuda", FALSE);
    fail_unless_equals_string (ops[1], "cpu");
  }
  {
    /* the op before it decides, looking through neutral ops */
    const gchar *ops[] = { cuda, NULL, flex, cpu };
    gst_stage_plan_resolve_flexible (ops, 4, NULL, NULL, TRUE);
    fail_unless_equals_string (ops[2], "cuda");
  }
  {
    /* else the op after it; a resolved flexible op counts as fixed */
    const gchar *ops[] = { flex, flex, NULL, cuda };
    gst_stage_plan_resolve_flexible (ops, 4, "cpu", NULL, TRUE);
    fail_unless_equals_string (ops[0], "cuda");
    fail_unless_equals_string (ops[1], "cuda");
  }
  {
    /* else the chain's input, then its output, else the CPU */
    const gchar *a[] = { flex, NULL }, *b[] = { NULL, flex },
        *c[] = { flex }, *d[] = { flex, cpu };
    gst_stage_plan_resolve_flexible (a, 2, "cuda", "cpu", TRUE);
    fail_unless_equals_string (a[0], "cuda");
    gst_stage_plan_resolve_flexible (b, 2, NULL, "cuda", TRUE);
    fail_unless_equals_string (b[1], "cuda");
    gst_stage_plan_resolve_flexible (c, 1, NULL, NULL, TRUE);
    fail_unless_equals_string (c[0], "cpu");
    gst_stage_plan_resolve_flexible (d, 2, "cuda", NULL, TRUE);
    fail_unless_equals_string (d[0], "cpu");
  }
}

GST_END_TEST;

GST_START_TEST (test_plan_estimate)
{
  gchar *s;

  fail_unless_equals_int (gst_stage_plan_estimate_replicas (0, 16, 0), 16);
  fail_unless_equals_int (gst_stage_plan_estimate_replicas (3, 16, 0), 3);
  fail_unless_equals_int (gst_stage_plan_estimate_replicas (0, 0, 0), 1);
  fail_unless_equals_int (gst_stage_plan_estimate_replicas (0, 1000, 0), 256);
  /* GPU ops: one replica per GPU (Scanner's pipeline instances) */
  fail_unless_equals_int (gst_stage_plan_estimate_replicas (0, 16, 2), 2);
  fail_unless_equals_int (gst_stage_plan_estimate_replicas (5, 16, 2), 5);

  fail_unless_equals_int (gst_stage_plan_estimate_packet (0, 1920, 1080), 1);
  fail_unless_equals_int (gst_stage_plan_estimate_packet (0, 1280, 720), 1);
  fail_unless_equals_int (gst_stage_plan_estimate_packet (0, 640, 480), 3);
  fail_unless_equals_int (gst_stage_plan_estimate_packet (0, 64, 48), 8);
  fail_unless_equals_int (gst_stage_plan_estimate_packet (0, 0, 0), 1);
  fail_unless_equals_int (gst_stage_plan_estimate_packet (5, 64, 48), 5);

  /* 16 GiB, 4 replicas, 1080p I420: plenty of memory, the cap applies */
  fail_unless_equals_int (gst_stage_plan_estimate_queue (0, 4, 1,
          1920 * 1080 * 3 / 2, G_GUINT64_CONSTANT (16) << 30), 4);
  /* bytes, not MB (Scanner's GPU unit bug): 8 GiB for 256 replicas of
   * 4K RGBA frames x4 overhead allows 1 packet, not 0 */
  fail_unless_equals_int (gst_stage_plan_estimate_queue (0, 256, 1,
          3840 * 2160 * 4, G_GUINT64_CONSTANT (8) << 30), 1);
  /* 1 GiB, 4 replicas, packets of 8 frames of 4 MiB: 0.5 GiB / 512 MiB */
  fail_unless_equals_int (gst_stage_plan_estimate_queue (0, 4, 8,
          4 << 20, G_GUINT64_CONSTANT (1) << 30), 1);
  fail_unless_equals_int (gst_stage_plan_estimate_queue (0, 1, 1,
          4 << 20, G_GUINT64_CONSTANT (64) << 20), 2);
  fail_unless_equals_int (gst_stage_plan_estimate_queue (7, 1, 1, 1, 1), 7);
  fail_unless_equals_int (gst_stage_plan_estimate_queue (0, 1, 1, 0, 0), 4);

  s = gst_stage_plan_thread_name (NULL, 3, 1);
  fail_unless_equals_string (s, "Pipeline[3]:Ops[1]");
  g_free (s);
  s = gst_stage_plan_kernel_thread_name ("Pipeline[3]:Ops[1]");
  fail_unless_equals_string (s, "Pipel[3]:Ops[1]");
  g_free (s);
  s = gst_stage_plan_kernel_thread_name ("Dec[12]:Ops[0]");
  fail_unless_equals_string (s, "Dec[12]:Ops[0]");
  g_free (s);
  s = gst_stage_plan_kernel_thread_name ("Pipeline[123]:Ops[10]");
  fail_unless_equals_string (s, "Pi[123]:Ops[10]");
  g_free (s);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Output identical to the plain chain                                     */

GST_START_TEST (test_identical_output)
{
  /* N, K, Q and lengths chosen so that streams end mid-packet, exactly at
   * a packet end, and before every replica got a packet. */
  static const guint cfg[][3] = {
    {1, 1, 1}, {2, 1, 1}, {2, 3, 2}, {3, 2, 1}, {3, 4, 3}, {4, 1, 2},
    {4, 5, 1}, {5, 3, 1}, {8, 2, 4},
  };
  static const guint lengths[] = { 0, 1, 7, 12 };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (cfg); i++) {
    for (j = 0; j < G_N_ELEMENTS (lengths); j++) {
      gchar *src = ball_src (lengths[j]);

      check_same_as_plain (src, FLIP_OPS, cfg[i][0], cfg[i][1], cfg[i][2]);
      g_free (src);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_identical_output_other_ops)
{
  gchar *src = ball_src (25);
  GstElementFactory *f = gst_element_factory_find ("stageresize");

  /* an op that drops frames: packets close by event, not by count */
  check_same_as_plain (src, "stagetestop mode=1 ! videoflip method=vertical-flip",
      3, 2, 1);
  check_same_as_plain (src, "stagetestop mode=1", 4, 3, 2);
  /* caps inside ops are link filters, so they need an element after them */
  check_same_as_plain (src, "videoconvert ! video/x-raw,format=RGBA ! "
      "videoscale method=bilinear ! video/x-raw,width=100,height=70 ! "
      "identity", 3, 2, 2);
  if (f) {
    /* Whole buffers are compared, padding included: 96x72 I420 has no row
     * padding (100x70 would leave 2 undefined bytes per chroma row). And
     * comparing only means something if the op itself gives the same bytes
     * twice; say so loudly when it does not (not stagebin's fault). */
    if (op_is_deterministic (src, "stageresize width=96 height=72"))
      check_same_as_plain (src, "stageresize width=96 height=72", 3, 1, 2);
    else
      g_printerr ("test_identical_output_other_ops: SKIPPED stageresize: "
          "the plain chain gives different bytes from run to run\n");
    gst_object_unref (f);
  }
  /* a stateful op (it counts frames) is exact with one replica */
  f = gst_element_factory_find ("stagestride");
  if (f) {
    check_same_as_plain (src, "stagestride stride=3 offset=1", 1, 4, 2);
    gst_object_unref (f);
  }
  g_free (src);
}

GST_END_TEST;

/* ---------------------------------------------------------------------- */
/* Events                                                                   */

GST_START_TEST (test_events_in_order)
{
  Recorder r;
  GstHarness *h;
  GPtrArray *expected = g_ptr_array_new_with_free_func (g_free);
  guint f, i;

  recorder_init (&r);
  h = stagebin_harness ("identity", 3, 2, &r);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=16,"
      "height=8,framerate=100/1");
  for (f = 0; f < 13; f++) {
    GstBuffer *buf = frame (f, 128);

    if (f % 3 == 1) {
      fail_unless (gst_harness_push_event (h,
              gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
                  gst_structure_new ("test-mark", "n", G_TYPE_UINT, f,
                      NULL))));
      g_ptr_array_add (expected, g_strdup_printf ("M %u", f));
    }
    if (f == 6) {
      fail_unless (gst_harness_push_event (h,
              gst_event_new_tag (gst_tag_list_new (GST_TAG_TITLE, "six",
                      NULL))));
      g_ptr_array_add (expected, g_strdup ("T six"));
    }
    g_ptr_array_add (expected, describe_buffer (buf));
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  g_ptr_array_add (expected, g_strdup ("EOS"));
  wait_eos (&r);

  {
    /* caps and segment went out once, before the first buffer */
    GPtrArray *got = g_ptr_array_new ();
    guint caps = 0, segments = 0;

    for (i = 0; i < r.items->len; i++) {
      const gchar *it = g_ptr_array_index (r.items, i);

      if (it[0] == 'C')
        caps++;
      else if (it[0] == 'S')
        segments++;
      else
        g_ptr_array_add (got, (gpointer) it);
    }
    fail_unless_equals_string (g_ptr_array_index (r.items, 0),
        "C 16x8 GRAY8");
    fail_unless_equals_int (caps, 1);
    fail_unless_equals_int (segments, 1);
    assert_same_items (expected, got, "events in order");
    g_ptr_array_unref (got);
  }
  fail_unless_equals_int (r.eos, 1);

  gst_harness_teardown (h);
  g_ptr_array_unref (expected);
  recorder_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_empty_stream_events)
{
  Recorder r;
  GstHarness *h;

  recorder_init (&r);
  h = stagebin_harness (TO_RGB, 4, 3, &r);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=16,"
      "height=8,framerate=100/1");
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  wait_eos (&r);
  /* caps and segment still go out, once, before EOS */
  fail_unless_equals_int (r.items->len, 3);
  fail_unless_equals_string (g_ptr_array_index (r.items, 0), "C 16x8 RGB");
  fail_unless_equals_string (g_ptr_array_index (r.items, 1), "S 0:00:00.000000000");
  fail_unless_equals_string (g_ptr_array_index (r.items, 2), "EOS");
  gst_harness_teardown (h);
  recorder_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_renegotiation)
{
  Recorder r;
  GstHarness *h;
  guint f, i;

  recorder_init (&r);
  h = stagebin_harness (TO_RGB, 3, 2, &r);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=16,"
      "height=8,framerate=100/1");
  for (f = 0; f < 5; f++)
    fail_unless_equals_int (gst_harness_push (h, frame (f, 128)), GST_FLOW_OK);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=8,"
      "height=4,framerate=100/1");
  for (f = 5; f < 12; f++)
    fail_unless_equals_int (gst_harness_push (h, frame (f, 32)), GST_FLOW_OK);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=16,"
      "height=8,framerate=100/1");
  for (f = 12; f < 14; f++)
    fail_unless_equals_int (gst_harness_push (h, frame (f, 128)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  wait_eos (&r);

  {
    /* every buffer has the size of the caps that went out last */
    guint caps_changes = 0, buffers = 0;
    gsize expect = 0;

    for (i = 0; i < r.items->len; i++) {
      const gchar *it = g_ptr_array_index (r.items, i);

      if (g_str_equal (it, "C 16x8 RGB")) {
        expect = 16 * 8 * 3;
        caps_changes++;
      } else if (g_str_equal (it, "C 8x4 RGB")) {
        expect = 8 * 4 * 3;
        caps_changes++;
      } else if (it[0] == 'B') {
        gchar **parts = g_strsplit (it, " ", -1);

        fail_unless_equals_int (g_ascii_strtoull (parts[3], NULL, 10),
            expect);
        /* and the buffers are in input order */
        fail_unless_equals_string (parts[1], ((gchar *[]) {
                    "0:00:00.000000000", "0:00:00.010000000",
                    "0:00:00.020000000", "0:00:00.030000000",
                    "0:00:00.040000000", "0:00:00.050000000",
                    "0:00:00.060000000", "0:00:00.070000000",
                    "0:00:00.080000000", "0:00:00.090000000",
                    "0:00:00.100000000", "0:00:00.110000000",
                    "0:00:00.120000000", "0:00:00.130000000"})[buffers]);
        buffers++;
        g_strfreev (parts);
      }
    }
    fail_unless_equals_int (caps_changes, 3);
    fail_unless_equals_int (buffers, 14);
  }
  fail_unless_equals_int (r.eos, 1);
  gst_harness_teardown (h);
  recorder_clear (&r);
}

GST_END_TEST;

/* A real source renegotiating mid-packet (appsrc: caps event, then an
 * ALLOCATION query, serialized, through replica 0 only). */
GST_START_TEST (test_renegotiation_with_allocation)
{
  Recorder r;
  GstElement *p, *src;
  GstFlowReturn ret;
  guint f, i, buffers = 0;

  recorder_init (&r);
  p = make_pipeline ("appsrc name=src format=time caps=video/x-raw,"
      "format=GRAY8,width=16,height=8,framerate=100/1",
      "stagebin ops=\"" TO_RGB "\" replicas=2 work-packet-size=3 "
      "queue-size=1", &r);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (f = 0; f < 10; f++) {
    GstBuffer *buf;

    if (f == 4) {
      GstCaps *caps = gst_caps_from_string ("video/x-raw,format=GRAY8,"
          "width=8,height=4,framerate=100/1");

      g_object_set (src, "caps", caps, NULL);
      gst_caps_unref (caps);
    }
    buf = frame (f, f < 4 ? 128 : 32);
    /* the action signal does not take the buffer */
    g_signal_emit_by_name (src, "push-buffer", buf, &ret);
    gst_buffer_unref (buf);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  stage_test_expect_eos (p, 20 * GST_SECOND, "after the caps change");
  for (i = 0; i < r.items->len; i++) {
    const gchar *it = g_ptr_array_index (r.items, i);

    if (it[0] == 'B') {
      gchar **parts = g_strsplit (it, " ", -1);

      fail_unless_equals_int (g_ascii_strtoull (parts[3], NULL, 10),
          buffers < 4 ? 16 * 8 * 3 : 8 * 4 * 3);
      g_strfreev (parts);
      buffers++;
    }
  }
  fail_unless_equals_int (buffers, 10);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (p);
  recorder_clear (&r);
}

GST_END_TEST;

/* Flushing seek in PAUSED (with frames in flight in every replica), play to
 * EOS, then seek again after EOS: both runs match the plain chain. */
static void
seek_and_record (const gchar * middle, Recorder * r, GPtrArray ** first)
{
  GstElement *p = make_pipeline ("videotestsrc pattern=ball ! " CAPS_64x48,
      middle, r);

  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
          GST_SECOND, GST_SEEK_TYPE_SET, 2 * GST_SECOND));
  gst_element_set_state (p, GST_STATE_PLAYING);
  stage_test_expect_eos (p, 30 * GST_SECOND, NULL);
  g_mutex_lock (&r->lock);
  *first = g_ptr_array_new_with_free_func (g_free);
  while (r->items->len)
    g_ptr_array_add (*first, g_ptr_array_steal_index (r->items, 0));
  g_mutex_unlock (&r->lock);

  fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
          GST_MSECOND * 100, GST_SEEK_TYPE_SET, GST_MSECOND * 400));
  stage_test_expect_eos (p, 30 * GST_SECOND, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_START_TEST (test_seek)
{
  Recorder plain, staged;
  GPtrArray *p1, *s1, *a, *b, *c, *d;

  recorder_init (&plain);
  recorder_init (&staged);
  seek_and_record (FLIP_OPS, &plain, &p1);
  seek_and_record ("stagebin ops=\"" FLIP_OPS "\" replicas=3 "
      "work-packet-size=2 queue-size=2", &staged, &s1);

  {
    Recorder tmp = {.items = p1 }, tmp2 = {.items = s1 };
    a = buffers_and_eos (&tmp);
    b = buffers_and_eos (&tmp2);
  }
  fail_unless_equals_int (a->len, 31);  /* 30 frames of [1 s, 2 s) + EOS */
  fail_unless (g_str_has_prefix (g_ptr_array_index (b, 0),
          "B 0:00:01.000000000"));
  assert_same_items (a, b, "after the first seek");
  c = buffers_and_eos (&plain);
  d = buffers_and_eos (&staged);
  fail_unless_equals_int (c->len, 10);  /* 9 frames of [0.1 s, 0.4 s) + EOS */
  assert_same_items (c, d, "after the seek that follows EOS");

  g_ptr_array_unref (a);
  g_ptr_array_unref (b);
  g_ptr_array_unref (c);
  g_ptr_array_unref (d);
  g_ptr_array_unref (p1);
  g_ptr_array_unref (s1);
  recorder_clear (&plain);
  recorder_clear (&staged);
}

GST_END_TEST;

/* Flushing seeks while every replica is busy, at random moments: after
 * the last one, exactly its frames come out, as from the plain chain. */
static GPtrArray *
seek_storm (const gchar * middle, guint32 seed)
{
  Recorder r;
  GstElement *p;
  GRand *rand = g_rand_new_with_seed (seed);
  GPtrArray *out;
  guint i, start = 0;

  recorder_init (&r);
  p = make_pipeline ("videotestsrc pattern=ball ! " CAPS_64x48, middle, &r);
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (i = 0; i < 15; i++) {
    g_usleep (g_rand_int_range (rand, 0, 20000));
    start = g_rand_int_range (rand, 0, 100);
    fail_unless (gst_element_seek (p, 1.0, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
            gst_util_uint64_scale (start, GST_SECOND, 30), GST_SEEK_TYPE_SET,
            gst_util_uint64_scale (start + 10, GST_SECOND, 30)));
  }
  wait_eos (&r);
  g_mutex_lock (&r.lock);
  out = buffers_and_eos (&r);
  /* keep the strings: the recorder goes away */
  g_ptr_array_set_free_func (out, g_free);
  for (i = 0; i < out->len; i++)
    out->pdata[i] = g_strdup (out->pdata[i]);
  g_mutex_unlock (&r.lock);
  fail_unless (out->len > 0 && g_str_has_prefix (out->pdata[0], "B "));
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  recorder_clear (&r);
  g_rand_free (rand);
  return out;
}

GST_START_TEST (test_seek_storm)
{
  GPtrArray *a = seek_storm (FLIP_OPS, 7);
  GPtrArray *b = seek_storm ("stagebin ops=\"" FLIP_OPS "\" replicas=3 "
      "work-packet-size=2 queue-size=2", 7);

  assert_same_items (a, b, "after a storm of seeks");
  g_ptr_array_unref (a);
  g_ptr_array_unref (b);
}

GST_END_TEST;


/* replicas, work-packet-size and queue-size beyond their limits on a
 * gst-launch line stop the pipeline at start, naming the property
 * (GObject's range check only warned and kept the default). */
GST_START_TEST (test_out_of_range_refused)
{
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagebin ops=identity "
      "replicas=1000 ! fakesink", "replicas", "1000", "allowed are 0 to 256");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagebin ops=identity "
      "work-packet-size=5000 ! fakesink", "work-packet-size", "5000",
      "allowed are 0 to 4096");
  expect_prop_refused ("videotestsrc num-buffers=3 ! stagebin ops=identity "
      "queue-size=2000 ! fakesink", "queue-size", "2000",
      "allowed are 0 to 1024");
}

GST_END_TEST;

static Suite *
stagebin_suite (void)
{
  Suite *s = suite_create ("stagebin");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_plan_groups);
  tcase_add_test (tc, test_out_of_range_refused);
  tcase_add_test (tc, test_plan_flexible);
  tcase_add_test (tc, test_plan_estimate);
  tcase_add_test (tc, test_identical_output);
  tcase_add_test (tc, test_identical_output_other_ops);
  tcase_add_test (tc, test_events_in_order);
  tcase_add_test (tc, test_empty_stream_events);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_renegotiation_with_allocation);
  tcase_add_test (tc, test_seek);
  tcase_add_test (tc, test_seek_storm);
  return s;
}

STAGEBIN_CHECK_MAIN (stagebin);
