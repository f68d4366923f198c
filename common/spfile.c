/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spfile: see spfile.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "spfile.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct _SpFileReplace
{
  gchar *path, *what;
  gchar *tmp;                   /* beside path; NULL: written in place */
  int fd;
  int err;                      /* first errno, 0: fine */
};

static gboolean
sp_file_is_symlink (const gchar * path)
{
  struct stat st;

  return lstat (path, &st) == 0 && S_ISLNK (st.st_mode);
}

static void
sp_file_symlink_error (GError ** error, const gchar * path, const gchar * what)
{
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_LOOP,
      "Refusing to write %s \"%s\": it is a symbolic link (links are "
      "neither followed nor replaced for outputs; give the target's path)",
      what, path);
}

gboolean
sp_file_check_not_symlink (const gchar * path, const gchar * what,
    GError ** error)
{
  if (!sp_file_is_symlink (path))
    return TRUE;
  sp_file_symlink_error (error, path, what);
  return FALSE;
}

int
sp_file_open_nofollow (const gchar * path, int flags, const gchar * what,
    GError ** error)
{
  int fd, err;

  do
    fd = open (path, flags | O_NOFOLLOW | O_CLOEXEC, 0666);
  while (fd < 0 && errno == EINTR);
  if (fd >= 0)
    return fd;
  err = errno;
  if (err == ELOOP && sp_file_is_symlink (path))
    sp_file_symlink_error (error, path, what);
  else if (err == ENXIO && (flags & O_NONBLOCK))
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NXIO,
        "Cannot write %s \"%s\": it is a FIFO that no program is reading "
        "(start the reader first)", what, path);
  else
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "Cannot open %s \"%s\" for writing: %s", what, path, g_strerror (err));
  return -1;
}

/* What is at `path`, seen without following a link: FALSE (an error
 * naming it) for a symbolic link, a directory or a socket; else *mode is
 * 0 for nothing or a regular file (written by rename or created) and the
 * st_mode of a device or a FIFO (written in place). */
static gboolean
classify (const gchar * path, const gchar * what, mode_t * mode,
    GError ** error)
{
  struct stat st;

  *mode = 0;
  if (lstat (path, &st) != 0 || S_ISREG (st.st_mode))
    return TRUE;                /* nothing there, or the open will say */
  if (S_ISLNK (st.st_mode)) {
    sp_file_symlink_error (error, path, what);
    return FALSE;
  }
  if (S_ISDIR (st.st_mode)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
        "Cannot write %s \"%s\": it is a directory", what, path);
    return FALSE;
  }
  if (S_ISSOCK (st.st_mode)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NXIO,
        "Cannot write %s \"%s\": it is a socket (give a file, a device "
        "or a FIFO)", what, path);
    return FALSE;
  }
  *mode = st.st_mode;
  return TRUE;
}

gboolean
sp_file_output_in_place (const gchar * path, const gchar * what,
    gboolean * in_place, GError ** error)
{
  mode_t mode;

  if (!classify (path, what, &mode, error))
    return FALSE;
  *in_place = mode != 0;
  return TRUE;
}

/* A device (`mode` from classify) is opened with `flags`; a FIFO
 * write-only, and only while a reader has it open: without one the
 * O_NONBLOCK open fails with ENXIO, an error rather than a hang. */
static int
open_in_place (const gchar * path, mode_t mode, int flags,
    const gchar * what, GError ** error)
{
  int fd;

  if (!S_ISFIFO (mode))
    return sp_file_open_nofollow (path, flags, what, error);
  fd = sp_file_open_nofollow (path, O_WRONLY | O_NONBLOCK, what, error);
  if (fd >= 0)
    fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

int
sp_file_open_stream (const gchar * path, const gchar * what, GError ** error)
{
  mode_t mode;

  if (!classify (path, what, &mode, error))
    return -1;
  if (mode != 0)
    return open_in_place (path, mode, O_RDWR, what, error);
  return sp_file_open_nofollow (path, O_RDWR | O_CREAT | O_TRUNC, what,
      error);
}

SpFileReplace *
sp_file_replace_begin (const gchar * path, const gchar * what, GError ** error)
{
  SpFileReplace *f;
  mode_t mode;
  int fd;

  if (!classify (path, what, &mode, error))
    return NULL;
  f = g_new0 (SpFileReplace, 1);
  f->path = g_strdup (path);
  f->what = g_strdup (what);
  /* A device (/dev/null) or a FIFO is never replaced by a regular file (as
   * root, renaming over /dev/null breaks the machine): it is written in
   * place, and has no temporary file. */
  if (mode != 0) {
    fd = open_in_place (path, mode, O_WRONLY, what, error);
  } else {
    gchar *base = g_path_get_basename (path), *dir = g_path_get_dirname (path);
    gchar *tmpl = g_strdup_printf (".%s.XXXXXX", base);

    f->tmp = g_build_filename (dir, tmpl, NULL);
    fd = g_mkstemp_full (f->tmp, O_RDWR | O_CLOEXEC, 0666);
    if (fd < 0) {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
          "Cannot write %s \"%s\": cannot create a file in \"%s\": %s", what,
          path, dir, g_strerror (err));
    } else {
      /* mkstemp makes it 0600; give it what open(2) would have. */
      mode_t um = umask (0);
      umask (um);
      fchmod (fd, 0666 & ~um);
    }
    g_free (tmpl);
    g_free (base);
    g_free (dir);
  }
  if (fd < 0) {
    g_free (f->path);
    g_free (f->tmp);
    g_free (f->what);
    g_free (f);
    return NULL;
  }
  f->fd = fd;
  return f;
}

gboolean
sp_file_replace_write (SpFileReplace * f, const void *data, gsize len)
{
  const gchar *p = data;

  while (len > 0 && f->err == 0) {
    gssize n = write (f->fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      f->err = n < 0 ? errno : ENOSPC;
      break;
    }
    p += n;
    len -= n;
  }
  return f->err == 0;
}

static void
sp_file_replace_free (SpFileReplace * f)
{
  g_free (f->path);
  g_free (f->tmp);
  g_free (f->what);
  g_free (f);
}

void
sp_file_replace_abort (SpFileReplace * f)
{
  close (f->fd);
  if (f->tmp)
    g_unlink (f->tmp);
  sp_file_replace_free (f);
}

gboolean
sp_file_replace_commit (SpFileReplace * f, GError ** error)
{
  if (close (f->fd) != 0 && f->err == 0)
    f->err = errno;
  if (f->err == 0 && f->tmp && g_rename (f->tmp, f->path) != 0)
    f->err = errno;
  if (f->err != 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (f->err),
        "Writing %s \"%s\" failed: %s%s", f->what, f->path,
        g_strerror (f->err), f->tmp ? " (the file was left as it was)" : "");
    if (f->tmp)
      g_unlink (f->tmp);
    sp_file_replace_free (f);
    return FALSE;
  }
  sp_file_replace_free (f);
  return TRUE;
}

gboolean
sp_file_replace_contents (const gchar * path, const gchar * data, gsize len,
    const gchar * what, GError ** error)
{
  SpFileReplace *f = sp_file_replace_begin (path, what, error);

  if (!f)
    return FALSE;
  sp_file_replace_write (f, data, len);
  return sp_file_replace_commit (f, error);
}
