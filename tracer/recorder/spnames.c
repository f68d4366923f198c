/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spnames: the recorder's counted table of names (spnames.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "spnames.h"

typedef struct
{
  guint refs;
  gchar s[];                    /* the key of its table entry */
} SpName;

struct _SpNames
{
  GHashTable *table;            /* string -> SpName, whose s is the key */
  gboolean keep_all;
};

SpNames *
sp_names_new (void)
{
  SpNames *n = g_new0 (SpNames, 1);

  n->table = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  return n;
}

void
sp_names_free (SpNames * n)
{
  if (!n)
    return;
  g_hash_table_destroy (n->table);
  g_free (n);
}

const gchar *
sp_names_ref (SpNames * n, const gchar * s)
{
  SpName *e = g_hash_table_lookup (n->table, s);

  if (!e) {
    gsize len = strlen (s);

    e = g_malloc (sizeof (SpName) + len + 1);
    e->refs = 0;
    memcpy (e->s, s, len + 1);
    g_hash_table_insert (n->table, e->s, e);
  }
  e->refs++;
  return e->s;
}

void
sp_names_unref (SpNames * n, const gchar * s)
{
  SpName *e;

  if (!s)
    return;
  e = g_hash_table_lookup (n->table, s);
  /* Only pointers sp_names_ref() returned come here. */
  g_return_if_fail (e != NULL && e->s == s && e->refs > 0);
  if (--e->refs == 0 && !n->keep_all)
    g_hash_table_remove (n->table, s);
}

void
sp_names_keep_all (SpNames * n)
{
  n->keep_all = TRUE;
}

guint
sp_names_count (SpNames * n)
{
  return g_hash_table_size (n->table);
}
