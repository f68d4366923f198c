/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sptracereader: a streaming reader for Chrome traces in JSON array format
 * ("[ {event}, {event}, ... ]"), as stageprof writes them, or in the object
 * format ({"traceEvents":[...], ...}) other tracers write.
 *
 * Reads the file in fixed-size blocks and hands out one event at a time, so
 * memory stays bounded whatever the file size. Each event comes with its raw
 * text (checked against JSON's grammar, since the merge copies it) and the
 * fields stageprof-report and the merge need, already parsed. A file cut
 * short (kill -9) is read up to its last complete event, and the reader
 * says what was cut.
 */
#ifndef __SP_TRACE_READER_H__
#define __SP_TRACE_READER_H__

#include <glib.h>

G_BEGIN_DECLS

/* The errors of the profile readers (this one, the merge and
 * stageprof-report's): what is wrong with an input file. */
#define SP_REPORT_ERROR (sp_report_error_quark ())
GQuark sp_report_error_quark (void);

typedef enum
{
  SP_REPORT_ERROR_NOT_STAGEPROF,        /* not a file stageprof writes */
  SP_REPORT_ERROR_EMPTY,        /* a stageprof file with nothing to show */
  SP_REPORT_ERROR_MALFORMED,    /* a stageprof file, damaged */
  SP_REPORT_ERROR_NO_MATCH,     /* --pipeline / --run selected nothing */
  SP_REPORT_ERROR_IO,
} SpReportError;

#define SP_EVENT_MAX_ARGS 16

typedef struct
{
  gchar key[32];
  gboolean is_num;
  gdouble num;
  gchar *str;                   /* owned by the reader, valid until next */
} SpEventArg;

typedef struct
{
  gchar ph;                     /* 0 if absent */
  const gchar *name;            /* "" if absent */
  const gchar *cat;             /* NULL if absent */
  gboolean has_ts, has_dur, has_pid, has_tid;
  gdouble ts, dur;              /* microseconds */
  gint64 pid, tid;
  guint n_args;
  SpEventArg args[SP_EVENT_MAX_ARGS];
  /* The event's text, and where its top-level ts and pid values are in it
   * (offset 0 and length 0 when absent), for rewriting (merge). */
  const gchar *raw;
  gsize raw_len;
  gsize ts_off, ts_len, pid_off, pid_len;
} SpEvent;

typedef struct _SpTraceReader SpTraceReader;

SpTraceReader *sp_trace_reader_open (const gchar * path, GError ** error);
/* TRUE with *ev set (valid until the next call), FALSE at the end or on
 * error (error set: not a trace, or a malformed event). */
gboolean sp_trace_reader_next (SpTraceReader * r, SpEvent ** ev,
    GError ** error);
/* After the end: NULL if the file was complete, else what was cut (for a
 * note: "ends without ']' after 1234 events ..."). */
const gchar *sp_trace_reader_cut (SpTraceReader * r);
/* A note on events skipped because they were larger than any event
 * stageprof writes (16 MiB), naming the first one's byte offset; NULL
 * when none was. */
const gchar *sp_trace_reader_skipped (SpTraceReader * r);
guint64 sp_trace_reader_events (SpTraceReader * r);
guint64 sp_trace_reader_offset (SpTraceReader * r);
void sp_trace_reader_free (SpTraceReader * r);

/* Called as a large trace is read (about every 64 MB), for a progress
 * line on a terminal; NULL (the default) for none. */
typedef void (*SpTraceProgress) (const gchar * path, guint64 done,
    guint64 total);
void sp_trace_reader_set_progress (SpTraceProgress func);

/* A JSON number as an integer, clamped to what an integer holds (a
 * damaged file may have any number where an id or a time belongs). */
gint64 sp_to_int64 (gdouble v);

const SpEventArg *sp_event_arg (const SpEvent * ev, const gchar * key);

G_END_DECLS

#endif /* __SP_TRACE_READER_H__ */
