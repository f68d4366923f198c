/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internals of the store library shared by its files (stagestore.c:
 * catalog; stagestore-read.c: reader and verify; stagestore-write.c:
 * writer). Not installed, not used outside store/. */
#ifndef __STAGE_STORE_PRIVATE_H__
#define __STAGE_STORE_PRIVATE_H__

#include <sqlite3.h>

#include "stagestore.h"

G_BEGIN_DECLS

struct StageStore
{
  gchar *dir;
  sqlite3 *db;
};

/* a live writer holds an flock on this file in its data directory */
#define WRITING_LOCK ".writing"

#define STREAM_COLUMNS "id, name, kind, codec, caps, codec_data, frames, " \
  "keyframes, chunks, bytes, fps_n, fps_d, width, height, io_packet_size, " \
  "data, created, committed"

/* FALSE, with @error saying which catalog operation failed and why */
gboolean store_db_fail (StageStore * store, const gchar * what,
    GError ** error);
gboolean store_exec (StageStore * store, const gchar * sql,
    const gchar * what, GError ** error);
gchar *store_now_iso8601 (void);
StageStreamInfo *store_info_from_row (sqlite3_stmt * st);
void store_remove_tree (const gchar * path);
/* whether @data is a data directory path the catalog may name */
gboolean store_safe_data_dir (const gchar * data);
gboolean store_writer_alive (const gchar * dirpath);

G_END_DECLS

#endif /* __STAGE_STORE_PRIVATE_H__ */
