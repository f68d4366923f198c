/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof's tracer object, shared by gststageprof.c (hooks, settings,
 * actions, final output), gststageprof-ticker.c (interval snapshots and
 * the live status line) and gststageprof-snapshot.c (a pipeline's summary
 * and the database, which the other two use). Not installed. */
#ifndef __GST_STAGE_PROF_PRIV_H__
#define __GST_STAGE_PROF_PRIV_H__

#include "gststageprof.h"
#include "spmeta.h"
#include "spprogress.h"
#include "spbuild.h"
#include "sprecord.h"
#include "spregistry.h"
#include "spthreads.h"
#include "sptrace.h"
#include "spwindow.h"
#include "spwintrace.h"
#include "stagegputiming.h"
#ifdef HAVE_SPDB
#include "spdb.h"
#endif

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_stage_prof_debug);

/* Its locks and their order: docs/architecture.md, "Locks". */
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
  gboolean progress;
  gboolean progress_set;        /* progress was given: interval= obeys it */
  /* Read by the push hooks without the lock (a stale value only delays
   * the change by a buffer). */
  gboolean cuda_sync;
  /* latency=true: frames followed source to sink; read by the hooks as
   * cuda_sync is. */
  gboolean latency;
  /* memory=true: buffer pools; its hooks are registered once, at the end
   * of construction or when set later (pools_hooked). */
  gboolean memory, pools_hooked, constructed;

  /* Handed to our GPU elements (stagegputiming.h); gpu_offset: hook time
   * minus gst_util_get_timestamp(), learnt at the first element-new (the
   * ticker's windows end in hook time too). */
  StageGpuTiming gpu_timing;
  gint64 gpu_offset;
  gsize gpu_offset_once;

  /* Outputs. `trace` is written under trace_lock (which also serialises
   * its cold-path users), read by hooks through the recorder. */
  GMutex trace_lock;
  SpTrace *trace;
  GMutex db_lock;
#ifdef HAVE_SPDB
  SpDb *db;
#endif
  GMutex out_lock;              /* serialises summary writing */
  /* Top-level pipeline -> the run whose summary was written last (under
   * out_lock): a run that stopped at READY gets its summary there, and the
   * NULL that follows does not write it again. */
  GHashTable *written_runs;
  gboolean final_done;

  /* Top-level pipelines between NULL_TO_READY and READY_TO_NULL (not
   * reffed): periodic snapshots are taken per pipeline. */
  GMutex pipes_lock;
  GPtrArray *pipes;
  /* Each of those pipelines' interval windows (SpWindows*), under
   * pipes_lock. */
  GHashTable *windows;
  /* The last window closed of each pipeline (name -> GstStructure), and
   * the name of the one closed last, for get-window; under window_lock. */
  GMutex window_lock;
  GHashTable *last_windows;
  gchar *last_window_pipe;

  /* The ticker thread: interval snapshots and the status line. */
  GThread *ticker;
  GMutex tick_lock;
  GCond tick_cond;
  gboolean tick_stop;
  GMutex tick_ctl_lock;         /* serialises restarts */
  SpProgress *progress_state;   /* ticker only */
  /* GstTracerRecords of the interval snapshots (gststageprof-records.c):
   * each row's figures at the previous tick, and when the ticker started;
   * ticker only. */
  GHashTable *record_prev;
  gint64 record_start;

  /* The metrics endpoint (gststageprof-metrics.c): the address asked for
   * and the opt-in for other than loopback (object lock), the address
   * served (object lock; NULL when none), the server (metrics_lock, which
   * serialises starts and stops). */
  gchar *metrics;
  gboolean metrics_any_address;
  gchar *metrics_served;
  GMutex metrics_lock;
  gpointer endpoint;
  /* The params string is being applied: the endpoint starts after it, so
   * that metrics=...,metrics-any-address=true works in either order. */
  gboolean parsing_params;
  gboolean progress_tty;
  gint progress_on_screen;      /* atomic: a tty line awaits its newline */
};

/* gststageprof-snapshot.c */
GstStructure *stage_prof_pipeline_summary (GstStageProf * self,
    gpointer pipeline, gboolean final);
void stage_prof_db_add (GstStageProf * self, GstStructure * s);

/* gststageprof-metrics.c */
void stage_prof_metrics_restart (GstStageProf * self);
void stage_prof_metrics_stop (GstStageProf * self);

/* gststageprof-records.c */
void stage_prof_records_init (void);
void stage_prof_records_log (GstStageProf * self, const GstStructure * s);
void stage_prof_records_log_window (const GstStructure * win);
void stage_prof_records_prune (GstStageProf * self, gint64 before_us);

/* gststageprof-ticker.c */
GstStructure *stage_prof_get_window (GstStageProf * self,
    const gchar * pipeline);
void stage_prof_end_windows (GstStageProf * self, gpointer pipeline);
void stage_prof_ticker_restart (GstStageProf * self);
void stage_prof_ticker_stop (GstStageProf * self);
void stage_prof_end_progress_line (GstStageProf * self);

G_END_DECLS

#endif /* __GST_STAGE_PROF_PRIV_H__ */
