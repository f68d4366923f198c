/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spprogress: see spprogress.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "spprogress.h"
#include "sprow.h"

#include <string.h>

#define SP_PROGRESS_MAX_QUEUES 3

struct _SpProgress
{
  gint64 last_us;
  /* "pipeline/name" -> gdouble[2]: the previous cumulative figures. */
  GHashTable *sinks;            /* frames, - */
  GHashTable *elems;            /* self seconds (all threads), - */
  GHashTable *queues;           /* level integral (buffers or bytes x s), span */
};

static GHashTable *
new_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

SpProgress *
sp_progress_new (void)
{
  SpProgress *p = g_new0 (SpProgress, 1);

  p->sinks = new_table ();
  p->elems = new_table ();
  p->queues = new_table ();
  return p;
}

void
sp_progress_free (SpProgress * p)
{
  if (!p)
    return;
  g_hash_table_destroy (p->sinks);
  g_hash_table_destroy (p->elems);
  g_hash_table_destroy (p->queues);
  g_free (p);
}

typedef gboolean (*SpRowFunc) (const GstStructure * row, gpointer data);

static void
foreach_row (const GstStructure * s, const gchar * table, SpRowFunc fn,
    gpointer data)
{
  const GValue *arr = gst_structure_get_value (s, table);
  guint i;

  if (!arr || !GST_VALUE_HOLDS_ARRAY (arr))
    return;
  for (i = 0; i < gst_value_array_get_size (arr); i++) {
    const GValue *v = gst_value_array_get_value (arr, i);
    if (GST_VALUE_HOLDS_STRUCTURE (v) && !fn (gst_value_get_structure (v),
            data))
      return;
  }
}

static gchar *
row_key (const GstStructure * row)
{
  return g_strdup_printf ("%s/%s",
      GST_STR_NULL (gst_structure_get_string (row, "pipeline")),
      GST_STR_NULL (gst_structure_get_string (row, "name")));
}

/* Cumulative (`value`, `value2`) of `key` now, remembered in `seen`;
 * returns the increase of `value` since the last line (all of it the first
 * time) and that of `value2` in `d2`. */
static gdouble
delta (GHashTable * prev, GHashTable * seen, gchar * key, gdouble value,
    gdouble value2, gdouble * d2)
{
  gdouble *old = g_hash_table_lookup (prev, key), *now;
  gdouble d = old && value >= old[0] ? value - old[0] : value;

  if (d2)
    *d2 = old && value2 >= old[1] ? value2 - old[1] : value2;
  now = g_new (gdouble, 2);
  now[0] = value;
  now[1] = value2;
  g_hash_table_replace (seen, key, now);
  return d;
}

typedef struct
{
  SpProgress *p;
  GHashTable *seen_sinks, *seen_elems, *seen_queues;
  gdouble dt;                   /* seconds since the last line */
  GString *sinks;
  GHashTable *busy;             /* key -> self seconds so far, all threads */
  GArray *queues;               /* QFill */
} LineCtx;

/* A queue's fill against the limit that binds: the one of buffers, bytes
 * and time it is closest to (a queue of big frames stops at its byte limit
 * with a handful of buffers in). */
typedef struct
{
  gchar *name;
  gdouble level;                /* buffers, mean over the interval */
  gdouble fill;                 /* of the binding limit, 1: full; <0: none */
  gchar *limit;                 /* the binding limit in words */
} QFill;

static gboolean
sink_row (const GstStructure * row, gpointer data)
{
  LineCtx *c = data;
  guint64 frames = 0;
  gdouble d;

  gst_structure_get_uint64 (row, "frames", &frames);
  d = delta (c->p->sinks, c->seen_sinks, row_key (row), frames, 0, NULL);
  g_string_append_printf (c->sinks, "%s%s %.1f fps", c->sinks->len ? ", " :
      "", GST_STR_NULL (gst_structure_get_string (row, "name")),
      c->dt > 0 ? d / c->dt : 0.0);
  return TRUE;
}

static gboolean
elem_row (const GstStructure * row, gpointer data)
{
  LineCtx *c = data;
  gdouble total = 0, *acc;
  gchar *key = row_key (row);

  gst_structure_get_double (row, SP_KEY (elements, total_s), &total);
  acc = g_hash_table_lookup (c->busy, key);
  if (!acc) {
    acc = g_new0 (gdouble, 1);
    g_hash_table_insert (c->busy, key, acc);
  } else {
    g_free (key);
  }
  *acc += total;
  return TRUE;
}

/* The mean over the last interval of a figure whose mean over the queue's
 * own span (items / qps) is `mean`: the span is undone, the increase of
 * both since the last line taken, remembered under `key` + `what`. */
static gdouble
interval_mean (LineCtx * c, const GstStructure * row, const gchar * what,
    gdouble mean, gdouble span)
{
  gchar *key = row_key (row);
  gchar *k = g_strconcat (key, what, NULL);
  gdouble dint, dspan = 0;

  g_free (key);
  dint = delta (c->p->queues, c->seen_queues, k, mean * span, span, &dspan);
  return dspan > 1e-6 ? MAX (dint / dspan, 0.0) : mean;
}

/* "10.0 MiB": g_format_size() puts a no-break space (not ASCII) between
 * number and unit, which a log's grep would miss. */
static gchar *
bytes_words (guint bytes)
{
  if (bytes >= 1024 * 1024)
    return g_strdup_printf ("%.1f MiB", bytes / (1024.0 * 1024.0));
  if (bytes >= 1024)
    return g_strdup_printf ("%.1f KiB", bytes / 1024.0);
  return g_strdup_printf ("%u bytes", bytes);
}

/* Makes `fill` the fill of (`level` of `limit`) when it is fuller. */
static void
consider_limit (QFill * q, gdouble level, gdouble limit, gchar * words)
{
  if (limit > 0 && level / limit > q->fill) {
    q->fill = level / limit;
    g_free (q->limit);
    q->limit = words;
  } else {
    g_free (words);
  }
}

static gboolean
queue_row (const GstStructure * row, gpointer data)
{
  LineCtx *c = data;
  gdouble mean = 0, mean_bytes = 0, qps = 0, span, ltime = 0, tlimit = 0;
  guint64 items = 0;
  guint lbuf = 0, lbytes = 0;
  QFill q = { NULL, 0, -1, NULL };

  gst_structure_get_double (row, SP_KEY (queues, mean_level), &mean);
  gst_structure_get_double (row, SP_KEY (queues, mean_bytes), &mean_bytes);
  gst_structure_get_double (row, "qps", &qps);
  gst_structure_get_uint64 (row, "items", &items);
  gst_structure_get_uint (row, SP_KEY (queues, limit_buffers), &lbuf);
  gst_structure_get_uint (row, SP_KEY (queues, limit_bytes), &lbytes);
  gst_structure_get_double (row, SP_KEY (queues, limit_time_s), &tlimit);
  /* Time held is not integrated on the hot path: the one now. */
  gst_structure_get_double (row, SP_KEY (queues, level_time_s), &ltime);
  span = qps > 0 ? items / qps : 0;
  q.name = g_strdup (gst_structure_get_string (row, "name"));
  q.level = interval_mean (c, row, "", mean, span);
  consider_limit (&q, q.level, lbuf, g_strdup_printf ("%u buffers", lbuf));
  consider_limit (&q, interval_mean (c, row, "#bytes", mean_bytes, span),
      lbytes, bytes_words (lbytes));
  consider_limit (&q, ltime, tlimit, g_strdup_printf ("%.3g s", tlimit));
  g_array_append_val (c->queues, q);
  return TRUE;
}

static gint
cmp_fill (gconstpointer a, gconstpointer b)
{
  const QFill *x = a, *y = b;

  if (x->fill != y->fill)
    return x->fill < y->fill ? 1 : -1;
  return x->level < y->level ? 1 : x->level > y->level ? -1 : 0;
}

static void
append_busiest (LineCtx * c, GString * line)
{
  GHashTableIter it;
  gpointer k, v;
  const gchar *best = NULL;
  gdouble best_d = -1;

  g_hash_table_iter_init (&it, c->busy);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    gdouble d = delta (c->p->elems, c->seen_elems, g_strdup (k),
        *(gdouble *) v, 0, NULL);
    if (d > best_d) {
      best_d = d;
      best = strchr (k, '/') ? strchr (k, '/') + 1 : k;
    }
  }
  if (best && best_d > 0 && c->dt > 0)
    g_string_append_printf (line, " | busiest %s %.0f%%", best,
        MIN (100.0 * best_d / c->dt, 100.0));
  else
    g_string_append (line, " | busiest -");
}

gchar *
sp_progress_line (SpProgress * p, const GstStructure * s, gint64 now_us)
{
  LineCtx c = { p };
  GString *line = g_string_new ("stageprof ");
  gdouble wall = 0;
  guint i, secs;

  gst_structure_get_double (s, "wall_s", &wall);
  c.dt = p->last_us ? (now_us - p->last_us) / 1e6 : wall;
  p->last_us = now_us;
  c.seen_sinks = new_table ();
  c.seen_elems = new_table ();
  c.seen_queues = new_table ();
  c.sinks = g_string_new (NULL);
  c.busy = new_table ();
  c.queues = g_array_new (FALSE, FALSE, sizeof (QFill));

  secs = (guint) wall;
  if (secs >= 3600)
    g_string_append_printf (line, "%u:%02u:%02u", secs / 3600,
        secs / 60 % 60, secs % 60);
  else
    g_string_append_printf (line, "%u:%02u", secs / 60, secs % 60);

  foreach_row (s, "sinks", sink_row, &c);
  g_string_append_printf (line, " | %s", c.sinks->len ? c.sinks->str :
      "no frames at a sink yet");
  foreach_row (s, "elements", elem_row, &c);
  append_busiest (&c, line);
  foreach_row (s, "queues", queue_row, &c);
  g_array_sort (c.queues, cmp_fill);
  for (i = 0; i < c.queues->len; i++) {
    QFill *q = &g_array_index (c.queues, QFill, i);
    if (i < SP_PROGRESS_MAX_QUEUES) {
      g_string_append (line, i == 0 ? " | " : ", ");
      if (q->limit)
        g_string_append_printf (line, "%s %.0f%% of %s", q->name,
            100.0 * q->fill, q->limit);
      else
        g_string_append_printf (line, "%s %.1f", q->name, q->level);
    }
    g_free (q->name);
    g_free (q->limit);
  }
  if (c.queues->len > SP_PROGRESS_MAX_QUEUES)
    g_string_append_printf (line, " (+%u queues)",
        c.queues->len - SP_PROGRESS_MAX_QUEUES);

  /* What was seen now is what the next line compares with (rows that are
   * gone are forgotten). */
  g_hash_table_destroy (p->sinks);
  g_hash_table_destroy (p->elems);
  g_hash_table_destroy (p->queues);
  p->sinks = c.seen_sinks;
  p->elems = c.seen_elems;
  p->queues = c.seen_queues;
  g_string_free (c.sinks, TRUE);
  g_hash_table_destroy (c.busy);
  g_array_free (c.queues, TRUE);
  return g_string_free (line, FALSE);
}
