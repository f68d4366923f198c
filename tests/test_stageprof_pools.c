/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof memory=true against ground truth: buffer pools.
 *
 * `stagepoolsrc` (tests/truth-pool.h) takes its buffers from a pool of a
 * known size and measures its own waits in gst_buffer_pool_acquire_buffer;
 * downstream, `stagetruth mode=sleep` (tests/truth-element.h) holds each
 * buffer a known time behind a queue, or the application holds each
 * appsink sample. Each case asserts, on the summary of the same run:
 *  - the pools table has the pool's configuration (size, min, max), its
 *    user and proposer, every buffer handed out, and at most as many out
 *    as the pool has;
 *  - a pool smaller than what the pipeline holds runs dry: the user's wait
 *    is its own measurement within 2 % (less the time its thread waited
 *    for a CPU meanwhile, which the source reads from the kernel: the
 *    wake-up after a buffer came back, which stageprof ends the wait
 *    before), and the verdict says pool-bound,
 *    naming the pool and where its buffers were;
 *  - the same pipeline with a pool larger than that never runs dry: no
 *    wait, no pool verdict (the queue sets the pace there);
 *  - a camera stand-in (videotestsrc) that takes the small pool its
 *    application offers: pool-bound, its frames with the application;
 *  - a real decoder (avdec_h264, whose pool has no limit) into an
 *    application that holds its frames: buffers out as the test counts
 *    them, and no pool verdict;
 *  - each element's allocations are the sizes, counts and lifetimes a
 *    pad probe counts itself, and the process's peak RSS is /proc's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "stageprof-check.h"
#include "truth-element.h"
#include "truth-pool.h"
#include "spsummary.h"
#include "lib/stagetest.h"

/* A buffer held downstream (µs): long beside the source's own costs
 * around each acquire. */
#define HOLD_US 10000
#define N_BUFFERS 60

static GstElement *
run_keep (const gchar * name, const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  fail_unless (p != NULL, "cannot parse '%s': %s", desc,
      err ? err->message : "?");
  gst_object_set_name (GST_OBJECT (p), name);
  stage_test_play_to_eos (p, 60 * GST_SECOND, name);
  gst_element_set_state (p, GST_STATE_NULL);
  return p;
}

static guint64
prop_u64 (GstElement * p, const gchar * name, const gchar * what)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), name);
  guint64 v = 0;

  fail_unless (e != NULL, "no element %s", name);
  g_object_get (e, what, &v, NULL);
  gst_object_unref (e);
  return v;
}

/* The one pool of `pipeline` that `user` used. */
static const GstStructure *
pool_of (const GstStructure * s, const gchar * pipeline, const gchar * user)
{
  const GValue *arr = gst_structure_get_value (s, "pools");
  const GstStructure *found = NULL;

  fail_unless (arr != NULL, "memory=true but no pools table");
  for (guint i = 0; i < gst_value_array_get_size (arr); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    if (g_strcmp0 (gst_structure_get_string (r, "pipeline"), pipeline) == 0
        && g_strcmp0 (gst_structure_get_string (r, "user"), user) == 0) {
      fail_unless (found == NULL, "two pools of %s in %s", user, pipeline);
      found = r;
    }
  }
  if (!found) {
    gchar *text = sp_summary_to_text (s, NULL);
    fail ("no pool of %s in %s\n%s", user, pipeline, text);
  }
  return found;
}

static const gchar *
pipeline_verdict (const GstStructure * s, const gchar * pipeline)
{
  const GValue *arr = gst_structure_get_value (s, "pipelines");

  for (guint i = 0; i < gst_value_array_get_size (arr); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    if (!g_strcmp0 (gst_structure_get_string (r, "pipeline"), pipeline))
      return gst_structure_get_string (r, "verdict");
  }
  fail ("no pipeline row for %s", pipeline);
  return NULL;
}

/* "3 in q, 1 in hold": the buffers per holder add up to `total`, and each
 * of `names` is among them. */
static void
assert_held (const gchar * held, guint total, const gchar * const *names)
{
  gchar **parts = g_strsplit (held, ", ", -1);
  gdouble sum = 0;

  for (guint i = 0; parts[i]; i++)
    sum += g_ascii_strtod (parts[i], NULL);
  fail_unless (fabs (sum - total) < 0.2, "held '%s' adds up to %.1f, not %u",
      held, sum, total);
  for (guint i = 0; names[i]; i++) {
    gboolean any = FALSE;
    for (guint j = 0; parts[j]; j++)
      any |= g_str_has_suffix (parts[j], names[i]);
    fail_unless (any, "held '%s' does not name %s", held, names[i]);
  }
  g_strfreev (parts);
}

/* The source's own wait in acquire, less its time waiting for a CPU
 * there. */
static guint64
own_wait (GstElement * p, const gchar * name)
{
  return prop_u64 (p, name, "wait-ns") - prop_u64 (p, name,
      "wait-runnable-ns");
}

static void
assert_wait (gdouble stageprof_s, guint64 own_ns, const GstStructure * s)
{
  gdouble own = own_ns / 1e9;

  if (fabs (stageprof_s - own) > 0.02 * own) {
    gchar *text = sp_summary_to_text (s, NULL);
    fail ("pool wait %.4f s, the source measured %.4f s\n%s", stageprof_s,
        own, text);
  }
}

static GstElement *
run_pool (const gchar * name, guint pool_size)
{
  gchar *desc = g_strdup_printf ("stagepoolsrc name=src pool-size=%u "
      "buffer-size=8192 num-buffers=%u ! queue name=q max-size-buffers=4 "
      "max-size-bytes=0 max-size-time=0 ! stagetruth name=hold mode=sleep "
      "us=%u ! fakesink name=sink sync=false enable-last-sample=false",
      pool_size, N_BUFFERS,
      HOLD_US);
  GstElement *p = run_keep (name, desc);

  g_free (desc);
  return p;
}

/* Pool of 4, behind it a queue of 4 and a holder: all 4 buffers out (3 in
 * the queue, 1 held) before the queue fills, so the source waits on its
 * pool, for the holder's time a buffer. */
GST_START_TEST (test_pool_bound)
{
  GstElement *p = run_pool ("p4", 4);
  GstStructure *s = get_summary ();
  const GstStructure *r = pool_of (s, "p4", "src");
  const gchar *v = pipeline_verdict (s, "p4");
  const gchar *const holders[] = { "in q", "in hold", NULL };
  guint64 own = own_wait (p, "src");

  fail_unless_equals_uint64 (uget (r, "size"), 8192);
  fail_unless_equals_uint64 (uget (r, "min_buffers"), 4);
  fail_unless_equals_uint64 (uget (r, "max_buffers"), 4);
  fail_unless_equals_uint64 (uget (r, "handed_out"),
      prop_u64 (p, "src", "acquired"));
  fail_unless_equals_uint64 (uget (r, "handed_out"), N_BUFFERS);
  fail_unless_equals_uint64 (uget (r, "max_in_use"), 4);
  fail_unless_equals_uint64 (uget (r, "in_use"), 0);
  fail_unless_equals_string (gst_structure_get_string (r, "proposer"), "src");
  fail_unless_equals_string (gst_structure_get_string (r, "allocator"),
      GST_ALLOCATOR_SYSMEM);
  fail_unless (uget (r, "empty") >= N_BUFFERS / 2, "empty %" G_GUINT64_FORMAT,
      uget (r, "empty"));
  /* The holder's sleeps, less the first 4 buffers' (the pool was full) */
  fail_unless (own > (N_BUFFERS - 5) * HOLD_US * 900ULL);
  assert_wait (dget (r, "wait_s"), own, s);
  assert_held (gst_structure_get_string (r, "held_by"), 4, holders);
  fail_unless (strstr (v, "pool-bound: src waited") != NULL, "verdict: %s",
      v);
  fail_unless (strstr (v, gst_structure_get_string (r, "name")) != NULL,
      "verdict does not name the pool: %s", v);
  fail_unless (strstr (v, "in q") && strstr (v, "in hold"), "verdict: %s", v);
  gst_structure_free (s);
  gst_object_unref (p);
}

GST_END_TEST;

/* The same pipeline with a pool of 16: at most 4 in the queue, 1 held and
 * 1 waiting to enter the queue are out, the pool never runs dry and the
 * source waits on the queue: no pool wait, no pool verdict. */
GST_START_TEST (test_pool_roomy)
{
  GstElement *p = run_pool ("p16", 16);
  GstStructure *s = get_summary ();
  const GstStructure *r = pool_of (s, "p16", "src");
  const gchar *v = pipeline_verdict (s, "p16");

  fail_unless_equals_uint64 (uget (r, "max_buffers"), 16);
  fail_unless_equals_uint64 (uget (r, "handed_out"), N_BUFFERS);
  fail_unless (uget (r, "max_in_use") <= 6, "max in use %" G_GUINT64_FORMAT,
      uget (r, "max_in_use"));
  fail_unless_equals_uint64 (uget (r, "empty"), 0);
  fail_unless_equals_float (dget (r, "wait_s"), 0.0);
  /* and the source's own measurement agrees: it never waited long */
  fail_unless (prop_u64 (p, "src", "wait-ns") < 5 * GST_MSECOND);
  fail_unless (strstr (v, "pool-bound") == NULL, "verdict: %s", v);
  gst_structure_free (s);
  gst_object_unref (p);
}

GST_END_TEST;

/* The application holds each sample HOLD_US before it lets it go: with a
 * pool of 4, all 4 are the application's when the source waits. */
static guint64
app_holds (GstElement * p, const gchar * sink_name)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), sink_name);
  GstSample *sample;
  guint64 n = 0;

  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND))) {
    g_usleep (HOLD_US);
    gst_sample_unref (sample);
    n++;
  }
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)));
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  return n;
}

GST_START_TEST (test_application_holds)
{
  gchar *desc = g_strdup_printf ("stagepoolsrc name=src pool-size=4 "
      "num-buffers=%u ! appsink name=app sync=false", N_BUFFERS);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstStructure *s;
  const GstStructure *r;
  const gchar *v;
  const gchar *const holders[] = { "in the application's app", NULL };

  gst_object_set_name (GST_OBJECT (p), "papp");
  fail_unless_equals_uint64 (app_holds (p, "app"), N_BUFFERS);
  s = get_summary ();
  r = pool_of (s, "papp", "src");
  v = pipeline_verdict (s, "papp");
  fail_unless_equals_uint64 (uget (r, "max_in_use"), 4);
  assert_wait (dget (r, "wait_s"), own_wait (p, "src"), s);
  assert_held (gst_structure_get_string (r, "held_by"), 4, holders);
  fail_unless (strstr (v, "pool-bound: src") != NULL, "verdict: %s", v);
  gst_structure_free (s);
  gst_object_unref (p);
  g_free (desc);
}

GST_END_TEST;

/* A camera stand-in: videotestsrc behind a passthrough videoconvert, and
 * the application, at its appsink, offers a video pool of POOL_MAX
 * buffers in the ALLOCATION answer (as an application that bounds a
 * camera's memory does); then it holds each frame HOLD_US. The source
 * takes the offered pool, all POOL_MAX frames end up with the
 * application, and the source waits for them. */
#define POOL_MAX 4

static GstPadProbeReturn
offer_pool (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);
  GstCaps *caps;
  GstVideoInfo vi;
  GstBufferPool *pool;
  GstStructure *config;

  if (GST_QUERY_TYPE (q) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_parse_allocation (q, &caps, NULL);
  fail_unless (caps && gst_video_info_from_caps (&vi, caps));
  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, vi.size, POOL_MAX,
      POOL_MAX);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  gst_query_add_allocation_pool (q, pool, vi.size, POOL_MAX, POOL_MAX);
  gst_object_unref (pool);
  /* appsink's own answer adds nothing to it */
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_camera_stand_in)
{
  GstElement *p = gst_parse_launch ("videotestsrc name=cam num-buffers=40 ! "
      "video/x-raw,format=I420,width=320,height=240,framerate=1000/1 ! "
      "videoconvert ! appsink name=app sync=false", NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "app");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  const gchar *const holders[] = { "in the application's app", NULL };
  GstStructure *s;
  const GstStructure *r;
  const gchar *v;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, offer_pool,
      NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_set_name (GST_OBJECT (p), "pcam");
  fail_unless_equals_uint64 (app_holds (p, "app"), 40);
  s = get_summary ();
  r = pool_of (s, "pcam", "cam");
  v = pipeline_verdict (s, "pcam");
  fail_unless_equals_string (gst_structure_get_string (r, "proposer"), "app");
  fail_unless_equals_uint64 (uget (r, "max_buffers"), POOL_MAX);
  fail_unless_equals_uint64 (uget (r, "handed_out"), 40);
  fail_unless_equals_uint64 (uget (r, "max_in_use"), POOL_MAX);
  fail_unless (uget (r, "empty") > 0);
  /* the application's hold, less the first POOL_MAX frames' */
  fail_unless (dget (r, "wait_s") > (40 - POOL_MAX - 2) * HOLD_US * 0.9e-6,
      "wait %.3f s", dget (r, "wait_s"));
  assert_held (gst_structure_get_string (r, "held_by"), POOL_MAX, holders);
  fail_unless (strstr (v, "pool-bound: cam waited") != NULL, "verdict: %s",
      v);
  gst_structure_free (s);
  gst_object_unref (p);
}

GST_END_TEST;

/* A real decoder feeding an application that holds each frame HOLD_US:
 * gst-libav's avdec_h264 decodes into a pool of its own without a limit
 * (max 0: it never runs dry; it keeps no downstream maximum), so the
 * application paces the pipeline and there must be no pool verdict. The
 * test counts the decoder's buffers out itself: pushed (a pad probe) less
 * those whose sample the application let go. */
typedef struct
{
  gint pushed, released, max_out;
} Out;

static GstPadProbeReturn
count_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Out *o = data;
  gint out = g_atomic_int_add (&o->pushed, 1) + 1 -
      g_atomic_int_get (&o->released);

  if (out > g_atomic_int_get (&o->max_out))
    g_atomic_int_set (&o->max_out, out);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_decoder_application)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=60 ! "
      "video/x-raw,format=I420,width=320,height=240 ! x264enc "
      "tune=zerolatency key-int-max=30 ! h264parse ! avdec_h264 name=dec ! "
      "appsink name=app sync=false", NULL);
  GstElement *dec = gst_bin_get_by_name (GST_BIN (p), "dec");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "app");
  GstPad *pad = gst_element_get_static_pad (dec, "src");
  Out o = { 0 };
  GstSample *sample;
  GstStructure *s;
  const GstStructure *r;
  const gchar *v;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_out, &o, NULL);
  gst_object_unref (pad);
  gst_object_set_name (GST_OBJECT (p), "pdec");
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              10 * GST_SECOND))) {
    g_usleep (HOLD_US);
    gst_sample_unref (sample);
    g_atomic_int_inc (&o.released);
  }
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)));
  gst_element_set_state (p, GST_STATE_NULL);
  s = get_summary ();
  r = pool_of (s, "pdec", "dec");
  v = pipeline_verdict (s, "pdec");
  fail_unless_equals_int (o.pushed, 60);
  fail_unless_equals_uint64 (uget (r, "handed_out"), 60);
  fail_unless_equals_uint64 (uget (r, "max_buffers"), 0);
  fail_unless_equals_uint64 (uget (r, "empty"), 0);
  fail_unless_equals_float (dget (r, "wait_s"), 0.0);
  /* the released counter moves just after the release itself */
  fail_unless (ABS ((gint) uget (r, "max_in_use") - o.max_out) <= 1,
      "max in use %" G_GUINT64_FORMAT ", the test counted %d",
      uget (r, "max_in_use"), o.max_out);
  fail_unless (o.max_out > 10, "the application held only %d", o.max_out);
  fail_unless (strstr (v, "pool-bound") == NULL, "verdict: %s", v);
  gst_structure_free (s);
  gst_object_unref (dec);
  gst_object_unref (sink);
  gst_object_unref (p);
}

GST_END_TEST;

/* Memory by element. The test's own count: a pad probe on each source
 * sums the sizes of the buffers it pushes and, with weak references,
 * how many of them are alive at once. */
typedef struct
{
  GHashTable *seen;             /* its buffers' memories (the pool's) */
  guint64 buffers, bytes, mem_bytes;
  guint alive, max_alive;
} Alloc;

static void
alloc_gone (gpointer data, GstMiniObject * obj)
{
  Alloc *a = data;

  a->alive--;
}

static GstPadProbeReturn
count_alloc (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Alloc *a = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  a->buffers++;
  a->bytes += gst_buffer_get_size (buf);
  /* what was allocated: each memory's whole size, alignment included */
  for (guint i = 0; i < gst_buffer_n_memory (buf); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    if (g_hash_table_add (a->seen, mem))
      a->mem_bytes += mem->maxsize;
  }
  if (!buf->pool) {
    a->alive++;
    a->max_alive = MAX (a->max_alive, a->alive);
    gst_mini_object_weak_ref (GST_MINI_OBJECT (buf), alloc_gone, a);
  }
  return GST_PAD_PROBE_OK;
}

static void
watch (GstElement * p, const gchar * name, Alloc * a)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), name);
  GstPad *pad = gst_element_get_static_pad (e, "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_alloc, a, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

static const GstStructure *
memory_of (const GstStructure * s, const gchar * pipeline, const gchar * name)
{
  GPtrArray *r = rows (s, "memory", name, pipeline);
  const GstStructure *res;

  fail_unless (r->len == 1, "%u memory rows for %s", r->len, name);
  res = g_ptr_array_index (r, 0);
  g_ptr_array_free (r, TRUE);
  return res;
}

static guint64
own_hwm (void)
{
  gchar *text = NULL;
  const gchar *hwm;
  guint64 kb;

  fail_unless (g_file_get_contents ("/proc/self/status", &text, NULL, NULL));
  hwm = strstr (text, "VmHWM:");
  fail_unless (hwm != NULL);
  kb = g_ascii_strtoull (hwm + 6, NULL, 10);
  g_free (text);
  return kb * 1024;
}

GST_START_TEST (test_memory_by_element)
{
  GstElement *p = gst_parse_launch ("fakesrc name=fs num-buffers=40 "
      "sizetype=fixed sizemax=3000 filltype=zero ! queue ! "
      "fakesink enable-last-sample=false "
      "stagepoolsrc name=src pool-size=4 buffer-size=8192 num-buffers=30 ! "
      "fakesink enable-last-sample=false", NULL);
  Alloc fs = { g_hash_table_new (NULL, NULL) },
      src = { g_hash_table_new (NULL, NULL) };
  GstStructure *s;
  const GstStructure *m, *pr;
  guint64 rss_peak = 0, hwm;

  gst_object_set_name (GST_OBJECT (p), "pmem");
  watch (p, "fs", &fs);
  watch (p, "src", &src);
  stage_test_play_to_eos (p, 60 * GST_SECOND, "pmem");
  gst_element_set_state (p, GST_STATE_NULL);
  s = get_summary ();
  hwm = own_hwm ();
  fail_unless_equals_uint64 (fs.buffers, 40);
  /* fakesrc allocates every buffer: all its memory, none from a pool */
  m = memory_of (s, "pmem", "fs");
  fail_unless_equals_uint64 (uget (m, "memories"), fs.buffers);
  fail_unless_equals_uint64 (uget (m, "allocated_bytes"), fs.bytes);
  fail_unless_equals_uint64 (uget (m, "pooled_buffers"), 0);
  fail_unless_equals_uint64 (uget (m, "live_bytes"), 0);
  fail_unless_equals_uint64 (uget (m, "peak_bytes"),
      (guint64) fs.max_alive * 3000);
  /* the pool source hands out its 4 buffers over and over */
  m = memory_of (s, "pmem", "src");
  fail_unless_equals_uint64 (uget (m, "pooled_buffers"),
      prop_u64 (p, "src", "acquired"));
  fail_unless_equals_uint64 (uget (m, "pooled_bytes"), src.bytes);
  fail_unless_equals_uint64 (uget (m, "memories"), 4);
  fail_unless_equals_uint64 (g_hash_table_size (src.seen), 4);
  fail_unless_equals_uint64 (uget (m, "allocated_bytes"), src.mem_bytes);
  fail_unless (src.mem_bytes >= 4 * 8192);
  /* the process's peak RSS, as the test reads it just after */
  pr = row (s, "pipelines", NULL, "pmem");
  fail_unless (gst_structure_get_uint64 (pr, "rss_peak_bytes", &rss_peak));
  fail_unless (rss_peak <= hwm && rss_peak >= hwm * 9 / 10,
      "rss peak %" G_GUINT64_FORMAT ", /proc says %" G_GUINT64_FORMAT,
      rss_peak, hwm);
  gst_structure_free (s);
  gst_object_unref (p);
  g_hash_table_destroy (fs.seen);
  g_hash_table_destroy (src.seen);
}

GST_END_TEST;

/* The reset action forgets the figures: no pool handed out anything
 * since. */
GST_START_TEST (test_reset)
{
  GstElement *p = run_pool ("preset", 4);
  GstTracer *t = find_prof ();
  GstStructure *s;
  const GValue *arr;

  g_signal_emit_by_name (t, "reset");
  gst_object_unref (t);
  s = get_summary ();
  arr = gst_structure_get_value (s, "pools");
  fail_unless (arr != NULL);
  for (guint i = 0; i < gst_value_array_get_size (arr); i++)
    fail_if (!g_strcmp0 (gst_structure_get_string (gst_value_get_structure
                (gst_value_array_get_value (arr, i)), "pipeline"), "preset"),
        "a pool row after reset");
  gst_structure_free (s);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
stageprof_pools_suite (void)
{
  Suite *s = suite_create ("stageprof_pools");
  TCase *tc = tcase_create ("pools");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pool_bound);
  tcase_add_test (tc, test_pool_roomy);
  tcase_add_test (tc, test_application_holds);
  tcase_add_test (tc, test_memory_by_element);
  tcase_add_test (tc, test_camera_stand_in);
  tcase_add_test (tc, test_reset);
  stage_test_add_unless (tc, test_decoder_application,
      stage_test_missing_elements ("x264enc", "h264parse", "avdec_h264",
          NULL));
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;

  g_setenv ("GST_TRACERS", "stageprof(summary=none,memory=true)", TRUE);
  gst_check_init (&argc, &argv);
  truth_element_register ();
  truth_pool_register ();
  s = stageprof_pools_suite ();
  return gst_check_run_suite (s, "stageprof_pools", __FILE__);
}
