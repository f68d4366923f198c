/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbrun: a stage-batch job in its child process.
 *
 * The launcher starts `stage-batch --run-one DESCRIPTION` for each job
 * rather than gst-launch-1.0 because it needs what gst-launch does not say
 * in a form a program can read: whether the pipeline reached EOS (not just
 * an exit status), exactly how many frames went through, the wall-clock
 * time of the tracers' ts 0 (to put a job's stageprof trace on the batch's
 * time axis), and outputs written under a temporary name and renamed only
 * once the pipeline reached EOS and closed them.
 *
 * Frames: the buffers of raw video that reach a "terminal" consumer, an
 * element whose input is raw video and whose output is not (an encoder, a
 * sink): so a stride or gather upstream is counted, a decoder's output is
 * not counted twice. Where there is more than one (a tee to two encoders),
 * the largest count. Pipelines without raw video count the buffers that
 * reach their sinks.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sbrun.h"
#include "spfile.h"
#include "spmerge.h"
#include "spjson.h"

#include <json-glib/json-glib.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* ---- outputs ------------------------------------------------------------- */

GPtrArray *
sb_pipeline_outputs (GstElement * pipeline, GPtrArray * sinks)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GstIterator *it;
  GValue v = G_VALUE_INIT;
  gboolean done = FALSE;

  if (!GST_IS_BIN (pipeline)) {
    GValue one = G_VALUE_INIT;
    g_value_init (&one, GST_TYPE_ELEMENT);
    g_value_set_object (&one, pipeline);
    it = gst_iterator_new_single (GST_TYPE_ELEMENT, &one);
    g_value_unset (&one);
  } else {
    it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  }
  while (!done) {
    switch (gst_iterator_next (it, &v)) {
      case GST_ITERATOR_OK:{
        GstElement *e = g_value_get_object (&v);
        GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
            "location");
        gchar *loc = NULL;

        if (ps && ps->value_type == G_TYPE_STRING
            && (ps->flags & G_PARAM_READABLE) && (ps->flags & G_PARAM_WRITABLE)
            && GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SINK)
            && !GST_IS_BIN (e))
          g_object_get (e, "location", &loc, NULL);
        if (loc && *loc && !strchr (loc, '%')) {
          g_ptr_array_add (out, loc);
          if (sinks)
            g_ptr_array_add (sinks, gst_object_ref (e));
        } else {
          g_free (loc);
        }
        g_value_reset (&v);
        break;
      }
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (it);
        g_ptr_array_set_size (out, 0);
        if (sinks)
          g_ptr_array_set_size (sinks, 0);
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return out;
}

gchar *
sb_partial_name (const gchar * location)
{
  gchar *dir = g_path_get_dirname (location);
  gchar *base = g_path_get_basename (location);
  gchar *name = g_strdup_printf (".%s.sb-part", base);
  gchar *path = g_build_filename (dir, name, NULL);

  g_free (dir);
  g_free (base);
  g_free (name);
  return path;
}

/* ---- frame counting ------------------------------------------------------ */

typedef struct
{
  GMutex lock;
  GPtrArray *pads;              /* SbPadCount */
  GHashTable *raw_out;          /* elements that output raw video */
} SbCounter;

typedef struct
{
  GstPad *pad;
  GstElement *element;          /* not a reference: lives as the pipeline */
  gint raw;                     /* atomic: caps are video/x-raw */
  gint sink;                    /* element has no src pads */
  guint64 n;                    /* atomic */
} SbPadCount;

static gboolean
caps_event_is_raw_video (GstEvent * ev)
{
  GstCaps *caps;
  const GstStructure *s;

  gst_event_parse_caps (ev, &caps);
  s = gst_caps_get_size (caps) > 0 ? gst_caps_get_structure (caps, 0) : NULL;
  return s && gst_structure_has_name (s, "video/x-raw");
}

static GstPadProbeReturn
sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  SbPadCount *pc = data;

  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS)
      g_atomic_int_set (&pc->raw, caps_event_is_raw_video (ev));
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    __atomic_fetch_add (&pc->n,
        gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info)),
        __ATOMIC_RELAXED);
  } else {
    __atomic_fetch_add (&pc->n, 1, __ATOMIC_RELAXED);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
src_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  SbCounter *c = data;
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

  if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS && caps_event_is_raw_video (ev)) {
    GstObject *parent = gst_pad_get_parent (pad);
    if (parent) {
      g_mutex_lock (&c->lock);
      g_hash_table_add (c->raw_out, parent);
      g_mutex_unlock (&c->lock);
      gst_object_unref (parent);
    }
  }
  return GST_PAD_PROBE_OK;
}

/* A sink: flagged so, or an element that can have no source pad at all.
 * A demuxer has none until it has read its input (qtdemux, tsdemux, and
 * one that ends with no pad for a stream nobody linked), but its class
 * has source pad templates: counting its input as frames gave 388
 * "frames" for a 132-frame clip with audio. */
static gboolean
element_is_sink (GstElement * e)
{
  const GList *l;

  if (GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SINK))
    return TRUE;
  if (e->numsrcpads > 0)
    return FALSE;
  for (l = gst_element_class_get_pad_template_list (GST_ELEMENT_GET_CLASS
          (e)); l; l = l->next)
    if (GST_PAD_TEMPLATE_DIRECTION (l->data) == GST_PAD_SRC)
      return FALSE;
  return TRUE;
}

static void
counter_add_pad (SbCounter * c, GstElement * e, GstPad * pad)
{
  if (GST_PAD_DIRECTION (pad) == GST_PAD_SINK) {
    SbPadCount *pc = g_new0 (SbPadCount, 1);
    pc->pad = gst_object_ref (pad);
    pc->element = e;
    pc->sink = element_is_sink (e);
    g_mutex_lock (&c->lock);
    g_ptr_array_add (c->pads, pc);
    g_mutex_unlock (&c->lock);
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
        sink_probe, pc, NULL);
  } else {
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, src_probe, c,
        NULL);
  }
}

static void
on_pad_added (GstElement * e, GstPad * pad, SbCounter * c)
{
  counter_add_pad (c, e, pad);
}

static void
counter_add_element (SbCounter * c, GstElement * e)
{
  GList *l;

  if (GST_IS_BIN (e))
    return;                     /* its children carry the real pads */
  GST_OBJECT_LOCK (e);
  for (l = e->pads; l; l = l->next)
    counter_add_pad (c, e, l->data);
  GST_OBJECT_UNLOCK (e);
  g_signal_connect (e, "pad-added", G_CALLBACK (on_pad_added), c);
}

static void
on_deep_element_added (GstBin * bin, GstBin * sub, GstElement * e,
    SbCounter * c)
{
  counter_add_element (c, e);
}

static void
counter_attach (SbCounter * c, GstElement * pipeline)
{
  GstIterator *it;
  GValue v = G_VALUE_INIT;

  g_mutex_init (&c->lock);
  c->pads = g_ptr_array_new ();
  c->raw_out = g_hash_table_new (NULL, NULL);
  if (!GST_IS_BIN (pipeline)) {
    counter_add_element (c, pipeline);
    return;
  }
  g_signal_connect (pipeline, "deep-element-added",
      G_CALLBACK (on_deep_element_added), c);
  it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    counter_add_element (c, g_value_get_object (&v));
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

static guint64
counter_frames (SbCounter * c)
{
  guint64 raw_best = 0, sink_best = 0;
  gboolean any_raw = FALSE;
  guint i;

  g_mutex_lock (&c->lock);
  for (i = 0; i < c->pads->len; i++) {
    SbPadCount *pc = c->pads->pdata[i];
    guint64 n = __atomic_load_n (&pc->n, __ATOMIC_RELAXED);

    if (g_atomic_int_get (&pc->raw)
        && !g_hash_table_contains (c->raw_out, pc->element)) {
      any_raw = TRUE;
      raw_best = MAX (raw_best, n);
    }
    if (pc->sink)
      sink_best = MAX (sink_best, n);
  }
  g_mutex_unlock (&c->lock);
  return any_raw ? raw_best : sink_best;
}

static void
counter_clear (SbCounter * c)
{
  guint i;

  for (i = 0; i < c->pads->len; i++) {
    SbPadCount *pc = c->pads->pdata[i];
    gst_object_unref (pc->pad);
    g_free (pc);
  }
  g_ptr_array_free (c->pads, TRUE);
  g_hash_table_destroy (c->raw_out);
  g_mutex_clear (&c->lock);
}

/* ---- reporting ----------------------------------------------------------- */

/* The report channel: the process's original stdout. Anything else written
 * to stdout (elements that print) goes to stderr, the job's log. */
static FILE *report;

static void
emit (JsonBuilder * b)
{
  JsonNode *root = json_builder_get_root (b);
  gchar *s = sp_json_to_string (root, 17, FALSE);

  fprintf (report, "%s\n", s);
  fflush (report);
  g_free (s);
  json_node_unref (root);
  g_object_unref (b);
}

static JsonBuilder *
event_new (const gchar * name)
{
  JsonBuilder *b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "event");
  json_builder_add_string_value (b, name);
  return b;
}

static gdouble
cpu_seconds (void)
{
  struct rusage ru;

  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return 0;
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec
      + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* ---- the run ------------------------------------------------------------- */

typedef struct
{
  GstElement *pipeline;
  GMainLoop *loop;
  SbCounter counter;
  const gchar *status;
  gchar *error;
  gboolean eos;
} SbRun;

static gboolean
on_bus (GstBus * bus, GstMessage * msg, gpointer data)
{
  SbRun *r = data;
  GError *err = NULL;
  gchar *dbg = NULL, *path;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_EOS:
      r->eos = TRUE;
      r->status = "ok";
      g_main_loop_quit (r->loop);
      break;
    case GST_MESSAGE_ERROR:
    case GST_MESSAGE_WARNING:
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
        gst_message_parse_error (msg, &err, &dbg);
      else
        gst_message_parse_warning (msg, &err, &dbg);
      path = gst_object_get_path_string (GST_MESSAGE_SRC (msg));
      g_printerr ("%s: from %s: %s\n%s%s",
          GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR ? "ERROR" : "WARNING",
          path, err->message, dbg ? dbg : "", dbg ? "\n" : "");
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR && !r->error) {
        r->error = g_strdup_printf ("%s: %s", GST_MESSAGE_SRC_NAME (msg),
            err->message);
        r->status = "failed";
        g_main_loop_quit (r->loop);
      }
      g_free (path);
      g_free (dbg);
      g_error_free (err);
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_tick (gpointer data)
{
  SbRun *r = data;
  JsonBuilder *b = event_new ("progress");
  gint64 pos = -1, dur = -1;

  gst_element_query_position (r->pipeline, GST_FORMAT_TIME, &pos);
  gst_element_query_duration (r->pipeline, GST_FORMAT_TIME, &dur);
  json_builder_set_member_name (b, "frames");
  json_builder_add_int_value (b, counter_frames (&r->counter));
  if (pos >= 0) {
    json_builder_set_member_name (b, "position_s");
    json_builder_add_double_value (b, pos / 1e9);
  }
  if (dur > 0) {
    json_builder_set_member_name (b, "duration_s");
    json_builder_add_double_value (b, dur / 1e9);
  }
  json_builder_end_object (b);
  emit (b);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_signal (gpointer data)
{
  SbRun *r = data;

  r->status = "interrupted";
  if (!r->error)
    r->error = g_strdup ("interrupted by a signal");
  g_main_loop_quit (r->loop);
  return G_SOURCE_CONTINUE;
}

/* Points each sink at its output's temporary name, except where the output
 * is a device or a FIFO (written in place: a NULL partial). Fails for what
 * cannot be written (a symbolic link, a socket). */
static gboolean
outputs_to_partials (GPtrArray * finals, GPtrArray * sinks,
    GPtrArray * partials, gchar ** error)
{
  GError *err = NULL;
  guint i;

  for (i = 0; i < finals->len; i++) {
    gboolean in_place;
    gchar *tmp = NULL;

    /* common/spfile.h: a device or a FIFO is written in place (a rename
     * would replace it), a link or a socket refused */
    if (!sp_file_output_in_place (finals->pdata[i], "the output", &in_place,
            &err)) {
      *error = g_strdup (err->message);
      g_error_free (err);
      return FALSE;
    }
    if (!in_place) {
      tmp = sb_partial_name (finals->pdata[i]);
      g_object_set (sinks->pdata[i], "location", tmp, NULL);
    }
    g_ptr_array_add (partials, tmp);
  }
  return TRUE;
}

static gboolean
finish_outputs (GPtrArray * finals, GPtrArray * partials, gboolean keep,
    gchar ** error)
{
  gboolean ok = TRUE;
  guint i;

  for (i = 0; i < finals->len; i++) {
    const gchar *tmp = partials->pdata[i], *fin = finals->pdata[i];
    if (!tmp) {
      /* written in place: nothing to rename, nothing of ours to remove */
    } else if (!keep) {
      g_unlink (tmp);
    } else if (g_rename (tmp, fin) != 0) {
      int e = errno;
      if (ok)
        *error = g_strdup_printf ("cannot rename \"%s\" to \"%s\": %s", tmp,
            fin, g_strerror (e));
      g_printerr ("ERROR: cannot rename \"%s\" to \"%s\": %s\n", tmp, fin,
          g_strerror (e));
      ok = FALSE;
    }
  }
  return ok;
}

static GstElement *
parse (const gchar * description, gchar ** error)
{
  GError *err = NULL;
  GstElement *e = gst_parse_launch_full (description, NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, &err);

  if (!e) {
    *error = g_strdup_printf ("the pipeline does not parse: %s",
        err ? err->message : "unknown error");
    g_clear_error (&err);
    return NULL;
  }
  if (!GST_IS_PIPELINE (e)) {
    GstElement *p = gst_pipeline_new (NULL);
    gst_bin_add (GST_BIN (p), e);
    e = p;
  }
  return e;
}

static void
report_done (SbRun * r, GPtrArray * finals, gint64 t0)
{
  JsonBuilder *b = event_new ("done");
  guint i;

  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, r->status);
  json_builder_set_member_name (b, "eos");
  json_builder_add_boolean_value (b, r->eos);
  json_builder_set_member_name (b, "frames");
  json_builder_add_int_value (b, r->pipeline ? counter_frames (&r->counter) :
      0);
  json_builder_set_member_name (b, "wall_s");
  json_builder_add_double_value (b, (g_get_monotonic_time () - t0) / 1e6);
  json_builder_set_member_name (b, "cpu_s");
  json_builder_add_double_value (b, cpu_seconds ());
  json_builder_set_member_name (b, "outputs");
  json_builder_begin_array (b);
  for (i = 0; finals && i < finals->len; i++)
    json_builder_add_string_value (b, finals->pdata[i]);
  json_builder_end_array (b);
  if (r->error) {
    json_builder_set_member_name (b, "error");
    json_builder_add_string_value (b, r->error);
  }
  json_builder_end_object (b);
  emit (b);
}

int
sb_run_one (const gchar * description, gint parent_pid, gint64 ts0_wall_us)
{
  SbRun r = { 0 };
  GPtrArray *sinks = NULL, *finals = NULL, *partials = NULL;
  JsonBuilder *b;
  GstBus *bus;
  gint64 t0 = g_get_monotonic_time ();
  guint tick, sig_int, sig_term;

#ifdef __linux__
  /* Die with the launcher: a kill -9 of stage-batch must not leave jobs
   * running that nobody will mark done. */
  if (parent_pid > 0) {
    prctl (PR_SET_PDEATHSIG, SIGKILL);
    if (getppid () != parent_pid)
      return 1;
  }
#endif

  {
    gint fd = dup (STDOUT_FILENO);
    report = fd >= 0 ? fdopen (fd, "w") : NULL;
    if (!report)
      report = stdout;
    else
      dup2 (STDERR_FILENO, STDOUT_FILENO);
  }

  b = event_new ("start");
  json_builder_set_member_name (b, "pid");
  json_builder_add_int_value (b, getpid ());
  json_builder_set_member_name (b, "ts0_wall_us");
  json_builder_add_int_value (b, ts0_wall_us);
  json_builder_end_object (b);
  emit (b);

  r.status = "failed";
  r.pipeline = parse (description, &r.error);
  if (!r.pipeline) {
    g_printerr ("ERROR: %s\n", r.error);
    goto done;
  }

  sinks = g_ptr_array_new_with_free_func (gst_object_unref);
  finals = sb_pipeline_outputs (r.pipeline, sinks);
  partials = g_ptr_array_new_with_free_func (g_free);
  /* before any refusal: report_done reads the counter */
  counter_attach (&r.counter, r.pipeline);
  if (!outputs_to_partials (finals, sinks, partials, &r.error)) {
    g_printerr ("ERROR: %s\n", r.error);
    goto done;
  }

  r.loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (r.pipeline);
  gst_bus_add_watch (bus, on_bus, &r);
  tick = g_timeout_add (500, on_tick, &r);
  /* Under stage-batch, the terminal's Ctrl-C is the launcher's to handle
   * (it lets running jobs finish); it sends SIGTERM to stop them. */
  if (parent_pid > 0)
    signal (SIGINT, SIG_IGN);
  sig_int = parent_pid > 0 ? 0 : g_unix_signal_add (SIGINT, on_signal, &r);
  sig_term = g_unix_signal_add (SIGTERM, on_signal, &r);

  if (gst_element_set_state (r.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    /* The element's own error message is on the bus: take it. */
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (m) {
      on_bus (bus, m, &r);
      gst_message_unref (m);
    }
    if (!r.error)
      r.error = g_strdup ("the pipeline could not start");
  } else {
    g_main_loop_run (r.loop);
  }

  gst_element_set_state (r.pipeline, GST_STATE_NULL);
  g_source_remove (tick);
  if (sig_int)
    g_source_remove (sig_int);
  g_source_remove (sig_term);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);

  if (!finish_outputs (finals, partials, r.eos, &r.error)) {
    r.status = "failed";
    r.eos = FALSE;
  }

done:
  report_done (&r, finals, t0);
  if (r.pipeline) {
    g_ptr_array_free (sinks, TRUE);
    gst_object_unref (r.pipeline);
    counter_clear (&r.counter);
    g_ptr_array_free (finals, TRUE);
    g_ptr_array_free (partials, TRUE);
  }
  if (r.loop)
    g_main_loop_unref (r.loop);
  g_free (r.error);
  return strcmp (r.status, "ok") == 0 ? 0 : 1;
}
