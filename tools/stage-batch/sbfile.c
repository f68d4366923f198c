/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbfile: see sbfile.h.
 *
 * Writing by rename (a temporary file beside the path, renamed over it at
 * the end) is what keeps a half-written output from passing for a whole
 * one, but rename(2) replaces whatever is at the path: run as root, an
 * output of /dev/null would turn the machine's /dev/null into a regular
 * file. What is not a regular file is therefore written in place (a device,
 * a FIFO: what a user naming one wants) or refused (the policy of the
 * tracer's sp_file_replace_begin, tracer/output/spfile.c). A symbolic link
 * is refused rather than followed or replaced: either would write somewhere
 * the user did not name. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sbfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SB_ERROR (g_quark_from_static_string ("stage-batch-error"))

gboolean
sb_write_mode (const gchar * path, const gchar * what, SbWriteMode * mode,
    GError ** error)
{
  struct stat st;
  const gchar *kind = NULL;

  *mode = SB_WRITE_REPLACE;
  if (lstat (path, &st) != 0)
    return TRUE;                /* nothing there, or the write will say */
  if (S_ISREG (st.st_mode))
    return TRUE;
  if (S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode) || S_ISFIFO (st.st_mode)) {
    *mode = SB_WRITE_IN_PLACE;
    return TRUE;
  }
  if (S_ISLNK (st.st_mode))
    kind = "it is a symbolic link (stage-batch neither follows nor replaces "
        "links for what it writes; give the target's path)";
  else if (S_ISSOCK (st.st_mode))
    kind = "it is a socket (stage-batch writes files, devices and FIFOs, "
        "not sockets)";
  else if (S_ISDIR (st.st_mode))
    kind = "it is a directory";
  else
    kind = "it is not a file, a device or a FIFO";
  g_set_error (error, SB_ERROR, 0, "refusing to write %s \"%s\": %s", what,
      path, kind);
  return FALSE;
}

static int
open_in_place (const gchar * path)
{
  int fd;

  do
    fd = open (path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  return fd;
}

/* 0 or the errno of the failed write. */
static int
write_all (int fd, const gchar * data, gsize len)
{
  while (len > 0) {
    gssize n = write (fd, data, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n < 0 ? errno : EIO;
    data += n;
    len -= n;
  }
  return 0;
}

static gboolean
write_in_place (const gchar * path, const gchar * data, gsize len,
    const gchar * what, GError ** error)
{
  int fd = open_in_place (path), e = fd < 0 ? errno : 0;

  if (fd >= 0) {
    e = write_all (fd, data, len);
    if (close (fd) != 0 && e == 0)
      e = errno;
  }
  if (e != 0)
    g_set_error (error, SB_ERROR, 0, "cannot write %s \"%s\": %s", what, path,
        g_strerror (e));
  return e == 0;
}

gboolean
sb_file_copy_in_place (const gchar * from, const gchar * to,
    const gchar * what, GError ** error)
{
  gchar buf[65536];
  int in = open (from, O_RDONLY | O_CLOEXEC), out = -1, e = 0;

  if (in < 0 || (out = open_in_place (to)) < 0)
    e = errno;
  while (e == 0) {
    gssize n = read (in, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      e = n < 0 ? errno : 0;
      break;
    }
    e = write_all (out, buf, n);
  }
  if (in >= 0)
    close (in);
  if (out >= 0 && close (out) != 0 && e == 0)
    e = errno;
  if (e != 0)
    g_set_error (error, SB_ERROR, 0, "cannot write %s \"%s\": %s", what, to,
        g_strerror (e));
  return e == 0;
}

gboolean
sb_file_set_contents (const gchar * path, const gchar * data, gssize len,
    const gchar * what, GError ** error)
{
  SbWriteMode mode;

  if (len < 0)
    len = strlen (data);
  if (!sb_write_mode (path, what, &mode, error))
    return FALSE;
  if (mode == SB_WRITE_IN_PLACE)
    return write_in_place (path, data, len, what, error);
  return g_file_set_contents (path, data, len, error);
}
