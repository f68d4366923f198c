/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spload: detection, reading and selection of a profile. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <math.h>

#include "spload.h"
#include "spread.h"
#include "spwindows.h"

/* ---- detection ------------------------------------------------------- */

typedef enum { KIND_UNKNOWN, KIND_SUMMARY, KIND_DB, KIND_TRACE, KIND_CSV,
  KIND_EMPTY
} Kind;

static Kind
detect (const gchar * path, GError ** error)
{
  FILE *f = fopen (path, "rb");
  gchar head[4096];
  gsize n, i;
  struct stat st;

  if (!f) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        "cannot open '%s': %s", path, g_strerror (errno));
    return KIND_UNKNOWN;
  }
  /* fopen opens a directory, whose read then fails: it is not "empty" */
  if (fstat (fileno (f), &st) == 0 && S_ISDIR (st.st_mode)) {
    fclose (f);
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        "cannot read '%s': %s (give a trace, a summary or a db file)", path,
        g_strerror (EISDIR));
    return KIND_UNKNOWN;
  }
  n = fread (head, 1, sizeof (head) - 1, f);
  fclose (f);
  head[n] = 0;
  if (n >= 16 && memcmp (head, "SQLite format 3", 16) == 0)
    return KIND_DB;
  i = n >= 3 && memcmp (head, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
  for (; i < n && g_ascii_isspace (head[i]); i++);
  if (i == n)
    return KIND_EMPTY;
  if (head[i] == '[')
    return KIND_TRACE;
  if (head[i] == '{')
    return strstr (head, "\"traceEvents\"") ? KIND_UNKNOWN : KIND_SUMMARY;
  if (g_str_has_prefix (head + i, "table,"))
    return KIND_CSV;
  return KIND_UNKNOWN;
}

/* ---- selection ------------------------------------------------------- */

static gboolean
keep (const gchar * pipeline, const gchar * run, const SpSelect * sel,
    SpSourceKind kind)
{
  if (sel->pipeline && g_strcmp0 (pipeline, sel->pipeline) != 0)
    return FALSE;
  /* A db's run is chosen by its reader. */
  if (sel->run && kind != SP_SOURCE_DB && g_strcmp0 (run, sel->run) != 0)
    return FALSE;
  return TRUE;
}

#define FILTER(arr, Type) \
  for (i = arr->len; i-- > 0;) { \
    Type *r = arr->pdata[i]; \
    if (!keep (r->pipeline, r->run, sel, p->kind)) \
      g_ptr_array_remove_index (arr, i); \
  }

static gboolean
apply_select (SpProfile * p, const SpSelect * sel, GError ** error)
{
  gchar *all = sp_profile_pipelines (p);
  guint i;

  if (sel->run && p->kind != SP_SOURCE_DB) {
    gboolean any = FALSE;
    for (i = 0; i < p->elements->len && !any; i++)
      any = ((SpElemRow *) p->elements->pdata[i])->run != NULL;
    if (!any) {
      g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NO_MATCH,
          "%s: this file does not tell runs apart; --run applies to a "
          "database, or to the outputs of a stageprof that numbers the "
          "runs of a pipeline", p->path);
      g_free (all);
      return FALSE;
    }
  }
  FILTER (p->elements, SpElemRow);
  FILTER (p->queues, SpQueueRow);
  FILTER (p->threads, SpThreadRow);
  FILTER (p->sinks, SpSinkRow);
  FILTER (p->latency, SpLatencyRow);
  FILTER (p->element_latency, SpElemLatencyRow);
  FILTER (p->pools, SpPoolRow);
  FILTER (p->memory, SpMemoryRow);
  FILTER (p->windows, SpWindowRow);
  FILTER (p->window_elements, SpWinElemRow);
  FILTER (p->window_pads, SpWinPadRow);
  FILTER (p->window_queues, SpWinQueueRow);
  FILTER (p->window_threads, SpWinThreadRow);
  FILTER (p->window_latency, SpWinLatencyRow);
  FILTER (p->window_latency_hist, SpWinLatencyHistRow);
  if (sel->pipeline)
    for (i = p->links->len; i-- > 0;)
      if (g_strcmp0 (((SpLink *) p->links->pdata[i])->pipeline,
              sel->pipeline) != 0)
        g_ptr_array_remove_index (p->links, i);
  if (p->elements->len == 0 && (sel->pipeline || sel->run)) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NO_MATCH,
        "%s: no rows for%s%s%s%s (pipelines in this file: %s)", p->path,
        sel->pipeline ? " pipeline " : "", sel->pipeline ? sel->pipeline : "",
        sel->run ? " run " : "", sel->run ? sel->run : "", *all ? all : "none");
    g_free (all);
    return FALSE;
  }
  g_free (all);
  return TRUE;
}

/* ---- time range ------------------------------------------------------ */

gboolean
sp_select_parse_time (const gchar * option, const gchar * text,
    gdouble * out, GError ** error)
{
  gchar *end = NULL;
  gdouble v = text ? g_ascii_strtod (text, &end) : NAN;

  if (!text || !*text || !end || *end || end == text || !isfinite (v)
      || v < 0) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NO_MATCH,
        "%s '%s' is not a time: give seconds of running time, 0 or more "
        "(%s 12.5)", option, text ? text : "", option);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean
sp_select_set_range (SpSelect * sel, const gchar * from, const gchar * till,
    GError ** error)
{
  sel->from = sel->till = NAN;
  if (from && !sp_select_parse_time ("--from", from, &sel->from, error))
    return FALSE;
  if (till && !sp_select_parse_time ("--till", till, &sel->till, error))
    return FALSE;
  if (from && till && sel->till <= sel->from) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NO_MATCH,
        "--till %s is not after --from %s: the range would be empty", till,
        from);
    return FALSE;
  }
  return TRUE;
}

static gboolean
has_range (const SpSelect * sel)
{
  return !isnan (sel->from) || !isnan (sel->till);
}

/* A database's figures of the range, from its windows. */
static gboolean
apply_range (SpProfile * p, const SpSelect * sel, GError ** error)
{
  gdouble end = 0;

  if (p->kind != SP_SOURCE_DB)
    return TRUE;
  if (p->windows->len == 0) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NO_MATCH,
        "%s: --from/--till need windows, and this database has none for "
        "the run (it was written without interval=: use "
        "stageprof(db=...,interval=1), or give the trace)", p->path);
    return FALSE;
  }
  for (guint i = 0; i < p->windows->len; i++) {
    SpWindowRow *w = p->windows->pdata[i];
    end = MAX (end, w->end_s - sp_window_run_start (p, w->pipeline, w->run));
  }
  if (sp_windows_keep_range (p, sel->from, sel->till) == 0) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NO_MATCH,
        "%s: no window in the range (its windows cover 0 to %.3f s of "
        "running time)", p->path, end);
    return FALSE;
  }
  sp_windows_to_rows (p);
  return TRUE;
}

SpProfile *
sp_profile_load (const gchar * path, const SpSelect * sel, GError ** error)
{
  static const SpSelect none = SP_SELECT_ALL;
  SpProfile *p = NULL;
  GError *err = NULL;
  Kind k;

  if (!sel)
    sel = &none;
  k = detect (path, &err);
  switch (k) {
    case KIND_SUMMARY:
      if (has_range (sel))
        g_set_error (&err, SP_REPORT_ERROR, SP_REPORT_ERROR_NO_MATCH,
            "%s: a summary has no time axis, so --from/--till cannot cut "
            "it; give the trace (trace=) or a database written with "
            "interval=", path);
      else
        p = sp_read_summary_json (path, &err);
      break;
    case KIND_DB:
      p = sp_read_db (path, sel->run, &err);
      break;
    case KIND_TRACE:
      p = sp_read_trace_range (path, sel->from, sel->till, &err);
      break;
    case KIND_EMPTY:
      g_set_error (&err, SP_REPORT_ERROR, SP_REPORT_ERROR_EMPTY,
          "%s: the file is empty (a stageprof trace starts with '[' as soon "
          "as the tracer opens it: was the process killed before?)", path);
      break;
    case KIND_CSV:
      g_set_error (&err, SP_REPORT_ERROR, SP_REPORT_ERROR_NOT_STAGEPROF,
          "%s: a CSV summary cannot be read back; use summary=FILE.json, "
          "db=FILE.db or trace=FILE.json", path);
      break;
    default:
      if (!err)
        g_set_error (&err, SP_REPORT_ERROR, SP_REPORT_ERROR_NOT_STAGEPROF,
            "%s: not a stageprof output (expected a summary JSON, a Chrome "
            "trace in JSON array format, or a stageprof SQLite database)",
            path);
      break;
  }
  if (p && has_range (sel) && !apply_range (p, sel, &err)) {
    sp_profile_free (p);
    p = NULL;
  }
  if (p && !apply_select (p, sel, &err)) {
    sp_profile_free (p);
    p = NULL;
  }
  /* A verdict of several pipelines: the tracer's own of the one kept, or
   * one made from its rows. */
  if (p && p->kind != SP_SOURCE_DB && sel->pipeline) {
    const gchar *v = sp_profile_pipeline_verdict (p, sel->pipeline,
        sel->run);
    g_free (p->verdict);
    p->verdict = g_strdup (v);
  }
  if (p && !p->verdict)
    p->verdict = sp_profile_verdict (p);
  if (!p)
    g_propagate_error (error, err);
  return p;
}

