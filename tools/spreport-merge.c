/* spreport-merge: merge traces on one wall-clock axis.
 *
 * Two passes per input, both streaming: the first finds its wall-clock start
 * (the metadata event may come after slices of a trace set at runtime), the
 * second copies every event with its pid renumbered and its ts shifted,
 * rewriting only those two values in the event's text so every other field
 * passes through unchanged. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#include "spreport.h"
#include "spreport-merge.h"
#include "sptracereader.h"

typedef struct
{
  gboolean have_clock;
  gint64 origin_us;             /* wall-clock time of the input's ts 0 */
  GHashTable *named;            /* old pid -> TRUE: has a process_name */
  GHashTable *pids;             /* old pid -> new pid */
} Input;

static gboolean
scan_clock (const gchar * path, Input * in, GError ** error)
{
  SpTraceReader *r = sp_trace_reader_open (path, error);
  SpEvent *ev;
  GError *err = NULL;

  if (!r)
    return FALSE;
  while (sp_trace_reader_next (r, &ev, &err)) {
    if (ev->ph == 'M' && strcmp (ev->name, "stageprof_start") == 0
        && !in->have_clock) {
      const SpEventArg *w = sp_event_arg (ev, "wall_clock_us");
      const SpEventArg *t = sp_event_arg (ev, "ts_us");
      if (w && w->is_num) {
        in->have_clock = TRUE;
        /* Clamped so that differences of two origins stay in range. */
        in->origin_us = sp_to_int64 (CLAMP (w->num - (t && t->is_num ?
                    t->num : 0), -4e18, 4e18));
      }
    }
    if (ev->ph == 'M' && strcmp (ev->name, "process_name") == 0)
      g_hash_table_add (in->named, GINT_TO_POINTER (ev->pid));
  }
  if (!err && sp_trace_reader_events (r) == 0)
    g_set_error (&err, SP_REPORT_ERROR, SP_REPORT_ERROR_EMPTY,
        "%s: no event in this trace", path);
  sp_trace_reader_free (r);
  if (err) {
    g_propagate_error (error, err);
    return FALSE;
  }
  return TRUE;
}

static void
put_sep (GString * o, gboolean * first)
{
  if (!*first)
    g_string_append_c (o, ',');
  *first = FALSE;
}

static void
json_str (GString * o, const gchar * s)
{
  const gchar *p;

  g_string_append_c (o, '"');
  for (p = s; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_printf (o, "\\%c", *p);
    else if ((guchar) * p < 0x20)
      g_string_append_printf (o, "\\u%04x", *p);
    else
      g_string_append_c (o, *p);
  }
  g_string_append_c (o, '"');
}

static void
process_name (GString * o, gboolean * first, gint64 pid, const gchar * name,
    const gchar * label)
{
  gchar *full = g_strdup_printf ("%s (%s)", name, label);

  put_sep (o, first);
  g_string_append_printf (o, "{\"name\":\"process_name\",\"ph\":\"M\","
      "\"pid\":%" G_GINT64_FORMAT ",\"args\":{\"name\":", pid);
  json_str (o, full);
  g_string_append (o, "}}\n");
  g_free (full);
}

static gint64
new_pid (Input * in, gint64 old, gint64 * next)
{
  gpointer v;

  if (g_hash_table_lookup_extended (in->pids, GINT_TO_POINTER (old), NULL,
          &v))
    return GPOINTER_TO_INT (v);
  g_hash_table_insert (in->pids, GINT_TO_POINTER (old),
      GINT_TO_POINTER (*next));
  return (*next)++;
}

/* The event with its pid and ts values replaced. */
static void
copy_event (GString * o, const SpEvent * ev, gint64 pid, gdouble shift_us)
{
  gsize cut[2][3];              /* offset, length, which */
  guint n = 0, i;
  gsize at = 0;

  if (ev->has_pid && ev->pid_len) {
    cut[n][0] = ev->pid_off;
    cut[n][1] = ev->pid_len;
    cut[n++][2] = 0;
  }
  if (ev->has_ts && ev->ts_len) {
    cut[n][0] = ev->ts_off;
    cut[n][1] = ev->ts_len;
    cut[n++][2] = 1;
  }
  if (n == 2 && cut[0][0] > cut[1][0]) {
    gsize tmp[3];
    memcpy (tmp, cut[0], sizeof (tmp));
    memcpy (cut[0], cut[1], sizeof (tmp));
    memcpy (cut[1], tmp, sizeof (tmp));
  }
  for (i = 0; i < n; i++) {
    g_string_append_len (o, ev->raw + at, cut[i][0] - at);
    if (cut[i][2] == 0) {
      g_string_append_printf (o, "%" G_GINT64_FORMAT, pid);
    } else {
      gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append (o, g_ascii_formatd (buf, sizeof (buf), "%.3f",
              ev->ts + shift_us));
    }
    at = cut[i][0] + cut[i][1];
  }
  g_string_append_len (o, ev->raw + at, ev->raw_len - at);
  g_string_append_c (o, '\n');
}

static gboolean
flush_out (FILE * f, GString * o, gboolean force)
{
  if (o->len < (1 << 20) && !force)
    return TRUE;
  if (fwrite (o->str, 1, o->len, f) != o->len)
    return FALSE;
  g_string_truncate (o, 0);
  return TRUE;
}

static gboolean
copy_input (const gchar * path, const gchar * label, Input * in,
    gdouble shift_us, gint64 * next_pid, FILE * f, GString * o,
    gboolean * first, GPtrArray * notes, GError ** error)
{
  SpTraceReader *r = sp_trace_reader_open (path, error);
  GError *err = NULL;
  SpEvent *ev;
  GHashTableIter it;
  gpointer k, v;
  gboolean ok = TRUE;

  if (!r)
    return FALSE;
  while (ok && sp_trace_reader_next (r, &ev, &err)) {
    gint64 pid;
    if (ev->ph == 'M' && (strcmp (ev->name, "stageprof_start") == 0))
      continue;                 /* the merged trace gets one of its own */
    /* pid 0: trace-wide metadata (links), not a process. */
    pid = ev->has_pid && ev->pid != 0 ? new_pid (in, ev->pid, next_pid) : 0;
    if (ev->ph == 'M' && strcmp (ev->name, "process_name") == 0) {
      const SpEventArg *n = sp_event_arg (ev, "name");
      process_name (o, first, pid, n && !n->is_num ? n->str : "?", label);
    } else if (ev->ph == 'M' && strcmp (ev->name, "stageprof_link") == 0) {
      put_sep (o, first);
      copy_event (o, ev, pid, 0);
    } else {
      put_sep (o, first);
      copy_event (o, ev, pid, shift_us);
    }
    ok = flush_out (f, o, FALSE);
  }
  if (err) {
    g_propagate_error (error, err);
    sp_trace_reader_free (r);
    return FALSE;
  }
  /* Processes without a name still get the label. */
  g_hash_table_iter_init (&it, in->pids);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (!g_hash_table_contains (in->named, k) && GPOINTER_TO_INT (k) != 0)
      process_name (o, first, GPOINTER_TO_INT (v), "process", label);
  if (sp_trace_reader_cut (r))
    g_ptr_array_add (notes, g_strdup_printf ("%s: %s", path,
            sp_trace_reader_cut (r)));
  sp_trace_reader_free (r);
  if (!ok)
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        "writing the merged trace failed: %s", g_strerror (errno));
  return ok;
}

gboolean
sp_report_merge (const gchar * const *inputs, const gchar * const *labels,
    const gchar * out_path, GPtrArray * notes, GError ** error)
{
  guint n = g_strv_length ((gchar **) inputs), i;
  Input *in = g_new0 (Input, n);
  gint64 origin = G_MAXINT64, next_pid = 1;
  gboolean ok = TRUE, first = TRUE;
  GString *o = g_string_new ("[\n");
  gchar *tmp = g_strdup_printf ("%s.part", out_path);
  FILE *f = NULL;

  for (i = 0; i < n; i++) {
    in[i].named = g_hash_table_new (NULL, NULL);
    in[i].pids = g_hash_table_new (NULL, NULL);
  }
  for (i = 0; i < n && ok; i++) {
    ok = scan_clock (inputs[i], &in[i], error);
    if (ok && in[i].have_clock)
      origin = MIN (origin, in[i].origin_us);
  }
  if (!ok)
    goto out;
  if (origin == G_MAXINT64)
    origin = 0;
  f = g_fopen (tmp, "wb");
  if (!f) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        "cannot write '%s': %s", tmp, g_strerror (errno));
    ok = FALSE;
    goto out;
  }
  for (i = 0; i < n && ok; i++) {
    gchar *base = g_path_get_basename (inputs[i]);
    const gchar *label = labels && labels[i] ? labels[i] : base;
    gdouble shift = in[i].have_clock ? (gdouble) (in[i].origin_us - origin) :
        0;
    if (!in[i].have_clock)
      g_ptr_array_add (notes, g_strdup_printf ("%s: no wall-clock start in "
              "this trace (written by an older stageprof?): placed at the "
              "start of the earliest input", inputs[i]));
    ok = copy_input (inputs[i], label, &in[i], shift, &next_pid, f, o,
        &first, notes, error);
    g_free (base);
  }
  if (ok && origin) {
    put_sep (o, &first);
    g_string_append_printf (o, "{\"name\":\"stageprof_start\",\"ph\":\"M\","
        "\"pid\":0,\"tid\":0,\"args\":{\"wall_clock_us\":%" G_GINT64_FORMAT
        ",\"ts_us\":0.000}}\n", origin);
  }
  g_string_append (o, "]\n");
  if (ok && (!flush_out (f, o, TRUE) || fflush (f) != 0)) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        "writing '%s' failed: %s", tmp, g_strerror (errno));
    ok = FALSE;
  }
  if (fclose (f) != 0 && ok) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        "writing '%s' failed: %s", tmp, g_strerror (errno));
    ok = FALSE;
  }
  if (ok && g_rename (tmp, out_path) != 0) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        "cannot rename '%s' to '%s': %s", tmp, out_path, g_strerror (errno));
    ok = FALSE;
  }
  if (!ok)
    g_unlink (tmp);
out:
  for (i = 0; i < n; i++) {
    g_hash_table_destroy (in[i].named);
    g_hash_table_destroy (in[i].pids);
  }
  g_free (in);
  g_free (tmp);
  g_string_free (o, TRUE);
  return ok;
}
