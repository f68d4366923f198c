/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gst-stages: small helpers shared by the elements that change a stream's
 * rate or count frames (the selectors, stagerepeat, stageslice), and the
 * caps and state-change steps several elements take alike. Internal to the
 * plugin. */
#ifndef __GST_STAGE_UTIL_H__
#define __GST_STAGE_UTIL_H__

#include <gst/gst.h>

#include "select.h"

G_BEGIN_DECLS

/* Scales a framerate field value (fraction, fraction range or list) by
 * mul_n/mul_d into @out (initialised here), saturating at G_MAXINT where a
 * rate would overflow: a rate that large only appears as the open end of a
 * range. Other values are copied. */
void gst_stage_scale_framerate (const GValue * in, GValue * out, gint mul_n,
    gint mul_d);

/* A copy of @caps with every structure's framerate scaled by mul_n/mul_d
 * (structures without a framerate unchanged; ANY stays ANY). */
GstCaps *gst_stage_caps_scale_framerate (GstCaps * caps, gint mul_n,
    gint mul_d);

/* The index of @buf in its stream, for the first buffer after a flushing
 * seek into @segment, from its stream time and the framerate fps_n/fps_d
 * (0 when the framerate or the segment format does not tell). */
guint64 gst_stage_frame_index_at (const GstSegment * segment,
    GstBuffer * buf, gint fps_n, gint fps_d);

/* The framerate of @caps' first structure into @fps_n/@fps_d, or 0/1 when
 * the caps are empty or have no positive framerate (variable, absent). */
void gst_stage_caps_get_framerate (GstCaps * caps, gint * fps_n,
    gint * fps_d);

/* @caps narrowed by @filter (filter's order first), for transform_caps and
 * get_caps; takes @caps, which is returned as is when @filter is NULL. */
GstCaps *gst_stage_caps_filter (GstCaps * caps, GstCaps * filter);

/* TRUE when an element must undo what it set up at READY to PAUSED after
 * @transition returned @ret: at PAUSED to READY, at READY to NULL too (an
 * async READY to PAUSED that never completed, a failed preroll, goes back
 * to NULL without PAUSED to READY), and when READY to PAUSED failed. */
gboolean gst_stage_state_change_tears_down (GstStateChange transition,
    GstStateChangeReturn ret);

/* Numeric properties: the param specs take the type's whole range, because
 * GObject refuses a value outside a param spec's range with only a
 * warning and keeps the old value, and gst-launch-1.0 then runs with the
 * default (stride=0 output every frame). The element checks the value when
 * it starts instead: FALSE and a GST_RESOURCE_ERROR_SETTINGS "Invalid
 * value 'V' for property 'P': allowed are MIN to MAX" (plus @hint, if
 * given) for a value outside [@min, @max]. */
gboolean gst_stage_check_uint_prop (const gchar * prop, guint64 value,
    guint64 min, guint64 max, const gchar * hint, GError ** error);
gboolean gst_stage_check_int_prop (const gchar * prop, gint64 value,
    gint64 min, gint64 max, const gchar * hint, GError ** error);
/* Posts @error (from the checks above) as an element error of @element and
 * frees it; returns FALSE for a start function to return. */
gboolean gst_stage_post_settings_error (GstElement * element, GError * error);

/* For set_property of a property that can only change in the NULL or
 * READY state (GST_PARAM_MUTABLE_READY): FALSE, with a warning naming it,
 * when @element is past READY, where a new value could not take effect
 * until the next start and would only make caps and output disagree. */
gboolean gst_stage_can_set_property (GstElement * element,
    GParamSpec * pspec);

/* @s quoted for a message, 'like this' (g_free): valid UTF-8 whatever the
 * bytes, at most 80 bytes of it, as the "Invalid value" messages quote. */
gchar *gst_stage_quote_value (const gchar * s);

/* Sets a GST_RESOURCE_ERROR_SETTINGS for two properties that exclude each
 * other and are both set, one wording for every such rule: "Properties
 * 'A' (VA) and 'B' (VB) are both set: set only one" and " (HINT)" if
 * given; the values as the caller shows them (quoted strings, numbers). */
void gst_stage_set_exclusive_error (GError ** error, const gchar * a,
    const gchar * va, const gchar * b, const gchar * vb, const gchar * hint);

/* Posts @err, from the store (STAGE_STORE_ERROR) or the element itself
 * (GST_RESOURCE_ERROR, GST_CORE_ERROR), as an error message of @element,
 * its text being what a user acts on. Store codes map to one
 * GST_RESOURCE_ERROR code for the reader and the writer, but for a failed
 * read or write (@writing: WRITE, else READ). */
void gst_stage_post_store_error (GstElement * element, const GError * err,
    gboolean writing);

/* TRUE for NULL and blank strings: both mean "not set". */
gboolean gst_stage_is_unset (const gchar * s);

/* The frame selection of a selector-like property, or NULL with a
 * GST_RESOURCE_ERROR_SETTINGS (OPEN_READ for a file that cannot be read)
 * naming the property and its value (quoted, at most 80 bytes of it), as
 * stagegather, stagerange, stagestride and stagesrc word it. */
StageSelect *gst_stage_select_from_indices (const gchar * indices,
    GError ** error);
StageSelect *gst_stage_select_from_indices_file (const gchar * path,
    GError ** error);
StageSelect *gst_stage_select_from_ranges (const gchar * ranges,
    guint stride, GError ** error);
StageSelect *gst_stage_select_from_stride (guint64 offset, guint stride,
    GError ** error);

G_END_DECLS

#endif /* __GST_STAGE_UTIL_H__ */
