/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spdb: stageprof's SQLite export (db=PATH).
 *
 * Summary snapshots (the "stageprof-summary" GstStructure) are copied and
 * queued by the caller; a writer thread inserts them, so no streaming thread
 * ever waits on the database. Opening a database that exists appends a new
 * run to it. Schema and example queries: docs/tracer-db.md.
 * Compiled only when sqlite3 is found (HAVE_SPDB).
 */
#ifndef __SP_DB_H__
#define __SP_DB_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _SpDb SpDb;
SpDb *sp_db_open (const gchar *path, GError **error);   /* creates the schema; starts its writer thread; error names the path */
void  sp_db_add_snapshot (SpDb *db, const GstStructure *summary); /* copies, queues; the writer thread inserts. Never blocks on I/O. A "stageprof-window" structure (summary/spwindow.h) goes into the windows tables. */
void  sp_db_close (SpDb *db);                            /* drains the queue, closes */

/* Additions beyond the fixed interface. */

/* The run_id this SpDb inserts its snapshots under. */
gint64 sp_db_get_run_id (SpDb *db);
/* Snapshots dropped because SP_DB_MAX_PENDING were already queued (a
 * stalled disk); sp_db_close() warns when non-zero. */
guint  sp_db_get_dropped (SpDb *db);

/* Snapshots that failed to insert (disk full...) and were rolled back
 * whole; sp_db_close() warns when non-zero. */
guint  sp_db_get_failed (SpDb *db);

/* 6: the windows tables */
#define SP_DB_SCHEMA_VERSION 6
#define SP_DB_MAX_PENDING 1024

G_END_DECLS

#endif /* __SP_DB_H__ */
