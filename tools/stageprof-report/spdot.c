/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spdot: DOT output. Nodes are keyed by the element's path as the links
 * record it ("bin/conv"); the profile's rows are matched to them by path,
 * or by the last path component when that is unique. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "spdot.h"

typedef struct
{
  gchar *id;                    /* path */
  gchar *pipeline;
  const SpElemRow *row;         /* the row with the most self time */
  const SpQueueRow *queue;
} Node;

static void
node_free (gpointer p)
{
  Node *n = p;

  g_free (n->id);
  g_free (n->pipeline);
  g_free (n);
}

static void
q (GString * o, const gchar * s)
{
  const gchar *p;

  g_string_append_c (o, '"');
  for (p = s ? s : ""; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_c (o, '\\');
    if ((guchar) * p < 0x20)
      g_string_append_c (o, ' ');
    else
      g_string_append_c (o, *p);
  }
  g_string_append_c (o, '"');
}

/* A user string inside a label built with DOT escapes (\\n, \\l). */
static gchar *
part (const gchar * s)
{
  GString *o = g_string_new (NULL);
  const gchar *p;

  for (p = s ? s : ""; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_c (o, '\\');
    g_string_append_c (o, (guchar) * p < 0x20 ? ' ' : *p);
  }
  return g_string_free (o, FALSE);
}

static void
raw (GString * o, const gchar * label)
{
  g_string_append_c (o, '"');
  g_string_append (o, label);
  g_string_append_c (o, '"');
}

static Node *
node_get (GPtrArray * nodes, const gchar * pipeline, const gchar * id,
    gboolean create)
{
  Node *n;
  guint i;

  for (i = 0; i < nodes->len; i++) {
    n = nodes->pdata[i];
    if (!strcmp (n->id, id) && (!pipeline || !n->pipeline
            || !strcmp (n->pipeline, pipeline)))
      return n;
  }
  if (!create)
    return NULL;
  n = g_new0 (Node, 1);
  n->id = g_strdup (id);
  n->pipeline = g_strdup (pipeline);
  g_ptr_array_add (nodes, n);
  return n;
}

static const gchar *
last_part (const gchar * path)
{
  const gchar *s = strrchr (path, '/');

  return s ? s + 1 : path;
}

/* The link node a profile name stands for. */
static Node *
match (GPtrArray * nodes, const gchar * pipeline, const gchar * name)
{
  Node *n = node_get (nodes, pipeline, name, FALSE), *found = NULL;
  guint i, hits = 0;

  if (n)
    return n;
  for (i = 0; i < nodes->len; i++) {
    Node *m = nodes->pdata[i];
    if ((!pipeline || !m->pipeline || !strcmp (m->pipeline, pipeline))
        && (!strcmp (last_part (m->id), last_part (name)))) {
      found = m;
      hits++;
    }
  }
  return hits == 1 ? found : NULL;
}

/* Node ids carry the pipeline when the input has several. */
static void
qid (GString * o, gboolean many, const gchar * pipeline, const gchar * id)
{
  gchar *s = many && pipeline ? g_strdup_printf ("%s/%s", pipeline, id) :
      g_strdup (id);

  q (o, s);
  g_free (s);
}

static gchar *
heat (gdouble share)
{
  /* White to red (#e15759) with the share of the largest self time. */
  gdouble s = CLAMP (isnan (share) ? 0 : share, 0, 1);

  return g_strdup_printf ("#%02x%02x%02x", 255 - (gint) (30 * s),
      255 - (gint) (168 * s), 255 - (gint) (166 * s));
}

/* The nodes: every element linked, with a row or a queue's; the largest
 * and the sum of the element totals. */
static GPtrArray *
collect_nodes (const SpProfile * p, gdouble * max_total, gdouble * all)
{
  GPtrArray *nodes = g_ptr_array_new_with_free_func (node_free);

  *max_total = *all = 0;
  for (guint i = 0; i < p->links->len; i++) {
    const SpLink *l = p->links->pdata[i];
    node_get (nodes, l->pipeline, l->src, TRUE);
    node_get (nodes, l->pipeline, l->sink, TRUE);
  }
  for (guint i = 0; i < p->elements->len; i++) {
    const SpElemRow *r = p->elements->pdata[i];
    Node *n = match (nodes, r->pipeline, r->name);
    if (!n)
      n = node_get (nodes, r->pipeline, r->name, TRUE);
    if (!n->row || r->total_s > n->row->total_s)
      n->row = r;
    if (!isnan (r->total_s)) {
      *max_total = MAX (*max_total, r->total_s);
      *all += r->total_s;
    }
  }
  for (guint i = 0; i < p->queues->len; i++) {
    const SpQueueRow *r = p->queues->pdata[i];
    Node *n = match (nodes, r->pipeline, r->name);
    if (!n)
      n = node_get (nodes, r->pipeline, r->name, TRUE);
    n->queue = r;
  }
  return nodes;
}

static void
write_header (GString * o, const SpProfile * p, const gchar * pipes)
{
  gchar *a = part (*pipes ? pipes : "-"), *b = part (p->path),
      *c = part (p->verdict ? p->verdict : "-");
  gchar *l = g_strdup_printf ("stageprof: %s (%s)\\lverdict: %s\\l%s",
      a, b, c, p->links->len ? "" : "links not recorded in this input (a "
      "trace from a stageprof that records them has them): elements "
      "only\\l");

  /* top to bottom: a linear pipeline of ten elements drawn left to right
   * was one row 3000 px wide */
  g_string_append (o, "digraph stageprof {\n  rankdir=TB;\n"
      "  graph [fontname=\"sans\", fontsize=11, labelloc=t, label=");
  raw (o, l);
  g_string_append (o, "];\n  node [shape=box, style=\"filled,rounded\", "
      "fontname=\"sans\", fontsize=10, fillcolor=\"#ffffff\"];\n"
      "  edge [fontname=\"sans\", fontsize=8];\n");
  g_free (l);
  g_free (a);
  g_free (b);
  g_free (c);
}

/* Threads as clusters: each element in the cluster of the thread where it
 * spent most. Queues sit between clusters, as they do in a pipeline. */
static GPtrArray *
collect_clusters (GPtrArray * nodes)
{
  GPtrArray *clusters = g_ptr_array_new ();     /* thread names, unique */

  for (guint i = 0; i < nodes->len; i++) {
    Node *n = nodes->pdata[i];
    guint j;
    if (!n->row || !n->row->thread || n->queue)
      continue;
    for (j = 0; j < clusters->len; j++)
      if (!strcmp (clusters->pdata[j], n->row->thread))
        break;
    if (j == clusters->len)
      g_ptr_array_add (clusters, n->row->thread);
  }
  return clusters;
}

/* One node: its name, self time and share, mean, a queue's levels; filled
 * by its share of the largest total. */
static void
write_node (GString * o, const Node * n, gboolean many, gboolean nested,
    gdouble max_total, gdouble all)
{
  gchar *id = part (n->id), *fill;
  GString *label = g_string_new (id);

  g_free (id);
  if (n->row) {
    gchar *tot = sp_fmt (n->row->total_s, 3), *mean =
        sp_fmt (n->row->mean_ms, 3);
    g_string_append_printf (label, "\\nself %s s (%.0f%%)\\nmean %s ms",
        tot, all > 0 ? 100 * n->row->total_s / all : 0, mean);
    /* a codec's own threads: their CPU is its work too */
    if (!isnan (n->row->worker_cpu_s) && n->row->worker_cpu_s > 0
        && !isnan (n->row->workers))
      g_string_append_printf (label, "\\n+ %.0f threads: %.3f s CPU",
          n->row->workers, n->row->worker_cpu_s);
    g_free (tot);
    g_free (mean);
  }
  if (n->queue) {
    gchar *mean = sp_fmt (n->queue->mean_level, 2), *max =
        sp_fmt (n->queue->max_level, 0);
    g_string_append_printf (label, "\\nlevel mean %s / max %s", mean, max);
    g_free (mean);
    g_free (max);
  }
  fill = heat (n->row && max_total > 0 ? n->row->total_s / max_total : 0);
  g_string_append (o, nested ? "    " : "  ");
  qid (o, many, n->pipeline, n->id);
  g_string_append (o, " [label=");
  raw (o, label->str);
  g_string_append_printf (o, ", fillcolor=\"%s\"%s];\n", fill,
      n->queue ? ", shape=box3d, style=filled" : "");
  g_string_free (label, TRUE);
  g_free (fill);
}

static void
write_edges (GString * o, const SpProfile * p, gboolean many)
{
  for (guint i = 0; i < p->links->len; i++) {
    const SpLink *l = p->links->pdata[i];
    gchar *lab = g_strdup_printf ("%s -> %s", l->src_pad ? l->src_pad : "?",
        l->sink_pad ? l->sink_pad : "?"), *e = part (lab);
    g_string_append (o, "  ");
    qid (o, many, l->pipeline, l->src);
    g_string_append (o, " -> ");
    qid (o, many, l->pipeline, l->sink);
    g_string_append (o, " [label=");
    raw (o, e);
    g_string_append (o, "];\n");
    g_free (lab);
    g_free (e);
  }
}

gchar *
sp_dot_render (const SpProfile * p)
{
  GString *o = g_string_new (NULL);
  gdouble max_total, all;
  GPtrArray *nodes = collect_nodes (p, &max_total, &all), *clusters;
  gchar *pipes = sp_profile_pipelines (p);
  gboolean many = strchr (pipes, ',') != NULL;

  write_header (o, p, pipes);
  clusters = collect_clusters (nodes);
  /* each cluster's nodes, then (j == clusters->len) those of no thread */
  for (guint j = 0; j <= clusters->len; j++) {
    const gchar *th = j < clusters->len ? clusters->pdata[j] : NULL;
    if (th) {
      gchar *l = g_strdup_printf ("thread %s", th);
      g_string_append_printf (o, "  subgraph cluster_%u {\n    label=", j);
      q (o, l);
      g_string_append (o, "; style=dashed; color=\"#4e79a7\";\n");
      g_free (l);
    }
    for (guint i = 0; i < nodes->len; i++) {
      Node *n = nodes->pdata[i];
      if (!g_strcmp0 (n->row && !n->queue ? n->row->thread : NULL, th))
        write_node (o, n, many, th != NULL, max_total, all);
    }
    if (th)
      g_string_append (o, "  }\n");
  }
  write_edges (o, p, many);
  g_string_append (o, "}\n");
  g_free (pipes);
  g_ptr_array_free (clusters, TRUE);
  g_ptr_array_free (nodes, TRUE);
  return g_string_free (o, FALSE);
}
