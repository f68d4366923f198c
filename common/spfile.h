/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spfile: how stageprof and the tools open their output files.
 *
 * One policy for trace=, summary=, db=, write-trace and the -o of
 * stageprof-report (docs/tracer.md,
 * "Output files"): a symbolic link at the path is refused with an error
 * naming it, never followed into truncation; files written whole (the
 * summary, a write-trace copy) go to a temporary file beside the path and
 * are renamed over it when complete, so a reader sees the old file or the
 * new one, never a mix.
 */
#ifndef __SP_FILE_H__
#define __SP_FILE_H__

#include <glib.h>

G_BEGIN_DECLS

/* FALSE (with an error naming `what` and `path`) if `path` is a symlink. */
gboolean sp_file_check_not_symlink (const gchar * path, const gchar * what,
    GError ** error);
/* open(2) with O_NOFOLLOW | O_CLOEXEC; -1 and an error naming the path. */
int sp_file_open_nofollow (const gchar * path, int flags, const gchar * what,
    GError ** error);

/* How a writer that replaces files by rename of its own (stage-batch's
 * jobs) treats `path`: FALSE (an error) for a symbolic link, a socket or
 * a directory; else *in_place is TRUE for a device or a FIFO (write the
 * path itself) and FALSE for a regular file or nothing (by rename). */
gboolean sp_file_output_in_place (const gchar * path, const gchar * what,
    gboolean * in_place, GError ** error);

/* A file written as it goes (the trace): created or truncated, read-write;
 * a device opened as it is, a FIFO write-only and only while a reader has
 * it open (else an error, not a hang); a directory, a socket or a symlink
 * is an error. */
int sp_file_open_stream (const gchar * path, const gchar * what,
    GError ** error);

/* A file written whole: into a temporary beside `path`, renamed over it
 * at commit. A device or a FIFO at `path` is written in place instead,
 * never replaced (as root, a rename over /dev/null breaks the machine); a
 * FIFO needs a reader already (else an error, not a hang); a directory, a
 * socket or a symlink is an error. */
typedef struct _SpFileReplace SpFileReplace;
SpFileReplace *sp_file_replace_begin (const gchar * path, const gchar * what,
    GError ** error);
/* FALSE once a write failed (the error comes from commit). */
gboolean sp_file_replace_write (SpFileReplace * f, const void * data,
    gsize len);
/* Renames into place; on any earlier failure removes the temporary file
 * and leaves `path` as it was. Frees `f`. */
gboolean sp_file_replace_commit (SpFileReplace * f, GError ** error);
void sp_file_replace_abort (SpFileReplace * f);

/* The whole of `data` to `path` (begin, write, commit). */
gboolean sp_file_replace_contents (const gchar * path, const gchar * data,
    gsize len, const gchar * what, GError ** error);

G_END_DECLS

#endif /* __SP_FILE_H__ */
