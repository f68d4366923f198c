/* spmerge: stageprof traces and summaries of several processes merged into
 * one. See spmerge.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "spmerge.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SP_MERGE_ERROR (g_quark_from_static_string ("spmerge-error"))

struct _SpMergeWriter
{
  gchar *path;
  FILE *f;
  gboolean first;
  gboolean failed;
  guint next_pid;
  gint64 origin_wall_us;        /* 0: not set */
  JsonGenerator *gen;
};

SpMergeWriter *
sp_merge_writer_new (const gchar * path, GError ** error)
{
  SpMergeWriter *w;
  FILE *f = fopen (path, "wb");

  if (!f) {
    int e = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
        "cannot write the merged trace \"%s\": %s", path, g_strerror (e));
    return NULL;
  }
  w = g_new0 (SpMergeWriter, 1);
  w->path = g_strdup (path);
  w->f = f;
  w->first = TRUE;
  w->next_pid = 1;
  w->gen = json_generator_new ();
  fputs ("[\n", f);
  return w;
}

/* One event per line, the stageprof way: lines after the first start with
 * ',' so a cut file is fixed by appending ']'. */
static void
write_node (SpMergeWriter * w, JsonNode * n)
{
  gchar *s;

  json_generator_set_root (w->gen, n);
  s = json_generator_to_data (w->gen, NULL);
  if (!w->first)
    fputc (',', w->f);
  w->first = FALSE;
  if (fputs (s, w->f) == EOF || fputc ('\n', w->f) == EOF)
    w->failed = TRUE;
  g_free (s);
}

static void
write_object (SpMergeWriter * w, JsonObject * o)
{
  JsonNode *n = json_node_init_object (json_node_alloc (), o);

  write_node (w, n);
  json_node_unref (n);
}

static void
write_meta (SpMergeWriter * w, const gchar * what, guint pid, gint64 tid,
    const gchar * key, JsonNode * value)
{
  JsonObject *o = json_object_new (), *args = json_object_new ();

  json_object_set_string_member (o, "name", what);
  json_object_set_string_member (o, "ph", "M");
  json_object_set_int_member (o, "pid", pid);
  if (tid >= 0)
    json_object_set_int_member (o, "tid", tid);
  json_object_set_member (args, key, value);
  json_object_set_object_member (o, "args", args);
  write_object (w, o);
  json_object_unref (o);
}

guint
sp_merge_writer_add_process (SpMergeWriter * w, const gchar * name)
{
  guint pid = w->next_pid++;

  write_meta (w, "process_name", pid, -1, "name",
      json_node_init_string (json_node_alloc (), name));
  write_meta (w, "process_sort_index", pid, -1, "sort_index",
      json_node_init_int (json_node_alloc (), pid));
  return pid;
}

typedef struct
{
  SpMergeWriter *w;
  GHashTable *pids;             /* old pid -> new pid */
  const gchar *name;
  gdouble offset_us;
  guint first_pid;
  guint64 n;
} SpMergeInput;

static guint
map_pid (SpMergeInput * in, gint64 old)
{
  gpointer v;

  if (g_hash_table_lookup_extended (in->pids, GINT_TO_POINTER ((gint) old),
          NULL, &v))
    return GPOINTER_TO_UINT (v);
  if (g_hash_table_size (in->pids) == 0 && in->first_pid) {
    v = GUINT_TO_POINTER (in->first_pid);
  } else {
    v = GUINT_TO_POINTER (sp_merge_writer_add_process (in->w, in->name));
  }
  g_hash_table_insert (in->pids, GINT_TO_POINTER ((gint) old), v);
  return GPOINTER_TO_UINT (v);
}

static void
add_event (SpMergeInput * in, JsonObject * o)
{
  const gchar *ph = json_object_get_string_member_with_default (o, "ph", "");
  const gchar *name = json_object_get_string_member_with_default (o, "name",
      "");
  gint64 pid = json_object_get_int_member_with_default (o, "pid", 0);

  /* The merged trace gets one wall-clock start of its own. */
  if (strcmp (ph, "M") == 0 && strcmp (name, "stageprof_start") == 0)
    return;
  /* pid 0 is trace-wide metadata (stageprof_link), not a process. */
  if (pid != 0)
    json_object_set_int_member (o, "pid", map_pid (in, pid));
  if (json_object_has_member (o, "ts"))
    json_object_set_double_member (o, "ts",
        json_object_get_double_member (o, "ts") + in->offset_us);
  if (strcmp (ph, "M") == 0 && strcmp (name, "process_name") == 0) {
    JsonObject *args = json_object_get_object_member (o, "args");
    const gchar *old = args ?
        json_object_get_string_member_with_default (args, "name", NULL) : NULL;
    gchar *n;

    /* The input's first process keeps the caller's name. */
    if (json_object_get_int_member_with_default (o, "pid", 0) ==
        in->first_pid)
      return;
    n = old ? g_strdup_printf ("%s (%s)", in->name, old) : g_strdup (in->name);
    if (args)
      json_object_set_string_member (args, "name", n);
    g_free (n);
  }
  write_object (in->w, o);
  in->n++;
}

static gboolean
add_node (SpMergeInput * in, JsonNode * n)
{
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return FALSE;
  add_event (in, json_node_get_object (n));
  return TRUE;
}

/* Not one event per line: the whole document. */
static gboolean
add_whole (SpMergeInput * in, const gchar * path, GError ** error)
{
  JsonParser *p = json_parser_new ();
  JsonNode *root;
  JsonArray *a = NULL;
  guint i;

  if (!json_parser_load_from_file (p, path, error)) {
    g_object_unref (p);
    return FALSE;
  }
  root = json_parser_get_root (p);
  if (root && JSON_NODE_HOLDS_ARRAY (root))
    a = json_node_get_array (root);
  else if (root && JSON_NODE_HOLDS_OBJECT (root)
      && json_object_has_member (json_node_get_object (root), "traceEvents"))
    a = json_object_get_array_member (json_node_get_object (root),
        "traceEvents");
  if (!a) {
    g_set_error (error, SP_MERGE_ERROR, 0, "\"%s\" is not a Chrome trace "
        "(neither a JSON array nor an object with traceEvents)", path);
    g_object_unref (p);
    return FALSE;
  }
  for (i = 0; i < json_array_get_length (a); i++)
    add_node (in, json_array_get_element (a, i));
  g_object_unref (p);
  return TRUE;
}

static gboolean
add_lines (SpMergeInput * in, FILE * f, const gchar * path, GError ** error)
{
  JsonParser *p = json_parser_new ();
  gchar *line = NULL;
  size_t cap = 0;
  ssize_t len;
  gboolean ok = TRUE, opened = FALSE;

  while ((len = getline (&line, &cap, f)) >= 0) {
    gchar *s = g_strstrip (line);

    if (!opened) {
      if (*s == '\0')
        continue;
      if (strcmp (s, "[") != 0) {
        ok = FALSE;             /* not line-based: caller reads it whole */
        break;
      }
      opened = TRUE;
      continue;
    }
    if (*s == ',')
      s++;
    len = strlen (s);
    if (len > 0 && s[len - 1] == ',')
      s[--len] = '\0';
    if (len == 0 || strcmp (s, "]") == 0)
      continue;
    /* A line that does not parse is the tail of a trace cut mid-write: the
     * rest is skipped, not guessed at. */
    if (!json_parser_load_from_data (p, s, len, NULL)
        || !add_node (in, json_parser_get_root (p)))
      g_debug ("%s: skipping a line that is not one JSON event", path);
  }
  free (line);
  g_object_unref (p);
  return ok;
}

guint
sp_merge_writer_add_trace (SpMergeWriter * w, const gchar * trace_path,
    const gchar * name, gdouble offset_us, guint64 * n_events,
    GError ** error)
{
  SpMergeInput in = { 0 };
  FILE *f;
  gboolean ok = TRUE;

  in.w = w;
  in.pids = g_hash_table_new (NULL, NULL);
  in.name = name;
  in.offset_us = offset_us;
  in.first_pid = sp_merge_writer_add_process (w, name);

  f = trace_path ? fopen (trace_path, "rb") : NULL;
  if (trace_path && !f) {
    int e = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
        "cannot read the trace \"%s\": %s", trace_path, g_strerror (e));
    ok = FALSE;
  } else if (f) {
    if (!add_lines (&in, f, trace_path, error))
      ok = add_whole (&in, trace_path, error);
    fclose (f);
  }
  if (n_events)
    *n_events = in.n;
  g_hash_table_destroy (in.pids);
  return ok ? in.first_pid : 0;
}

void
sp_merge_writer_add_slice (SpMergeWriter * w, guint pid, guint64 tid,
    const gchar * thread_name, const gchar * name, gdouble ts_us,
    gdouble dur_us, JsonObject * args)
{
  JsonObject *o = json_object_new ();

  if (thread_name)
    write_meta (w, "thread_name", pid, tid, "name",
        json_node_init_string (json_node_alloc (), thread_name));
  json_object_set_string_member (o, "name", name);
  json_object_set_string_member (o, "ph", "X");
  json_object_set_double_member (o, "ts", ts_us);
  json_object_set_double_member (o, "dur", dur_us);
  json_object_set_int_member (o, "pid", pid);
  json_object_set_int_member (o, "tid", tid);
  if (args)
    json_object_set_object_member (o, "args", args);
  write_object (w, o);
  json_object_unref (o);
}

void
sp_merge_writer_set_origin (SpMergeWriter * w, gint64 origin_wall_us)
{
  w->origin_wall_us = origin_wall_us;
}

gboolean
sp_merge_trace_wall_start (const gchar * trace_path, gint64 * ts0_wall_us)
{
  FILE *f = fopen (trace_path, "rb");
  JsonParser *p;
  gchar *line = NULL;
  size_t cap = 0;
  guint n = 0;
  gboolean found = FALSE;

  if (!f)
    return FALSE;
  p = json_parser_new ();
  /* stageprof writes it with the first metadata, before any slice. */
  while (!found && n++ < 4096 && getline (&line, &cap, f) >= 0) {
    gchar *s = g_strstrip (line);
    JsonObject *o, *args;

    if (!strstr (s, "\"stageprof_start\""))
      continue;
    if (*s == ',')
      s++;
    if (!json_parser_load_from_data (p, s, -1, NULL)
        || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p)))
      continue;
    o = json_node_get_object (json_parser_get_root (p));
    args = json_object_has_member (o, "args") ?
        json_object_get_object_member (o, "args") : NULL;
    if (args && json_object_has_member (args, "wall_clock_us")) {
      *ts0_wall_us = json_object_get_int_member (args, "wall_clock_us") -
          (gint64) json_object_get_double_member_with_default (args, "ts_us",
          0);
      found = TRUE;
    }
  }
  free (line);
  g_object_unref (p);
  fclose (f);
  return found;
}

gboolean
sp_merge_writer_close (SpMergeWriter * w, GError ** error)
{
  gboolean ok;

  if (w->origin_wall_us) {
    JsonObject *o = json_object_new (), *args = json_object_new ();
    json_object_set_string_member (o, "name", "stageprof_start");
    json_object_set_string_member (o, "ph", "M");
    json_object_set_int_member (o, "pid", 0);
    json_object_set_int_member (o, "tid", 0);
    json_object_set_int_member (args, "wall_clock_us", w->origin_wall_us);
    json_object_set_double_member (args, "ts_us", 0);
    json_object_set_object_member (o, "args", args);
    write_object (w, o);
    json_object_unref (o);
  }
  if (fputs ("]\n", w->f) == EOF)
    w->failed = TRUE;
  if (fclose (w->f) != 0)
    w->failed = TRUE;
  ok = !w->failed;
  if (!ok)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO,
        "writing the merged trace \"%s\" failed", w->path);
  g_object_unref (w->gen);
  g_free (w->path);
  g_free (w);
  return ok;
}

/* ---- summaries ----------------------------------------------------------- */

typedef struct
{
  gint64 count;
  gdouble total_s;
  guint jobs;
} SpElemTotal;

static void
add_elements (GHashTable * totals, GPtrArray * order, JsonObject * summary)
{
  JsonArray *els;
  guint i;

  if (!json_object_has_member (summary, "elements"))
    return;
  els = json_object_get_array_member (summary, "elements");
  for (i = 0; els && i < json_array_get_length (els); i++) {
    JsonObject *e = json_array_get_object_element (els, i);
    const gchar *name = e ?
        json_object_get_string_member_with_default (e, "name", NULL) : NULL;
    SpElemTotal *t;

    if (!name)
      continue;
    t = g_hash_table_lookup (totals, name);
    if (!t) {
      t = g_new0 (SpElemTotal, 1);
      g_hash_table_insert (totals, g_strdup (name), t);
      g_ptr_array_add (order, g_strdup (name));
    }
    t->count += json_object_get_int_member_with_default (e, "count", 0);
    t->total_s += json_object_get_double_member_with_default (e, "total_s", 0);
    t->jobs++;
  }
}

static gint
by_total (gconstpointer a, gconstpointer b, gpointer data)
{
  SpElemTotal *x = g_hash_table_lookup (data, *(gchar **) a);
  SpElemTotal *y = g_hash_table_lookup (data, *(gchar **) b);

  return x->total_s < y->total_s ? 1 : x->total_s > y->total_s ? -1 : 0;
}

static void
count_member (JsonObject * o, const gchar * key)
{
  json_object_set_int_member (o, key,
      json_object_get_int_member_with_default (o, key, 0) + 1);
}

JsonNode *
sp_merge_summaries (JsonArray * jobs)
{
  JsonObject *root = json_object_new (), *totals = json_object_new ();
  JsonObject *statuses = json_object_new (), *verdicts = json_object_new ();
  JsonArray *out = json_array_new (), *els = json_array_new ();
  GHashTable *elt = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  GPtrArray *order = g_ptr_array_new_with_free_func (g_free);
  JsonParser *p = json_parser_new ();
  gint64 frames = 0;
  gdouble wall = 0, cpu = 0;
  guint i;

  for (i = 0; i < json_array_get_length (jobs); i++) {
    JsonObject *job = json_object_ref (json_array_get_object_element (jobs, i));
    const gchar *sp = json_object_get_string_member_with_default (job,
        "summary_path", NULL);
    const gchar *verdict;

    count_member (statuses, json_object_get_string_member_with_default (job,
            "status", "unknown"));
    frames += json_object_get_int_member_with_default (job, "frames", 0);
    wall += json_object_get_double_member_with_default (job, "wall_s", 0);
    cpu += json_object_get_double_member_with_default (job, "cpu_s", 0);
    if (sp && json_parser_load_from_file (p, sp, NULL)
        && JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p))) {
      JsonObject *s = json_node_get_object (json_parser_get_root (p));
      json_object_set_object_member (job, "summary", json_object_ref (s));
      add_elements (elt, order, s);
    }
    verdict = json_object_get_string_member_with_default (job, "verdict",
        NULL);
    if (verdict && *verdict && strcmp (verdict, "-") != 0) {
      gchar *kind = g_strdup (verdict);
      gchar *colon = strchr (kind, ':');
      if (colon)
        *colon = '\0';
      count_member (verdicts, g_strstrip (kind));
      g_free (kind);
    }
    json_array_add_object_element (out, job);
  }

  g_ptr_array_sort_with_data (order, by_total, elt);
  for (i = 0; i < order->len; i++) {
    SpElemTotal *t = g_hash_table_lookup (elt, order->pdata[i]);
    JsonObject *e = json_object_new ();
    json_object_set_string_member (e, "name", order->pdata[i]);
    json_object_set_int_member (e, "jobs", t->jobs);
    json_object_set_int_member (e, "count", t->count);
    json_object_set_double_member (e, "total_s", t->total_s);
    json_array_add_object_element (els, e);
  }

  json_object_set_int_member (totals, "jobs", json_array_get_length (jobs));
  json_object_set_object_member (totals, "status", statuses);
  json_object_set_int_member (totals, "frames", frames);
  json_object_set_double_member (totals, "job_wall_s", wall);
  json_object_set_double_member (totals, "job_cpu_s", cpu);
  json_object_set_object_member (totals, "verdicts", verdicts);
  json_object_set_array_member (totals, "elements", els);
  json_object_set_array_member (root, "jobs", out);
  json_object_set_object_member (root, "totals", totals);

  g_object_unref (p);
  g_ptr_array_free (order, TRUE);
  g_hash_table_destroy (elt);
  {
    JsonNode *n = json_node_init_object (json_node_alloc (), root);
    json_object_unref (root);
    return n;
  }
}
