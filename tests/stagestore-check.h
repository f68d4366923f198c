/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers of the stored-stream suites (stagestore, stagestore_errors):
 * running pipelines and collecting their buffers, temp dirs, clips made
 * with an encoder, child writers. */
#ifndef __STAGESTORE_CHECK_H__
#define __STAGESTORE_CHECK_H__

#include <gst/check/gstcheck.h>
#include <gst/base/gstbasesink.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stagestore.h"
#include "tmpdir.h"
#include "lib/stagetest.h"

#define W 160
#define H 120

typedef struct
{
  guint64 offset;
  GstClockTime pts;
  gchar *md5;
  GBytes *data;
} Frame;

static G_GNUC_UNUSED void
frame_clear (Frame * f)
{
  g_free (f->md5);
  if (f->data)
    g_bytes_unref (f->data);
}

static G_GNUC_UNUSED void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, GArray * out)
{
  GstMapInfo map;
  Frame f;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  f.offset = GST_BUFFER_OFFSET (buf);
  /* stream time, as the store keeps it (an MP4 edit list, say, moves
   * buffer times but not stream times) */
  f.pts = gst_segment_to_stream_time (&GST_BASE_SINK (sink)->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
  f.md5 = g_compute_checksum_for_data (G_CHECKSUM_MD5, map.data, map.size);
  f.data = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (buf, &map);
  g_array_append_val (out, f);
}

/* Runs "@desc ! fakesink" to EOS. Returns the buffers, or NULL with the
 * error text in *error (may be NULL). */
static G_GNUC_UNUSED GArray *
run (const gchar * desc, gchar ** error)
{
  gchar *full = g_strdup_printf ("%s ! fakesink name=out sync=false "
      "signal-handoffs=true", desc);
  GError *perr = NULL;
  GstElement *pipe = gst_parse_launch (full, &perr);
  GstElement *sink;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Frame));

  g_array_set_clear_func (out, (GDestroyNotify) frame_clear);
  fail_unless (pipe != NULL, "%s: %s", full, perr ? perr->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), out);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (!stage_test_wait_end (pipe, 120 * GST_SECOND, full, error))
    g_clear_pointer (&out, g_array_unref);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (full);
  return out;
}

/* Runs a pipeline that ends in a sink to EOS; FALSE and *error on error. */
static G_GNUC_UNUSED gboolean
run_sink (const gchar * desc, gchar ** error)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  gboolean ok;

  fail_unless (pipe != NULL, "%s", desc);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  ok = stage_test_wait_end (pipe, 120 * GST_SECOND, desc, error);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return ok;
}

/* Each test's directory lives under one made by the parent process before
 * the tests fork (an unchecked fixture), which removes it afterwards: a
 * failing test leaves nothing behind either. */
static gchar *tmp_base;

static G_GNUC_UNUSED gchar *
make_tmp (void)
{
  gchar *d = g_build_filename (tmp_base ? tmp_base : g_get_tmp_dir (),
      "testXXXXXX", NULL);

  fail_unless (g_mkdtemp (d) != NULL);
  return d;
}

/* An MP4 clip of @n frames; @enc is the encoder description. */
static G_GNUC_UNUSED gchar *
make_clip_codec (const gchar * dir, const gchar * name, guint n,
    const gchar * enc, const gchar * codec)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
      "motion=sweep ! video/x-raw,format=I420,width=%d,height=%d,"
      "framerate=30/1 ! %s ! %sparse ! mp4mux ! filesink location=%s", n,
      W, H, enc, codec, path);

  run_sink (desc, NULL);
  g_free (desc);
  return path;
}

static G_GNUC_UNUSED gchar *
make_clip (const gchar * dir, const gchar * name, guint n, const gchar * enc)
{
  return make_clip_codec (dir, name, n, enc, "h264");
}

static G_GNUC_UNUSED void
ingest_codec (const gchar * store, const gchar * stream, const gchar * clip,
    const gchar * codec)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! %sparse "
      "! stagesink store=%s stream=%s io-packet-size=30", clip, codec, store,
      stream);

  run_sink (desc, NULL);
  g_free (desc);
}

static G_GNUC_UNUSED void
ingest (const gchar * store, const gchar * stream, const gchar * clip)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse "
      "! stagesink store=%s stream=%s io-packet-size=30", clip, store, stream);

  run_sink (desc, NULL);
  g_free (desc);
}

static G_GNUC_UNUSED GArray *
full_decode_codec (const gchar * clip, const gchar * codec)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! %sparse "
      "! avdec_%s", clip, codec, codec);
  GArray *a = run (desc, NULL);

  g_free (desc);
  return a;
}

/* stagesrc with @sel (properties) against the full decode @ref and the
 * index list @want (sorted, unique, < ref->len). */
static G_GNUC_UNUSED gint
count_data_dirs (const gchar * store)
{
  gchar *p = g_build_filename (store, "data", NULL);
  GDir *d = g_dir_open (p, 0, NULL);
  gint n = 0;

  while (d && g_dir_read_name (d))
    n++;
  if (d)
    g_dir_close (d);
  g_free (p);
  return n;
}

static G_GNUC_UNUSED GPid
spawn_writer (const gchar * store, const gchar * stream, guint frames,
    gboolean live)
{
  gchar *argv[16];
  gchar *nb = g_strdup_printf ("num-buffers=%u", frames);
  gchar *caps = g_strdup_printf ("video/x-raw,width=%d,height=%d,"
      "framerate=%s", W, H, live ? "50/1" : "30/1");
  gchar *st = g_strdup_printf ("store=%s", store);
  gchar *sn = g_strdup_printf ("stream=%s", stream);
  GPid pid;
  GError *err = NULL;
  gint i = 0;

  argv[i++] = (gchar *) "gst-launch-1.0";
  argv[i++] = (gchar *) "-q";
  argv[i++] = (gchar *) "videotestsrc";
  argv[i++] = nb;
  argv[i++] = (gchar *) (live ? "is-live=true" : "is-live=false");
  argv[i++] = (gchar *) "!";
  argv[i++] = caps;
  argv[i++] = (gchar *) "!";
  argv[i++] = (gchar *) "stagesink";
  argv[i++] = st;
  argv[i++] = sn;
  argv[i++] = (gchar *) "io-packet-size=10";
  argv[i] = NULL;
  fail_unless (g_spawn_async (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &err), "%s",
      err ? err->message : "");
  g_free (nb);
  g_free (caps);
  g_free (st);
  g_free (sn);
  return pid;
}

static G_GNUC_UNUSED gint
wait_child (GPid pid)
{
  int status = 0;

  fail_unless (waitpid (pid, &status, 0) == pid);
  g_spawn_close_pid (pid);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static G_GNUC_UNUSED guint
count_frames (const gchar * store, const gchar * stream)
{
  gchar *desc = g_strdup_printf ("stagesrc store=%s stream=%s", store,
      stream);
  GArray *got = run (desc, NULL);
  guint n = got->len;

  g_array_unref (got);
  g_free (desc);
  return n;
}

/* kill -9 in the middle of a write: the catalog is as before, the older
 * stream reads, no half stream is listed, the leftover data is an orphan
 * that verify reports and gc removes. */
static G_GNUC_UNUSED gchar *
run_error (const gchar * desc)
{
  gchar *err = NULL;
  GArray *got = run (desc, &err);

  if (got)
    g_array_unref (got);
  fail_unless (err != NULL, "no error from %s", desc);
  return err;
}

static G_GNUC_UNUSED void
assert_contains (const gchar * text, const gchar * part)
{
  fail_unless (strstr (text, part) != NULL, "'%s' not in '%s'", part, text);
}

/* Runs @desc, which must fail with an error whose text holds @part. */
static G_GNUC_UNUSED void
expect_error (const gchar * desc, const gchar * part)
{
  gchar *err = run_error (desc);

  assert_contains (err, part);
  g_free (err);
}

/* Every bad input: a clear error, no crash, no hang. */
static G_GNUC_UNUSED void
tmp_base_setup (void)
{
  tmp_base = g_dir_make_tmp ("stagestore-XXXXXX", NULL);
}

static G_GNUC_UNUSED void
tmp_base_teardown (void)
{
  if (tmp_base)
    rm_rf (tmp_base);
  g_clear_pointer (&tmp_base, g_free);
}

#endif /* __STAGESTORE_CHECK_H__ */
