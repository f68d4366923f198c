/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stage-store: inspect and maintain a store of named streams (the
 * directory stagesink writes and stagesink reads).
 *
 *   stage-store ls DIR
 *   stage-store info DIR NAME
 *   stage-store rm DIR NAME...
 *   stage-store ingest DIR NAME FILE
 *   stage-store verify DIR [NAME...]
 *   stage-store gc DIR
 *   stage-store merge DEST SRC...
 *   stage-store join DIR [NAME...]
 *
 * Data on stdout, messages and progress on stderr; exit 0 when all went
 * well, 1 when some work failed, 2 on bad usage. The catalog and chunk
 * logic is the one the elements use (store/stagestore.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gst/gst.h>

#include "stagestore.h"

#define EXIT_WORK_FAILED 1
#define EXIT_USAGE 2

static gint io_packet_size = 128;
static gchar *mode = NULL;
static gboolean quiet = FALSE;

static GOptionEntry entries[] = {
  {"io-packet-size", 'n', 0, G_OPTION_ARG_INT, &io_packet_size,
      "ingest: frames per chunk (default 128)", "N"},
  {"mode", 'm', 0, G_OPTION_ARG_STRING, &mode,
      "ingest, merge: error (default), overwrite or ignore when a name "
      "exists", "MODE"},
  {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
      "ingest: no progress line", NULL},
  {NULL}
};

/* Prints @err on stderr and clears it, for the next call to use. */
static void
report (GError ** err)
{
  g_printerr ("stage-store: %s\n", (*err)->message);
  g_clear_error (err);
}

/* @write: to change it (rm, gc); otherwise read only (ls, info, verify:
 * which also work on a store on a network filesystem). */
static StageStore *
open_store (const gchar * dir, gboolean write)
{
  GError *err = NULL;
  StageStore *st = write ? stage_store_open (dir, FALSE, &err) :
      stage_store_open_read (dir, &err);

  if (st == NULL)
    report (&err);
  return st;
}

static gchar *
human_size (gint64 bytes)
{
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

static const gchar *
kind_name (const StageStreamInfo * info)
{
  return info->kind == STAGE_STORE_KIND_VIDEO ? "video" : "bytes";
}

static gint
cmd_ls (const gchar * dir)
{
  StageStore *st = open_store (dir, FALSE);
  GPtrArray *list;
  GError *err = NULL;
  guint i;

  if (st == NULL)
    return EXIT_WORK_FAILED;
  list = stage_store_list (st, &err);
  if (list == NULL) {
    report (&err);
    stage_store_close (st);
    return EXIT_WORK_FAILED;
  }
  g_print ("%-24s %-6s %-5s %8s %10s %10s %9s  %s\n", "NAME", "KIND", "CODEC",
      "FRAMES", "SIZE", "RESOLUTION", "FPS", "COMMITTED");
  for (i = 0; i < list->len; i++) {
    StageStreamInfo *info = list->pdata[i];
    gchar *size = human_size (info->bytes);
    gchar *res = info->width > 0 ? g_strdup_printf ("%dx%d", info->width,
        info->height) : g_strdup ("-");
    gchar *fps = info->fps_n > 0 ? g_strdup_printf ("%.3g",
        (gdouble) info->fps_n / info->fps_d) : g_strdup ("-");

    g_print ("%-24s %-6s %-5s %8" G_GINT64_FORMAT " %10s %10s %9s  %s\n",
        info->name, kind_name (info), info->codec ? info->codec : "-",
        info->frames, size, res, fps, info->committed);
    g_free (size);
    g_free (res);
    g_free (fps);
  }
  g_ptr_array_unref (list);
  stage_store_close (st);
  return 0;
}

/* GOP structure from the index: keyframe intervals, reordering (B-frames),
 * and leading pictures (open GOPs: displayed before their keyframe but
 * decoded after it). */
static void
print_gops (const StageFrame * frames, gsize n)
{
  gsize i, last = 0, count = 0, min = G_MAXSIZE, max = 0, leading = 0;
  gsize before = 0, lead = 0;
  gint64 key_index = -1;
  gboolean reorder = FALSE, have = FALSE;

  for (i = 0; i < n; i++) {
    if (frames[i].index < 0) {
      lead++;                   /* decode-only: no frame */
      continue;
    }
    if ((gsize) frames[i].index != i - lead)
      reorder = TRUE;
    if (frames[i].keyframe) {
      if (have) {
        min = MIN (min, i - lead - last);
        max = MAX (max, i - lead - last);
        count++;
      }
      have = TRUE;
      last = i - lead;
      key_index = frames[i].index;
    } else if (key_index >= 0 && frames[i].index < key_index) {
      leading++;
      before += count == 0;
    } else if (key_index < 0) {
      before++;
    }
  }
  if (count > 0)
    g_print ("keyframe interval: min %" G_GSIZE_FORMAT ", max %"
        G_GSIZE_FORMAT " frames\n", min, max);
  else
    g_print ("keyframe interval: -\n");
  g_print ("B-frames (reordered): %s\n", reorder ? "yes" : "no");
  g_print ("open GOPs: %s", leading ? "yes" : "no");
  if (leading > before)
    g_print (" (%" G_GSIZE_FORMAT " leading frames decode from the previous "
        "keyframe)", leading - before);
  g_print ("\n");
  /* A writer now drops these unless the first keyframe is an IDR (a cut
   * in the middle of a GOP): an older one stored them, undecodable, and
   * every frame number is off by their count. The bytes tell which. */
  if (before)
    g_print ("frames presented before the first keyframe: %" G_GSIZE_FORMAT
        " (decodable only after an IDR; 'stage-store verify' checks)\n",
        before);
  /* a cut recording's reference leading pictures (docs/store.md) */
  if (lead)
    g_print ("decode-only packets: %" G_GSIZE_FORMAT " (pictures presented "
        "before frame 0 that later ones reference: decoded, never output)\n",
        lead);
}

static gint
cmd_info (const gchar * dir, const gchar * name)
{
  StageStore *st = open_store (dir, FALSE);
  StageStreamInfo *info;
  StageFrame *frames;
  GError *err = NULL;
  gsize n;
  gchar *size;
  gint64 first = G_MAXINT64, last = G_MININT64;
  gsize i;

  if (st == NULL)
    return EXIT_WORK_FAILED;
  info = stage_store_lookup (st, name, &err);
  frames = info ? stage_store_load_frames (st, info, &n, &err) : NULL;
  if (frames == NULL) {
    report (&err);
    stage_stream_info_free (info);
    stage_store_close (st);
    return EXIT_WORK_FAILED;
  }
  size = human_size (info->bytes);
  for (i = 0; i < n; i++) {
    if (frames[i].pts == STAGE_STORE_NONE)
      continue;
    first = MIN (first, frames[i].pts);
    last = MAX (last, frames[i].pts + MAX (frames[i].duration, 0));
  }
  g_print ("name: %s\nkind: %s\n", info->name, kind_name (info));
  if (info->codec)
    g_print ("codec: %s\n", info->codec);
  g_print ("frames: %" G_GINT64_FORMAT "\n", info->frames);
  if (info->width > 0)
    g_print ("size: %dx%d\n", info->width, info->height);
  if (info->fps_n > 0)
    g_print ("framerate: %d/%d\n", info->fps_n, info->fps_d);
  if (first <= last)
    g_print ("duration: %.3f s\n", (last - first) / 1e9);
  g_print ("keyframes: %" G_GINT64_FORMAT "\n", info->keyframes);
  if (info->kind == STAGE_STORE_KIND_VIDEO)
    print_gops (frames, n);
  g_print ("chunks: %" G_GINT64_FORMAT " (io-packet-size %" G_GINT64_FORMAT
      ")\n", info->chunks, info->io_packet_size);
  g_print ("bytes: %" G_GINT64_FORMAT " (%s)\n", info->bytes, size);
  g_print ("data: %s\ncreated: %s\ncommitted: %s\ncaps: %s\n", info->data,
      info->created, info->committed, info->caps);
  g_free (size);
  g_free (frames);
  stage_stream_info_free (info);
  stage_store_close (st);
  return 0;
}

/* A store on a full disk does not open for writing: the streams' data
 * goes first, which makes the room to open it and drop their rows. */
static StageStore *
open_store_to_remove (const gchar * dir, gchar ** names)
{
  GError *err = NULL;
  StageStore *st = stage_store_open (dir, FALSE, &err);
  gchar **n;

  if (st || !g_error_matches (err, STAGE_STORE_ERROR,
          STAGE_STORE_ERROR_NO_SPACE)) {
    if (st == NULL)
      report (&err);
    return st;
  }
  g_printerr ("stage-store: %s; removing the streams' data first to make "
      "room\n", err->message);
  g_clear_error (&err);
  for (n = names; *n; n++) {
    if (!stage_store_free_space (dir, *n, &err))
      report (&err);
  }
  st = stage_store_open (dir, FALSE, &err);
  if (st == NULL)
    report (&err);
  return st;
}

static gint
cmd_rm (const gchar * dir, gchar ** names)
{
  StageStore *st = open_store_to_remove (dir, names);
  gint ret = 0;

  if (st == NULL)
    return EXIT_WORK_FAILED;
  for (; *names; names++) {
    GError *err = NULL;

    if (stage_store_remove (st, *names, &err)) {
      g_printerr ("removed %s\n", *names);
    } else {
      report (&err);
      ret = EXIT_WORK_FAILED;
    }
  }
  stage_store_close (st);
  return ret;
}

static gint
cmd_verify (const gchar * dir, gchar ** names)
{
  StageStore *st = open_store (dir, FALSE);
  GPtrArray *list = NULL, *orphans;
  GError *err = NULL;
  gint ret = 0;
  guint i;

  if (st == NULL)
    return EXIT_WORK_FAILED;
  if (names == NULL || *names == NULL) {
    list = stage_store_list (st, &err);
    if (list == NULL) {
      report (&err);
      stage_store_close (st);
      return EXIT_WORK_FAILED;
    }
  } else {
    list = g_ptr_array_new_with_free_func ((GDestroyNotify)
        stage_stream_info_free);
    for (; *names; names++) {
      StageStreamInfo *info = stage_store_lookup (st, *names, &err);

      if (info) {
        g_ptr_array_add (list, info);
      } else {
        g_print ("FAIL %s: %s\n", *names, err->message);
        g_clear_error (&err);
        ret = EXIT_WORK_FAILED;
      }
    }
  }
  for (i = 0; i < list->len; i++) {
    StageStreamInfo *info = list->pdata[i];

    if (stage_store_verify_stream (st, info, &err)) {
      g_print ("ok   %s (%" G_GINT64_FORMAT " frames, %" G_GINT64_FORMAT
          " chunks)\n", info->name, info->frames, info->chunks);
    } else {
      g_print ("FAIL %s: %s\n", info->name, err->message);
      g_clear_error (&err);
      ret = EXIT_WORK_FAILED;
    }
  }
  orphans = stage_store_orphans (st, NULL);
  for (i = 0; orphans && i < orphans->len; i++)
    g_printerr ("note: %s belongs to no stream (an interrupted write); "
        "'stage-store gc %s' removes it\n", (gchar *) orphans->pdata[i], dir);
  if (orphans)
    g_ptr_array_unref (orphans);
  g_ptr_array_unref (list);
  stage_store_close (st);
  return ret;
}


/* --mode: error (the default), overwrite or ignore; FALSE for anything
 * else. */
static gboolean
parse_mode (StageStoreMode * out)
{
  *out = STAGE_STORE_MODE_ERROR;
  if (mode == NULL || g_str_equal (mode, "error"))
    return TRUE;
  if (g_str_equal (mode, "overwrite"))
    *out = STAGE_STORE_MODE_OVERWRITE;
  else if (g_str_equal (mode, "ignore"))
    *out = STAGE_STORE_MODE_IGNORE;
  else
    return FALSE;
  return TRUE;
}

static StageStoreMode
store_mode (void)
{
  StageStoreMode m;

  parse_mode (&m);              /* checked in main () */
  return m;
}

/* Joins the split streams @names of @st (every one when NULL): each
 * complete set of parts becomes its stream; an incomplete one is reported
 * and, when @missing_ok, left for later (a merge that brings the rest). */
static gint
join_streams (StageStore * st, gchar ** names, gboolean missing_ok)
{
  GPtrArray *all = NULL;
  GError *err = NULL;
  gint ret = 0;

  if (names == NULL || *names == NULL) {
    all = stage_store_split_streams (st, &err);
    if (all == NULL) {
      report (&err);
      return EXIT_WORK_FAILED;
    }
    g_ptr_array_add (all, NULL);
    names = (gchar **) all->pdata;
  }
  for (; *names; names++) {
    gboolean joined;

    if (stage_store_join (st, *names, store_mode (), &joined, &err)) {
      if (joined)
        g_printerr ("joined %s\n", *names);
      else
        g_printerr ("kept %s (mode ignore): its parts were not joined\n",
            *names);
      continue;
    }
    if (missing_ok && g_error_matches (err, STAGE_STORE_ERROR,
            STAGE_STORE_ERROR_NOT_FOUND)) {
      g_printerr ("stage-store: not joined yet: %s\n", err->message);
      g_clear_error (&err);
      continue;
    }
    report (&err);
    ret = EXIT_WORK_FAILED;
  }
  if (all)
    g_ptr_array_unref (all);
  return ret;
}

static gint
cmd_join (const gchar * dir, gchar ** names)
{
  StageStore *st = open_store (dir, TRUE);
  gint ret;

  if (st == NULL)
    return EXIT_WORK_FAILED;
  ret = join_streams (st, names, FALSE);
  stage_store_close (st);
  return ret;
}

/* Every stream of the SRC stores into DEST (made if missing), as one
 * change; see stage_store_merge(). */
/* What the command line itself gets wrong (a store given twice, DEST
 * among the sources) is bad usage, said before anything is opened or
 * made; NULL when it is right. */
static gchar *
merge_usage_error (const gchar * dest, gchar ** srcs)
{
  guint i, j;

  for (i = 0; srcs[i]; i++) {
    if (stage_store_same_dir (dest, srcs[i]))
      return g_strdup_printf ("cannot merge store '%s' into itself",
          srcs[i]);
    for (j = 0; j < i; j++)
      if (stage_store_same_dir (srcs[j], srcs[i]))
        return g_strdup_printf ("store '%s' is given twice ('%s' too)",
            srcs[i], srcs[j]);
  }
  return NULL;
}

static gint
cmd_merge (const gchar * dest, gchar ** srcs)
{
  guint n = g_strv_length (srcs), i, opened = 0;
  StageStore **st = g_new0 (StageStore *, n), *d = NULL;
  GPtrArray *merged = NULL;
  GError *err = NULL;
  gint ret = EXIT_WORK_FAILED;
  gboolean made;

  for (i = 0; i < n; i++) {
    if ((st[i] = open_store (srcs[i], FALSE)) == NULL)
      goto out;
    opened++;
  }
  made = !g_file_test (dest, G_FILE_TEST_EXISTS);
  d = stage_store_open (dest, TRUE, &err);
  if (d == NULL) {
    report (&err);
    goto out;
  }
  if (!stage_store_merge (d, st, n, store_mode (), &merged, &err)) {
    g_printerr ("stage-store: nothing merged, '%s' is as it was: %s\n",
        dest, err->message);
    g_clear_error (&err);
    if (made) {
      /* It did not exist: it does not now, unless another writer
       * committed into it meanwhile. */
      if (!stage_store_close_remove_if_empty (d, &err)) {
        g_printerr ("stage-store: %s\n", err->message);
        g_clear_error (&err);
      }
      d = NULL;
    }
    goto out;
  }
  for (i = 0; i < merged->len; i++)
    g_printerr ("merged %s\n", (gchar *) merged->pdata[i]);
  g_printerr ("stage-store: %u %s from %u %s into '%s'\n", merged->len,
      merged->len == 1 ? "stream" : "streams", n, n == 1 ? "store" :
      "stores", dest);
  /* Split streams whose parts are all there now: joined, each in a
   * transaction of its own (the merge is committed whatever happens
   * here); the others are named and kept for a later merge. */
  ret = join_streams (d, NULL, TRUE);
out:
  if (merged)
    g_ptr_array_unref (merged);
  for (i = 0; i < opened; i++)
    stage_store_close (st[i]);
  stage_store_close (d);
  g_free (st);
  return ret;
}

static gint
cmd_gc (const gchar * dir)
{
  StageStore *st = open_store (dir, TRUE);
  GPtrArray *orphans;
  GError *err = NULL;
  gint ret = 0;
  guint i;

  if (st == NULL)
    return EXIT_WORK_FAILED;
  orphans = stage_store_orphans (st, &err);
  if (orphans == NULL) {
    report (&err);
    stage_store_close (st);
    return EXIT_WORK_FAILED;
  }
  for (i = 0; i < orphans->len; i++) {
    gboolean removed;

    if (stage_store_remove_orphan (st, orphans->pdata[i], &removed, &err)) {
      if (removed)
        g_print ("removed %s\n", (gchar *) orphans->pdata[i]);
      else
        g_printerr ("kept %s: a stream was committed into it meanwhile\n",
            (gchar *) orphans->pdata[i]);
    } else {
      report (&err);
      ret = EXIT_WORK_FAILED;
    }
  }
  g_ptr_array_unref (orphans);
  stage_store_close (st);
  return ret;
}

/* ---- ingest: filesrc ! parsebin ! stagesink (first H.264/H.265 video) */

typedef struct
{
  GstElement *pipeline, *sink;
  const gchar *dir, *name;
  gboolean linked;
  GString *found;
} Ingest;

/* The stagesink, made only for a video pad: a file without one opens no
 * store, so it leaves nothing behind. */
static gboolean
link_sink (Ingest * in, GstPad * pad)
{
  GstPad *peer;

  in->sink = gst_element_factory_make ("stagesink", NULL);
  if (in->sink == NULL)
    return FALSE;
  g_object_set (in->sink, "store", in->dir, "stream", in->name,
      "io-packet-size", (guint) io_packet_size, NULL);
  if (mode)
    gst_util_set_object_arg (G_OBJECT (in->sink), "mode", mode);
  gst_bin_add (GST_BIN (in->pipeline), gst_object_ref (in->sink));
  peer = gst_element_get_static_pad (in->sink, "sink");
  in->linked = gst_pad_link (pad, peer) == GST_PAD_LINK_OK;
  gst_object_unref (peer);
  if (!gst_element_sync_state_with_parent (in->sink)) {
    /* it posted why (a store it cannot write); locked, so that the bin's
     * way down to NULL does not try to start it again and fail there */
    gst_element_set_locked_state (in->sink, TRUE);
    gst_element_set_state (in->sink, GST_STATE_NULL);
  }
  return in->linked;
}

static void
on_pad_added (GstElement * parsebin, GstPad * pad, Ingest * in)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  const gchar *media;
  GstElement *fake;
  GstPad *peer;

  if (caps == NULL)
    caps = gst_pad_query_caps (pad, NULL);
  media = gst_structure_get_name (gst_caps_get_structure (caps, 0));
  g_string_append_printf (in->found, "%s%s", in->found->len ? ", " : "",
      media);
  if (in->sink || !(g_str_equal (media, "video/x-h264")
          || g_str_equal (media, "video/x-h265")) || !link_sink (in, pad)) {
    fake = gst_element_factory_make ("fakesink", NULL);
    g_object_set (fake, "sync", FALSE, "async", FALSE, NULL);
    gst_bin_add (GST_BIN (in->pipeline), fake);
    gst_element_sync_state_with_parent (fake);
    peer = gst_element_get_static_pad (fake, "sink");
    gst_pad_link (pad, peer);
    gst_object_unref (peer);
  }
  gst_caps_unref (caps);
}

/* The error for a file with no H.264 or H.265 video: what it has. */
static void
report_no_video (Ingest * in, const gchar * file, gboolean tty)
{
  g_printerr ("%sstage-store: no H.264 or H.265 video stream in %s: found "
      "%s. stage-store ingest stores compressed video as it is; for other "
      "streams use a gst-launch-1.0 pipeline ending in stagesink\n",
      tty ? "\n" : "", file, in->found->len ? in->found->str : "nothing");
}

/* Whether @file can be ingested: an existing regular file. */
static gboolean
check_input (const gchar * file)
{
  if (g_file_test (file, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  if (g_file_test (file, G_FILE_TEST_IS_DIR))
    g_printerr ("stage-store: %s is a directory: ingest takes a media "
        "file\n", file);
  else if (g_file_test (file, G_FILE_TEST_EXISTS))
    g_printerr ("stage-store: %s is not a regular file\n", file);
  else
    g_printerr ("stage-store: no such file: %s\n", file);
  return FALSE;
}

static gint
cmd_ingest (const gchar * dir, const gchar * name, const gchar * file)
{
  Ingest in = { 0 };
  GstElement *src, *parse;
  GstBus *bus;
  gboolean done = FALSE, ok = FALSE, tty = isatty (2) && !quiet;
  gint64 t0 = g_get_monotonic_time ();
  GError *err = NULL;
  GstPluginFeature *sinkf;

  if (!check_input (file))
    return EXIT_WORK_FAILED;
  if (!stage_store_check_name (name, &err)) {
    report (&err);
    return EXIT_WORK_FAILED;
  }
  in.dir = dir;
  in.name = name;
  in.found = g_string_new (NULL);
  in.pipeline = gst_pipeline_new ("ingest");
  src = gst_element_factory_make ("filesrc", NULL);
  parse = gst_element_factory_make ("parsebin", NULL);
  sinkf = gst_registry_lookup_feature (gst_registry_get (), "stagesink");
  if (!src || !parse || !sinkf) {
    g_printerr ("stage-store: missing elements (filesrc, parsebin from "
        "gstreamer1.0-plugins-base, stagesink from gst-stages): check "
        "GST_PLUGIN_PATH\n");
    gst_clear_object (&src);
    gst_clear_object (&parse);
    gst_clear_object (&sinkf);
    gst_object_unref (in.pipeline);
    g_string_free (in.found, TRUE);
    return EXIT_WORK_FAILED;
  }
  gst_object_unref (sinkf);
  g_object_set (src, "location", file, NULL);
  gst_bin_add_many (GST_BIN (in.pipeline), src, parse, NULL);
  gst_element_link (src, parse);
  g_signal_connect (parse, "pad-added", G_CALLBACK (on_pad_added), &in);

  bus = gst_element_get_bus (in.pipeline);
  gst_element_set_state (in.pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 200 * GST_MSECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);

    if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      gchar *dbg = NULL, *detail;

      /* the writer's word on what it changed: frames dropped, times
       * repaired */
      gst_message_parse_warning (msg, &err, &dbg);
      /* the detail, without the source position before it */
      detail = dbg ? strchr (dbg, '\n') : NULL;
      g_printerr ("%sstage-store: warning: %s%s%s\n", tty ? "\n" : "",
          err->message, detail ? ": " : "", detail ? detail + 1 : "");
      g_clear_error (&err);
      g_free (dbg);
      gst_message_unref (msg);
      continue;
    }
    if (msg == NULL) {
      gint64 pos = -1, dur = -1;
      guint64 frames = 0;

      if (!tty || in.sink == NULL)
        continue;
      gst_element_query_position (in.pipeline, GST_FORMAT_TIME, &pos);
      gst_element_query_duration (in.pipeline, GST_FORMAT_TIME, &dur);
      g_object_get (in.sink, "frames", &frames, NULL);
      if (dur > 0 && pos >= 0)
        g_printerr ("\ringest %s: %" G_GUINT64_FORMAT " frames, %3.0f %%   ",
            name, frames, MIN (100.0, 100.0 * pos / dur));
      else
        g_printerr ("\ringest %s: %" G_GUINT64_FORMAT " frames   ", name,
            frames);
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR && in.sink == NULL
        && in.found->len > 0) {
      /* (an error of the streams nobody wanted, after what they are) */
      report_no_video (&in, file, tty);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gchar *dbg;

      gst_message_parse_error (msg, &err, &dbg);
      g_printerr ("%sstage-store: ingest of %s failed: %s\n", tty ? "\n" : "",
          file, err->message);
      g_clear_error (&err);
      g_free (dbg);
    } else if (in.sink == NULL) {
      report_no_video (&in, file, tty);
    } else {
      guint64 frames = 0;

      g_object_get (in.sink, "frames", &frames, NULL);
      g_printerr ("%singested %s as '%s': %" G_GUINT64_FORMAT " frames in "
          "%.1f s\n", tty ? "\r" : "", file, name, frames,
          (g_get_monotonic_time () - t0) / 1e6);
      ok = TRUE;
    }
    done = TRUE;
    gst_message_unref (msg);
  }
  gst_element_set_state (in.pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (in.pipeline);
  if (in.sink)
    gst_object_unref (in.sink);
  g_string_free (in.found, TRUE);
  return ok ? 0 : EXIT_WORK_FAILED;
}

static gint
usage (GOptionContext * ctx, const gchar * msg)
{
  gchar *help = g_option_context_get_help (ctx, TRUE, NULL);

  if (msg)
    g_printerr ("stage-store: %s\n\n", msg);
  g_printerr ("%s", help);
  g_free (help);
  return EXIT_USAGE;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx;
  GError *err = NULL;
  const gchar *cmd;
  gint n, ret;
  StageStoreMode checked_mode;

  setlocale (LC_ALL, "");
  ctx = g_option_context_new ("COMMAND DIR [ARGS...] - inspect a store of "
      "named streams");
  g_option_context_set_summary (ctx,
      "Commands:\n"
      "  ls DIR                 list the committed streams\n"
      "  info DIR NAME          frames, GOP structure, size and caps of one\n"
      "  rm DIR NAME...         remove streams (catalog rows, then data)\n"
      "  ingest DIR NAME FILE   store FILE's H.264/H.265 video as it is\n"
      "  verify DIR [NAME...]   read every chunk back, check the index\n"
      "  gc DIR                 remove data left by interrupted writes\n"
      "  merge DEST SRC...      copy every stream of the SRC stores into DEST\n"
      "                         (checked, one transaction; DEST made if "
      "missing),\n"
      "                         then join the split streams it completes\n"
      "  join DIR [NAME...]     join the parts NAME.part-K-of-N of split "
      "streams");
  g_option_context_set_description (ctx,
      "Example:\n"
      "  stage-store ingest store clip video.mp4 && stage-store info store "
      "clip\n\n"
      "A store is the directory stagesink writes: catalog.db (SQLite) and "
      "chunk files.\nA NAME that starts with '-' follows '--': stage-store rm "
      "store -- -x\nExit status: 0 ok, 1 some work failed, 2 bad usage.\n");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    ret = usage (ctx, err->message);
    g_error_free (err);
    goto out;
  }
  /* GOption stops at "--" and leaves it: the arguments after it (names
   * that start with '-') are taken as they are, without it. */
  for (n = 1; n < argc; n++) {
    if (strcmp (argv[n], "--") == 0) {
      memmove (argv + n, argv + n + 1, (argc - n) * sizeof (gchar *));
      argc--;
      break;
    }
  }
  if (!gst_init_check (NULL, NULL, &err)) {
    g_printerr ("stage-store: could not initialise GStreamer: %s\n",
        err ? err->message : "unknown error");
    g_clear_error (&err);
    ret = EXIT_WORK_FAILED;
    goto out;
  }
  if (argc < 3) {
    ret = usage (ctx, argc < 2 ? "no command given" : "no store directory "
        "given");
    goto out;
  }
  cmd = argv[1];
  n = argc - 3;                 /* arguments after DIR */
  if (io_packet_size < 1) {
    ret = usage (ctx, "--io-packet-size must be at least 1");
  } else if (!parse_mode (&checked_mode)) {
    ret = usage (ctx, "--mode must be error, overwrite or ignore");
  } else if (g_str_equal (cmd, "ls") && n == 0) {
    ret = cmd_ls (argv[2]);
  } else if (g_str_equal (cmd, "info") && n == 1) {
    ret = cmd_info (argv[2], argv[3]);
  } else if (g_str_equal (cmd, "rm") && n >= 1) {
    ret = cmd_rm (argv[2], argv + 3);
  } else if (g_str_equal (cmd, "ingest") && n == 2) {
    ret = cmd_ingest (argv[2], argv[3], argv[4]);
  } else if (g_str_equal (cmd, "verify")) {
    ret = cmd_verify (argv[2], argv + 3);
  } else if (g_str_equal (cmd, "gc") && n == 0) {
    ret = cmd_gc (argv[2]);
  } else if (g_str_equal (cmd, "merge") && n >= 1) {
    gchar *bad = merge_usage_error (argv[2], argv + 3);

    ret = bad ? usage (ctx, bad) : cmd_merge (argv[2], argv + 3);
    g_free (bad);
  } else if (g_str_equal (cmd, "join")) {
    ret = cmd_join (argv[2], argv + 3);
  } else {
    gchar *msg = g_strdup_printf ("bad command or arguments: '%s' with %d "
        "argument(s) after DIR", cmd, n);

    ret = usage (ctx, msg);
    g_free (msg);
  }
out:
  g_option_context_free (ctx);
  return ret;
}
