/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stagetest: see stagetest.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>

#include "stagetest.h"

/* libcheck's own failure entry point: the check macros would report this
 * file's line, where the caller's is what a reader of the log needs. */
#define FAIL_AT(file, line, ...) \
  _ck_assert_failed (file, line, "stagetest", __VA_ARGS__, NULL)

GstMessage *
stage_test_pop_end (GstElement * pipeline, GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  gst_object_unref (bus);
  return msg;
}

gchar *
stage_test_describe (GstMessage * msg)
{
  GError *err = NULL;
  gchar *dbg = NULL, *text;
  gboolean is_error = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR;

  if (is_error)
    gst_message_parse_error (msg, &err, &dbg);
  else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING)
    gst_message_parse_warning (msg, &err, &dbg);
  else
    return g_strdup_printf ("%s from %s", GST_MESSAGE_TYPE_NAME (msg),
        GST_MESSAGE_SRC_NAME (msg));
  text = g_strdup_printf ("%s from %s: %s (%s)", is_error ? "error" :
      "warning", GST_MESSAGE_SRC_NAME (msg), err->message,
      dbg ? dbg : "no debug");
  g_error_free (err);
  g_free (dbg);
  return text;
}

static const gchar *
name_of (GstElement * pipeline, const gchar * what)
{
  return what ? what : GST_OBJECT_NAME (pipeline);
}

/* Fails at @file:@line for anything but a message of type @want. */
static GstMessage *
expect (const gchar * file, gint line, GstElement * pipeline,
    GstClockTime timeout, const gchar * what, GstMessageType want)
{
  GstMessage *msg = stage_test_pop_end (pipeline, timeout);
  gchar *text;

  if (msg == NULL)
    FAIL_AT (file, line, "%s: neither EOS nor an error within %.1f s",
        name_of (pipeline, what), (gdouble) timeout / GST_SECOND);
  if (GST_MESSAGE_TYPE (msg) == want)
    return msg;
  /* Not freed: the failure ends the test (and, forked, the process). */
  text = stage_test_describe (msg);
  FAIL_AT (file, line, "%s: %s where %s was expected",
      name_of (pipeline, what), text, want == GST_MESSAGE_EOS ? "EOS" :
      "an error");
  return NULL;
}

void
_stage_test_expect_eos (const gchar * file, gint line,
    GstElement * pipeline, GstClockTime timeout, const gchar * what)
{
  gst_message_unref (expect (file, line, pipeline, timeout, what,
          GST_MESSAGE_EOS));
}

GstMessage *
_stage_test_expect_error (const gchar * file, gint line,
    GstElement * pipeline, GstClockTime timeout, const gchar * what)
{
  return expect (file, line, pipeline, timeout, what, GST_MESSAGE_ERROR);
}

void
_stage_test_play_to_eos (const gchar * file, gint line,
    GstElement * pipeline, GstClockTime timeout, const gchar * what)
{
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = stage_test_pop_end (pipeline, 0);
    gchar *text = msg ? stage_test_describe (msg) : NULL;

    FAIL_AT (file, line, "%s does not start%s%s", name_of (pipeline, what),
        text ? ": " : "", text ? text : "");
  }
  _stage_test_expect_eos (file, line, pipeline, timeout, what);
}

gboolean
_stage_test_wait_end (const gchar * file, gint line, GstElement * pipeline,
    GstClockTime timeout, const gchar * what, gchar ** error)
{
  GstMessage *msg;
  GError *err = NULL;

  if (error == NULL) {
    _stage_test_expect_eos (file, line, pipeline, timeout, what);
    return TRUE;
  }
  *error = NULL;
  msg = stage_test_pop_end (pipeline, timeout);
  if (msg == NULL)
    FAIL_AT (file, line, "%s: neither EOS nor an error within %.1f s",
        name_of (pipeline, what), (gdouble) timeout / GST_SECOND);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    *error = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (msg);
  return *error == NULL;
}

void
_stage_test_run_launch (const gchar * file, gint line, const gchar * desc,
    GstClockTime timeout)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);

  if (pipeline == NULL || err != NULL)
    FAIL_AT (file, line, "cannot parse '%s': %s", desc,
        err ? err->message : "no pipeline");
  _stage_test_play_to_eos (file, line, pipeline, timeout, desc);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

gchar *
stage_test_missing_elements (const gchar * first, ...)
{
  GString *missing = g_string_new (NULL);
  const gchar *name;
  va_list args;

  va_start (args, first);
  for (name = first; name; name = va_arg (args, const gchar *)) {
    GstElementFactory *f = gst_element_factory_find (name);

    if (f)
      gst_object_unref (f);
    else
      g_string_append_printf (missing, "%sno %s", missing->len ? ", " : "",
          name);
  }
  va_end (args);
  return g_string_free (missing, missing->len == 0);
}

void
stage_test_skip (const gchar * test, gchar * why)
{
  /* Listing or choosing tests (GST_CHECKS) says nothing about skips. */
  if (!_gst_check_list_tests && _gst_check_run_test_func (test))
    g_printerr ("SKIP: %s: %s\n", test, why);
  g_free (why);
}
