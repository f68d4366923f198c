/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spwintrace: a window's counter tracks (spwintrace.h). Cold path: once a
 * window, from the ticker thread; the events go out with the trace's
 * metadata (written as they are, at the writer's next drain). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "jsontext.h"
#include "spwintrace.h"
#include "sprow.h"

/* {"name":"WHAT NAME","cat":"window","ph":"C","ts":..,"pid":..,
 *  "args":{"ARG":V}} */
static void
counter (SpTrace * t, GString * ev, const gchar * what, const gchar * name,
    gdouble ts_s, guint pid, const gchar * arg, gdouble v)
{
  g_string_assign (ev, "{\"name\":\"");
  stage_json_escape (ev, what);
  if (name) {
    g_string_append_c (ev, ' ');
    stage_json_escape (ev, name);
  }
  g_string_append (ev, "\",\"cat\":\"window\",\"ph\":\"C\",\"ts\":");
  /* microseconds, to the nanosecond as the other events */
  g_string_append_printf (ev, "%" G_GUINT64_FORMAT ".%03u",
      (guint64) (ts_s * 1e6), (guint) ((guint64) (ts_s * 1e9) % 1000));
  g_string_append_printf (ev, ",\"pid\":%u,\"args\":{\"%s\":", pid, arg);
  stage_json_num (ev, v, 6);
  g_string_append (ev, "}}\n");
  sp_trace_metadata (t, ev->str, FALSE);
}

static guint
rows (const GstStructure * w, const gchar * table)
{
  const GValue *v = gst_structure_get_value (w, table);

  return v && GST_VALUE_HOLDS_ARRAY (v) ? gst_value_array_get_size (v) : 0;
}

static const GstStructure *
row (const GstStructure * w, const gchar * table, guint i)
{
  return gst_value_get_structure (gst_value_array_get_value
      (gst_structure_get_value (w, table), i));
}

static gdouble
num (const GstStructure * s, const gchar * key)
{
  const GValue *v = gst_structure_get_value (s, key);
  GValue d = G_VALUE_INIT;
  gdouble x = 0;

  if (!v || !g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE))
    return 0;
  g_value_init (&d, G_TYPE_DOUBLE);
  if (g_value_transform (v, &d))
    x = g_value_get_double (&d);
  g_value_unset (&d);
  return x;
}

void
sp_window_trace (SpTrace * t, const GstStructure * w)
{
  GString *ev = g_string_new (NULL);
  gdouble ts = num (w, SP_KEY (windows, start_s));
  guint pid = (guint) num (w, "trace_pid"), i;

  for (i = 0; i < rows (w, "window_pads"); i++) {
    const GstStructure *r = row (w, "window_pads", i);
    const gchar *pad = gst_structure_get_string (r, "pad");

    if (g_strcmp0 (gst_structure_get_string (r, "unit"), "frames") == 0)
      counter (t, ev, "fps", pad, ts, pid, "fps", num (r, "fps"));
    else
      counter (t, ev, "buffers/s", pad, ts, pid,
          SP_KEY (window_pads, buffers_per_s),
          num (r, SP_KEY (window_pads, buffers_per_s)));
    counter (t, ev, "bitrate", pad, ts, pid, "bits_per_s",
        num (r, SP_KEY (window_pads, bytes_per_s)) * 8);
  }
  for (i = 0; i < rows (w, "window_queues"); i++) {
    const GstStructure *r = row (w, "window_queues", i);
    const gchar *q = gst_structure_get_string (r, "name");

    counter (t, ev, "level max", q, ts, pid, "buffers", num (r,
            SP_KEY (window_queues, max_level)));
    counter (t, ev, "level mean", q, ts, pid, "buffers",
        num (r, SP_KEY (window_queues, mean_level)));
    counter (t, ev, "level min", q, ts, pid, "buffers", num (r,
            SP_KEY (window_queues, min_level)));
    counter (t, ev, "full %", q, ts, pid, SP_KEY (window_queues, full_pct),
        num (r, SP_KEY (window_queues, full_pct)));
  }
  for (i = 0; i < rows (w, "window_elements"); i++) {
    const GstStructure *r = row (w, "window_elements", i);

    counter (t, ev, "self ms p90", gst_structure_get_string (r, "name"), ts,
        pid, "ms", num (r, SP_KEY (window_elements, p90_ms)));
  }
  for (i = 0; i < rows (w, "window_latency"); i++) {
    const GstStructure *r = row (w, "window_latency", i);

    counter (t, ev, "latency ms median", gst_structure_get_string (r, "name"),
        ts, pid, "ms", num (r, SP_KEY (window_latency, median_ms)));
    counter (t, ev, "latency ms p99", gst_structure_get_string (r, "name"),
        ts, pid, "ms", num (r, SP_KEY (window_latency, p99_ms)));
  }
  counter (t, ev, "process CPU %", NULL, ts, pid, "pct",
      num (w, SP_KEY (windows, process_cpu_pct)));
  g_string_free (ev, TRUE);
}
