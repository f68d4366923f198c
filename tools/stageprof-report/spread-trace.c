/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spread-trace: per-element, per-thread and per-queue figures recomputed
 * from a stageprof Chrome trace, in one streaming pass.
 *
 * Self time: on each thread, a slice's duration minus the durations of the
 * slices directly nested in it (the tracer records chains nested as they are
 * called), as the tracer computes it. Element slices have no "cat"; "NAME
 * event" slices are event handling (busy, not samples); "wait" slices are
 * waiting. Statistics use ops/stats (Welford, P2), so memory does not grow
 * with the number of slices. Queue levels come from the "C" counter events,
 * reordered within a window (two threads write each queue's track) and
 * integrated over time; their series is thinned to a bounded number of
 * points for plots.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "stats.h"
#include "spread.h"
#include "sptracereader.h"
#include "spread-trace-queue.h"
#include "spread-trace-range.h"

#define COUNTER_HOLD_NS (2 * G_GINT64_CONSTANT (1000000000))

typedef enum { SL_ELEMENT, SL_EVENT, SL_WAIT_IN, SL_WAIT_OUT, SL_CLOCK,
  SL_BLOCKED, SL_OTHER
} SlKind;

typedef struct
{
  gint64 start, end, child;
  SlKind kind;
  const gchar *name;            /* interned */
  gint64 work;                  /* its stageprof_work event's, or -1 */
  SlKind rest;                  /* what the rest of its self time was */
} Open;

/* An element's worker threads (its stageprof_workers event). */
typedef struct
{
  gdouble workers, cpu_s;
  gchar *kind;
} Workers;

static void
workers_free (gpointer p)
{
  Workers *w = p;

  g_free (w->kind);
  g_free (w);
}

/* A stageprof_work event read before its slice (a reordered trace). */
typedef struct
{
  gint64 start, work;
  const gchar *name;            /* interned */
  SlKind rest;
} Work;

#define WORK_PENDING_MAX 64
/* Finished top-level slices a thread keeps for a late enclosing one. */
#define DONE_MAX 16384

/* A finished top-level slice of a thread: [start, end). */
typedef struct
{
  gint64 start, end;
} Span;

typedef struct
{
  gint64 pid, tid;
  GArray *stack;                /* Open */
  GArray *works;                /* Work, pending */
  GArray *done;                 /* Span: recent top-level slices, by start */
  gint64 done_from;             /* none before this start kept */
  gint64 first, last;
  gint64 busy, wait_in, wait_out;
  gdouble cpu_wait_s;           /* its last stageprof_thread event, or -1 */
  GHashTable *elems;            /* interned name -> ElemAcc */
  guint64 *n_elems;             /* the read's count of ElemAcc */
} ThreadAcc;

typedef struct
{
  ThreadAcc *th;
  const gchar *name;
  StageStats stats;
  gint64 total;
  gint64 events;                /* handling events: busy, not samples */
  gint64 blocked;               /* in its own code, not on a CPU */
} ElemAcc;


typedef struct
{
  GHashTable *threads;          /* "pid:tid" -> ThreadAcc */
  ThreadAcc *last_thread;       /* events come grouped by thread */
  GHashTable *queues;           /* "pid:name" -> QueueAcc */
  GHashTable *pnames;           /* pid -> gchar* */
  GHashTable *tnames;           /* "pid:tid" -> gchar* */
  GHashTable *pfirst;           /* pid -> gint64* first ts */
  GHashTable *pend;             /* pid -> gint64* last end */
  GArray *link_pids;            /* gint64 per p->links: 0 trace-wide */
  GHashTable *workers;          /* "pid:element" -> Workers */
  gint64 max_ts;
  guint64 n_slices, n_out_of_order;
  gboolean runs_numbered;       /* some process is "NAME (run N)" */
  SpProfile *p;
  GHashTable *names;            /* interned names (in chunk) */
  GStringChunk *chunk;
  guint64 n_elems;              /* ElemAcc, all threads */
  /* The runs' summaries the tracer wrote into the trace (gchar* JSON);
   * `foreign`: one came from a merged trace (another process's). */
  GPtrArray *summaries;
  gboolean foreign;
} Acc;

/* Memory grows with each distinct name (an element on a thread, a
 * thread, a counter: 1-3 KB each), never with the event count: past
 * this many the trace is refused (a real pipeline's has hundreds). */
#define SP_TRACE_MAX_NAMES 100000

/* A name kept for the whole read, in the read's own table, freed with
 * it (GLib's interned strings are the process's and never freed). */
static const gchar *
intern (Acc * a, const gchar * s)
{
  const gchar *k = g_hash_table_lookup (a->names, s);

  if (k == NULL) {
    k = g_string_chunk_insert (a->chunk, s);
    g_hash_table_add (a->names, (gpointer) k);
  }
  return k;
}

/* Whether the trace names more than SP_TRACE_MAX_NAMES things. */
static gboolean
too_many_names (const Acc * a)
{
  return g_hash_table_size (a->names) > SP_TRACE_MAX_NAMES
      || g_hash_table_size (a->threads) > SP_TRACE_MAX_NAMES
      || g_hash_table_size (a->queues) > SP_TRACE_MAX_NAMES
      || g_hash_table_size (a->tnames) > SP_TRACE_MAX_NAMES
      || g_hash_table_size (a->workers) > SP_TRACE_MAX_NAMES
      || a->n_elems > SP_TRACE_MAX_NAMES
      || a->p->links->len > SP_TRACE_MAX_NAMES;
}

static inline gint64
to_ns (gdouble us)
{
  /* Clamped far inside gint64: sums and differences of two stay valid. */
  return sp_to_int64 (CLAMP (round (us * 1000.0), -1e18, 1e18));
}

static gchar *
key2 (gint64 a, gint64 b)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, a, b);
}

/* "pid:name": a queue's or an element's key within its process. */
static gchar *
key_pid_name (gint64 pid, const gchar * name)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%s", pid, name);
}

static void
pid_span (Acc * a, gint64 pid, gint64 start, gint64 end)
{
  gint64 *f = g_hash_table_lookup (a->pfirst, GINT_TO_POINTER (pid));
  gint64 *e = g_hash_table_lookup (a->pend, GINT_TO_POINTER (pid));

  if (!f) {
    f = g_new (gint64, 1);
    *f = start;
    g_hash_table_insert (a->pfirst, GINT_TO_POINTER (pid), f);
    e = g_new (gint64, 1);
    *e = end;
    g_hash_table_insert (a->pend, GINT_TO_POINTER (pid), e);
  }
  *f = MIN (*f, start);
  *e = MAX (*e, end);
}

static ThreadAcc *
thread_acc (Acc * a, gint64 pid, gint64 tid)
{
  gchar k[64];
  ThreadAcc *t = a->last_thread;

  if (t && t->pid == pid && t->tid == tid)
    return t;
  g_snprintf (k, sizeof (k), "%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, pid,
      tid);
  t = g_hash_table_lookup (a->threads, k);
  if (!t) {
    t = g_new0 (ThreadAcc, 1);
    t->pid = pid;
    t->tid = tid;
    t->first = G_MAXINT64;
    t->stack = g_array_new (FALSE, FALSE, sizeof (Open));
    t->works = g_array_new (FALSE, FALSE, sizeof (Work));
    t->done = g_array_new (FALSE, FALSE, sizeof (Span));
    t->done_from = G_MININT64;
    t->cpu_wait_s = -1;
    t->elems = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    t->n_elems = &a->n_elems;
    g_hash_table_insert (a->threads, g_strdup (k), t);
  }
  a->last_thread = t;
  return t;
}

static ElemAcc *
elem_acc (ThreadAcc * t, const gchar * name)
{
  ElemAcc *e = g_hash_table_lookup (t->elems, name);

  if (!e) {
    e = g_new0 (ElemAcc, 1);
    e->th = t;
    e->name = name;
    stage_stats_init (&e->stats);
    g_hash_table_insert (t->elems, (gpointer) name, e);
    (*t->n_elems)++;
  }
  return e;
}

/* Books `ns` of element `name`'s time on a thread that was not work:
 * blocked time (and the clock's) is what the thread's wall time leaves
 * over, as in the tracer's summary. */
static void
book_rest (ThreadAcc * t, const gchar * name, SlKind kind, gint64 ns)
{
  if (kind == SL_WAIT_IN)
    t->wait_in += ns;
  else if (kind == SL_WAIT_OUT)
    t->wait_out += ns;
  else if (kind == SL_BLOCKED && name)
    elem_acc (t, name)->blocked += ns;
}

static void
finish (Acc * a, ThreadAcc * t, const Open * o)
{
  gint64 self = MAX (o->end - o->start - o->child, 0);
  const gchar *name = o->name;
  ElemAcc *e;

  if (o->kind == SL_EVENT) {
    /* "NAME event": NAME's time, not one of its per-buffer samples. */
    gchar *n = g_strndup (o->name, strlen (o->name) - 6);
    name = intern (a, n);
    g_free (n);
  }
  /* Drawn whole although part of its own time was waiting: the tracer's
   * work event says how much was work. */
  if (o->work >= 0 && o->work < self
      && (o->kind == SL_ELEMENT || o->kind == SL_EVENT)) {
    book_rest (t, name, o->rest, self - o->work);
    self = o->work;
  }
  switch (o->kind) {
    case SL_WAIT_IN:
    case SL_WAIT_OUT:
    case SL_CLOCK:
    case SL_BLOCKED:
      book_rest (t, name, o->kind, o->end - o->start);
      return;
    case SL_OTHER:
      return;
    case SL_EVENT:
      t->busy += self;
      elem_acc (t, name)->events += self;
      return;
    default:
      break;
  }
  t->busy += self;
  e = elem_acc (t, name);
  stage_stats_add (&e->stats, self / 1e6);
  e->total += self;
}

/* A slice finished at the top level: a slice written later may enclose
 * it (see late_slice). */
static void
add_done (ThreadAcc * t, const Open * o)
{
  Span s = { o->start, o->end };

  if (t->done->len >= DONE_MAX) {
    g_array_remove_range (t->done, 0, DONE_MAX / 2);
    t->done_from = g_array_index (t->done, Span, 0).start;
  }
  g_array_append_val (t->done, s);
}

static void
pop_until (Acc * a, ThreadAcc * t, gint64 ts)
{
  while (t->stack->len > 0) {
    Open *top = &g_array_index (t->stack, Open, t->stack->len - 1);
    Open o;
    if (top->end > ts)
      break;
    o = *top;
    g_array_set_size (t->stack, t->stack->len - 1);
    finish (a, t, &o);
    if (t->stack->len == 0)
      add_done (t, &o);
  }
}

/* A slice longer than the tracer's 100 ms ordering window is written after
 * the slices it encloses (its start is before theirs): those still open
 * are finished, the top-level ones among them and those finished before
 * are its children, and it takes their place on the stack, where the
 * rest of its children (written after it) and its work event find it.
 * FALSE when it cannot be placed so (a slice enclosing it is open: its
 * figures stay approximate). */
static gboolean
late_slice (Acc * a, ThreadAcc * t, Open * o)
{
  guint i;

  while (t->stack->len > 0) {
    Open *top = &g_array_index (t->stack, Open, t->stack->len - 1);
    Open c;
    if (top->start < o->start)
      return FALSE;
    c = *top;
    g_array_set_size (t->stack, t->stack->len - 1);
    finish (a, t, &c);
    if (t->stack->len == 0)
      add_done (t, &c);
  }
  if (t->done_from > o->start)
    return FALSE;               /* more children than were kept */
  for (i = t->done->len; i > 0; i--) {
    const Span *s = &g_array_index (t->done, Span, i - 1);
    if (s->start < o->start)
      break;
    if (s->end <= o->end)
      o->child += s->end - s->start;
  }
  g_array_set_size (t->done, i);
  return TRUE;
}

static void
on_slice (Acc * a, const SpEvent * ev)
{
  ThreadAcc *t;
  Open o;
  gsize n;

  /* stage-batch's own slices in a merged batch trace (one per job, on the
   * job's launcher track) are not the work of any element or thread */
  if (ev->cat && strcmp (ev->cat, "stage-batch") == 0)
    return;
  t = thread_acc (a, ev->pid, ev->tid);
  o.start = to_ns (ev->ts);
  o.end = o.start + MAX (to_ns (ev->dur), 0);
  o.child = 0;
  o.name = intern (a, ev->name);
  o.work = -1;
  o.rest = SL_BLOCKED;
  if (ev->cat && strcmp (ev->cat, "wait") == 0) {
    const SpEventArg *el = sp_event_arg (ev, "element");
    o.kind = strstr (ev->name, "Input") ? SL_WAIT_IN : strstr (ev->name,
        "Output") ? SL_WAIT_OUT : strstr (ev->name, "Clock") ? SL_CLOCK :
        SL_BLOCKED;
    /* The element that waited, for its blocked time. */
    o.name = el && !el->is_num ? intern (a, el->str) : NULL;
  }
  else if (ev->cat && strcmp (ev->cat, "gpu") != 0)
    o.kind = SL_OTHER;          /* a category of a newer tracer: not work */
  else if (g_str_has_suffix (ev->name, " event"))
    o.kind = SL_EVENT;
  else
    o.kind = SL_ELEMENT;
  a->n_slices++;
  t->first = MIN (t->first, o.start);
  t->last = MAX (t->last, o.end);
  pid_span (a, ev->pid, o.start, o.end);
  a->max_ts = MAX (a->max_ts, o.end);

  pop_until (a, t, o.start);
  n = t->stack->len;
  if ((n > 0 && o.start < g_array_index (t->stack, Open, n - 1).start)
      || (n == 0 && t->done->len > 0 && o.start <
          g_array_index (t->done, Span, t->done->len - 1).start)) {
    if (!late_slice (a, t, &o)) {
      /* Counted on its own, children not all subtracted. */
      a->n_out_of_order++;
      finish (a, t, &o);
      return;
    }
    n = t->stack->len;
  }
  if (n > 0) {
    Open *top = &g_array_index (t->stack, Open, n - 1);
    if (o.end <= top->end)
      top->child += o.end - o.start;
  }
  for (n = 0; n < t->works->len; n++) {
    Work *w = &g_array_index (t->works, Work, n);
    if (w->start == o.start && w->name == o.name) {
      o.work = w->work;
      o.rest = w->rest;
      g_array_remove_index (t->works, n);
      break;
    }
  }
  g_array_append_val (t->stack, o);
}

/* A slice's work (stageprof_work): for the open slice it names, which it
 * follows in the tracer's order; kept a while for one not read yet. */
static void
on_work (Acc * a, const SpEvent * ev)
{
  const SpEventArg *el = sp_event_arg (ev, "element"),
      *wk = sp_event_arg (ev, "work"), *rest = sp_event_arg (ev, "rest");
  ThreadAcc *t;
  Work w;
  guint i;

  if (!ev->has_ts || !el || el->is_num || !wk || !wk->is_num)
    return;
  t = thread_acc (a, ev->pid, ev->tid);
  w.start = to_ns (ev->ts);
  w.work = MAX (to_ns (wk->num), 0);
  w.name = intern (a, el->str);
  w.rest = SL_BLOCKED;
  if (rest && !rest->is_num)
    w.rest = strcmp (rest->str, "input") == 0 ? SL_WAIT_IN :
        strcmp (rest->str, "output") == 0 ? SL_WAIT_OUT :
        strcmp (rest->str, "clock") == 0 ? SL_CLOCK : SL_BLOCKED;
  for (i = t->stack->len; i > 0; i--) {
    Open *o = &g_array_index (t->stack, Open, i - 1);
    if (o->start == w.start && o->name == w.name) {
      o->work = w.work;
      o->rest = w.rest;
      return;
    }
    if (o->start < w.start)
      break;
  }
  if (t->works->len >= WORK_PENDING_MAX)
    g_array_remove_index (t->works, 0);
  g_array_append_val (t->works, w);
}

/* ---- queues (spread-trace-queue.c) ---------------------------------- */

static QueueAcc *
queue_acc (Acc * a, gint64 pid, const gchar * name)
{
  gchar *k = key_pid_name (pid, name);
  QueueAcc *q = g_hash_table_lookup (a->queues, k);

  if (q) {
    g_free (k);
    return q;
  }
  q = queue_acc_new (pid, intern (a, name));
  g_hash_table_insert (a->queues, k, q);
  return q;
}

static void
on_counter (Acc * a, const SpEvent * ev)
{
  gint quantity;
  gchar *base = queue_acc_of_counter (ev->name, &quantity);
  QueueAcc *q = queue_acc (a, ev->pid, base);
  gint64 ts = to_ns (ev->ts);
  guint i;

  g_free (base);
  pid_span (a, ev->pid, ts, ts);
  a->max_ts = MAX (a->max_ts, ts);
  for (i = 0; i < ev->n_args; i++) {
    const SpEventArg *arg = &ev->args[i];
    Sample s;
    if (!arg->is_num)
      continue;
    s.ts = ts;
    s.v = arg->num;
    if (strcmp (arg->key, "buffers") == 0 || strcmp (arg->key, "level") == 0)
      s.bytes = FALSE;
    else if (strcmp (arg->key, "bytes") == 0)
      s.bytes = TRUE;
    else if (quantity >= 0 && ev->n_args == 1)
      s.bytes = quantity == 1;
    else
      continue;
    queue_acc_add (q, &s);
  }
  queue_acc_pending (q, a->max_ts - COUNTER_HOLD_NS);
}

/* ---- metadata ------------------------------------------------------- */

static void
on_meta (Acc * a, const SpEvent * ev)
{
  const SpEventArg *n = sp_event_arg (ev, "name");

  if (strcmp (ev->name, "process_name") == 0 && n && !n->is_num) {
    g_hash_table_insert (a->pnames, GINT_TO_POINTER (ev->pid),
        g_strdup (n->str));
  } else if (strcmp (ev->name, "thread_name") == 0 && n && !n->is_num) {
    g_hash_table_insert (a->tnames, key2 (ev->pid, ev->tid),
        g_strdup (n->str));
  } else if (strcmp (ev->name, "stageprof_start") == 0) {
    const SpEventArg *w = sp_event_arg (ev, "wall_clock_us");
    const SpEventArg *t = sp_event_arg (ev, "ts_us");
    if (w && w->is_num && !a->p->have_clock) {
      a->p->have_clock = TRUE;
      a->p->wall_clock_us = sp_to_int64 (CLAMP (w->num - (t && t->is_num ?
                  t->num : 0), -4e18, 4e18));
    }
  } else if (strcmp (ev->name, "stageprof_work") == 0) {
    on_work (a, ev);
  } else if (strcmp (ev->name, "stageprof_queue") == 0) {
    const SpEventArg *qn = sp_event_arg (ev, "queue"),
        *lim = sp_event_arg (ev, SP_KEY (queues, limit_buffers));
    if (qn && !qn->is_num && lim && lim->is_num && lim->num > 0
        && lim->num < 1e12)
      queue_acc (a, ev->pid, qn->str)->limit = lim->num;
  } else if (strcmp (ev->name, "stageprof_workers") == 0) {
    const SpEventArg *el = sp_event_arg (ev, "element"),
        *n = sp_event_arg (ev, "workers"), *c = sp_event_arg (ev, "cpu"),
        *k = sp_event_arg (ev, "kind");
    Workers *w;
    if (!el || el->is_num || !n || !n->is_num || !c || !c->is_num)
      return;
    w = g_new0 (Workers, 1);
    w->workers = n->num;
    w->cpu_s = c->num;
    w->kind = g_strdup (k && !k->is_num ? k->str : "compute");
    g_hash_table_insert (a->workers, key_pid_name (ev->pid, el->str), w);
    g_hash_table_replace (a->p->kinds, g_strdup (el->str),
        g_strdup (w->kind));
  } else if (strcmp (ev->name, "stageprof_summary") == 0) {
    const SpEventArg *sm = sp_event_arg (ev, "summary");
    /* The tracer writes them with pid 0; a merge (stage-batch) moves them
     * into each job's process, where names repeat: those are not used. */
    if (!sm || sm->is_num)
      return;
    if (ev->has_pid && ev->pid == 0)
      g_ptr_array_add (a->summaries, g_strdup (sm->str));
    else
      a->foreign = TRUE;
  } else if (strcmp (ev->name, "stageprof_thread") == 0) {
    const SpEventArg *w = sp_event_arg (ev, "cpu_wait");
    if (w && w->is_num && w->num >= 0 && ev->has_tid)
      thread_acc (a, ev->pid, ev->tid)->cpu_wait_s = w->num;
  } else if (strcmp (ev->name, "stageprof_link") == 0) {
    const SpEventArg *pl = sp_event_arg (ev, "pipeline"),
        *src = sp_event_arg (ev, "src"), *sp = sp_event_arg (ev, "src_pad"),
        *sink = sp_event_arg (ev, "sink"), *kp = sp_event_arg (ev,
        "sink_pad");
    SpLink *l;
    guint i;
    if (!src || src->is_num || !sink || sink->is_num)
      return;
    for (i = 0; i < a->p->links->len; i++) {
      SpLink *o = a->p->links->pdata[i];
      if (g_array_index (a->link_pids, gint64, i) == (ev->has_pid ? ev->pid :
              0) && !g_strcmp0 (o->src, src->str)
          && !g_strcmp0 (o->sink, sink->str)
          && !g_strcmp0 (o->pipeline, pl && !pl->is_num ? pl->str : NULL)
          && !g_strcmp0 (o->src_pad, sp && !sp->is_num ? sp->str : NULL)
          && !g_strcmp0 (o->sink_pad, kp && !kp->is_num ? kp->str : NULL))
        return;
    }
    l = g_new0 (SpLink, 1);
    l->pipeline = g_strdup (pl && !pl->is_num ? pl->str : NULL);
    l->src = g_strdup (src->str);
    l->sink = g_strdup (sink->str);
    l->src_pad = g_strdup (sp && !sp->is_num ? sp->str : NULL);
    l->sink_pad = g_strdup (kp && !kp->is_num ? kp->str : NULL);
    g_ptr_array_add (a->p->links, l);
    /* a merged batch trace puts each job's links in its process: they name
     * that process's pipeline, resolved once every name is known */
    {
      gint64 pid = ev->has_pid ? ev->pid : 0;

      g_array_append_val (a->link_pids, pid);
    }
  }
}

/* ---- the runs' own summaries ------------------------------------------ */

/* A trace whose process ended normally carries each run's summary: its
 * rows and verdict replace those recomputed from the slices, so `show`,
 * `html`, `dot` and `diff` on a trace say what the summary and the
 * database say (a slice's self time cannot tell work from a wait the
 * tracer split by CPU time, nor see a codec's workers). A trace cut short
 * (a killed process) or merged keeps the slices' figures. */
static void
use_summaries (Acc * a)
{
  SpProfile *t;
  GString *verdicts;
  guint i, n_pipes = 0;
  gboolean ok = TRUE;

  if (a->summaries->len == 0 || a->foreign)
    return;
  t = sp_profile_new (a->p->path, SP_SOURCE_TRACE);
  verdicts = g_string_new (NULL);
  for (i = 0; i < a->summaries->len && ok; i++) {
    gchar *v = NULL, *pipe = NULL;

    ok = sp_summary_text_rows (t, a->summaries->pdata[i], &v, &pipe);
    if (ok && v) {
      g_string_append_printf (verdicts, "%s%s%s%s", verdicts->len ? "; " :
          "", a->summaries->len > 1 && pipe ? pipe : "",
          a->summaries->len > 1 && pipe ? ": " : "", v);
      n_pipes++;
    }
    g_free (v);
    g_free (pipe);
  }
  if (ok && t->elements->len > 0) {
    /* a queue's levels over time are the trace's (its counter tracks) */
    for (i = 0; i < t->queues->len; i++) {
      SpQueueRow *q = t->queues->pdata[i];
      guint j;
      for (j = 0; j < a->p->queues->len; j++) {
        SpQueueRow *o = a->p->queues->pdata[j];
        if (o->series && !g_strcmp0 (o->name, q->name)
            && (!o->pipeline || !q->pipeline
                || !g_strcmp0 (o->pipeline, q->pipeline))) {
          q->series = o->series;
          o->series = NULL;
          if (isnan (q->limit_buffers))
            q->limit_buffers = o->limit_buffers;
          break;
        }
      }
    }
#define SWAP(f) { GPtrArray *x = a->p->f; a->p->f = t->f; t->f = x; }
    SWAP (elements);
    SWAP (queues);
    SWAP (threads);
    SWAP (sinks);
    SWAP (latency);
    SWAP (element_latency);
#undef SWAP
    {
      GHashTable *x = a->p->verdicts;
      a->p->verdicts = t->verdicts;
      t->verdicts = x;
    }
    /* one run: its running time is the summary's, not the span of the
     * trace's events (which starts at the tracer's first event) */
    if (a->summaries->len == 1 && !isnan (t->wall_s))
      a->p->wall_s = t->wall_s;
    if (n_pipes > 0) {
      g_free (a->p->verdict);
      a->p->verdict = g_string_free (verdicts, FALSE);
      verdicts = NULL;
    }
    a->p->rows_from_summary = TRUE;
  } else {
    sp_profile_note (a->p, "the trace's run summaries could not be read: "
        "figures recomputed from its slices");
  }
  if (verdicts)
    g_string_free (verdicts, TRUE);
  sp_profile_free (t);
}

/* ---- rows ----------------------------------------------------------- */

/* A tracer that numbers the runs of a pipeline names a later run's
 * process "NAME (run N)": the pipeline is NAME, the run N. */
static gchar *
pipe_name_run (Acc * a, gint64 pid, gchar ** run)
{
  const gchar *n = g_hash_table_lookup (a->pnames, GINT_TO_POINTER (pid));
  const gchar *r;

  if (run)
    *run = a->runs_numbered ? g_strdup ("1") : NULL;
  if (!n)
    return g_strdup_printf ("pid %" G_GINT64_FORMAT, pid);
  r = g_strrstr (n, " (run ");
  if (r && g_str_has_suffix (r, ")") && r > n) {
    gchar *num = g_strndup (r + 6, strlen (r + 6) - 1);
    if (*num && strspn (num, "0123456789") == strlen (num)) {
      if (run) {
        g_free (*run);
        *run = num;
      } else {
        g_free (num);
      }
      return g_strndup (n, r - n);
    }
    g_free (num);
  }
  return g_strdup (n);
}



static gchar *
thread_name (Acc * a, gint64 pid, gint64 tid)
{
  gchar *k = key2 (pid, tid);
  const gchar *n = g_hash_table_lookup (a->tnames, k);

  g_free (k);
  return n ? g_strdup (n) : g_strdup_printf ("tid %" G_GINT64_FORMAT, tid);
}

static const Workers *
elem_workers (Acc * a, const ElemAcc * e)
{
  gchar *k = key_pid_name (e->th->pid, e->name);
  const Workers *w = g_hash_table_lookup (a->workers, k);

  g_free (k);
  return w;
}

static SpElemRow *
elem_row (Acc * a, const ElemAcc * e)
{
  SpElemRow *r = sp_row_new (&sp_elem_kind);
  gdouble wall = (gdouble) MAX (e->th->last - e->th->first, 1);

  r->name = g_strdup (e->name);
  r->thread = thread_name (a, e->th->pid, e->th->tid);
  r->pipeline = pipe_name_run (a, e->th->pid, &r->run);
  r->count = e->stats.count;
  r->mean_ms = e->stats.mean;
  r->std_ms = stage_stats_std (&e->stats);
  r->min_ms = e->stats.min;
  r->max_ms = e->stats.max;
  r->median_ms = stage_stats_median (&e->stats);
  r->p90_ms = stage_stats_p90 (&e->stats);
  r->p99_ms = stage_stats_p99 (&e->stats);
  r->total_s = e->total / 1e9;
  r->busy_pct = 100.0 * e->total / wall;
  r->blocked_s = e->blocked / 1e9;
  {
    const Workers *w = elem_workers (a, e);
    if (w) {
      r->workers = w->workers;
      r->worker_cpu_s = w->cpu_s;
    }
  }
  return r;
}

/* A thread's shares of its wall time, as the tracer's summary makes them:
 * blocked is what the slices leave over, the run-queue delay (when the
 * trace has it) comes out of the others. */
static void
thread_shares (const ThreadAcc * t, SpThreadRow * r, gdouble wall)
{
  guint64 busy = MAX (t->busy, 0), in = MAX (t->wait_in, 0),
      out = MAX (t->wait_out, 0), sum = busy + in + out, blocked, rq;

  if (sum > wall) {
    /* Overlapping slices (a damaged or hand-made trace): scale down. */
    busy *= wall / sum;
    in *= wall / sum;
    out *= wall / sum;
    sum = busy + in + out;
  }
  blocked = wall > sum ? (guint64) wall - sum : 0;
  r->cpu_wait_pct = NAN;
  if (t->cpu_wait_s >= 0) {
    rq = MIN ((guint64) (t->cpu_wait_s * 1e9), (guint64) wall);
    sp_shares_take_cpu_wait (rq, &blocked, &out, &in, &busy);
    r->cpu_wait_pct = 100.0 * rq / wall;
  }
  r->busy_pct = 100.0 * busy / wall;
  r->wait_input_pct = 100.0 * in / wall;
  r->wait_output_pct = 100.0 * out / wall;
  r->blocked_pct = 100.0 * blocked / wall;
}

static void
build_rows (Acc * a)
{
  GHashTableIter it;
  gpointer k, v;
  gint64 first = G_MAXINT64, last = 0;

  g_hash_table_iter_init (&it, a->pnames);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    gchar *run = NULL, *name;
    a->runs_numbered = FALSE;
    name = pipe_name_run (a, GPOINTER_TO_INT (k), &run);
    if (run)
      a->runs_numbered = TRUE;
    g_free (run);
    g_free (name);
    if (a->runs_numbered)
      break;
  }
  for (guint i = 0; i < a->p->links->len; i++) {
    gint64 pid = g_array_index (a->link_pids, gint64, i);
    SpLink *l = a->p->links->pdata[i];

    if (pid != 0 && g_hash_table_contains (a->pnames, GINT_TO_POINTER (pid))) {
      g_free (l->pipeline);
      l->pipeline = pipe_name_run (a, pid, NULL);
    }
  }
  g_hash_table_iter_init (&it, a->threads);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    ThreadAcc *t = v;
    SpThreadRow *r;
    gdouble wall;
    while (t->stack->len > 0) {
      Open o = g_array_index (t->stack, Open, t->stack->len - 1);
      g_array_set_size (t->stack, t->stack->len - 1);
      finish (a, t, &o);
    }
    if (t->first >= t->last)
      continue;
    wall = (gdouble) (t->last - t->first);
    first = MIN (first, t->first);
    last = MAX (last, t->last);
    r = sp_row_new (&sp_thread_kind);
    r->name = thread_name (a, t->pid, t->tid);
    r->pipeline = pipe_name_run (a, t->pid, &r->run);
    r->wall_s = wall / 1e9;
    thread_shares (t, r, wall);
    g_ptr_array_add (a->p->threads, r);
  }
  g_hash_table_iter_init (&it, a->threads);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    GHashTableIter eit;
    gpointer ek, ev;
    g_hash_table_iter_init (&eit, ((ThreadAcc *) v)->elems);
    while (g_hash_table_iter_next (&eit, &ek, &ev))
      if (((ElemAcc *) ev)->stats.count > 0)    /* events only: no row */
        g_ptr_array_add (a->p->elements, elem_row (a, ev));
  }
  g_hash_table_iter_init (&it, a->queues);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    QueueAcc *q = v;
    SpQueueRow *r = sp_row_new (&sp_queue_kind);
    gint64 *end = g_hash_table_lookup (a->pend, GINT_TO_POINTER (q->pid));

    if (!queue_acc_row (q, end, r)) {
      sp_row_free (&sp_queue_kind, r);
      continue;
    }
    r->name = g_strdup (q->name);
    r->pipeline = pipe_name_run (a, q->pid, &r->run);
    g_ptr_array_add (a->p->queues, r);
  }
  if (last > first)
    a->p->wall_s = (last - first) / 1e9;
}


static void
thread_acc_free (gpointer p)
{
  ThreadAcc *t = p;

  g_array_free (t->works, TRUE);
  g_array_free (t->done, TRUE);
  g_array_free (t->stack, TRUE);
  g_hash_table_destroy (t->elems);
  g_free (t);
}

SpProfile *
sp_read_trace_range (const gchar * path, gdouble from_s, gdouble till_s,
    GError ** error)
{
  GHashTable *starts = NULL;
  SpTraceReader *rd;
  GError *err = NULL;
  SpEvent *ev;
  Acc a = { 0 };
  guint64 n_meta = 0;

  if (!(rd = sp_trace_range_open (path, from_s, till_s, &starts, error)))
    return NULL;
  a.p = sp_profile_new (path, SP_SOURCE_TRACE);
  a.threads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      thread_acc_free);
  a.queues = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      queue_acc_free);
  a.pnames = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  a.tnames = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  a.pfirst = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  a.pend = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  a.link_pids = g_array_new (FALSE, FALSE, sizeof (gint64));
  a.workers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      workers_free);
  a.names = g_hash_table_new (g_str_hash, g_str_equal);
  a.chunk = g_string_chunk_new (4096);
  a.summaries = g_ptr_array_new_with_free_func (g_free);

  while (sp_trace_reader_next (rd, &ev, &err)) {
    if (too_many_names (&a)) {
      g_set_error (&err, SP_REPORT_ERROR, SP_REPORT_ERROR_MALFORMED,
          "%s: the trace names more than %d distinct elements, threads or "
          "counters (by byte %" G_GUINT64_FORMAT "): stageprof-report keeps "
          "each in memory and reads at most that many (a stageprof trace "
          "of a real pipeline names hundreds)", path, SP_TRACE_MAX_NAMES,
          sp_trace_reader_offset (rd));
      break;
    }
    if (!sp_trace_keep (ev, starts, from_s, till_s))
      continue;
    switch (ev->ph) {
      case 'X':
        if (ev->has_ts && ev->has_dur)
          on_slice (&a, ev);
        break;
      case 'C':
        if (ev->has_ts)
          on_counter (&a, ev);
        break;
      case 'M':
        n_meta++;
        on_meta (&a, ev);
        break;
      default:
        break;
    }
  }
  if (err) {
    g_propagate_error (error, err);
    sp_profile_free (a.p);
    a.p = NULL;
    goto out;
  }
  if (sp_trace_reader_skipped (rd))
    sp_profile_note (a.p, "%s", sp_trace_reader_skipped (rd));
  if (sp_trace_reader_cut (rd))
    sp_profile_note (a.p, "%s", sp_trace_reader_cut (rd));
  if (a.n_slices == 0 && g_hash_table_size (a.queues) == 0) {
    if (n_meta > 0 || sp_trace_reader_events (rd) == 0)
      g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_EMPTY,
          "%s: a trace with no slices (%" G_GUINT64_FORMAT " events, none "
          "of them an element slice)%s%s", path,
          sp_trace_reader_events (rd), sp_trace_reader_cut (rd) ? "; " : "",
          sp_trace_reader_cut (rd) ? sp_trace_reader_cut (rd) : "");
    else
      g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_NOT_STAGEPROF,
          "%s: a JSON array, but not a Chrome trace (no slices, counters or "
          "metadata among %" G_GUINT64_FORMAT " entries)", path,
          sp_trace_reader_events (rd));
    sp_profile_free (a.p);
    a.p = NULL;
    goto out;
  }
  build_rows (&a);
  if (a.n_out_of_order)
    sp_profile_note (a.p, "%" G_GUINT64_FORMAT " slices were written after "
        "slices they enclose (longer than 100 ms) and could not be matched "
        "with them: their self time includes some of their children's",
        a.n_out_of_order);
  a.p->verdict = sp_profile_verdict (a.p);
  if (!starts)                  /* the runs' summaries are of all their time */
    use_summaries (&a);
out:
  g_hash_table_destroy (a.threads);
  g_hash_table_destroy (a.queues);
  g_hash_table_destroy (a.pnames);
  g_hash_table_destroy (a.workers);
  g_hash_table_destroy (a.tnames);
  g_hash_table_destroy (a.pfirst);
  g_hash_table_destroy (a.pend);
  g_array_free (a.link_pids, TRUE);
  sp_trace_reader_free (rd);
  g_clear_pointer (&starts, g_hash_table_destroy);
  /* the rows carry copies of the names they show */
  g_hash_table_destroy (a.names);
  g_string_chunk_free (a.chunk);
  g_ptr_array_free (a.summaries, TRUE);
  return a.p;
}
