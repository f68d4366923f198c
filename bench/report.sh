#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# stageprof-report reading a large trace: streaming, bounded memory, time.
#
#   bench/report.sh                 # a 1 GB trace (SIZE_MB=1024)
#   SIZE_MB=200 bench/report.sh     # a quicker look
#
# Generates a synthetic stageprof trace of SIZE_MB megabytes (the format
# tracer/sptrace.c writes: one event per line, three threads, nested
# element slices, wait slices and queue counters, ~90 bytes an event) with a
# small C generator, then times `stageprof-report show` on it and on a
# trace a tenth of its size, printing elapsed seconds, MB/s and peak
# resident memory of each (GNU time). Memory must not grow with the file:
# the two peaks are printed side by side. Goal: the 1 GB trace in under
# 30 s on the 2-core test machine. Also times `merge` of the large trace
# with the small one. BUILD (default build/) holds the built tool.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SIZE_MB=${SIZE_MB:-1024}
CC=${CC:-cc}
TOOL=$BUILD/tools/stageprof-report
[ -x "$TOOL" ] || { echo "build first: meson compile -C $BUILD" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
TMP=$(mktemp -d /tmp/report-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

cat > "$TMP/gen.c" <<'GEN'
#include <stdio.h>
#include <stdlib.h>
/* gen BYTES: a stageprof-like trace of about BYTES bytes on stdout. */
int main (int argc, char **argv) {
  long long want = atoll (argv[1]), n = 0, f;
  double t = 1000.0;
  n += printf ("[\n{\"name\":\"stageprof_start\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
      "\"args\":{\"wall_clock_us\":1700000000000000,\"ts_us\":0.000}}\n");
  n += printf (",{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"pipeline0\"}}\n");
  n += printf (",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":101,\"args\":{\"name\":\"filesrc0\"}}\n");
  n += printf (",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":102,\"args\":{\"name\":\"queue0\"}}\n");
  for (f = 0; n < want; f++) {
    /* microseconds: a 1-2.5 ms decode, a 0.3-0.5 ms convert */
    double d = 1000.0 + (f % 7) * 250, c = 300.0 + (f % 5) * 50;
    int lvl = 1 + (int) (f % 9);
    n += printf (",{\"name\":\"filesrc0\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":101}\n", t, 50.0 + (f % 3) * 10);
    n += printf (",{\"name\":\"h264parse0\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":101}\n", t + 100, 200.0);
    n += printf (",{\"name\":\"queue0\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":1,\"args\":{\"buffers\":%d,\"bytes\":%d}}\n", t + 250, lvl, lvl * 4096);
    n += printf (",{\"name\":\"Wait on Output Queue\",\"cat\":\"wait\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":101,\"cname\":\"grey\",\"args\":{\"element\":\"queue0\"}}\n", t + 120, 50.0);
    n += printf (",{\"name\":\"Wait on Input Queue\",\"cat\":\"wait\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":102,\"cname\":\"grey\",\"args\":{\"element\":\"queue0\"}}\n", t, 100.0);
    n += printf (",{\"name\":\"avdec_h264-0\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":102}\n", t + 200, d + c + 20);
    n += printf (",{\"name\":\"videoconvert0\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":102}\n", t + 200 + d, c + 10);
    n += printf (",{\"name\":\"fakesink0\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":102}\n", t + 200 + d + c, 10.0);
    n += printf (",{\"name\":\"queue0\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":1,\"args\":{\"buffers\":%d,\"bytes\":%d}}\n", t + 210, lvl - 1, (lvl - 1) * 4096);
    t += d + c + 500;
  }
  printf ("]\n");
  return 0;
}
GEN
$CC -O2 -o "$TMP/gen" "$TMP/gen.c"

big=$((SIZE_MB * 1024 * 1024))
small=$((big / 10))
"$TMP/gen" $big > "$TMP/big.json"
"$TMP/gen" $small > "$TMP/small.json"
echo "traces: $(du -m "$TMP/big.json" | cut -f1) MB ($(wc -l < "$TMP/big.json") events) and $(du -m "$TMP/small.json" | cut -f1) MB"

measure() {   # measure LABEL SIZE_BYTES CMD...: elapsed s, MB/s, peak RSS
  local label=$1 bytes=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$TMP/time" "$@" > "$TMP/out" 2> "$TMP/err" \
    || { echo "$label failed:"; cat "$TMP/err"; exit 1; }
  read -r secs kb < "$TMP/time"
  awk -v l="$label" -v s="$secs" -v kb="$kb" -v b="$bytes" 'BEGIN {
    printf "%-28s %7.2f s  %7.1f MB/s  peak RSS %6.1f MB\n", l, s,
      b / 1048576 / (s > 0 ? s : 0.01), kb / 1024 }'
}

measure "show (1/10 size)" $small "$TOOL" show "$TMP/small.json"
measure "show (full size)" $big "$TOOL" show "$TMP/big.json"
head -4 "$TMP/out"
measure "merge (full + 1/10)" $((big + small)) "$TOOL" merge -o "$TMP/merged.json" "$TMP/big.json" "$TMP/small.json"
echo "goal: show on the ${SIZE_MB} MB trace in under 30 s, with the same peak RSS as on the small one"
