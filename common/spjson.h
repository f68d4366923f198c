/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spjson: the tools' writer and loader of JSON trees (json-glib), over
 * jsontext.h's numbers and strings: summaries, done records, progress
 * lines and merged traces' arguments all go through it. */
#ifndef __SPJSON_H__
#define __SPJSON_H__

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* JSON text of `node`, numbers with `digits` significant digits (17:
 * exact), non-finite ones as null; `pretty`: a line per member, indented.
 * Not json-glib's generator: 1.6 writes 1e-08 as "1e-08.0", which is not
 * JSON (a merged summary with a tiny figure could not be read back). */
gchar *sp_json_to_string (JsonNode * node, gint digits, gboolean pretty);

/* The largest JSON file (a summary, a done record) that is read. */
#define SP_JSON_FILE_MAX (256 << 20)

/* json_parser_load_from_file for files a user gives: a file larger than
 * SP_JSON_FILE_MAX is refused before it is read (G_FILE_ERROR_FAILED), a
 * UTF-8 byte-order mark is skipped, and text nested deeper than
 * STAGE_JSON_MAX_DEPTH is an error (G_FILE_ERROR_INVAL) rather than a
 * stack overflow in json-glib. */
gboolean sp_json_load_file (JsonParser * parser, const gchar * path,
    GError ** error);

G_END_DECLS

#endif /* __SPJSON_H__ */
