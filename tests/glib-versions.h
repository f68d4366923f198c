/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the GLib versions we support report differently, in one place.
 *
 * A property value outside its GParamSpec's range is refused by GObject on
 * every version, but GLib 2.74 (Debian 12) says so with g_warning() and
 * GLib 2.84 (Debian 13; 2.90 in Debian unstable) with g_critical(). Tests
 * that expect the refusal accept either level. */
#ifndef __STAGES_GLIB_VERSIONS_H__
#define __STAGES_GLIB_VERSIONS_H__

#include <gst/check/gstcheck.h>

/* The levels of GObject's out-of-range message, for log filters. */
#define GOBJECT_RANGE_LEVELS (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL)

/* ASSERT_WARNING for a value GObject refuses as out of range. */
#define ASSERT_OUT_OF_RANGE(code)                                      \
G_STMT_START {                                                         \
  _gst_check_expecting_log = TRUE;                                     \
  _gst_check_raised_warning = FALSE;                                   \
  _gst_check_raised_critical = FALSE;                                  \
  code;                                                                \
  if (!_gst_check_raised_warning && !_gst_check_raised_critical)       \
    _ck_assert_failed (__FILE__, __LINE__,                             \
        "Expected GObject to refuse an out-of-range value, got nothing", \
        NULL);                                                         \
  _gst_check_expecting_log = FALSE;                                    \
} G_STMT_END

#endif
