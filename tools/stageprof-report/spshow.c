/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spshow: renderings of one profile. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "spshow.h"

gboolean
sp_format_parse (const gchar * s, SpFormat * f)
{
  if (!g_ascii_strcasecmp (s, "text"))
    *f = SP_FORMAT_TEXT;
  else if (!g_ascii_strcasecmp (s, "json"))
    *f = SP_FORMAT_JSON;
  else if (!g_ascii_strcasecmp (s, "csv"))
    *f = SP_FORMAT_CSV;
  else if (!g_ascii_strcasecmp (s, "markdown") || !g_ascii_strcasecmp (s,
          "md"))
    *f = SP_FORMAT_MARKDOWN;
  else
    return FALSE;
  return TRUE;
}

/* ---- the profile ---------------------------------------------------- */

static gboolean
many_pipelines (const SpProfile * p)
{
  gchar *all = sp_profile_pipelines (p);
  gboolean many = strchr (all, ',') != NULL;

  g_free (all);
  return many;
}

/* A row's name, with its pipeline when the profile has several (the jobs
 * of a merged batch trace each have a queue0 and a thread queue0). */
static gchar *
row_name (gboolean many, const gchar * pipeline, const gchar * name)
{
  return many && pipeline ? g_strdup_printf ("%s/%s", pipeline, name) :
      g_strdup (name);
}

typedef struct
{
  const SpRowKind *kind;
  gboolean many;
} RowCtx;

static gdouble
model_num (gconstpointer row, const SpColumn * c, gpointer data)
{
  RowCtx *x = data;

  return sp_row_num (x->kind, row, c - x->kind->schema->cols);
}

static gchar *
model_text (gconstpointer row, const SpColumn * c, gpointer data)
{
  RowCtx *x = data;
  guint i = c - x->kind->schema->cols;
  const gchar *v = sp_row_text (x->kind, row, i);

  if (i == 0 && v)
    return row_name (x->many, sp_row_text (x->kind, row,
            sp_schema_column_index (x->kind->schema, "pipeline")), v);
  return g_strdup (v);
}

static gboolean
model_has (gconstpointer row, const SpColumn * c, gpointer data)
{
  RowCtx *x = data;
  guint i = c - x->kind->schema->cols;

  if (sp_col_is_text (c))
    return sp_row_text (x->kind, row, i) != NULL;
  return !isnan (sp_row_num (x->kind, row, i));
}

static const SpRowReader model_rows = { model_num, model_text, model_has };

/* The schema's table of `rows` (at most `top` of them; 0: all). */
static void
model_table (const SpProfile * p, const SpRowKind * k, GPtrArray * rows,
    SpFormat f, guint top, GString * out)
{
  RowCtx x = { k, many_pipelines (p) };
  GPtrArray *shown = g_ptr_array_new ();

  for (guint i = 0; i < rows->len && (!top || i < top); i++)
    g_ptr_array_add (shown, rows->pdata[i]);
  sp_table_render (sp_schema_table (k->schema, shown, &model_rows, &x), f,
      out);
  g_ptr_array_free (shown, TRUE);
  if (top && rows->len > top && f != SP_FORMAT_CSV)
    g_string_append_printf (out, "%s(%u more rows; --top 0 shows all)\n",
        f == SP_FORMAT_MARKDOWN ? "\n" : "  ", rows->len - top);
}

static void
sinks_table (const SpProfile * p, SpFormat f, GString * out)
{
  static const gchar *const hdr[] = { "Sink", "Count", "Per second",
    "Unit", NULL
  };
  SpTable *t = sp_table_new (1, hdr);
  gboolean many = many_pipelines (p);
  guint i;

  for (i = 0; i < p->sinks->len; i++) {
    const SpSinkRow *r = p->sinks->pdata[i];
    /* a sink of audio (or of anything but video) counts buffers, not
     * frames: say so, with the unit */
    gboolean video = !r->unit || !strcmp (r->unit, "frames");

    sp_table_add (t, row_name (many, r->pipeline, r->name));
    sp_table_add (t, sp_fmt (video ? r->frames : r->buffers, 0));
    sp_table_add (t, sp_fmt (r->fps, 2));
    sp_table_add (t, video ? g_strdup ("frames") :
        g_strdup_printf ("buffers of %s", r->media ? r->media : "?"));
  }
  sp_table_render (t, f, out);
}

/* The tables drawn by the schema alone: the profile's rows of each. */
static const struct
{
  const gchar *name;
  const SpRowKind *kind;
  gsize rows;                   /* offset of the GPtrArray in SpProfile */
} model_tables[] = {
  {"elements", &sp_elem_kind, G_STRUCT_OFFSET (SpProfile, elements)},
  {"queues", &sp_queue_kind, G_STRUCT_OFFSET (SpProfile, queues)},
  {"threads", &sp_thread_kind, G_STRUCT_OFFSET (SpProfile, threads)},
  {"latency", &sp_latency_kind, G_STRUCT_OFFSET (SpProfile, latency)},
  {"element_latency", &sp_elem_latency_kind,
      G_STRUCT_OFFSET (SpProfile, element_latency)},
  {"pools", &sp_pool_kind, G_STRUCT_OFFSET (SpProfile, pools)},
  {"memory", &sp_memory_kind, G_STRUCT_OFFSET (SpProfile, memory)},
};

void
sp_show_table (const SpProfile * p, const gchar * which, SpFormat f,
    guint top, GString * out)
{
  for (guint i = 0; i < G_N_ELEMENTS (model_tables); i++)
    if (!strcmp (which, model_tables[i].name)) {
      /* --top limits the elements only */
      model_table (p, model_tables[i].kind, G_STRUCT_MEMBER (GPtrArray *, p,
              model_tables[i].rows), f, i == 0 ? top : 0, out);
      return;
    }
  sinks_table (p, f, out);
}

static const gchar *
kind_name (SpSourceKind k)
{
  return k == SP_SOURCE_DB ? "database" : k == SP_SOURCE_TRACE ? "trace" :
      "summary";
}

/* The rows of a kind as JSON objects: every column of the schema (texts
 * absent are null, numbers absent are null too). */
static void
json_rows (GString * o, const gchar * name, const SpRowKind * k,
    GPtrArray * rows, guint top)
{
  g_string_append_printf (o, ",\n\"%s\":[", name);
  for (guint i = 0; i < rows->len && (!top || i < top); i++) {
    g_string_append (o, i ? ",\n {" : "\n {");
    for (guint c = 0; c < k->schema->n_cols; c++) {
      const SpColumn *col = &k->schema->cols[c];
      if (c)
        g_string_append_c (o, ',');
      stage_json_str (o, col->key);
      g_string_append_c (o, ':');
      if (sp_col_is_text (col))
        stage_json_str (o, sp_row_text (k, rows->pdata[i], c));
      else
        stage_json_num (o, sp_row_num (k, rows->pdata[i], c), 10);
    }
    g_string_append_c (o, '}');
  }
  g_string_append_c (o, ']');
}

static void
render_json (const SpProfile * p, guint top, GString * o)
{
  g_string_append (o, "{\"source\":");
  stage_json_str (o, p->path);
  g_string_append (o, ",\"kind\":");
  stage_json_str (o, kind_name (p->kind));
  g_string_append (o, ",\"wall_s\":");
  stage_json_num (o, p->wall_s, 10);
  g_string_append (o, ",\"verdict\":");
  stage_json_str (o, p->verdict);
  json_rows (o, "elements", &sp_elem_kind, p->elements, top);
  json_rows (o, "queues", &sp_queue_kind, p->queues, 0);
  json_rows (o, "threads", &sp_thread_kind, p->threads, 0);
  json_rows (o, "sinks", &sp_sink_kind, p->sinks, 0);
  json_rows (o, "latency", &sp_latency_kind, p->latency, 0);
  json_rows (o, "element_latency", &sp_elem_latency_kind, p->element_latency,
      0);
  json_rows (o, "pools", &sp_pool_kind, p->pools, 0);
  json_rows (o, "memory", &sp_memory_kind, p->memory, 0);
  g_string_append (o, ",\n\"notes\":[");
  for (guint i = 0; i < p->notes->len; i++) {
    if (i)
      g_string_append_c (o, ',');
    stage_json_str (o, p->notes->pdata[i]);
  }
  g_string_append (o, "]}\n");
}

gchar *
sp_show_render (const SpProfile * p, SpFormat f, guint top,
    const gchar * table)
{
  GString *o = g_string_new (NULL);
  gchar *wall = sp_fmt (p->wall_s, 3), *pipes = sp_profile_pipelines (p);
  const gchar *h = f == SP_FORMAT_MARKDOWN ? "### " : "";
  guint i;

  if (f == SP_FORMAT_JSON) {
    render_json (p, top, o);
    goto out;
  }
  if (f == SP_FORMAT_CSV) {
    sp_show_table (p, table ? table : "elements", f, top, o);
    goto out;
  }
  g_string_append_printf (o, "%s=== stageprof %s (%s, %s): %s s ===\n",
      f == SP_FORMAT_MARKDOWN ? "## " : "", *pipes ? pipes : "-",
      kind_name (p->kind), p->path, wall);
  if (f == SP_FORMAT_MARKDOWN)
    g_string_append_c (o, '\n');
  g_string_append_printf (o, "%sElements (times in ms, Total in s)%s\n", h,
      p->kind != SP_SOURCE_TRACE ? "" : p->rows_from_summary ?
      ", from the runs' summaries in the trace" :
      ", recomputed from the trace's slices");
  if (f == SP_FORMAT_MARKDOWN)
    g_string_append_c (o, '\n');
  sp_show_table (p, "elements", f, top, o);
  if (p->queues->len) {
    g_string_append_printf (o, "%s%sQueues%s\n", f == SP_FORMAT_MARKDOWN ?
        "\n" : "", h, p->kind == SP_SOURCE_TRACE && !p->rows_from_summary ?
        " (from the counter tracks; full share and put/get waits are not in "
        "a trace)" : "");
    if (f == SP_FORMAT_MARKDOWN)
      g_string_append_c (o, '\n');
    sp_show_table (p, "queues", f, 0, o);
  }
  if (p->threads->len) {
    g_string_append_printf (o, "%s%sThreads (share of each thread's wall "
        "time)\n", f == SP_FORMAT_MARKDOWN ? "\n" : "", h);
    if (f == SP_FORMAT_MARKDOWN)
      g_string_append_c (o, '\n');
    sp_show_table (p, "threads", f, 0, o);
  }
  if (p->sinks->len) {
    g_string_append_printf (o, "%s%sSinks\n", f == SP_FORMAT_MARKDOWN ?
        "\n" : "", h);
    if (f == SP_FORMAT_MARKDOWN)
      g_string_append_c (o, '\n');
    sp_show_table (p, "sinks", f, 0, o);
  }
  if (p->latency->len) {
    g_string_append_printf (o, "%s%sLatency (ms from a frame's origin "
        "to the sink; render: to the return of a sink on the clock)\n",
        f == SP_FORMAT_MARKDOWN ? "\n" : "", h);
    if (f == SP_FORMAT_MARKDOWN)
      g_string_append_c (o, '\n');
    sp_show_table (p, "latency", f, 0, o);
  }
  if (p->element_latency->len) {
    g_string_append_printf (o, "%s%sLatency through elements (ms; work: "
        "self time a buffer; dwell: waiting inside)\n",
        f == SP_FORMAT_MARKDOWN ? "\n" : "", h);
    if (f == SP_FORMAT_MARKDOWN)
      g_string_append_c (o, '\n');
    sp_show_table (p, "element_latency", f, 0, o);
  }
  if (p->pools->len) {
    g_string_append_printf (o, "%s%sBuffer pools (wait: its user waiting "
        "for a free buffer; held when empty: where its buffers were)\n",
        f == SP_FORMAT_MARKDOWN ? "\n" : "", h);
    if (f == SP_FORMAT_MARKDOWN)
      g_string_append_c (o, '\n');
    sp_show_table (p, "pools", f, 0, o);
  }
  if (p->memory->len) {
    g_string_append_printf (o, "%s%sMemory by element (bytes it "
        "allocated, pool buffers it handed out, alive now and at most)\n",
        f == SP_FORMAT_MARKDOWN ? "\n" : "", h);
    if (f == SP_FORMAT_MARKDOWN)
      g_string_append_c (o, '\n');
    sp_show_table (p, "memory", f, 0, o);
  }
  g_string_append_printf (o, "%sVerdict: %s\n", f == SP_FORMAT_MARKDOWN ?
      "\n**" : "", p->verdict ? p->verdict : "-");
  if (f == SP_FORMAT_MARKDOWN) {
    g_string_insert (o, o->len - 1, "**");
  }
  for (i = 0; i < p->notes->len; i++)
    g_string_append_printf (o, "%sNote: %s\n", f == SP_FORMAT_MARKDOWN ?
        "\n" : "", (gchar *) p->notes->pdata[i]);
out:
  g_free (wall);
  g_free (pipes);
  return g_string_free (o, FALSE);
}
