/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The store of named streams behind stagesink, stagesrc and stage-store.
 *
 * A store is a directory holding catalog.db (SQLite in WAL mode) and one
 * data directory per committed stream under data/, holding the stream's
 * chunk files (chunk-000000.bin, ...): its compressed packets (video) or
 * blobs (bytes), back to back. docs/store.md documents the schema.
 *
 * Plain C over SQLite and GLib, no GObject types: the elements and the
 * command-line tool share it. A writer puts its chunk files in a fresh data
 * directory and keeps the frame index in memory; the catalog learns of the
 * stream only at commit, in one transaction. An interrupted write (a crash,
 * kill -9) therefore leaves the catalog as it was, plus a data directory
 * that no stream names (an orphan, reported by verify, removed by gc).
 *
 * Every function takes a GError; messages name the store and the stream.
 */
#ifndef __STAGE_STORE_H__
#define __STAGE_STORE_H__

#include <glib.h>

G_BEGIN_DECLS

#define STAGE_STORE_CATALOG "catalog.db"
/* The newest catalog format this library reads and writes. Format 2 is
 * format 1 plus decode-only packets (StageFrame.index < 0): a catalog is
 * marked 2 only when a stream with such packets is committed into it, so
 * every other catalog stays readable by older versions, which refuse a
 * format 2 one rather than misread it. */
#define STAGE_STORE_FORMAT_VERSION 2
/* The most decode-only packets one stream holds: the leading pictures of
 * its first keyframe, fewer than a DPB holds (16 in H.264). */
#define STAGE_STORE_MAX_DECODE_ONLY 32
/* stored timestamps: stream time in nanoseconds (a DTS may be negative),
 * or this for "none" (SQL NULL) */
#define STAGE_STORE_NONE G_MININT64

#define STAGE_STORE_ERROR (stage_store_error_quark ())
GQuark stage_store_error_quark (void);

typedef enum
{
  STAGE_STORE_ERROR_NOT_STORE,  /* no such directory, or no catalog in it */
  STAGE_STORE_ERROR_NOT_FOUND,  /* no such stream */
  STAGE_STORE_ERROR_EXISTS,     /* the stream exists (mode=error) */
  STAGE_STORE_ERROR_CORRUPT,    /* catalog or chunk unreadable/inconsistent */
  STAGE_STORE_ERROR_IO,         /* a read or write failed */
  STAGE_STORE_ERROR_INVALID,    /* bad argument (a stream name, ...) */
  STAGE_STORE_ERROR_NETWORK,    /* writing on a network filesystem */
  STAGE_STORE_ERROR_NO_SPACE,   /* the disk is full (a write failed so) */
} StageStoreError;

typedef enum
{
  STAGE_STORE_KIND_VIDEO,       /* H.264 / H.265 packets */
  STAGE_STORE_KIND_BYTES,       /* one blob per buffer */
} StageStoreKind;

typedef struct StageStore StageStore;

/* One row of the streams table. */
typedef struct
{
  gint64 id;
  gchar *name;
  StageStoreKind kind;
  gchar *codec;                 /* "h264", "h265", NULL for bytes */
  gchar *caps;                  /* the caps the stream was written with */
  GBytes *codec_data;           /* NULL if none */
  gint64 frames;
  gint64 keyframes;
  gint64 chunks;
  gint64 bytes;
  gint fps_n, fps_d;            /* 0/1: unknown or variable */
  gint width, height;           /* 0 for bytes */
  gint64 io_packet_size;
  gchar *data;                  /* data directory, relative to the store */
  gchar *created;               /* ISO 8601 UTC */
  gchar *committed;
  gchar *problem;               /* why the catalog row is unusable (a field
                                 * out of range), NULL if it is fine: such
                                 * a stream is listed and can be removed,
                                 * not read */
} StageStreamInfo;

/* One stored packet (video) or blob (bytes). Arrays of these are in
 * decode order (the order they were written); @index is the frame index,
 * the position in presentation order (= decode order for bytes and for
 * video without B-frames).
 *
 * A decode-only packet has a negative @index: a picture a decoder must
 * decode for the pictures after it, but that is no frame of the stream
 * (a reference leading picture of a first keyframe that is not an IDR:
 * stage_store_writer_get_decode_only). The K decode-only packets of a
 * stream are numbered -K to -1 in presentation order, all of them
 * presented before frame 0, and count in no frame count. */
typedef struct
{
  gint64 index;
  gint64 chunk;
  gint64 offset;
  gint64 size;
  gint64 pts, dts, duration;    /* ns, STAGE_STORE_NONE if none */
  gboolean keyframe;            /* decoding may start here (see docs) */
  guint32 crc;                  /* CRC-32 of the packet bytes */
} StageFrame;

/* Opens the store at @dir for reading and writing; with @create, makes the
 * directory and the catalog when missing. Without it, a directory with no
 * catalog.db is a STAGE_STORE_ERROR_NOT_STORE error.
 *
 * The catalog is SQLite in WAL mode, which needs memory shared by every
 * process that opens it: on a network filesystem (NFS, SMB/CIFS, FUSE,
 * Ceph, Lustre, 9P, AFS) writing is refused (STAGE_STORE_ERROR_NETWORK,
 * the message says to write a store per machine on local disk and join
 * them with stage-store merge) unless the environment variable
 * STAGE_STORE_JOURNAL=delete asks for SQLite's rollback journal, which
 * works there through the filesystem's locks (docs/store.md). */
StageStore *stage_store_open (const gchar * dir, gboolean create,
    GError ** error);
/* Opens an existing store for reading only: streams are listed, looked
 * up, read and verified, never written. On a network filesystem a WAL
 * catalog is read as immutable (no locks, no shared memory): nothing may
 * write the store meanwhile. */
StageStore *stage_store_open_read (const gchar * dir, GError ** error);
/* The kind of network filesystem @dir is on ("NFS", "SMB/CIFS", ...), or
 * NULL for a local one (or when it cannot be told). */
const gchar *stage_store_network_fs (const gchar * dir);
void stage_store_close (StageStore * store);
const gchar *stage_store_get_dir (StageStore * store);

/* Committed streams, sorted by name: a GPtrArray of StageStreamInfo. */
GPtrArray *stage_store_list (StageStore * store, GError ** error);
/* NULL with STAGE_STORE_ERROR_NOT_FOUND (its message lists the nearest
 * names) when no committed stream has this name. */
StageStreamInfo *stage_store_lookup (StageStore * store, const gchar * name,
    GError ** error);
void stage_stream_info_free (StageStreamInfo * info);
/* Up to @max names of committed streams closest to @name (edit distance),
 * as "a, b, c", or NULL when the store is empty. */
gchar *stage_store_nearest_names (StageStore * store, const gchar * name,
    guint max);

/* The packets of a stream in decode order, decode-only ones too;
 * *n_frames is their number (info->frames + the decode-only count).
 * Every value is range-checked first (the stream's row, then each packet's
 * fields, then the index as a whole): a corrupt catalog is a
 * STAGE_STORE_ERROR_CORRUPT error naming the stream, packet and field. */
StageFrame *stage_store_load_frames (StageStore * store,
    const StageStreamInfo * info, gsize * n_frames, GError ** error);

/* Path of chunk @chunk of @info (newly allocated). */
gchar *stage_store_chunk_path (StageStore * store,
    const StageStreamInfo * info, gint64 chunk);

/* Removes a stream: the catalog rows in one transaction, then its data. */
gboolean stage_store_remove (StageStore * store, const gchar * name,
    GError ** error);

/* Data directories under data/ that no committed stream names: left by
 * interrupted writes, or by writes still in progress. */
GPtrArray *stage_store_orphans (StageStore * store, GError ** error);

/* Removes one orphan (a path as stage_store_orphans() gives it), decided
 * again under the catalog's write lock: a directory that a stream names by
 * then (committed meanwhile) or that a live writer holds is kept, with
 * *removed FALSE. FALSE only on an error. */
gboolean stage_store_remove_orphan (StageStore * store, const gchar * data,
    gboolean * removed, GError ** error);

/* On a full disk a store cannot be opened for writing (SQLite needs room
 * for its -wal and -shm files), so nothing could ever be removed: this
 * removes stream @name's data directory, found by reading the catalog
 * file itself (immutable, without SQLite's shared memory), to make room;
 * stage_store_remove then drops its rows. Refused unless the disk is
 * full. */
gboolean stage_store_free_space (const gchar * dir, const gchar * name,
    GError ** error);

/* Closes @store, which its caller made (stage_store_open with @create)
 * and put nothing into, and removes it if it still holds nothing: no
 * stream in its catalog, no data directory. Decided under the catalog's
 * write lock, so that a stream another writer committed meanwhile is
 * never lost. TRUE when removed; FALSE with @error saying why it stays. */
gboolean stage_store_close_remove_if_empty (StageStore * store,
    GError ** error);

/* Checks one stream: the index is consistent and every packet reads back
 * with its CRC. FALSE with the first problem in @error. */
gboolean stage_store_verify_stream (StageStore * store,
    const StageStreamInfo * info, GError ** error);

/* Checks packet @pkt's keyframe flag against its bytes @au (video
 * streams): a packet flagged key must be a random access point as the
 * writer decides it (stage_store_h264_is_rap / _h265_is_rap), and the
 * first packet's flag must be what its bytes say. Other packets pass.
 * FALSE with an error naming the stream and the packet. */
gboolean stage_store_check_keyframe (StageStore * store,
    const StageStreamInfo * info, const StageFrame * frames, gsize pkt,
    const guint8 * au, gsize size, GError ** error);

/* Whether a stream name is acceptable: non-empty, at most 255 bytes of
 * UTF-8, no control character (C0, DEL, C1). */
gboolean stage_store_check_name (const gchar * name, GError ** error);
/* The same for a name of @len bytes (-1: NUL-terminated): a NUL byte
 * inside is refused, not taken as its end. */
gboolean stage_store_check_name_len (const gchar * name, gssize len,
    GError ** error);

guint32 stage_store_crc32 (guint32 crc, const guint8 * data, gsize size);

/* How many of @n packets are decode-only (index < 0). */
gsize stage_store_count_decode_only (const StageFrame * frames, gsize n);

/* ---- reading ---- */

typedef struct StageStoreReader StageStoreReader;

StageStoreReader *stage_store_reader_new (StageStore * store,
    const StageStreamInfo * info);
/* Reads frames [first, last] (decode order positions in @frames, all in
 * one chunk, contiguous) with one read, checking sizes and CRCs. Returns
 * the bytes of the whole range; frame i starts at frames[i].offset -
 * frames[first].offset. */
GBytes *stage_store_reader_read (StageStoreReader * reader,
    const StageFrame * frames, gsize first, gsize last, GError ** error);
void stage_store_reader_free (StageStoreReader * reader);

/* ---- writing ---- */

typedef enum
{
  STAGE_STORE_MODE_ERROR,       /* refuse if the stream exists */
  STAGE_STORE_MODE_OVERWRITE,   /* replace it at commit */
  STAGE_STORE_MODE_IGNORE,      /* keep the existing one, write nothing */
} StageStoreMode;

typedef struct StageStoreWriter StageStoreWriter;

/* Starts writing stream @name. Makes a fresh data directory; nothing is
 * visible in the catalog until commit. */
StageStoreWriter *stage_store_writer_new (StageStore * store,
    const gchar * name, guint io_packet_size, GError ** error);
/* The stream's format; call before the first frame. @codec is "h264",
 * "h265" or NULL (bytes). */
void stage_store_writer_set_format (StageStoreWriter * writer,
    StageStoreKind kind, const gchar * codec, const gchar * caps,
    GBytes * codec_data, gint fps_n, gint fps_d, gint width, gint height);
/* Appends one packet or blob. A video packet with @keyframe starts a new
 * chunk once the current one holds io-packet-size frames; bytes streams
 * start one every io-packet-size blobs. After one failed write, flush or
 * sync every later add and the commit fail: the stream is incomplete. */
gboolean stage_store_writer_add (StageStoreWriter * writer,
    const guint8 * data, gsize size, gint64 pts, gint64 dts, gint64 duration,
    gboolean keyframe, GError ** error);
gint64 stage_store_writer_get_frames (StageStoreWriter * writer);
/* Video packets not stored: pictures presented before the stream's first
 * keyframe (the packets before it in decode order, and the leading
 * pictures of a first keyframe that is not an IDR: H.264 pictures
 * displayed before a recovery point, H.265 RASL pictures), which
 * reference pictures before the start of the recording. A full decode
 * does not output them either, so frame N stays the decode's frame N. */
gint64 stage_store_writer_get_dropped (StageStoreWriter * writer);
/* Video packets stored as decode-only packets (StageFrame.index < 0), in
 * no frame count: H.264 leading pictures of a first keyframe that is not
 * an IDR which are reference pictures (x264's B-pyramid). Other pictures
 * count them in their frame_num and reference lists, so a decoder that
 * never sees them finds a frame_num gap and fills it with a picture it
 * invents (gst-libav 1.24 and later then lose a real one:
 * docs/store.md). Fed to the decoder, never output: a full decode of the
 * recording decodes and drops them the same way. Non-reference leading
 * pictures, and H.265 RASL pictures (a decoder starting at their CRA
 * skips them), are dropped. */
gint64 stage_store_writer_get_decode_only (StageStoreWriter * writer);
/* After a commit: by how many packets in decode order the timestamps
 * were shifted and have been repaired (each packet carried the times of
 * the packet that many places before it; negative: after it), 0 when
 * they followed the bitstream's presentation order. */
gint stage_store_writer_get_shift (StageStoreWriter * writer);
/* Syncs the chunks and records the stream in one transaction. With
 * STAGE_STORE_MODE_ERROR it fails if a stream of that name was committed
 * meanwhile (by another writer); with OVERWRITE the old one goes (its data
 * directory after the commit). */
gboolean stage_store_writer_commit (StageStoreWriter * writer,
    StageStoreMode mode, GError ** error);
/* Frees the writer; an uncommitted write's data directory is removed. */
void stage_store_writer_free (StageStoreWriter * writer);

/* Whether a committed stream named @name exists. */
gboolean stage_store_has_stream (StageStore * store, const gchar * name,
    gboolean * exists, GError ** error);

/* ---- merging ---- */

/* Whether two paths name one directory (or file): the same device and
 * inode, however spelled. */
gboolean stage_store_same_dir (const gchar * a, const gchar * b);

/* Copies every committed stream of the stores @srcs into @dest, as one
 * change: each stream is checked in its source (index, every packet's
 * CRC), copied into a fresh data directory and checked again there, and
 * then all of them enter @dest's catalog in one transaction. A name in two
 * sources, or a source that is @dest, is refused; a name @dest has is
 * refused (MODE_ERROR, listing them, before anything is copied), replaced
 * (OVERWRITE) or kept (IGNORE). On failure @dest is as it was (an
 * interrupted merge leaves copies that no stream names: orphans, which
 * stage_store_orphans lists and gc removes). *merged, when given, gets the
 * names merged. */
gboolean stage_store_merge (StageStore * dest, StageStore ** srcs,
    guint n_srcs, StageStoreMode mode, GPtrArray ** merged,
    GError ** error);

/* ---- split streams ----
 *
 * One long stream processed by several jobs at once (stage-batch --split)
 * is written as parts, streams named NAME.part-K-of-N (K from 0), each a
 * run of frames in order; joining them makes NAME. */

#define STAGE_STORE_PART_FORMAT ".part-%u-of-%u"

gchar *stage_store_part_name (const gchar * name, guint part,
    guint n_parts);
/* Whether @name is a part's name; its base name, part and count. */
gboolean stage_store_parse_part_name (const gchar * name, gchar ** base,
    guint * part, guint * n_parts);
/* Joins the N parts of @name in @store into the stream @name, in one
 * transaction: frame indices, packets and chunks numbered on from part to
 * part (chunks hard-linked, not copied, where the filesystem can), each
 * part's times moved to start where the one before ended, every packet's
 * CRC checked, the parts removed. Refused, and nothing changed, when a
 * part is missing or the parts differ in codec, codec data, size or
 * framerate; @mode says what to do when @name exists. *joined (if given)
 * is FALSE when IGNORE kept an existing @name (and the parts). */
gboolean stage_store_join (StageStore * store, const gchar * name,
    StageStoreMode mode, gboolean * joined, GError ** error);
/* The base names of the split streams in @store (complete or not). */
GPtrArray *stage_store_split_streams (StageStore * store, GError ** error);

/* ---- codecs ---- */

/* Whether the access unit @au (length-prefixed NAL units, as in avc / hvc1
 * with @nal_length_size bytes per length) is a random access point where
 * decoding can start and give every later frame in presentation order
 * exactly: H.264 IDR, or an I picture with a recovery point SEI of
 * recovery_frame_cnt 0 (open GOP); H.265 IRAP (IDR, CRA, BLA). */
gboolean stage_store_h264_is_rap (const guint8 * au, gsize size,
    guint nal_length_size);
gboolean stage_store_h265_is_rap (const guint8 * au, gsize size,
    guint nal_length_size);
/* Whether @au is an IDR picture (H.264 NAL type 5, H.265 IDR_W_RADL or
 * IDR_N_LP): a decoder starting there starts exactly as at the start of
 * a stream. Other random access points (recovery-point I, CRA, BLA) are
 * where decoders differ: some invent missing references first. */
gboolean stage_store_is_idr (const gchar * codec, const guint8 * au,
    gsize size, guint nal_length_size);
/* Whether @au is an H.264 picture no other picture refers to: every slice
 * has nal_ref_idc 0, and it carries no parameter set. A decoder that
 * never sees it decodes every other picture exactly as with it (what
 * libavcodec's skip_frame=nonref does). FALSE for H.265 (a sub-layer
 * non-reference picture may be a reference for higher sub-layers) and
 * anything unclear. */
gboolean stage_store_is_disposable (const gchar * codec, const guint8 * au,
    gsize size, guint nal_length_size);
/* Whether the H.264 stream of avcC @codec_data is coded in frames only
 * (its SPS's frame_mbs_only_flag): no field pictures, so a picture is a
 * whole frame. FALSE when it has fields or cannot be told. */
gboolean stage_store_h264_frames_only (const guint8 * codec_data,
    gsize size);
/* Whether @au is an H.265 RASL picture (random access skipped leading):
 * displayed before its CRA, it may reference pictures before it, so a
 * decode that starts at that CRA skips it. */
gboolean stage_store_h265_is_rasl (const guint8 * au, gsize size,
    guint nal_length_size);

/* Presentation order from the bitstream: each access unit's picture order
 * count, as a decoder derives it (stagestore-poc.c). Decoders output
 * pictures in this order whatever their timestamps say. */
typedef struct StagePicOrder StagePicOrder;

/* A parser for one stream of @codec ("h264" or "h265"; NULL for any
 * other) with its avcC / hvcC @codec_data (parameter sets in band are
 * followed too). */
StagePicOrder *stage_store_pic_order_new (const gchar * codec,
    const guint8 * codec_data, gsize size);
/* The presentation order key of the next access unit in decode order:
 * keys rise in the order a decoder outputs the pictures (coded video
 * sequences one after the other, picture order count within one). FALSE
 * when it cannot be told (H.264 field pictures, POC type 1, slice groups;
 * H.265 pic_output_flag; a damaged unit or a missing parameter set): then
 * for every later unit too. */
gboolean stage_store_pic_order_next (StagePicOrder * po, const guint8 * au,
    gsize size, gint64 * key);
void stage_store_pic_order_free (StagePicOrder * po);

/* H.264: the frame_num of access unit @au's first slice and whether it is
 * an IDR, following the parameter sets in it; FALSE when not told. */
gboolean stage_store_h264_frame_num (StagePicOrder * po, const guint8 * au,
    gsize size, guint * frame_num, gboolean * idr);
/* H.264: @au with every slice's frame_num lowered by @shift (modulo
 * MaxFrameNum), parameter sets in it followed; NULL when a slice's cannot
 * be found. A decode that starts at a keyframe that is not an IDR, shifted
 * so that it has frame_num 0 up to the next IDR, decodes the same
 * pictures (every reference between pictures is relative), and FFmpeg
 * makes no concealment pictures for the frame_num values before it. */
GBytes *stage_store_h264_shift_frame_num (StagePicOrder * po,
    const guint8 * au, gsize size, guint shift);

/* The NAL length size of @codec_data (avcC byte 4, hvcC byte 21); 4 when
 * there is none. */
guint stage_store_nal_length_size (const gchar * codec,
    const guint8 * codec_data, gsize size);

G_END_DECLS

#endif /* __STAGE_STORE_H__ */
