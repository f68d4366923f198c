/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof's ticker: one thread, started only when `interval` or the
 * status line is on, that takes a snapshot of each live pipeline every
 * `interval` (debug log, database, GstTracerRecords) and prints the status line
 * (spprogress.c) every second on a terminal, every `interval` otherwise.
 * See docs/tracer.md, "Live status line".
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "gststageprof-priv.h"
#include "spsummary.h"

#define GST_CAT_DEFAULT gst_stage_prof_debug

/* The status line on a terminal is redrawn this often. */
#define PROGRESS_TTY_PERIOD 1.0

/* A status line on the terminal is finished before other text goes out. */
void
stage_prof_end_progress_line (GstStageProf * self)
{
  if (g_atomic_int_compare_and_exchange (&self->progress_on_screen, 1, 0)) {
    fputc ('\n', stderr);
    fflush (stderr);
  }
}

static guint
summary_rows (const GstStructure * s, const gchar * table)
{
  const GValue *v = gst_structure_get_value (s, table);

  return v && GST_VALUE_HOLDS_ARRAY (v) ? gst_value_array_get_size (v) : 0;
}

static gboolean
summary_final (const GstStructure * s)
{
  gboolean final = FALSE;

  gst_structure_get_boolean (s, "final", &final);
  return final;
}

/* The pipeline's window closes: to the database, the trace's counter
 * tracks and get-window. pipes_lock held. */
static void
stage_prof_close_window (GstStageProf * self, gpointer pipe, guint64 now,
    gboolean last)
{
  SpWindows *w = g_hash_table_lookup (self->windows, pipe);
  GstStructure *win;
  gchar *name;

  if (!w) {
    w = sp_windows_new (pipe);
    g_hash_table_insert (self->windows, pipe, w);
  }
  win = sp_windows_close (w, self->rec, now, last);
  if (!win)
    return;
  stage_prof_db_add (self, win);
  stage_prof_records_log_window (win);
  g_mutex_lock (&self->trace_lock);
  if (self->trace)
    sp_window_trace (self->trace, win);
  g_mutex_unlock (&self->trace_lock);
  name = g_strdup (gst_structure_get_string (win, "pipeline"));
  g_mutex_lock (&self->window_lock);
  g_hash_table_insert (self->last_windows, g_strdup (name), win);
  g_free (self->last_window_pipe);
  self->last_window_pipe = name;
  g_mutex_unlock (&self->window_lock);
}

/* Now in hook time (the `ts` of the hooks, the trace's axis). */
static guint64
hook_now (GstStageProf * self)
{
  gint64 now = (gint64) gst_util_get_timestamp ();

  if (g_atomic_pointer_get (&self->gpu_offset_once))
    now += self->gpu_offset;
  return now > 0 ? (guint64) now : 0;
}

/* A run ends (the pipeline stops): its last window, shorter than the
 * interval, closes now, so the windows cover the whole run. */
void
stage_prof_end_windows (GstStageProf * self, gpointer pipe)
{
  if (!g_atomic_int_get (&self->rec->windows))
    return;
  g_mutex_lock (&self->pipes_lock);
  if (g_ptr_array_find (self->pipes, pipe, NULL))
    stage_prof_close_window (self, pipe, hook_now (self), TRUE);
  g_mutex_unlock (&self->pipes_lock);
}

/* The last window closed of `pipeline` (its name), or of the pipeline
 * whose window closed last when NULL; NULL when none closed yet. */
GstStructure *
stage_prof_get_window (GstStageProf * self, const gchar * pipeline)
{
  GstStructure *w;

  g_mutex_lock (&self->window_lock);
  w = g_hash_table_lookup (self->last_windows,
      pipeline ? pipeline : self->last_window_pipe ? self->last_window_pipe :
      "");
  w = w ? gst_structure_copy (w) : NULL;
  g_mutex_unlock (&self->window_lock);
  return w;
}

/* One snapshot per live pipeline: to the debug log and the database; and
 * its window closes. */
static void
stage_prof_snapshot (GstStageProf * self)
{
  guint64 now = hook_now (self);
  guint i;

  g_mutex_lock (&self->pipes_lock);
  for (i = 0; i < self->pipes->len; i++) {
    gpointer pipe = g_ptr_array_index (self->pipes, i);
    GstStructure *s;

    if (sp_summary_has_data (self->rec, pipe))
      stage_prof_close_window (self, pipe, now, FALSE);

    if (!sp_summary_has_data (self->rec, pipe))
      continue;
    s = stage_prof_pipeline_summary (self, pipe, FALSE);
    /* A run that has just started has nothing measured yet; one that
     * ended (stopped in READY) had its final snapshot at the stop, and a
     * periodic copy would count it twice in the database. */
    if (summary_rows (s, "elements") == 0 || summary_final (s)) {
      gst_structure_free (s);
      continue;
    }
    if (gst_debug_category_get_threshold (GST_CAT_DEFAULT) >= GST_LEVEL_INFO) {
      gchar *text = sp_summary_to_text (s, "(interval)");
      GST_INFO_OBJECT (self, "snapshot:\n%s", text);
      g_free (text);
    }
    stage_prof_db_add (self, s);
    stage_prof_records_log (self, s);
    gst_structure_free (s);
  }
  g_mutex_unlock (&self->pipes_lock);
}

static void
stage_prof_progress (GstStageProf * self)
{
  GstStructure *s;
  gchar *line;

  if (!sp_summary_has_data (self->rec, NULL))
    return;
  s = sp_summary_build (self->rec, NULL, FALSE);
  line = sp_progress_line (self->progress_state, s, g_get_monotonic_time ());
  gst_structure_free (s);
  if (self->progress_tty) {
    struct winsize ws;
    /* Longer than the terminal, it would wrap and \r would redraw only
     * its last row. */
    if (ioctl (STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1
        && strlen (line) >= ws.ws_col)
      line[ws.ws_col - 1] = '\0';
    fprintf (stderr, "\r%s\033[K", line);
    g_atomic_int_set (&self->progress_on_screen, 1);
  } else {
    fprintf (stderr, "%s\n", line);
  }
  fflush (stderr);
  g_free (line);
}

typedef struct
{
  gdouble snap;                 /* seconds between snapshots, 0: none */
  gdouble prog;                 /* seconds between status lines, 0: none */
} TickPlan;

static TickPlan
stage_prof_tick_plan (GstStageProf * self)
{
  TickPlan p = { 0, 0 };
  gboolean progress;

  GST_OBJECT_LOCK (self);
  p.snap = self->interval;
  /* interval= alone asks to see the run as it goes: a line an interval.
   * progress=false (given) or summary=none (an application that reads
   * get-summary or the database) keeps stderr quiet. */
  progress = self->progress || (self->interval > 0 && !self->progress_set
      && g_strcmp0 (self->summary, "none") != 0);
  GST_OBJECT_UNLOCK (self);
  if (progress)
    p.prog = self->progress_tty ? PROGRESS_TTY_PERIOD :
        p.snap > 0 ? p.snap : PROGRESS_TTY_PERIOD;
  return p;
}

static gpointer
ticker_func (gpointer data)
{
  GstStageProf *self = data;
  TickPlan plan = stage_prof_tick_plan (self);
  gint64 now = g_get_monotonic_time ();
  /* At least 1 ms a step (the minimum interval): a step of 0 would never
   * move on. */
  gint64 snap_us = MAX ((gint64) (plan.snap * G_TIME_SPAN_SECOND), 1000);
  gint64 prog_us = MAX ((gint64) (plan.prog * G_TIME_SPAN_SECOND), 1000);
  gint64 next_snap = now + snap_us;
  gint64 next_prog = now + prog_us;

  self->record_start = now;

  g_mutex_lock (&self->tick_lock);
  while (!self->tick_stop) {
    gint64 due = G_MAXINT64;

    if (plan.snap > 0)
      due = next_snap;
    if (plan.prog > 0)
      due = MIN (due, next_prog);
    if (due == G_MAXINT64)
      break;
    if (g_cond_wait_until (&self->tick_cond, &self->tick_lock, due)
        || self->tick_stop)
      continue;
    g_mutex_unlock (&self->tick_lock);
    now = g_get_monotonic_time ();
    if (plan.snap > 0 && now >= next_snap) {
      gint64 took;
      stage_prof_snapshot (self);
      stage_prof_records_prune (self, now - MAX (60 * G_TIME_SPAN_SECOND,
              3 * snap_us));
      took = g_get_monotonic_time () - now;
      /* A slow snapshot skips ticks rather than bunching them, and the
       * ticker then rests at least as long as the snapshot took: at most
       * half a core, and the pipes lock free half the time. Without the
       * rest, snapshots slower than the interval (ASan, a loaded machine,
       * interval=0.005) ran back to back and starved the pipelines' state
       * changes of that lock for minutes. */
      do
        next_snap += snap_us;
      while (next_snap <= now + 2 * took);
    }
    if (plan.prog > 0 && now >= next_prog) {
      stage_prof_progress (self);
      do
        next_prog += prog_us;
      while (next_prog <= now);
    }
    g_mutex_lock (&self->tick_lock);
  }
  g_mutex_unlock (&self->tick_lock);
  return NULL;
}

void
stage_prof_ticker_stop (GstStageProf * self)
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
  stage_prof_end_progress_line (self);
}

/* (Re)starts the ticker for the current settings; no thread at all when
 * neither snapshots nor the status line are on. */
void
stage_prof_ticker_restart (GstStageProf * self)
{
  TickPlan plan;

  g_mutex_lock (&self->tick_ctl_lock);
  stage_prof_ticker_stop (self);
  plan = stage_prof_tick_plan (self);
  /* The hot path counts what windows need only while there are any. */
  g_atomic_int_set (&self->rec->windows, plan.snap > 0);
  if (plan.snap > 0)
    g_atomic_int_or (&self->rec->count_input, SP_COUNT_INPUT_WINDOWS);
  else
    g_atomic_int_and (&self->rec->count_input, ~SP_COUNT_INPUT_WINDOWS);
  if (!self->final_done && (plan.snap > 0 || plan.prog > 0)) {
    g_mutex_lock (&self->tick_lock);
    self->tick_stop = FALSE;
    if (!self->progress_state)
      self->progress_state = sp_progress_new ();
    self->ticker = g_thread_new ("stageprof-tick", ticker_func, self);
    g_mutex_unlock (&self->tick_lock);
  }
  g_mutex_unlock (&self->tick_ctl_lock);
}

