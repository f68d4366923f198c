/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON text for every writer of the project: the stageprof tracer (trace,
 * summary, link metadata) and the tools (stageprof-report's JSON output,
 * the merged traces). One escaper, so that every output is strict JSON in
 * the same way: '"', '\' and control characters escaped, bytes that are not
 * UTF-8 replaced by U+FFFD. Plain C over GLib's GString (no GObject); a
 * library of its own so that ops' kernels stay free of GLib. */
#ifndef __STAGE_JSON_TEXT_H__
#define __STAGE_JSON_TEXT_H__

#include <glib.h>

G_BEGIN_DECLS

/* The inside of a JSON string (no quotes); NULL appends nothing. */
void stage_json_escape (GString * out, const gchar * s);
/* A JSON string, quotes included; NULL as null. */
void stage_json_str (GString * out, const gchar * s);
/* `v` with `digits` significant digits ("%.*g", C locale); NaN and
 * infinities as null. */
void stage_json_num (GString * out, gdouble v, gint digits);

/* For readers: where the JSON starts (after a UTF-8 byte-order mark, which
 * editors on other systems add), and how deep its arrays and objects nest
 * (outside strings). A reader that recurses (json-glib) refuses text
 * deeper than STAGE_JSON_MAX_DEPTH rather than overflow its stack: our
 * files nest 4 deep. */
#define STAGE_JSON_MAX_DEPTH 512
const gchar *stage_json_skip_bom (const gchar * text, gsize * len);
guint stage_json_depth (const gchar * text, gsize len);

G_END_DECLS

#endif /* __STAGE_JSON_TEXT_H__ */
