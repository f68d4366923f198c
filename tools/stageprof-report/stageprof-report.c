/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stageprof-report: read, compare, merge and draw stageprof's outputs.
 *
 *   stageprof-report show run.json
 *   stageprof-report diff before.json after.json --fail-above 10
 *   stageprof-report merge -o all.json a.json b.json c.json
 *   stageprof-report html -o report.html run.json [other.json]
 *   stageprof-report dot -o graph.dot run.json && dot -Tsvg graph.dot > g.svg
 *
 * Inputs are what stageprof writes: a summary JSON (summary=FILE.json), its
 * database (db=FILE) or a Chrome trace (trace=FILE.json), recognised by
 * their content. Data goes to stdout (or -o), messages to stderr; exit 0,
 * 1 (diff --fail-above: a regression), 2 (bad usage or unreadable input).
 * See docs/report.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "spdiff.h"
#include "spdot.h"
#include "sphtml.h"
#include "spload.h"
#include "spreport.h"
#include "spmerge.h"
#include "spshow.h"
#include "sptracereader.h"
#include "spfile.h"

#define EXIT_OK 0
#define EXIT_FAILED 1
#define EXIT_USAGE 2

static const gchar *commands_help =
    "Commands:\n"
    "  show FILE           tables and verdict of one profile\n"
    "  diff A B            two runs side by side, changes beyond noise marked\n"
    "  merge -o OUT IN...  one Chrome trace from several, on one time axis\n"
    "  html -o OUT IN [IN2]  a self-contained HTML report (with a diff for two)\n"
    "  dot -o OUT IN       the pipeline graph with the profile on it (Graphviz)\n"
    "\n"
    "FILE is what stageprof wrote: a summary JSON (summary=FILE.json), a\n"
    "database (db=FILE.db) or a Chrome trace (trace=FILE.json).\n"
    "'stageprof-report COMMAND --help' describes each command.\n"
    "\n"
    "Example:\n"
    "  GST_TRACERS=\"stageprof(trace=run.json)\" gst-launch-1.0 videotestsrc "
    "num-buffers=100 ! video/x-raw,format=I420,width=1280,height=720 ! "
    "videoconvert ! video/x-raw,format=RGB ! fakesink\n"
    "  stageprof-report show run.json --top 5\n";

/* Long reads (a trace of gigabytes) show how far they got, on a terminal
 * only; the line is cleared by the next message or at exit. */
static gboolean progress_shown;

static void
progress (const gchar * path, guint64 done, guint64 total)
{
  g_printerr ("\rstageprof-report: reading %s: %" G_GUINT64_FORMAT " MB"
      " of %" G_GUINT64_FORMAT " MB (%.0f%%)   ", path, done >> 20,
      total >> 20, total ? 100.0 * done / total : 0);
  progress_shown = TRUE;
}

static void
progress_clear (void)
{
  if (progress_shown)
    g_printerr ("\r\033[K");
  progress_shown = FALSE;
}

static void
print_notes (const SpProfile * p)
{
  guint i;

  for (i = 0; i < p->notes->len; i++)
    g_printerr ("stageprof-report: note: %s\n", (gchar *) p->notes->pdata[i]);
}

static SpProfile *
load (const gchar * path, const SpSelect * sel)
{
  GError *err = NULL;
  SpProfile *p = sp_profile_load (path, sel, &err);

  progress_clear ();
  if (!p) {
    g_printerr ("stageprof-report: %s\n", err->message);
    g_clear_error (&err);
  }
  return p;
}

static gboolean
write_out (const gchar * out, const gchar * text)
{
  GError *err = NULL;

  if (!out || !strcmp (out, "-")) {
    fputs (text, stdout);
    return fflush (stdout) == 0;
  }
  /* common/spfile.h: a temporary renamed over a file, a device or FIFO
   * written in place, never through a link. */
  if (!sp_file_replace_contents (out, text, strlen (text), "output", &err)) {
    g_printerr ("stageprof-report: %s\n", err->message);
    g_clear_error (&err);
    return FALSE;
  }
  return TRUE;
}

/* Whether `out` names one of the inputs argv[1..argc-1] (by the file
 * itself: ./a.json and a.json are one), which writing would destroy. */
static gboolean
output_is_input (const gchar * out, gint argc, gchar ** argv)
{
  struct stat so, si;
  gboolean have_out;

  if (!out || !strcmp (out, "-"))
    return FALSE;
  have_out = stat (out, &so) == 0;
  for (gint i = 1; i < argc; i++) {
    if (!strcmp (argv[i], out))
      return TRUE;
    if (have_out && S_ISREG (so.st_mode) && stat (argv[i], &si) == 0
        && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
      return TRUE;
  }
  return FALSE;
}

/* Parses a command's options; prints the usage error and returns FALSE. */
static gboolean
parse (GOptionContext * ctx, gint * argc, gchar *** argv)
{
  GError *err = NULL;

  if (!g_option_context_parse (ctx, argc, argv, &err)) {
    g_printerr ("stageprof-report: %s\n(see %s --help)\n", err->message,
        (*argv)[0]);
    g_clear_error (&err);
    return FALSE;
  }
  return TRUE;
}

static gint
usage_error (GOptionContext * ctx, const gchar * msg)
{
  gchar *help = g_option_context_get_help (ctx, TRUE, NULL);

  g_printerr ("stageprof-report: %s\n\n%s", msg, help);
  g_free (help);
  return EXIT_USAGE;
}

/* --from/--till: a usage error (exit 2) for a value that is no time. */
#define SP_RANGE_ENTRIES(from, till) \
    {"from", 0, 0, G_OPTION_ARG_STRING, &from, \
        "Only from this second of running time on (a trace, or a database " \
          "written with interval=)", "S"}, \
    {"till", 0, 0, G_OPTION_ARG_STRING, &till, \
        "Only up to this second of running time", "S"}

static gboolean
set_range (GOptionContext * ctx, SpSelect * sel, const gchar * from,
    const gchar * till, gint * ret)
{
  GError *err = NULL;

  if (sp_select_set_range (sel, from, till, &err))
    return TRUE;
  *ret = usage_error (ctx, err->message);
  g_clear_error (&err);
  return FALSE;
}

/* ---- show ----------------------------------------------------------- */

static gint
cmd_show (gint argc, gchar ** argv)
{
  gchar *pipeline = NULL, *run = NULL, *sort = NULL, *format = NULL;
  gchar *table = NULL, *out = NULL, *from = NULL, *till = NULL;
  gint top = 0, ret = EXIT_USAGE;
  GOptionEntry entries[] = {
    SP_RANGE_ENTRIES (from, till),
    {"pipeline", 'p', 0, G_OPTION_ARG_STRING, &pipeline,
        "Only the rows of this pipeline", "NAME"},
    {"run", 'r', 0, G_OPTION_ARG_STRING, &run,
        "A database: this run_id (default: the latest); a summary: rows of "
          "this run", "ID"},
    {"sort", 's', 0, G_OPTION_ARG_STRING, &sort,
        "Order elements by total (default), mean, median, p90, p99, max, "
          "count or name", "KEY"},
    {"top", 'n', 0, G_OPTION_ARG_INT, &top,
        "Only the first N elements (0: all)", "N"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
        "text (default), json, csv or markdown", "FORMAT"},
    {"table", 't', 0, G_OPTION_ARG_STRING, &table,
        "With --format csv: which table (elements, queues, threads, sinks, "
        "latency, element_latency, pools, memory)",
        "NAME"},
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
        "Write here instead of stdout", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("FILE - tables and verdict "
      "of one stageprof profile");
  SpSelect sel;
  SpSortKey key = SP_SORT_TOTAL;
  SpFormat f = SP_FORMAT_TEXT;
  SpProfile *p;
  gchar *text;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, "Prints per-element self time, queue "
      "levels, thread shares and the verdict.\nA trace alone is enough: the "
      "figures are recomputed from its slices.");
  g_option_context_set_description (ctx, "Example:\n  stageprof-report show "
      "run.json --sort p99 --top 5 --format markdown\n"
      "  stageprof-report show run.db --from 60 --till 120\n");
  if (!parse (ctx, &argc, &argv))
    goto out;
  if (argc != 2) {
    ret = usage_error (ctx, argc < 2 ? "show needs one FILE" :
        "show takes one FILE (diff compares two)");
    goto out;
  }
  if (sort && !sp_sort_key_parse (sort, &key)) {
    ret = usage_error (ctx, "unknown --sort key");
    goto out;
  }
  if (format && (!sp_format_parse (format, &f) || f == SP_FORMAT_HTML)) {
    ret = usage_error (ctx, "unknown --format (text, json, csv, markdown)");
    goto out;
  }
  if (table && strcmp (table, "elements") && strcmp (table, "queues")
      && strcmp (table, "threads") && strcmp (table, "sinks")
      && strcmp (table, "latency") && strcmp (table, "element_latency")
      && strcmp (table, "pools") && strcmp (table, "memory")) {
    ret = usage_error (ctx, "unknown --table (elements, queues, threads, "
        "sinks, latency, element_latency, pools, memory)");
    goto out;
  }
  if (top < 0) {
    ret = usage_error (ctx, "--top must be 0 or more");
    goto out;
  }
  if (output_is_input (out, argc, argv)) {
    ret = usage_error (ctx, "the output is also an input");
    goto out;
  }
  sel.pipeline = pipeline;
  sel.run = run;
  if (!set_range (ctx, &sel, from, till, &ret))
    goto out;
  if (!(p = load (argv[1], &sel)))
    goto out;
  sp_profile_sort (p, key);
  print_notes (p);
  text = sp_show_render (p, f, top, table);
  ret = write_out (out, text) ? EXIT_OK : EXIT_FAILED;
  g_free (text);
  sp_profile_free (p);
out:
  g_option_context_free (ctx);
  g_free (pipeline);
  g_free (run);
  g_free (sort);
  g_free (format);
  g_free (table);
  g_free (out);
  g_free (from);
  g_free (till);
  return ret;
}

/* ---- diff ----------------------------------------------------------- */

static void
diff_help (GOptionContext * ctx)
{
  g_option_context_set_summary (ctx, "Per element (matched by path), queue "
      "and thread: A and B side by side with the change\nin mean, P90 and "
      "total. A change is marked SLOWER or faster only when it is beyond\n"
      "the run-to-run noise judged from the element's own spread: its median "
      "moved by\nmore than half its spread (the smaller of P90 - median and "
      "median - min),\n3 standard errors, 5 % and 10 us per buffer. A and B "
      "may be of "
      "different kinds (a summary\nagainst a trace) and the same file "
      "(a database: --run-a 1 --run-b 2).\n\n"
      "With several runs a side (A1 A2 A3 -- B1 B2 B3, each run of one "
      "setting), an element\nchanged only when the two sides' per-run "
      "values do not overlap and the ratio of their medians\nexceeds the "
      "largest ratio between runs of one side (max / min): what a\nloaded "
      "machine does to runs of the same setting; 5 runs a side are best. Each run's share of time waiting\nfor a "
      "CPU is shown. --fail-above names only elements judged SLOWER.");
  g_option_context_set_description (ctx, "Examples (a CI gate):\n"
      "  stageprof-report diff baseline.json new.json --fail-above 10\n"
      "  stageprof-report diff a1.json a2.json a3.json -- b1.json b2.json "
      "b3.json --fail-above 10\n");
}

/* The index of the first input of B in argv (the "--" between the sides
 * removed), or -1 with a usage error printed. */
static gint
diff_sides (GOptionContext * ctx, gint * argc, gchar ** argv,
    const gchar * sep_mark)
{
  gint sep = -1;

  for (gint k = 1; k < *argc; k++)
    if (!strcmp (argv[k], sep_mark))
      sep = k;
  if (sep < 0 ? *argc != 3 : (sep < 2 || sep >= *argc - 1)) {
    usage_error (ctx, sep < 0 ? "diff needs two inputs, A and B (or "
        "runs of A, --, runs of B)" : "diff needs at least one run on each "
        "side of --");
    return -1;
  }
  if (sep < 0)
    return 2;                   /* A at 1, B at 2 */
  memmove (argv + sep, argv + sep + 1, (*argc - sep - 1) * sizeof (gchar *));
  (*argc)--;
  return sep;
}

/* The exit status of a diff written out: usage when A and B share no
 * element, failed when --fail-above finds a regression. */
static gint
diff_status (const SpDiff * d, gdouble fail_above, gdouble min_share)
{
  gint ret = EXIT_OK;

  if (d->elems->len == 0) {
    gchar *pa = sp_profile_pipelines (d->a), *pb = sp_profile_pipelines (d->b);
    g_printerr ("stageprof-report: A and B have no element in common "
        "(pipelines %s / %s): nothing to compare\n", pa, pb);
    g_free (pa);
    g_free (pb);
    return EXIT_USAGE;
  }
  if (fail_above >= 0) {
    GString *why = g_string_new (NULL);
    if (sp_diff_regressions (d, fail_above, min_share, why) > 0) {
      g_printerr ("stageprof-report: regression:\n%s", why->str);
      ret = EXIT_FAILED;
    }
    g_string_free (why, TRUE);
  }
  return ret;
}

static gint
cmd_diff (gint argc, gchar ** argv)
{
  gchar *pipeline = NULL, *run_a = NULL, *run_b = NULL, *format = NULL;
  gchar *out = NULL, *from = NULL, *till = NULL;
  gdouble fail_above = -1, min_share = 1.0;
  gint ret = EXIT_USAGE;
  GOptionEntry entries[] = {
    SP_RANGE_ENTRIES (from, till),
    {"fail-above", 0, 0, G_OPTION_ARG_DOUBLE, &fail_above,
        "Exit 1 when an element's total self time grew more than PCT %",
        "PCT"},
    {"min-share", 0, 0, G_OPTION_ARG_DOUBLE, &min_share,
        "--fail-above ignores growth smaller than PCT % of the run's total "
          "self time (default 1)", "PCT"},
    {"pipeline", 'p', 0, G_OPTION_ARG_STRING, &pipeline,
        "Only the rows of this pipeline (in both)", "NAME"},
    {"run-a", 0, 0, G_OPTION_ARG_STRING, &run_a,
        "Run of A (a database holds many)", "ID"},
    {"run-b", 0, 0, G_OPTION_ARG_STRING, &run_b, "Run of B", "ID"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
        "text (default), json, csv or markdown", "FORMAT"},
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
        "Write here instead of stdout", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("A B | A1 A2... -- B1 B2... - "
      "compare stageprof profiles");
  SpSelect sa, sb;
  SpFormat f = SP_FORMAT_TEXT;
  SpDiff *d = NULL;
  GPtrArray *ra = g_ptr_array_new_with_free_func ((GDestroyNotify)
      sp_profile_free), *rb = g_ptr_array_new_with_free_func ((GDestroyNotify)
      sp_profile_free);
  gchar *text;
  gint k, sep;
  static gchar sep_mark[] = "\001--";

  /* "--" between the runs of A and of B: kept through option parsing */
  for (k = 1; k < argc; k++)
    if (!strcmp (argv[k], "--"))
      argv[k] = sep_mark;
  g_option_context_add_main_entries (ctx, entries, NULL);
  diff_help (ctx);
  if (!parse (ctx, &argc, &argv) || (sep = diff_sides (ctx, &argc, argv,
              sep_mark)) < 0)
    goto out;
  if (format && (!sp_format_parse (format, &f) || f == SP_FORMAT_HTML)) {
    ret = usage_error (ctx, "unknown --format (text, json, csv, markdown)");
    goto out;
  }
  if (output_is_input (out, argc, argv)) {
    ret = usage_error (ctx, "the output is also an input");
    goto out;
  }
  sa.pipeline = sb.pipeline = pipeline;
  sa.run = run_a;
  sb.run = run_b;
  if (!set_range (ctx, &sa, from, till, &ret)
      || !set_range (ctx, &sb, from, till, &ret))
    goto out;
  for (k = 1; k < argc; k++) {
    SpProfile *p = load (argv[k], k < sep ? &sa : &sb);

    if (!p)
      goto out;
    print_notes (p);
    g_ptr_array_add (k < sep ? ra : rb, p);
  }
  d = sp_diff_new_runs (ra, rb);
  text = sp_diff_render (d, f);
  ret = write_out (out, text) ? diff_status (d, fail_above, min_share) :
      EXIT_FAILED;
  g_free (text);
out:
  sp_diff_free (d);
  g_ptr_array_unref (ra);       /* frees the runs */
  g_ptr_array_unref (rb);
  g_option_context_free (ctx);
  g_free (pipeline);
  g_free (run_a);
  g_free (run_b);
  g_free (format);
  g_free (out);
  g_free (from);
  g_free (till);
  return ret;
}

/* ---- merge ---------------------------------------------------------- */

static gint
cmd_merge (gint argc, gchar ** argv)
{
  gchar *out = NULL, **labels = NULL;
  gint ret = EXIT_USAGE;
  GOptionEntry entries[] = {
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
        "The merged trace (required)", "OUT.json"},
    {"label", 'l', 0, G_OPTION_ARG_STRING_ARRAY, &labels,
        "Name of each input's processes, in input order (default: the file "
          "name); repeat once per input", "LABEL"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("IN... - one Chrome trace "
      "from several stageprof traces");
  GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);
  GError *err = NULL;
  guint i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, "Each input becomes its own processes, "
      "named \"PIPELINE (LABEL)\", placed on one time\naxis by the "
      "wall-clock start each trace records. Open the result in\n"
      "https://ui.perfetto.dev or chrome://tracing.");
  g_option_context_set_description (ctx, "Example (three jobs of a batch):\n"
      "  stageprof-report merge -o all.json job1.json job2.json job3.json\n");
  if (!parse (ctx, &argc, &argv))
    goto out;
  if (!out) {
    ret = usage_error (ctx, "merge needs -o OUT.json");
    goto out;
  }
  if (argc < 2) {
    ret = usage_error (ctx, "merge needs at least one input trace");
    goto out;
  }
  if (labels && g_strv_length (labels) != (guint) argc - 1) {
    ret = usage_error (ctx, "give --label once per input, or not at all");
    goto out;
  }
  if (output_is_input (out, argc, argv)) {
    ret = usage_error (ctx, "the output is also an input");
    goto out;
  }
  if (!sp_merge_traces ((const gchar * const *) argv + 1,
          (const gchar * const *) labels, out, notes, &err)) {
    progress_clear ();
    g_printerr ("stageprof-report: %s\n", err->message);
    ret = err->domain == SP_REPORT_ERROR
        && err->code == SP_REPORT_ERROR_IO ? EXIT_FAILED : EXIT_USAGE;
    g_clear_error (&err);
  } else {
    progress_clear ();
    ret = EXIT_OK;
  }
  for (i = 0; i < notes->len; i++)
    g_printerr ("stageprof-report: note: %s\n", (gchar *) notes->pdata[i]);
out:
  g_ptr_array_free (notes, TRUE);
  g_option_context_free (ctx);
  g_free (out);
  g_strfreev (labels);
  return ret;
}

/* ---- html, dot ------------------------------------------------------ */

static gint
cmd_html_dot (gint argc, gchar ** argv, gboolean html)
{
  gchar *out = NULL, *pipeline = NULL, *from = NULL, *till = NULL;
  gint ret = EXIT_USAGE;
  GOptionEntry entries[] = {
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
        "Where to write (required; - for stdout)", "FILE"},
    {"pipeline", 'p', 0, G_OPTION_ARG_STRING, &pipeline,
        "Only the rows of this pipeline", "NAME"},
    SP_RANGE_ENTRIES (from, till),
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new (html ?
      "INPUT [INPUT2] - a self-contained HTML report" :
      "INPUT - the pipeline graph with the profile on it, as Graphviz DOT");
  SpProfile *a = NULL, *b = NULL;
  SpSelect sel = SP_SELECT_ALL;
  gchar *text;

  /* dot draws the whole run: no range */
  if (!html)
    entries[2] = (GOptionEntry) {
  NULL};
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (html) {
    g_option_context_set_summary (ctx, "Tables, the verdict and inline SVG "
        "plots (self time per element, thread shares,\nqueue levels over "
        "time, per-buffer time median/P90/P99; a database written with\n"
        "interval=: its windows over time, frames/s and bitrate per pad, "
        "latency); with two\ninputs, their diff first. One file: no "
        "network, no external script.");
    g_option_context_set_description (ctx, "Example:\n  stageprof-report "
        "html -o report.html before.json after.json\n");
  } else {
    g_option_context_set_summary (ctx, "Elements and their links (recorded "
        "in the trace), coloured by self time; queues\nlabelled with their "
        "mean and max level; streaming threads as clusters.");
    g_option_context_set_description (ctx, "Example:\n  stageprof-report "
        "dot -o graph.dot run.json && dot -Tsvg graph.dot > graph.svg\n");
  }
  if (!parse (ctx, &argc, &argv))
    goto out;
  if (!out) {
    ret = usage_error (ctx, "-o FILE is required");
    goto out;
  }
  if (argc < 2 || argc > (html ? 3 : 2)) {
    ret = usage_error (ctx, html ? "html takes one or two inputs" :
        "dot takes one input");
    goto out;
  }
  if (output_is_input (out, argc, argv)) {
    ret = usage_error (ctx, "the output is also an input");
    goto out;
  }
  sel.pipeline = pipeline;
  if (!set_range (ctx, &sel, from, till, &ret))
    goto out;
  if (!(a = load (argv[1], &sel)))
    goto out;
  print_notes (a);
  if (argc == 3) {
    if (!(b = load (argv[2], &sel)))
      goto out;
    print_notes (b);
  }
  sp_profile_sort (a, SP_SORT_TOTAL);
  if (b)
    sp_profile_sort (b, SP_SORT_TOTAL);
  text = html ? sp_html_render (a, b) : sp_dot_render (a);
  ret = write_out (out, text) ? EXIT_OK : EXIT_FAILED;
  g_free (text);
out:
  sp_profile_free (a);
  sp_profile_free (b);
  g_option_context_free (ctx);
  g_free (out);
  g_free (pipeline);
  g_free (from);
  g_free (till);
  return ret;
}

int
main (int argc, char **argv)
{
  const gchar *cmd;

  setlocale (LC_ALL, "");
  g_set_prgname ("stageprof-report");
  if (isatty (STDERR_FILENO))
    sp_trace_reader_set_progress (progress);
  if (argc < 2 || !strcmp (argv[1], "--help") || !strcmp (argv[1], "-h")
      || !strcmp (argv[1], "help")) {
    (argc < 2 ? g_printerr : g_print) ("Usage: stageprof-report COMMAND "
        "[OPTION...] FILE...\n\n%s", commands_help);
    return argc < 2 ? EXIT_USAGE : EXIT_OK;
  }
  if (!strcmp (argv[1], "--version")) {
    g_print ("stageprof-report %s\n", VERSION);
    return EXIT_OK;
  }
  cmd = argv[1];
  /* The command's own parser sees "stageprof-report CMD" as argv[0]. */
  argv[1] = g_strdup_printf ("stageprof-report %s", cmd);
  g_set_prgname (argv[1]);
  argv++;
  argc--;
  if (!strcmp (cmd, "show"))
    return cmd_show (argc, argv);
  if (!strcmp (cmd, "diff"))
    return cmd_diff (argc, argv);
  if (!strcmp (cmd, "merge"))
    return cmd_merge (argc, argv);
  if (!strcmp (cmd, "html"))
    return cmd_html_dot (argc, argv, TRUE);
  if (!strcmp (cmd, "dot"))
    return cmd_html_dot (argc, argv, FALSE);
  g_printerr ("stageprof-report: unknown command '%s'\n\nUsage: "
      "stageprof-report COMMAND [OPTION...] FILE...\n\n%s", cmd,
      commands_help);
  return EXIT_USAGE;
}
