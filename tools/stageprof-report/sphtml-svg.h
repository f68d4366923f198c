/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sphtml-svg: what the HTML report's plots are drawn with (sphtml.c,
 * sphtml-windows.c): the page's sizes and colours, escaped text, numbers,
 * SVG elements. */
#ifndef __SP_HTML_SVG_H__
#define __SP_HTML_SVG_H__

#include <math.h>
#include <string.h>

#include "spreport.h"

#define W 900
#define LEFT 260
#define ROW 20
#define MAX_ROWS 20

static const gchar *const palette[] G_GNUC_UNUSED = { "#4e79a7",
  "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
  "#ff9da7", "#9c755f", "#bab0ac"
};

static inline void
esc (GString * o, const gchar * s)
{
  gchar *e = g_markup_escape_text (s ? s : "", -1);

  g_string_append (o, e);
  g_free (e);
}

static inline void
num (GString * o, gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (o, g_ascii_formatd (buf, sizeof (buf), "%.1f",
          isnan (v) ? 0 : v));
}

static inline gchar *
elem_label (const SpElemRow * r)
{
  return g_strdup_printf ("%s [%s]", r->name, r->thread ? r->thread : "-");
}

static inline void
svg_open (GString * o, gint h, const gchar * title)
{
  g_string_append_printf (o, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
      "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
      "<title>", W, h, W, h);
  esc (o, title);
  g_string_append (o, "</title>\n");
}

static inline void
text (GString * o, gdouble x, gdouble y, const gchar * anchor,
    const gchar * s)
{
  g_string_append (o, "<text x=\"");
  num (o, x);
  g_string_append (o, "\" y=\"");
  num (o, y);
  g_string_append_printf (o, "\" text-anchor=\"%s\">", anchor);
  esc (o, s);
  g_string_append (o, "</text>\n");
}

static inline void
rect (GString * o, gdouble x, gdouble y, gdouble w, gdouble h,
    const gchar * fill, const gchar * tip)
{
  g_string_append (o, "<rect x=\"");
  num (o, x);
  g_string_append (o, "\" y=\"");
  num (o, y);
  g_string_append (o, "\" width=\"");
  num (o, MAX (w, 0));
  g_string_append (o, "\" height=\"");
  num (o, h);
  g_string_append_printf (o, "\" fill=\"%s\">", fill);
  if (tip) {
    g_string_append (o, "<title>");
    esc (o, tip);
    g_string_append (o, "</title>");
  }
  g_string_append (o, "</rect>\n");
}

/* "x,y " of a polyline's or polygon's points. */
static inline void
xy (GString * o, gdouble x, gdouble y)
{
  num (o, x);
  g_string_append_c (o, ',');
  num (o, y);
  g_string_append_c (o, ' ');
}

#endif /* __SP_HTML_SVG_H__ */
