/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A test's own temporary folder, removed with everything in it. */
#ifndef __TMPDIR_H__
#define __TMPDIR_H__

#include <glib.h>
#include <glib/gstdio.h>

static G_GNUC_UNUSED void
rm_rf (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const gchar *n;

  while (d && (n = g_dir_read_name (d))) {
    gchar *p = g_build_filename (path, n, NULL);

    if (g_file_test (p, G_FILE_TEST_IS_DIR)
        && !g_file_test (p, G_FILE_TEST_IS_SYMLINK))
      rm_rf (p);
    else
      g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (path);
}

#endif /* __TMPDIR_H__ */
