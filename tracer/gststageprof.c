/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
 * in spmeta.c, the periodic work (snapshots, the status line
 * of spprogress.c) in gststageprof-ticker.c: this file is the GStreamer
 * plumbing.
 *
 * Replacing outputs at runtime. Hooks run inside an spguard section
 * (spguard.h): a replaced trace is detached, then closed and freed once
 * every streaming thread that might hold it has left its hook. The db and
 * the trace are otherwise touched under their own mutexes (db_lock,
 * trace_lock). Every lock and the order they are taken in:
 * docs/architecture.md, "Locks".
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gststageprof-priv.h"
#include "spcuda.h"
#include "jsontext.h"
#include "spguard.h"
#include "spmeta.h"
#include "sppool.h"
#include "spsummary.h"

#define GST_CAT_DEFAULT gst_stage_prof_debug

#define DEFAULT_PROP_TRACE NULL
#define DEFAULT_PROP_SUMMARY "stdout"
#define DEFAULT_PROP_SKIP_FIRST 0
#define DEFAULT_PROP_INTERVAL 0.0
/* The shortest interval= taken (s); docs/tracer.md. */
#define STAGE_PROF_MIN_INTERVAL 0.001
#define DEFAULT_PROP_DB NULL
#define DEFAULT_PROP_FILTER NULL
#define DEFAULT_PROP_PROGRESS FALSE
#define DEFAULT_PROP_CUDA_SYNC FALSE
#define DEFAULT_PROP_LATENCY FALSE
#define DEFAULT_PROP_MEMORY FALSE
#define DEFAULT_PROP_METRICS NULL
#define DEFAULT_PROP_METRICS_ANY_ADDRESS FALSE

enum
{
  PROP_0,
  PROP_TRACE,
  PROP_SUMMARY,
  PROP_SKIP_FIRST,
  PROP_INTERVAL,
  PROP_DB,
  PROP_FILTER,
  PROP_PROGRESS,
  PROP_CUDA_SYNC,
  PROP_LATENCY,
  PROP_MEMORY,
  PROP_METRICS,
  PROP_METRICS_ANY_ADDRESS,
};

enum
{
  SIGNAL_WRITE_TRACE,
  SIGNAL_GET_SUMMARY,
  SIGNAL_RESET,
  SIGNAL_GET_WINDOW,
  LAST_SIGNAL
};

static guint signals[LAST_SIGNAL];


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

/* cuda-sync=true: a push of CUDA memory waits for the GPU work behind it
 * first, so the pushing element's time holds its GPU time. */
static void
do_push_pre (GObject * self, GstClockTime ts, GstPad * pad, GstBuffer * buf)
{
  sp_guard_enter ();
  if (G_UNLIKELY (((GstStageProf *) self)->cuda_sync))
    ts += sp_cuda_sync_buffer (buf);
  sp_record_push_pre (((GstStageProf *) self)->rec, ts, pad, buf, NULL);
  if (G_UNLIKELY (((GstStageProf *) self)->latency))
    sp_latency_push (sp_recorder_latency (((GstStageProf *) self)->rec), ts,
        pad, buf);
  sp_guard_leave ();
}

static void
do_push_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  sp_guard_enter ();
  sp_record_push_pre (((GstStageProf *) self)->rec, ts, pad, NULL, list);
  if (G_UNLIKELY (((GstStageProf *) self)->latency)
      && gst_buffer_list_length (list) > 0)
    sp_latency_push (sp_recorder_latency (((GstStageProf *) self)->rec), ts,
        pad, gst_buffer_list_get (list, 0));
  sp_guard_leave ();
}

static void
do_push_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  sp_guard_enter ();
  sp_record_push_post (((GstStageProf *) self)->rec, ts, pad);
  sp_guard_leave ();
}

static void
do_chain_pre (GObject * self, GstClockTime ts, GstPad * pad, GstBuffer * buf)
{
  sp_guard_enter ();
  sp_record_chain_pre (((GstStageProf *) self)->rec, ts, pad, buf, NULL);
  if (G_UNLIKELY (((GstStageProf *) self)->latency))
    sp_latency_chain (sp_recorder_latency (((GstStageProf *) self)->rec), ts,
        pad, buf);
  sp_guard_leave ();
}

static void
do_chain_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  sp_guard_enter ();
  sp_record_chain_pre (((GstStageProf *) self)->rec, ts, pad, NULL, list);
  if (G_UNLIKELY (((GstStageProf *) self)->latency)
      && gst_buffer_list_length (list) > 0)
    sp_latency_chain (sp_recorder_latency (((GstStageProf *) self)->rec), ts,
        pad, gst_buffer_list_get (list, 0));
  sp_guard_leave ();
}

static void
do_chain_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  sp_guard_enter ();
  sp_record_chain_post (((GstStageProf *) self)->rec, ts, pad);
  if (G_UNLIKELY (((GstStageProf *) self)->latency))
    sp_latency_chain_post (sp_recorder_latency (((GstStageProf *) self)->rec),
        ts, pad);
  sp_guard_leave ();
}

/* latency=true: what each sink's LATENCY query answered. */
static void
do_element_query_post (GObject * self, GstClockTime ts, GstElement * element,
    GstQuery * query, gboolean res)
{
  if (!((GstStageProf *) self)->latency)
    return;
  sp_latency_query (sp_recorder_latency (((GstStageProf *) self)->rec),
      element, query, res);
}

static void
do_pull_range_pre (GObject * self, GstClockTime ts, GstPad * pad,
    guint64 offset, guint size)
{
  sp_guard_enter ();
  sp_record_pull_pre (((GstStageProf *) self)->rec, ts, pad);
  sp_guard_leave ();
}

static void
do_pull_range_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer, GstFlowReturn res)
{
  sp_guard_enter ();
  sp_record_pull_post (((GstStageProf *) self)->rec, ts, pad);
  sp_guard_leave ();
}

static void
do_push_event_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstEvent * event)
{
  sp_guard_enter ();
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    sp_record_flush_stop (((GstStageProf *) self)->rec, ts, pad);
  sp_record_event_pre (((GstStageProf *) self)->rec, ts, pad,
      GST_EVENT_TYPE (event) == GST_EVENT_EOS);
  sp_guard_leave ();
}

static void
do_push_event_post (GObject * self, GstClockTime ts, GstPad * pad,
    gboolean res)
{
  sp_guard_enter ();
  sp_record_event_post (((GstStageProf *) self)->rec, ts, pad);
  sp_guard_leave ();
}

/* memory=true: buffer pools (sppool.c). Hooks of their own, registered
 * only when it is on, so that the default hot path does not test for it. */
static void
do_pool_push_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buf)
{
  sp_pools_push (sp_recorder_pools (((GstStageProf *) self)->rec), ts, pad,
      buf);
}

static void
do_pool_push_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  sp_pools_push_list (sp_recorder_pools (((GstStageProf *) self)->rec), ts,
      pad, list);
}

static void
do_pool_push_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  sp_pools_push_post (sp_recorder_pools (((GstStageProf *) self)->rec), ts,
      pad);
}

static void
do_pool_chain_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buf)
{
  sp_pools_chain (sp_recorder_pools (((GstStageProf *) self)->rec), ts, pad,
      buf);
}

static void
do_pool_chain_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  sp_pools_chain_list (sp_recorder_pools (((GstStageProf *) self)->rec), ts,
      pad, list);
}

static void
do_pool_event_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstEvent * event)
{
  sp_pools_event (sp_recorder_pools (((GstStageProf *) self)->rec), ts, pad,
      event);
}

static void
do_pool_unreffed (GObject * self, GstClockTime ts, GstMiniObject * obj,
    gint refcount)
{
  sp_pools_unreffed (sp_recorder_pools (((GstStageProf *) self)->rec), ts,
      obj, refcount);
}

static void
do_pool_query_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstQuery * query, gboolean res)
{
  sp_pools_query (sp_recorder_pools (((GstStageProf *) self)->rec), pad,
      query, res);
}

static void
do_pool_object_destroyed (GObject * self, GstClockTime ts, GstObject * obj)
{
  sp_pools_object_destroyed (sp_recorder_pools (((GstStageProf *) self)->rec),
      obj);
}

/* Once, from the parameters or the first memory=true. GStreamer's hook
 * table is not locked: registered while no pipeline streams (in
 * GST_TRACERS, or before the first pipeline starts; docs/tracer.md). */
static void
stage_prof_hook_pools (GstStageProf * self)
{
  GstTracer *tracer = GST_TRACER (self);

  if (self->pools_hooked)
    return;
  self->pools_hooked = TRUE;
  sp_recorder_enable_pools (self->rec);
  gst_tracing_register_hook (tracer, "pad-push-pre",
      G_CALLBACK (do_pool_push_pre));
  gst_tracing_register_hook (tracer, "pad-push-list-pre",
      G_CALLBACK (do_pool_push_list_pre));
  gst_tracing_register_hook (tracer, "pad-push-post",
      G_CALLBACK (do_pool_push_post));
  gst_tracing_register_hook (tracer, "pad-push-list-post",
      G_CALLBACK (do_pool_push_post));
  gst_tracing_register_hook (tracer, "pad-chain-pre",
      G_CALLBACK (do_pool_chain_pre));
  gst_tracing_register_hook (tracer, "pad-chain-list-pre",
      G_CALLBACK (do_pool_chain_list_pre));
  gst_tracing_register_hook (tracer, "pad-push-event-pre",
      G_CALLBACK (do_pool_event_pre));
  gst_tracing_register_hook (tracer, "mini-object-unreffed",
      G_CALLBACK (do_pool_unreffed));
  gst_tracing_register_hook (tracer, "pad-query-post",
      G_CALLBACK (do_pool_query_post));
  gst_tracing_register_hook (tracer, "object-destroyed",
      G_CALLBACK (do_pool_object_destroyed));
}

/* element-new and pad-link-post are registered for their keys (see
 * gst_stage_prof_constructed) and, firing only while pipelines are built,
 * are where spmeta learns the trace clock and the links. trace_lock keeps
 * the trace from being replaced under them. */
static void
stage_prof_meta_clock (GstStageProf * self, GstClockTime ts)
{
  g_mutex_lock (&self->trace_lock);
  sp_meta_clock (self->meta, self->trace, ts);
  g_mutex_unlock (&self->trace_lock);
}

/* From an element's streaming thread, once per frame (stagegputiming.h). */
static void
gpu_report (gpointer data, GstElement * element, guint64 start_ns,
    guint64 end_ns)
{
  GstStageProf *self = data;

  sp_guard_enter ();
  sp_record_gpu (self->rec, element, start_ns + self->gpu_offset,
      end_ns + self->gpu_offset);
  sp_guard_leave ();
}

static void
do_element_new (GObject * object, GstClockTime ts, GstElement * element)
{
  GstStageProf *self = (GstStageProf *) object;

  stage_prof_meta_clock (self, ts);
  /* Hook time from gst_util_get_timestamp(), for GPU reports and for the
   * ends of windows (the ticker). */
  if (g_once_init_enter (&self->gpu_offset_once)) {
    self->gpu_offset = (gint64) ts - (gint64) gst_util_get_timestamp ();
    g_once_init_leave (&self->gpu_offset_once, 1);
  }
  /* Elements that can time their GPU work say so in their class metadata
   * (stageresize built with CUDA). */
  if (gst_element_get_metadata (element, STAGE_GPU_TIMING_KEY)) {
    g_object_set_data (G_OBJECT (element), STAGE_GPU_TIMING_KEY,
        &self->gpu_timing);
  }
}

static void
do_pad_link_post (GObject * object, GstClockTime ts, GstPad * srcpad,
    GstPad * sinkpad, GstPadLinkReturn res)
{
  GstStageProf *self = (GstStageProf *) object;

  stage_prof_meta_clock (self, ts);
  if (res != GST_PAD_LINK_OK)
    return;
  g_mutex_lock (&self->trace_lock);
  sp_meta_pad_linked (self->meta, self->trace, srcpad, sinkpad);
  g_mutex_unlock (&self->trace_lock);
}

static void
do_object_destroyed (GObject * object, GstClockTime ts, GstObject * obj)
{
  GstStageProf *self = (GstStageProf *) object;

  if (GST_IS_ELEMENT (obj))
    sp_meta_object_destroyed (self->meta, obj);
  sp_guard_enter ();
  if (GST_IS_ELEMENT (obj))
    sp_record_element_destroyed (self->rec, obj);
  else if (GST_IS_PAD (obj))
    sp_record_pad_destroyed (self->rec, obj);
  sp_guard_leave ();
  if (GST_IS_PIPELINE (obj)) {
    g_mutex_lock (&self->pipes_lock);
    g_ptr_array_remove_fast (self->pipes, obj);
    g_hash_table_remove (self->windows, obj);
    g_mutex_unlock (&self->pipes_lock);
  }
}

static void
write_text (GstStageProf * self, const gchar * where, const gchar * text)
{
  FILE *f = strcmp (where, "stderr") == 0 ? stderr : stdout;

  stage_prof_end_progress_line (self);
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

/* The file is replaced whole (a temporary file renamed over it; a device
 * or a FIFO written in place, common/spfile.h); a symbolic link at the path
 * is refused (docs/tracer.md, "Output files"). */
static void
stage_prof_write_summary_file (GstStageProf * self, const GstStructure * s,
    const gchar * where)
{
  GError *err = NULL;

  if (!sp_summary_write_file (s, where, &err)) {
    GST_ERROR_OBJECT (self, "%s", err->message);
    g_warning ("stageprof: %s", err->message);
    g_clear_error (&err);
  }
}

/* Writes `pipeline`'s summary (NULL: all pipelines; SP_RECORDER_PENDING:
 * those not summarized yet) where the `summary` setting says. Streams get
 * the tables of that pipeline; a file always gets the whole process. With
 * `to_db`, `pipeline` is one pipeline whose run just ended: its final
 * snapshot goes to the database. */
static void
stage_prof_write_summary (GstStageProf * self, gpointer pipeline,
    const gchar * title, gboolean to_db)
{
  gchar *where = dup_setting (self, &self->summary), *summary_json = NULL;
  GstStructure *s;

  g_mutex_lock (&self->out_lock);
  if (!sp_summary_has_data (self->rec, pipeline))
    goto done;
  if (pipeline != NULL && pipeline != SP_RECORDER_PENDING) {
    gint run = sp_summary_latest_run (self->rec, pipeline);
    if (GPOINTER_TO_INT (g_hash_table_lookup (self->written_runs,
                pipeline)) == run)
      goto done;
    g_hash_table_insert (self->written_runs, pipeline, GINT_TO_POINTER (run));
  }
  /* Final for what it covers: a pipeline that stopped, or the process. */
  s = to_db ? stage_prof_pipeline_summary (self, pipeline, TRUE) :
      sp_summary_build (self->rec, pipeline, TRUE);
  if (to_db) {
    stage_prof_db_add (self, s);
    /* The trace carries the run's summary: stageprof-report reads its
     * rows and verdict from there, so a trace shows what the summary and
     * the database show (its slices give the timeline). */
    summary_json = sp_summary_to_json (s);
  }
  if (where == NULL || strcmp (where, "none") == 0) {
    /* nothing to print */
  } else if (strcmp (where, "stdout") == 0 || strcmp (where, "stderr") == 0) {
    gchar *text = sp_summary_to_text (s, title);
    write_text (self, where, text);
    g_free (text);
  } else {
    GstStructure *all = pipeline ? sp_summary_build (self->rec, NULL,
        TRUE) : gst_structure_copy (s);

    stage_prof_write_summary_file (self, all, where);
    gst_structure_free (all);
  }
  gst_structure_free (s);
  sp_recorder_mark_summarized (self->rec, pipeline, TRUE);
done:
  g_mutex_unlock (&self->out_lock);
  g_free (where);
  if (summary_json) {
    GString *ev = g_string_new ("{\"name\":\"stageprof_summary\",\"ph\":\"M\","
        "\"pid\":0,\"tid\":0,\"args\":{\"summary\":\"");

    g_strchomp (summary_json);
    stage_json_escape (ev, summary_json);
    g_string_append (ev, "\"}}\n");
    g_mutex_lock (&self->trace_lock);
    if (self->trace)
      sp_trace_metadata (self->trace, ev->str, FALSE);
    g_mutex_unlock (&self->trace_lock);
    g_string_free (ev, TRUE);
    g_free (summary_json);
  }
}

/* Before an element stops: the CPU of the threads it started (a codec's
 * workers), which stopping it ends. Bins and queues start none of their
 * own; the others get one look at /proc each when a pipeline stops. */
static void
do_change_state_pre (GObject * object, GstClockTime ts, GstElement * element,
    GstStateChange transition)
{
  if (transition != GST_STATE_CHANGE_PAUSED_TO_READY || GST_IS_BIN (element))
    return;
  sp_guard_enter ();
  sp_threads_refresh (GST_STAGE_PROF (object)->rec);
  sp_guard_leave ();
}

static void
do_change_state_post (GObject * object, GstClockTime ts, GstElement * element,
    GstStateChange transition, GstStateChangeReturn result)
{
  GstStageProf *self = GST_STAGE_PROF (object);
  gboolean top = GST_IS_PIPELINE (element)
      && GST_OBJECT_PARENT (element) == NULL;

  sp_guard_enter ();
  sp_record_state_changed (self->rec, ts, element, transition);
  sp_guard_leave ();
  if (!top)
    return;
  stage_prof_meta_clock (self, ts);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    g_mutex_lock (&self->trace_lock);
    sp_meta_pipeline_started (self->meta, self->trace, element);
    g_mutex_unlock (&self->trace_lock);
    sp_recorder_mark_summarized (self->rec, element, FALSE);
    g_mutex_lock (&self->pipes_lock);
    if (!g_ptr_array_find (self->pipes, element, NULL))
      g_ptr_array_add (self->pipes, element);
    g_mutex_unlock (&self->pipes_lock);
  } else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    /* A run ends here, whether the pipeline goes on to NULL or plays
     * again: its summary now (the NULL after does not repeat it). */
    stage_prof_end_windows (self, element);
    stage_prof_write_summary (self, element, GST_OBJECT_NAME (element),
        TRUE);
    g_mutex_lock (&self->trace_lock);
    if (self->trace)
      sp_summary_trace_meta (self->rec, self->trace, element);
    g_mutex_unlock (&self->trace_lock);
  } else if (transition == GST_STATE_CHANGE_READY_TO_NULL) {
    /* Out of the ticker's list first: no periodic snapshot after the
     * final one. */
    g_mutex_lock (&self->pipes_lock);
    g_ptr_array_remove_fast (self->pipes, element);
    g_hash_table_remove (self->windows, element);
    g_mutex_unlock (&self->pipes_lock);
    stage_prof_write_summary (self, element, GST_OBJECT_NAME (element),
        TRUE);
    /* The pipeline's address may be a new pipeline's next. */
    g_mutex_lock (&self->out_lock);
    g_hash_table_remove (self->written_runs, element);
    g_mutex_unlock (&self->out_lock);
    g_mutex_lock (&self->trace_lock);
    if (self->trace)
      sp_trace_flush (self->trace);
    g_mutex_unlock (&self->trace_lock);
  }
}

/* ------------------------------------------------------------------ */
/* Settings */

/* Detaches the live trace and frees it once no hook can be inside it.
 * trace_lock held. */
static void
stage_prof_close_trace_locked (GstStageProf * self)
{
  SpTrace *old = self->trace;

  if (!old)
    return;
  sp_recorder_set_trace (self->rec, NULL);
  GST_OBJECT_LOCK (self);
  self->trace = NULL;
  g_free (self->trace_path);
  self->trace_path = NULL;
  GST_OBJECT_UNLOCK (self);
  sp_guard_synchronize ();
  sp_trace_free (old);
}

/* The old trace is closed (strict JSON) before the new one is opened, so
 * setting the same path again never puts two writers on one file. */
static void
stage_prof_set_trace (GstStageProf * self, const gchar * path)
{
  SpTrace *t = NULL;
  GError *err = NULL;

  g_mutex_lock (&self->trace_lock);
  stage_prof_close_trace_locked (self);
  if (path && *path) {
    t = sp_trace_new (path, &err);
    if (!t) {
      GST_ERROR_OBJECT (self, "trace disabled: %s", err->message);
      g_warning ("stageprof: trace disabled: %s", err->message);
      g_clear_error (&err);
    }
  }
  if (t) {
    GST_OBJECT_LOCK (self);
    self->trace = t;
    self->trace_path = g_strdup (path);
    GST_OBJECT_UNLOCK (self);
    sp_recorder_set_trace (self->rec, t);
    sp_meta_trace_set (self->meta, t);
  }
  g_mutex_unlock (&self->trace_lock);
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
  /* Every user of self->db holds db_lock: once swapped, nobody can be
   * queuing into the old one, and closing it is safe. */
  g_mutex_lock (&self->db_lock);
  old = self->db;
  self->db = db;
  g_mutex_unlock (&self->db_lock);
  GST_OBJECT_LOCK (self);
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

/* A value of summary= that is no keyword, has no directory separator and
 * no extension is most likely a mistyped keyword (summary=stdot). */
static gboolean
summary_looks_mistyped (const gchar * v)
{
  const gchar *base;

  if (strcmp (v, "stdout") == 0 || strcmp (v, "stderr") == 0
      || strcmp (v, "none") == 0)
    return FALSE;
  if (strchr (v, '/') || strchr (v, G_DIR_SEPARATOR))
    return FALSE;
  base = strrchr (v, '.');
  return base == NULL || base == v || base[1] == '\0';
}

static void
stage_prof_set_interval (GstStageProf * self, gdouble seconds)
{
  /* A step that rounds to 0 µs would never advance (the ticker spun at
   * 100 % and the process never exited). */
  if (seconds > 0 && seconds < STAGE_PROF_MIN_INTERVAL) {
    g_warning ("stageprof: interval=%g is below the minimum of %g s; "
        "periodic snapshots stay off", seconds, STAGE_PROF_MIN_INTERVAL);
    seconds = 0;
  }
  GST_OBJECT_LOCK (self);
  self->interval = seconds;
  GST_OBJECT_UNLOCK (self);
  stage_prof_ticker_restart (self);
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

static void apply_param (GstStageProf * self, const gchar * key,
    const gchar * value);

/* The parameters are the tracer's own properties: one list for the
 * parser, its warnings and gst-inspect-1.0. NULL when @key is none. */
static GParamSpec *
param_spec (GstStageProf * self, const gchar * key)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (self),
      key);

  if (ps == NULL || ps->owner_type != G_OBJECT_TYPE (self)
      || !(ps->flags & G_PARAM_WRITABLE)
      || (ps->flags & G_PARAM_CONSTRUCT_ONLY))
    return NULL;
  return ps;
}

/* "trace, summary, ...": the names param_spec() takes, for a message. */
static gchar *
param_names (GstStageProf * self)
{
  GParamSpec **all;
  guint n, i;
  GString *out = g_string_new (NULL);

  all = g_object_class_list_properties (G_OBJECT_GET_CLASS (self), &n);
  for (i = 0; i < n; i++)
    if (param_spec (self, all[i]->name))
      g_string_append_printf (out, "%s%s", out->len ? ", " : "",
          all[i]->name);
  g_free (all);
  return g_string_free (out, FALSE);
}

/* "t.json summary=none": a space where a ',' was meant. The file would be
 * named "t.json summary=none" and the summary left on: warn, and take the
 * parameters as meant. TRUE when @value was split so. */
static gboolean
split_space_typo (GstStageProf * self, const gchar * key, const gchar * value)
{
  const gchar *sp;

  for (sp = value; (sp = strpbrk (sp, " \t")) != NULL; sp++) {
    const gchar *next = sp, *eq;
    gchar *k, *first, *rest;
    gboolean known;

    while (*next == ' ' || *next == '\t')
      next++;
    eq = strchr (next, '=');
    k = eq ? g_strndup (next, eq - next) : NULL;
    known = k && param_spec (self, k) != NULL;
    g_free (k);
    if (!known)
      continue;
    first = g_strndup (value, sp - value);
    g_warning ("stageprof: %s='%s' holds another parameter after a "
        "space: parameters are separated by ',' (stageprof(%s=%s,%s)); "
        "taken as meant", key, value, key, first, next);
    apply_param (self, key, first);
    g_free (first);
    /* the rest may hold more of them */
    rest = g_strdup (next);
    *strchr (rest, '=') = '\0';
    apply_param (self, rest, rest + strlen (rest) + 1);
    g_free (rest);
    return TRUE;
  }
  return FALSE;
}

/* GST_TRACERS separates tracers with ';': "stageprof(trace=t.json;
 * summary=none)" gives stageprof "trace=t.json" and drops the rest
 * silently. Read the variable and say so. */
static void
warn_semicolon (void)
{
  const gchar *env = g_getenv ("GST_TRACERS");
  const gchar *open = env ? strstr (env, "stageprof(") : NULL;
  const gchar *semi, *close;

  if (!open)
    return;
  semi = strchr (open, ';');
  close = strchr (open, ')');
  if (semi && (!close || semi < close)) {
    gchar *lost = close ? g_strndup (semi + 1, close - semi - 1) :
        g_strdup (semi + 1);

    g_warning ("stageprof: GST_TRACERS splits tracers at ';', so '%s' inside "
        "stageprof(...) never reached stageprof: separate its parameters "
        "with ',' (GST_TRACERS=\"stageprof(a=1,b=2)\")", lost);
    g_free (lost);
  }
}

/* @value in the property's own type; FALSE when it is not one. */
static gboolean
param_value (GParamSpec * ps, const gchar * value, GValue * v)
{
  guint u;
  gdouble d;

  g_value_init (v, ps->value_type);
  if (G_IS_PARAM_SPEC_BOOLEAN (ps)) {
    if (g_ascii_strcasecmp (value, "true") == 0 || strcmp (value, "1") == 0
        || g_ascii_strcasecmp (value, "yes") == 0)
      g_value_set_boolean (v, TRUE);
    else if (g_ascii_strcasecmp (value, "false") == 0
        || strcmp (value, "0") == 0 || g_ascii_strcasecmp (value, "no") == 0)
      g_value_set_boolean (v, FALSE);
    else
      return FALSE;
  } else if (G_IS_PARAM_SPEC_UINT (ps)) {
    if (!parse_uint (value, &u))
      return FALSE;
    g_value_set_uint (v, u);
  } else if (G_IS_PARAM_SPEC_DOUBLE (ps)) {
    if (!parse_seconds (value, &d) || d > G_PARAM_SPEC_DOUBLE (ps)->maximum)
      return FALSE;
    g_value_set_double (v, d);
  } else {
    g_value_set_string (v, value);
  }
  return TRUE;
}

/* What a bad value of @ps would have been, for its warning. */
static const gchar *
param_expected (GParamSpec * ps)
{
  if (G_IS_PARAM_SPEC_BOOLEAN (ps))
    return "true or false";
  if (G_IS_PARAM_SPEC_UINT (ps))
    return "a non-negative integer";
  return "a number of seconds between 0 and 1000000";
}

static void
apply_param (GstStageProf * self, const gchar * key, const gchar * value)
{
  GParamSpec *ps = param_spec (self, key);
  GValue v = G_VALUE_INIT, now = G_VALUE_INIT;

  if (ps == NULL) {
    gchar *names = param_names (self);

    g_warning ("stageprof: unknown parameter '%s' ignored (known: %s)", key,
        names);
    g_free (names);
    return;
  }
  if (G_IS_PARAM_SPEC_STRING (ps) && split_space_typo (self, key, value))
    return;
  if (param_value (ps, value, &v)) {
    g_object_set_property (G_OBJECT (self), key, &v);
  } else {
    gchar *kept;

    g_value_init (&now, ps->value_type);
    g_object_get_property (G_OBJECT (self), key, &now);
    kept = g_strdup_value_contents (&now);
    g_warning ("stageprof: %s='%s' is not %s; keeping %s", key, value,
        param_expected (ps), kept);
    g_free (kept);
    g_value_unset (&now);
  }
  g_value_unset (&v);
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

  warn_semicolon ();
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
  GError *err = NULL;
  gboolean ok = TRUE;

  /* trace_lock: the trace cannot be replaced (freed) under the copy. */
  g_mutex_lock (&self->trace_lock);
  if (!self->trace) {
    g_mutex_unlock (&self->trace_lock);
    g_warning ("stageprof: write-trace: no trace is being recorded; set the "
        "'trace' parameter or property first");
    return FALSE;
  }
  if (!path)
    sp_trace_flush (self->trace);
  else
    ok = sp_trace_write_copy (self->trace, path, &err);
  g_mutex_unlock (&self->trace_lock);
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
  return sp_summary_build (self->rec, NULL, FALSE);
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
      if (v && summary_looks_mistyped (v)) {
        g_warning ("stageprof: summary='%s' is not stdout, stderr or none, "
            "and has no extension or directory: a mistyped keyword? Keeping "
            "summary=%s (write ./%s.txt or similar for a file)", v,
            self->summary, v);
        break;
      }
      GST_OBJECT_LOCK (self);
      g_free (self->summary);
      self->summary = g_strdup (v && *v ? v : "none");
      GST_OBJECT_UNLOCK (self);
      stage_prof_ticker_restart (self);
      break;
    }
    case PROP_PROGRESS:
      GST_OBJECT_LOCK (self);
      self->progress = g_value_get_boolean (value);
      self->progress_set = TRUE;
      GST_OBJECT_UNLOCK (self);
      stage_prof_ticker_restart (self);
      break;
    case PROP_CUDA_SYNC:
      g_atomic_int_set (&self->cuda_sync, g_value_get_boolean (value));
      break;
    case PROP_LATENCY:
      if (g_value_get_boolean (value))
        sp_recorder_enable_latency (self->rec);
      g_atomic_int_set (&self->latency, g_value_get_boolean (value));
      break;
    case PROP_MEMORY:
      self->memory = g_value_get_boolean (value);
      /* Before construction ends, the hooks wait for it (constructed). */
      if (self->memory && self->constructed)
        stage_prof_hook_pools (self);
      break;
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
    case PROP_METRICS:
      GST_OBJECT_LOCK (self);
      g_free (self->metrics);
      self->metrics = g_value_dup_string (value);
      GST_OBJECT_UNLOCK (self);
      if (!self->parsing_params)
        stage_prof_metrics_restart (self);
      break;
    case PROP_METRICS_ANY_ADDRESS:{
      gboolean asked;
      GST_OBJECT_LOCK (self);
      self->metrics_any_address = g_value_get_boolean (value);
      asked = self->metrics != NULL;
      GST_OBJECT_UNLOCK (self);
      if (!self->parsing_params && asked)
        stage_prof_metrics_restart (self);
      break;
    }
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
    case PROP_PROGRESS:
      g_value_set_boolean (value, self->progress);
      break;
    case PROP_CUDA_SYNC:
      g_value_set_boolean (value, g_atomic_int_get (&self->cuda_sync));
      break;
    case PROP_LATENCY:
      g_value_set_boolean (value, g_atomic_int_get (&self->latency));
      break;
    case PROP_MEMORY:
      g_value_set_boolean (value, self->memory);
      break;
    case PROP_METRICS:
      g_value_set_string (value, self->metrics_served);
      break;
    case PROP_METRICS_ANY_ADDRESS:
      g_value_set_boolean (value, self->metrics_any_address);
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

  sp_guard_init ();
  g_object_get (object, "params", &params, NULL);
  self->parsing_params = TRUE;
  stage_prof_parse_params (self, params);
  self->parsing_params = FALSE;
  g_free (params);
  if (self->metrics)
    stage_prof_metrics_restart (self);

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
  gst_tracing_register_hook (tracer, "element-query-post",
      G_CALLBACK (do_element_query_post));
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
  gst_tracing_register_hook (tracer, "element-change-state-pre",
      G_CALLBACK (do_change_state_pre));
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
  self->constructed = TRUE;
  if (self->memory)
    stage_prof_hook_pools (self);

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
#ifdef HAVE_SPDB
  SpDb *db;
#endif

  g_mutex_lock (&self->out_lock);
  if (self->final_done) {
    g_mutex_unlock (&self->out_lock);
    return;
  }
  self->final_done = TRUE;
  g_mutex_unlock (&self->out_lock);

  /* No scrape from here on: the recorder goes with the tracer. */
  stage_prof_metrics_stop (self);

  g_mutex_lock (&self->tick_ctl_lock);
  stage_prof_ticker_stop (self);
  g_mutex_unlock (&self->tick_ctl_lock);
  /* The database gets the final snapshot of each pipeline still running
   * (those that stopped got theirs then): one per pipeline run. */
  g_mutex_lock (&self->pipes_lock);
  for (i = 0; i < self->pipes->len; i++) {
    gpointer pipe = g_ptr_array_index (self->pipes, i);
    if (sp_summary_has_data (self->rec, pipe)) {
      GstStructure *s = stage_prof_pipeline_summary (self, pipe, TRUE);
      stage_prof_db_add (self, s);
      gst_structure_free (s);
    }
  }
  g_ptr_array_set_size (self->pipes, 0);
  g_hash_table_remove_all (self->windows);
  g_mutex_unlock (&self->pipes_lock);
  where = dup_setting (self, &self->summary);
  stream = where && (strcmp (where, "stdout") == 0
      || strcmp (where, "stderr") == 0);
  if (stream) {
    stage_prof_write_summary (self, SP_RECORDER_PENDING, "(at exit)", FALSE);
  } else if (where && strcmp (where, "none") != 0) {
    stage_prof_write_summary (self, NULL, NULL, FALSE);
  }
  g_free (where);
#ifdef HAVE_SPDB
  g_mutex_lock (&self->db_lock);
  db = self->db;
  self->db = NULL;
  g_mutex_unlock (&self->db_lock);
  sp_db_close (db);
#endif
  /* The hooks may still fire from threads of a pipeline that was never
   * stopped: detached, and freed once none of them can be inside it. */
  g_mutex_lock (&self->trace_lock);
  stage_prof_close_trace_locked (self);
  g_mutex_unlock (&self->trace_lock);
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
  sp_progress_free (self->progress_state);
  g_ptr_array_free (self->pipes, TRUE);
  g_hash_table_destroy (self->windows);
  g_hash_table_destroy (self->last_windows);
  g_free (self->last_window_pipe);
  g_mutex_clear (&self->window_lock);
  g_hash_table_destroy (self->written_runs);
  g_free (self->trace_path);
  g_free (self->summary);
  g_free (self->db_path);
  g_free (self->filter);
  g_free (self->metrics);
  g_free (self->metrics_served);
  if (self->record_prev)
    g_hash_table_destroy (self->record_prev);
  g_mutex_clear (&self->metrics_lock);
  g_mutex_clear (&self->out_lock);
  g_mutex_clear (&self->trace_lock);
  g_mutex_clear (&self->db_lock);
  g_mutex_clear (&self->pipes_lock);
  g_mutex_clear (&self->tick_lock);
  g_mutex_clear (&self->tick_ctl_lock);
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
  stage_prof_records_init ();
  /* GStreamer 1.26 added gst_tracer_class_set_use_structure_params(): core
   * then parses "stageprof(...)" itself and sets the properties. We do not
   * use it: core refuses to create the tracer at all for one unknown name,
   * one value it cannot convert or a plain number for a guint property
   * ("skip-first=5" is a gint to the structure parser), where we warn
   * naming the parameter and keep the rest. So the params string arrives
   * whole on every version (see constructed). gst-inspect-1.0 lists the
   * properties from 1.26 either way. */

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
          "Seconds between periodic snapshots and windows (the figures of "
          "each interval alone: database, trace counter tracks, get-window): "
          "a status line on stderr (unless progress=false or summary=none), "
          "the debug log (GST_DEBUG=stageprof:4), the database and "
          "GstTracerRecords (GST_DEBUG=GST_TRACER:7); 0: off, else at least "
          "0.001",
          0, 1e6, DEFAULT_PROP_INTERVAL, flags));
  g_object_class_install_property (gobject_class, PROP_PROGRESS,
      g_param_spec_boolean ("progress", "Live status line",
          "Print a status line on stderr (frames/s at each sink, the busiest "
          "element, queue fill, elapsed time): redrawn every second on a "
          "terminal, one line per interval otherwise. Unset, it follows "
          "interval (on unless summary=none); false keeps it off",
          DEFAULT_PROP_PROGRESS, flags));
  g_object_class_install_property (gobject_class, PROP_CUDA_SYNC,
      g_param_spec_boolean ("cuda-sync", "Wait for the GPU",
          "Before timing a push of CUDA memory, wait for the GPU work behind "
          "it (cuCtxSynchronize), so that each CUDA element's time holds its "
          "GPU time. Costs throughput: CPU and GPU no longer overlap",
          DEFAULT_PROP_CUDA_SYNC, flags));
  g_object_class_install_property (gobject_class, PROP_LATENCY,
      g_param_spec_boolean ("latency", "Frame latency",
          "Follow each frame from its origin (its first push, or a live "
          "source's capture) to the sinks: end-to-end "
          "latency a sink (and to render, for sinks on the clock) against "
          "what the pipeline's LATENCY query reported, and the time through "
          "each element, split into work and dwell (docs/tracer.md, "
          "Latency). Off by default: it costs a lock a buffer and element",
          DEFAULT_PROP_LATENCY, flags));
  g_object_class_install_property (gobject_class, PROP_MEMORY,
      g_param_spec_boolean ("memory", "Buffer pools",
          "Follow every buffer pool: who proposed and who uses it, its "
          "size and buffers, how many are out, how long its user waited "
          "for a free one and who held them then (the pools table and the "
          "pool-bound verdict; docs/tracer.md, Buffer pools). Off by "
          "default: it costs a lock a pooled buffer and hook. Set it in "
          "GST_TRACERS or before any pipeline starts",
          DEFAULT_PROP_MEMORY, flags));
  g_object_class_install_property (gobject_class, PROP_DB,
      g_param_spec_string ("db", "SQLite database",
          "Store the final and periodic statistics in this SQLite database; "
          "NULL: off", DEFAULT_PROP_DB, flags));
  g_object_class_install_property (gobject_class, PROP_FILTER,
      g_param_spec_string ("filter", "Element filter",
          "Regular expression on element names: only matching elements get "
          "trace slices (the tables still count every element); NULL: all",
          DEFAULT_PROP_FILTER, flags));
  g_object_class_install_property (gobject_class, PROP_METRICS,
      g_param_spec_string ("metrics", "Metrics endpoint",
          "Serve live metrics for Prometheus at http://HOST:PORT/metrics "
          "from a thread of its own (HOST: 127.0.0.1, [::1] or localhost; "
          "another address also needs metrics-any-address=true); reads back "
          "NULL when nothing is served (refused, port taken, or a build "
          "without libmicrohttpd)", DEFAULT_PROP_METRICS, flags));
  g_object_class_install_property (gobject_class, PROP_METRICS_ANY_ADDRESS,
      g_param_spec_boolean ("metrics-any-address", "Serve metrics to others",
          "Let metrics= listen on an address other machines reach (e.g. "
          "0.0.0.0:9100). The endpoint has no authentication: it shows "
          "element and pipeline names to whoever connects",
          DEFAULT_PROP_METRICS_ANY_ADDRESS, flags));

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
  /**
   * GstStageProf::get-window:
   * @pipeline: the name of a top-level pipeline, or NULL for the one
   *   whose window closed last
   *
   * With interval=S, each interval closes a window of figures of that
   * interval alone (docs/tracer.md, "Windows").
   *
   * Returns: (transfer full) (nullable): the last closed window, a
   *   "stageprof-window" structure; NULL before the first.
   */
  signals[SIGNAL_GET_WINDOW] = g_signal_new_class_handler ("get-window",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (stage_prof_get_window), NULL, NULL, NULL,
      GST_TYPE_STRUCTURE, 1, G_TYPE_STRING);
}

static void
gst_stage_prof_init (GstStageProf * self)
{
  self->rec = sp_recorder_new ();
  self->meta = sp_meta_new ();
  self->summary = g_strdup (DEFAULT_PROP_SUMMARY);
  self->skip_first = DEFAULT_PROP_SKIP_FIRST;
  self->interval = DEFAULT_PROP_INTERVAL;
  self->progress = DEFAULT_PROP_PROGRESS;
  self->cuda_sync = DEFAULT_PROP_CUDA_SYNC;
  self->latency = DEFAULT_PROP_LATENCY;
  self->memory = DEFAULT_PROP_MEMORY;
  self->gpu_timing.abi = STAGE_GPU_TIMING_ABI;
  self->gpu_timing.report = gpu_report;
  self->gpu_timing.data = self;
  self->progress_tty = isatty (STDERR_FILENO);
  self->pipes = g_ptr_array_new ();
  self->windows = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) sp_windows_free);
  self->last_windows = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, (GDestroyNotify) gst_structure_free);
  g_mutex_init (&self->window_lock);
  self->written_runs = g_hash_table_new (NULL, NULL);
  g_mutex_init (&self->metrics_lock);
  g_mutex_init (&self->out_lock);
  g_mutex_init (&self->trace_lock);
  g_mutex_init (&self->db_lock);
  g_mutex_init (&self->pipes_lock);
  g_mutex_init (&self->tick_lock);
  g_mutex_init (&self->tick_ctl_lock);
  g_cond_init (&self->tick_cond);
}
