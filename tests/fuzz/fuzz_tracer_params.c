/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the stageprof params string ("trace=out.json,
 * summary=stdout,skip-first=3"), through the path the tracer takes
 * (tracer/gststageprof.c, stage_prof_parse_params): parsed as the fields of
 * a GstStructure named "stageprof", each value turned into the string the
 * tracer applies (strings as they are, others serialized); when GStreamer
 * refuses the structure, split on ',' and '='. Numbers go through the
 * tracer's rules (skip-first: decimal digits; interval: seconds 0..1e6).
 *
 * The tracer's own function applies each value to the tracer object at
 * once (opening trace and db files), so it cannot be fuzzed in a process
 * that must not write where an input says; this target exercises the same
 * GStreamer parsing and serialisation on every input instead. */
#include <gst/gst.h>
#include <string.h>

#include "fuzz-common.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  g_setenv ("GST_REGISTRY_FORK", "no", TRUE);
  g_setenv ("GST_PLUGIN_SYSTEM_PATH_1_0", "", TRUE);
  g_setenv ("GST_PLUGIN_PATH_1_0", "", TRUE);
  g_setenv ("GST_REGISTRY_1_0", "/dev/null", TRUE);
  gst_init (NULL, NULL);
  /* refused values are warned about: quiet, they are expected */
  g_log_set_always_fatal (G_LOG_FATAL_MASK);
  return 0;
}

static void
apply (const gchar * key, const gchar * value)
{
  gchar *end = NULL;

  if (!g_utf8_validate (key, -1, NULL))
    return;
  if (strcmp (key, "skip-first") == 0 && g_ascii_isdigit (*value)) {
    (void) g_ascii_strtoull (value, &end, 10);
  } else if (strcmp (key, "interval") == 0 && *value) {
    gdouble v = g_ascii_strtod (value, &end);

    (void) (v >= 0 && v <= 1e6);
  }
}

static gboolean
field (GQuark id, const GValue * value, gpointer data)
{
  gchar *str = G_VALUE_HOLDS_STRING (value) ? g_value_dup_string (value)
      : gst_value_serialize (value);

  apply (g_quark_to_string (id), str ? str : "");
  g_free (str);
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gchar *params = fuzz_text (data, size), *full;
  GstStructure *s;

  full = g_strdup_printf ("stageprof,%s", params);
  s = gst_structure_from_string (full, NULL);
  g_free (full);
  if (s) {
    gchar *again = gst_structure_to_string (s);
    GstStructure *s2 = gst_structure_from_string (again, NULL);

    gst_structure_foreach (s, field, NULL);
    if (s2)
      gst_structure_free (s2);
    g_free (again);
    gst_structure_free (s);
  } else {
    gchar **items = g_strsplit (params, ",", -1);
    guint i;

    for (i = 0; items[i]; i++) {
      gchar *item = g_strstrip (items[i]), *eq = strchr (item, '=');

      if (!*item || !eq)
        continue;
      *eq = '\0';
      apply (g_strstrip (item), g_strstrip (eq + 1));
    }
    g_strfreev (items);
  }
  free (params);
  return 0;
}
