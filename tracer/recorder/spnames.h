/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spnames: the recorder's table of the names its records carry
 * (pipelines, elements, threads). One copy a name, shared by pointer (the
 * summary and the trace compare names by pointer), counted: a name is
 * freed with the last record that carries it, so an application that
 * creates and destroys pipelines with ever new names keeps a bounded
 * table, where GLib's g_intern_string() never frees. Not locked: the
 * recorder's lock is held around every call.
 */
#ifndef __SP_NAMES_H__
#define __SP_NAMES_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SpNames SpNames;

SpNames     *sp_names_new (void);
void         sp_names_free (SpNames * n);
/* The table's copy of `s`, with one more reference: equal strings give
 * the same pointer while referenced. */
const gchar *sp_names_ref (SpNames * n, const gchar * s);
/* Drops a reference taken with sp_names_ref(); NULL is ignored. */
void         sp_names_unref (SpNames * n, const gchar * s);
/* From now on no name is freed (a trace holds them by pointer until the
 * recorder is freed). */
void         sp_names_keep_all (SpNames * n);
/* Names in the table now. */
guint        sp_names_count (SpNames * n);

G_END_DECLS

#endif /* __SP_NAMES_H__ */
