/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spread-trace-queue: a queue's level from counter events (see
 * spread-trace-queue.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "spread-trace-queue.h"

#define SERIES_MAX 1024
#define COUNTER_PENDING_MAX 65536

/* "queue0", or the queue of a per-quantity track ("queue0 buffers",
 * "queue0.bytes", "queue0 (bytes)"): the base name and the quantity. */
gchar *
queue_acc_of_counter (const gchar * name, gint * quantity)
{
  static const gchar *const words[] = { "buffers", "bytes", "level", NULL };
  gsize n = strlen (name);
  guint i;

  *quantity = -1;
  for (i = 0; words[i]; i++) {
    gsize w = strlen (words[i]);
    gsize end = n;
    if (end > 0 && name[end - 1] == ')')
      end--;
    if (end > w && strncmp (name + end - w, words[i], w) == 0
        && strchr (" .:-_(/", name[end - w - 1])) {
      gsize base = end - w - 1;
      while (base > 0 && strchr (" (", name[base - 1]))
        base--;
      if (base == 0)
        break;
      *quantity = i == 1 ? 1 : 0;
      return g_strndup (name, base);
    }
  }
  return g_strdup (name);
}

/* Two neighbouring points as one: the range of both, the mean over both
 * stretches. */
static SpPoint
point_merge (const SpPoint * a, const SpPoint * b)
{
  SpPoint m = *a;
  gdouble span = a->span_s + b->span_s;

  m.min = MIN (a->min, b->min);
  m.max = MAX (a->max, b->max);
  m.level = span > 0 ? (a->level * a->span_s + b->level * b->span_s) / span
      : (a->level + b->level) / 2;
  m.span_s = span;
  return m;
}

/* The point being filled ends at `end` (the next point's first sample, or
 * the queue's last time). */
static void
queue_series_close (QueueAcc * q, gint64 end)
{
  gint64 dur = end - q->cur_t0;

  if (q->cur_n == 0)
    return;
  q->cur.level = dur > 0 ? q->cur_li / dur : q->cur_sum / q->cur_n;
  q->cur.span_s = dur > 0 ? dur / 1e9 : 0.0;
  g_array_append_val (q->series, q->cur);
  q->cur_n = 0;
  if (q->series->len >= SERIES_MAX) {
    /* Pairs become one point and later points stand for twice as many
     * samples: the series stays bounded, no sample's level is lost. */
    guint i, n = q->series->len;
    for (i = 0; i < n / 2; i++)
      g_array_index (q->series, SpPoint, i) =
          point_merge (&g_array_index (q->series, SpPoint, 2 * i),
          &g_array_index (q->series, SpPoint, 2 * i + 1));
    if (n % 2)
      g_array_index (q->series, SpPoint, n / 2) =
          g_array_index (q->series, SpPoint, n - 1);
    g_array_set_size (q->series, (n + 1) / 2);
    q->stride *= 2;
  }
}

/* The level just became q->level at `ts`. */
static void
queue_series (QueueAcc * q, gint64 ts)
{
  if (q->cur_n >= q->stride)
    queue_series_close (q, ts);
  if (q->cur_n == 0) {
    q->cur.t_s = (ts - q->first) / 1e9;
    q->cur.min = q->cur.max = q->level;
    q->cur_t0 = ts;
    q->cur_li = q->cur_sum = 0;
  }
  q->cur.min = MIN (q->cur.min, q->level);
  q->cur.max = MAX (q->cur.max, q->level);
  q->cur_sum += q->level;
  q->cur_n++;
}

static void
queue_advance (QueueAcc * q, gint64 ts)
{
  if (!q->started) {
    q->started = TRUE;
    q->first = q->last_ts = ts;
    return;
  }
  if (ts <= q->last_ts)
    return;
  q->li += q->level * (ts - q->last_ts);
  q->bi += q->bytes * (ts - q->last_ts);
  if (q->cur_n)
    q->cur_li += q->level * (ts - q->last_ts);
  if (q->level <= 0)
    q->empty_ns += ts - q->last_ts;
  q->last_ts = ts;
}

static void
queue_apply (QueueAcc * q, const Sample * s)
{
  queue_advance (q, s->ts);
  if (s->bytes) {
    q->bytes = s->v;
    q->have_bytes = TRUE;
    q->max_bytes = MAX (q->max_bytes, s->v);
  } else {
    if (s->v > q->level)
      q->items += s->v - q->level;
    q->level = s->v;
    q->max_level = MAX (q->max_level, s->v);
    queue_series (q, s->ts);
  }
}

static gint
cmp_sample (gconstpointer a, gconstpointer b)
{
  const Sample *x = a, *y = b;

  return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void
queue_drain (QueueAcc * q, gint64 upto, gboolean all)
{
  guint i, n = 0;

  g_array_sort (q->pending, cmp_sample);
  for (i = 0; i < q->pending->len; i++) {
    const Sample *s = &g_array_index (q->pending, Sample, i);
    if (!all && s->ts > upto && q->pending->len - i < COUNTER_PENDING_MAX / 2)
      break;
    queue_apply (q, s);
    n++;
  }
  g_array_remove_range (q->pending, 0, n);
}

QueueAcc *
queue_acc_new (gint64 pid, const gchar * name)
{
  QueueAcc *q = g_new0 (QueueAcc, 1);

  q->pid = pid;
  q->name = name;
  q->pending = g_array_new (FALSE, FALSE, sizeof (Sample));
  q->series = g_array_new (FALSE, FALSE, sizeof (SpPoint));
  q->stride = 1;
  q->drain_at = 4096;
  return q;
}

void
queue_acc_add (QueueAcc * q, const Sample * s)
{
  g_array_append_val (q->pending, *s);
}

void
queue_acc_pending (QueueAcc * q, gint64 upto)
{
  if (q->pending->len >= q->drain_at) {
    queue_drain (q, upto, FALSE);
    q->drain_at = q->pending->len + 4096;
  }
}

gboolean
queue_acc_row (QueueAcc * q, const gint64 * end, SpQueueRow * r)
{
  gdouble span;

  queue_drain (q, 0, TRUE);
  if (!q->started)
    return FALSE;
  queue_advance (q, end ? *end : q->last_ts);
  queue_series_close (q, q->last_ts);
  span = (gdouble) (q->last_ts - q->first);
  /* Counter events are not one per buffer: no item count. */
  r->items = r->qps = NAN;
  r->mean_level = span > 0 ? q->li / span : q->level;
  r->max_level = q->max_level;
  r->mean_bytes = !q->have_bytes ? NAN : span > 0 ? q->bi / span : q->bytes;
  r->max_bytes = q->have_bytes ? q->max_bytes : NAN;
  r->empty_pct = span > 0 ? 100.0 * q->empty_ns / span : NAN;
  r->full_pct = NAN;            /* needs the limits at every moment */
  r->limit_buffers = q->limit > 0 ? q->limit : NAN;
  r->ave_put_ms = r->ave_get_ms = NAN;
  r->series = q->series;
  q->series = NULL;
  return TRUE;
}

void
queue_acc_free (gpointer p)
{
  QueueAcc *q = p;

  g_array_free (q->pending, TRUE);
  if (q->series)
    g_array_free (q->series, TRUE);
  g_free (q);
}
