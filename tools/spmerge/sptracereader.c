/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sptracereader: streaming Chrome trace (JSON array) reader. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "sptracereader.h"

/* Declared in spreport.h; defined here, in the library that stage-batch
 * links too (the reader is the domain's first user). */
G_DEFINE_QUARK (sp-report-error-quark, sp_report_error);

#define BLOCK (4 * 1024 * 1024)
/* An event larger than this is not one stageprof wrote. */
#define MAX_EVENT (16 * 1024 * 1024)

typedef enum { P_OK, P_MORE, P_BAD } PStatus;

struct _SpTraceReader
{
  gchar *path;
  FILE *f;
  gchar *buf;
  gsize cap, start, len;        /* unread bytes: buf[start .. len) */
  guint64 base;                 /* file offset of buf[0] */
  gboolean eof, begun, ended;
  guint64 events;
  gchar *cut;
  guint64 oversized, oversized_at;      /* events skipped, the first's byte */
  gchar *oversized_note;
  GString *name, *cat;
  GString *argstr[SP_EVENT_MAX_ARGS];
  GString *tmp;
  SpEvent ev;
  guint64 size, next_progress;
};

static SpTraceProgress progress_func;

void
sp_trace_reader_set_progress (SpTraceProgress func)
{
  progress_func = func;
}

SpTraceReader *
sp_trace_reader_open (const gchar * path, GError ** error)
{
  SpTraceReader *r;
  FILE *f = fopen (path, "rb");
  guint i;

  if (!f) {
    g_set_error (error, SP_REPORT_ERROR, SP_REPORT_ERROR_IO,
        "cannot open '%s': %s", path, g_strerror (errno));
    return NULL;
  }
  r = g_new0 (SpTraceReader, 1);
  r->path = g_strdup (path);
  r->f = f;
  {
    struct stat st;
    if (fstat (fileno (f), &st) == 0)
      r->size = st.st_size;
  }
  {
    /* A byte-order mark (an editor's) is not part of the JSON. */
    guchar bom[3];
    if (fread (bom, 1, 3, f) == 3 && memcmp (bom, "\xef\xbb\xbf", 3) == 0)
      r->base = 3;
    else
      rewind (f);
  }
  r->next_progress = 64 << 20;
  r->cap = BLOCK;
  r->buf = g_malloc (r->cap + 1);
  r->name = g_string_new (NULL);
  r->cat = g_string_new (NULL);
  r->tmp = g_string_new (NULL);
  for (i = 0; i < SP_EVENT_MAX_ARGS; i++)
    r->argstr[i] = g_string_new (NULL);
  return r;
}

void
sp_trace_reader_free (SpTraceReader * r)
{
  guint i;

  if (!r)
    return;
  fclose (r->f);
  g_free (r->path);
  g_free (r->buf);
  g_free (r->cut);
  g_free (r->oversized_note);
  g_string_free (r->name, TRUE);
  g_string_free (r->cat, TRUE);
  g_string_free (r->tmp, TRUE);
  for (i = 0; i < SP_EVENT_MAX_ARGS; i++)
    g_string_free (r->argstr[i], TRUE);
  g_free (r);
}

const gchar *
sp_trace_reader_cut (SpTraceReader * r)
{
  return r->cut;
}

const gchar *
sp_trace_reader_skipped (SpTraceReader * r)
{
  if (r->oversized == 0)
    return NULL;
  g_free (r->oversized_note);
  r->oversized_note = g_strdup_printf ("%" G_GUINT64_FORMAT " event%s "
      "larger than %d MiB skipped (the first at byte %" G_GUINT64_FORMAT
      "): not events stageprof writes", r->oversized, r->oversized == 1 ?
      "" : "s", MAX_EVENT >> 20, r->oversized_at);
  return r->oversized_note;
}

guint64
sp_trace_reader_events (SpTraceReader * r)
{
  return r->events;
}

guint64
sp_trace_reader_offset (SpTraceReader * r)
{
  return r->base + r->start;
}

/* Moves the unread bytes to the front and reads more; FALSE at EOF with
 * nothing new. */
static gboolean
refill (SpTraceReader * r)
{
  gsize n;

  if (r->eof)
    return FALSE;
  if (r->start > 0) {
    memmove (r->buf, r->buf + r->start, r->len - r->start);
    r->base += r->start;
    r->len -= r->start;
    r->start = 0;
  }
  if (r->len >= r->cap) {
    if (r->cap >= MAX_EVENT)
      return FALSE;
    r->cap *= 2;
    r->buf = g_realloc (r->buf, r->cap + 1);
  }
  n = fread (r->buf + r->len, 1, r->cap - r->len, r->f);
  if (n == 0) {
    r->eof = TRUE;
    return FALSE;
  }
  r->len += n;
  r->buf[r->len] = 0;
  if (progress_func && r->base + r->len >= r->next_progress) {
    progress_func (r->path, r->base + r->len, r->size);
    r->next_progress += 64 << 20;
  }
  return TRUE;
}

/* Skips the event that starts at buf[start] and fills the whole buffer
 * (MAX_EVENT), reading on through strings and nested values to its
 * closing brace; FALSE when the file ends first. */
static gboolean
skip_event (SpTraceReader * r)
{
  gint depth = 0;
  gboolean in_str = FALSE, esc = FALSE;
  gsize n;

  for (;;) {
    while (r->start < r->len) {
      gchar ch = r->buf[r->start++];

      if (in_str) {
        if (esc)
          esc = FALSE;
        else if (ch == '\\')
          esc = TRUE;
        else if (ch == '"')
          in_str = FALSE;
      } else if (ch == '"') {
        in_str = TRUE;
      } else if (ch == '{' || ch == '[') {
        depth++;
      } else if ((ch == '}' || ch == ']') && --depth == 0) {
        return TRUE;
      }
    }
    r->base += r->len;
    r->start = r->len = 0;
    n = fread (r->buf, 1, r->cap, r->f);
    if (n == 0) {
      r->eof = TRUE;
      return FALSE;
    }
    r->len = n;
    r->buf[n] = 0;
  }
}

/* ---- a small JSON parser over [p, end) -------------------------------- */

typedef struct
{
  const gchar *p, *end;
} Cur;

static inline void
ws (Cur * c)
{
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r'
          || *c->p == '\t'))
    c->p++;
}

static void
put_utf8 (GString * out, gunichar u)
{
  gchar b[6];
  gint n = g_unichar_to_utf8 (u, b);

  g_string_append_len (out, b, n);
}

static PStatus
hex4 (Cur * c, gunichar * u)
{
  gint i;

  if (c->end - c->p < 4)
    return P_MORE;
  *u = 0;
  for (i = 0; i < 4; i++) {
    gint d = g_ascii_xdigit_value (c->p[i]);
    if (d < 0)
      return P_BAD;
    *u = *u * 16 + d;
  }
  c->p += 4;
  return P_OK;
}

/* A string; its decoded text into `out` (may be NULL to skip). */
static PStatus
string (Cur * c, GString * out)
{
  const gchar *run;

  if (c->p >= c->end)
    return P_MORE;
  if (*c->p != '"')
    return P_BAD;
  c->p++;
  if (out)
    g_string_truncate (out, 0);
  for (;;) {
    run = c->p;
    while (c->p < c->end && *c->p != '"' && *c->p != '\\'
        && (guchar) * c->p >= 0x20)
      c->p++;
    if (out && c->p > run)
      g_string_append_len (out, run, c->p - run);
    if (c->p >= c->end)
      return P_MORE;
    if (*c->p == '"') {
      c->p++;
      return P_OK;
    }
    if ((guchar) * c->p < 0x20)
      return P_BAD;
    /* backslash */
    if (c->end - c->p < 2)
      return P_MORE;
    c->p++;
    switch (*c->p++) {
      case '"':
      case '\\':
      case '/':
        if (out)
          g_string_append_c (out, c->p[-1]);
        break;
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        if (out)
          g_string_append_c (out, ' ');
        break;
      case 'u':{
        gunichar u;
        PStatus s = hex4 (c, &u);
        if (s != P_OK)
          return s;
        if (u >= 0xd800 && u < 0xdc00) {
          gunichar lo;
          if (c->end - c->p < 6)
            return P_MORE;
          if (c->p[0] != '\\' || c->p[1] != 'u')
            return P_BAD;
          c->p += 2;
          if ((s = hex4 (c, &lo)) != P_OK)
            return s;
          u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
        }
        if (out)
          put_utf8 (out, g_unichar_validate (u) ? u : 0xfffd);
        break;
      }
      default:
        return P_BAD;
    }
  }
}

/* JSON's number grammar, no more: what passes is copied verbatim into a
 * merged trace, which must stay strict JSON. */
static gboolean
json_number_ok (const gchar * s, const gchar * end)
{
  if (s < end && *s == '-')
    s++;
  if (s >= end || !g_ascii_isdigit (*s))
    return FALSE;
  if (*s == '0')
    s++;
  else
    while (s < end && g_ascii_isdigit (*s))
      s++;
  if (s < end && *s == '.') {
    if (++s >= end || !g_ascii_isdigit (*s))
      return FALSE;
    while (s < end && g_ascii_isdigit (*s))
      s++;
  }
  if (s < end && (*s == 'e' || *s == 'E')) {
    s++;
    if (s < end && (*s == '+' || *s == '-'))
      s++;
    if (s >= end || !g_ascii_isdigit (*s))
      return FALSE;
    while (s < end && g_ascii_isdigit (*s))
      s++;
  }
  return s == end;
}

static PStatus
number (Cur * c, gdouble * v)
{
  const gchar *s = c->p;
  gchar tmp[64];
  gchar *e;
  gsize n;

  while (c->p < c->end && (g_ascii_isdigit (*c->p) || *c->p == '-'
          || *c->p == '+' || *c->p == '.' || *c->p == 'e' || *c->p == 'E'))
    c->p++;
  if (c->p >= c->end)
    return P_MORE;
  n = c->p - s;
  if (n == 0 || n >= sizeof (tmp) || !json_number_ok (s, c->p))
    return P_BAD;
  /* Fast path: plain decimals, the only numbers stageprof writes. */
  {
    const gchar *q = s;
    gboolean neg = FALSE;
    guint64 ip = 0, fp = 0, scale = 1;
    if (*q == '-') {
      neg = TRUE;
      q++;
    }
    while (q < c->p && g_ascii_isdigit (*q) && ip < G_GUINT64_CONSTANT (100000000000000000))
      ip = ip * 10 + (*q++ - '0');
    if (q < c->p && *q == '.') {
      q++;
      while (q < c->p && g_ascii_isdigit (*q) && scale < G_GUINT64_CONSTANT (1000000000000)) {
        fp = fp * 10 + (*q++ - '0');
        scale *= 10;
      }
    }
    if (q == c->p && q > s + neg) {
      *v = (gdouble) ip + (gdouble) fp / (gdouble) scale;
      if (neg)
        *v = -*v;
      return P_OK;
    }
  }
  memcpy (tmp, s, n);
  tmp[n] = 0;
  *v = g_ascii_strtod (tmp, &e);
  /* 1e999: a number JSON allows, no double holds; clamped. */
  if (isinf (*v))
    *v = *v > 0 ? G_MAXDOUBLE : -G_MAXDOUBLE;
  return *e == 0 ? P_OK : P_BAD;
}

static PStatus skip_value (Cur * c, gint depth);

/* Past the opening '{' or '[' at c->p; *empty when `close` follows at
 * once (and is passed too). */
static PStatus
open_container (Cur * c, gchar close, gboolean * empty)
{
  c->p++;
  ws (c);
  if (c->p >= c->end)
    return P_MORE;
  *empty = *c->p == close;
  if (*empty)
    c->p++;
  return P_OK;
}

/* An object member's `"key":`, up to its value; the key into `key` (NULL:
 * not kept). */
static PStatus
member_key (Cur * c, GString * key)
{
  PStatus s;

  ws (c);
  if ((s = string (c, key)) != P_OK)
    return s;
  ws (c);
  if (c->p >= c->end)
    return P_MORE;
  if (*c->p++ != ':')
    return P_BAD;
  ws (c);
  return c->p < c->end ? P_OK : P_MORE;
}

/* What follows a member or an element: ',' (another one) or `close` (the
 * end, *closed set). */
static PStatus
next_member (Cur * c, gchar close, gboolean * closed)
{
  ws (c);
  if (c->p >= c->end)
    return P_MORE;
  *closed = *c->p == close;
  if (*c->p != ',' && *c->p != close)
    return P_BAD;
  c->p++;
  return P_OK;
}

static PStatus
skip_container (Cur * c, gint depth)
{
  gchar close = *c->p == '{' ? '}' : ']';
  gboolean obj = close == '}';
  PStatus s;
  gboolean empty;

  if (depth > 64)
    return P_BAD;
  if ((s = open_container (c, close, &empty)) != P_OK || empty)
    return s;
  for (;;) {
    gboolean closed;
    if (obj && (s = member_key (c, NULL)) != P_OK)
      return s;
    if ((s = skip_value (c, depth + 1)) != P_OK)
      return s;
    if ((s = next_member (c, close, &closed)) != P_OK || closed)
      return s;
  }
}

static PStatus
literal (Cur * c, const gchar * lit)
{
  gsize n = strlen (lit);

  if ((gsize) (c->end - c->p) < n)
    return strncmp (c->p, lit, c->end - c->p) == 0 ? P_MORE : P_BAD;
  if (strncmp (c->p, lit, n) != 0)
    return P_BAD;
  c->p += n;
  return P_OK;
}

static PStatus
skip_value (Cur * c, gint depth)
{
  gdouble d;

  ws (c);
  if (c->p >= c->end)
    return P_MORE;
  switch (*c->p) {
    case '"':
      return string (c, NULL);
    case '{':
    case '[':
      return skip_container (c, depth);
    case 't':
      return literal (c, "true");
    case 'f':
      return literal (c, "false");
    case 'n':
      return literal (c, "null");
    default:
      return number (c, &d);
  }
}

static PStatus
parse_args (SpTraceReader * r, Cur * c)
{
  SpEvent *ev = &r->ev;
  PStatus s;
  gboolean empty;

  if (*c->p != '{')
    return skip_value (c, 1);
  if ((s = open_container (c, '}', &empty)) != P_OK || empty)
    return s;
  for (;;) {
    SpEventArg *a = ev->n_args < SP_EVENT_MAX_ARGS ? &ev->args[ev->n_args] :
        NULL;
    gboolean closed;
    if ((s = member_key (c, r->tmp)) != P_OK)
      return s;
    if (a && r->tmp->len < sizeof (a->key)) {
      memcpy (a->key, r->tmp->str, r->tmp->len + 1);
      if (*c->p == '"') {
        if ((s = string (c, r->argstr[ev->n_args])) != P_OK)
          return s;
        a->is_num = FALSE;
        a->str = r->argstr[ev->n_args]->str;
        ev->n_args++;
      } else if (*c->p == '-' || g_ascii_isdigit (*c->p)) {
        if ((s = number (c, &a->num)) != P_OK)
          return s;
        a->is_num = TRUE;
        a->str = NULL;
        ev->n_args++;
      } else if ((s = skip_value (c, 2)) != P_OK) {
        return s;
      }
    } else if ((s = skip_value (c, 2)) != P_OK) {
      return s;
    }
    if ((s = next_member (c, '}', &closed)) != P_OK || closed)
      return s;
  }
}

/* Integer ids; a string id (other tracers) is hashed to a number. */
static PStatus
id_value (Cur * c, SpTraceReader * r, gint64 * v)
{
  gdouble d;
  PStatus s;

  if (c->p < c->end && *c->p == '"') {
    if ((s = string (c, r->tmp)) != P_OK)
      return s;
    *v = g_str_hash (r->tmp->str);
    return P_OK;
  }
  if ((s = number (c, &d)) != P_OK)
    return s;
  *v = sp_to_int64 (d);
  return P_OK;
}

static PStatus
parse_event (SpTraceReader * r, Cur * c)
{
  SpEvent *ev = &r->ev;
  const gchar *obj = c->p;
  PStatus s;
  gboolean empty;

  memset (ev, 0, G_STRUCT_OFFSET (SpEvent, args));
  ev->n_args = 0;
  ev->name = "";
  g_string_truncate (r->name, 0);
  if (*c->p != '{')
    return P_BAD;
  if ((s = open_container (c, '}', &empty)) != P_OK)
    return s;
  while (!empty) {
    const gchar *vstart;
    gboolean closed;
    if ((s = member_key (c, r->tmp)) != P_OK)
      return s;
    vstart = c->p;
    switch (r->tmp->len) {
      case 2:
        if (strcmp (r->tmp->str, "ph") == 0) {
          if ((s = string (c, r->tmp)) != P_OK)
            return s;
          ev->ph = r->tmp->str[0];
          break;
        } else if (strcmp (r->tmp->str, "ts") == 0) {
          if ((s = number (c, &ev->ts)) != P_OK)
            return s;
          ev->has_ts = TRUE;
          ev->ts_off = vstart - obj;
          ev->ts_len = c->p - vstart;
          break;
        }
        goto other;
      case 3:
        if (strcmp (r->tmp->str, "dur") == 0) {
          if ((s = number (c, &ev->dur)) != P_OK)
            return s;
          ev->has_dur = TRUE;
          break;
        } else if (strcmp (r->tmp->str, "pid") == 0) {
          if ((s = id_value (c, r, &ev->pid)) != P_OK)
            return s;
          ev->has_pid = TRUE;
          ev->pid_off = vstart - obj;
          ev->pid_len = c->p - vstart;
          break;
        } else if (strcmp (r->tmp->str, "tid") == 0) {
          if ((s = id_value (c, r, &ev->tid)) != P_OK)
            return s;
          ev->has_tid = TRUE;
          break;
        } else if (strcmp (r->tmp->str, "cat") == 0) {
          if ((s = string (c, r->cat)) != P_OK)
            return s;
          ev->cat = r->cat->str;
          break;
        }
        goto other;
      case 4:
        if (strcmp (r->tmp->str, "name") == 0) {
          if ((s = string (c, r->name)) != P_OK)
            return s;
          ev->name = r->name->str;
          break;
        } else if (strcmp (r->tmp->str, "args") == 0) {
          if ((s = parse_args (r, c)) != P_OK)
            return s;
          break;
        }
        goto other;
      default:
      other:
        if ((s = skip_value (c, 1)) != P_OK)
          return s;
        break;
    }
    if ((s = next_member (c, '}', &closed)) != P_OK)
      return s;
    if (closed)
      break;
  }
  ev->raw = obj;
  ev->raw_len = c->p - obj;
  return P_OK;
}

/* The object format, {"traceEvents":[...], ...}: through to the array's
 * '['; other members before it are skipped, those after it never read. */
static PStatus
open_object (SpTraceReader * r, Cur * c)
{
  PStatus s;

  c->p++;
  for (;;) {
    gboolean closed;
    if ((s = member_key (c, r->tmp)) != P_OK)
      return s;
    if (strcmp (r->tmp->str, "traceEvents") == 0) {
      if (*c->p != '[')
        return P_BAD;
      c->p++;
      return P_OK;
    }
    if ((s = skip_value (c, 1)) != P_OK)
      return s;
    if ((s = next_member (c, '}', &closed)) != P_OK)
      return s;
    if (closed)
      return P_BAD;             /* an object without traceEvents */
  }
}

static gboolean
fail (SpTraceReader * r, GError ** error, const gchar * why)
{
  g_set_error (error, SP_REPORT_ERROR, r->events ?
      SP_REPORT_ERROR_MALFORMED : SP_REPORT_ERROR_NOT_STAGEPROF,
      "%s: %s at byte %" G_GUINT64_FORMAT " (after %" G_GUINT64_FORMAT
      " events)", r->path, why, r->base + r->start, r->events);
  r->ended = TRUE;
  return FALSE;
}

static void
set_cut (SpTraceReader * r, const gchar * what)
{
  g_free (r->cut);
  r->cut = g_strdup_printf ("the trace %s after %" G_GUINT64_FORMAT
      " complete events (byte %" G_GUINT64_FORMAT "): %s; everything before "
      "was read", what, r->events, r->base + r->start,
      g_str_has_prefix (what, "has") ? "the rest is ignored" :
      "the process was probably killed");
}

gboolean
sp_trace_reader_next (SpTraceReader * r, SpEvent ** out, GError ** error)
{
  Cur c;
  PStatus s;

  if (r->ended)
    return FALSE;
  for (;;) {
    /* Separators: '[' once, then ',' between events, ']' at the end. */
    c.p = r->buf + r->start;
    c.end = r->buf + r->len;
    ws (&c);
    r->start = c.p - r->buf;
    if (c.p >= c.end) {
      if (refill (r))
        continue;
      r->ended = TRUE;
      if (!r->begun)
        return fail (r, error, "empty file, not a trace");
      set_cut (r, "ends without its closing ']'");
      return FALSE;
    }
    if (!r->begun) {
      if (*c.p == '{') {
        s = open_object (r, &c);
        if (s == P_MORE && refill (r))
          continue;
        if (s != P_OK)
          return fail (r, error, "not a Chrome trace (neither a JSON array "
              "nor an object with traceEvents)");
        r->begun = TRUE;
        r->start = c.p - r->buf;
        continue;
      }
      if (*c.p != '[')
        return fail (r, error, "not a Chrome trace (neither a JSON array "
            "nor an object with traceEvents)");
      r->begun = TRUE;
      r->start++;
      continue;
    }
    if (*c.p == ',' || *c.p == ']') {
      if (*c.p == ']') {
        r->ended = TRUE;
        return FALSE;
      }
      r->start++;
      continue;
    }
    if (*c.p != '{') {
      if (r->events > 0) {
        /* Damage after complete events (NUL bytes left by a full disk):
         * what came before is good. */
        set_cut (r, *c.p == 0 ? "has NUL bytes (a damaged file)" :
            "has unexpected text between events");
        r->ended = TRUE;
        return FALSE;
      }
      return fail (r, error, "not a trace event (expected '{')");
    }
    s = parse_event (r, &c);
    if (s == P_OK) {
      r->start = c.p - r->buf;
      r->events++;
      *out = &r->ev;
      return TRUE;
    }
    if (s == P_MORE) {
      if (refill (r))
        continue;
      if (!r->eof && r->len - r->start >= MAX_EVENT) {
        /* not an event stageprof writes: skipped, and said */
        if (r->oversized++ == 0)
          r->oversized_at = r->base + r->start;
        if (skip_event (r))
          continue;
      }
      r->ended = TRUE;
      set_cut (r, "ends inside an event");
      return FALSE;
    }
    if (r->events > 0) {
      set_cut (r, "has a malformed event");
      r->ended = TRUE;
      return FALSE;
    }
    return fail (r, error, "malformed event");
  }
}

gint64
sp_to_int64 (gdouble v)
{
  if (!(v == v))
    return 0;
  if (v >= 9.2e18)
    return G_GINT64_CONSTANT (9200000000000000000);
  if (v <= -9.2e18)
    return -G_GINT64_CONSTANT (9200000000000000000);
  return (gint64) v;
}

const SpEventArg *
sp_event_arg (const SpEvent * ev, const gchar * key)
{
  guint i;

  for (i = 0; i < ev->n_args; i++)
    if (strcmp (ev->args[i].key, key) == 0)
      return &ev->args[i];
  return NULL;
}
