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

GPtrArray *
gst_stage_group_parse_params (const gchar * text, GError ** error)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  const gchar *p = text;
  guint entry = 0;

  while (p != NULL && *p) {
    gchar *end = NULL;
    GstStructure *s;

    while (g_ascii_isspace (*p))
      p++;
    if (*p == '\0')
      break;
    entry++;
    s = gst_structure_from_string (p, &end);
    if (s == NULL) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "group %u ('%.40s'): not a structure; expected e.g. "
          "\"g, r.ranges=0:10; g, r.ranges=5:15\"", entry, p);
      g_ptr_array_unref (out);
      return NULL;
    }
    g_ptr_array_add (out, s);
    p = end;
    while (g_ascii_isspace (*p))
      p++;
    if (*p == ';')
      p++;
  }
  return out;
}
