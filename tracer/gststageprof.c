/* stageprof: a profiling tracer for any GStreamer pipeline.
 *
 * SECTION:tracer-stageprof
 *
 * Records per-element self time (nested chains subtracted), queue occupancy
 * and the time each streaming thread waits on input and on output (for
 * aggregators, live sources, slow sources and sync sinks, split from work
 * by the thread's CPU time), then
 * writes summary tables when a pipeline stops and at exit, and, with
 * trace=PATH, a Chrome trace (chrome://tracing, Perfetto UI).
 *
 * |[
 * GST_TRACERS="stageprof(trace=out.json,summary=stdout,skip-first=3)" \
 *   gst-launch-1.0 videotestsrc num-buffers=100 ! videoconvert ! fakesink
 * ]|
 *
 * Applications find the tracer with gst_tracing_get_active_tracers() and use
 * its properties and the `write-trace`, `get-summary` and `reset` actions.
 * The accounting lives in sprecord.c, the renderings in spsummary.c, the
 * trace writer in sptrace.c, the trace's wall-clock start and element links
 * in spmeta.c: this file is the GStreamer plumbing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gststageprof.h"
#include "spmeta.h"
#include "sprecord.h"
#include "spsummary.h"
#include "sptrace.h"
#ifdef HAVE_SPDB
#include "spdb.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_stage_prof_debug);
#define GST_CAT_DEFAULT gst_stage_prof_debug

#define DEFAULT_PROP_TRACE NULL
#define DEFAULT_PROP_SUMMARY "stdout"
#define DEFAULT_PROP_SKIP_FIRST 0
#define DEFAULT_PROP_INTERVAL 0.0
#define DEFAULT_PROP_DB NULL
#define DEFAULT_PROP_FILTER NULL

enum
{
  PROP_0,
  PROP_TRACE,
  PROP_SUMMARY,
  PROP_SKIP_FIRST,
  PROP_INTERVAL,
  PROP_DB,
  PROP_FILTER,
};

enum
{
  SIGNAL_WRITE_TRACE,
  SIGNAL_GET_SUMMARY,
  SIGNAL_RESET,
  LAST_SIGNAL
};

static guint signals[LAST_SIGNAL];

struct _GstStageProf
{
  GstTracer parent;

  SpRecorder *rec;
  SpMeta *meta;                 /* wall-clock start and links for the trace */

  /* Settings, under the object lock. */
  gchar *trace_path;
  gchar *summary;
  guint skip_first;
  gdouble interval;
  gchar *db_path;
  gchar *filter;

  /* Outputs. Replaced traces stay alive until finalize: a streaming thread
   * may still be recording into one. */
  SpTrace *trace;
  GPtrArray *old_traces;
#ifdef HAVE_SPDB
  SpDb *db;
#endif
  GMutex out_lock;              /* serialises summary writing */
  gboolean final_done;

  /* The interval snapshot thread. */
  GThread *ticker;
  GMutex tick_lock;
  GCond tick_cond;
  gboolean tick_stop;
};

#define gst_stage_prof_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstStageProf, gst_stage_prof, GST_TYPE_TRACER,
    GST_DEBUG_CATEGORY_INIT (gst_stage_prof_debug, "stageprof", 0,
        "stageprof profiling tracer"));

/* For the atexit handler: applications that never call gst_deinit() still
 * get their final summary and a closed trace. */
static GstStageProf *live_prof;
static gboolean atexit_registered;

static void stage_prof_final_output (GstStageProf * self);

/* ------------------------------------------------------------------ */
/* Hooks: thin translations into sprecord. */

static void
do_push_pre (GObject * self, GstClockTime ts, GstPad * pad, GstBuffer * buf)
{
  sp_record_push_pre (((GstStageProf *) self)->rec, ts, pad, buf, NULL);
}

static void
do_push_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  sp_record_push_pre (((GstStageProf *) self)->rec, ts, pad, NULL, list);
}

static void
do_push_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  sp_record_push_post (((GstStageProf *) self)->rec, ts, pad);
}

static void
do_chain_pre (GObject * self, GstClockTime ts, GstPad * pad, GstBuffer * buf)
{
  sp_record_chain_pre (((GstStageProf *) self)->rec, ts, pad, buf, NULL);
}

static void
do_chain_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  sp_record_chain_pre (((GstStageProf *) self)->rec, ts, pad, NULL, list);
}

static void
do_chain_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  sp_record_chain_post (((GstStageProf *) self)->rec, ts, pad);
}

static void
do_pull_range_pre (GObject * self, GstClockTime ts, GstPad * pad,
    guint64 offset, guint size)
{
  sp_record_pull_pre (((GstStageProf *) self)->rec, ts, pad);
}

static void
do_pull_range_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer, GstFlowReturn res)
{
  sp_record_pull_post (((GstStageProf *) self)->rec, ts, pad);
}

static void
do_push_event_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    sp_record_flush_stop (((GstStageProf *) self)->rec, ts, pad);
  sp_record_event_pre (((GstStageProf *) self)->rec, ts, pad);
}

static void
do_push_event_post (GObject * self, GstClockTime ts, GstPad * pad,
    gboolean res)
{
  sp_record_event_post (((GstStageProf *) self)->rec, ts, pad);
}

/* element-new and pad-link-post are registered for their keys (see
 * gst_stage_prof_constructed) and, firing only while pipelines are built,
 * are where spmeta learns the trace clock and the links. */
static void
stage_prof_meta_clock (GstStageProf * self, GstClockTime ts)
{
  GST_OBJECT_LOCK (self);
  sp_meta_clock (self->meta, self->trace, ts);
  GST_OBJECT_UNLOCK (self);
}

static void
do_element_new (GObject * self, GstClockTime ts, GstElement * element)
{
  stage_prof_meta_clock ((GstStageProf *) self, ts);
}

static void
do_pad_link_post (GObject * object, GstClockTime ts, GstPad * srcpad,
    GstPad * sinkpad, GstPadLinkReturn res)
{
  GstStageProf *self = (GstStageProf *) object;

  stage_prof_meta_clock (self, ts);
  if (res != GST_PAD_LINK_OK)
    return;
  GST_OBJECT_LOCK (self);
  sp_meta_pad_linked (self->meta, self->trace, srcpad, sinkpad);
  GST_OBJECT_UNLOCK (self);
}

static void
do_object_destroyed (GObject * self, GstClockTime ts, GstObject * object)
{
  if (GST_IS_ELEMENT (object))
    sp_meta_object_destroyed (((GstStageProf *) self)->meta, object);
  if (GST_IS_ELEMENT (object))
    sp_record_element_destroyed (((GstStageProf *) self)->rec, object);
  else if (GST_IS_PAD (object))
    sp_record_pad_destroyed (((GstStageProf *) self)->rec, object);
}

static void
write_text (const gchar * where, const gchar * text)
{
  FILE *f = strcmp (where, "stderr") == 0 ? stderr : stdout;

  fputs (text, f);
  fflush (f);
}

static gchar *
dup_setting (GstStageProf * self, gchar ** field)
{
  gchar *v;

  GST_OBJECT_LOCK (self);
  v = g_strdup (*field);
  GST_OBJECT_UNLOCK (self);
  return v;
}

/* Writes `pipeline`'s summary (NULL: all pipelines; SP_RECORDER_PENDING:
 * those not summarized yet) where the `summary` setting says. Streams get
 * the tables of that pipeline; a file always gets the whole process. */
static void
stage_prof_write_summary (GstStageProf * self, gpointer pipeline,
    const gchar * title, gboolean to_db)
{
  gchar *where = dup_setting (self, &self->summary);
  GstStructure *s;

  g_mutex_lock (&self->out_lock);
  if (!sp_recorder_has_data (self->rec, pipeline))
    goto done;
  /* Final for what it covers: a pipeline that stopped, or the process. */
  s = sp_recorder_summary (self->rec, pipeline, TRUE);
#ifdef HAVE_SPDB
  if (self->db && to_db)
    sp_db_add_snapshot (self->db, s);
#endif
  if (where == NULL || strcmp (where, "none") == 0) {
    /* nothing to print */
  } else if (strcmp (where, "stdout") == 0 || strcmp (where, "stderr") == 0) {
    gchar *text = sp_summary_to_text (s, title);
    write_text (where, text);
    g_free (text);
  } else {
    GstStructure *all = pipeline ? sp_recorder_summary (self->rec, NULL,
        TRUE) : gst_structure_copy (s);
    GError *err = NULL;

    if (!sp_summary_write_file (all, where, &err)) {
      GST_ERROR_OBJECT (self, "%s", err->message);
      g_warning ("stageprof: %s", err->message);
      g_clear_error (&err);
    }
    gst_structure_free (all);
  }
  gst_structure_free (s);
  sp_recorder_mark_summarized (self->rec, pipeline, TRUE);
done:
  g_mutex_unlock (&self->out_lock);
  g_free (where);
}

static void
do_change_state_post (GObject * object, GstClockTime ts, GstElement * element,
    GstStateChange transition, GstStateChangeReturn result)
{
  GstStageProf *self = GST_STAGE_PROF (object);
  gboolean top = GST_IS_PIPELINE (element)
      && GST_OBJECT_PARENT (element) == NULL;

  sp_record_state_changed (self->rec, ts, element, transition);
  if (!top)
    return;
  stage_prof_meta_clock (self, ts);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    GST_OBJECT_LOCK (self);
    sp_meta_pipeline_started (self->meta, self->trace, element);
    GST_OBJECT_UNLOCK (self);
    sp_recorder_mark_summarized (self->rec, element, FALSE);
  } else if (transition == GST_STATE_CHANGE_READY_TO_NULL) {
    stage_prof_write_summary (self, element, GST_OBJECT_NAME (element),
        TRUE);
    GST_OBJECT_LOCK (self);
    if (self->trace)
      sp_trace_flush (self->trace);
    GST_OBJECT_UNLOCK (self);
  }
}

/* ------------------------------------------------------------------ */
/* Settings */

static void
stage_prof_set_trace (GstStageProf * self, const gchar * path)
{
  SpTrace *t = NULL, *old;
  GError *err = NULL;

  if (path && *path) {
    t = sp_trace_new (path, &err);
    if (!t) {
      GST_ERROR_OBJECT (self, "trace disabled: %s", err->message);
      g_warning ("stageprof: trace disabled: %s", err->message);
      g_clear_error (&err);
    }
  }
  GST_OBJECT_LOCK (self);
  old = self->trace;
  self->trace = t;
  g_free (self->trace_path);
  self->trace_path = t ? g_strdup (path) : NULL;
  if (old)
    g_ptr_array_add (self->old_traces, old);
  GST_OBJECT_UNLOCK (self);
  sp_recorder_set_trace (self->rec, t);
  if (t)
    sp_meta_trace_set (self->meta, t);
  if (old)
    sp_trace_flush (old);
}

static void
stage_prof_set_db (GstStageProf * self, const gchar * path)
{
#ifdef HAVE_SPDB
  SpDb *db = NULL, *old;
  GError *err = NULL;

  if (path && *path) {
    db = sp_db_open (path, &err);
    if (!db) {
      GST_ERROR_OBJECT (self, "database disabled: %s", err->message);
      g_warning ("stageprof: database disabled: %s", err->message);
      g_clear_error (&err);
    }
  }
  GST_OBJECT_LOCK (self);
  old = self->db;
  self->db = db;
  g_free (self->db_path);
  self->db_path = db ? g_strdup (path) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (old)
    sp_db_close (old);
#else
  if (path && *path)
    g_warning ("stageprof: db=%s ignored: this build has no SQLite support "
        "(install libsqlite3-dev and rebuild with -Dsqlite=enabled)", path);
#endif
}

static void
stage_prof_set_filter (GstStageProf * self, const gchar * pattern)
{
  GRegex *re = NULL;
  GError *err = NULL;

  if (pattern && *pattern) {
    re = g_regex_new (pattern, G_REGEX_OPTIMIZE, 0, &err);
    if (!re) {
      g_warning ("stageprof: filter='%s' is not a valid regular expression "
          "(%s); tracing every element", pattern, err->message);
      g_clear_error (&err);
    }
  }
  GST_OBJECT_LOCK (self);
  g_free (self->filter);
  self->filter = re ? g_strdup (pattern) : NULL;
  GST_OBJECT_UNLOCK (self);
  sp_recorder_set_filter (self->rec, re);
  if (re)
    g_regex_unref (re);
}

static gpointer
ticker_func (gpointer data)
{
  GstStageProf *self = data;
  gint64 period;

  g_mutex_lock (&self->tick_lock);
  while (!self->tick_stop) {
    GST_OBJECT_LOCK (self);
    period = (gint64) (self->interval * G_TIME_SPAN_SECOND);
    GST_OBJECT_UNLOCK (self);
    if (period <= 0)
      break;
    if (g_cond_wait_until (&self->tick_cond, &self->tick_lock,
            g_get_monotonic_time () + period) || self->tick_stop)
      continue;
    g_mutex_unlock (&self->tick_lock);
    if (sp_recorder_has_data (self->rec, NULL)) {
      GstStructure *s = sp_recorder_summary (self->rec, NULL, FALSE);
      gchar *text = sp_summary_to_text (s, "(interval)");
      GST_INFO_OBJECT (self, "snapshot:\n%s", text);
      g_free (text);
#ifdef HAVE_SPDB
      if (self->db)
        sp_db_add_snapshot (self->db, s);
#endif
      gst_structure_free (s);
    }
    g_mutex_lock (&self->tick_lock);
  }
  g_mutex_unlock (&self->tick_lock);
  return NULL;
}

static void
stage_prof_stop_ticker (GstStageProf * self)
{
  GThread *t;

  g_mutex_lock (&self->tick_lock);
  self->tick_stop = TRUE;
  g_cond_broadcast (&self->tick_cond);
  t = self->ticker;
  self->ticker = NULL;
  g_mutex_unlock (&self->tick_lock);
  if (t)
    g_thread_join (t);
}

static void
stage_prof_set_interval (GstStageProf * self, gdouble seconds)
{
  stage_prof_stop_ticker (self);
  GST_OBJECT_LOCK (self);
  self->interval = seconds;
  GST_OBJECT_UNLOCK (self);
  if (seconds > 0) {
    self->tick_stop = FALSE;
    self->ticker = g_thread_new ("stageprof-interval", ticker_func, self);
  }
}

/* ------------------------------------------------------------------ */
/* The params string: "trace=out.json,summary=stdout,skip-first=3". */

static gboolean
parse_uint (const gchar * s, guint * out)
{
  gchar *end = NULL;
  guint64 v;

  if (!s || !g_ascii_isdigit (*s))
    return FALSE;
  v = g_ascii_strtoull (s, &end, 10);
  if (*end != '\0' || v > G_MAXUINT)
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

static gboolean
parse_seconds (const gchar * s, gdouble * out)
{
  gchar *end = NULL;
  gdouble v;

  if (!s || !*s)
    return FALSE;
  v = g_ascii_strtod (s, &end);
  if (*end != '\0' || !(v >= 0) || v > 1e6)
    return FALSE;
  *out = v;
  return TRUE;
}

static void
apply_param (GstStageProf * self, const gchar * key, const gchar * value)
{
  guint u;
  gdouble d;

  if (strcmp (key, "trace") == 0) {
    g_object_set (self, "trace", value, NULL);
  } else if (strcmp (key, "summary") == 0) {
    g_object_set (self, "summary", value, NULL);
  } else if (strcmp (key, "db") == 0) {
    g_object_set (self, "db", value, NULL);
  } else if (strcmp (key, "filter") == 0) {
    g_object_set (self, "filter", value, NULL);
  } else if (strcmp (key, "skip-first") == 0) {
    if (parse_uint (value, &u))
      g_object_set (self, "skip-first", u, NULL);
    else
      g_warning ("stageprof: skip-first='%s' is not a non-negative integer; "
          "keeping %u", value, self->skip_first);
  } else if (strcmp (key, "interval") == 0) {
    if (parse_seconds (value, &d))
      g_object_set (self, "interval", d, NULL);
    else
      g_warning ("stageprof: interval='%s' is not a number of seconds "
          "between 0 and 1000000; periodic snapshots stay off", value);
  } else {
    g_warning ("stageprof: unknown parameter '%s' ignored (known: trace, "
        "summary, skip-first, interval, db, filter)", key);
  }
}

static gboolean
param_foreach (GQuark field, const GValue * value, gpointer data)
{
  gchar *str = G_VALUE_HOLDS_STRING (value) ?
      g_value_dup_string (value) : gst_value_serialize (value);

  apply_param (data, g_quark_to_string (field), str ? str : "");
  g_free (str);
  return TRUE;
}

/* A GstStructure first; when that refuses the string (an unquoted value
 * with characters the structure syntax reserves), split on ',' and '='. */
static void
stage_prof_parse_params (GstStageProf * self, const gchar * params)
{
  gchar *full;
  GstStructure *s;
  gchar **items;

  if (!params || !*params)
    return;
  full = g_strdup_printf ("stageprof,%s", params);
  s = gst_structure_from_string (full, NULL);
  g_free (full);
  if (s) {
    gst_structure_foreach (s, param_foreach, self);
    gst_structure_free (s);
    return;
  }
  items = g_strsplit (params, ",", -1);
  for (guint i = 0; items[i]; i++) {
    gchar *item = g_strstrip (items[i]);
    gchar *eq = strchr (item, '=');
    if (!*item)
      continue;
    if (!eq) {
      g_warning ("stageprof: parameter '%s' has no value (write key=value)",
          item);
      continue;
    }
    *eq = '\0';
    apply_param (self, g_strstrip (item), g_strstrip (eq + 1));
  }
  g_strfreev (items);
}

/* ------------------------------------------------------------------ */
/* Actions */

static gboolean
stage_prof_write_trace (GstStageProf * self, const gchar * path)
{
  SpTrace *t;
  GError *err = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  t = self->trace;
  GST_OBJECT_UNLOCK (self);
  if (!t) {
    g_warning ("stageprof: write-trace: no trace is being recorded; set the "
        "'trace' parameter or property first");
    return FALSE;
  }
  if (!path) {
    sp_trace_flush (t);
    return TRUE;
  }
  ok = sp_trace_write_copy (t, path, &err);
  if (!ok) {
    GST_ERROR_OBJECT (self, "write-trace: %s", err->message);
    g_warning ("stageprof: write-trace: %s", err->message);
    g_clear_error (&err);
  }
  return ok;
}

static GstStructure *
stage_prof_get_summary (GstStageProf * self)
{
  return sp_recorder_summary (self->rec, NULL, FALSE);
}

static void
stage_prof_reset (GstStageProf * self)
{
  sp_recorder_reset (self->rec);
}

/* ------------------------------------------------------------------ */
/* GObject */

static void
gst_stage_prof_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageProf *self = GST_STAGE_PROF (object);

  switch (prop_id) {
    case PROP_TRACE:
      stage_prof_set_trace (self, g_value_get_string (value));
      break;
    case PROP_SUMMARY:{
      const gchar *v = g_value_get_string (value);
      GST_OBJECT_LOCK (self);
      g_free (self->summary);
      self->summary = g_strdup (v && *v ? v : "none");
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_SKIP_FIRST:
      GST_OBJECT_LOCK (self);
      self->skip_first = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      sp_recorder_set_skip_first (self->rec, self->skip_first);
      break;
    case PROP_INTERVAL:
      stage_prof_set_interval (self, g_value_get_double (value));
      break;
    case PROP_DB:
      stage_prof_set_db (self, g_value_get_string (value));
      break;
    case PROP_FILTER:
      stage_prof_set_filter (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_stage_prof_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstStageProf *self = GST_STAGE_PROF (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TRACE:
      g_value_set_string (value, self->trace_path);
      break;
    case PROP_SUMMARY:
      g_value_set_string (value, self->summary);
      break;
    case PROP_SKIP_FIRST:
      g_value_set_uint (value, self->skip_first);
      break;
    case PROP_INTERVAL:
      g_value_set_double (value, self->interval);
      break;
    case PROP_DB:
      g_value_set_string (value, self->db_path);
      break;
    case PROP_FILTER:
      g_value_set_string (value, self->filter);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
stage_prof_atexit (void)
{
  if (live_prof)
    stage_prof_final_output (live_prof);
}

static void
gst_stage_prof_constructed (GObject * object)
{
  GstStageProf *self = GST_STAGE_PROF (object);
  GstTracer *tracer = GST_TRACER (object);
  gchar *params = NULL;

  G_OBJECT_CLASS (parent_class)->constructed (object);

  /* Streaming threads keep one recording state each (sprecord.c): a second
   * instance would fight the first over it. */
  if (live_prof != NULL) {
    g_warning ("stageprof: only one stageprof tracer per process is "
        "supported; ignoring the second one in GST_TRACERS");
    return;
  }

  g_object_get (object, "params", &params, NULL);
  stage_prof_parse_params (self, params);
  g_free (params);

  gst_tracing_register_hook (tracer, "pad-push-pre", G_CALLBACK (do_push_pre));
  gst_tracing_register_hook (tracer, "pad-push-post",
      G_CALLBACK (do_push_post));
  gst_tracing_register_hook (tracer, "pad-push-list-pre",
      G_CALLBACK (do_push_list_pre));
  gst_tracing_register_hook (tracer, "pad-push-list-post",
      G_CALLBACK (do_push_post));
  gst_tracing_register_hook (tracer, "pad-chain-pre",
      G_CALLBACK (do_chain_pre));
  gst_tracing_register_hook (tracer, "pad-chain-post",
      G_CALLBACK (do_chain_post));
  gst_tracing_register_hook (tracer, "pad-chain-list-pre",
      G_CALLBACK (do_chain_list_pre));
  gst_tracing_register_hook (tracer, "pad-chain-list-post",
      G_CALLBACK (do_chain_post));
  gst_tracing_register_hook (tracer, "pad-pull-range-pre",
      G_CALLBACK (do_pull_range_pre));
  gst_tracing_register_hook (tracer, "pad-pull-range-post",
      G_CALLBACK (do_pull_range_post));
  gst_tracing_register_hook (tracer, "pad-push-event-pre",
      G_CALLBACK (do_push_event_pre));
  gst_tracing_register_hook (tracer, "pad-push-event-post",
      G_CALLBACK (do_push_event_post));
  gst_tracing_register_hook (tracer, "element-change-state-post",
      G_CALLBACK (do_change_state_post));
  gst_tracing_register_hook (tracer, "object-destroyed",
      G_CALLBACK (do_object_destroyed));
  /* GStreamer looks every hook it fires up in one GHashTable (GLib's open
   * addressing), and the object and mini-object ref hooks, dozens per
   * buffer, miss in it. Our 14 keys leave that table of 16 slots nearly
   * full, so each miss walks a long probe chain: a third of stageprof's
   * overhead on fakesrc ! 8 x identity ! fakesink (callgrind). Two more keys
   * make GLib grow it to 32 slots. Both fire only while pipelines are
   * built. */
  gst_tracing_register_hook (tracer, "element-new",
      G_CALLBACK (do_element_new));
  gst_tracing_register_hook (tracer, "pad-link-post",
      G_CALLBACK (do_pad_link_post));

  live_prof = self;
  if (!atexit_registered) {
    atexit_registered = TRUE;
    atexit (stage_prof_atexit);
  }
}

/* Runs once: at gst_deinit() (finalize) or at exit, whichever comes first.
 * Prints what no pipeline stop printed yet and closes the files. */
static void
stage_prof_final_output (GstStageProf * self)
{
  gchar *where;
  gboolean stream;
  guint i;

  g_mutex_lock (&self->out_lock);
  if (self->final_done) {
    g_mutex_unlock (&self->out_lock);
    return;
  }
  self->final_done = TRUE;
  g_mutex_unlock (&self->out_lock);

  stage_prof_stop_ticker (self);
  where = dup_setting (self, &self->summary);
  stream = where && (strcmp (where, "stdout") == 0
      || strcmp (where, "stderr") == 0);
  if (stream) {
    stage_prof_write_summary (self, SP_RECORDER_PENDING, "(at exit)", FALSE);
  } else if (where && strcmp (where, "none") != 0) {
    stage_prof_write_summary (self, NULL, NULL, FALSE);
  }
#ifdef HAVE_SPDB
  if (self->db && sp_recorder_has_data (self->rec, NULL)) {
    GstStructure *s = sp_recorder_summary (self->rec, NULL, TRUE);
    sp_db_add_snapshot (self->db, s);
    gst_structure_free (s);
  }
  if (self->db) {
    sp_db_close (self->db);
    self->db = NULL;
  }
#endif
  g_free (where);
  /* The hooks may still fire from threads of a pipeline that was never
   * stopped: detach before closing so nobody records into a freed trace. */
  sp_recorder_set_trace (self->rec, NULL);
  GST_OBJECT_LOCK (self);
  if (self->trace)
    g_ptr_array_add (self->old_traces, self->trace);
  self->trace = NULL;
  GST_OBJECT_UNLOCK (self);
  for (i = 0; i < self->old_traces->len; i++)
    sp_trace_free (g_ptr_array_index (self->old_traces, i));
  g_ptr_array_set_size (self->old_traces, 0);
}

static void
gst_stage_prof_finalize (GObject * object)
{
  GstStageProf *self = GST_STAGE_PROF (object);

  if (live_prof == self) {
    stage_prof_final_output (self);
    live_prof = NULL;
  }
  sp_recorder_free (self->rec);
  sp_meta_free (self->meta);
  g_ptr_array_free (self->old_traces, TRUE);
  g_free (self->trace_path);
  g_free (self->summary);
  g_free (self->db_path);
  g_free (self->filter);
  g_mutex_clear (&self->out_lock);
  g_mutex_clear (&self->tick_lock);
  g_cond_clear (&self->tick_cond);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_stage_prof_class_init (GstStageProfClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_stage_prof_set_property;
  gobject_class->get_property = gst_stage_prof_get_property;
  gobject_class->constructed = gst_stage_prof_constructed;
  gobject_class->finalize = gst_stage_prof_finalize;
#if GST_CHECK_VERSION (1, 26, 0)
  /* 1.26 parses "stageprof(trace=...)" itself and sets the properties;
   * before that the params string arrives whole (see constructed). */
  gst_tracer_class_set_use_structure_params (GST_TRACER_CLASS (klass), TRUE);
#endif

  g_object_class_install_property (gobject_class, PROP_TRACE,
      g_param_spec_string ("trace", "Trace file",
          "Write a Chrome trace (chrome://tracing, Perfetto UI) to this path; "
          "NULL: no trace", DEFAULT_PROP_TRACE, flags));
  g_object_class_install_property (gobject_class, PROP_SUMMARY,
      g_param_spec_string ("summary", "Summary output",
          "Where the summary tables go when a pipeline stops and at exit: "
          "stdout, stderr, none, or a path (.json: JSON, .csv: CSV, "
          "otherwise text)", DEFAULT_PROP_SUMMARY, flags));
  g_object_class_install_property (gobject_class, PROP_SKIP_FIRST,
      g_param_spec_uint ("skip-first", "Skip first",
          "Warm-up samples left out of the statistics of each element and "
          "each queue", 0, G_MAXUINT, DEFAULT_PROP_SKIP_FIRST, flags));
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_double ("interval", "Snapshot interval",
          "Seconds between periodic snapshots written to the debug log "
          "(GST_DEBUG=stageprof:5) and to the database; 0: off",
          0, 1e6, DEFAULT_PROP_INTERVAL, flags));
  g_object_class_install_property (gobject_class, PROP_DB,
      g_param_spec_string ("db", "SQLite database",
          "Store the final and periodic statistics in this SQLite database; "
          "NULL: off", DEFAULT_PROP_DB, flags));
  g_object_class_install_property (gobject_class, PROP_FILTER,
      g_param_spec_string ("filter", "Element filter",
          "Regular expression on element names: only matching elements get "
          "trace slices (the tables still count every element); NULL: all",
          DEFAULT_PROP_FILTER, flags));

  /**
   * GstStageProf::write-trace:
   * @path: where to write a strict-JSON copy of the trace so far, or NULL
   *   to flush the trace file
   *
   * Returns: whether the copy was written.
   */
  signals[SIGNAL_WRITE_TRACE] = g_signal_new_class_handler ("write-trace",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (stage_prof_write_trace), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, G_TYPE_STRING);
  /**
   * GstStageProf::get-summary:
   *
   * Returns: (transfer full): the "stageprof-summary" structure over every
   *   pipeline so far.
   */
  signals[SIGNAL_GET_SUMMARY] = g_signal_new_class_handler ("get-summary",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (stage_prof_get_summary), NULL, NULL, NULL,
      GST_TYPE_STRUCTURE, 0);
  /**
   * GstStageProf::reset:
   *
   * Forgets every statistic recorded so far (the trace file is kept).
   */
  signals[SIGNAL_RESET] = g_signal_new_class_handler ("reset",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (stage_prof_reset), NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
gst_stage_prof_init (GstStageProf * self)
{
  self->rec = sp_recorder_new ();
  self->meta = sp_meta_new ();
  self->summary = g_strdup (DEFAULT_PROP_SUMMARY);
  self->skip_first = DEFAULT_PROP_SKIP_FIRST;
  self->interval = DEFAULT_PROP_INTERVAL;
  self->old_traces = g_ptr_array_new ();
  g_mutex_init (&self->out_lock);
  g_mutex_init (&self->tick_lock);
  g_cond_init (&self->tick_cond);
}
