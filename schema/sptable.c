/* sptable: aligned text, Markdown, CSV and HTML tables.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "sptable.h"

gchar *
sp_fmt (gdouble v, gint decimals)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE], fmt[8];

  if (isnan (v))
    return g_strdup ("-");
  g_snprintf (fmt, sizeof (fmt), "%%.%df", decimals);
  return g_strdup (g_ascii_formatd (buf, sizeof (buf), fmt, v));
}

struct _SpTable
{
  guint ncols, nleft;
  GPtrArray *cells;
};

SpTable *
sp_table_new (guint nleft, const gchar * const *header)
{
  SpTable *t = g_new0 (SpTable, 1);

  t->ncols = g_strv_length ((gchar **) header);
  t->nleft = nleft;
  t->cells = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < t->ncols; i++)
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

  for (const gchar * p = s; *p; p++) {
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
  if (!strpbrk (s, ",\"\n\r")) {
    g_string_append (out, s);
    return;
  }
  g_string_append_c (out, '"');
  for (const gchar * p = s; *p; p++) {
    if (*p == '"')
      g_string_append_c (out, '"');
    g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
}

static void
render_html (SpTable * t, gchar ** cells, GString * out)
{
  guint nrows = t->cells->len / t->ncols;

  g_string_append (out, "<table>\n");
  for (guint r = 0; r < nrows; r++) {
    g_string_append (out, "<tr>");
    for (guint c = 0; c < t->ncols; c++) {
      gchar *e = g_markup_escape_text (cells[r * t->ncols + c], -1);
      g_string_append_printf (out, "<%s%s>%s</%s>", r ? "td" : "th",
          c < t->nleft ? " class=\"l\"" : "", e, r ? "td" : "th");
      g_free (e);
    }
    g_string_append (out, "</tr>\n");
  }
  g_string_append (out, "</table>\n");
}

static void
render_lines (SpTable * t, gchar ** cells, const guint * w, SpFormat format,
    GString * out)
{
  guint nrows = t->cells->len / t->ncols;

  for (guint r = 0; r < nrows; r++) {
    if (format == SP_FORMAT_MARKDOWN)
      g_string_append (out, "|");
    else if (format == SP_FORMAT_TEXT)
      g_string_append (out, "  ");
    for (guint c = 0; c < t->ncols; c++) {
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
      for (guint c = 0; c < t->ncols; c++)
        g_string_append (out, c < t->nleft ? " --- |" : " ---: |");
      g_string_append_c (out, '\n');
    }
  }
}

void
sp_table_render (SpTable * t, SpFormat format, GString * out)
{
  guint *w = g_new0 (guint, t->ncols);
  gchar **cells = g_new0 (gchar *, t->cells->len);

  for (guint i = 0; i < t->cells->len; i++) {
    cells[i] = format == SP_FORMAT_CSV ? g_strdup (t->cells->pdata[i]) :
        cell_text (t->cells->pdata[i], format);
    if (!g_utf8_validate (cells[i], -1, NULL)) {
      gchar *v = g_utf8_make_valid (cells[i], -1);
      g_free (cells[i]);
      cells[i] = v;
    }
    w[i % t->ncols] = MAX (w[i % t->ncols], g_utf8_strlen (cells[i], -1));
  }
  if (format == SP_FORMAT_HTML)
    render_html (t, cells, out);
  else
    render_lines (t, cells, w, format, out);
  for (guint i = 0; i < t->cells->len; i++)
    g_free (cells[i]);
  g_free (cells);
  g_free (w);
  g_ptr_array_free (t->cells, TRUE);
  g_free (t);
}

static gboolean
column_shown (const SpSchema * s, guint c, GPtrArray * rows,
    const SpRowReader * rd, gpointer data)
{
  if (!s->cols[c].header)
    return FALSE;
  if (!(s->cols[c].flags & SP_COL_IF_ANY))
    return TRUE;
  for (guint i = 0; i < rows->len; i++)
    if (rd->has (rows->pdata[i], &s->cols[c], data))
      return TRUE;
  return FALSE;
}

SpTable *
sp_schema_table (const SpSchema * s, GPtrArray * rows,
    const SpRowReader * rd, gpointer data)
{
  const gchar **hdr = g_new0 (const gchar *, s->n_cols + 1);
  gboolean *shown = g_new0 (gboolean, s->n_cols);
  guint n = 0, nleft = 0;
  SpTable *t;

  for (guint c = 0; c < s->n_cols; c++) {
    if (!(shown[c] = column_shown (s, c, rows, rd, data)))
      continue;
    if (n == nleft && s->cols[c].type == SP_COL_TEXT)
      nleft++;
    hdr[n++] = s->cols[c].header;
  }
  t = sp_table_new (nleft, hdr);
  for (guint i = 0; i < rows->len; i++) {
    for (guint c = 0; c < s->n_cols; c++) {
      const SpColumn *col = &s->cols[c];
      gchar *text;

      if (!shown[c])
        continue;
      if (sp_col_is_text (col)) {
        text = rd->text (rows->pdata[i], col, data);
        sp_table_add (t, text ? text : g_strdup ("-"));
      } else if (col->type == SP_COL_BOOL) {
        gdouble v = rd->num (rows->pdata[i], col, data);
        sp_table_add (t, g_strdup (isnan (v) ? "-" : v != 0 ? "yes" : "no"));
      } else {
        sp_table_add (t, sp_fmt (rd->num (rows->pdata[i], col, data),
                col->type == SP_COL_REAL ? col->decimals : 0));
      }
    }
  }
  g_free (hdr);
  g_free (shown);
  return t;
}
