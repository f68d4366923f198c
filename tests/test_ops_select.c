/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests for ops/select.c: parsing and per-index decisions, checked
 * against a deliberately naive model (a plain list of kept indices). */
#include <gst/check/gstcheck.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"

/* Horizon of the brute-force model: far beyond any index the random
 * patterns use, so "nothing kept up to here" means exhausted. */
#define HORIZON 600

typedef struct
{
  gboolean keep[HORIZON];
  gboolean unbounded;           /* kept indices continue past HORIZON */
} Model;

static void
model_stride (Model * m, guint64 offset, guint64 stride)
{
  guint64 i;

  memset (m, 0, sizeof (*m));
  for (i = offset; i < HORIZON; i += stride)
    m->keep[i] = TRUE;
  m->unbounded = TRUE;
}

/* Model "next": smallest kept index >= i, STAGE_SELECT_NONE if none. */
static guint64
model_next (const Model * m, guint64 i)
{
  for (; i < HORIZON; i++)
    if (m->keep[i])
      return i;
  return m->unbounded ? HORIZON : STAGE_SELECT_NONE;
}

static void
check_against_model (const StageSelect * sel, const Model * m,
    const gchar * what)
{
  guint64 i, last = STAGE_SELECT_NONE;

  for (i = 0; i < HORIZON; i++) {
    guint64 want = model_next (m, i);
    guint64 got = stage_select_next (sel, i);

    if (m->keep[i])
      last = i;
    fail_unless_equals_int (stage_select_keep (sel, i), m->keep[i]);
    if (want == HORIZON)        /* unbounded: only "somewhere later" */
      fail_unless (got >= HORIZON, "%s: next(%" G_GUINT64_FORMAT ") = %"
          G_GUINT64_FORMAT, what, i, got);
    else
      fail_unless (got == want, "%s: next(%" G_GUINT64_FORMAT ") = %"
          G_GUINT64_FORMAT ", model says %" G_GUINT64_FORMAT, what, i, got,
          want);
    fail_unless_equals_int (stage_select_exhausted (sel, i),
        want == STAGE_SELECT_NONE);
  }
  if (!m->unbounded)
    fail_unless (stage_select_last (sel) == last, "%s: last %"
        G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT, what,
        stage_select_last (sel), last);
}

static StageSelect *
parse_ranges_ok (const gchar * text, guint64 stride)
{
  char *err = NULL;
  StageSelect *sel = stage_select_parse_ranges (text, stride, &err);

  fail_unless (sel != NULL, "'%s' refused: %s", text, err);
  fail_unless (err == NULL);
  return sel;
}

static StageSelect *
parse_indices_ok (const gchar * text)
{
  char *err = NULL;
  StageSelect *sel = stage_select_parse_indices (text, &err);

  fail_unless (sel != NULL, "'%s' refused: %s", text, err);
  fail_unless (err == NULL);
  return sel;
}

/* Asserts a parse failure whose message quotes @token. */
static void
expect_error (StageSelect * sel, char *err, const gchar * text,
    const gchar * token)
{
  fail_unless (sel == NULL, "'%s' was accepted", text);
  fail_unless (err != NULL, "'%s': no message", text);
  fail_unless (strstr (err, token) != NULL,
      "message for '%s' does not quote '%s': %s", text, token, err);
  GST_INFO ("'%s' -> %s", text, err);
  free (err);
}

GST_START_TEST (test_stride_hand)
{
  StageSelect *sel = stage_select_new_stride (1, 3);
  uint64_t s = 0;

  fail_unless (!stage_select_keep (sel, 0));
  fail_unless (stage_select_keep (sel, 1));
  fail_unless (!stage_select_keep (sel, 2));
  fail_unless (stage_select_keep (sel, 4));
  fail_unless (stage_select_keep (sel, 1000000000000ULL));
  fail_unless (stage_select_next (sel, 0) == 1);
  fail_unless (stage_select_next (sel, 2) == 4);
  fail_unless (stage_select_next (sel, 4) == 4);
  fail_unless (!stage_select_exhausted (sel, G_MAXUINT64 - 10));
  fail_unless (stage_select_last (sel) == STAGE_SELECT_NONE);
  fail_unless (stage_select_regular (sel, &s) && s == 3);
  /* near the top: no wrap-around into small indices */
  fail_unless (stage_select_keep (sel, STAGE_SELECT_NONE - 5));
  fail_unless (stage_select_next (sel, STAGE_SELECT_NONE - 4) ==
      STAGE_SELECT_NONE - 2);
  fail_unless (stage_select_next (sel, STAGE_SELECT_NONE - 1) ==
      STAGE_SELECT_NONE);
  stage_select_free (sel);

  fail_unless (stage_select_new_stride (0, 0) == NULL);
  sel = stage_select_new_stride (0, 1);
  fail_unless (stage_select_keep (sel, 0) && stage_select_keep (sel, 7));
  stage_select_free (sel);
}

GST_END_TEST;

GST_START_TEST (test_ranges_hand)
{
  StageSelect *sel = parse_ranges_ok ("0:100,200:300", 1);
  uint64_t s = 0;

  fail_unless (stage_select_keep (sel, 0));
  fail_unless (stage_select_keep (sel, 99));
  fail_unless (!stage_select_keep (sel, 100));
  fail_unless (stage_select_next (sel, 100) == 200);
  fail_unless (stage_select_keep (sel, 299));
  fail_unless (stage_select_exhausted (sel, 300));
  fail_unless (!stage_select_exhausted (sel, 299));
  fail_unless (stage_select_last (sel) == 299);
  fail_unless (!stage_select_regular (sel, &s));
  stage_select_free (sel);

  /* stride inside each range, counted from each range's start */
  sel = parse_ranges_ok (" 1:10 , 20:25 ", 4);
  fail_unless (stage_select_keep (sel, 1) && stage_select_keep (sel, 5)
      && stage_select_keep (sel, 9) && !stage_select_keep (sel, 13));
  fail_unless (stage_select_next (sel, 10) == 20);
  fail_unless (stage_select_keep (sel, 24) && !stage_select_keep (sel, 21));
  fail_unless (stage_select_last (sel) == 24);
  stage_select_free (sel);

  /* a single range is a regular rate */
  sel = parse_ranges_ok ("10:20", 2);
  fail_unless (stage_select_regular (sel, &s) && s == 2);
  fail_unless (stage_select_last (sel) == 18);
  stage_select_free (sel);

  /* overlapping and unsorted ranges: a set, each frame once */
  sel = parse_ranges_ok ("50:60,0:10,5:15", 1);
  fail_unless (stage_select_next (sel, 0) == 0);
  fail_unless (stage_select_next (sel, 12) == 12);
  fail_unless (stage_select_next (sel, 15) == 50);
  stage_select_free (sel);

  /* unset / blank = whole stream */
  sel = parse_ranges_ok (NULL, 3);
  fail_unless (stage_select_keep (sel, 0) && stage_select_keep (sel, 3));
  fail_unless (stage_select_regular (sel, &s) && s == 3);
  stage_select_free (sel);
  sel = parse_ranges_ok ("  ", 1);
  fail_unless (stage_select_keep (sel, 12345));
  stage_select_free (sel);
}

GST_END_TEST;

GST_START_TEST (test_ranges_errors)
{
  static const struct
  {
    const gchar *text, *token;
  } bad[] = {
    {"5:3", "5:3"}, {"5:5", "5:5"}, {"x", "x"}, {"0:10,x:20", "x:20"},
    {"1:2,", "entry 2"}, {",1:2", "entry 1"}, {"0:10,,20:30", "entry 2"},
    {"-1:5", "-1:5"}, {"1:2:3", "1:2:3"}, {"0:99999999999999999999",
        "99999999999999999999"}, {"a:b", "a:b"}, {"0x1:5", "0x1:5"},
    {"0:1 0", "0:1 0"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    char *err = NULL;
    StageSelect *sel = stage_select_parse_ranges (bad[i].text, 1, &err);

    expect_error (sel, err, bad[i].text, bad[i].token);
  }
  {
    char *err = NULL;
    StageSelect *sel = stage_select_parse_ranges ("0:5", 0, &err);

    expect_error (sel, err, "stride 0", "stride 0");
  }
}

GST_END_TEST;

GST_START_TEST (test_indices_hand)
{
  StageSelect *sel = parse_indices_ok ("0,5,7,29");
  uint64_t s;

  fail_unless (stage_select_keep (sel, 0) && stage_select_keep (sel, 5)
      && stage_select_keep (sel, 7) && stage_select_keep (sel, 29));
  fail_unless (!stage_select_keep (sel, 1) && !stage_select_keep (sel, 28));
  fail_unless (stage_select_next (sel, 8) == 29);
  fail_unless (stage_select_exhausted (sel, 30));
  fail_unless (stage_select_last (sel) == 29);
  fail_unless (!stage_select_regular (sel, &s));
  stage_select_free (sel);

  /* unsorted with duplicates == sorted set */
  sel = parse_indices_ok ("29 5,0,,5\t7");
  fail_unless (stage_select_next (sel, 0) == 0);
  fail_unless (stage_select_next (sel, 1) == 5);
  fail_unless (stage_select_next (sel, 6) == 7);
  fail_unless (stage_select_next (sel, 8) == 29);
  fail_unless (stage_select_next (sel, 30) == STAGE_SELECT_NONE);
  stage_select_free (sel);

  /* file syntax: one per line, comments, CRLF */
  sel = parse_indices_ok ("# frames to keep\n3\n  10 # a comment\r\n\n"
      "2,4\n#7\n");
  fail_unless (stage_select_keep (sel, 2) && stage_select_keep (sel, 3)
      && stage_select_keep (sel, 4) && stage_select_keep (sel, 10));
  fail_unless (!stage_select_keep (sel, 7));
  fail_unless (stage_select_last (sel) == 10);
  stage_select_free (sel);

  /* the largest representable index */
  sel = parse_indices_ok ("18446744073709551614");
  fail_unless (stage_select_keep (sel, G_MAXUINT64 - 1));
  fail_unless (stage_select_next (sel, 0) == G_MAXUINT64 - 1);
  stage_select_free (sel);
}

GST_END_TEST;

GST_START_TEST (test_indices_errors)
{
  static const struct
  {
    const gchar *text, *token;
  } bad[] = {
    {"abc", "'abc'"}, {"0,5,x7,29", "'x7'"}, {"1,-2", "'-2'"},
    {"1;2", "'1;2'"}, {"", "no index"}, {" , \n", "no index"},
    {"# only a comment\n", "no index"}, {"1.5", "'1.5'"},
    {"18446744073709551615", "too large"}, {"3\n4\nfive\n", "line 3"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    char *err = NULL;
    StageSelect *sel = stage_select_parse_indices (bad[i].text, &err);

    expect_error (sel, err, bad[i].text, bad[i].token);
  }
  {
    /* a huge token is quoted, but cut short */
    gchar *big = g_strnfill (10000, 'z');
    char *err = NULL;
    StageSelect *sel = stage_select_parse_indices (big, &err);

    fail_unless (sel == NULL && err != NULL);
    fail_unless (strlen (err) < 300, "message of %zu bytes", strlen (err));
    fail_unless (strstr (err, "zzzz...") != NULL);
    free (err);
    g_free (big);
  }
}

GST_END_TEST;

GST_START_TEST (test_stride_random)
{
  GRand *rand = g_rand_new_with_seed (1234);
  guint n;

  for (n = 0; n < 200; n++) {
    guint64 offset = g_rand_int_range (rand, 0, 50);
    guint64 stride = g_rand_int_range (rand, 1, 40);
    StageSelect *sel = stage_select_new_stride (offset, stride);
    gchar *what = g_strdup_printf ("stride %" G_GUINT64_FORMAT " offset %"
        G_GUINT64_FORMAT, stride, offset);
    Model m;

    model_stride (&m, offset, stride);
    check_against_model (sel, &m, what);
    stage_select_free (sel);
    g_free (what);
  }
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_ranges_random)
{
  GRand *rand = g_rand_new_with_seed (5678);
  guint n;

  for (n = 0; n < 300; n++) {
    /* past SPANS_INDEXED_MIN (16) in a third of the cases: searched */
    guint nr = g_rand_int_range (rand, 1, n % 3 ? 6 : 40), r;
    guint64 stride = g_rand_int_range (rand, 1, 8);
    GString *text = g_string_new (NULL);
    StageSelect *sel;
    Model m;

    memset (&m, 0, sizeof (m));
    for (r = 0; r < nr; r++) {
      guint64 a = g_rand_int_range (rand, 0, 400);
      guint64 b = a + g_rand_int_range (rand, 1, 150), i;

      for (i = a; i < b; i += stride)
        m.keep[i] = TRUE;
      g_string_append_printf (text, "%s%s%" G_GUINT64_FORMAT ":%"
          G_GUINT64_FORMAT, r ? "," : "", g_rand_boolean (rand) ? " " : "",
          a, b);
    }
    sel = parse_ranges_ok (text->str, stride);
    check_against_model (sel, &m, text->str);
    if (nr == 1) {
      uint64_t s = 0;

      fail_unless (stage_select_regular (sel, &s) && s == stride);
    }
    stage_select_free (sel);
    g_string_free (text, TRUE);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* Issue 37 #9: 1 M sorted ranges (every third frame, and some overlap)
 * walked frame by frame the way a selector does; each answer checked by
 * arithmetic. The linear scan took minutes here. */
GST_START_TEST (test_ranges_many)
{
  const guint n = 1000000;
  GString *text = g_string_sized_new (n * 16);
  StageSelect *sel;
  uint64_t i, next;
  guint r;

  for (r = 0; r < n; r++)
    g_string_append_printf (text, "%s%u:%u", r ? "," : "", 3 * r, 3 * r + 1);
  /* one long range over the first 30 frames, given last */
  g_string_append (text, ",0:30");
  sel = parse_ranges_ok (text->str, 1);
  next = stage_select_next (sel, 0);
  for (i = 0; i < 3 * (uint64_t) n + 5; i++) {
    gboolean want = i < 30 || (i % 3 == 0 && i < 3 * (uint64_t) n);

    fail_unless_equals_int (stage_select_keep (sel, i), want);
    if (want) {
      fail_unless_equals_uint64 (next, i);
      next = stage_select_next (sel, i + 1);
    }
  }
  fail_unless_equals_uint64 (next, STAGE_SELECT_NONE);
  fail_unless (stage_select_exhausted (sel, 3 * (uint64_t) n));
  stage_select_free (sel);
  g_string_free (text, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_indices_random)
{
  GRand *rand = g_rand_new_with_seed (91011);
  static const gchar *seps[] = { ",", " ", "\n", ", ", "\t", " # c\n" };
  guint n;

  for (n = 0; n < 300; n++) {
    guint k = g_rand_int_range (rand, 1, 40), j;
    GString *text = g_string_new (NULL);
    StageSelect *sel;
    Model m;

    memset (&m, 0, sizeof (m));
    for (j = 0; j < k; j++) {
      guint64 x = g_rand_int_range (rand, 0, 500);      /* unsorted, dups */

      m.keep[x] = TRUE;
      if (j)
        g_string_append (text, seps[g_rand_int_range (rand, 0,
                    G_N_ELEMENTS (seps))]);
      g_string_append_printf (text, "%" G_GUINT64_FORMAT, x);
    }
    sel = parse_indices_ok (text->str);
    check_against_model (sel, &m, text->str);
    stage_select_free (sel);
    g_string_free (text, TRUE);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* A long index file must not make each decision linear in its length. */
GST_START_TEST (test_indices_large)
{
  GString *text = g_string_new (NULL);
  StageSelect *sel;
  guint64 i, kept = 0, next = 0;
  gint64 t0;

  for (i = 0; i < 300000; i++)
    g_string_append_printf (text, "%" G_GUINT64_FORMAT "\n", 3 * i);
  sel = parse_indices_ok (text->str);
  t0 = g_get_monotonic_time ();
  for (i = 0; i < 900000; i++) {
    if (i == next) {
      kept++;
      next = stage_select_next (sel, i + 1);
    }
  }
  fail_unless (kept == 300000);
  fail_unless (next == STAGE_SELECT_NONE);
  GST_INFO ("900k decisions over 300k indices in %" G_GINT64_FORMAT " us",
      g_get_monotonic_time () - t0);
  fail_unless (g_get_monotonic_time () - t0 < 10 * G_USEC_PER_SEC);
  stage_select_free (sel);
  g_string_free (text, TRUE);
}

GST_END_TEST;

/* Quoting for messages: valid UTF-8 whatever the input. */
GST_START_TEST (test_quote_utf8)
{
  static const struct
  {
    const gchar *in;
    gsize max;
    const gchar *want;
  } cases[] = {
    {"abc", 40, "abc"},
    {"abcdef", 3, "abc..."},
    /* "é" is 2 bytes: never cut in half */
    {"ab\xc3\xa9", 3, "ab..."},
    {"ab\xc3\xa9", 4, "ab\xc3\xa9"},
    /* "€" is 3 bytes, "😀" 4 */
    {"a\xe2\x82\xac", 3, "a..."},
    {"\xf0\x9f\x98\x80z", 4, "\xf0\x9f\x98\x80..."},
    /* not UTF-8: escaped */
    {"a\xff" "b", 40, "a\\xFFb"},
    {"\xc3(", 40, "\\xC3("},
    {"\xe0\x80\x80", 40, "\\xE0\\x80\\x80"},  /* overlong */
    {"\xed\xa0\x80", 40, "\\xED\\xA0\\x80"},  /* surrogate */
    {"\xf4\x90\x80\x80", 40, "\\xF4\\x90\\x80\\x80"},     /* > U+10FFFF */
    {"tab\there\n", 40, "tab\\x09here\\x0A"},
    {"\xe2\x82", 40, "\\xE2\\x82"},     /* truncated sequence */
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    char *q = stage_select_quote (cases[i].in, strlen (cases[i].in),
        cases[i].max);

    fail_unless (g_utf8_validate (q, -1, NULL), "case %u not UTF-8", i);
    fail_unless_equals_string (q, cases[i].want);
    free (q);
  }
}

GST_END_TEST;

/* Random bytes in every parser: each message is valid UTF-8. */
GST_START_TEST (test_messages_utf8_random)
{
  GRand *r = g_rand_new_with_seed (9);
  guint i, j;

  for (i = 0; i < 2000; i++) {
    gchar buf[96];
    guint n = g_rand_int_range (r, 1, sizeof (buf));
    char *err = NULL;
    StageSelect *sel;

    for (j = 0; j < n; j++)
      buf[j] = (gchar) (g_rand_boolean (r) ? g_rand_int_range (r, 0x80, 0x100)
          : "0123456789:,# \n\xc3\xa9"[g_rand_int_range (r, 0, 17)]);
    sel = stage_select_parse_indices_data (buf, n, &err);
    fail_unless (err == NULL || g_utf8_validate (err, -1, NULL));
    stage_select_free (sel);
    free (err);
    err = NULL;
    buf[n] = '\0';
    if (strlen (buf) != n)
      continue;
    sel = stage_select_parse_ranges (buf, 1, &err);
    fail_unless (err == NULL || g_utf8_validate (err, -1, NULL));
    stage_select_free (sel);
    free (err);
  }
  g_rand_free (r);
}

GST_END_TEST;

/* A NUL inside an indices file is binary content, not the end of it. */
GST_START_TEST (test_indices_data_nul)
{
  static const char data[] = "1,2\n3\0" "4,5";
  char *err = NULL;
  StageSelect *sel = stage_select_parse_indices_data (data, sizeof (data) - 1,
      &err);

  expect_error (sel, err, "1,2\\n3\\0 4,5", "byte offset 5");
  /* without the NUL, not NUL-terminated: all five */
  sel = stage_select_parse_indices_data ("1,2,3,4,5XYZ", 9, &err);
  fail_unless (sel != NULL && err == NULL);
  fail_unless_equals_uint64 (stage_select_last (sel), 5);
  stage_select_free (sel);
}

GST_END_TEST;

/* More text than STAGE_SELECT_INDICES_DATA_MAX is refused before any of
 * it is copied or parsed (a list that big is a mistake or an endless
 * device); the limit itself is still read. */
GST_START_TEST (test_indices_data_too_large)
{
  size_t max = STAGE_SELECT_INDICES_DATA_MAX;
  char *data = malloc (max + 1), *err = NULL;
  StageSelect *sel;

  fail_unless (data != NULL);
  memset (data, ' ', max + 1);
  data[0] = '7';
  sel = stage_select_parse_indices_data (data, max + 1, &err);
  fail_unless (sel == NULL);
  fail_unless (err != NULL && strstr (err, "too large") != NULL
      && strstr (err, "64 MiB") != NULL, "%s", err ? err : "(none)");
  free (err);
  err = NULL;
  data[max - 1] = '9';
  sel = stage_select_parse_indices_data (data, max, &err);
  fail_unless (sel != NULL && err == NULL, "%s", err ? err : "");
  fail_unless_equals_uint64 (stage_select_last (sel), 9);
  stage_select_free (sel);
  free (data);
}

GST_END_TEST;

static Suite *
ops_select_suite (void)
{
  Suite *s = suite_create ("ops_select");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_quote_utf8);
  tcase_add_test (tc, test_messages_utf8_random);
  tcase_add_test (tc, test_indices_data_nul);
  tcase_add_test (tc, test_stride_hand);
  tcase_add_test (tc, test_ranges_hand);
  tcase_add_test (tc, test_ranges_errors);
  tcase_add_test (tc, test_indices_hand);
  tcase_add_test (tc, test_indices_errors);
  tcase_add_test (tc, test_stride_random);
  tcase_add_test (tc, test_ranges_random);
  tcase_add_test (tc, test_ranges_many);
  tcase_add_test (tc, test_indices_random);
  tcase_add_test (tc, test_indices_large);
  tcase_add_test (tc, test_indices_data_too_large);
  return s;
}

GST_CHECK_MAIN (ops_select);
