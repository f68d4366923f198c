/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The store: joining stores (stage_store_merge). Every stream is checked
 * in its source (index and CRCs), copied into a fresh data directory of
 * the destination, checked again there, and only then do all of them
 * enter the destination's catalog, in one transaction. A failure undoes
 * the copies; an interrupted merge (kill -9) leaves the catalog as it
 * was, and its copies as orphans that `stage-store gc` removes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "stagestore-private.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

typedef struct
{
  StageStore *src;
  StageStreamInfo *info;        /* the source's row */
  StageStreamInfo copy;         /* the same, with the destination's data */
  StageFrame *frames;
  gsize n;
  gchar *abs_data;
  int lock_fd;
  gboolean skip;                /* mode=ignore and the name is taken */
  StageStreamInfo *old;         /* mode=overwrite: the row it replaces */
} Item;

static void
item_free (gpointer p)
{
  Item *it = p;

  stage_stream_info_free (it->info);
  stage_stream_info_free (it->old);
  g_free (it->copy.data);
  g_free (it->frames);
  g_free (it->abs_data);
  g_free (it);
}

/* Copies one file, synced to disk. */
static gboolean
copy_file (const gchar * from, const gchar * to, GError ** error)
{
  gchar buf[1 << 16];
  int in = open (from, O_RDONLY | O_CLOEXEC), out = -1;
  gboolean ok = FALSE;
  ssize_t got;

  if (in < 0) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Cannot read %s: %s", from, g_strerror (errno));
    return FALSE;
  }
  out = open (to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (out < 0)
    goto io;
  while ((got = read (in, buf, sizeof (buf))) != 0) {
    gchar *p = buf;
    if (got < 0) {
      if (errno == EINTR)
        continue;
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
          "Cannot read %s: %s", from, g_strerror (errno));
      goto out;
    }
    while (got > 0) {
      ssize_t put = write (out, p, got);
      if (put < 0 && errno == EINTR)
        continue;
      if (put <= 0)
        goto io;
      p += put;
      got -= put;
    }
  }
  if (fsync (out) != 0)
    goto io;
  ok = TRUE;
  goto out;
io:
  g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
      "Cannot write %s: %s", to, g_strerror (errno ? errno : ENOSPC));
out:
  close (in);
  if (out >= 0 && close (out) != 0 && ok) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_IO,
        "Cannot write %s: %s", to, g_strerror (errno));
    ok = FALSE;
  }
  return ok;
}

static void
sync_dir (const gchar * dir)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0) {
    fsync (fd);
    close (fd);
  }
}

/* The stream checked where it is, copied, and checked again. */
static gboolean
copy_stream (StageStore * dest, Item * it, GError ** error)
{
  gint64 c;

  it->frames = stage_store_load_frames (it->src, it->info, &it->n, error);
  if (it->frames == NULL
      || !store_check_frames (it->src, it->info, it->frames, it->n, error))
    return FALSE;
  it->copy = *it->info;
  it->copy.data = NULL;
  if (!store_new_data_dir (dest, it->info->name, &it->copy.data,
          &it->abs_data, &it->lock_fd, error))
    return FALSE;
  for (c = 0; c < it->info->chunks; c++) {
    gchar *from = stage_store_chunk_path (it->src, it->info, c),
        *to = stage_store_chunk_path (dest, &it->copy, c);
    gboolean ok = copy_file (from, to, error);

    g_free (from);
    g_free (to);
    if (!ok)
      return FALSE;
  }
  sync_dir (it->abs_data);
  return store_check_frames (dest, &it->copy, it->frames, it->n, error);
}

gboolean
stage_store_same_dir (const gchar * a, const gchar * b)
{
  GStatBuf sa, sb;

  return g_stat (a, &sa) == 0 && g_stat (b, &sb) == 0
      && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Lists @names (up to 8 of them) as "a, b, c and N more". */
static gchar *
name_list (GPtrArray * names)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < names->len && i < 8; i++)
    g_string_append_printf (s, "%s'%s'", i ? ", " : "",
        (gchar *) names->pdata[i]);
  if (names->len > 8)
    g_string_append_printf (s, " and %u more", names->len - 8);
  return g_string_free (s, FALSE);
}

/* Gathers the sources' streams; FALSE when a name comes twice or a
 * source is the destination. */
static gboolean
collect (StageStore * dest, StageStore ** srcs, guint n_srcs,
    GPtrArray * items, GError ** error)
{
  GHashTable *from = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean ok = TRUE;
  guint s, i;

  for (s = 0; s < n_srcs && ok; s++) {
    GPtrArray *list;

    for (i = 0; i < s; i++)
      if (stage_store_same_dir (stage_store_get_dir (srcs[i]),
              stage_store_get_dir (srcs[s]))) {
        g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
            "Store '%s' is given twice ('%s' too)",
            stage_store_get_dir (srcs[s]), stage_store_get_dir (srcs[i]));
        ok = FALSE;
      }
    if (!ok)
      break;

    if (stage_store_same_dir (stage_store_get_dir (srcs[s]), stage_store_get_dir (dest))) {
      g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
          "Cannot merge store '%s' into itself", stage_store_get_dir (dest));
      ok = FALSE;
      break;
    }
    list = stage_store_list (srcs[s], error);
    if (list == NULL) {
      ok = FALSE;
      break;
    }
    for (i = 0; i < list->len && ok; i++) {
      StageStreamInfo *info = list->pdata[i];
      StageStore *other = g_hash_table_lookup (from, info->name);
      Item *it;

      if (other) {
        g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_EXISTS,
            "Stream '%s' is in both '%s' and '%s': a merged store holds "
            "each name once (rename one, or merge them into separate "
            "stores)", info->name, stage_store_get_dir (other),
            stage_store_get_dir (srcs[s]));
        ok = FALSE;
        break;
      }
      it = g_new0 (Item, 1);
      it->src = srcs[s];
      it->info = info;
      it->lock_fd = -1;
      list->pdata[i] = NULL;
      g_ptr_array_add (items, it);
      g_hash_table_insert (from, it->info->name, srcs[s]);
    }
    g_ptr_array_set_free_func (list, (GDestroyNotify) stage_stream_info_free);
    g_ptr_array_unref (list);
  }
  g_hash_table_destroy (from);
  return ok;
}

/* Inside the transaction: what each name is in the destination now (a
 * writer may have committed one since the copies began). */
static gboolean
resolve_names (StageStore * dest, GPtrArray * items, StageStoreMode mode,
    GError ** error)
{
  GPtrArray *taken = g_ptr_array_new ();
  gboolean ok = TRUE;
  guint i;

  for (i = 0; i < items->len; i++) {
    Item *it = items->pdata[i];
    GError *err = NULL;
    StageStreamInfo *old = stage_store_lookup (dest, it->info->name, &err);

    if (old == NULL) {
      if (!g_error_matches (err, STAGE_STORE_ERROR,
              STAGE_STORE_ERROR_NOT_FOUND)) {
        g_propagate_error (error, err);
        ok = FALSE;
        break;
      }
      g_clear_error (&err);
      continue;
    }
    if (mode == STAGE_STORE_MODE_IGNORE) {
      it->skip = TRUE;
      stage_stream_info_free (old);
    } else if (mode == STAGE_STORE_MODE_OVERWRITE) {
      it->old = old;
    } else {
      g_ptr_array_add (taken, it->info->name);
      stage_stream_info_free (old);
    }
  }
  if (ok && taken->len > 0) {
    gchar *names = name_list (taken);
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_EXISTS,
        "Store '%s' already has %s %s: nothing was merged (mode overwrite "
        "replaces them, ignore keeps them)", stage_store_get_dir (dest),
        taken->len == 1 ? "stream" : "streams", names);
    g_free (names);
    ok = FALSE;
  }
  g_ptr_array_free (taken, TRUE);
  return ok;
}

gboolean
stage_store_merge (StageStore * dest, StageStore ** srcs, guint n_srcs,
    StageStoreMode mode, GPtrArray ** merged, GError ** error)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (item_free);
  gboolean ok = FALSE, in_tx = FALSE;
  guint i;

  if (merged)
    *merged = NULL;
  if (dest->read_only) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Store '%s' was opened for reading: cannot merge into it",
        dest->dir);
    goto out;
  }
  if (!collect (dest, srcs, n_srcs, items, error))
    goto out;
  /* Names taken refuse the merge before anything is copied (and again,
   * under the lock, before anything is committed). */
  if (!resolve_names (dest, items, mode, error))
    goto out;
  for (i = 0; i < items->len; i++) {
    Item *it = items->pdata[i];

    stage_stream_info_free (it->old);
    it->old = NULL;
    if (!it->skip && !copy_stream (dest, it, error))
      goto out;
  }
  if (!store_exec (dest, "BEGIN IMMEDIATE", "merge", error))
    goto out;
  in_tx = TRUE;
  for (i = 0; i < items->len; i++)
    ((Item *) items->pdata[i])->skip = FALSE;
  if (!resolve_names (dest, items, mode, error))
    goto out;
  for (i = 0; i < items->len; i++) {
    Item *it = items->pdata[i];
    gint64 id;

    if (it->skip || it->frames == NULL)
      continue;
    if (it->old && !store_delete_stream_rows (dest, it->old->id,
            "replacing the old stream", error))
      goto out;
    if (!store_insert_stream (dest, &it->copy, it->frames, it->n, &id,
            error))
      goto out;
  }
  if (!store_exec (dest, "COMMIT", "merge", error))
    goto out;
  in_tx = FALSE;
  ok = TRUE;
  if (merged)
    *merged = g_ptr_array_new_with_free_func (g_free);
  for (i = 0; i < items->len; i++) {
    Item *it = items->pdata[i];

    if (it->skip || it->frames == NULL)
      continue;
    if (merged)
      g_ptr_array_add (*merged, g_strdup (it->info->name));
    if (it->old)
      store_remove_data (dest, it->old->data);
  }

out:
  if (in_tx)
    sqlite3_exec (dest->db, "ROLLBACK", NULL, NULL, NULL);
  for (i = 0; i < items->len; i++) {
    Item *it = items->pdata[i];

    /* Committed copies lose their lock; the others go, with a skipped
     * name's copy (taken meanwhile under mode=ignore). */
    store_release_data_dir (it->abs_data, it->lock_fd, ok && !it->skip);
    it->lock_fd = -1;
  }
  g_ptr_array_unref (items);
  return ok;
}

/* ---- parts of a split stream ---- */

gchar *
stage_store_part_name (const gchar * name, guint part, guint n_parts)
{
  return g_strdup_printf ("%s" STAGE_STORE_PART_FORMAT, name, part, n_parts);
}

gboolean
stage_store_parse_part_name (const gchar * name, gchar ** base,
    guint * part, guint * n_parts)
{
  const gchar *at = g_strrstr (name, ".part-");
  guint k, n;
  gint used = 0;

  if (at == NULL || at == name
      || sscanf (at, ".part-%u-of-%u%n", &k, &n, &used) != 2
      || at[used] != '\0' || n == 0 || k >= n)
    return FALSE;
  /* one spelling only: no signs, spaces or leading zeros */
  {
    gchar *again = stage_store_part_name ("", k, n);
    gboolean same = strcmp (again, at) == 0;
    g_free (again);
    if (!same)
      return FALSE;
  }
  if (base)
    *base = g_strndup (name, at - name);
  if (part)
    *part = k;
  if (n_parts)
    *n_parts = n;
  return TRUE;
}

/* Hard link, or copy where the filesystem has no links. */
static gboolean
link_or_copy (const gchar * from, const gchar * to, GError ** error)
{
  if (link (from, to) == 0)
    return TRUE;
  return copy_file (from, to, error);
}

typedef struct
{
  StageStreamInfo *info;
  StageFrame *frames;
  gsize n;
} Part;

static void
parts_free (Part * parts, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    stage_stream_info_free (parts[i].info);
    g_free (parts[i].frames);
  }
  g_free (parts);
}

/* Whether two parts can follow each other in one stream. */
static gboolean
parts_match (StageStore * store, const gchar * name, const Part * a,
    const Part * b, GError ** error)
{
  const gchar *what = NULL;

  if (a->info->kind != b->info->kind)
    what = "kind";
  else if (g_strcmp0 (a->info->codec, b->info->codec) != 0)
    what = "codec";
  else if (a->info->width != b->info->width
      || a->info->height != b->info->height)
    what = "frame size";
  else if ((a->info->codec_data == NULL) != (b->info->codec_data == NULL)
      || (a->info->codec_data && !g_bytes_equal (a->info->codec_data,
              b->info->codec_data)))
    what = "codec data (the encoder's settings)";
  else if ((gint64) a->info->fps_n * b->info->fps_d !=
      (gint64) b->info->fps_n * a->info->fps_d)
    what = "framerate";
  if (what == NULL && stage_store_count_decode_only (b->frames, b->n) > 0) {
    /* they are presented before frame 0: only a first part has them */
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Store '%s': cannot join the parts of '%s': '%s' starts at a "
        "keyframe that is not an IDR, with decode-only leading pictures "
        "(a cut recording), which only the first part may have: write "
        "that part again from an IDR (re-encode it)", store->dir, name,
        b->info->name);
    return FALSE;
  }
  if (what == NULL)
    return TRUE;
  g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
      "Store '%s': cannot join the parts of '%s': '%s' and '%s' differ in "
      "%s", store->dir, name, a->info->name, b->info->name, what);
  return FALSE;
}

/* The parts of `name` in @store, in order; NULL with an error naming the
 * missing ones, or NOT_FOUND when there are none. */
static Part *
find_parts (StageStore * store, const gchar * name, guint * n_parts,
    GError ** error)
{
  GPtrArray *list = stage_store_list (store, error);
  Part *parts = NULL;
  guint i, n = 0, found = 0;
  GString *missing;

  if (list == NULL)
    return NULL;
  for (i = 0; i < list->len; i++) {
    StageStreamInfo *info = list->pdata[i];
    gchar *base;
    guint k, of;

    if (!stage_store_parse_part_name (info->name, &base, &k, &of))
      continue;
    if (strcmp (base, name) == 0) {
      if (parts == NULL) {
        n = of;
        parts = g_new0 (Part, n);
      }
      if (of != n) {
        g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
            "Store '%s': the parts of '%s' disagree on their number (%u "
            "and %u): they come from two different splits", store->dir,
            name, n, of);
        g_free (base);
        goto fail;
      }
      parts[k].info = info;
      list->pdata[i] = NULL;
      found++;
    }
    g_free (base);
  }
  if (found == 0) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_NOT_FOUND,
        "Store '%s' has no parts of '%s' (streams named '%s.part-K-of-N')",
        store->dir, name, name);
    goto fail;
  }
  if (found < n) {
    missing = g_string_new (NULL);
    for (i = 0; i < n; i++)
      if (parts[i].info == NULL)
        g_string_append_printf (missing, "%s%u", missing->len ? ", " : "", i);
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_NOT_FOUND,
        "Store '%s': '%s' is split in %u parts and part%s %s %s missing "
        "(their jobs failed, or ran into another store: merge it first)",
        store->dir, name, n, n - found == 1 ? "" : "s", missing->str,
        n - found == 1 ? "is" : "are");
    g_string_free (missing, TRUE);
    goto fail;
  }
  g_ptr_array_set_free_func (list, (GDestroyNotify) stage_stream_info_free);
  g_ptr_array_unref (list);
  *n_parts = n;
  return parts;

fail:
  g_ptr_array_set_free_func (list, (GDestroyNotify) stage_stream_info_free);
  g_ptr_array_unref (list);
  if (parts)
    parts_free (parts, n);
  return NULL;
}

/* The joined frame index: chunks, indices and packets numbered on from
 * the parts before; each part's times moved to start where the one
 * before ended (nothing moves when they already follow each other).
 * *total: the packets (only the first part has decode-only ones:
 * parts_match). */
static StageFrame *
joined_frames (Part * parts, guint n, StageStreamInfo * out, gsize * total_p)
{
  gsize total = 0, at = 0, i;
  gint64 chunk0 = 0, index0 = 0, end = STAGE_STORE_NONE;
  StageFrame *f;
  guint k;

  for (k = 0; k < n; k++)
    total += parts[k].n;
  f = g_new (StageFrame, MAX (total, 1));
  *total_p = total;
  out->frames = 0;
  out->keyframes = out->chunks = out->bytes = 0;
  for (k = 0; k < n; k++) {
    gint64 first = G_MAXINT64, shift = 0, last = STAGE_STORE_NONE;

    for (i = 0; i < parts[k].n; i++)
      if (parts[k].frames[i].pts != STAGE_STORE_NONE)
        first = MIN (first, parts[k].frames[i].pts);
    if (end != STAGE_STORE_NONE && first != G_MAXINT64)
      shift = end - first;
    for (i = 0; i < parts[k].n; i++, at++) {
      StageFrame *o = &f[at];

      *o = parts[k].frames[i];
      o->chunk += chunk0;
      o->index += index0;
      if (o->pts != STAGE_STORE_NONE) {
        o->pts += shift;
        last = MAX (last, o->pts + MAX (o->duration, 0));
      }
      if (o->dts != STAGE_STORE_NONE)
        o->dts += shift;
    }
    if (last != STAGE_STORE_NONE)
      end = last;
    chunk0 += parts[k].info->chunks;
    index0 += parts[k].info->frames;
    out->frames += parts[k].info->frames;
    out->keyframes += parts[k].info->keyframes;
    out->chunks += parts[k].info->chunks;
    out->bytes += parts[k].info->bytes;
  }
  return f;
}

/* Whether joining into @name may go on: FALSE when the name is taken and
 * @mode keeps it (*kept) or refuses it (@error). *old: the stream it
 * would replace. */
static gboolean
join_name_free (StageStore * store, const gchar * name, StageStoreMode mode,
    StageStreamInfo ** old, gboolean * kept, GError ** error)
{
  *old = stage_store_lookup (store, name, NULL);
  *kept = FALSE;
  if (*old == NULL || mode == STAGE_STORE_MODE_OVERWRITE)
    return TRUE;
  if (mode == STAGE_STORE_MODE_IGNORE) {
    *kept = TRUE;               /* kept, and the parts too */
    return FALSE;
  }
  g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_EXISTS,
      "Store '%s' already has a stream '%s': its parts were not joined "
      "(mode overwrite replaces it)", store->dir, name);
  return FALSE;
}

gboolean
stage_store_join (StageStore * store, const gchar * name, StageStoreMode mode,
    gboolean * joined, GError ** error)
{
  guint n = 0, k;
  Part *parts;
  StageStreamInfo out;
  StageFrame *frames = NULL;
  gchar *data = NULL, *abs_data = NULL;
  int lock_fd = -1;
  gboolean ok = FALSE, in_tx = FALSE, kept;
  gint64 c, chunk0 = 0, id;
  gsize total = 0;
  StageStreamInfo *old = NULL;

  if (store->read_only) {
    g_set_error (error, STAGE_STORE_ERROR, STAGE_STORE_ERROR_INVALID,
        "Store '%s' was opened for reading: cannot join '%s'", store->dir,
        name);
    return FALSE;
  }
  if (joined)
    *joined = FALSE;
  parts = find_parts (store, name, &n, error);
  if (parts == NULL)
    return FALSE;
  for (k = 0; k < n; k++) {
    parts[k].frames = stage_store_load_frames (store, parts[k].info,
        &parts[k].n, error);
    if (parts[k].frames == NULL || (k > 0 && !parts_match (store, name,
                &parts[0], &parts[k], error)))
      goto out;
  }
  /* A name taken is known before any chunk is linked and read (and
   * checked again under the lock). */
  if (!join_name_free (store, name, mode, &old, &kept, error)) {
    ok = kept;
    goto out;
  }
  g_clear_pointer (&old, stage_stream_info_free);
  out = *parts[0].info;
  out.name = (gchar *) name;
  out.created = NULL;
  out.committed = NULL;
  frames = joined_frames (parts, n, &out, &total);
  if (!store_new_data_dir (store, name, &data, &abs_data, &lock_fd, error))
    goto out;
  out.data = data;
  for (k = 0; k < n; k++) {
    for (c = 0; c < parts[k].info->chunks; c++) {
      gchar *from = stage_store_chunk_path (store, parts[k].info, c),
          *to = stage_store_chunk_path (store, &out, chunk0 + c);
      gboolean linked = link_or_copy (from, to, error);

      g_free (from);
      g_free (to);
      if (!linked)
        goto out;
    }
    chunk0 += parts[k].info->chunks;
  }
  sync_dir (abs_data);
  if (!store_check_frames (store, &out, frames, total, error))
    goto out;
  if (!store_exec (store, "BEGIN IMMEDIATE", "join", error))
    goto out;
  in_tx = TRUE;
  if (!join_name_free (store, name, mode, &old, &kept, error)) {
    ok = kept;
    goto out;
  }
  if (old && !store_delete_stream_rows (store, old->id,
          "replacing the old stream", error))
    goto out;
  for (k = 0; k < n; k++)
    if (!store_delete_stream_rows (store, parts[k].info->id,
            "replacing the parts", error))
      goto out;
  if (!store_insert_stream (store, &out, frames, total, &id, error)
      || !store_exec (store, "COMMIT", "join", error))
    goto out;
  in_tx = FALSE;
  ok = TRUE;
  if (joined)
    *joined = TRUE;
  /* The joined stream links the chunks: the parts' directories go. */
  for (k = 0; k < n; k++)
    store_remove_data (store, parts[k].info->data);
  if (old)
    store_remove_data (store, old->data);
  store_release_data_dir (abs_data, lock_fd, TRUE);
  g_clear_pointer (&abs_data, g_free);
  lock_fd = -1;

out:
  if (in_tx)
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
  store_release_data_dir (abs_data, lock_fd, FALSE);
  g_free (abs_data);
  g_free (data);
  stage_stream_info_free (old);
  g_free (frames);
  parts_free (parts, n);
  return ok;
}

GPtrArray *
stage_store_split_streams (StageStore * store, GError ** error)
{
  GPtrArray *list = stage_store_list (store, error), *names;
  GHashTable *seen;
  guint i;

  if (list == NULL)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (i = 0; i < list->len; i++) {
    gchar *base;

    if (!stage_store_parse_part_name (((StageStreamInfo *) list->pdata[i])->
            name, &base, NULL, NULL))
      continue;
    /* (adding a key it has would put this copy in its place) */
    if (g_hash_table_contains (seen, base)) {
      g_free (base);
      continue;
    }
    g_hash_table_add (seen, base);
    g_ptr_array_add (names, base);
  }
  g_hash_table_destroy (seen);
  g_ptr_array_set_free_func (list, (GDestroyNotify) stage_stream_info_free);
  g_ptr_array_unref (list);
  return names;
}
