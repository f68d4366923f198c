/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests for ops/slice.c: the slice partitions against Scanner's
 * partitioners written out naively, and the repeat slot timing. */
#include <gst/check/gstcheck.h>
#include <stdlib.h>
#include <string.h>

#include "slice.h"

/* Scanner's StridedPartitioner over a table of @rows rows: group g holds
 * the strided rows g*size .. min((g+1)*size, total) - 1, row k being
 * table row k*stride. Returns whether @index is in group @g. */
static gboolean
scanner_strided_has (guint64 rows, guint64 size, guint64 stride, guint64 g,
    guint64 index)
{
  guint64 total = (rows + stride - 1) / stride, k;

  for (k = g * size; k < MIN ((g + 1) * size, total); k++)
    if (k * stride == index)
      return TRUE;
  return FALSE;
}

GST_START_TEST (test_strided_vs_scanner)
{
  const guint64 sizes[] = { 1, 3, 4, 50 }, strides[] = { 1, 2, 3, 7 };
  const guint64 rows = 101;
  guint a, b;

  for (a = 0; a < G_N_ELEMENTS (sizes); a++) {
    for (b = 0; b < G_N_ELEMENTS (strides); b++) {
      guint64 size = sizes[a], stride = strides[b], g, i;
      StageSlice *sl = stage_slice_new_strided (size, stride, NULL);

      fail_unless (sl != NULL);
      fail_unless (stage_slice_n_groups (sl) == STAGE_SELECT_NONE);
      for (g = 0; g * size * stride < rows; g++) {
        guint64 pos = 0;

        for (i = 0; i < rows; i++) {
          gboolean want = scanner_strided_has (rows, size, stride, g, i);

          fail_unless_equals_int (stage_slice_contains (sl, g, i), want);
          if (want) {
            fail_unless_equals_uint64 (stage_slice_position (sl, g, i), pos);
            pos++;
          }
          /* strided groups never overlap: nothing is kept for later */
          fail_if (stage_slice_needed_after (sl, g, i));
        }
        fail_unless_equals_uint64 (stage_slice_last (sl, g),
            (g * size + size - 1) * stride);
      }
      stage_slice_free (sl);
    }
  }
}

GST_END_TEST;

/* Scanner's test_overlapping_slice partition. */
GST_START_TEST (test_ranges_overlapping)
{
  char *err = NULL;
  StageSlice *sl = stage_slice_parse_ranges ("0:15, 5:25,15:35", 1, &err);
  guint64 s, e, st, i;

  fail_unless (sl != NULL && err == NULL);
  fail_unless_equals_uint64 (stage_slice_n_groups (sl), 3);
  fail_unless (stage_slice_group (sl, 1, &s, &e, &st) == 0);
  fail_unless (s == 5 && e == 25 && st == 1);
  fail_unless (stage_slice_group (sl, 3, &s, &e, &st) != 0);
  for (i = 0; i < 40; i++) {
    fail_unless_equals_int (stage_slice_contains (sl, 0, i), i < 15);
    fail_unless_equals_int (stage_slice_contains (sl, 1, i), i >= 5
        && i < 25);
    fail_unless_equals_int (stage_slice_contains (sl, 2, i), i >= 15
        && i < 35);
    /* while reading group 0, frames 5..34 are wanted later */
    fail_unless_equals_int (stage_slice_needed_after (sl, 0, i), i >= 5
        && i < 35);
    fail_unless_equals_int (stage_slice_needed_after (sl, 1, i), i >= 15
        && i < 35);
    fail_if (stage_slice_needed_after (sl, 2, i));
  }
  fail_unless_equals_uint64 (stage_slice_last (sl, 0), 14);
  fail_unless_equals_uint64 (stage_slice_last (sl, 2), 34);
  fail_unless_equals_uint64 (stage_slice_position (sl, 1, 12), 7);
  fail_unless_equals_uint64 (stage_slice_first_open (sl, 0), 0);
  fail_unless_equals_uint64 (stage_slice_first_open (sl, 14), 0);
  fail_unless_equals_uint64 (stage_slice_first_open (sl, 15), 1);
  fail_unless_equals_uint64 (stage_slice_first_open (sl, 30), 2);
  fail_unless_equals_uint64 (stage_slice_first_open (sl, 35),
      STAGE_SELECT_NONE);
  stage_slice_free (sl);

  /* strided ranges: Scanner's StridedRanges */
  sl = stage_slice_parse_ranges ("0:10,4:9", 3, NULL);
  fail_unless (sl != NULL);
  fail_unless (stage_slice_contains (sl, 0, 9) && !stage_slice_contains (sl,
          0, 8));
  fail_unless (stage_slice_contains (sl, 1, 7) && !stage_slice_contains (sl,
          1, 6));
  fail_unless_equals_uint64 (stage_slice_last (sl, 0), 9);
  fail_unless_equals_uint64 (stage_slice_last (sl, 1), 7);
  fail_unless_equals_uint64 (stage_slice_position (sl, 1, 7), 1);
  stage_slice_free (sl);
}

GST_END_TEST;

/* needed_after and first_open, searched since issue 37 #9, against a
 * scan of every group, on random overlapping groups in start order. */
GST_START_TEST (test_ranges_random_search)
{
  GRand *rand = g_rand_new_with_seed (37);
  guint n;

  for (n = 0; n < 200; n++) {
    guint ng = g_rand_int_range (rand, 1, 60), g, h;
    guint64 stride = g_rand_int_range (rand, 1, 5), start = 0, i;
    guint64 gs[60], ge[60];
    GString *text = g_string_new (NULL);
    StageSlice *sl;

    for (g = 0; g < ng; g++) {
      start += g_rand_int_range (rand, 0, 12);
      gs[g] = start;
      ge[g] = start + g_rand_int_range (rand, 1, 40);
      g_string_append_printf (text, "%s%" G_GUINT64_FORMAT ":%"
          G_GUINT64_FORMAT, g ? "," : "", gs[g], ge[g]);
    }
    sl = stage_slice_parse_ranges (text->str, stride, NULL);
    fail_unless (sl != NULL, "%s", text->str);
    for (i = 0; i < start + 45; i++) {
      guint64 open = STAGE_SELECT_NONE;

      for (g = 0; g < ng; g++) {
        gboolean later = FALSE;

        for (h = g + 1; h < ng; h++)
          later |= i >= gs[h] && i < ge[h] && (i - gs[h]) % stride == 0;
        fail_unless_equals_int (stage_slice_needed_after (sl, g, i), later);
        if (open == STAGE_SELECT_NONE
            && gs[g] + (ge[g] - 1 - gs[g]) / stride * stride >= i)
          open = g;
      }
      fail_unless_equals_uint64 (stage_slice_first_open (sl, i), open);
    }
    stage_slice_free (sl);
    g_string_free (text, TRUE);
  }
  g_rand_free (rand);
}

GST_END_TEST;

static void
check_error (const char *text, uint64_t stride, const char *reason)
{
  char *err = NULL;
  StageSlice *sl = stage_slice_parse_ranges (text, stride, &err);

  fail_unless (sl == NULL, "'%s' accepted", text);
  fail_unless (err != NULL && strstr (err, reason) != NULL,
      "'%s': %s (want '%s')", text, err, reason);
  free (err);
}

GST_START_TEST (test_errors)
{
  char *err = NULL;

  check_error ("5:25,0:15", 1, "starts before range 1");
  check_error ("0:15,15:35,5:25", 1, "range 3 (5:25)");
  check_error ("", 1, "no range");
  check_error (NULL, 1, "no range");
  /* blank as the selection parser sees it, \v and \f included: not an
   * endless 0:infinity group */
  check_error (" \v\f\t\n", 1, "no range");
  check_error ("0:5,x", 1, "START:END");
  check_error ("5:3", 1, "before the start");
  check_error ("0:5", 0, "stride");
  fail_unless (stage_slice_new_strided (0, 1, &err) == NULL);
  fail_unless (err && strstr (err, "size 0"));
  free (err);
  fail_unless (stage_slice_new_strided (4, 0, &err) == NULL);
  fail_unless (err && strstr (err, "stride 0"));
  free (err);
  /* equal starts are in order */
  {
    StageSlice *sl = stage_slice_parse_ranges ("0:5,0:10", 1, NULL);

    fail_unless (sl != NULL);
    stage_slice_free (sl);
  }
}

GST_END_TEST;

/* The K slots tile [pts, pts + dur) exactly, for any duration, including
 * ones where dur * k would overflow 64 bits. */
GST_START_TEST (test_repeat_slots)
{
  const uint64_t durs[] = { 0, 1, 7, 33333333, 33333334, 1000000000,
    UINT64_MAX / 3
  };
  const uint64_t reps[] = { 1, 2, 3, 7, 60, 4294967295ULL };
  guint a, b;

  for (a = 0; a < G_N_ELEMENTS (durs); a++) {
    for (b = 0; b < G_N_ELEMENTS (reps); b++) {
      uint64_t K = reps[b], k, next = 1000, p, d, total = 0;
      uint64_t step = K > 100 ? K / 7 : 1;

      for (k = 0; k < K; k += step) {
        stage_repeat_slot (1000, durs[a], k, K, &p, &d);
        if (step == 1) {
          fail_unless_equals_uint64 (p, next);
          next = p + d;
          total += d;
        }
        /* each slot is dur / K, give or take the rounding */
        fail_unless (d == durs[a] / K || d == durs[a] / K + 1);
      }
      if (step == 1)
        fail_unless_equals_uint64 (total, durs[a]);
      stage_repeat_slot (1000, durs[a], K - 1, K, &p, &d);
      fail_unless_equals_uint64 (p + d, 1000 + durs[a]);
    }
  }
}

GST_END_TEST;

static Suite *
ops_slice_suite (void)
{
  Suite *s = suite_create ("ops_slice");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_strided_vs_scanner);
  tcase_add_test (tc, test_ranges_overlapping);
  tcase_add_test (tc, test_ranges_random_search);
  tcase_add_test (tc, test_errors);
  tcase_add_test (tc, test_repeat_slots);
  return s;
}

GST_CHECK_MAIN (ops_slice);
