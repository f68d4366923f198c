/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbfile: how stage-batch writes a path a user gave (a job's outputs, its
 * done markers and records, the merged profile) without destroying what is
 * there. Plain C over GLib. */
#ifndef __SBFILE_H__
#define __SBFILE_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  SB_WRITE_REPLACE,             /* nothing or a regular file: by rename */
  SB_WRITE_IN_PLACE,            /* a device or a FIFO: the path itself */
} SbWriteMode;

/* How `path` is written. A regular file (or nothing) is replaced by
 * rename; a character or block device (/dev/null) or a FIFO cannot be
 * replaced without destroying it, so it is written in place. A symbolic
 * link, a socket or a directory is refused: FALSE, with a message naming
 * `what` and the path. */
gboolean sb_write_mode (const gchar * path, const gchar * what,
    SbWriteMode * mode, GError ** error);

/* g_file_set_contents under the same rule. */
gboolean sb_file_set_contents (const gchar * path, const gchar * data,
    gssize len, const gchar * what, GError ** error);

/* Copies the file `from` into `to` in place (a device, a FIFO): for
 * writers that can only write by rename (the merged trace). */
gboolean sb_file_copy_in_place (const gchar * from, const gchar * to,
    const gchar * what, GError ** error);

G_END_DECLS

#endif /* __SBFILE_H__ */
