/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbcheck: what stage-batch works out about a batch before it runs it:
 * writable directories, a job's threads and input size, which column an
 * error is about, and the gst-launch-1.0 line of a job (--dry-run). */
#define _GNU_SOURCE             /* sched_getaffinity, CPU_COUNT */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sbcheck.h"
#include "stagestore.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

/* The manifest column whose value an error message quotes, if any. */
gchar *
sb_blame_column (const SbTemplate * t, const SbManifest * m, guint row,
    const gchar * msg)
{
  const gchar *const *names = sb_template_placeholders (t);
  guint i;

  for (i = 0; names[i]; i++) {
    gchar *v = sb_template_value (m, row, names[i]);
    gboolean hit = v && strlen (v) > 0 && strstr (msg, v);
    g_free (v);
    if (hit)
      return g_strdup_printf (" (the value of column \"%s\")", names[i]);
  }
  return g_strdup ("");
}

/* Whether files can be created in `path` or, where it does not exist yet
 * (it is created before the jobs start), in its nearest existing ancestor.
 * Tried for real with a probe file: access() says yes to root everywhere,
 * read-only mounts and /proc included. */
gboolean
sb_dir_writable (const gchar * path, gchar ** which)
{
  gchar *d = g_strdup (path), *probe;
  gint fd;

  while (!g_file_test (d, G_FILE_TEST_EXISTS)) {
    gchar *up = g_path_get_dirname (d);
    if (strcmp (up, d) == 0) {
      g_free (up);
      break;
    }
    g_free (d);
    d = up;
  }
  probe = g_build_filename (d, ".stage-batch-probe-XXXXXX", NULL);
  fd = g_file_test (d, G_FILE_TEST_IS_DIR) ? g_mkstemp (probe) : -1;
  if (fd < 0) {
    g_free (probe);
    *which = d;
    return FALSE;
  }
  close (fd);
  g_unlink (probe);
  g_free (probe);
  g_free (d);
  return TRUE;
}

/* An element's factory name; "" for elements made without a factory
 * (stagesrc's and stagesink's insides). */
static const gchar *
factory_name (GstElement * e)
{
  GstElementFactory *fac = gst_element_get_factory (e);

  return fac ? GST_OBJECT_NAME (fac) : "";
}

/* Threads a job keeps busy, from its pipeline: one per streaming thread
 * (sources and queue-like elements start one each). A first guess only:
 * --jobs auto corrects it from the CPU time of finished jobs. */
guint
sb_pipeline_threads (GstElement * pipeline)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue v = G_VALUE_INIT;
  guint n = 0;

  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&v);
    const gchar *f = factory_name (e);
    if (!GST_IS_BIN (e) && ((e->numsinkpads == 0 && e->numsrcpads > 0)
            || g_str_has_prefix (f, "queue") || strcmp (f, "multiqueue") == 0))
      n++;
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return MAX (n, 1);
}

guint64
sb_input_weight (const SbTemplate * t, const SbManifest * m, guint row)
{
  const gchar *const *names = sb_template_placeholders (t);
  guint64 w = 0;
  guint i;

  for (i = 0; names[i]; i++) {
    const gchar *v = sb_manifest_value (m, row, names[i]);
    GStatBuf st;
    if (v && g_stat (v, &st) == 0 && S_ISREG (st.st_mode))
      w += st.st_size;
  }
  return w;
}

/* A gst-launch-1.0 command line for a description: one shell word per
 * token. gst-launch joins its arguments again, escaping the spaces outside
 * double quotes, so each token must be one argument (the whole description
 * as one would not parse). */
gchar *
sb_shell_line (const gchar * desc)
{
  GString *out = g_string_new ("gst-launch-1.0 -e");
  const gchar *p = desc;

  while (*p) {
    const gchar *w;
    gboolean in_q = FALSE, plain = TRUE;
    gchar *tok;

    while (g_ascii_isspace (*p))
      p++;
    if (!*p)
      break;
    for (w = p; *p && (in_q || !g_ascii_isspace (*p)); p++) {
      if (*p == '"')
        in_q = !in_q;
      else if (*p == '\\' && in_q && p[1])
        p++;
    }
    tok = g_strndup (w, p - w);
    for (w = tok; *w; w++)
      if (!g_ascii_isalnum (*w) && !strchr ("_-./=:,+@%!", *w))
        plain = FALSE;
    g_string_append_c (out, ' ');
    if (plain) {
      g_string_append (out, tok);
    } else {
      gchar *q = g_shell_quote (tok);
      g_string_append (out, q);
      g_free (q);
    }
    g_free (tok);
  }
  return g_string_free (out, FALSE);
}

#define SB_ERROR (g_quark_from_static_string ("stage-batch-error"))

static gboolean
shard_uint (const gchar * s, const gchar * what, gint64 * v, GError ** error)
{
  guint64 u;

  if (!g_ascii_string_to_unsigned (s, 10, 0, G_MAXINT, &u, NULL)) {
    g_set_error (error, SB_ERROR, 0, "%s: \"%s\" is not a whole number",
        what, s);
    return FALSE;
  }
  *v = (gint64) u;
  return TRUE;
}

/* The scheduler's variables: Kubernetes sets JOB_COMPLETION_INDEX (the
 * count is the Job's `completions`, which it does not export), Slurm sets
 * SLURM_ARRAY_TASK_ID/_COUNT (and _MIN: an array 1-8 has ids from 1). */
static gboolean
shard_from_env (gint64 * index, gint64 * n, GError ** error)
{
  const gchar *k8s = g_getenv ("JOB_COMPLETION_INDEX");
  const gchar *sid = g_getenv ("SLURM_ARRAY_TASK_ID");
  const gchar *scount = g_getenv ("SLURM_ARRAY_TASK_COUNT");
  const gchar *smin = g_getenv ("SLURM_ARRAY_TASK_MIN");
  const gchar *count = g_getenv ("STAGE_BATCH_SHARDS");
  gint64 min = 0;

  if (k8s) {
    if (!shard_uint (k8s, "JOB_COMPLETION_INDEX", index, error)
        || (!*n && count && !shard_uint (count, "STAGE_BATCH_SHARDS", n,
                error)))
      return FALSE;
    if (!*n) {
      g_set_error (error, SB_ERROR, 0, "JOB_COMPLETION_INDEX is set but not "
          "the number of shards: pass --shard N (the Job's completions) or "
          "set STAGE_BATCH_SHARDS");
      return FALSE;
    }
  } else if (sid) {
    if (!shard_uint (sid, "SLURM_ARRAY_TASK_ID", index, error)
        || (smin && !shard_uint (smin, "SLURM_ARRAY_TASK_MIN", &min, error))
        || (!*n && scount && !shard_uint (scount, "SLURM_ARRAY_TASK_COUNT", n,
                error)))
      return FALSE;
    *index -= min;
    if (!*n) {
      g_set_error (error, SB_ERROR, 0, "SLURM_ARRAY_TASK_ID is set but not "
          "SLURM_ARRAY_TASK_COUNT: pass --shard N");
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
sb_parse_shard (const gchar * opt, guint * index, guint * count,
    GError ** error)
{
  gint64 i = -1, n = 0;

  if (opt && strchr (opt, '/')) {
    gchar **p = g_strsplit (opt, "/", 2);
    gboolean ok = shard_uint (p[0], "--shard I/N", &i, error)
        && shard_uint (p[1], "--shard I/N", &n, error);
    g_strfreev (p);
    if (!ok)
      return FALSE;
  } else {
    if (opt && !shard_uint (opt, "--shard N", &n, error))
      return FALSE;
    if (!shard_from_env (&i, &n, error))
      return FALSE;
    if (opt && i < 0) {
      g_set_error (error, SB_ERROR, 0, "--shard %s: no shard index (use "
          "--shard I/N, or run under a Kubernetes Indexed Job or a Slurm "
          "array)", opt);
      return FALSE;
    }
  }
  if (n == 0 && i < 0) {
    *index = 0;
    *count = 1;
    return TRUE;
  }
  if (n < 1 || i < 0 || i >= n) {
    g_set_error (error, SB_ERROR, 0, "shard %" G_GINT64_FORMAT " of %"
        G_GINT64_FORMAT ": the index must be from 0 to N-1", i, n);
    return FALSE;
  }
  *index = i;
  *count = n;
  return TRUE;
}

gchar *
sb_find_self (const gchar * argv0)
{
  gchar *p = g_file_read_link ("/proc/self/exe", NULL);

  if (p)
    return p;
  if (strchr (argv0, '/'))
    return g_canonicalize_filename (argv0, NULL);
  p = g_find_program_in_path (argv0);
  return p ? p : g_strdup (argv0);
}

gchar *
sb_default_state_dir (const gchar * manifest)
{
  gchar *state;

  if (!manifest) {
    state = g_strdup ("stage-batch.batch");
  } else {
    gchar *dir = g_path_get_dirname (manifest);
    gchar *base = g_path_get_basename (manifest);
    gchar *dot = strrchr (base, '.');
    gchar *name;
    if (dot && dot != base)
      *dot = '\0';
    name = g_strdup_printf ("%s.batch", base);
    state = g_build_filename (dir, name, NULL);
    g_free (dir);
    g_free (base);
    g_free (name);
  }
  return state;
}

/* The cgroup v2 CPU quota of this process (cpu.max "QUOTA PERIOD") in
 * CPUs, rounded up; 0 when there is none. Looked
 * up from the process's own cgroup to the root: a limit anywhere above
 * applies. @root: "/sys/fs/cgroup" (a test may point elsewhere). */
static guint
cgroup_quota (const gchar * root, gchar ** where)
{
  gchar *self = NULL, *line, *path = NULL;
  guint best = 0;

  if (g_file_get_contents ("/proc/self/cgroup", &self, NULL, NULL)) {
    gchar **lines = g_strsplit (self, "\n", -1), **l;

    for (l = lines; *l; l++)
      if (g_str_has_prefix (*l, "0::"))
        path = g_strdup (*l + 3);
    g_strfreev (lines);
  }
  for (line = path ? path : g_strdup ("/");;) {
    gchar *dir = g_build_filename (root, line, NULL);
    gchar *f = g_build_filename (dir, "cpu.max", NULL), *text = NULL;
    gdouble quota = 0, period = 0;

    if (g_file_get_contents (f, &text, NULL, NULL)
        && !g_str_has_prefix (text, "max")) {
      gchar **w = g_strsplit (g_strstrip (text), " ", 2);

      quota = g_ascii_strtod (w[0], NULL);
      period = w[1] ? g_ascii_strtod (w[1], NULL) : 100000;
      g_strfreev (w);
    }
    if (quota > 0 && period > 0) {
      guint n = MAX (1, (guint) ceil (quota / period - 1e-9));

      if (best == 0 || n < best) {
        best = n;
        g_free (*where);
        *where = g_strdup_printf ("cgroup quota %s: %.0f/%.0f us", f, quota,
            period);
      }
    }
    g_free (text);
    g_free (f);
    g_free (dir);
    if (strcmp (line, "/") == 0 || *line == '\0')
      break;
    {
      gchar *up = g_path_get_dirname (line);

      g_free (line);
      line = up;
    }
  }
  g_free (line);
  g_free (self);
  return best;
}

guint
sb_usable_cpus (gchar ** why)
{
  cpu_set_t set;
  guint online = (guint) MAX (1, sysconf (_SC_NPROCESSORS_ONLN)), n = online;
  guint quota;
  gchar *where = NULL;
  const gchar *root = g_getenv ("STAGE_BATCH_CGROUP_ROOT");

  *why = g_strdup_printf ("%u online", online);
  if (sched_getaffinity (0, sizeof (set), &set) == 0
      && (guint) CPU_COUNT (&set) < n) {
    n = CPU_COUNT (&set);
    g_free (*why);
    *why = g_strdup_printf ("%u of %u allowed by the CPU affinity", n,
        online);
  }
  quota = cgroup_quota (root ? root : "/sys/fs/cgroup", &where);
  if (quota > 0 && quota < n) {
    n = quota;
    g_free (*why);
    *why = g_strdup_printf ("%u by the %s", n, where);
  }
  g_free (where);
  return n;
}

/* The problem with one source element's input, or NULL. */
static gchar *
source_problem (GstElement * e)
{
  GObjectClass *k = G_OBJECT_GET_CLASS (e);
  const gchar *f = factory_name (e);
  gchar *v = NULL, *path = NULL, *problem = NULL;

  if (g_str_equal (f, "stagesrc")) {
    gchar *store = NULL, *stream = NULL;
    GError *err = NULL;
    StageStore *st;
    StageStreamInfo *info = NULL;

    g_object_get (e, "store", &store, "stream", &stream, NULL);
    if (store && stream) {
      st = stage_store_open_read (store, &err);
      if (st)
        info = stage_store_lookup (st, stream, &err);
      if (err)
        problem = g_strdup_printf ("%s: %s", GST_OBJECT_NAME (e),
            err->message);
      g_clear_error (&err);
      if (info)
        stage_stream_info_free (info);
      if (st)
        stage_store_close (st);
    }
    g_free (store);
    g_free (stream);
    return problem;
  }
  if (e->numsinkpads > 0 || GST_IS_BIN (e))
    return NULL;                /* not a source */
  if (g_object_class_find_property (k, "location")) {
    g_object_get (e, "location", &v, NULL);
    if (v && *v && !strchr (v, '%'))
      path = g_strdup (v);
  } else if (g_object_class_find_property (k, "uri")) {
    g_object_get (e, "uri", &v, NULL);
    if (v && g_str_has_prefix (v, "file:"))
      path = g_filename_from_uri (v, NULL, NULL);
  }
  if (path && !g_file_test (path, G_FILE_TEST_EXISTS))
    problem = g_strdup_printf ("%s reads \"%s\", which does not exist",
        GST_OBJECT_NAME (e), path);
  else if (path && access (path, R_OK) != 0)
    problem = g_strdup_printf ("%s reads \"%s\", which cannot be read: %s",
        GST_OBJECT_NAME (e), path, g_strerror (errno));
  g_free (path);
  g_free (v);
  return problem;
}

GstElement *
sb_find_element (GstElement * pipeline, const gchar * factory, guint * count)
{
  GstIterator *it;
  GValue v = G_VALUE_INIT;
  GstElement *found = NULL;
  guint n = 0;

  if (!GST_IS_BIN (pipeline)) {
    if (count)
      *count = g_str_equal (factory_name (pipeline), factory);
    return *factory_name (pipeline) && g_str_equal (factory_name (pipeline),
        factory) ? gst_object_ref (pipeline) : NULL;
  }
  it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&v);
    if (g_str_equal (factory_name (e), factory)) {
      if (!found)
        found = gst_object_ref (e);
      n++;
    }
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  if (count)
    *count = n;
  return found;
}

gchar *
sb_pipeline_input_problem (GstElement * pipeline)
{
  GstIterator *it;
  GValue v = G_VALUE_INIT;
  gchar *problem = NULL;

  if (!GST_IS_BIN (pipeline))
    return source_problem (pipeline);
  it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  while (!problem && gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    problem = source_problem (g_value_get_object (&v));
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return problem;
}

/* The first always source pad of @e that nothing is linked to, or NULL.
 * Not sink pads: one fed by a demuxer's sometimes pad is linked only once
 * the demuxer makes that pad (gst_parse's delayed link). */
static gchar *
unlinked_pad (GstElement * e)
{
  GList *l;
  gchar *problem = NULL;

  GST_OBJECT_LOCK (e);
  for (l = e->pads; l && !problem; l = l->next) {
    GstPad *pad = l->data;
    GstPadTemplate *tpl = GST_PAD_PAD_TEMPLATE (pad);

    if (GST_PAD_IS_SRC (pad) && tpl
        && GST_PAD_TEMPLATE_PRESENCE (tpl) == GST_PAD_ALWAYS
        && !gst_pad_is_linked (pad))
      problem = g_strdup_printf ("%s's source pad '%s' is not linked: "
          "nothing takes its output (end the chain with a sink, e.g. "
          "'! fakesink'); every job would fail with 'not-linked'",
          GST_OBJECT_NAME (e), GST_PAD_NAME (pad));
  }
  GST_OBJECT_UNLOCK (e);
  return problem;
}

gchar *
sb_pipeline_unlinked_problem (GstElement * pipeline)
{
  GstIterator *it;
  GValue v = G_VALUE_INIT;
  gchar *problem = NULL;

  if (!GST_IS_BIN (pipeline))
    return unlinked_pad (pipeline);
  /* the pipeline's own elements: a bin of ours (stagesrc) links its
   * insides only when it starts */
  it = gst_bin_iterate_elements (GST_BIN (pipeline));
  while (!problem && gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    problem = unlinked_pad (g_value_get_object (&v));
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return problem;
}
