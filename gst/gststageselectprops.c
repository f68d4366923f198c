/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The frame selection properties, defined once (see the header).
 *
 * The param specs take the type's whole range: GObject refuses a value
 * outside a param spec's range with only a warning and keeps the old one,
 * and gst-launch-1.0 then runs with the default. The allowed values live
 * in the blurb and in the check at start, which fails loudly instead. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageselectprops.h"
#include "gststageutil.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_select_props_debug);
#define GST_CAT_DEFAULT gst_stage_select_props_debug

#define DEFAULT_PROP_INDICES NULL
#define DEFAULT_PROP_INDICES_FILE NULL
#define DEFAULT_PROP_RANGES NULL
#define DEFAULT_PROP_STRIDE 1
#define DEFAULT_PROP_OFFSET 0
/* allowed values, checked at start: the output framerate denominator is
 * multiplied by the stride; G_MAXUINT64 is "no index" */
#define STRIDE_MAX G_MAXINT
#define OFFSET_MAX (G_MAXUINT64 - 1)

/* By GstStageSelectProp; the default is the strings' */
static const struct
{
  const gchar *name, *nick, *blurb, *default_value;
} defs[GST_STAGE_SELECT_N_PROPS] = {
  {"indices", "Indices", "Frame indices to keep, separated by commas or "
        "spaces, e.g. \"0,5,7,29\"; a set: output is in stream order, "
        "duplicates come out once, any order is accepted",
      DEFAULT_PROP_INDICES},
  {"indices-file", "Indices file", "Path of a text file of frame indices "
        "(one per line, or separated by commas/spaces; '#' starts a "
        "comment), read when the element starts; use instead of 'indices' "
        "for long lists", DEFAULT_PROP_INDICES_FILE},
  {"ranges", "Ranges", "Frame index ranges to keep, half-open START:END "
        "separated by commas, e.g. \"0:100,200:300\" keeps 0..99 and "
        "200..299; treated as a set (stream order, overlaps kept once); "
        "unset = all frames", DEFAULT_PROP_RANGES},
  {"stride", "Stride", "Keep one frame out of every 'stride' (1 keeps "
        "all), counted from 'offset' or from the start of each range or "
        "group: 1 to 2147483647 (others are an error at start)", NULL},
  {"offset", "Offset", "Index of the first frame kept with 'stride' "
        "(frames offset, offset + stride, ...; frame 0 is the first of the "
        "stream): 0 to 18446744073709551614 (more is an error at start)",
      NULL},
};

/* Kept with the type, so that create knows which properties the element
 * has (a gather with nothing set is an error, a stride is every frame). */
static GQuark
flags_quark (void)
{
  return g_quark_from_static_string ("gst-stage-select-flags");
}

static GstStageSelectFlags
get_flags (GstObject * owner)
{
  return GPOINTER_TO_UINT (g_type_get_qdata (G_OBJECT_TYPE (owner),
          flags_quark ()));
}

static GParamSpec *
make_pspec (GstStageSelectProp p)
{
  const GParamFlags rw = G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
      G_PARAM_STATIC_STRINGS;

  if (p == GST_STAGE_SELECT_PROP_STRIDE)
    return g_param_spec_uint (defs[p].name, defs[p].nick, defs[p].blurb,
        0, G_MAXUINT, DEFAULT_PROP_STRIDE, rw);
  if (p == GST_STAGE_SELECT_PROP_OFFSET)
    return g_param_spec_uint64 (defs[p].name, defs[p].nick, defs[p].blurb,
        0, G_MAXUINT64, DEFAULT_PROP_OFFSET, rw);
  return g_param_spec_string (defs[p].name, defs[p].nick, defs[p].blurb,
      defs[p].default_value, rw);
}

void
gst_stage_select_props_install (GObjectClass * klass, guint first_id,
    GstStageSelectFlags flags)
{
  guint p;

  GST_DEBUG_CATEGORY_INIT (gst_stage_select_props_debug, "stageselectprops",
      0, "frame selection properties");
  g_type_set_qdata (G_OBJECT_CLASS_TYPE (klass), flags_quark (),
      GUINT_TO_POINTER (flags));
  for (p = 0; p < GST_STAGE_SELECT_N_PROPS; p++)
    if (flags & (1u << p))
      g_object_class_install_property (klass, first_id + p, make_pspec (p));
}

void
gst_stage_select_props_init (GstStageSelectProps * props)
{
  props->indices = g_strdup (DEFAULT_PROP_INDICES);
  props->indices_file = g_strdup (DEFAULT_PROP_INDICES_FILE);
  props->ranges = g_strdup (DEFAULT_PROP_RANGES);
  props->stride = DEFAULT_PROP_STRIDE;
  props->offset = DEFAULT_PROP_OFFSET;
}

void
gst_stage_select_props_clear (GstStageSelectProps * props)
{
  g_clear_pointer (&props->indices, g_free);
  g_clear_pointer (&props->indices_file, g_free);
  g_clear_pointer (&props->ranges, g_free);
}

/* Checked now to warn early. An indices file only reaches the debug log:
 * it may legitimately be written between now and start. */
static void
check_when_set (GstObject * owner, guint id, const gchar * s)
{
  gboolean loud = (get_flags (owner) & GST_STAGE_SELECT_WARN_WHEN_SET)
      && id != GST_STAGE_SELECT_PROP_INDICES_FILE;
  GError *err = NULL;

  if (gst_stage_is_unset (s))
    return;
  if (id == GST_STAGE_SELECT_PROP_INDICES)
    stage_select_free (gst_stage_select_from_indices (s, &err));
  else if (id == GST_STAGE_SELECT_PROP_INDICES_FILE)
    stage_select_free (gst_stage_select_from_indices_file (s, &err));
  else
    stage_select_free (gst_stage_select_from_ranges (s, 1, &err));
  if (err && loud)
    g_warning ("%s: %s", GST_OBJECT_NAME (owner), err->message);
  else if (err)
    GST_WARNING_OBJECT (owner, "%s", err->message);
  g_clear_error (&err);
}

static gchar **
string_field (GstStageSelectProps * props, guint id)
{
  switch (id) {
    case GST_STAGE_SELECT_PROP_INDICES:
      return &props->indices;
    case GST_STAGE_SELECT_PROP_INDICES_FILE:
      return &props->indices_file;
    case GST_STAGE_SELECT_PROP_RANGES:
      return &props->ranges;
    default:
      return NULL;
  }
}

gboolean
gst_stage_select_props_set (GstObject * owner, GstStageSelectProps * props,
    guint id, const GValue * value)
{
  gchar **field = string_field (props, id);

  if (field)
    check_when_set (owner, id, g_value_get_string (value));
  else if (id != GST_STAGE_SELECT_PROP_STRIDE
      && id != GST_STAGE_SELECT_PROP_OFFSET)
    return FALSE;
  GST_OBJECT_LOCK (owner);
  if (field) {
    g_free (*field);
    *field = g_value_dup_string (value);
  } else if (id == GST_STAGE_SELECT_PROP_STRIDE) {
    props->stride = g_value_get_uint (value);
  } else {
    props->offset = g_value_get_uint64 (value);
  }
  GST_OBJECT_UNLOCK (owner);
  return TRUE;
}

gboolean
gst_stage_select_props_get (GstObject * owner, GstStageSelectProps * props,
    guint id, GValue * value)
{
  gchar **field = string_field (props, id);

  if (!field && id != GST_STAGE_SELECT_PROP_STRIDE
      && id != GST_STAGE_SELECT_PROP_OFFSET)
    return FALSE;
  GST_OBJECT_LOCK (owner);
  if (field)
    g_value_set_string (value, *field);
  else if (id == GST_STAGE_SELECT_PROP_STRIDE)
    g_value_set_uint (value, props->stride);
  else
    g_value_set_uint64 (value, props->offset);
  GST_OBJECT_UNLOCK (owner);
  return TRUE;
}

/* The values taken at start; unset strings are NULL. */
typedef struct
{
  gchar *text[GST_STAGE_SELECT_PROP_RANGES + 1];
  guint stride;
  guint64 offset;
} Snapshot;

static void
snapshot_take (GstObject * owner, GstStageSelectProps * props, Snapshot * s)
{
  guint p;

  GST_OBJECT_LOCK (owner);
  for (p = 0; p <= GST_STAGE_SELECT_PROP_RANGES; p++) {
    const gchar *v = *string_field (props, p);

    s->text[p] = gst_stage_is_unset (v) ? NULL : g_strdup (v);
  }
  s->stride = props->stride;
  s->offset = props->offset;
  GST_OBJECT_UNLOCK (owner);
}

static void
snapshot_clear (Snapshot * s)
{
  guint p;

  for (p = 0; p <= GST_STAGE_SELECT_PROP_RANGES; p++)
    g_free (s->text[p]);
}

/* Whether property @p is set (not its default); then, when @shown is not
 * NULL, its value as a message shows it (g_free). */
static gboolean
snapshot_is_set (const Snapshot * s, guint p, gchar ** shown)
{
  gboolean set;

  if (p == GST_STAGE_SELECT_PROP_STRIDE)
    set = s->stride != DEFAULT_PROP_STRIDE;
  else if (p == GST_STAGE_SELECT_PROP_OFFSET)
    set = s->offset != DEFAULT_PROP_OFFSET;
  else
    set = s->text[p] != NULL;
  if (!set || shown == NULL)
    return set;
  if (p == GST_STAGE_SELECT_PROP_STRIDE)
    *shown = g_strdup_printf ("%u", s->stride);
  else if (p == GST_STAGE_SELECT_PROP_OFFSET)
    *shown = g_strdup_printf ("%" G_GUINT64_FORMAT, s->offset);
  else
    *shown = gst_stage_quote_value (s->text[p]);
  return TRUE;
}

/* The properties that exclude each other: a list is the selection itself,
 * ranges are walked with the stride from their own starts. */
static const struct
{
  GstStageSelectProp a, b;
  const gchar *hint;
} exclusive[] = {
  {GST_STAGE_SELECT_PROP_INDICES, GST_STAGE_SELECT_PROP_INDICES_FILE, NULL},
  {GST_STAGE_SELECT_PROP_INDICES, GST_STAGE_SELECT_PROP_RANGES, NULL},
  {GST_STAGE_SELECT_PROP_INDICES_FILE, GST_STAGE_SELECT_PROP_RANGES, NULL},
  {GST_STAGE_SELECT_PROP_INDICES, GST_STAGE_SELECT_PROP_STRIDE,
      "list the indices to keep"},
  {GST_STAGE_SELECT_PROP_INDICES, GST_STAGE_SELECT_PROP_OFFSET,
      "list the indices to keep"},
  {GST_STAGE_SELECT_PROP_INDICES_FILE, GST_STAGE_SELECT_PROP_STRIDE,
      "list the indices to keep"},
  {GST_STAGE_SELECT_PROP_INDICES_FILE, GST_STAGE_SELECT_PROP_OFFSET,
      "list the indices to keep"},
  {GST_STAGE_SELECT_PROP_RANGES, GST_STAGE_SELECT_PROP_OFFSET,
      "start the ranges there instead"},
};

static gboolean
check_exclusive (const Snapshot * s, GError ** error)
{
  guint i, a, b;
  gchar *va, *vb;

  for (i = 0; i < G_N_ELEMENTS (exclusive); i++) {
    a = exclusive[i].a;
    b = exclusive[i].b;
    if (!snapshot_is_set (s, a, NULL) || !snapshot_is_set (s, b, NULL))
      continue;
    snapshot_is_set (s, a, &va);
    snapshot_is_set (s, b, &vb);
    gst_stage_set_exclusive_error (error, defs[a].name, va, defs[b].name,
        vb, exclusive[i].hint);
    g_free (va);
    g_free (vb);
    return FALSE;
  }
  return TRUE;
}

/* Values out of the allowed range, checked at start (see the top). */
static gboolean
check_numbers (const Snapshot * s, GError ** error)
{
  return gst_stage_select_check_stride (s->stride, error)
      && gst_stage_check_uint_prop (defs[GST_STAGE_SELECT_PROP_OFFSET].name,
      s->offset, 0, OFFSET_MAX, NULL, error);
}

StageSelect *
gst_stage_select_props_create (GstObject * owner,
    GstStageSelectProps * props, GError ** error)
{
  gchar **text;
  Snapshot s;
  StageSelect *sel = NULL;

  snapshot_take (owner, props, &s);
  text = s.text;
  if (!check_numbers (&s, error) || !check_exclusive (&s, error)) {
    /* refused, named */
  } else if (text[GST_STAGE_SELECT_PROP_INDICES]) {
    sel = gst_stage_select_from_indices (text[GST_STAGE_SELECT_PROP_INDICES],
        error);
  } else if (text[GST_STAGE_SELECT_PROP_INDICES_FILE]) {
    sel = gst_stage_select_from_indices_file
        (text[GST_STAGE_SELECT_PROP_INDICES_FILE], error);
  } else if (text[GST_STAGE_SELECT_PROP_RANGES]) {
    sel = gst_stage_select_from_ranges (text[GST_STAGE_SELECT_PROP_RANGES],
        s.stride, error);
  } else if (get_flags (owner) & GST_STAGE_SELECT_STRIDE) {
    sel = gst_stage_select_from_stride (s.offset, s.stride, error);
  } else {
    /* only a list could select: stagegather */
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Neither property 'indices' nor 'indices-file' is set: nothing to "
        "gather (e.g. indices=\"0,5,7,29\")");
  }
  snapshot_clear (&s);
  return sel;
}

/* Called for every buffer: the ranges text (millions of ranges, maybe) is
 * not touched. Kept frames between ranges, or of a list, are still frames
 * of the input's grid: the nominal rate is the input's divided by the
 * stride, and the frames skipped are gaps. */
guint
gst_stage_select_props_rate_divisor (GstObject * owner,
    GstStageSelectProps * props)
{
  guint stride;

  if (!(get_flags (owner) & GST_STAGE_SELECT_STRIDE))
    return 1;
  GST_OBJECT_LOCK (owner);
  stride = props->stride;
  GST_OBJECT_UNLOCK (owner);
  return CLAMP (stride, 1, STRIDE_MAX);
}

gboolean
gst_stage_select_check_stride (guint stride, GError ** error)
{
  return gst_stage_check_uint_prop (defs[GST_STAGE_SELECT_PROP_STRIDE].name,
      stride, 1, STRIDE_MAX, NULL, error);
}
