/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: helpers shared by the frame-counting elements. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststageutil.h"
#include "stagestore.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* Longest part of a property value quoted in a message, in bytes */
#define QUOTED_VALUE_MAX 80

static void
scale_fraction (gint n, gint d, gint mul_n, gint mul_d, gint * rn, gint * rd)
{
  if (gst_util_fraction_multiply (n, d, mul_n, mul_d, rn, rd))
    return;
  if (mul_n > mul_d) {
    *rn = G_MAXINT;
    *rd = 1;
  } else {
    gst_util_double_to_fraction ((gdouble) n / d * mul_n / mul_d, rn, rd);
  }
}

void
gst_stage_scale_framerate (const GValue * in, GValue * out, gint mul_n,
    gint mul_d)
{
  gint n1, d1, n2, d2;

  if (GST_VALUE_HOLDS_FRACTION (in)) {
    scale_fraction (gst_value_get_fraction_numerator (in),
        gst_value_get_fraction_denominator (in), mul_n, mul_d, &n1, &d1);
    g_value_init (out, GST_TYPE_FRACTION);
    gst_value_set_fraction (out, n1, d1);
  } else if (GST_VALUE_HOLDS_FRACTION_RANGE (in)) {
    const GValue *lo = gst_value_get_fraction_range_min (in);
    const GValue *hi = gst_value_get_fraction_range_max (in);

    scale_fraction (gst_value_get_fraction_numerator (lo),
        gst_value_get_fraction_denominator (lo), mul_n, mul_d, &n1, &d1);
    scale_fraction (gst_value_get_fraction_numerator (hi),
        gst_value_get_fraction_denominator (hi), mul_n, mul_d, &n2, &d2);
    if (gst_util_fraction_compare (n1, d1, n2, d2) < 0) {
      g_value_init (out, GST_TYPE_FRACTION_RANGE);
      gst_value_set_fraction_range_full (out, n1, d1, n2, d2);
    } else {
      /* saturation collapsed the range */
      g_value_init (out, GST_TYPE_FRACTION);
      gst_value_set_fraction (out, n1, d1);
    }
  } else if (GST_VALUE_HOLDS_LIST (in)) {
    guint i, n = gst_value_list_get_size (in);

    g_value_init (out, GST_TYPE_LIST);
    for (i = 0; i < n; i++) {
      GValue v = G_VALUE_INIT;

      gst_stage_scale_framerate (gst_value_list_get_value (in, i), &v,
          mul_n, mul_d);
      gst_value_list_append_and_take_value (out, &v);
    }
  } else {
    g_value_init (out, G_VALUE_TYPE (in));
    g_value_copy (in, out);
  }
}

GstCaps *
gst_stage_caps_scale_framerate (GstCaps * caps, gint mul_n, gint mul_d)
{
  GstCaps *ret;
  guint i, n;

  if (gst_caps_is_any (caps))
    return gst_caps_new_any ();
  ret = gst_caps_new_empty ();
  n = gst_caps_get_size (caps);
  for (i = 0; i < n; i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    const GValue *rate = gst_structure_get_value (s, "framerate");

    if (rate != NULL) {
      GValue out = G_VALUE_INIT;

      gst_stage_scale_framerate (rate, &out, mul_n, mul_d);
      gst_structure_take_value (s, "framerate", &out);
    }
    ret = gst_caps_merge_structure_full (ret, s,
        f ? gst_caps_features_copy (f) : NULL);
  }
  return ret;
}

/* Not round (segment.start * framerate): after an accurate seek a decoder
 * also delivers the frame that contains the start, clipped to begin at it
 * (seek to 2.5 s at 25/1: frame 62, PTS 2.48 s clipped to 2.5 s, duration
 * 0.02 s), which that formula calls frame 63. The middle of the buffer lies
 * inside its frame's slot whether it was clipped or not, and half a frame
 * of slack absorbs timestamps rounded by the container (to ms, say). Stream
 * time, unlike buffer time, starts at 0 in streams whose timestamps do not,
 * such as MPEG-TS. */
guint64
gst_stage_frame_index_at (const GstSegment * seg, GstBuffer * buf,
    gint fps_n, gint fps_d)
{
  GstClockTime pts = GST_BUFFER_PTS (buf), dur = GST_BUFFER_DURATION (buf);
  guint64 scale = (guint64) fps_d * GST_SECOND, t;
  gint sign;

  if (seg->format != GST_FORMAT_TIME || fps_n <= 0)
    return 0;
  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return GST_CLOCK_TIME_IS_VALID (seg->time) ?
        gst_util_uint64_scale_round (seg->time, fps_n, scale) : 0;
  if (GST_CLOCK_TIME_IS_VALID (dur) && dur > 0) {
    sign = gst_segment_to_stream_time_full (seg, GST_FORMAT_TIME,
        pts + dur / 2, &t);
    return sign > 0 ? gst_util_uint64_scale (t, fps_n, scale) : 0;
  }
  sign = gst_segment_to_stream_time_full (seg, GST_FORMAT_TIME, pts, &t);
  return sign > 0 ? gst_util_uint64_scale_round (t, fps_n, scale) : 0;
}

void
gst_stage_caps_get_framerate (GstCaps * caps, gint * fps_n, gint * fps_d)
{
  GstStructure *s = gst_caps_get_size (caps) ?
      gst_caps_get_structure (caps, 0) : NULL;
  gint n = 0, d = 1;

  if (s == NULL || !gst_structure_get_fraction (s, "framerate", &n, &d)
      || n <= 0 || d <= 0) {
    n = 0;
    d = 1;
  }
  *fps_n = n;
  *fps_d = d;
}

GstCaps *
gst_stage_caps_filter (GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret;

  if (filter == NULL)
    return caps;
  ret = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (caps);
  return ret;
}

gboolean
gst_stage_state_change_tears_down (GstStateChange transition,
    GstStateChangeReturn ret)
{
  return transition == GST_STATE_CHANGE_PAUSED_TO_READY
      || transition == GST_STATE_CHANGE_READY_TO_NULL
      || (transition == GST_STATE_CHANGE_READY_TO_PAUSED
          && ret == GST_STATE_CHANGE_FAILURE);
}

gboolean
gst_stage_can_set_property (GstElement * element, GParamSpec * pspec)
{
  GstState state;

  GST_OBJECT_LOCK (element);
  state = MAX (GST_STATE (element), GST_STATE_PENDING (element));
  GST_OBJECT_UNLOCK (element);
  if (state <= GST_STATE_READY)
    return TRUE;
  g_warning ("%s: property '%s' can only be changed in the NULL or READY "
      "state; the new value is ignored", GST_OBJECT_NAME (element),
      g_param_spec_get_name (pspec));
  return FALSE;
}

gchar *
gst_stage_quote_value (const gchar * s)
{
  char *q = stage_select_quote (s ? s : "", s ? strlen (s) : 0,
      QUOTED_VALUE_MAX);
  gchar *ret = g_strdup_printf ("'%s'", q ? q : "");

  free (q);
  return ret;
}

void
gst_stage_set_exclusive_error (GError ** error, const gchar * a,
    const gchar * va, const gchar * b, const gchar * vb, const gchar * hint)
{
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "Properties '%s' (%s) and '%s' (%s) are both set: set only one%s%s%s",
      a, va, b, vb, hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}

static gint
store_error_code (const GError * err, gboolean writing)
{
  switch (err->code) {
    case STAGE_STORE_ERROR_NOT_STORE:
    case STAGE_STORE_ERROR_NOT_FOUND:
      return GST_RESOURCE_ERROR_NOT_FOUND;
    case STAGE_STORE_ERROR_EXISTS:
    case STAGE_STORE_ERROR_INVALID:
      /* the network filesystem refusal asks for another store */
    case STAGE_STORE_ERROR_NETWORK:
      return GST_RESOURCE_ERROR_SETTINGS;
    case STAGE_STORE_ERROR_CORRUPT:
      return GST_RESOURCE_ERROR_READ;
    case STAGE_STORE_ERROR_IO:
      return writing ? GST_RESOURCE_ERROR_WRITE : GST_RESOURCE_ERROR_READ;
    case STAGE_STORE_ERROR_NO_SPACE:
      return GST_RESOURCE_ERROR_NO_SPACE_LEFT;
    default:
      return GST_RESOURCE_ERROR_FAILED;
  }
}

void
gst_stage_post_store_error (GstElement * element, const GError * err,
    gboolean writing)
{
  GQuark domain = GST_RESOURCE_ERROR;
  gint code = GST_RESOURCE_ERROR_FAILED;

  if (err->domain == STAGE_STORE_ERROR) {
    code = store_error_code (err, writing);
  } else if (err->domain == GST_RESOURCE_ERROR
      || err->domain == GST_CORE_ERROR) {
    domain = err->domain;
    code = err->code;
  }
  gst_element_message_full (element, GST_MESSAGE_ERROR, domain, code,
      g_strdup (err->message), NULL, __FILE__, GST_FUNCTION, __LINE__);
}

gboolean
gst_stage_is_unset (const gchar * s)
{
  for (; s != NULL && *s; s++)
    if (!g_ascii_isspace (*s))
      return FALSE;
  return TRUE;
}

gboolean
gst_stage_check_uint_prop (const gchar * prop, guint64 value, guint64 min,
    guint64 max, const gchar * hint, GError ** error)
{
  if (value >= min && value <= max)
    return TRUE;
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "Invalid value '%" G_GUINT64_FORMAT "' for property '%s': allowed are %"
      G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT "%s%s", value, prop, min, max,
      hint ? " " : "", hint ? hint : "");
  return FALSE;
}

gboolean
gst_stage_check_int_prop (const gchar * prop, gint64 value, gint64 min,
    gint64 max, const gchar * hint, GError ** error)
{
  if (value >= min && value <= max)
    return TRUE;
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "Invalid value '%" G_GINT64_FORMAT "' for property '%s': allowed are %"
      G_GINT64_FORMAT " to %" G_GINT64_FORMAT "%s%s", value, prop, min, max,
      hint ? " " : "", hint ? hint : "");
  return FALSE;
}

gboolean
gst_stage_post_settings_error (GstElement * element, GError * error)
{
  gst_element_message_full (element, GST_MESSAGE_ERROR, error->domain,
      error->code, g_strdup (error->message), NULL, __FILE__, GST_FUNCTION,
      __LINE__);
  g_error_free (error);
  return FALSE;
}

/* Sets @error for a value of @prop that ops/ refused with @err. */
static void
set_invalid_value (GError ** error, const gchar * prop, const gchar * value,
    const char *err)
{
  char *q = stage_select_quote (value ? value : "", value ? strlen (value) : 0,
      QUOTED_VALUE_MAX);

  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "Invalid value '%s' for property '%s': %s", q ? q : "", prop,
      err ? err : "out of memory");
  free (q);
}

StageSelect *
gst_stage_select_from_indices (const gchar * indices, GError ** error)
{
  char *err = NULL;
  StageSelect *sel = stage_select_parse_indices (indices, &err);

  if (sel == NULL)
    set_invalid_value (error, "indices", indices, err);
  free (err);
  return sel;
}

static const gchar *
file_kind (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

/* The text of an indices file, at most STAGE_SELECT_INDICES_DATA_MAX + 1
 * bytes (one more tells the parser it is too large).
 *
 * Only regular files are read: a device (/dev/zero) never ends and a FIFO
 * may never end or never get a writer, and either would hold the element
 * (or eat memory, 22 GB in 50 s) with no message. The open does not block
 * (O_NONBLOCK: opening a FIFO waits for a writer), and a regular file
 * growing meanwhile is still read only to the limit. */
static gchar *
read_indices_file (const gchar * path, const gchar * name, gsize * length,
    GError ** error)
{
  const gsize max = STAGE_SELECT_INDICES_DATA_MAX + 1;
  int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  struct stat st;
  gchar *data;
  gsize len = 0, cap;

  if (fd < 0 || fstat (fd, &st) != 0) {
    int e = errno;

    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "Could not read property 'indices-file' '%s': %s", name,
        g_strerror (e));
    if (fd >= 0)
      close (fd);
    return NULL;
  }
  if (!S_ISREG (st.st_mode)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "Invalid property 'indices-file' '%s': %s, not a regular file "
        "(only files are read: a device or FIFO may never end)", name,
        file_kind (st.st_mode));
    close (fd);
    return NULL;
  }
  if ((guint64) st.st_size > STAGE_SELECT_INDICES_DATA_MAX) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Invalid property 'indices-file' '%s': too large: %" G_GUINT64_FORMAT
        " bytes, more than %" G_GSIZE_FORMAT " (%" G_GSIZE_FORMAT " MiB) of "
        "text, the most an indices list may hold", name,
        (guint64) st.st_size, STAGE_SELECT_INDICES_DATA_MAX,
        STAGE_SELECT_INDICES_DATA_MAX >> 20);
    close (fd);
    return NULL;
  }
  /* the stat's size sizes the buffer; the read itself enforces the limit,
   * as the file may grow meanwhile */
  cap = (gsize) MIN ((guint64) MAX (st.st_size, 0), max) + 1;
  data = g_malloc (cap);
  for (;;) {
    gssize n;

    if (len + 1 >= cap && cap < max + 1) {
      cap = MIN (cap * 2, max + 1);
      data = g_realloc (data, cap);
    }
    if (len >= max)
      break;
    n = read (fd, data + len, MIN (cap - 1, max) - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int e = errno;

      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "Could not read property 'indices-file' '%s': %s", name,
          g_strerror (e));
      g_free (data);
      close (fd);
      return NULL;
    }
    if (n == 0)
      break;
    len += n;
  }
  close (fd);
  data[len] = '\0';
  *length = len;
  return data;
}

StageSelect *
gst_stage_select_from_indices_file (const gchar * path, GError ** error)
{
  gchar *contents, *name = g_filename_display_name (path);
  gsize length = 0;
  char *err = NULL;
  StageSelect *sel;

  /* file names need not be UTF-8: the display name is */
  contents = read_indices_file (path, name, &length, error);
  if (contents == NULL) {
    g_free (name);
    return NULL;
  }
  sel = stage_select_parse_indices_data (contents, length, &err);
  if (sel == NULL)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Invalid property 'indices-file' '%s': %s", name,
        err ? err : "out of memory");
  free (err);
  g_free (contents);
  g_free (name);
  return sel;
}

StageSelect *
gst_stage_select_from_ranges (const gchar * ranges, guint stride,
    GError ** error)
{
  char *err = NULL;
  StageSelect *sel = stage_select_parse_ranges (ranges, stride, &err);

  if (sel == NULL)
    set_invalid_value (error, "ranges", ranges, err);
  free (err);
  return sel;
}

StageSelect *
gst_stage_select_from_stride (guint64 offset, guint stride, GError ** error)
{
  StageSelect *sel = stage_select_new_stride (offset, stride);

  if (sel == NULL)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Invalid value for property 'stride' (%u) or 'offset' (%"
        G_GUINT64_FORMAT ")", stride, offset);
  return sel;
}
