/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stagebintest: what the stagebin suites share: test ops (passing,
 * dropping or failing frames; stateful; CPU, CUDA or both memories) under
 * factory names of their own, recording what reaches a sink in order, and
 * comparing a stagebin's output with the plain chain's. */
#ifndef __STAGEBINTEST_H__
#define __STAGEBINTEST_H__

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

G_BEGIN_DECLS

#define CAPS_64x48 "video/x-raw,format=I420,width=64,height=48,framerate=30/1"
/* GRAY8 in, RGB out: the caps and the sizes change */
#define TO_RGB "videoconvert ! video/x-raw,format=RGB ! identity"
#define FLIP_OPS "videoflip method=clockwise ! videobalance saturation=0.5"

/* Registers stagetestop (property mode: 0 pass, 1 drop frames n % 3 == 1,
 * 2 fail at fail-at, 3 not-negotiated without a message; sleep-us, slow-n,
 * slow-k), stagetestcuda, stagetestcudamem, stageteststateful and
 * stagetestflex, and fake cudaupload / cudadownload where nvcodec's are
 * missing (have_fake_cuda_transfers is then TRUE). */
void register_test_ops (void);
extern gboolean have_fake_cuda_transfers;

/* A g_log handler for gst_check_add_log_filter: counts into the gint at
 * @data; TRUE: the warning is expected, it does not fail the test. */
gboolean count_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer data);

typedef struct
{
  GMutex lock;
  GPtrArray *items;             /* gchar*, "B pts dur size md5", "EOS", ... */
  guint eos;
} Recorder;

void recorder_init (Recorder * r);
void recorder_clear (Recorder * r);
/* Records buffers and downstream events on @pad; a flush starts over. */
void recorder_attach (Recorder * r, GstPad * pad);
/* "B pts dur size md5" */
gchar *describe_buffer (GstBuffer * buf);
/* Only buffers and EOS (items still owned by @r): sticky events may
 * legitimately differ in how many copies the plain chain sends. */
GPtrArray *buffers_and_eos (Recorder * r);
/* Waits up to 20 s for EOS at the recorder, and a little more for a
 * duplicate one to show. */
void wait_eos (Recorder * r);

#define fail_unless_equals_int_hint(a, b, hint) \
  fail_unless ((a) == (b), "%s: %d != %d", hint, (int) (a), (int) (b))

void assert_same_items (GPtrArray * expected, GPtrArray * got,
    const gchar * what);

/* "<src> ! <middle> ! fakesink name=out sync=false", recorded at the
 * sink, in NULL state. */
GstElement *make_pipeline (const gchar * src, const gchar * middle,
    Recorder * r);
/* make_pipeline, played to EOS (30 s at most), stopped and freed. */
void run_and_record (const gchar * src, const gchar * middle, Recorder * r);
/* Buffers and EOS through "stagebin ops=@ops replicas=@n
 * work-packet-size=@k queue-size=@q" are those of @ops alone. */
void check_same_as_plain (const gchar * src, const gchar * ops, guint n,
    guint k, guint q);
gboolean op_is_deterministic (const gchar * src, const gchar * ops);
/* videotestsrc pattern=ball, @frames frames of CAPS_64x48; g_free it. */
gchar *ball_src (guint frames);

/* A playing harness around a stagebin, its output recorded in @r. */
GstHarness *stagebin_harness (const gchar * ops, guint n, guint k,
    Recorder * r);
/* Frame @n: @size bytes of n * 7, 10 ms at n * 10 ms. */
GstBuffer *frame (guint n, gsize size);

/* A stagebin with @ops refuses PAUSED with an error that quotes @ops and
 * says @fragment. */
void check_bad_ops (const gchar * ops, const gchar * fragment);

/* main() of a stagebin suite: the leaks tracer on (tracers are chosen at
 * init; it costs little here), the test ops registered. */
#define STAGEBIN_CHECK_MAIN(name) \
int \
main (int argc, char **argv) \
{ \
  g_setenv ("GST_TRACERS", "leaks", TRUE); \
  gst_check_init (&argc, &argv); \
  register_test_ops (); \
  return gst_check_run_suite (name##_suite (), #name, __FILE__); \
}

G_END_DECLS

#endif /* __STAGEBINTEST_H__ */
