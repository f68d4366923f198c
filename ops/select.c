/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frame-index selection; see select.h for the model. */
#include "select.h"
#include "select-private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest token quoted in an error message: enough to recognise it, short
 * enough that a pasted megabyte of garbage does not become the message. */
#define MAX_QUOTED 40

/* start, start + stride, ... below end; end == STAGE_SELECT_NONE: no end. */
typedef struct
{
  uint64_t start, end, stride;
} Span;

struct StageSelect
{
  /* Strides and ranges, in the order given. */
  Span *spans;
  size_t n_spans;
  /* Many ranges: the non-empty spans by start (order) and the largest end
   * among order[0..i] (maxend), so that stage_select_next binary searches
   * instead of scanning every range for every frame. NULL for a few. */
  size_t *order, n_order;
  uint64_t *maxend;
  /* Gather: sorted, duplicate-free, binary searched, since index files may
   * hold millions of entries. */
  uint64_t *indices;
  size_t n_indices;
  int is_list;
};

void
stage_ops_set_error (char **error, const char *fmt, ...)
{
  va_list ap;
  int len;
  char *msg;

  if (error == NULL)
    return;
  va_start (ap, fmt);
  len = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  msg = malloc ((size_t) len + 1);
  if (msg != NULL) {
    va_start (ap, fmt);
    vsnprintf (msg, (size_t) len + 1, fmt, ap);
    va_end (ap);
  }
  *error = msg;
}

/* Length of the valid UTF-8 character at @s (at most @len bytes), or 0 when
 * the bytes there are not one (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF). */
static size_t
utf8_char_len (const unsigned char *s, size_t len)
{
  size_t n, i;
  unsigned char lo = 0x80, hi = 0xBF;

  if (s[0] < 0x80)
    return 1;
  if (s[0] >= 0xC2 && s[0] <= 0xDF)
    n = 2;
  else if (s[0] >= 0xE0 && s[0] <= 0xEF)
    n = 3;
  else if (s[0] >= 0xF0 && s[0] <= 0xF4)
    n = 4;
  else
    return 0;
  if (len < n)
    return 0;
  if (s[0] == 0xE0)
    lo = 0xA0;
  else if (s[0] == 0xED)
    hi = 0x9F;
  else if (s[0] == 0xF0)
    lo = 0x90;
  else if (s[0] == 0xF4)
    hi = 0x8F;
  if (s[1] < lo || s[1] > hi)
    return 0;
  for (i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xBF)
      return 0;
  return n;
}

char *
stage_select_quote (const char *s, size_t len, size_t max)
{
  const unsigned char *u = (const unsigned char *) s;
  /* every input byte becomes at most 4 output bytes ("\xNN") */
  size_t cap = 4 * (len < max ? len : max) + 4, i = 0, o = 0;
  char *out = malloc (cap);

  if (out == NULL)
    return NULL;
  while (i < len) {
    size_t n = utf8_char_len (u + i, len - i);

    if (i + (n ? n : 1) > max) {
      memcpy (out + o, "...", 3);
      o += 3;
      break;
    }
    if (n == 0 || (n == 1 && (u[i] < 0x20 || u[i] == 0x7F))) {
      /* a byte that is not text: shown, never copied raw */
      snprintf (out + o, cap - o, "\\x%02X", u[i]);
      o += 4;
      i++;
    } else {
      memcpy (out + o, s + i, n);
      o += n;
      i += n;
    }
  }
  out[o] = '\0';
  return out;
}

/* Copies at most MAX_QUOTED bytes of a token for quoting, marking a cut;
 * always valid UTF-8 (a multibyte character is never split; raw bytes are
 * escaped). */
static void
quote_token (char *out, size_t out_size, const char *s, size_t len)
{
  char *q = stage_select_quote (s, len, MAX_QUOTED);

  snprintf (out, out_size, "%s", q ? q : "");
  free (q);
}

static int
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v'
      || c == '\f';
}

static void
trim (const char **s, size_t *len)
{
  while (*len > 0 && is_blank (**s)) {
    (*s)++;
    (*len)--;
  }
  while (*len > 0 && is_blank ((*s)[*len - 1]))
    (*len)--;
}

/* Decimal digits only: no sign, no hex, no blanks, so that "-1" and "0x10"
 * are refused rather than read as something the user did not mean.
 * Returns 0, or -1 for a non-number, -2 for a number that does not fit. */
static int
parse_index (const char *s, size_t len, uint64_t *out)
{
  uint64_t v = 0;
  size_t i;

  if (len == 0)
    return -1;
  for (i = 0; i < len; i++) {
    unsigned d;

    if (s[i] < '0' || s[i] > '9')
      return -1;
    d = (unsigned) (s[i] - '0');
    if (v > (STAGE_SELECT_NONE - 1 - d) / 10)
      return -2;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

static StageSelect *
select_new_spans (size_t n)
{
  StageSelect *sel = calloc (1, sizeof (StageSelect));

  if (sel == NULL)
    return NULL;
  sel->spans = calloc (n ? n : 1, sizeof (Span));
  if (sel->spans == NULL) {
    free (sel);
    return NULL;
  }
  return sel;
}

/* Below this many spans a linear scan is as fast as the search. */
#define SPANS_INDEXED_MIN 16

static const Span *sort_spans;

static int
compare_span_start (const void *a, const void *b)
{
  uint64_t x = sort_spans[*(const size_t *) a].start;
  uint64_t y = sort_spans[*(const size_t *) b].start;

  return x < y ? -1 : x > y;
}

/* Builds sel->order and sel->maxend; 0, or -1 when out of memory. */
static int
select_index_spans (StageSelect *sel)
{
  size_t i, n = 0;

  if (sel->n_spans < SPANS_INDEXED_MIN)
    return 0;
  sel->order = malloc (sel->n_spans * sizeof (size_t));
  sel->maxend = malloc (sel->n_spans * sizeof (uint64_t));
  if (sel->order == NULL || sel->maxend == NULL)
    return -1;
  for (i = 0; i < sel->n_spans; i++)
    if (sel->spans[i].start < sel->spans[i].end)
      sel->order[n++] = i;
  /* qsort has no user data in C99; the selection is built on one thread */
  sort_spans = sel->spans;
  qsort (sel->order, n, sizeof (size_t), compare_span_start);
  sort_spans = NULL;
  for (i = 0; i < n; i++) {
    uint64_t e = sel->spans[sel->order[i]].end;
    sel->maxend[i] = i > 0 && sel->maxend[i - 1] > e ? sel->maxend[i - 1] : e;
  }
  sel->n_order = n;
  return 0;
}

StageSelect *
stage_select_new_stride (uint64_t offset, uint64_t stride)
{
  StageSelect *sel;

  if (stride == 0 || offset == STAGE_SELECT_NONE)
    return NULL;
  sel = select_new_spans (1);
  if (sel == NULL)
    return NULL;
  sel->spans[0].start = offset;
  sel->spans[0].end = STAGE_SELECT_NONE;
  sel->spans[0].stride = stride;
  sel->n_spans = 1;
  return sel;
}

int
stage_ops_text_is_blank (const char *text)
{
  for (; text != NULL && *text; text++)
    if (!is_blank (*text))
      return 0;
  return 1;
}

/* Parses one "a:b" entry of a ranges list into @span. */
static int
parse_range_entry (const char *s, size_t len, uint64_t stride, Span * span,
    char **error)
{
  char tok[4 * MAX_QUOTED + 4];
  const char *colon = memchr (s, ':', len);
  const char *a = s, *b;
  size_t alen, blen;
  int ra, rb;

  quote_token (tok, sizeof (tok), s, len);
  if (colon == NULL
      || memchr (colon + 1, ':', len - (size_t) (colon + 1 - s)) != NULL) {
    stage_ops_set_error (error, "'%s': expected START:END, two non-negative integers "
        "separated by a colon (e.g. 0:100)", tok);
    return -1;
  }
  alen = (size_t) (colon - s);
  b = colon + 1;
  blen = len - alen - 1;
  trim (&a, &alen);
  trim (&b, &blen);
  ra = parse_index (a, alen, &span->start);
  rb = parse_index (b, blen, &span->end);
  if (ra == -2 || rb == -2) {
    stage_ops_set_error (error, "'%s': number too large", tok);
    return -1;
  }
  if (ra != 0 || rb != 0) {
    stage_ops_set_error (error, "'%s': START and END must be non-negative integers "
        "(e.g. 0:100)", tok);
    return -1;
  }
  if (span->end < span->start) {
    stage_ops_set_error (error, "'%s': the end %llu is before the start %llu", tok,
        (unsigned long long) span->end, (unsigned long long) span->start);
    return -1;
  }
  if (span->end == span->start) {
    stage_ops_set_error (error, "'%s': empty range; ranges are half-open [START, END), "
        "so END must be greater than START", tok);
    return -1;
  }
  span->stride = stride;
  return 0;
}

StageSelect *
stage_select_parse_ranges (const char *text, uint64_t stride, char **error)
{
  StageSelect *sel;
  const char *p;
  size_t n = 1, entry = 0;

  if (error)
    *error = NULL;
  if (stride == 0) {
    stage_ops_set_error (error, "stride 0: the stride must be at least 1");
    return NULL;
  }
  if (stage_ops_text_is_blank (text))
    return stage_select_new_stride (0, stride);

  for (p = text; *p; p++)
    n += (*p == ',');
  sel = select_new_spans (n);
  if (sel == NULL) {
    stage_ops_set_error (error, "out of memory");
    return NULL;
  }

  p = text;
  for (;;) {
    const char *end = strchr (p, ',');
    const char *s = p;
    size_t len = end ? (size_t) (end - p) : strlen (p);

    entry++;
    trim (&s, &len);
    if (len == 0) {
      stage_ops_set_error (error, "entry %zu is empty (a comma at the start or end, "
          "or two commas in a row)", entry);
      stage_select_free (sel);
      return NULL;
    }
    if (parse_range_entry (s, len, stride, &sel->spans[sel->n_spans],
            error) != 0) {
      stage_select_free (sel);
      return NULL;
    }
    sel->n_spans++;
    if (end == NULL)
      break;
    p = end + 1;
  }
  if (select_index_spans (sel) != 0) {
    stage_ops_set_error (error, "out of memory");
    stage_select_free (sel);
    return NULL;
  }
  return sel;
}

static int
compare_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return x < y ? -1 : x > y;
}

static int
is_list_separator (char c)
{
  return c == ',' || is_blank (c);
}

/* Appends to a growing array; returns 0, or -1 when out of memory. */
static int
push_index (uint64_t ** v, size_t *n, size_t *cap, uint64_t x)
{
  if (*n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 64;
    uint64_t *nv = realloc (*v, ncap * sizeof (uint64_t));

    if (nv == NULL)
      return -1;
    *v = nv;
    *cap = ncap;
  }
  (*v)[(*n)++] = x;
  return 0;
}

StageSelect *
stage_select_parse_indices (const char *text, char **error)
{
  StageSelect *sel;
  uint64_t *v = NULL;
  size_t n = 0, cap = 0, i, out;
  unsigned line = 1;
  int multiline = text != NULL && strchr (text, '\n') != NULL;
  const char *p = text ? text : "";

  if (error)
    *error = NULL;
  while (*p) {
    const char *tok;
    uint64_t x;
    int r;

    if (*p == '#') {
      while (*p && *p != '\n')
        p++;
      continue;
    }
    if (is_list_separator (*p)) {
      line += (*p == '\n');
      p++;
      continue;
    }
    tok = p;
    while (*p && !is_list_separator (*p) && *p != '#')
      p++;
    r = parse_index (tok, (size_t) (p - tok), &x);
    if (r != 0) {
      char q[4 * MAX_QUOTED + 4], where[32] = "";

      quote_token (q, sizeof (q), tok, (size_t) (p - tok));
      if (multiline)
        snprintf (where, sizeof (where), " on line %u", line);
      stage_ops_set_error (error, r == -2 ? "'%s'%s: index too large"
          : "'%s'%s is not a frame index: expected non-negative integers "
          "separated by commas or spaces (e.g. 0,5,7,29)", q, where);
      free (v);
      return NULL;
    }
    if (push_index (&v, &n, &cap, x) != 0) {
      stage_ops_set_error (error, "out of memory");
      free (v);
      return NULL;
    }
  }
  if (n == 0) {
    stage_ops_set_error (error, "no index in the list (expected e.g. 0,5,7,29)");
    free (v);
    return NULL;
  }

  qsort (v, n, sizeof (uint64_t), compare_u64);
  for (i = 1, out = 1; i < n; i++)
    if (v[i] != v[out - 1])
      v[out++] = v[i];

  sel = calloc (1, sizeof (StageSelect));
  if (sel == NULL) {
    stage_ops_set_error (error, "out of memory");
    free (v);
    return NULL;
  }
  sel->is_list = 1;
  sel->indices = v;
  sel->n_indices = out;
  return sel;
}

StageSelect *
stage_select_parse_indices_data (const char *data, size_t len, char **error)
{
  const char *nul = memchr (data, '\0', len);
  StageSelect *sel;
  char *text;

  if (error)
    *error = NULL;
  if (len > STAGE_SELECT_INDICES_DATA_MAX) {
    stage_ops_set_error (error, "too large: more than %llu bytes (%llu MiB) "
        "of text, the most an indices list may hold",
        (unsigned long long) STAGE_SELECT_INDICES_DATA_MAX,
        (unsigned long long) (STAGE_SELECT_INDICES_DATA_MAX >> 20));
    return NULL;
  }
  /* A NUL would end the text early and silently drop every index after
   * it: a binary file is refused, saying where it stops being text. */
  if (nul != NULL) {
    stage_ops_set_error (error, "binary content: a NUL byte at byte offset %llu "
        "(expected text: frame indices separated by commas, spaces or "
        "newlines)", (unsigned long long) (nul - data));
    return NULL;
  }
  text = malloc (len + 1);
  if (text == NULL) {
    stage_ops_set_error (error, "out of memory");
    return NULL;
  }
  memcpy (text, data, len);
  text[len] = '\0';
  sel = stage_select_parse_indices (text, error);
  free (text);
  return sel;
}

void
stage_select_free (StageSelect *sel)
{
  if (sel == NULL)
    return;
  free (sel->spans);
  free (sel->order);
  free (sel->maxend);
  free (sel->indices);
  free (sel);
}

/* First index of @span that is >= @index, or STAGE_SELECT_NONE. */
static uint64_t
span_next (const Span * span, uint64_t index)
{
  uint64_t r, j;

  if (index <= span->start)
    j = span->start;
  else {
    r = (index - span->start) % span->stride;
    if (r == 0)
      j = index;
    else if (index > STAGE_SELECT_NONE - (span->stride - r))
      return STAGE_SELECT_NONE;
    else
      j = index + (span->stride - r);
  }
  return j < span->end ? j : STAGE_SELECT_NONE;
}

/* The spans starting after @index offer their start, the first of them
 * the smallest; of those starting at or before it, only the ones whose
 * end lies beyond it can offer anything, and maxend says where to stop
 * looking back. Sorted disjoint ranges look at one or two spans. */
static uint64_t
spans_next_indexed (const StageSelect *sel, uint64_t index)
{
  size_t lo = 0, hi = sel->n_order, i;
  uint64_t best = STAGE_SELECT_NONE;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;

    if (sel->spans[sel->order[mid]].start <= index)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < sel->n_order)
    best = sel->spans[sel->order[lo]].start;
  for (i = lo; i-- > 0 && sel->maxend[i] > index && best != index;) {
    uint64_t j = span_next (&sel->spans[sel->order[i]], index);

    if (j < best)
      best = j;
  }
  return best;
}

uint64_t
stage_select_next (const StageSelect *sel, uint64_t index)
{
  uint64_t best = STAGE_SELECT_NONE;
  size_t i;

  if (sel == NULL || index == STAGE_SELECT_NONE)
    return STAGE_SELECT_NONE;

  if (sel->is_list) {
    size_t lo = 0, hi = sel->n_indices;

    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;

      if (sel->indices[mid] < index)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < sel->n_indices ? sel->indices[lo] : STAGE_SELECT_NONE;
  }

  if (sel->order == NULL) {
    for (i = 0; i < sel->n_spans; i++) {
      uint64_t j = span_next (&sel->spans[i], index);

      if (j < best)
        best = j;
    }
    return best;
  }
  return spans_next_indexed (sel, index);
}

int
stage_select_keep (const StageSelect *sel, uint64_t index)
{
  return index != STAGE_SELECT_NONE && stage_select_next (sel, index) == index;
}

int
stage_select_exhausted (const StageSelect *sel, uint64_t index)
{
  return stage_select_next (sel, index) == STAGE_SELECT_NONE;
}

int
stage_select_regular (const StageSelect *sel, uint64_t *stride)
{
  if (sel == NULL || sel->is_list || sel->n_spans != 1)
    return 0;
  if (stride)
    *stride = sel->spans[0].stride;
  return 1;
}

uint64_t
stage_select_last (const StageSelect *sel)
{
  uint64_t last = 0;
  size_t i;

  if (sel == NULL)
    return STAGE_SELECT_NONE;
  if (sel->is_list)
    return sel->indices[sel->n_indices - 1];
  for (i = 0; i < sel->n_spans; i++) {
    const Span *s = &sel->spans[i];
    uint64_t l;

    if (s->end == STAGE_SELECT_NONE)
      return STAGE_SELECT_NONE;
    l = s->start + (s->end - 1 - s->start) / s->stride * s->stride;
    if (l > last)
      last = l;
  }
  return last;
}

size_t
stage_select_n_spans (const StageSelect *sel)
{
  return sel == NULL || sel->is_list ? 0 : sel->n_spans;
}

int
stage_select_get_span (const StageSelect *sel, size_t i, uint64_t *start,
    uint64_t *end, uint64_t *stride)
{
  if (i >= stage_select_n_spans (sel))
    return -1;
  *start = sel->spans[i].start;
  *end = sel->spans[i].end;
  *stride = sel->spans[i].stride;
  return 0;
}
