/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internals of the store library shared by its files: stagestore.c
 * (catalog), stagestore-read.c (reader and verify), stagestore-write.c
 * (writer), stagestore-merge.c (joining stores), stagestore-check.c (range
 * checks of what the catalog says), stagestore-gc.c (orphans and gc),
 * stagestore-nal.c (random access points), stagestore-poc.c (picture
 * order count), stagestore-order.c (timestamps against presentation
 * order), and stagestore-bits.h (the bit reader of the two parsers). Not
 * installed, not used outside store/. */
#ifndef __STAGE_STORE_PRIVATE_H__
#define __STAGE_STORE_PRIVATE_H__

#include <sqlite3.h>

#include "stagestore.h"

G_BEGIN_DECLS

struct StageStore
{
  gchar *dir;
  sqlite3 *db;
  gboolean read_only;
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
/* sqlite3_prepare_v2 checked: FALSE (and *st NULL) with @error naming
 * @what. */
gboolean store_prepare (StageStore * store, const gchar * sql,
    sqlite3_stmt ** st, const gchar * what, GError ** error);
/* Steps @st, which must run to completion (an INSERT, a DELETE), and
 * finalizes it; FALSE with the step's own error in @error: SQLite's
 * message is read before another statement can replace it. */
gboolean store_step_done (StageStore * store, sqlite3_stmt * st,
    const gchar * what, GError ** error);
gchar *store_now_iso8601 (void);
StageStreamInfo *store_info_from_row (sqlite3_stmt * st);
void store_remove_tree (const gchar * path);
/* whether @data is a data directory path the catalog may name */
gboolean store_safe_data_dir (const gchar * data);

/* A fresh data directory for stream @name (data/<name>.<random>, *data
 * relative to the store, *abs_data absolute) with its writing lock held
 * in *lock_fd, so gc leaves it alone until it is released. */
gboolean store_new_data_dir (StageStore * store, const gchar * name,
    gchar ** data, gchar ** abs_data, int *lock_fd, GError ** error);
/* Drops the lock; the directory stays if @committed, else it goes. */
void store_release_data_dir (const gchar * abs_data, int lock_fd,
    gboolean committed);
/* Inside a transaction: the catalog rows of one stream (@info's fields
 * but id; frame count n; NULL created/committed: now) and of its frames
 * in decode order. */
gboolean store_insert_stream (StageStore * store,
    const StageStreamInfo * info, const StageFrame * frames, gsize n,
    gint64 * id, GError ** error);
/* Inside a transaction: a stream's rows (its frames, then itself); an
 * error says which catalog operation (`what`) failed. */
gboolean store_delete_stream_rows (StageStore * store, gint64 id,
    const gchar * what, GError ** error);
/* After the commit that dropped its rows: a stream's data directory
 * (catalog path @data), when it is one the catalog may name. */
void store_remove_data (StageStore * store, const gchar * data);
/* Checks @n frames (decode order) of @info against its chunk files: the
 * index is consistent and every packet reads back with its CRC. */
gboolean store_check_frames (StageStore * store,
    const StageStreamInfo * info, const StageFrame * frames, gsize n,
    GError ** error);

/* stagestore-check.c: range checks of what the catalog holds. Why the
 * streams row @st (STREAM_COLUMNS, loaded as @info) is unusable, or NULL. */
gchar *store_stream_problem (sqlite3_stmt * st, const StageStreamInfo * info);
/* Packet @pkt from a frames row (idx, chunk, offset, size, pts, dts,
 * duration, keyframe, crc), every field range-checked. */
gboolean store_frame_from_row (StageStore * store,
    const StageStreamInfo * info, sqlite3_stmt * st, gsize pkt,
    StageFrame * f, GError ** error);
/* The frame indices are a permutation, the packets back to back in
 * consecutive chunks. */
gboolean store_check_index (StageStore * store, const StageStreamInfo * info,
    const StageFrame * frames, gsize n, GError ** error);

/* stagestore-order.c: one packet's times. */
typedef struct
{
  gint64 pts, dts, duration;
} StageTimes;

/* Checks the times of @n packets (decode order) against their
 * presentation order keys @keys (stage_store_pic_order_next): TRUE when
 * the PTS follow it (*shift 0), or when the times moved over by *shift
 * packets in decode order do (each packet carried another's times: @t is
 * repaired, the ends that no packet carried filled from their neighbours
 * and the frame duration). FALSE when neither: *bad is the first packet
 * (decode order) whose PTS breaks the order. Without a PTS on every
 * packet, TRUE: frames are numbered as written. */
gboolean store_times_check (StageTimes * t, gsize n, const gint64 * keys,
    gint * shift, gsize * bad);

/* What verify reads from each packet's bytes (stagestore-read.c). */
typedef struct
{
  gint64 key;                   /* presentation order key */
  gboolean idr, rasl;
} StagePacketOrder;

/* verify: a video stream's frames against the bitstream (@po, one per
 * packet in decode order; @have_keys: every key could be told): no
 * picture presented before the first keyframe that it cannot be decoded
 * from, timestamps rising with frame numbers, and frame numbers in the
 * order a decoder outputs the pictures. */
gboolean store_check_order (StageStore * store, const StageStreamInfo * info,
    const StageFrame * frames, gsize n, const StagePacketOrder * po,
    gboolean have_keys, GError ** error);

G_END_DECLS

#endif /* __STAGE_STORE_PRIVATE_H__ */
