/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbsplit: stage-batch --split (see sbsplit.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sbsplit.h"
#include "sbcheck.h"
#include "stagestore.h"

#include <string.h>

#define SB_ERROR (g_quark_from_static_string ("stage-batch-error"))

void
sb_split_free (SbSplit * s)
{
  if (s == NULL)
    return;
  g_free (s->where);
  g_free (s->out_store);
  g_free (s->out_stream);
  g_free (s);
}

/* The row's values with `range` and `part` appended. */
static gchar **
row_with (const SbManifest * m, guint row, const gchar * range,
    const gchar * part)
{
  gchar **src = m->rows->pdata[row], **v = g_new0 (gchar *, m->n_columns + 3);
  guint c;

  for (c = 0; c < m->n_columns; c++)
    v[c] = g_strdup (src[c]);
  v[c++] = g_strdup (range);
  v[c] = g_strdup (part);
  return v;
}

static SbManifest *
manifest_with_columns (const SbManifest * m)
{
  SbManifest *o = g_new0 (SbManifest, 1);
  guint c;

  o->path = g_strdup (m->path);
  o->n_columns = m->n_columns + 2;
  o->columns = g_new0 (gchar *, o->n_columns + 1);
  for (c = 0; c < m->n_columns; c++)
    o->columns[c] = g_strdup (m->columns[c]);
  o->columns[c++] = g_strdup ("range");
  o->columns[c] = g_strdup ("part");
  o->rows = g_ptr_array_new ();
  o->lines = g_array_new (FALSE, FALSE, sizeof (guint));
  return o;
}

static gint
cmp_int64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* Up to `n` runs of frames [b[k], b[k+1]) cut at keyframes (by their
 * position in presentation order), as even as the keyframes allow;
 * returns the number of runs, b[0] = 0 and b[runs] = the frame count. */
static guint
plan_cuts (const StageFrame * frames, gsize n_packets, gsize n_frames,
    guint n, gint64 * b)
{
  GArray *keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint runs = 0, k, i;
  gsize f;

  for (f = 0; f < n_packets; f++)
    if (frames[f].keyframe && frames[f].index > 0)
      g_array_append_val (keys, frames[f].index);
  g_array_sort (keys, cmp_int64);
  b[0] = 0;
  for (k = 1; k < n; k++) {
    gint64 target = (gint64) n_frames * k / n, best = -1;
    for (i = 0; i < keys->len; i++) {
      gint64 key = g_array_index (keys, gint64, i);
      if (key <= b[runs] || key >= (gint64) n_frames)
        continue;
      if (best < 0 || ABS (key - target) < ABS (best - target))
        best = key;
    }
    if (best > 0)
      b[++runs] = best;
  }
  b[++runs] = n_frames;
  g_array_free (keys, TRUE);
  return runs;
}

/* Reads what row `row`'s pipeline reads and writes. */
static gboolean
row_streams (const SbManifest * m, const SbTemplate * t, guint row,
    gchar ** in_store, gchar ** in_stream, gchar ** out_store,
    gchar ** out_stream, StageStoreMode * mode, GError ** error)
{
  SbManifest *one = manifest_with_columns (m);
  /* a part name the stagesink's stream= cannot hold by accident */
  gchar *part = stage_store_part_name ("", 0, 1);
  gchar **values = row_with (m, row, "0:1", part);
  gchar *where = sb_manifest_where (m, row), *desc;
  GstElement *p, *src = NULL, *sink = NULL;
  GError *err = NULL;
  guint n_src = 0, n_sink = 0;
  gboolean ok = FALSE;

  g_ptr_array_add (one->rows, values);
  g_array_append_val (one->lines, g_array_index (m->lines, guint, row));
  desc = sb_template_expand (t, one, 0);
  p = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  if (p == NULL) {
    g_set_error (error, SB_ERROR, 0, "%s: %s", where, err->message);
    goto out;
  }
  src = sb_find_element (p, "stagesrc", &n_src);
  sink = sb_find_element (p, "stagesink", &n_sink);
  if (n_src != 1) {
    g_set_error (error, SB_ERROR, 0, "%s: --split cuts the stored stream a "
        "job reads: its pipeline needs one stagesrc (it has %u)", where,
        n_src);
    goto out;
  }
  if (n_sink != 1) {
    g_set_error (error, SB_ERROR, 0, "%s: --split joins the parts a "
        "stagesink writes: its pipeline needs one stagesink (it has %u)",
        where, n_sink);
    goto out;
  }
  g_object_get (src, "store", in_store, "stream", in_stream, NULL);
  /* stagesink's mode is a StageStoreMode */
  g_object_get (sink, "store", out_store, "stream", out_stream, "mode", mode,
      NULL);
  if (!*in_store || !*in_stream || !*out_store || !*out_stream) {
    g_set_error (error, SB_ERROR, 0, "%s: --split needs the stagesrc's and "
        "the stagesink's store= and stream=", where);
    goto out;
  }
  if (!g_str_has_suffix (*out_stream, part)) {
    g_set_error (error, SB_ERROR, 0, "%s: --split: the stagesink writes "
        "stream \"%s\": end its stream= with {part}, so that each part "
        "is a stream of its own (e.g. stream={stem}-small{part})", where,
        *out_stream);
    goto out;
  }
  (*out_stream)[strlen (*out_stream) - strlen (part)] = '\0';
  ok = TRUE;
out:
  g_clear_error (&err);
  if (src)
    gst_object_unref (src);
  if (sink)
    gst_object_unref (sink);
  if (p)
    gst_object_unref (p);
  g_free (desc);
  g_free (where);
  g_free (part);
  sb_manifest_free (one);
  return ok;
}

SbManifest *
sb_split_manifest (const SbManifest * m, const SbTemplate * t, guint n,
    GPtrArray ** splits, GError ** error)
{
  const gchar *const *names = sb_template_placeholders (t);
  gboolean has_range = FALSE, has_part = FALSE;
  SbManifest *o;
  guint r, i;

  for (i = 0; names[i]; i++) {
    has_range |= strcmp (names[i], "range") == 0;
    has_part |= strcmp (names[i], "part") == 0;
  }
  if (!has_range || !has_part) {
    g_set_error (error, SB_ERROR, 0, "--split needs {range} as the "
        "stagesrc's ranges= and {part} at the end of the stagesink's "
        "stream= (the template has no {%s}): e.g. 'stagesrc store=in "
        "stream={name} ranges={range} ! ... ! stagesink store=out "
        "stream={name}-small{part}'", has_range ? "part" : "range");
    return NULL;
  }
  if (sb_manifest_column (m, "range") >= 0 || sb_manifest_column (m,
          "part") >= 0) {
    g_set_error (error, SB_ERROR, 0, "%s: with --split, {range} and {part} "
        "are stage-batch's: rename the manifest's column \"%s\"", m->path,
        sb_manifest_column (m, "range") >= 0 ? "range" : "part");
    return NULL;
  }
  /* Every other placeholder has its column before any pipeline is made. */
  o = manifest_with_columns (m);
  for (r = 0; r < m->rows->len; r++) {
    g_ptr_array_add (o->rows, row_with (m, r, "0:1", ".part-0-of-1"));
    g_array_append_val (o->lines, g_array_index (m->lines, guint, r));
  }
  if (!sb_template_check (t, o, error)) {
    sb_manifest_free (o);
    return NULL;
  }
  sb_manifest_free (o);
  o = manifest_with_columns (m);
  *splits = g_ptr_array_new_with_free_func ((GDestroyNotify) sb_split_free);
  for (r = 0; r < m->rows->len; r++) {
    gchar *in_store = NULL, *in_stream = NULL;
    SbSplit *s = g_new0 (SbSplit, 1);
    StageStore *st = NULL;
    StageStreamInfo *info = NULL;
    StageFrame *frames = NULL;
    gsize n_frames = 0;
    gint64 *cuts;
    guint k;

    s->row = r;
    s->where = sb_manifest_where (m, r);
    g_ptr_array_add (*splits, s);
    if (!row_streams (m, t, r, &in_store, &in_stream, &s->out_store,
            &s->out_stream, &s->mode, error))
      goto fail;
    st = stage_store_open_read (in_store, error);
    if (st)
      info = stage_store_lookup (st, in_stream, error);
    if (info)
      frames = stage_store_load_frames (st, info, &n_frames, error);
    g_free (in_store);
    g_free (in_stream);
    if (frames == NULL || n_frames == 0) {
      if (frames)
        g_set_error (error, SB_ERROR, 0, "stream '%s' has no frames",
            info->name);
      g_prefix_error (error, "%s: --split: ", s->where);
      stage_stream_info_free (info);
      stage_store_close (st);
      g_free (frames);
      goto fail;
    }
    cuts = g_new (gint64, n + 1);
    s->first = o->rows->len;
    /* (n_frames counts decode-only packets, which are no frames) */
    s->n_parts = plan_cuts (frames, n_frames, info->frames, n, cuts);
    for (k = 0; k < s->n_parts; k++) {
      gchar *range = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
          cuts[k], cuts[k + 1]);
      gchar *part = stage_store_part_name ("", k, s->n_parts);

      g_ptr_array_add (o->rows, row_with (m, r, range, part));
      g_array_append_val (o->lines, g_array_index (m->lines, guint, r));
      g_free (range);
      g_free (part);
    }
    g_free (cuts);
    g_free (frames);
    stage_stream_info_free (info);
    stage_store_close (st);
  }
  return o;

fail:
  sb_manifest_free (o);
  g_ptr_array_unref (*splits);
  *splits = NULL;
  return NULL;
}

gboolean
sb_split_join (const SbSplit * s, SbSplitJoin * result, GError ** error)
{
  StageStore *st = stage_store_open (s->out_store, FALSE, error);
  gboolean ok, joined = FALSE, exists = FALSE;

  *result = SB_SPLIT_JOINED;
  if (st == NULL)
    return FALSE;
  ok = stage_store_join (st, s->out_stream, s->mode, &joined, error);
  if (!ok && g_error_matches (*error, STAGE_STORE_ERROR,
          STAGE_STORE_ERROR_NOT_FOUND)
      && stage_store_has_stream (st, s->out_stream, &exists, NULL) && exists) {
    /* every part present was joined, by an earlier run of this batch */
    g_clear_error (error);
    *result = SB_SPLIT_ALREADY;
    ok = TRUE;
  } else if (ok && !joined) {
    *result = SB_SPLIT_KEPT;
  }
  stage_store_close (st);
  return ok;
}

gboolean
sb_split_part_present (const SbSplit * s, guint k)
{
  StageStore *st = stage_store_open_read (s->out_store, NULL);
  gchar *part;
  gboolean has_part = FALSE, has_joined = FALSE;

  if (st == NULL)
    return FALSE;
  part = stage_store_part_name (s->out_stream, k, s->n_parts);
  if (!stage_store_has_stream (st, part, &has_part, NULL))
    has_part = FALSE;
  if (!has_part && !stage_store_has_stream (st, s->out_stream, &has_joined,
          NULL))
    has_joined = FALSE;
  g_free (part);
  stage_store_close (st);
  return has_part || has_joined;
}
