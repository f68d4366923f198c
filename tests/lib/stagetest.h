/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stagetest: what every suite needs around a pipeline, written once so
 * that a hang or an error reads the same in every log: running to EOS
 * within a time limit, taking the error a test expects, and leaving out a
 * test whose element or tool is missing with a line that says so. A
 * check that fails here reports the caller's file and line. */
#ifndef __STAGETEST_H__
#define __STAGETEST_H__

#include <gst/gst.h>
#include <gst/check/gstcheck.h>

G_BEGIN_DECLS

/* The next EOS or ERROR on @pipeline's bus, or NULL after @timeout: for
 * the callers that judge the end themselves (no check fails here). */
GstMessage *stage_test_pop_end (GstElement * pipeline, GstClockTime timeout);

/* Fails unless EOS comes within @timeout; the message names @what (the
 * pipeline's name when NULL) and, for an error, its source and text. */
#define stage_test_expect_eos(pipeline, timeout, what) \
  _stage_test_expect_eos (__FILE__, __LINE__, pipeline, timeout, what)

/* Fails unless an ERROR comes first within @timeout; returns it (unref
 * it) for the caller's checks on the source and the text. */
#define stage_test_expect_error(pipeline, timeout, what) \
  _stage_test_expect_error (__FILE__, __LINE__, pipeline, timeout, what)

/* Sets PLAYING (fails if refused), then stage_test_expect_eos. The state
 * is left to the caller, which often inspects the pipeline first. */
#define stage_test_play_to_eos(pipeline, timeout, what) \
  _stage_test_play_to_eos (__FILE__, __LINE__, pipeline, timeout, what)

/* For a test that may expect either end: fails only after @timeout;
 * TRUE at EOS; at an error, FALSE with its text in *@error, or a failure
 * naming @what when @error is NULL. */
#define stage_test_wait_end(pipeline, timeout, what, error) \
  _stage_test_wait_end (__FILE__, __LINE__, pipeline, timeout, what, error)

/* Parses @desc (fails on a parse error), plays it to EOS and frees it. */
#define stage_test_run_launch(desc, timeout) \
  _stage_test_run_launch (__FILE__, __LINE__, desc, timeout)

void _stage_test_expect_eos (const gchar * file, gint line,
    GstElement * pipeline, GstClockTime timeout, const gchar * what);
GstMessage *_stage_test_expect_error (const gchar * file, gint line,
    GstElement * pipeline, GstClockTime timeout, const gchar * what);
void _stage_test_play_to_eos (const gchar * file, gint line,
    GstElement * pipeline, GstClockTime timeout, const gchar * what);
gboolean _stage_test_wait_end (const gchar * file, gint line,
    GstElement * pipeline, GstClockTime timeout, const gchar * what,
    gchar ** error);
void _stage_test_run_launch (const gchar * file, gint line,
    const gchar * desc, GstClockTime timeout);

/* "error from <source>: <text> (<debug>)" for an ERROR or WARNING
 * message, the words every failure message here uses; g_free it. */
gchar *stage_test_describe (GstMessage * msg);

/* Optional tests. libcheck has no skipped state and meson counts a suite
 * as one test, so a test whose element or tool is missing is not added at
 * all and a "SKIP: <test>: <why>" line says so in the log; a test that
 * returned early would pass and say nothing. */

/* NULL when every element factory named exists, else "no x265enc, no
 * mp4mux" (g_free it). */
gchar *stage_test_missing_elements (const gchar * first, ...)
    G_GNUC_NULL_TERMINATED;

/* Prints the SKIP line for @test (unless GST_CHECKS leaves it out anyway)
 * and frees @why. */
void stage_test_skip (const gchar * test, gchar * why);

/* Adds @tf to @tc when @why_not (a gchar * that this frees) is NULL,
 * else skips it loudly. */
#define stage_test_add_unless(tc, tf, why_not) \
G_STMT_START { \
  gchar *_stage_test_why = (why_not); \
  if (_stage_test_why) \
    stage_test_skip (G_STRINGIFY (tf), _stage_test_why); \
  else \
    tcase_add_test (tc, tf); \
} G_STMT_END

G_END_DECLS

#endif /* __STAGETEST_H__ */
