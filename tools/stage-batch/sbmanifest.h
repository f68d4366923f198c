/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbmanifest: stage-batch's manifest (CSV/TSV with a header row) and
 * pipeline template (a gst-launch description with {column} placeholders).
 * Plain C over GLib, no GStreamer: unit-testable and reusable. */
#ifndef __SBMANIFEST_H__
#define __SBMANIFEST_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gchar *path;                  /* as given, for messages */
  gchar **columns;              /* NULL-terminated header */
  guint n_columns;
  GPtrArray *rows;              /* gchar ** of n_columns values each */
  GArray *lines;                /* guint: file line where each row starts */
} SbManifest;

SbManifest *sb_manifest_parse (const gchar * path, const gchar * text,
    gsize len, GError ** error);
SbManifest *sb_manifest_load (const gchar * path, GError ** error);
/* The --input shorthand: a one-column manifest named "input". */
SbManifest *sb_manifest_from_inputs (const gchar * const *inputs);
void sb_manifest_free (SbManifest * m);

/* Adds a column with one value for every row. */
void sb_manifest_add_column (SbManifest * m, const gchar * name,
    const gchar * value);
gint sb_manifest_column (const SbManifest * m, const gchar * name);
const gchar *sb_manifest_value (const SbManifest * m, guint row,
    const gchar * column);
/* "file.csv:5" for row `row`. */
gchar *sb_manifest_where (const SbManifest * m, guint row);
/* A short label for a job: its stem, or its first value. */
gchar *sb_manifest_label (const SbManifest * m, guint row);

typedef struct _SbTemplate SbTemplate;

/* Fails for a placeholder without `:pipeline` where only pipeline syntax
 * can stand (an element, caps, a property name), or of an unknown kind. */
SbTemplate *sb_template_new (const gchar * text, GError ** error);
void sb_template_free (SbTemplate * t);
/* Distinct placeholder names, in order of first use, NULL-terminated. */
const gchar *const *sb_template_placeholders (const SbTemplate * t);
/* Every placeholder has a column (or is a built-in: {job}, {stem} where the
 * manifest has an `input` column), and every row a value for it, without a
 * backslash where it is data. */
gboolean sb_template_check (const SbTemplate * t, const SbManifest * m,
    GError ** error);
/* The pipeline description of row `row`. Values are quoted where the
 * gst-launch syntax needs it (spaces, quotes, commas, ...); those of
 * {name:pipeline} placeholders are spliced in as they are. */
gchar *sb_template_expand (const SbTemplate * t, const SbManifest * m,
    guint row);

/* The value of a placeholder for a row (columns first, then built-ins). */
gchar *sb_template_value (const SbManifest * m, guint row, const gchar * name);

G_END_DECLS

#endif /* __SBMANIFEST_H__ */
