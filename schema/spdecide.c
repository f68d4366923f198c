/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spdecide: the one-line verdict of a profile, decided on throughput over
 * the pipeline's running time (see "How the verdict is decided" in
 * docs/tracer.md). The stage that sets the rate is the one that held its
 * thread longest, working or blocked in its own code (its `occupied`
 * time), if it did so for 60 % of the running time or more:
 *
 *  1. paced by the application: an appsrc's thread waited for the
 *     application to push 60 % of the running time, or that stage is an
 *     appsink, blocked waiting for the application to pull;
 *  2. paced by the clock: an element synced to the clock (a sync sink,
 *     identity sync=true, clocksync) or a live source waited for it for a
 *     tenth of the running time or more, and no stage is saturated (90 %);
 *  3. CPU-starved: the process used (nearly) every core and its threads
 *     waited a tenth of the running time or more for a CPU;
 *  4. compute-bound (by the element's class: decode-bound, ...): the stage
 *     mostly worked (or was ready to work but waited for a CPU; or, with
 *     workers of its own, waited for them);
 *  5. blocked: the stage was mostly blocked in its own code (a sleep, a
 *     lock, a device);
 *  6. a saturated thread: no one element sets the rate, but a thread that
 *     works for several does;
 *  7. otherwise no single bottleneck.
 * Elements that only wait for another input's turn (funnel,
 * input-selector, a muxer, stagebin's reorder) or for room downstream are
 * never named: their waiting is not what limits the rate. Nor are those
 * that only pass data on (queues, capsfilters, bins: SP_DECIDE_FORWARDS),
 * nor work ahead of a leaky queue that dropped buffers.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "spdecide.h"

#define SP_CLOCK_PACED 0.10
#define SP_CPU_STARVED 0.10
#define SP_CORES_USED 0.85
#define SP_SETS_RATE 0.60
/* A stage this busy sets the rate even where something also waits for the
 * clock (a live source ahead of a full queue). */
#define SP_SATURATED 0.90
/* Workers that used at least this share of the running time make their
 * element a stage with workers (a codec's frame or slice threads). */
#define SP_WORKERS_MATTER 0.05

typedef struct
{
  const SpDecideElem *e;        /* its first row: name, kind, flags */
  gint thread;                  /* where it worked most; -1: none */
  gdouble thread_work;
  gdouble work, demand, clock, blocked;
  gdouble waited_workers;       /* its thread's time waiting for them */
  gdouble occupied;             /* demand + blocked: it held its thread */
  gdouble cpu;                  /* its work and its workers' CPU time */
  /* The replicas of one op in a stagebin, judged as one stage: its name
   * (see replica_key) and how many; else NULL and 0. */
  gchar *group;
  guint replicas;
} SpStage;

static const gchar *
stage_name (const SpStage * st)
{
  return st->group ? st->group : st->e->name;
}

static const gchar *
thread_name (const SpDecideInput * in, gint t)
{
  return t >= 0 && (guint) t < in->n_threads && in->threads[t].name ?
      in->threads[t].name : "?";
}

static void
stage_free (gpointer p)
{
  SpStage *st = p;

  g_free (st->group);
  g_free (st);
}

/* An op's copy in each replica of a stagebin, "BIN/replicaN/OPk", gets
 * the key "BIN/replica" "*" "/OP" (the digits gone); else NULL. */
static gchar *
replica_key (const gchar * name)
{
  const gchar *r = strstr (name, "/replica"), *p, *slash;
  gsize n;

  if (!r)
    return NULL;
  for (p = r + 8; g_ascii_isdigit (*p); p++);
  if (p == r + 8 || *p != '/' || (slash = strchr (p + 1, '/')) != NULL)
    return NULL;
  n = strlen (p + 1);
  while (n > 0 && g_ascii_isdigit (p[1 + n - 1]))
    n--;
  return g_strdup_printf ("%.*s/replica*/%.*s", (gint) (r - name), name,
      (gint) n, p + 1);
}

/* The replicas of each op of a stagebin become one stage: they run side
 * by side, so the op is as busy as its average replica. */
static void
group_replicas (GHashTable * stages)
{
  GHashTable *groups = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, (GDestroyNotify) g_ptr_array_unref);
  GHashTableIter iter;
  gpointer k, v;

  g_hash_table_iter_init (&iter, stages);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpStage *st = v;
    gchar *key = replica_key (st->e->name);
    GPtrArray *members;

    if (!key)
      continue;
    members = g_hash_table_lookup (groups, key);
    if (!members) {
      members = g_ptr_array_new ();
      g_hash_table_insert (groups, key, members);
    } else {
      g_free (key);
    }
    g_ptr_array_add (members, st);
  }
  g_hash_table_iter_init (&iter, groups);
  while (g_hash_table_iter_next (&iter, &k, &v)) {
    GPtrArray *members = v;
    SpStage *g, *first = g_ptr_array_index (members, 0);
    guint i, n = members->len;

    if (n < 2)
      continue;
    g = g_new0 (SpStage, 1);
    g->e = first->e;
    g->thread = -1;
    g->group = g_strdup (k);
    g->replicas = n;
    for (i = 0; i < n; i++) {
      SpStage *m = g_ptr_array_index (members, i);
      g->work += m->work / n;
      g->demand += m->demand / n;
      g->clock += m->clock / n;
      g->blocked += m->blocked / n;
      g->waited_workers += m->waited_workers / n;
      if (g->thread < 0 || m->thread_work > g->thread_work) {
        g->thread = m->thread;
        g->thread_work = m->thread_work;
      }
      g_hash_table_remove (stages, m->e->name);
    }
    g->occupied = g->demand + g->blocked;
    g_hash_table_insert (stages, (gpointer) g->group, g);
  }
  g_hash_table_destroy (groups);
}

/* Totals per element over its threads. The run-queue delay of a thread
 * that held up its work is shared among the elements working on it by
 * their work: time each would have been working with a CPU of its own. */
static GHashTable *
stages_new (const SpDecideInput * in)
{
  GHashTable *stages = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      stage_free);
  GHashTableIter iter;
  gpointer v;
  gdouble run = in->running;
  guint i;

  for (i = 0; i < in->n_elems; i++) {
    const SpDecideElem *e = &in->elems[i];
    const SpDecideThread *sh = e->thread >= 0
        && (guint) e->thread < in->n_threads ? &in->threads[e->thread] : NULL;
    SpStage *st;
    gdouble rq = 0;

    /* What only passes data on never sets the rate. */
    if ((e->flags & SP_DECIDE_FORWARDS) || !e->name)
      continue;
    st = g_hash_table_lookup (stages, e->name);
    if (!st) {
      st = g_new0 (SpStage, 1);
      st->e = e;
      st->thread = -1;
      g_hash_table_insert (stages, (gpointer) e->name, st);
    }
    /* The part of the delay that held up work, in proportion to the work
     * in the thread's time that was not delay (a thread woken from its
     * waits on a loaded machine waits for a core too, but that is not its
     * elements' doing), shared by work. */
    if (sh && sh->busy > 0 && sh->wall - sh->cpu_wait > 0)
      rq = sh->cpu_wait * MIN (1.0, sh->busy / (sh->wall - sh->cpu_wait)) *
          MIN (1.0, e->work / sh->busy);
    st->work += e->work;
    /* Ahead of a leaky queue that dropped, it does not set the rate at
     * the sink however hard it works. */
    if (!sh || !sh->ahead)
      st->demand += e->work + rq;
    st->clock += e->clock;
    st->blocked += e->blocked > rq ? e->blocked - rq : 0;
    if (st->thread < 0 || e->work > st->thread_work) {
      st->thread = e->thread;
      st->thread_work = e->work;
    }
  }
  /* An element whose own threads work (a decoder's frame threads): its
   * streaming thread "blocked" in it is waiting for them, which is the
   * element working, and the stage is as busy as its average worker. */
  g_hash_table_iter_init (&iter, stages);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpStage *st = v;

    if (st->e->workers > 0 && st->e->worker_cpu >= SP_WORKERS_MATTER * run) {
      st->waited_workers = st->blocked;
      st->demand = MAX (st->demand + st->blocked,
          st->e->worker_cpu / st->e->workers);
      st->blocked = 0;
    }
    /* Work or blocked, the stage held its thread: stages on threads of
     * their own run side by side, and the one that holds its thread the
     * longest sets the rate, whatever it was doing. */
    st->occupied = st->demand + st->blocked;
  }
  group_replicas (stages);
  g_hash_table_iter_init (&iter, stages);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpStage *st = v;
    st->cpu = st->work + (st->group ? 0 : st->e->worker_cpu);
  }
  return stages;
}

/* The best stage by `field` (an offset into SpStage), ties by name so that
 * the verdict does not depend on the order rows come in. */
static SpStage *
stage_max (GHashTable * stages, gsize field)
{
  GHashTableIter iter;
  gpointer v;
  SpStage *best = NULL;

  g_hash_table_iter_init (&iter, stages);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpStage *st = v;
    gdouble x = G_STRUCT_MEMBER (gdouble, st, field);
    gdouble b = best ? G_STRUCT_MEMBER (gdouble, best, field) : -1;
    if (x > b || (x == b && g_strcmp0 (stage_name (st), stage_name (best)) < 0))
      best = st;
  }
  return best;
}

static gdouble
sink_fps (const SpDecideInput * in, const gchar * prefer)
{
  gdouble fps = 0;
  guint i;

  for (i = 0; i < in->n_sinks; i++) {
    if (g_strcmp0 (in->sink_names[i], prefer) == 0)
      return in->sink_fps[i];
    fps = MAX (fps, in->sink_fps[i]);
  }
  return fps;
}

/* "busiest stage NAME at N %": the stage that used the most CPU, its own
 * thread's work and its workers' (x264enc's own thread works 5 % while
 * its threads use 3 cores). */
static gchar *
busiest_text (const SpStage * b, gdouble run)
{
  if (!b->group && b->e->workers > 0
      && b->e->worker_cpu >= SP_WORKERS_MATTER * run)
    return g_strdup_printf ("busiest stage %s: its thread at %.0f %% of the "
        "running time and its %u threads at %.1f cores", stage_name (b),
        100.0 * b->work / run, b->e->workers, b->e->worker_cpu / run);
  return g_strdup_printf ("busiest stage %s at %.0f %% of the running time",
      stage_name (b), 100.0 * b->work / run);
}

static gint
cmp_stage_work (gconstpointer a, gconstpointer b)
{
  const SpStage *x = *(SpStage * const *) a, *y = *(SpStage * const *) b;

  if (x->work != y->work)
    return x->work < y->work ? 1 : -1;
  return g_strcmp0 (stage_name (x), stage_name (y));
}

/* A thread that works (or waits for a CPU to work) most of the running
 * time sets the rate even when no one element on it does: two heavy
 * videoscales on one thread, each at a third. Returns the verdict, or
 * NULL. */
static gchar *
saturated_thread (GHashTable * stages, const SpDecideInput * in)
{
  GHashTableIter iter;
  gpointer v;
  GPtrArray *on;
  GString *names;
  const SpDecideThread *best = NULL;
  gint th = -1;
  gdouble run = in->running;
  gchar *res, *cpu;
  guint i;

  for (i = 0; i < in->n_threads; i++) {
    const SpDecideThread *sh = &in->threads[i];
    if (sh->ahead || sh->busy + sh->cpu_wait < SP_SETS_RATE * run)
      continue;
    if (!best || sh->busy + sh->cpu_wait > best->busy + best->cpu_wait) {
      best = sh;
      th = i;
    }
  }
  if (!best)
    return NULL;
  on = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, stages);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpStage *st = v;
    if (st->thread == th && st->work >= 0.05 * run)
      g_ptr_array_add (on, st);
  }
  if (on->len < 2) {
    g_ptr_array_free (on, TRUE);
    return NULL;
  }
  g_ptr_array_sort (on, cmp_stage_work);
  names = g_string_new (NULL);
  for (i = 0; i < on->len && i < 4; i++) {
    SpStage *st = g_ptr_array_index (on, i);
    g_string_append_printf (names, "%s%s %.0f %%", i ? ", " : "",
        stage_name (st), 100.0 * st->work / run);
  }
  cpu = best->cpu_wait >= 0.05 * run ? g_strdup_printf (" and waits %.0f "
      "%% for a CPU", 100.0 * best->cpu_wait / run) : g_strdup ("");
  res = g_strdup_printf ("compute-bound: thread %s works %.0f %% of the "
      "running time%s, for %u elements that together set the rate (%s%s)",
      best->name, 100.0 * best->busy / run, cpu, on->len, names->str,
      on->len > 4 ? ", ..." : "");
  g_free (cpu);
  g_string_free (names, TRUE);
  g_ptr_array_free (on, TRUE);
  return res;
}

/* An appsrc whose thread waited for input (the application's next
 * push-buffer): returns the longest such wait (s), and its stage. */
static gdouble
app_src_wait (GHashTable * stages, const SpDecideInput * in,
    SpStage ** which)
{
  GHashTableIter iter;
  gpointer v;
  gdouble best = 0;

  *which = NULL;
  g_hash_table_iter_init (&iter, stages);
  while (g_hash_table_iter_next (&iter, NULL, &v)) {
    SpStage *st = v;
    if (!(st->e->flags & SP_DECIDE_APP_SRC) || st->thread < 0
        || (guint) st->thread >= in->n_threads)
      continue;
    if (in->threads[st->thread].wait_in > best) {
      best = in->threads[st->thread].wait_in;
      *which = st;
    }
  }
  return best;
}

static const gchar *
kind_of (const SpStage * st)
{
  return st->e->kind ? st->e->kind : "compute";
}

gchar *
sp_decide_verdict (const SpDecideInput * in)
{
  gdouble run = in->running, rq = 0, app_waited;
  GHashTable *stages;
  SpStage *busiest, *clock, *held, *setter, *app_src;
  gchar *res, *busy_txt;
  guint i;

  if (run < 1e-3 || in->n_elems == 0)
    return g_strdup ("no verdict: no streaming thread ran long enough to "
        "judge");
  stages = stages_new (in);
  if (g_hash_table_size (stages) == 0) {
    g_hash_table_destroy (stages);
    return g_strdup ("no verdict: no element but queues, capsfilters and "
        "bins ran");
  }
  for (i = 0; i < in->n_threads; i++)
    rq += in->threads[i].cpu_wait;
  busiest = stage_max (stages, G_STRUCT_OFFSET (SpStage, cpu));
  clock = stage_max (stages, G_STRUCT_OFFSET (SpStage, clock));
  held = stage_max (stages, G_STRUCT_OFFSET (SpStage, occupied));
  busy_txt = busiest_text (busiest, run);
  /* The stage that sets the rate: the one that held its thread longest
   * (working or blocked), if it did so 60 % of the running time. */
  setter = held->occupied >= SP_SETS_RATE * run ? held : NULL;

  app_waited = app_src_wait (stages, in, &app_src);
  if (app_src && app_waited >= SP_SETS_RATE * run) {
    res = g_strdup_printf ("paced by the application: appsrc `%s` waited "
        "for the application to push %.0f %% of the running time; %s",
        stage_name (app_src), 100.0 * app_waited / run, busy_txt);
  } else if (setter && (setter->e->flags & SP_DECIDE_APP_SINK)
      && setter->blocked > setter->demand) {
    res = g_strdup_printf ("paced by the application: appsink `%s` waited "
        "for the application to pull %.0f %% of the running time; %s",
        stage_name (setter), 100.0 * setter->blocked / run, busy_txt);
  } else if (clock->clock >= SP_CLOCK_PACED * run
      && (!setter || setter->occupied < SP_SATURATED * run)) {
    gdouble fps = sink_fps (in, clock->e->name);
    gboolean live = clock->e->flags & SP_DECIDE_LIVE_SOURCE;
    gchar *rate = fps > 0 ? g_strdup_printf (" at %.1f fps", fps) :
        g_strdup ("");
    res = g_strdup_printf ("paced by the clock%s (%s `%s`%s, waiting %.0f %% "
        "of the running time); %s", rate, live ? "live source" :
        (clock->e->flags & SP_DECIDE_SINK) ? "sink" : "element",
        clock->e->name, live ? "" : " sync=true",
        100.0 * clock->clock / run, busy_txt);
    g_free (rate);
  } else if (in->cores > 0 && in->process_cpu > 0
      && in->process_cpu >= SP_CORES_USED * in->cores * run
      && rq >= SP_CPU_STARVED * run) {
    res = g_strdup_printf ("CPU-starved: the process used %.1f of %u cores "
        "and its threads waited %.1f s for a CPU; %s",
        in->process_cpu / run, in->cores, rq, busy_txt);
  } else if (setter && setter->demand >= setter->blocked
      && setter->e->workers > 0 && setter->waited_workers + setter->work
      < setter->demand) {
    /* Set by its workers more than by its own thread. */
    res = g_strdup_printf ("%s-bound: %s with its %u threads (they used %.1f "
        "cores; its own thread %s worked %.0f %% of the running time and "
        "waited for them %.0f %%)", kind_of (setter), stage_name (setter),
        setter->e->workers, setter->e->worker_cpu / run,
        thread_name (in, setter->thread), 100.0 * setter->work / run,
        100.0 * setter->waited_workers / run);
  } else if (setter && setter->demand >= setter->blocked) {
    gdouble waited = setter->demand - setter->work - setter->waited_workers;
    gchar *cpu = waited >= 0.05 * run ?
        g_strdup_printf (", and %.0f %% waiting for a CPU",
        100.0 * waited / run) : g_strdup ("");
    gchar *workers = setter->waited_workers > 0 ?
        g_strdup_printf (", waiting %.0f %% for its %u threads (%.1f cores)",
        100.0 * setter->waited_workers / run, setter->e->workers,
        setter->e->worker_cpu / run) : g_strdup ("");
    gchar *held_txt = setter->blocked >= 0.05 * run ?
        g_strdup_printf (", and blocked %.0f %%", 100.0 * setter->blocked /
        run) : g_strdup ("");
    gchar *on = setter->replicas ? g_strdup_printf ("in %u replicas "
        "(each ", setter->replicas) : g_strdup_printf ("on thread %s "
        "(", thread_name (in, setter->thread));
    res = g_strdup_printf ("%s-bound: %s %sworking %.0f %% of "
        "the running time%s%s%s)", kind_of (setter), stage_name (setter), on,
        100.0 * setter->work / run, workers, cpu, held_txt);
    g_free (on);
    g_free (cpu);
    g_free (workers);
    g_free (held_txt);
  } else if (setter) {
    gchar *worked = setter->work >= 0.05 * run ?
        g_strdup_printf (", and working %.0f %%", 100.0 * setter->work / run)
        : g_strdup ("");
    res = g_strdup_printf ("blocked: %s on thread %s (blocked %.0f %% of the "
        "running time in its own code, not on a CPU: a sleep, a lock%s%s); "
        "%s", stage_name (setter), thread_name (in, setter->thread),
        100.0 * setter->blocked / run, (setter->e->flags & SP_DECIDE_SINK) ?
        ", a device, or the preroll (a sink waits for every sink of the "
        "pipeline to have data before it plays)" : " or a device", worked,
        busy_txt);
    g_free (worked);
  } else if (!(res = saturated_thread (stages, in))) {
    res = g_strdup_printf ("no single bottleneck: %s (%s)", busy_txt,
        thread_name (in, busiest->thread));
  }
  g_free (busy_txt);
  g_hash_table_destroy (stages);
  return res;
}

gchar *
sp_decide_pool_verdict (const SpDecidePool * pools, guint n)
{
  const SpDecidePool *worst = NULL;

  for (guint i = 0; i < n; i++)
    if (pools[i].empty > 0 && pools[i].max_buffers > 0
        && pools[i].wait_pct >= SP_DECIDE_POOL_BOUND
        && (!worst || pools[i].wait_pct > worst->wait_pct))
      worst = &pools[i];
  if (!worst)
    return NULL;
  return g_strdup_printf ("pool-bound: %s waited %.0f %% of the running "
      "time for a free buffer of its pool %s (%" G_GUINT64_FORMAT " buffers, "
      "all %" G_GUINT64_FORMAT " held: %s)", worst->user, worst->wait_pct,
      worst->name, worst->max_buffers, worst->max_buffers,
      worst->held_by ? worst->held_by : "?");
}
