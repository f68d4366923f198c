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

/* ---- tables --------------------------------------------------------- */

struct _SpTable
{
  guint ncols, nleft;
  GPtrArray *cells;
};

SpTable *
sp_table_new (guint nleft, const gchar * const *header)
{
  SpTable *t = g_new0 (SpTable, 1);
  guint i;

  t->ncols = g_strv_length ((gchar **) header);
  t->nleft = nleft;
  t->cells = g_ptr_array_new_with_free_func (g_free);
  for (i = 0; i < t->ncols; i++)
    g_ptr_array_add (t->cells, g_strdup (header[i]));
  return t;
}

void
sp_table_add (SpTable * t, gchar * cell)
{
  g_ptr_array_add (t->cells, cell ? cell : g_strdup (""));
}

/* Names come from the pipeline: make them safe for one table cell. */
static gchar *
cell_text (const gchar * s, SpFormat format)
{
  GString *o = g_string_new (NULL);
  const gchar *p;

  for (p = s; *p; p++) {
    if ((guchar) * p < 0x20)
      g_string_append_c (o, ' ');
    else if (format == SP_FORMAT_MARKDOWN && *p == '|')
      g_string_append (o, "\\|");
    else
      g_string_append_c (o, *p);
  }
  return g_string_free (o, FALSE);
}

static void
csv_cell (GString * out, const gchar * s)
{
  const gchar *p;

  if (!strpbrk (s, ",\"\n\r")) {
    g_string_append (out, s);
    return;
  }
  g_string_append_c (out, '"');
  for (p = s; *p; p++) {
    if (*p == '"')
      g_string_append_c (out, '"');
    g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
}

void
sp_table_render (SpTable * t, SpFormat format, GString * out)
{
  guint nrows = t->cells->len / t->ncols, r, c, i;
  guint *w = g_new0 (guint, t->ncols);
  gchar **cells = g_new0 (gchar *, t->cells->len);

  for (i = 0; i < t->cells->len; i++) {
    cells[i] = format == SP_FORMAT_CSV ? g_strdup (t->cells->pdata[i]) :
        cell_text (t->cells->pdata[i], format);
    if (!g_utf8_validate (cells[i], -1, NULL)) {
      gchar *v = g_utf8_make_valid (cells[i], -1);
      g_free (cells[i]);
      cells[i] = v;
    }
    w[i % t->ncols] = MAX (w[i % t->ncols], g_utf8_strlen (cells[i], -1));
  }
  if (format == SP_FORMAT_HTML) {
    g_string_append (out, "<table>\n");
    for (r = 0; r < nrows; r++) {
      g_string_append (out, "<tr>");
      for (c = 0; c < t->ncols; c++) {
        gchar *e = g_markup_escape_text (cells[r * t->ncols + c], -1);
        g_string_append_printf (out, "<%s%s>%s</%s>", r ? "td" : "th",
            c < t->nleft ? " class=\"l\"" : "", e, r ? "td" : "th");
        g_free (e);
      }
      g_string_append (out, "</tr>\n");
    }
    g_string_append (out, "</table>\n");
    nrows = 0;
  }
  for (r = 0; r < nrows; r++) {
    if (format == SP_FORMAT_MARKDOWN)
      g_string_append (out, "|");
    else if (format == SP_FORMAT_TEXT)
      g_string_append (out, "  ");
    for (c = 0; c < t->ncols; c++) {
      const gchar *cell = cells[r * t->ncols + c];
      guint pad = w[c] - g_utf8_strlen (cell, -1);
      if (format == SP_FORMAT_CSV) {
        if (c)
          g_string_append_c (out, ',');
        csv_cell (out, cell);
      } else if (format == SP_FORMAT_MARKDOWN) {
        g_string_append_printf (out, " %s |", cell);
      } else {
        if (c > 0)
          g_string_append (out, "  ");
        if (c < t->nleft)
          g_string_append_printf (out, "%s%*s", cell,
              c + 1 < t->ncols ? pad : 0, "");
        else
          g_string_append_printf (out, "%*s%s", pad, "", cell);
      }
    }
    g_string_append_c (out, '\n');
    if (r == 0 && format == SP_FORMAT_MARKDOWN) {
      g_string_append (out, "|");
      for (c = 0; c < t->ncols; c++)
        g_string_append (out, c < t->nleft ? " --- |" : " ---: |");
      g_string_append_c (out, '\n');
    }
  }
  for (i = 0; i < t->cells->len; i++)
    g_free (cells[i]);
  g_free (cells);
  g_free (w);
  g_ptr_array_free (t->cells, TRUE);
  g_free (t);
}

/* ---- the profile ---------------------------------------------------- */

static const gchar *const elem_hdr[] = { "Node", "Thread", "Count", "Mean",
  "Std", "Min", "Max", "Median", "P90", "P99", "Total", "%Busy", NULL
};

static gboolean
many_pipelines (const SpProfile * p)
{
  gchar *all = sp_profile_pipelines (p);
  gboolean many = strchr (all, ',') != NULL;

  g_free (all);
  return many;
}

static void
elements_table (const SpProfile * p, SpFormat f, guint top, GString * out)
{
  gboolean many = many_pipelines (p);
  SpTable *t = sp_table_new (2, elem_hdr);
  guint i;

  for (i = 0; i < p->elements->len && (!top || i < top); i++) {
    const SpElemRow *r = p->elements->pdata[i];
    sp_table_add (t, many ? g_strdup_printf ("%s/%s", r->pipeline,
            r->name) : g_strdup (r->name));
    sp_table_add (t, g_strdup (r->thread ? r->thread : "-"));
    sp_table_add (t, sp_fmt (r->count, 0));
    sp_table_add (t, sp_fmt (r->mean_ms, 3));
    sp_table_add (t, sp_fmt (r->std_ms, 3));
    sp_table_add (t, sp_fmt (r->min_ms, 3));
    sp_table_add (t, sp_fmt (r->max_ms, 3));
    sp_table_add (t, sp_fmt (r->median_ms, 3));
    sp_table_add (t, sp_fmt (r->p90_ms, 3));
    sp_table_add (t, sp_fmt (r->p99_ms, 3));
    sp_table_add (t, sp_fmt (r->total_s, 3));
    sp_table_add (t, sp_fmt (r->busy_pct, 1));
  }
  sp_table_render (t, f, out);
  if (top && p->elements->len > top && f != SP_FORMAT_CSV)
    g_string_append_printf (out, "%s(%u more rows; --top 0 shows all)\n",
        f == SP_FORMAT_MARKDOWN ? "\n" : "  ", p->elements->len - top);
}

/* A row's name, with its pipeline when the profile has several (the jobs
 * of a merged batch trace each have a queue0 and a thread queue0). */
static gchar *
row_name (gboolean many, const gchar * pipeline, const gchar * name)
{
  return many && pipeline ? g_strdup_printf ("%s/%s", pipeline, name) :
      g_strdup (name);
}

static void
queues_table (const SpProfile * p, SpFormat f, GString * out)
{
  gboolean many = many_pipelines (p);
  static const gchar *const hdr[] = { "Queue", "Items", "Items/s",
    "Mean lvl", "Max lvl", "Mean bytes", "Max bytes", "%Empty", "%Full",
    "Put ms", "Get ms", NULL
  };
  SpTable *t = sp_table_new (1, hdr);
  guint i;

  for (i = 0; i < p->queues->len; i++) {
    const SpQueueRow *r = p->queues->pdata[i];
    sp_table_add (t, row_name (many, r->pipeline, r->name));
    sp_table_add (t, sp_fmt (r->items, 0));
    sp_table_add (t, sp_fmt (r->qps, 1));
    sp_table_add (t, sp_fmt (r->mean_level, 2));
    sp_table_add (t, sp_fmt (r->max_level, 0));
    sp_table_add (t, sp_fmt (r->mean_bytes, 0));
    sp_table_add (t, sp_fmt (r->max_bytes, 0));
    sp_table_add (t, sp_fmt (r->empty_pct, 1));
    sp_table_add (t, sp_fmt (r->full_pct, 1));
    sp_table_add (t, sp_fmt (r->ave_put_ms, 3));
    sp_table_add (t, sp_fmt (r->ave_get_ms, 3));
  }
  sp_table_render (t, f, out);
}

static gboolean
has_share (const SpProfile * p, gsize off)
{
  guint i;

  for (i = 0; i < p->threads->len; i++)
    if (!isnan (*(gdouble *) ((gchar *) p->threads->pdata[i] + off)))
      return TRUE;
  return FALSE;
}

static void
threads_table (const SpProfile * p, SpFormat f, GString * out)
{
  /* Blocked and waiting-for-a-CPU shares come from newer tracers only. */
  gboolean blocked = has_share (p, G_STRUCT_OFFSET (SpThreadRow,
          blocked_pct));
  gboolean cpu = has_share (p, G_STRUCT_OFFSET (SpThreadRow, cpu_wait_pct));
  const gchar *hdr[7] = { "Thread", "%Busy", "%Wait input", "%Wait output",
    NULL, NULL, NULL
  };
  SpTable *t;
  guint i, n = 4;
  gboolean many = many_pipelines (p);

  if (blocked)
    hdr[n++] = "%Blocked";
  if (cpu)
    hdr[n++] = "%Wait CPU";
  t = sp_table_new (1, hdr);
  for (i = 0; i < p->threads->len; i++) {
    const SpThreadRow *r = p->threads->pdata[i];
    sp_table_add (t, row_name (many, r->pipeline, r->name));
    sp_table_add (t, sp_fmt (r->busy_pct, 1));
    sp_table_add (t, sp_fmt (r->wait_input_pct, 1));
    sp_table_add (t, sp_fmt (r->wait_output_pct, 1));
    if (blocked)
      sp_table_add (t, sp_fmt (r->blocked_pct, 1));
    if (cpu)
      sp_table_add (t, sp_fmt (r->cpu_wait_pct, 1));
  }
  sp_table_render (t, f, out);
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

void
sp_show_table (const SpProfile * p, const gchar * which, SpFormat f,
    guint top, GString * out)
{
  if (!strcmp (which, "elements"))
    elements_table (p, f, top, out);
  else if (!strcmp (which, "queues"))
    queues_table (p, f, out);
  else if (!strcmp (which, "threads"))
    threads_table (p, f, out);
  else
    sinks_table (p, f, out);
}

static const gchar *
kind_name (SpSourceKind k)
{
  return k == SP_SOURCE_DB ? "database" : k == SP_SOURCE_TRACE ? "trace" :
      "summary";
}

static void
render_json (const SpProfile * p, guint top, GString * o)
{
  guint i;

  g_string_append (o, "{\"source\":");
  stage_json_str (o, p->path);
  g_string_append (o, ",\"kind\":");
  stage_json_str (o, kind_name (p->kind));
  g_string_append (o, ",\"wall_s\":");
  stage_json_num (o, p->wall_s, 10);
  g_string_append (o, ",\"verdict\":");
  stage_json_str (o, p->verdict);
  g_string_append (o, ",\n\"elements\":[");
  for (i = 0; i < p->elements->len && (!top || i < top); i++) {
    const SpElemRow *r = p->elements->pdata[i];
    g_string_append (o, i ? ",\n {\"name\":" : "\n {\"name\":");
    stage_json_str (o, r->name);
    g_string_append (o, ",\"thread\":");
    stage_json_str (o, r->thread);
    g_string_append (o, ",\"pipeline\":");
    stage_json_str (o, r->pipeline);
    if (r->run) {
      g_string_append (o, ",\"run\":");
      stage_json_str (o, r->run);
    }
#define NUMF(f) g_string_append (o, ",\"" #f "\":"); stage_json_num (o, r->f, 10)
    NUMF (count);
    NUMF (mean_ms);
    NUMF (std_ms);
    NUMF (min_ms);
    NUMF (max_ms);
    NUMF (median_ms);
    NUMF (p90_ms);
    NUMF (p99_ms);
    NUMF (total_s);
    NUMF (busy_pct);
    g_string_append_c (o, '}');
  }
  g_string_append (o, "],\n\"queues\":[");
  for (i = 0; i < p->queues->len; i++) {
    const SpQueueRow *r = p->queues->pdata[i];
    g_string_append (o, i ? ",\n {\"name\":" : "\n {\"name\":");
    stage_json_str (o, r->name);
    g_string_append (o, ",\"pipeline\":");
    stage_json_str (o, r->pipeline);
    NUMF (items);
    NUMF (qps);
    NUMF (mean_level);
    NUMF (max_level);
    NUMF (mean_bytes);
    NUMF (max_bytes);
    NUMF (empty_pct);
    NUMF (full_pct);
    NUMF (ave_put_ms);
    NUMF (ave_get_ms);
    g_string_append_c (o, '}');
  }
  g_string_append (o, "],\n\"threads\":[");
  for (i = 0; i < p->threads->len; i++) {
    const SpThreadRow *r = p->threads->pdata[i];
    g_string_append (o, i ? ",\n {\"name\":" : "\n {\"name\":");
    stage_json_str (o, r->name);
    g_string_append (o, ",\"pipeline\":");
    stage_json_str (o, r->pipeline);
    NUMF (wall_s);
    NUMF (busy_pct);
    NUMF (wait_input_pct);
    NUMF (wait_output_pct);
    NUMF (blocked_pct);
    NUMF (cpu_wait_pct);
    g_string_append_c (o, '}');
  }
  g_string_append (o, "],\n\"sinks\":[");
  for (i = 0; i < p->sinks->len; i++) {
    const SpSinkRow *r = p->sinks->pdata[i];
    g_string_append (o, i ? ",\n {\"name\":" : "\n {\"name\":");
    stage_json_str (o, r->name);
    NUMF (frames);
    NUMF (fps);
    NUMF (buffers);
    g_string_append (o, ",\"unit\":");
    stage_json_str (o, r->unit);
    g_string_append (o, ",\"media\":");
    stage_json_str (o, r->media);
    g_string_append_c (o, '}');
  }
#undef NUMF
  g_string_append (o, "],\n\"notes\":[");
  for (i = 0; i < p->notes->len; i++) {
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
    if (!table || !strcmp (table, "elements"))
      elements_table (p, f, top, o);
    else if (!strcmp (table, "queues"))
      queues_table (p, f, o);
    else if (!strcmp (table, "threads"))
      threads_table (p, f, o);
    else
      sinks_table (p, f, o);
    goto out;
  }
  g_string_append_printf (o, "%s=== stageprof %s (%s, %s): %s s ===\n",
      f == SP_FORMAT_MARKDOWN ? "## " : "", *pipes ? pipes : "-",
      kind_name (p->kind), p->path, wall);
  if (f == SP_FORMAT_MARKDOWN)
    g_string_append_c (o, '\n');
  g_string_append_printf (o, "%sElements (times in ms, Total in s)%s\n", h,
      p->kind == SP_SOURCE_TRACE ? ", recomputed from the trace's slices" :
      "");
  if (f == SP_FORMAT_MARKDOWN)
    g_string_append_c (o, '\n');
  elements_table (p, f, top, o);
  if (p->queues->len) {
    g_string_append_printf (o, "%s%sQueues%s\n", f == SP_FORMAT_MARKDOWN ?
        "\n" : "", h, p->kind == SP_SOURCE_TRACE ? " (from the counter "
        "tracks; full share and put/get waits are not in a trace)" : "");
    if (f == SP_FORMAT_MARKDOWN)
      g_string_append_c (o, '\n');
    queues_table (p, f, o);
  }
  if (p->threads->len) {
    g_string_append_printf (o, "%s%sThreads (share of each thread's wall "
        "time)\n", f == SP_FORMAT_MARKDOWN ? "\n" : "", h);
    if (f == SP_FORMAT_MARKDOWN)
      g_string_append_c (o, '\n');
    threads_table (p, f, o);
  }
  if (p->sinks->len) {
    g_string_append_printf (o, "%s%sSinks\n", f == SP_FORMAT_MARKDOWN ?
        "\n" : "", h);
    if (f == SP_FORMAT_MARKDOWN)
      g_string_append_c (o, '\n');
    sinks_table (p, f, o);
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
