/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Numeric properties out of their allowed range, given on a gst-launch
 * line: GObject only warns for a value outside a param spec's range and
 * keeps the default (stride=0 then output every frame), so the elements'
 * param specs take the whole type and the elements refuse such a value
 * when they start, naming the property and the allowed values. */
#ifndef __STAGES_PROP_CHECK_H__
#define __STAGES_PROP_CHECK_H__

#include <gst/check/gstcheck.h>
#include <string.h>

#include "lib/stagetest.h"

static gint prop_check_warnings;

static gboolean
prop_check_note_log (const gchar * log_domain, GLogLevelFlags log_level,
    const gchar * message, gpointer user_data)
{
  prop_check_warnings++;
  return FALSE;                 /* handled: not a test failure */
}

/* Runs @desc as gst-launch-1.0 would: parsing gives no warning, the value
 * reads back as given (@prop of element "e", when @name_e), and starting
 * fails with a RESOURCE/SETTINGS error that holds "Invalid value '@value'
 * for property '@prop'" and @allowed, before any buffer flows. */
static G_GNUC_UNUSED void
expect_prop_refused (const gchar * desc, const gchar * prop,
    const gchar * value, const gchar * allowed)
{
  GstCheckLogFilter *filter = gst_check_add_log_filter ("GLib-GObject",
      G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL, g_regex_new (".*", 0, 0,
          NULL), prop_check_note_log, NULL, NULL);
  gchar *want = g_strdup_printf ("Invalid value '%s' for property '%s'",
      value, prop);
  GError *err = NULL;
  GstElement *pipe;
  GstMessage *msg;

  prop_check_warnings = 0;
  pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "");
  fail_unless_equals_int (prop_check_warnings, 0);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  msg = stage_test_expect_error (pipe, 10 * GST_SECOND, desc);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS), "%s: %s", desc, err->message);
  fail_unless (strstr (err->message, want) != NULL, "'%s' not in '%s'",
      want, err->message);
  fail_unless (strstr (err->message, allowed) != NULL, "'%s' not in '%s'",
      allowed, err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  gst_check_remove_log_filter (filter);
  g_free (want);
}

#endif /* __STAGES_PROP_CHECK_H__ */
