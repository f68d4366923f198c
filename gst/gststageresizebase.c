/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: size and caps negotiation shared by the resize elements.
 *
 * The output size comes from, in order: the width/height properties
 * (adjusted by preserve-aspect and only-shrink), then what downstream caps
 * allow, then the input size. Whatever stays free is chosen the way
 * videoscale does it: keep the display aspect ratio (DAR) by picking the
 * missing dimension or, when downstream leaves it open, the output
 * pixel-aspect-ratio (PAR).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageresizebase.h"
#include "gststageutil.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_resize_base_debug);
#define GST_CAT_DEFAULT gst_stage_resize_base_debug

/* -1: not set (internally 0). 0 is not a size and is refused at start. */
#define DEFAULT_PROP_WIDTH -1
#define DEFAULT_PROP_HEIGHT -1
#define DEFAULT_PROP_METHOD STAGE_RESIZE_BILINEAR
#define DEFAULT_PROP_PRESERVE_ASPECT FALSE
#define DEFAULT_PROP_ONLY_SHRINK FALSE

enum
{
  PROP_0,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_METHOD,
  PROP_PRESERVE_ASPECT,
  PROP_ONLY_SHRINK,
};

typedef struct
{
  gint width;
  gint height;
  /* as set, checked by check_settings: width and height keep the last
   * valid value meanwhile */
  gint width_prop, height_prop;
  StageResizeMethod method;
  gboolean preserve_aspect;
  gboolean only_shrink;
  /* The size conflict with downstream was posted: negotiation is retried
   * for every caps event and buffer, the error must go out once. Reset at
   * start, by a size property change and by a negotiation that works. */
  gboolean conflict_posted;
} GstStageResizeBasePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstStageResizeBase, gst_stage_resize_base,
    GST_TYPE_VIDEO_FILTER, G_ADD_PRIVATE (GstStageResizeBase);
    GST_DEBUG_CATEGORY_INIT (gst_stage_resize_base_debug, "stageresizebase", 0,
        "stage resize base class"));

#define PRIV(self) \
  ((GstStageResizeBasePrivate *) \
      gst_stage_resize_base_get_instance_private (GST_STAGE_RESIZE_BASE (self)))

GType
gst_stage_resize_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {STAGE_RESIZE_NEAREST, "Nearest source pixel centre (no filtering)",
        "nearest"},
    {STAGE_RESIZE_BILINEAR,
        "Bilinear, widened when shrinking (antialiased)", "bilinear"},
    {STAGE_RESIZE_AREA, "Exact box average over each output pixel's area",
        "area"},
    {STAGE_RESIZE_BICUBIC,
        "Bicubic (Keys, a=-0.5), widened when shrinking", "bicubic"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstStageResizeMethod", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

StageResizeMethod
gst_stage_resize_base_get_method (GstStageResizeBase * self)
{
  StageResizeMethod method;

  GST_OBJECT_LOCK (self);
  method = PRIV (self)->method;
  GST_OBJECT_UNLOCK (self);
  return method;
}

static gboolean
valid_size (gint v)
{
  return v == -1 || (v >= 1 && v <= STAGE_RESIZE_MAX_SIZE);
}

static gboolean
gst_stage_resize_base_check_settings (GstStageResizeBase * self,
    GError ** error)
{
  GstStageResizeBasePrivate *priv = PRIV (self);
  gint w, h;

  GST_OBJECT_LOCK (self);
  w = priv->width_prop;
  h = priv->height_prop;
  GST_OBJECT_UNLOCK (self);
  if (!valid_size (w))
    return gst_stage_check_int_prop ("width", w, 1, STAGE_RESIZE_MAX_SIZE,
        "(or -1: from downstream caps or the input)", error);
  if (!valid_size (h))
    return gst_stage_check_int_prop ("height", h, 1, STAGE_RESIZE_MAX_SIZE,
        "(or -1: from downstream caps or the input)", error);
  return TRUE;
}

/* Posts the error of a bad property value; FALSE then. */
static gboolean
settings_ok (GstBaseTransform * trans)
{
  GstStageResizeBaseClass *klass = GST_STAGE_RESIZE_BASE_GET_CLASS (trans);
  GError *err = NULL;

  if (klass->check_settings == NULL
      || klass->check_settings (GST_STAGE_RESIZE_BASE (trans), &err))
    return TRUE;
  return gst_stage_post_settings_error (GST_ELEMENT (trans), err);
}

static void
gst_stage_resize_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageResizeBasePrivate *priv = PRIV (object);
  gboolean resize = TRUE;

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_WIDTH:
      /* a bad size is refused by check_settings, at start or at the next
       * buffer; until then the last valid one stays */
      priv->width_prop = g_value_get_int (value);
      resize = valid_size (priv->width_prop);
      if (resize)
        priv->width = MAX (priv->width_prop, 0);
      break;
    case PROP_HEIGHT:
      priv->height_prop = g_value_get_int (value);
      resize = valid_size (priv->height_prop);
      if (resize)
        priv->height = MAX (priv->height_prop, 0);
      break;
    case PROP_PRESERVE_ASPECT:
      priv->preserve_aspect = g_value_get_boolean (value);
      break;
    case PROP_ONLY_SHRINK:
      priv->only_shrink = g_value_get_boolean (value);
      break;
    case PROP_METHOD:
      /* Picked up by the next frame, no renegotiation needed. */
      priv->method = g_value_get_enum (value);
      resize = FALSE;
      break;
    default:
      resize = FALSE;
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (resize)
    priv->conflict_posted = FALSE;
  GST_OBJECT_UNLOCK (object);

  /* A new target size while playing: ask for new output caps. */
  if (resize)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (object));
}

static void
gst_stage_resize_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStageResizeBasePrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_WIDTH:
      g_value_set_int (value, priv->width_prop);
      break;
    case PROP_HEIGHT:
      g_value_set_int (value, priv->height_prop);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, priv->method);
      break;
    case PROP_PRESERVE_ASPECT:
      g_value_set_boolean (value, priv->preserve_aspect);
      break;
    case PROP_ONLY_SHRINK:
      g_value_set_boolean (value, priv->only_shrink);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

/* The largest value an int field can take (an int, a range or a list of
 * them), or STAGE_RESIZE_MAX_SIZE when it is absent or open. */
static gint
value_max (const GValue * v)
{
  gint m = 0;
  guint i;

  if (v == NULL)
    return STAGE_RESIZE_MAX_SIZE;
  if (G_VALUE_HOLDS_INT (v))
    return g_value_get_int (v);
  if (GST_VALUE_HOLDS_INT_RANGE (v))
    return gst_value_get_int_range_max (v);
  if (GST_VALUE_HOLDS_LIST (v)) {
    for (i = 0; i < gst_value_list_get_size (v); i++)
      m = MAX (m, value_max (gst_value_list_get_value (v, i)));
    return m > 0 ? m : STAGE_RESIZE_MAX_SIZE;
  }
  return STAGE_RESIZE_MAX_SIZE;
}

static gint
field_max (const GstStructure * s, const gchar * name)
{
  return value_max (gst_structure_get_value (s, name));
}

/* An output dimension the properties leave for the input @in_max: the set
 * size itself when nothing can change it, else 1..the largest it can be
 * (only-shrink never goes past the input; preserve-aspect with both sizes
 * fits inside them). */
static void
set_out_dimension (GstStructure * s, const gchar * name, gint prop,
    gboolean exact, gboolean only_shrink, gint in_max)
{
  gint hi = STAGE_RESIZE_MAX_SIZE;

  if (prop && exact && !only_shrink) {
    gst_structure_set (s, name, G_TYPE_INT, prop, NULL);
    return;
  }
  /* only-shrink gives the set size or the input's, never more than the
   * input */
  if (only_shrink)
    hi = in_max;
  else if (prop)
    hi = prop;
  hi = CLAMP (hi, 1, STAGE_RESIZE_MAX_SIZE);
  if (hi == 1)
    gst_structure_set (s, name, G_TYPE_INT, 1, NULL);
  else
    gst_structure_set (s, name, GST_TYPE_INT_RANGE, 1, hi, NULL);
}

/* Any PAR; sizes as the properties allow. Upstream of us any size will do;
 * downstream sees only the sizes the properties can give, so a downstream
 * that insists on another one fails to link (gst-launch-1.0 reports it
 * before starting) rather than at the first buffer. The exact size is
 * chosen in fixate_caps. */
static GstCaps *
gst_stage_resize_base_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstStageResizeBasePrivate *priv = PRIV (trans);
  GstCaps *ret = gst_caps_new_empty ();
  guint i, n = gst_caps_get_size (caps);
  gint pw, ph;
  gboolean preserve, only_shrink;

  GST_OBJECT_LOCK (trans);
  pw = priv->width;
  ph = priv->height;
  preserve = priv->preserve_aspect;
  only_shrink = priv->only_shrink;
  GST_OBJECT_UNLOCK (trans);

  for (i = 0; i < n; i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    gint in_w = field_max (s, "width"), in_h = field_max (s, "height");

    if (i > 0 && gst_caps_is_subset_structure_full (ret, s, f))
      continue;
    s = gst_structure_copy (s);
    if (direction == GST_PAD_SINK) {
      /* with preserve-aspect a size is exact only when the other is
       * derived from it */
      set_out_dimension (s, "width", pw, !preserve || !ph, only_shrink, in_w);
      set_out_dimension (s, "height", ph, !preserve || !pw, only_shrink,
          in_h);
    } else {
      gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1,
          STAGE_RESIZE_MAX_SIZE, "height", GST_TYPE_INT_RANGE, 1,
          STAGE_RESIZE_MAX_SIZE, NULL);
    }
    if (gst_structure_has_field (s, "pixel-aspect-ratio"))
      gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE, 1,
          G_MAXINT, G_MAXINT, 1, NULL);
    gst_caps_append_structure_full (ret, s, gst_caps_features_copy (f));
  }

  ret = gst_stage_caps_filter (ret, filter);
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps,
      ret);
  return ret;
}

static void
get_par (GstStructure * s, gint * n, gint * d)
{
  if (!gst_structure_get_fraction (s, "pixel-aspect-ratio", n, d)) {
    *n = 1;
    *d = 1;
  }
}

/* Sets a fixed PAR in outs when it is still open, nearest to n/d. */
static void
fixate_par (GstStructure * outs, gint n, gint d)
{
  const GValue *v = gst_structure_get_value (outs, "pixel-aspect-ratio");

  if (v && !gst_value_is_fixed (v))
    gst_structure_fixate_field_nearest_fraction (outs, "pixel-aspect-ratio",
        n, d);
}

/* The input's DAR divided by out_par: the width / height ratio, in output
 * pixels, of a picture with that DAR (as n/d). */
static void
picture_ratio (gint w, gint h, gint in_par_n, gint in_par_d, gint out_par_n,
    gint out_par_d, gint * n, gint * d)
{
  gint dn, dd;

  if (!gst_util_fraction_multiply (w, h, in_par_n, in_par_d, &dn, &dd) ||
      !gst_util_fraction_multiply (dn, dd, out_par_d, out_par_n, n, d)) {
    *n = w;
    *d = h;
  }
}

/* Properties' demand on a w x h input, into *tw, *th (0 = not decided by
 * the properties). Fixes the output PAR in outs when preserve-aspect needs
 * it. Called with the object lock not held. */
static void
property_target (GstStageResizeBase * self, GstStructure * outs, gint w,
    gint h, gint par_n, gint par_d, gint * tw, gint * th)
{
  GstStageResizeBasePrivate *priv = PRIV (self);
  gint pw, ph, rn, rd, opar_n, opar_d;
  gboolean preserve, only_shrink;

  GST_OBJECT_LOCK (self);
  pw = priv->width;
  ph = priv->height;
  preserve = priv->preserve_aspect;
  only_shrink = priv->only_shrink;
  GST_OBJECT_UNLOCK (self);

  *tw = pw;
  *th = ph;
  if (preserve) {
    /* Keep the picture's shape by choosing the size: keep the input PAR
     * when downstream allows it, then derive the missing dimension. */
    if (outs) {
      fixate_par (outs, par_n, par_d);
      get_par (outs, &opar_n, &opar_d);
    } else {
      opar_n = par_n;
      opar_d = par_d;
    }
    picture_ratio (w, h, par_n, par_d, opar_n, opar_d, &rn, &rd);
    if (pw && ph) {
      /* Both given: fit inside the pw x ph box. */
      if ((gint64) pw * rd > (gint64) ph * rn)
        *tw = 0;
      else
        *th = 0;
    }
    if (*tw && !*th)
      *th = MAX (1, (gint) gst_util_uint64_scale_int_round (*tw, rd, rn));
    else if (*th && !*tw)
      *tw = MAX (1, (gint) gst_util_uint64_scale_int_round (*th, rn, rd));
  }
  if (only_shrink && ((*tw && *tw > w) || (*th && *th > h))) {
    /* Scanner's `min`: a target larger than the input keeps the input. */
    *tw = w;
    *th = h;
  }
}

/* Fixes @field of a copy of @outs to the value nearest @want, returns it. */
static gint
nearest_int (GstStructure * outs, const gchar * field, gint want)
{
  GstStructure *tmp = gst_structure_copy (outs);
  gint v = 0;

  gst_structure_fixate_field_nearest_int (tmp, field, want);
  gst_structure_get_int (tmp, field, &v);
  gst_structure_free (tmp);
  return v;
}

/* The PAR nearest @n/@d that @outs allows (an absent PAR allows any). */
static void
nearest_par (GstStructure * outs, gint n, gint d, gint * rn, gint * rd)
{
  GstStructure *tmp = gst_structure_copy (outs);

  if (!gst_structure_has_field (tmp, "pixel-aspect-ratio"))
    gst_structure_set (tmp, "pixel-aspect-ratio", GST_TYPE_FRACTION, n, d,
        NULL);
  gst_structure_fixate_field_nearest_fraction (tmp, "pixel-aspect-ratio", n,
      d);
  if (!gst_structure_get_fraction (tmp, "pixel-aspect-ratio", rn, rd)) {
    *rn = n;
    *rd = d;
  }
  gst_structure_free (tmp);
}

/* Sets the chosen output PAR; an absent PAR stays absent when square. */
static void
set_par (GstStructure * outs, gint n, gint d)
{
  if (gst_structure_has_field (outs, "pixel-aspect-ratio") || n != d)
    gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION, n, d,
        NULL);
}

/* One dimension fixed (@fixed of the @fixed_field), PAR open: keep the
 * other input dimension and adapt the PAR to keep the DAR; if downstream
 * refuses that PAR, take the nearest one it allows and size the other
 * dimension for it. @dar_n/@dar_d: input DAR. */
static void
fixate_other_dimension (GstStructure * outs, gboolean height_fixed,
    gint fixed, gint from_other, gint dar_n, gint dar_d)
{
  const gchar *other = height_fixed ? "width" : "height";
  gint set = nearest_int (outs, other, from_other), pn, pd, sn, sd, n, d;

  /* DAR = w / h * PAR, so PAR = DAR * h / w */
  if (height_fixed ? !gst_util_fraction_multiply (dar_n, dar_d, fixed, set,
          &pn, &pd) : !gst_util_fraction_multiply (dar_n, dar_d, set, fixed,
          &pn, &pd))
    return;
  nearest_par (outs, pn, pd, &sn, &sd);
  if (sn == pn && sd == pd) {
    gst_structure_set (outs, other, G_TYPE_INT, set, NULL);
    set_par (outs, sn, sd);
    return;
  }
  if (!gst_util_fraction_multiply (dar_n, dar_d, sd, sn, &n, &d))
    return;
  gst_structure_fixate_field_nearest_int (outs, other, height_fixed ?
      (gint) gst_util_uint64_scale_int_round (fixed, n, d) :
      (gint) gst_util_uint64_scale_int_round (fixed, d, n));
  set_par (outs, sn, sd);
}

/* Neither dimension fixed, PAR fixed at @par_n/@par_d: keep the input
 * height if the width for the DAR is allowed, else the input width if the
 * height for the DAR is, else the nearest height and width (DAR lost). */
static void
fixate_both_par_fixed (GstStructure * outs, gint from_w, gint from_h,
    gint dar_n, gint dar_d, gint par_n, gint par_d)
{
  gint n, d, set_w, set_h, w, h, first_w, first_h;

  /* width / height = DAR / PAR */
  if (!gst_util_fraction_multiply (dar_n, dar_d, par_d, par_n, &n, &d))
    return;
  set_h = nearest_int (outs, "height", from_h);
  w = (gint) gst_util_uint64_scale_int_round (set_h, n, d);
  set_w = nearest_int (outs, "width", w);
  if (set_w == w)
    goto done;
  first_w = set_w;
  first_h = set_h;

  set_w = nearest_int (outs, "width", from_w);
  h = (gint) gst_util_uint64_scale_int_round (set_w, d, n);
  set_h = nearest_int (outs, "height", h);
  if (set_h == h)
    goto done;
  set_w = first_w;
  set_h = first_h;

done:
  gst_structure_set (outs, "width", G_TYPE_INT, set_w, "height", G_TYPE_INT,
      set_h, NULL);
}

/* Neither dimension nor PAR fixed: keep the input size and adapt the PAR;
 * else, with the nearest PAR allowed, adapt the width, else the height,
 * else take the nearest of everything (DAR lost). */
static void
fixate_all_free (GstStructure * outs, gint from_w, gint from_h, gint dar_n,
    gint dar_d)
{
  gint set_w = nearest_int (outs, "width", from_w);
  gint set_h = nearest_int (outs, "height", from_h);
  gint pn, pd, sn, sd, n, d, w, h, got;

  if (!gst_util_fraction_multiply (dar_n, dar_d, set_h, set_w, &pn, &pd))
    return;
  nearest_par (outs, pn, pd, &sn, &sd);
  if (sn != pn || sd != pd) {
    if (!gst_util_fraction_multiply (dar_n, dar_d, sd, sn, &n, &d))
      return;
    w = (gint) gst_util_uint64_scale_int_round (set_h, n, d);
    h = (gint) gst_util_uint64_scale_int_round (set_w, d, n);
    if ((got = nearest_int (outs, "width", w)) == w)
      set_w = got;
    else if ((got = nearest_int (outs, "height", h)) == h)
      set_h = got;
  }
  gst_structure_set (outs, "width", G_TYPE_INT, set_w, "height", G_TYPE_INT,
      set_h, NULL);
  set_par (outs, sn, sd);
}

/* videoscale's rules for whatever the properties left open: keep the
 * display aspect ratio (DAR), preferring to keep the input height, then its
 * width, adapting the PAR where downstream leaves it open. An absent output
 * PAR is open when fixating the output, 1/1 when fixating the input. */
static void
fixate_free_dimensions (GstStructure * outs, GstPadDirection direction,
    gint from_w, gint from_h, gint from_par_n, gint from_par_d)
{
  gint w = 0, h = 0, par_n = 1, par_d = 1, dar_n, dar_d;
  const GValue *par = gst_structure_get_value (outs, "pixel-aspect-ratio");
  gboolean par_fixed;

  if (!par && direction == GST_PAD_SRC)
    gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
        NULL);
  par = gst_structure_get_value (outs, "pixel-aspect-ratio");
  par_fixed = par && gst_value_is_fixed (par);
  if (par_fixed) {
    par_n = gst_value_get_fraction_numerator (par);
    par_d = gst_value_get_fraction_denominator (par);
  }
  gst_structure_get_int (outs, "width", &w);
  gst_structure_get_int (outs, "height", &h);

  if (w && h) {
    gint n, d;

    if (!par_fixed && gst_video_calculate_display_ratio ((guint *) & n,
            (guint *) & d, from_w, from_h, from_par_n, from_par_d, w, h)) {
      if (par)
        gst_structure_fixate_field_nearest_fraction (outs,
            "pixel-aspect-ratio", n, d);
      else if (n != d)
        gst_structure_set (outs, "pixel-aspect-ratio", GST_TYPE_FRACTION, n,
            d, NULL);
    }
    return;
  }
  if (!gst_util_fraction_multiply (from_w, from_h, from_par_n, from_par_d,
          &dar_n, &dar_d))
    return;

  if ((h || w) && par_fixed) {
    /* The other dimension follows from the DAR and the PAR. */
    gint n, d;

    if (!gst_util_fraction_multiply (dar_n, dar_d, par_d, par_n, &n, &d))
      return;
    if (h)
      gst_structure_fixate_field_nearest_int (outs, "width",
          (gint) gst_util_uint64_scale_int_round (h, n, d));
    else
      gst_structure_fixate_field_nearest_int (outs, "height",
          (gint) gst_util_uint64_scale_int_round (w, d, n));
  } else if (h || w) {
    fixate_other_dimension (outs, h != 0, h ? h : w, h ? from_w : from_h,
        dar_n, dar_d);
  } else if (par_fixed) {
    fixate_both_par_fixed (outs, from_w, from_h, dar_n, dar_d, par_n, par_d);
  } else {
    fixate_all_free (outs, from_w, from_h, dar_n, dar_d);
  }
}

static GstCaps *
gst_stage_resize_base_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstStageResizeBase *self = GST_STAGE_RESIZE_BASE (trans);
  GstStructure *ins, *outs;
  gint from_w = 0, from_h = 0, par_n, par_d, tw = 0, th = 0;

  ins = gst_caps_get_structure (caps, 0);
  gst_structure_get_int (ins, "width", &from_w);
  gst_structure_get_int (ins, "height", &from_h);
  get_par (ins, &par_n, &par_d);

  /* The properties describe the output, so they only apply when the
   * output is what is being fixed. */
  if (direction == GST_PAD_SINK && from_w > 0 && from_h > 0)
    property_target (self, NULL, from_w, from_h, par_n, par_d, &tw, &th);
  if (!tw && !th) {
    /* As videoscale: the input caps themselves when downstream takes them
     * (no resize), else the first structure downstream prefers. */
    GstCaps *same = gst_caps_intersect (othercaps, caps);

    if (!gst_caps_is_empty (same)) {
      gst_caps_unref (othercaps);
      othercaps = same;
    } else {
      gst_caps_unref (same);
    }
  }
  othercaps = gst_caps_make_writable (gst_caps_truncate (othercaps));
  outs = gst_caps_get_structure (othercaps, 0);

  if (from_w > 0 && from_h > 0) {
    if (direction == GST_PAD_SINK) {
      property_target (self, outs, from_w, from_h, par_n, par_d, &tw, &th);
      if (tw)
        gst_structure_fixate_field_nearest_int (outs, "width", tw);
      if (th)
        gst_structure_fixate_field_nearest_int (outs, "height", th);
    }
    fixate_free_dimensions (outs, direction, from_w, from_h, par_n, par_d);
  }
  othercaps = gst_caps_fixate (othercaps);
  GST_DEBUG_OBJECT (self, "fixated to %" GST_PTR_FORMAT, othercaps);
  return othercaps;
}

/* TRUE for the one caller that gets to post the size conflict: GstPad
 * retries a refused caps event before every buffer, and another thread (a
 * reconfigure) may negotiate at the same time. */
static gboolean
note_conflict (GstStageResizeBase * self)
{
  GstStageResizeBasePrivate *priv = PRIV (self);
  gboolean first;

  GST_OBJECT_LOCK (self);
  first = !priv->conflict_posted;
  priv->conflict_posted = TRUE;
  GST_OBJECT_UNLOCK (self);
  return first;
}

static gboolean
gst_stage_resize_base_start (GstBaseTransform * trans)
{
  if (!settings_ok (trans))
    return FALSE;
  GST_OBJECT_LOCK (trans);
  PRIV (trans)->conflict_posted = FALSE;
  GST_OBJECT_UNLOCK (trans);
  return TRUE;
}

/* A src pad linked to nothing (a '!' missing on a gst-launch line) makes
 * any size "not what downstream requires": say what is wrong instead.
 * TRUE when that was the case (the error is posted). */
static gboolean
report_unlinked (GstStageResizeBase * self)
{
  GstPad *src = GST_BASE_TRANSFORM_SRC_PAD (self);

  if (gst_pad_is_linked (src))
    return FALSE;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("%s's src pad is not linked: nothing downstream takes its output.",
          GST_OBJECT_NAME (self)),
      ("Link it to the next element (on a gst-launch-1.0 line, a '!' "
          "between %s and the element after it may be missing).",
          GST_OBJECT_NAME (self)));
  return TRUE;
}

/* Called when caps @incaps could not be negotiated. When the reason is
 * the size the properties ask for (downstream would take some size, but
 * none of those), posts the error that says so, once, and returns TRUE;
 * otherwise (a format downstream refuses, say) leaves the report to
 * GStreamer and returns FALSE. */
static gboolean
explain_size_conflict (GstBaseTransform * trans, GstCaps * incaps)
{
  GstStageResizeBase *self = GST_STAGE_RESIZE_BASE (trans);
  GstStageResizeBasePrivate *priv = PRIV (self);
  GstCaps *ours, *any_size, *peer;
  GstVideoInfo in;
  gboolean size_only, only_shrink, preserve;
  gint tw, th, pw, ph, dw = 0, dh = 0;
  gchar *wanted;

  if (incaps == NULL || !gst_video_info_from_caps (&in, incaps))
    return FALSE;
  peer = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans), NULL);
  ours = gst_stage_resize_base_transform_caps (trans, GST_PAD_SINK, incaps,
      NULL);
  any_size = gst_caps_copy (incaps);
  gst_caps_set_simple (any_size, "width", GST_TYPE_INT_RANGE, 1,
      STAGE_RESIZE_MAX_SIZE, "height", GST_TYPE_INT_RANGE, 1,
      STAGE_RESIZE_MAX_SIZE, NULL);
  gst_caps_set_features_simple (any_size, NULL);
  size_only = !gst_caps_can_intersect (ours, peer)
      && gst_caps_can_intersect (any_size, peer);
  if (size_only && gst_caps_get_size (peer) > 0) {
    GstStructure *ps = gst_caps_get_structure (peer, 0);

    gst_structure_get_int (ps, "width", &dw);
    gst_structure_get_int (ps, "height", &dh);
  }
  wanted = dw > 0 && dh > 0 ? g_strdup_printf ("requires %dx%d", dw, dh)
      : gst_caps_to_string (peer);
  gst_caps_unref (ours);
  gst_caps_unref (any_size);
  gst_caps_unref (peer);
  if (!size_only || !note_conflict (self)) {
    g_free (wanted);
    return size_only;
  }
  if (report_unlinked (self)) {
    g_free (wanted);
    return TRUE;
  }

  property_target (self, NULL, GST_VIDEO_INFO_WIDTH (&in),
      GST_VIDEO_INFO_HEIGHT (&in), GST_VIDEO_INFO_PAR_N (&in),
      GST_VIDEO_INFO_PAR_D (&in), &tw, &th);
  GST_OBJECT_LOCK (self);
  pw = priv->width;
  ph = priv->height;
  only_shrink = priv->only_shrink;
  preserve = priv->preserve_aspect;
  GST_OBJECT_UNLOCK (self);
  if (only_shrink && dw > 0 && dh > 0 && (dw > GST_VIDEO_INFO_WIDTH (&in) ||
          dh > GST_VIDEO_INFO_HEIGHT (&in)))
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("only-shrink=true but downstream requires %dx%d, larger than the "
            "%dx%d input.", dw, dh, GST_VIDEO_INFO_WIDTH (&in),
            GST_VIDEO_INFO_HEIGHT (&in)),
        ("Remove only-shrink or let downstream accept a smaller size."));
  else
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("width=%d height=%d (preserve-aspect=%s, only-shrink=%s) on a "
            "%dx%d input cannot give a size downstream accepts: downstream "
            "%s.", pw ? pw : -1, ph ? ph : -1, preserve ? "true" : "false",
            only_shrink ? "true" : "false", GST_VIDEO_INFO_WIDTH (&in),
            GST_VIDEO_INFO_HEIGHT (&in), wanted),
        ("Set width/height to -1 to follow downstream caps, or relax the "
            "downstream caps filter."));
  g_free (wanted);
  return TRUE;
}

/* A size conflict is reported once, by us, with what to change. Upstream
 * must not report it a second time: a refused caps event or a
 * not-negotiated flow makes the source post its own "Internal data stream
 * error" too, and two errors while prerolling make gst-launch-1.0
 * sometimes never exit. So once ours is posted the caps event is taken
 * (no output caps are set) and buffers are refused with FLUSHING, which
 * stops upstream quietly while the application tears the pipeline down
 * on our error. A new size property or a caps event that negotiates
 * clears the conflict. */
static gboolean
conflict_posted (GstBaseTransform * trans)
{
  gboolean posted;

  GST_OBJECT_LOCK (trans);
  posted = PRIV (trans)->conflict_posted;
  GST_OBJECT_UNLOCK (trans);
  return posted;
}

static gboolean
gst_stage_resize_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstEventType type = GST_EVENT_TYPE (event);
  GstCaps *caps = NULL;
  gboolean ret;

  /* the stream failed: sinks must not preroll on its end */
  if (type == GST_EVENT_EOS && conflict_posted (trans)) {
    gst_event_unref (event);
    return TRUE;
  }
  if (type == GST_EVENT_CAPS) {
    gst_event_parse_caps (event, &caps);
    gst_caps_ref (caps);
  }
  ret = GST_BASE_TRANSFORM_CLASS (gst_stage_resize_base_parent_class)
      ->sink_event (trans, event);
  if (!ret && caps && (conflict_posted (trans)
          || explain_size_conflict (trans, caps)))
    ret = TRUE;
  if (caps)
    gst_caps_unref (caps);
  return ret;
}

static GstFlowReturn
gst_stage_resize_base_submit_input_buffer (GstBaseTransform * trans,
    gboolean discont, GstBuffer * buf)
{
  GstFlowReturn ret;

  if (conflict_posted (trans)) {
    gst_buffer_unref (buf);
    return GST_FLOW_FLUSHING;
  }
  /* width, height and the subclass' may change while playing */
  if (!settings_ok (trans)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  ret = GST_BASE_TRANSFORM_CLASS (gst_stage_resize_base_parent_class)
      ->submit_input_buffer (trans, discont, buf);
  /* a renegotiation (reconfigure) just ran into the conflict */
  if (ret == GST_FLOW_NOT_NEGOTIATED) {
    GstCaps *caps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD
        (trans));

    if (conflict_posted (trans) || explain_size_conflict (trans, caps))
      ret = GST_FLOW_FLUSHING;
    if (caps)
      gst_caps_unref (caps);
  }
  return ret;
}

/* Refuses an output size that contradicts the properties: downstream
 * insisted on something else. The error is posted once per conflict. */
static gboolean
check_size (GstStageResizeBase * self, const GstVideoInfo * in,
    const GstVideoInfo * out)
{
  GstStageResizeBasePrivate *priv = PRIV (self);
  gint iw = GST_VIDEO_INFO_WIDTH (in), ih = GST_VIDEO_INFO_HEIGHT (in);
  gint ow = GST_VIDEO_INFO_WIDTH (out), oh = GST_VIDEO_INFO_HEIGHT (out);
  gint tw, th, pw, ph;
  gboolean only_shrink, preserve, posted;

  property_target (self, NULL, iw, ih, GST_VIDEO_INFO_PAR_N (in),
      GST_VIDEO_INFO_PAR_D (in), &tw, &th);
  GST_OBJECT_LOCK (self);
  pw = priv->width;
  ph = priv->height;
  only_shrink = priv->only_shrink;
  preserve = priv->preserve_aspect;
  posted = priv->conflict_posted;
  GST_OBJECT_UNLOCK (self);

  if (only_shrink && (ow > iw || oh > ih)) {
    if (posted || !note_conflict (self))
      return FALSE;
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("only-shrink=true but downstream requires %dx%d, larger than the "
            "%dx%d input.", ow, oh, iw, ih),
        ("Remove only-shrink or let downstream accept a smaller size."));
    return FALSE;
  }
  /* With preserve-aspect the derived dimension may round differently when
   * downstream fixes the PAR; only the requested ones must match. */
  if (preserve && !only_shrink) {
    if ((pw && ph && (ow > pw || oh > ph || (ow != pw && oh != ph))) ||
        (pw && !ph && ow != pw) || (ph && !pw && oh != ph))
      goto mismatch;
  } else if ((tw && ow != tw) || (th && oh != th)) {
    goto mismatch;
  }
  return TRUE;

mismatch:
  if (posted || !note_conflict (self))
    return FALSE;
  if (report_unlinked (self))
    return FALSE;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("width=%d height=%d (preserve-aspect=%s, only-shrink=%s) asks for "
          "%dx%d but downstream requires %dx%d.", pw ? pw : -1, ph ? ph : -1,
          preserve ? "true" : "false", only_shrink ? "true" : "false",
          tw ? tw : ow, th ? th : oh, ow, oh),
      ("Set width/height to -1 to follow downstream caps, or relax the "
          "downstream caps filter."));
  return FALSE;
}

static gboolean
gst_stage_resize_base_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstStageResizeBase *self = GST_STAGE_RESIZE_BASE (filter);
  gboolean same;

  if (GST_VIDEO_INFO_FORMAT (in_info) != GST_VIDEO_INFO_FORMAT (out_info)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Input and output formats differ (%s vs %s).",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)),
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (out_info))),
        ("stageresize does not convert formats; add videoconvert."));
    return FALSE;
  }
  /* The pad templates say which interlace modes an element takes; fields
   * need at least one line each. */
  if (GST_VIDEO_INFO_IS_INTERLACED (in_info) &&
      (GST_VIDEO_INFO_HEIGHT (in_info) < 4 ||
          GST_VIDEO_INFO_HEIGHT (out_info) < 4)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Interlaced video of %dx%d to %dx%d: each field needs at least two "
            "lines.", GST_VIDEO_INFO_WIDTH (in_info),
            GST_VIDEO_INFO_HEIGHT (in_info), GST_VIDEO_INFO_WIDTH (out_info),
            GST_VIDEO_INFO_HEIGHT (out_info)),
        ("Deinterlace first, or resize to 4 lines or more."));
    return FALSE;
  }
  if (!check_size (self, in_info, out_info))
    return FALSE;
  GST_OBJECT_LOCK (self);
  PRIV (self)->conflict_posted = FALSE;
  GST_OBJECT_UNLOCK (self);

  same = GST_VIDEO_INFO_WIDTH (in_info) == GST_VIDEO_INFO_WIDTH (out_info) &&
      GST_VIDEO_INFO_HEIGHT (in_info) == GST_VIDEO_INFO_HEIGHT (out_info);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (filter), same);
  GST_DEBUG_OBJECT (self, "%dx%d -> %dx%d%s", GST_VIDEO_INFO_WIDTH (in_info),
      GST_VIDEO_INFO_HEIGHT (in_info), GST_VIDEO_INFO_WIDTH (out_info),
      GST_VIDEO_INFO_HEIGHT (out_info), same ? " (passthrough)" : "");
  return TRUE;
}

static void
gst_stage_resize_base_class_init (GstStageResizeBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_stage_resize_base_set_property;
  gobject_class->get_property = gst_stage_resize_base_get_property;

  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_int ("width", "Width",
          "Output width in pixels (-1 = from downstream caps, or derived by "
          "preserve-aspect, or the input width); -1 or 1 to 32768, others "
          "are an error at start or at the next frame", G_MININT, G_MAXINT,
          DEFAULT_PROP_WIDTH, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_int ("height", "Height",
          "Output height in pixels (-1 = from downstream caps, or derived by "
          "preserve-aspect, or the input height); -1 or 1 to 32768, others "
          "are an error at start or at the next frame", G_MININT, G_MAXINT,
          DEFAULT_PROP_HEIGHT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method",
          "Resampling filter", GST_TYPE_STAGE_RESIZE_METHOD,
          DEFAULT_PROP_METHOD, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_PRESERVE_ASPECT,
      g_param_spec_boolean ("preserve-aspect", "Preserve aspect",
          "Keep the picture's display aspect ratio (with the input's pixel "
          "aspect ratio where downstream allows it) by choosing the size: "
          "derive the dimension left at -1 from the other one, or fit inside "
          "width x height when both are set", DEFAULT_PROP_PRESERVE_ASPECT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_ONLY_SHRINK,
      g_param_spec_boolean ("only-shrink", "Only shrink",
          "Never enlarge (Scanner's min): when the requested size is larger "
          "than the input in either dimension, keep the input size",
          DEFAULT_PROP_ONLY_SHRINK, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_stage_resize_base_transform_caps);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_stage_resize_base_fixate_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_stage_resize_base_start);
  klass->check_settings =
      GST_DEBUG_FUNCPTR (gst_stage_resize_base_check_settings);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_stage_resize_base_sink_event);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_stage_resize_base_submit_input_buffer);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_stage_resize_base_set_info);

  gst_type_mark_as_plugin_api (GST_TYPE_STAGE_RESIZE_BASE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_STAGE_RESIZE_METHOD, 0);
}

static void
gst_stage_resize_base_init (GstStageResizeBase * self)
{
  GstStageResizeBasePrivate *priv = PRIV (self);

  priv->width = 0;              /* DEFAULT_PROP_WIDTH: not set */
  priv->height = 0;             /* DEFAULT_PROP_HEIGHT: not set */
  priv->width_prop = DEFAULT_PROP_WIDTH;
  priv->height_prop = DEFAULT_PROP_HEIGHT;
  priv->method = DEFAULT_PROP_METHOD;
  priv->preserve_aspect = DEFAULT_PROP_PRESERVE_ASPECT;
  priv->only_shrink = DEFAULT_PROP_ONLY_SHRINK;
}
