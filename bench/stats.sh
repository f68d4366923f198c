#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ns and instructions per stage_stats_add() call (ops/stats.c), the part of
# stageprof's per-buffer cost that is ours rather than GStreamer's.
#
#   bench/stats.sh                  # the working tree's ops/stats.c
#   BASELINE=HEAD bench/stats.sh    # and, side by side, ops/stats.c at HEAD
#
# Compiles bench/stats-bench.c against ops/stats.c with the flags ops/ is
# built with (-O3; OPT overrides), runs it on five data shapes (ROUNDS
# rounds of REPS passes of CALLS calls; defaults 3, 7, 2000000), then
# counts instructions per call with callgrind when valgrind is installed
# (CALLGRIND=0 skips). With BASELINE=REV the same is done for REV's
# stats.c/stats.h (read with git show, nothing checked out); the checksums
# printed are equal when both give the same results bit for bit.
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=${CALLS:-2000000}
REPS=${REPS:-7}
ROUNDS=${ROUNDS:-3}
OPT=${OPT:--O3}
CC=${CC:-cc}
TMP=$(mktemp -d /tmp/stats-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

build() {   # build DIR: DIR holds stats.c and stats.h
  $CC $OPT -g -Wall -Wextra -c "$1/stats.c" -o "$1/stats.o"
  $CC -O2 -g -Wall -Wextra -I"$1" bench/stats-bench.c "$1/stats.o" \
    -o "$1/stats-bench" -lm
}

instructions() {   # instructions DIR: Ir inside stage_stats_add per call
  local n=200000 d
  for d in lognormal ticks sorted; do
    valgrind --tool=callgrind --toggle-collect=stage_stats_add \
      --callgrind-out-file="$1/cg.out" "$1/stats-bench" $n 1 $d \
      >/dev/null 2>"$1/cg.log"
    awk -v n=$n -v d=$d '/^(summary|totals):/ { ir = $2 } END {
      printf "  callgrind: %.1f instructions per call (%s, %d calls)\n",
        ir / n, d, n }' "$1/cg.out"
  done
}

labels=(current)
mkdir -p "$TMP/current"
cp ops/stats.c ops/stats.h "$TMP/current/"
if [ -n "${BASELINE:-}" ]; then
  labels=("$BASELINE" current)
  mkdir -p "$TMP/$BASELINE"
  git show "$BASELINE:ops/stats.c" >"$TMP/$BASELINE/stats.c"
  git show "$BASELINE:ops/stats.h" >"$TMP/$BASELINE/stats.h"
fi
for l in "${labels[@]}"; do build "$TMP/$l"; done

echo "stage_stats_add: $CC $OPT, 10 StageStats round-robin;" \
  "$ROUNDS rounds x $REPS passes x $CALLS calls, builds interleaved"
for r in $(seq 1 "$ROUNDS"); do
  for l in "${labels[@]}"; do
    "$TMP/$l/stats-bench" "$CALLS" "$REPS" all | sed "s|^|$l |" >>"$TMP/runs.txt"
  done
done
# Per build and data shape: the best pass of all rounds (the least
# disturbed by other load), the median of the rounds' medians, and the
# checksum (equal checksums: same results to the bit).
for l in "${labels[@]}"; do
  echo "[$l]"
  python3 - "$l" "$TMP/runs.txt" <<'PY'
import sys, statistics
label, runs = sys.argv[1], {}
for line in open(sys.argv[2]):
    f = line.split()
    if f[0] == label:
        runs.setdefault(f[1], []).append((float(f[7]), float(f[10]), f[-1]))
for dist, r in runs.items():
    print(f"  {dist:9} best {min(b for b, _, _ in r):6.2f} ns/call"
          f"  median {statistics.median(m for _, m, _ in r):6.2f} ns/call"
          f"  checksum {r[-1][2]}")
PY
  if [ "${CALLGRIND:-1}" != 0 ] && command -v valgrind >/dev/null; then
    instructions "$TMP/$l"
  fi
done
