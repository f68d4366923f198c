/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stagebintest: see stagebintest.h. The op types stay private to this
 * file: the suites reach them by their factory names. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/base/gstbasetransform.h>

#include "stagebintest.h"
#include "stagetest.h"

/* ---------------------------------------------------------------------- */
/* A test op: passes, drops every third frame, or fails at one frame.      */

typedef struct
{
  GstBaseTransform parent;
  gint mode;                    /* 0 pass, 1 drop frames n % 3 == 1, 2 fail,
                                 * 3 return not-negotiated without a message */
  guint64 fail_at;
  /* sleep this long on the frames of packets p % slow_n == 0 (packets of
   * slow_k frames), or on every frame when slow_n is 0 */
  guint sleep_us;
  guint slow_n, slow_k;
} TestOp;

typedef struct
{
  GstBaseTransformClass parent_class;
} TestOpClass;

static GType test_op_get_type (void);
G_DEFINE_TYPE (TestOp, test_op, GST_TYPE_BASE_TRANSFORM);

static GType test_cuda_op_get_type (void);
typedef TestOp TestCudaOp;
typedef TestOpClass TestCudaOpClass;
G_DEFINE_TYPE (TestCudaOp, test_cuda_op, test_op_get_type ());

static GstStaticPadTemplate any_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate any_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static guint64
frame_number (GstBuffer * buf)
{
  /* By timestamp, not by arrival: each replica sees only some frames. */
  if (!GST_BUFFER_DURATION_IS_VALID (buf) || GST_BUFFER_DURATION (buf) == 0)
    return 0;
  /* rounded: at 30/1 durations alternate 33333333 and 33333334 ns */
  return gst_util_uint64_scale_round (GST_BUFFER_PTS (buf), 1,
      GST_BUFFER_DURATION (buf));
}

static GstFlowReturn
test_op_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  TestOp *self = (TestOp *) trans;
  guint64 n = frame_number (buf);

  /* slow first: a replica that fails late lets the others run ahead */
  if (self->sleep_us > 0 && (self->slow_n == 0 ||
          (n / MAX (self->slow_k, 1)) % self->slow_n == 0))
    g_usleep (self->sleep_us);
  if (self->mode == 1 && n % 3 == 1)
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  if (self->mode == 2 && n == self->fail_at) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("test failure at frame %"
            G_GUINT64_FORMAT, n), (NULL));
    return GST_FLOW_ERROR;
  }
  if (self->mode == 3 && n == self->fail_at)
    return GST_FLOW_NOT_NEGOTIATED;
  return GST_FLOW_OK;
}

static void
test_op_set_property (GObject * object, guint id, const GValue * v,
    GParamSpec * pspec)
{
  TestOp *self = (TestOp *) object;

  if (id == 1)
    self->mode = g_value_get_int (v);
  else if (id == 2)
    self->fail_at = g_value_get_uint64 (v);
  else if (id == 3)
    self->sleep_us = g_value_get_uint (v);
  else if (id == 4)
    self->slow_n = g_value_get_uint (v);
  else if (id == 5)
    self->slow_k = g_value_get_uint (v);
}

static void
test_op_get_property (GObject * object, guint id, GValue * v,
    GParamSpec * pspec)
{
  TestOp *self = (TestOp *) object;

  if (id == 1)
    g_value_set_int (v, self->mode);
  else if (id == 2)
    g_value_set_uint64 (v, self->fail_at);
  else if (id == 3)
    g_value_set_uint (v, self->sleep_us);
  else if (id == 4)
    g_value_set_uint (v, self->slow_n);
  else if (id == 5)
    g_value_set_uint (v, self->slow_k);
}

static void
test_op_class_init (TestOpClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);

  oc->set_property = test_op_set_property;
  oc->get_property = test_op_get_property;
  g_object_class_install_property (oc, 1, g_param_spec_int ("mode", "mode",
          "0 pass, 1 drop, 2 fail, 3 not-negotiated", 0, 3, 0,
          G_PARAM_READWRITE));
  g_object_class_install_property (oc, 2, g_param_spec_uint64 ("fail-at",
          "fail-at", "frame to fail at", 0, G_MAXUINT64, 0,
          G_PARAM_READWRITE));
  g_object_class_install_property (oc, 3, g_param_spec_uint ("sleep-us",
          "sleep-us", "sleep per frame", 0, G_MAXUINT, 0, G_PARAM_READWRITE));
  g_object_class_install_property (oc, 4, g_param_spec_uint ("slow-n",
          "slow-n", "only packets p % slow-n == 0 sleep", 0, G_MAXUINT, 0,
          G_PARAM_READWRITE));
  g_object_class_install_property (oc, 5, g_param_spec_uint ("slow-k",
          "slow-k", "packet size for slow-n", 0, G_MAXUINT, 0,
          G_PARAM_READWRITE));
  GST_BASE_TRANSFORM_CLASS (klass)->transform_ip = test_op_transform_ip;
  gst_element_class_add_static_pad_template (ec, &any_sink);
  gst_element_class_add_static_pad_template (ec, &any_src);
  gst_element_class_set_static_metadata (ec, "Test op", "Filter",
      "stagebin test op", "tests");
}

static void
test_op_init (TestOp * self)
{
}

static void
test_cuda_op_class_init (TestCudaOpClass * klass)
{
  gst_element_class_add_static_metadata (GST_ELEMENT_CLASS (klass),
      "stage-device", "cuda");
}

static void
test_cuda_op_init (TestCudaOp * self)
{
}

/* An op that declares it depends on the frames it saw before. */
static GType test_stateful_op_get_type (void);
typedef TestOp TestStatefulOp;
typedef TestOpClass TestStatefulOpClass;
G_DEFINE_TYPE (TestStatefulOp, test_stateful_op, test_op_get_type ());

static void
test_stateful_op_class_init (TestStatefulOpClass * klass)
{
  gst_element_class_add_static_metadata (GST_ELEMENT_CLASS (klass),
      "stage-stateful", "true");
}

static void
test_stateful_op_init (TestStatefulOp * self)
{
}

/* An op whose pads take CUDA memory, and stand-ins for the nvcodec
 * upload/download elements, to check where stagebin inserts transfers on
 * machines without CUDA. */
static GType test_cuda_mem_op_get_type (void);
typedef TestOp TestCudaMemOp;
typedef TestOpClass TestCudaMemOpClass;
G_DEFINE_TYPE (TestCudaMemOp, test_cuda_mem_op, test_op_get_type ());

static GstStaticPadTemplate cuda_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw(memory:CUDAMemory)"));
static GstStaticPadTemplate cuda_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw(memory:CUDAMemory)"));

static void
test_cuda_mem_op_class_init (TestCudaMemOpClass * klass)
{
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass),
      &cuda_sink);
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass),
      &cuda_src);
}

static void
test_cuda_mem_op_init (TestCudaMemOp * self)
{
}

static GType test_upload_get_type (void);
typedef TestOp TestUpload;
typedef TestOpClass TestUploadClass;
G_DEFINE_TYPE (TestUpload, test_upload, test_op_get_type ());
static GstStaticPadTemplate both_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw(memory:CUDAMemory); video/x-raw"));
static GstStaticPadTemplate both_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw(memory:CUDAMemory); video/x-raw"));

/* Like the real ones: either memory on either side. */
static GstCaps *
test_transfer_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *out = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *st = gst_caps_get_structure (caps, i);

    out = gst_caps_merge_structure_full (out, gst_structure_copy (st),
        gst_caps_features_new ("memory:CUDAMemory", NULL));
    out = gst_caps_merge_structure_full (out, gst_structure_copy (st),
        gst_caps_features_new_empty ());
  }
  if (filter) {
    GstCaps *tmp = gst_caps_intersect (filter, out);

    gst_caps_unref (out);
    out = tmp;
  }
  return out;
}

static void
test_upload_class_init (TestUploadClass * klass)
{
  GST_BASE_TRANSFORM_CLASS (klass)->transform_caps =
      test_transfer_transform_caps;
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass),
      &both_sink);
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass),
      &both_src);
}

static void
test_upload_init (TestUpload * self)
{
}

static GType test_download_get_type (void);
typedef TestOp TestDownload;
typedef TestOpClass TestDownloadClass;
G_DEFINE_TYPE (TestDownload, test_download, test_op_get_type ());
static void
test_download_class_init (TestDownloadClass * klass)
{
  GST_BASE_TRANSFORM_CLASS (klass)->transform_caps =
      test_transfer_transform_caps;
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass),
      &both_sink);
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass),
      &both_src);
}

static void
test_download_init (TestDownload * self)
{
}

/* TRUE: the warning is expected, it does not fail the test. */
gboolean
count_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer data)
{
  (*(gint *) data)++;
  return TRUE;
}

/* Either memory on either pad, like stageresize built with CUDA: a
 * type of its own, so the fake transfers keep their factory names. */
static GType test_flex_get_type (void);
typedef TestOp TestFlex;
typedef TestOpClass TestFlexClass;
G_DEFINE_TYPE (TestFlex, test_flex, test_upload_get_type ());

static void
test_flex_class_init (TestFlexClass * klass)
{
}

static void
test_flex_init (TestFlex * self)
{
}

gboolean have_fake_cuda_transfers;

void
register_test_ops (void)
{
  GstElementFactory *f;

  gst_element_register (NULL, "stagetestop", GST_RANK_NONE,
      test_op_get_type ());
  gst_element_register (NULL, "stagetestcuda", GST_RANK_NONE,
      test_cuda_op_get_type ());
  gst_element_register (NULL, "stagetestcudamem", GST_RANK_NONE,
      test_cuda_mem_op_get_type ());
  gst_element_register (NULL, "stageteststateful", GST_RANK_NONE,
      test_stateful_op_get_type ());
  gst_element_register (NULL, "stagetestflex", GST_RANK_NONE,
      test_flex_get_type ());
  f = gst_element_factory_find ("cudaupload");
  if (f) {
    gst_object_unref (f);
  } else {
    have_fake_cuda_transfers = TRUE;
    gst_element_register (NULL, "cudaupload", GST_RANK_NONE,
        test_upload_get_type ());
    gst_element_register (NULL, "cudadownload", GST_RANK_NONE,
        test_download_get_type ());
  }
}

/* ---------------------------------------------------------------------- */
/* Recording what reaches a sink, in order                                 */

void
recorder_init (Recorder * r)
{
  g_mutex_init (&r->lock);
  r->items = g_ptr_array_new_with_free_func (g_free);
  r->eos = 0;
}

void
recorder_clear (Recorder * r)
{
  g_ptr_array_unref (r->items);
  g_mutex_clear (&r->lock);
}

gchar *
describe_buffer (GstBuffer * buf)
{
  GstMapInfo map;
  gchar *md5, *s;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  md5 = g_compute_checksum_for_data (G_CHECKSUM_MD5, map.data, map.size);
  s = g_strdup_printf ("B %" GST_TIME_FORMAT " %" GST_TIME_FORMAT " %"
      G_GSIZE_FORMAT " %s", GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
      GST_TIME_ARGS (GST_BUFFER_DURATION (buf)), map.size, md5);
  gst_buffer_unmap (buf, &map);
  g_free (md5);
  return s;
}

static gchar *
describe_event (GstEvent * ev)
{
  const GstStructure *s = gst_event_get_structure (ev);

  switch (GST_EVENT_TYPE (ev)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      GstStructure *st;
      gint w = 0, h = 0;

      gst_event_parse_caps (ev, &caps);
      st = gst_caps_get_structure (caps, 0);
      gst_structure_get_int (st, "width", &w);
      gst_structure_get_int (st, "height", &h);
      return g_strdup_printf ("C %dx%d %s", w, h,
          gst_structure_get_string (st, "format"));
    }
    case GST_EVENT_SEGMENT:{
      const GstSegment *seg;

      gst_event_parse_segment (ev, &seg);
      return g_strdup_printf ("S %" GST_TIME_FORMAT,
          GST_TIME_ARGS (seg->start));
    }
    case GST_EVENT_EOS:
      return g_strdup ("EOS");
    case GST_EVENT_TAG:{
      GstTagList *tags;
      gchar *title = NULL, *d;

      gst_event_parse_tag (ev, &tags);
      gst_tag_list_get_string (tags, GST_TAG_TITLE, &title);
      d = g_strdup_printf ("T %s", title ? title : "?");
      g_free (title);
      return d;
    }
    case GST_EVENT_CUSTOM_DOWNSTREAM:{
      guint n = 0;

      if (s && gst_structure_has_name (s, "test-mark")) {
        gst_structure_get_uint (s, "n", &n);
        return g_strdup_printf ("M %u", n);
      }
      return g_strdup_printf ("X %s", s ? gst_structure_get_name (s) : "?");
    }
    default:
      return NULL;
  }
}

static GstPadProbeReturn
record_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Recorder *r = user_data;
  gchar *item = NULL;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    item = describe_buffer (GST_PAD_PROBE_INFO_BUFFER (info));
  } else if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_EVENT_BOTH) {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

    if (GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_STOP) {
      /* Only what follows a flushing seek counts. */
      g_mutex_lock (&r->lock);
      g_ptr_array_set_size (r->items, 0);
      r->eos = 0;
      g_mutex_unlock (&r->lock);
      return GST_PAD_PROBE_OK;
    }
    item = describe_event (ev);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS) {
      g_mutex_lock (&r->lock);
      r->eos++;
      g_mutex_unlock (&r->lock);
    }
  }
  if (item) {
    g_mutex_lock (&r->lock);
    g_ptr_array_add (r->items, item);
    g_mutex_unlock (&r->lock);
  }
  return GST_PAD_PROBE_OK;
}

void
recorder_attach (Recorder * r, GstPad * pad)
{
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      record_probe, r, NULL);
}

/* Only buffers and EOS: sticky events may legitimately differ in how many
 * copies the plain chain sends (e.g. a repeated segment). */
GPtrArray *
buffers_and_eos (Recorder * r)
{
  GPtrArray *out = g_ptr_array_new ();
  guint i;

  for (i = 0; i < r->items->len; i++) {
    const gchar *it = g_ptr_array_index (r->items, i);

    if (it[0] == 'B' || g_str_equal (it, "EOS"))
      g_ptr_array_add (out, (gpointer) it);
  }
  return out;
}

void
assert_same_items (GPtrArray * expected, GPtrArray * got, const gchar * what)
{
  guint i;

  for (i = 0; i < MIN (expected->len, got->len); i++)
    fail_unless (g_str_equal (g_ptr_array_index (expected, i),
            g_ptr_array_index (got, i)), "%s: item %u differs: expected '%s', "
        "got '%s'", what, i, (gchar *) g_ptr_array_index (expected, i),
        (gchar *) g_ptr_array_index (got, i));
  fail_unless_equals_int_hint (got->len, expected->len, what);
}

GstElement *
make_pipeline (const gchar * src, const gchar * middle, Recorder * r)
{
  GError *err = NULL;
  gchar *desc = g_strdup_printf ("%s ! %s ! fakesink name=out sync=false",
      src, middle);
  GstElement *p = gst_parse_launch (desc, &err);
  GstElement *sink;
  GstPad *pad;

  fail_unless (p != NULL && err == NULL, "cannot parse %s: %s", desc,
      err ? err->message : "");
  g_free (desc);
  sink = gst_bin_get_by_name (GST_BIN (p), "out");
  pad = gst_element_get_static_pad (sink, "sink");
  recorder_attach (r, pad);
  gst_object_unref (pad);
  gst_object_unref (sink);
  return p;
}

void
run_and_record (const gchar * src, const gchar * middle, Recorder * r)
{
  GstElement *p = make_pipeline (src, middle, r);

  stage_test_play_to_eos (p, 30 * GST_SECOND, middle);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

void
check_same_as_plain (const gchar * src, const gchar * ops, guint n, guint k,
    guint q)
{
  Recorder plain, staged;
  GPtrArray *a, *b;
  gchar *middle, *what;

  recorder_init (&plain);
  recorder_init (&staged);
  run_and_record (src, ops, &plain);
  middle = g_strdup_printf ("stagebin ops=\"%s\" replicas=%u "
      "work-packet-size=%u queue-size=%u", ops, n, k, q);
  run_and_record (src, middle, &staged);

  a = buffers_and_eos (&plain);
  b = buffers_and_eos (&staged);
  what = g_strdup_printf ("%s | %s", src, middle);
  assert_same_items (a, b, what);
  fail_unless_equals_int (staged.eos, 1);
  g_free (what);
  g_free (middle);
  g_ptr_array_unref (a);
  g_ptr_array_unref (b);
  recorder_clear (&plain);
  recorder_clear (&staged);
}

gboolean
op_is_deterministic (const gchar * src, const gchar * ops)
{
  Recorder a, b;
  gboolean same = TRUE;
  guint i;

  recorder_init (&a);
  recorder_init (&b);
  run_and_record (src, ops, &a);
  run_and_record (src, ops, &b);
  same = a.items->len == b.items->len;
  for (i = 0; same && i < a.items->len; i++)
    same = g_str_equal (a.items->pdata[i], b.items->pdata[i]);
  recorder_clear (&a);
  recorder_clear (&b);
  return same;
}

gchar *
ball_src (guint frames)
{
  return g_strdup_printf ("videotestsrc pattern=ball num-buffers=%u ! "
      CAPS_64x48, frames);
}

GstHarness *
stagebin_harness (const gchar * ops, guint n, guint k, Recorder * r)
{
  GstElement *bin = gst_element_factory_make ("stagebin", NULL);
  GstHarness *h;

  fail_unless (bin != NULL);
  g_object_set (bin, "ops", ops, "replicas", n, "work-packet-size", k,
      "queue-size", 1, NULL);
  h = gst_harness_new_with_element (bin, "sink", "src");
  gst_object_unref (bin);
  recorder_attach (r, h->sinkpad);
  gst_harness_play (h);
  return h;
}

GstBuffer *
frame (guint n, gsize size)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);

  gst_buffer_memset (buf, 0, (guint8) (n * 7), size);
  GST_BUFFER_PTS (buf) = n * GST_MSECOND * 10;
  GST_BUFFER_DURATION (buf) = GST_MSECOND * 10;
  return buf;
}

void
wait_eos (Recorder * r)
{
  gint64 end = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;

  for (;;) {
    guint eos;

    g_mutex_lock (&r->lock);
    eos = r->eos;
    g_mutex_unlock (&r->lock);
    if (eos > 0 || g_get_monotonic_time () > end)
      break;
    g_usleep (2000);
  }
  g_usleep (20000);             /* a duplicate EOS would show up by now */
}

void
check_bad_ops (const gchar * ops, const gchar * fragment)
{
  GstElement *p = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("videotestsrc", NULL);
  GstElement *bin = gst_element_factory_make ("stagebin", NULL);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  GError *err = NULL;
  gchar *quoted = g_strdup_printf ("\"%s\"", ops);

  g_object_set (bin, "ops", ops, "replicas", 2, NULL);
  gst_bin_add_many (GST_BIN (p), src, bin, sink, NULL);
  fail_unless (gst_element_link_many (src, bin, sink, NULL));
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for ops \"%s\"", ops);
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (bin));
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_utf8_validate (err->message, -1, NULL),
      "error for ops \"%s\" is not valid UTF-8", ops);
  if (!g_utf8_validate (ops, -1, NULL) || strlen (ops) > 400) {
    /* quoted escaped or cut */
    g_clear_error (&err);
    gst_message_unref (msg);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (p);
    g_free (quoted);
    return;
  }
  fail_unless (strstr (err->message, quoted) != NULL,
      "error does not quote the ops: %s", err->message);
  fail_unless (strstr (err->message, fragment) != NULL,
      "error for \"%s\" does not say '%s': %s", ops, fragment, err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (quoted);
}
