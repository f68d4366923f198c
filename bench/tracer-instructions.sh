#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# stageprof's cost in instructions (valgrind callgrind), immune to machine
# load: the worst case `fakesrc sizetype=empty ! 8 x identity ! fakesink`
# at two lengths; the difference divided by the extra buffers gives
# instructions per buffer (all threads, trace writer included), without
# start-up costs. Ratios are overhead over the `stagenull` floor (a tracer
# registering the same hook keys and doing nothing).
#
#   bench/tracer-instructions.sh            # ~2 minutes on 2 cores
#   BUILD=dir SHORT=5000 LONG=15000 bench/tracer-instructions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SHORT=${SHORT:-10000}
LONG=${LONG:-30000}
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 1; }
[ -f "$BUILD/tracer/libgststageprof.so" ] || meson compile -C "$BUILD"
tmp=$(mktemp -d /tmp/stageprof-cg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export GST_PLUGIN_PATH_1_0="$PWD/$BUILD/gst:$PWD/$BUILD/tracer"
export GST_REGISTRY_1_0="$tmp/registry.bin"
ids="identity ! identity ! identity ! identity ! identity ! identity ! identity ! identity"

# instructions N TRACERS: total instructions of one run of N buffers
instructions () {
  GST_TRACERS="$2" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
    gst-launch-1.0 -q fakesrc num-buffers="$1" sizetype=empty ! $ids ! fakesink \
    2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

per_buffer () {
  local a b
  a=$(instructions "$SHORT" "$1")
  b=$(instructions "$LONG" "$1")
  echo $(( (b - a) / (LONG - SHORT) ))
}

gst-inspect-1.0 stagenull >/dev/null  # build the registry once
base=$(per_buffer "")
floor=$(( $(per_buffer "stagenull") - base ))
printf '%-34s %8s %12s\n' "tracer" "instr/buf" "x floor"
printf '%-34s %8d\n' "none" "$base"
printf '%-34s %+8d %12s\n' "stagenull (floor)" "$floor" "1.00"
for t in "stageprof(summary=none)" "stageprof" "stageprof(summary=none,trace=$tmp/t.json)" \
         "stats" "latency(flags=element)"; do
  over=$(( $(per_buffer "$t") - base ))
  label=${t//$tmp\//}
  printf '%-34s %+8d %12s\n' "$label" "$over" "$(awk -v o="$over" -v f="$floor" 'BEGIN{printf "%.2f", o/f}')"
done
echo "goals: stageprof <= 1.50x floor and below stats; with trace <= 2.00x"
