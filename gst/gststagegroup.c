/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: the group event of stageslice; see gststagegroup.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststagegroup.h"

#include <string.h>

GstEvent *
gst_stage_group_event_new (const GstStageGroup * group)
{
  GstStructure *s = gst_structure_new (GST_STAGE_GROUP_EVENT_NAME,
      "index", G_TYPE_UINT64, group->index,
      "start", G_TYPE_UINT64, group->start,
      "end", G_TYPE_UINT64, group->end,
      "stride", G_TYPE_UINT64, group->stride,
      "first", G_TYPE_UINT64, group->first, NULL);

  if (group->n_groups != G_MAXUINT64)
    gst_structure_set (s, "n-groups", G_TYPE_UINT64, group->n_groups, NULL);
  if (group->params)
    gst_structure_set (s, "params", GST_TYPE_STRUCTURE, group->params, NULL);
  return gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM, s);
}

gboolean
gst_stage_group_event_parse (GstEvent * event, GstStageGroup * group)
{
  const GstStructure *s;

  if (GST_EVENT_TYPE (event) != GST_EVENT_CUSTOM_DOWNSTREAM)
    return FALSE;
  s = gst_event_get_structure (event);
  if (s == NULL || !gst_structure_has_name (s, GST_STAGE_GROUP_EVENT_NAME))
    return FALSE;
  memset (group, 0, sizeof (*group));
  if (!gst_structure_get_uint64 (s, "index", &group->index)
      || !gst_structure_get_uint64 (s, "start", &group->start)
      || !gst_structure_get_uint64 (s, "end", &group->end)
      || !gst_structure_get_uint64 (s, "stride", &group->stride)
      || !gst_structure_get_uint64 (s, "first", &group->first))
    return FALSE;
  if (!gst_structure_get_uint64 (s, "n-groups", &group->n_groups))
    group->n_groups = G_MAXUINT64;
  if (gst_structure_has_field_typed (s, "params", GST_TYPE_STRUCTURE))
    group->params = gst_value_get_structure (gst_structure_get_value (s,
            "params"));
  return TRUE;
}

typedef struct
{
  GstElement *element;
  gsize prefix_len;
  gint applied;
  GError **error;
} ApplyData;

static gboolean
apply_field (GQuark field, const GValue * value, gpointer user_data)
{
  ApplyData *d = user_data;
  const gchar *name = g_quark_to_string (field);
  const gchar *prefix = GST_OBJECT_NAME (d->element);
  const gchar *prop;
  GParamSpec *pspec;
  GValue v = G_VALUE_INIT;
  gchar *str;
  gboolean ok;

  if (strncmp (name, prefix, d->prefix_len) != 0 || name[d->prefix_len] != '.')
    return TRUE;
  prop = name + d->prefix_len + 1;
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (d->element),
      prop);
  if (pspec == NULL || !(pspec->flags & G_PARAM_WRITABLE)) {
    g_set_error (d->error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "group parameter '%s': element '%s' has no writable property '%s'",
        name, prefix, prop);
    return FALSE;
  }
  /* Through the string form, as gst-launch-1.0 sets properties, so that
   * "r.ranges=0:10" and "s.stride=(uint)3" both work. */
  str = G_VALUE_HOLDS_STRING (value) ? g_value_dup_string (value) :
      gst_value_serialize (value);
  g_value_init (&v, pspec->value_type);
  ok = str != NULL && gst_value_deserialize_with_pspec (&v, str, pspec)
      && !g_param_value_validate (pspec, &v);
  if (ok) {
    g_object_set_property (G_OBJECT (d->element), prop, &v);
    d->applied++;
  } else {
    g_set_error (d->error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "group parameter '%s': '%s' is not a valid value for property '%s' "
        "of '%s'", name, GST_STR_NULL (str), prop, prefix);
  }
  g_value_unset (&v);
  g_free (str);
  return ok;
}

gint
gst_stage_group_apply_params (GstElement * element,
    const GstStructure * params, GError ** error)
{
  ApplyData d = { element, 0, 0, error };

  if (params == NULL || GST_OBJECT_NAME (element) == NULL)
    return 0;
  d.prefix_len = strlen (GST_OBJECT_NAME (element));
  if (!gst_structure_foreach (params, apply_field, &d))
    return -1;
  return d.applied;
}

/* Splits @text at @sep outside double quotes (a backslash escapes the
 * next character). */
static GPtrArray *
split_unquoted (const gchar * text, gchar sep)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  GString *cur = g_string_new (NULL);
  gboolean quoted = FALSE;
  const gchar *p;

  for (p = text; *p; p++) {
    if (*p == '\\' && p[1]) {
      g_string_append_c (cur, *p++);
      g_string_append_c (cur, *p);
    } else if (*p == '"') {
      quoted = !quoted;
      g_string_append_c (cur, *p);
    } else if (*p == sep && !quoted) {
      g_ptr_array_add (parts, g_string_free (cur, FALSE));
      cur = g_string_new (NULL);
    } else {
      g_string_append_c (cur, *p);
    }
  }
  g_ptr_array_add (parts, g_string_free (cur, FALSE));
  return parts;
}

/* "v", or "\"v\"" unquoted and unescaped. */
static gchar *
unquote (const gchar * v)
{
  gsize n = strlen (v);
  GString *out;
  gsize i;

  if (n < 2 || v[0] != '"' || v[n - 1] != '"')
    return g_strdup (v);
  out = g_string_new (NULL);
  for (i = 1; i + 1 < n; i++) {
    if (v[i] == '\\' && i + 2 < n)
      i++;
    g_string_append_c (out, v[i]);
  }
  return g_string_free (out, FALSE);
}

/* One group's "ELEMENT.PROPERTY=VALUE, ..." into a structure of strings.
 * Values stay text: typing them here would guess wrong ("3:1" reads as a
 * GstFlagSet); the property's own type decides when they are applied. */
static GstStructure *
parse_entry (const gchar * entry, guint group, GError ** error)
{
  GPtrArray *items = split_unquoted (entry, ',');
  GstStructure *s = gst_structure_new_empty ("params");
  guint i;

  for (i = 0; i < items->len; i++) {
    gchar *item = g_strstrip ((gchar *) g_ptr_array_index (items, i));
    gchar *eq = strchr (item, '='), *key, *dot;

    if (*item == '\0')
      continue;
    key = eq ? g_strstrip (g_strndup (item, (gsize) (eq - item))) : NULL;
    dot = key ? strchr (key, '.') : NULL;
    if (key == NULL || dot == NULL || dot == key || dot[1] == '\0') {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "group %u: '%.40s' is not ELEMENT.PROPERTY=VALUE (e.g. "
          "r.ranges=0:10)", group, item);
      g_free (key);
      gst_structure_free (s);
      g_ptr_array_unref (items);
      return NULL;
    } else {
      gchar *value = unquote (g_strstrip (eq + 1));

      gst_structure_set (s, key, G_TYPE_STRING, value, NULL);
      g_free (value);
      g_free (key);
    }
  }
  g_ptr_array_unref (items);
  return s;
}

GPtrArray *
gst_stage_group_parse_params (const gchar * text, GError ** error)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GPtrArray *entries;
  guint i, n;

  if (text == NULL)
    return out;
  entries = split_unquoted (text, ';');
  n = entries->len;
  /* a trailing ';' (or blank text) adds no group */
  if (n > 0 && *g_strstrip ((gchar *) g_ptr_array_index (entries, n - 1))
      == '\0')
    n--;
  for (i = 0; i < n; i++) {
    GstStructure *s = parse_entry (g_ptr_array_index (entries, i), i + 1,
        error);

    if (s == NULL) {
      g_ptr_array_unref (out);
      out = NULL;
      break;
    }
    g_ptr_array_add (out, s);
  }
  g_ptr_array_unref (entries);
  return out;
}

GstEvent *
gst_stage_null_gap_new (GstClockTime timestamp, GstClockTime duration)
{
  GstEvent *gap = gst_event_new_gap (timestamp, duration);

  gst_structure_set (gst_event_writable_structure (gap),
      GST_STAGE_NULL_GAP_FIELD, G_TYPE_BOOLEAN, TRUE, NULL);
  return gap;
}

gboolean
gst_stage_gap_is_null (GstEvent * event)
{
  const GstStructure *s = gst_event_get_structure (event);
  gboolean v = FALSE;

  return GST_EVENT_TYPE (event) == GST_EVENT_GAP && s != NULL
      && gst_structure_get_boolean (s, GST_STAGE_NULL_GAP_FIELD, &v) && v;
}
