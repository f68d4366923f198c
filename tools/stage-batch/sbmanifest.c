/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sbmanifest: the manifest and template of stage-batch.
 *
 * Manifest: RFC 4180 CSV (quoted fields, "" inside quotes, newlines inside
 * quotes, CRLF), or TSV (by the .tsv/.tab extension, or a header with tabs
 * and no commas). A UTF-8 BOM is skipped, blank lines are ignored, unquoted
 * values are trimmed. Every row must have exactly the header's number of
 * values: a ragged row is an error naming its line, never padded.
 *
 * Template: `{name}` where name is [A-Za-z_][A-Za-z0-9_-]* is a
 * placeholder; `{{` and `}}` are literal braces; any other brace is literal
 * too, so caps lists such as `format={ I420, NV12 }` need no escaping.
 *
 * Values are data (issue 30): a placeholder becomes one property value,
 * quoted and escaped as gst-launch needs, never pipeline syntax: a value
 * `tee name=t ! filesink location=any` spliced where an element stands
 * would have written any file. `{name:pipeline}` declares a placeholder
 * whose values are pipeline text (a trusted manifest); an undeclared one
 * where only pipeline syntax can stand is refused by sb_template_new.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sbmanifest.h"

#include <string.h>

#define SB_ERROR (g_quark_from_static_string ("stage-batch-error"))

/* ---- manifest ------------------------------------------------------------ */

typedef struct
{
  const gchar *p, *end;
  gchar delim;
  guint line;
} SbLexer;

/* One record; NULL at the end of the text. *blank is set for an empty line. */
static GPtrArray *
lex_record (SbLexer * lx, const gchar * path, gboolean * blank, GError ** error)
{
  GPtrArray *fields;
  GString *f = g_string_new (NULL);
  gboolean quoted = FALSE, any = FALSE;

  if (lx->p >= lx->end) {
    g_string_free (f, TRUE);
    return NULL;
  }
  fields = g_ptr_array_new_with_free_func (g_free);
  *blank = FALSE;
  for (;;) {
    gchar c = lx->p < lx->end ? *lx->p : '\n';
    gboolean at_end = lx->p >= lx->end;

    if (c == '"' && !any) {
      guint start_line = lx->line;
      quoted = any = TRUE;
      lx->p++;
      for (;;) {
        if (lx->p >= lx->end) {
          g_set_error (error, SB_ERROR, 0,
              "%s:%u: a quoted value is never closed", path, start_line);
          g_string_free (f, TRUE);
          g_ptr_array_free (fields, TRUE);
          return NULL;
        }
        if (*lx->p == '"') {
          if (lx->p + 1 < lx->end && lx->p[1] == '"') {
            g_string_append_c (f, '"');
            lx->p += 2;
            continue;
          }
          lx->p++;
          break;
        }
        if (*lx->p == '\n')
          lx->line++;
        g_string_append_c (f, *lx->p++);
      }
      continue;
    }
    if (c == lx->delim || c == '\n' || c == '\r') {
      gchar *v = g_string_free (f, FALSE);
      if (!quoted)
        g_strstrip (v);
      g_ptr_array_add (fields, v);
      f = g_string_new (NULL);
      quoted = FALSE;
      any = FALSE;
      if (c == lx->delim) {
        lx->p++;
        continue;
      }
      if (c == '\r' && lx->p + 1 < lx->end && lx->p[1] == '\n')
        lx->p++;
      if (!at_end)
        lx->p++;
      lx->line++;
      break;
    }
    if (quoted) {
      /* Text after a closing quote: keep it (lenient, like most readers). */
    }
    if (c != ' ' && c != '\t')
      any = TRUE;
    g_string_append_c (f, c);
    lx->p++;
  }
  g_string_free (f, TRUE);
  if (fields->len == 1 && *(gchar *) fields->pdata[0] == '\0')
    *blank = TRUE;
  return fields;
}

static gchar
guess_delim (const gchar * path, const gchar * text, gsize len)
{
  const gchar *nl = memchr (text, '\n', len);
  gsize hl = nl ? (gsize) (nl - text) : len;

  if (g_str_has_suffix (path, ".tsv") || g_str_has_suffix (path, ".tab"))
    return '\t';
  if (memchr (text, '\t', hl) && !memchr (text, ',', hl))
    return '\t';
  return ',';
}

SbManifest *
sb_manifest_parse (const gchar * path, const gchar * text, gsize len,
    GError ** error)
{
  SbManifest *m;
  SbLexer lx;
  GPtrArray *rec;
  gboolean blank;
  GError *err = NULL;
  guint i, j;

  if (len >= 3 && memcmp (text, "\xef\xbb\xbf", 3) == 0) {
    text += 3;
    len -= 3;
  }
  if (!g_utf8_validate (text, len, NULL)) {
    g_set_error (error, SB_ERROR, 0, "%s: not UTF-8 text", path);
    return NULL;
  }
  lx.p = text;
  lx.end = text + len;
  lx.delim = guess_delim (path, text, len);
  lx.line = 1;

  do {
    rec = lex_record (&lx, path, &blank, &err);
    if (rec && blank)
      g_ptr_array_free (rec, TRUE);
  } while (rec && blank);
  if (!rec) {
    if (err)
      g_propagate_error (error, err);
    else
      g_set_error (error, SB_ERROR, 0, "%s: empty manifest (it needs a "
          "header row naming the columns, then one row per job)", path);
    return NULL;
  }

  m = g_new0 (SbManifest, 1);
  m->path = g_strdup (path);
  m->n_columns = rec->len;
  m->columns = g_new0 (gchar *, rec->len + 1);
  for (i = 0; i < rec->len; i++) {
    const gchar *name = rec->pdata[i];
    if (*name == '\0') {
      g_set_error (error, SB_ERROR, 0, "%s:1: column %u of the header has no "
          "name", path, i + 1);
      goto fail;
    }
    for (j = 0; j < i; j++)
      if (strcmp (m->columns[j], name) == 0) {
        g_set_error (error, SB_ERROR, 0, "%s:1: column \"%s\" appears twice "
            "in the header", path, name);
        goto fail;
      }
    m->columns[i] = g_strdup (name);
  }
  g_ptr_array_free (rec, TRUE);
  rec = NULL;

  m->rows = g_ptr_array_new ();
  m->lines = g_array_new (FALSE, FALSE, sizeof (guint));
  for (;;) {
    guint line = lx.line;
    gchar **vals;

    rec = lex_record (&lx, path, &blank, &err);
    if (!rec) {
      if (err) {
        g_propagate_error (error, err);
        goto fail;
      }
      break;
    }
    if (blank) {
      g_ptr_array_free (rec, TRUE);
      continue;
    }
    if (rec->len != m->n_columns) {
      g_set_error (error, SB_ERROR, 0, "%s:%u: row %u (job %u) has %u "
          "value%s, the header has %u columns", path, line, m->rows->len + 1,
          m->rows->len, rec->len, rec->len == 1 ? "" : "s", m->n_columns);
      goto fail;
    }
    vals = g_new0 (gchar *, m->n_columns + 1);
    for (i = 0; i < rec->len; i++)
      vals[i] = g_strdup (rec->pdata[i]);
    g_ptr_array_add (m->rows, vals);
    g_array_append_val (m->lines, line);
    g_ptr_array_free (rec, TRUE);
    rec = NULL;
  }
  if (m->rows->len == 0) {
    g_set_error (error, SB_ERROR, 0, "%s: the manifest has a header but no "
        "rows (one row per job)", path);
    goto fail;
  }
  return m;

fail:
  if (rec)
    g_ptr_array_free (rec, TRUE);
  sb_manifest_free (m);
  return NULL;
}

SbManifest *
sb_manifest_load (const gchar * path, GError ** error)
{
  gchar *text;
  gsize len;
  GError *err = NULL;
  SbManifest *m;

  if (!g_file_get_contents (path, &text, &len, &err)) {
    g_set_error (error, SB_ERROR, 0, "cannot read the manifest: %s",
        err->message);
    g_error_free (err);
    return NULL;
  }
  m = sb_manifest_parse (path, text, len, error);
  g_free (text);
  return m;
}

SbManifest *
sb_manifest_from_inputs (const gchar * const *inputs)
{
  SbManifest *m = g_new0 (SbManifest, 1);
  guint i;

  m->path = g_strdup ("--input");
  m->n_columns = 1;
  m->columns = g_new0 (gchar *, 2);
  m->columns[0] = g_strdup ("input");
  m->rows = g_ptr_array_new ();
  m->lines = g_array_new (FALSE, FALSE, sizeof (guint));
  for (i = 0; inputs[i]; i++) {
    gchar **vals = g_new0 (gchar *, 2);
    vals[0] = g_strdup (inputs[i]);
    g_ptr_array_add (m->rows, vals);
    g_array_append_val (m->lines, i);
  }
  return m;
}

void
sb_manifest_free (SbManifest * m)
{
  if (!m)
    return;
  if (m->rows) {
    guint i;
    for (i = 0; i < m->rows->len; i++)
      g_strfreev (m->rows->pdata[i]);
    g_ptr_array_free (m->rows, TRUE);
  }
  if (m->lines)
    g_array_free (m->lines, TRUE);
  g_strfreev (m->columns);
  g_free (m->path);
  g_free (m);
}

void
sb_manifest_add_column (SbManifest * m, const gchar * name,
    const gchar * value)
{
  guint r;

  m->columns = g_renew (gchar *, m->columns, m->n_columns + 2);
  m->columns[m->n_columns] = g_strdup (name);
  m->columns[m->n_columns + 1] = NULL;
  for (r = 0; r < m->rows->len; r++) {
    gchar **v = g_renew (gchar *, m->rows->pdata[r], m->n_columns + 2);
    v[m->n_columns] = g_strdup (value);
    v[m->n_columns + 1] = NULL;
    m->rows->pdata[r] = v;
  }
  m->n_columns++;
}

gint
sb_manifest_column (const SbManifest * m, const gchar * name)
{
  guint i;

  for (i = 0; i < m->n_columns; i++)
    if (strcmp (m->columns[i], name) == 0)
      return i;
  return -1;
}

const gchar *
sb_manifest_value (const SbManifest * m, guint row, const gchar * column)
{
  gint c = sb_manifest_column (m, column);

  if (c < 0 || row >= m->rows->len)
    return NULL;
  return ((gchar **) m->rows->pdata[row])[c];
}

gchar *
sb_manifest_where (const SbManifest * m, guint row)
{
  if (strcmp (m->path, "--input") == 0)
    return g_strdup_printf ("--input #%u", row + 1);
  return g_strdup_printf ("%s:%u", m->path,
      g_array_index (m->lines, guint, row));
}

static gchar *
stem_of (const gchar * path)
{
  gchar *base = g_path_get_basename (path);
  gchar *dot = strrchr (base, '.');

  if (dot && dot != base)
    *dot = '\0';
  return base;
}

gchar *
sb_manifest_label (const SbManifest * m, guint row)
{
  const gchar *input = sb_manifest_value (m, row, "input");

  if (sb_manifest_column (m, "name") >= 0)
    return g_strdup (sb_manifest_value (m, row, "name"));
  if (input)
    return stem_of (input);
  return g_strdup (((gchar **) m->rows->pdata[row])[0]);
}

/* ---- template ------------------------------------------------------------ */

/* Where a placeholder stands decides what its value may become. */
typedef enum
{
  SB_AT_VALUE,                  /* key=HERE: one value, quoted if needed */
  SB_AT_QUOTED,                 /* inside "...": escaped */
  SB_AT_VALUE_BARE,             /* key="..."HERE: an error, see below */
  SB_AT_PIPELINE,               /* {name:pipeline}: spliced as it is */
  SB_AT_ELEMENT,                /* anywhere else: an error */
} SbAt;

struct _SbTemplate
{
  gchar *text;
  GPtrArray *names;             /* distinct, NULL-terminated */
  GHashTable *data;             /* names used as data at least once */
};

/* If a placeholder starts at p, its name (and *len the bytes it spans);
 * *kind: NULL for {name}, the text after ':' for {name:kind}. */
static gchar *
placeholder_at (const gchar * p, gsize * len, gchar ** kind)
{
  const gchar *q, *k = NULL;

  *kind = NULL;
  if (p[0] != '{' || !(g_ascii_isalpha (p[1]) || p[1] == '_'))
    return NULL;
  for (q = p + 2; g_ascii_isalnum (*q) || *q == '_' || *q == '-'; q++);
  if (*q == ':' && g_ascii_isalpha (q[1])) {
    k = q + 1;
    for (q = k; g_ascii_isalnum (*q) || *q == '_' || *q == '-'; q++);
  }
  if (*q != '}')
    return NULL;
  *len = q - p + 1;
  if (k)
    *kind = g_strndup (k, q - k);
  return g_strndup (p + 1, (k ? k - 1 : q) - p - 1);
}

static gboolean
is_brace_escape (const gchar * p, const gchar * end)
{
  return p + 1 < end && ((p[0] == '{' && p[1] == '{') || (p[0] == '}'
          && p[1] == '}'));
}

/* Characters that end or change an unquoted gst-launch value. */
static gboolean
needs_quoting (const gchar * v)
{
  for (; *v; v++)
    if (g_ascii_isspace (*v) || strchr ("\"'\\!,;()[]{}=<>#", *v))
      return TRUE;
  return FALSE;
}

/* Inside gst-launch's double quotes only \" is an escape (GStreamer 1.22
 * keeps a \\ as two backslashes), which is why a value with a backslash is
 * refused by sb_template_check rather than escaped here. */
static void
append_escaped (GString * out, const gchar * v)
{
  for (; *v; v++) {
    if (*v == '"')
      g_string_append_c (out, '\\');
    g_string_append_c (out, *v);
  }
}

/* The walk over a template shared by the check of positions (m NULL: the
 * first placeholder in a place where only pipeline syntax can stand is an
 * error) and the expansion of a row (into `out`). */
typedef struct
{
  SbTemplate *t;
  const SbManifest *m;
  guint row;
  GString *out;
  GError **error;
  gboolean failed;
} SbWalk;

static void
walk_placeholder (SbWalk * wk, const gchar * name, const gchar * kind,
    SbAt at, GString * val, gboolean * quote)
{
  gchar *v;

  if (kind && strcmp (kind, "pipeline") == 0 && at != SB_AT_QUOTED)
    at = SB_AT_PIPELINE;
  if (!wk->m) {
    if (kind && strcmp (kind, "pipeline") != 0 && !wk->failed) {
      g_set_error (wk->error, SB_ERROR, 0, "the template's placeholder "
          "{%s:%s} has an unknown kind (the only one is {%s:pipeline})", name,
          kind, name);
      wk->failed = TRUE;
    } else if (at == SB_AT_ELEMENT && !wk->failed) {
      g_set_error (wk->error, SB_ERROR, 0, "the template's placeholder {%s} "
          "stands where pipeline syntax is read (an element, caps, a link), "
          "so a manifest value could add elements, e.g. a filesink that "
          "writes any file. Use it as a property value (property={%s}), or "
          "declare it {%s:pipeline} to splice its values in as they are "
          "(only with a manifest you trust)", name, name, name);
      wk->failed = TRUE;
    } else if (at == SB_AT_VALUE_BARE && !wk->failed) {
      /* GStreamer (1.22) keeps the quotes of key="a"b as part of the
       * value: no quoting of ours could make such a value right. */
      g_set_error (wk->error, SB_ERROR, 0, "the template's placeholder {%s} "
          "follows a closing quote: GStreamer would read the quotes as part "
          "of the value; put the whole value in quotes (key=\"...{%s}\")",
          name, name);
      wk->failed = TRUE;
    }
    if (at != SB_AT_PIPELINE && !g_hash_table_contains (wk->t->data, name))
      g_hash_table_add (wk->t->data, g_strdup (name));
    return;
  }
  v = sb_template_value (wk->m, wk->row, name);
  if (!v)
    return;
  switch (at) {
    case SB_AT_VALUE:
      *quote |= needs_quoting (v);
      g_string_append (val, v);
      break;
    case SB_AT_QUOTED:
      append_escaped (val, v);
      break;
    default:
      g_string_append (val, v);
      break;
  }
  g_free (v);
}

/* Copies text [p, end) with its placeholders in position `at`. */
static void
walk_span (SbWalk * wk, const gchar * p, const gchar * end, SbAt at,
    GString * val, gboolean * quote)
{
  while (p < end) {
    gsize len;
    gchar *kind, *name;

    if (is_brace_escape (p, end)) {
      g_string_append_c (val, *p);
      p += 2;
      continue;
    }
    name = placeholder_at (p, &len, &kind);
    if (name && p + len <= end) {
      walk_placeholder (wk, name, kind, at, val, quote);
      p += len;
    } else {
      g_string_append_c (val, *p++);
    }
    g_free (name);
    g_free (kind);
  }
}

/* An unquoted word: `key=value` (or a word right after a lone '='): the
 * value is one property value, quoted as a whole when a substituted value
 * has text that gst-launch would split. Anything else is pipeline syntax. */
static void
walk_word (SbWalk * wk, const gchar * w, const gchar * end, gboolean after_eq)
{
  GString *val = g_string_new (NULL);
  gboolean quote = FALSE;
  const gchar *eq = memchr (w, '=', end - w);

  if (eq || after_eq) {
    const gchar *v = after_eq ? w : eq + 1;
    walk_span (wk, w, v, SB_AT_ELEMENT, wk->out, &quote);
    quote = FALSE;
    walk_span (wk, v, end, SB_AT_VALUE, val, &quote);
  } else {
    walk_span (wk, w, end, SB_AT_ELEMENT, val, &quote);
  }
  if (quote) {
    g_string_append_c (wk->out, '"');
    append_escaped (wk->out, val->str);
    g_string_append_c (wk->out, '"');
  } else {
    g_string_append_len (wk->out, val->str, val->len);
  }
  g_string_free (val, TRUE);
}

/* A word with quotes: inside them values are escaped; outside, after a
 * '=', refused (see walk_placeholder); anywhere else pipeline syntax. */
static void
walk_quoted_word (SbWalk * wk, const gchar * q, const gchar * end,
    gboolean after_eq)
{
  gboolean in_q = FALSE, quote = FALSE, seen_eq = after_eq;

  while (q < end) {
    const gchar *s = q;

    if (*q == '"') {
      in_q = !in_q;
      g_string_append_c (wk->out, *q++);
      continue;
    }
    /* a run of text up to the next quote (or escape inside quotes) */
    while (q < end && *q != '"' && !(in_q && *q == '\\'))
      q++;
    if (in_q) {
      walk_span (wk, s, q, SB_AT_QUOTED, wk->out, &quote);
      if (q < end && *q == '\\') {
        g_string_append_len (wk->out, q, MIN (2, end - q));
        q += MIN (2, end - q);
      }
    } else {
      const gchar *eq = seen_eq ? s : memchr (s, '=', q - s);
      if (eq) {
        if (!seen_eq)
          walk_span (wk, s, eq + 1, SB_AT_ELEMENT, wk->out, &quote);
        walk_span (wk, seen_eq ? s : eq + 1, q, SB_AT_VALUE_BARE, wk->out,
            &quote);
        seen_eq = TRUE;
      } else {
        walk_span (wk, s, q, SB_AT_ELEMENT, wk->out, &quote);
      }
    }
  }
}

static void
walk (SbWalk * wk, const gchar * text)
{
  const gchar *p = text;
  gboolean after_eq = FALSE;    /* the last word ended with a '=' */

  while (*p) {
    const gchar *w = p;
    gboolean has_quote = FALSE, in_q = FALSE;

    if (g_ascii_isspace (*p) || *p == '!') {
      if (*p == '!')
        after_eq = FALSE;
      g_string_append_c (wk->out, *p++);
      continue;
    }
    /* A word: up to whitespace or '!' outside quotes. */
    while (*p && (in_q || !(g_ascii_isspace (*p) || *p == '!'))) {
      if (*p == '"') {
        in_q = !in_q;
        has_quote = TRUE;
      } else if (*p == '\\' && in_q && p[1]) {
        p++;
      }
      p++;
    }
    if (has_quote)
      walk_quoted_word (wk, w, p, after_eq);
    else
      walk_word (wk, w, p, after_eq);
    after_eq = p[-1] == '=';
  }
}

SbTemplate *
sb_template_new (const gchar * text, GError ** error)
{
  SbTemplate *t = g_new0 (SbTemplate, 1);
  SbWalk wk = { 0 };
  const gchar *p;

  if (!g_utf8_validate (text, -1, NULL)) {
    g_set_error (error, SB_ERROR, 0, "the template is not UTF-8 text");
    g_free (t);
    return NULL;
  }
  t->text = g_strdup (text);
  t->names = g_ptr_array_new_with_free_func (g_free);
  t->data = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (p = text; *p; p++) {
    gsize len;
    gchar *name, *kind;
    guint i;

    if (is_brace_escape (p, p + 2)) {
      p++;
      continue;
    }
    name = placeholder_at (p, &len, &kind);
    g_free (kind);
    if (!name)
      continue;
    for (i = 0; i < t->names->len; i++)
      if (strcmp (t->names->pdata[i], name) == 0)
        break;
    if (i == t->names->len)
      g_ptr_array_add (t->names, name);
    else
      g_free (name);
    p += len - 1;
  }
  g_ptr_array_add (t->names, NULL);

  wk.t = t;
  wk.out = g_string_new (NULL);
  wk.error = error;
  walk (&wk, text);
  g_string_free (wk.out, TRUE);
  if (wk.failed) {
    sb_template_free (t);
    return NULL;
  }
  return t;
}

void
sb_template_free (SbTemplate * t)
{
  if (!t)
    return;
  g_ptr_array_free (t->names, TRUE);
  g_hash_table_destroy (t->data);
  g_free (t->text);
  g_free (t);
}

const gchar *const *
sb_template_placeholders (const SbTemplate * t)
{
  return (const gchar * const *) t->names->pdata;
}

static gboolean
is_builtin (const SbManifest * m, const gchar * name)
{
  if (strcmp (name, "job") == 0)
    return TRUE;
  return strcmp (name, "stem") == 0 && sb_manifest_column (m, "input") >= 0;
}

gchar *
sb_template_value (const SbManifest * m, guint row, const gchar * name)
{
  const gchar *v = sb_manifest_value (m, row, name);

  if (v)
    return g_strdup (v);
  if (strcmp (name, "job") == 0)
    return g_strdup_printf ("%u", row);
  if (strcmp (name, "stem") == 0 && sb_manifest_column (m, "input") >= 0)
    return stem_of (sb_manifest_value (m, row, "input"));
  return NULL;
}

/* A row's value for a placeholder used as data: not empty, and without a
 * backslash (gst-launch's quoting cannot carry one before a quote, and
 * GStreamer versions disagree on the others). */
static gboolean
check_value (const SbTemplate * t, const SbManifest * m, guint r,
    const gchar * name, GError ** error)
{
  gchar *v = sb_template_value (m, r, name), *where;
  const gchar *why = NULL;

  if (v && *v == '\0')
    why = "has no value for column \"%s\", which the template uses";
  else if (v && strchr (v, '\\') && g_hash_table_contains (t->data, name))
    why = "has a backslash in column \"%s\", which the pipeline syntax "
        "cannot quote";
  g_free (v);
  if (!why)
    return TRUE;
  where = sb_manifest_where (m, r);
  {
    gchar *what = g_strdup_printf (why, name);
    g_set_error (error, SB_ERROR, 0, "%s: row %u (job %u) %s", where, r + 1,
        r, what);
    g_free (what);
  }
  g_free (where);
  return FALSE;
}

gboolean
sb_template_check (const SbTemplate * t, const SbManifest * m, GError ** error)
{
  const gchar *const *names = sb_template_placeholders (t);
  guint i, r;

  for (i = 0; names[i]; i++) {
    if (sb_manifest_column (m, names[i]) >= 0 || is_builtin (m, names[i]))
      continue;
    {
      gchar *cols = g_strjoinv (", ", m->columns);
      g_set_error (error, SB_ERROR, 0, "the template's placeholder {%s} has "
          "no column in %s (columns: %s; built-in: {job}%s; write {{ and }} "
          "for literal braces)", names[i], m->path, cols,
          sb_manifest_column (m, "input") >= 0 ? ", {stem}" : "");
      g_free (cols);
      return FALSE;
    }
  }
  for (r = 0; r < m->rows->len; r++)
    for (i = 0; names[i]; i++)
      if (!check_value (t, m, r, names[i], error))
        return FALSE;
  return TRUE;
}

gchar *
sb_template_expand (const SbTemplate * t, const SbManifest * m, guint row)
{
  SbWalk wk = { 0 };

  wk.t = (SbTemplate *) t;
  wk.m = m;
  wk.row = row;
  wk.out = g_string_new (NULL);
  walk (&wk, t->text);
  return g_string_free (wk.out, FALSE);
}
