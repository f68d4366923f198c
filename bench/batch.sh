#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# stage-batch against GNU parallel and a sequential loop, in one run.
#
# 12 short 720p H.264 clips, each decoded, resized to 640x360 and encoded
# again (the same gst-launch-1.0 lines for all three: stage-batch --dry-run
# prints them). Prints the wall time of:
#   - a sequential shell loop over the gst-launch-1.0 lines,
#   - GNU parallel (Debian's `parallel`) at -j 1..2*cores, and its best,
#   - stage-batch --jobs auto,
# then the scheduling overhead per job: stage-batch --jobs 1 against the
# sequential loop on JOBS no-op jobs (fakesrc num-buffers=1 ! fakesink),
# (T_stage-batch - T_loop) / JOBS.
#
#   bench/batch.sh                         # build dir ./build
#   CLIPS=12 FRAMES=60 RUNS=3 bench/batch.sh
#   FRAMES=10 RUNS=1 NOOP=20 bench/batch.sh     # a quick look
#
# Goals: stage-batch at least as fast as GNU parallel's best -j,
# under 20 ms of scheduling overhead per job.
#
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
clips=${CLIPS:-12}
frames=${FRAMES:-60}
runs=${RUNS:-3}
noop=${NOOP:-50}
cores=$(nproc)
sb="$build/tools/stage-batch"

export GST_PLUGIN_PATH_1_0="$build/gst:$build/tracer${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
export GST_REGISTRY_1_0=${GST_REGISTRY_1_0:-/tmp/batch-bench-$(id -u).registry}

[ -x "$sb" ] || { echo "no $sb: build first (meson compile -C build)" >&2; exit 1; }
command -v parallel >/dev/null || { echo "GNU parallel not found (apt-get install parallel)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/batch-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if gst-inspect-1.0 x264enc >/dev/null 2>&1; then
  enc="x264enc speed-preset=ultrafast threads=1"
else
  enc="openh264enc"
fi

echo "making $clips clips of $frames frames, 1280x720 ($enc)..."
mkdir -p "$tmp/in"
echo input > "$tmp/jobs.csv"
for i in $(seq 1 "$clips"); do
  # Lengths vary a little, as real batches do: longest-first matters then.
  n=$(( frames + (i % 4) * frames / 4 ))
  gst-launch-1.0 -q videotestsrc num-buffers=$n pattern=$(( i % 20 )) \
    ! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 ! $enc ! h264parse \
    ! mp4mux ! filesink location="$tmp/in/clip$i.mp4"
  echo "$tmp/in/clip$i.mp4" >> "$tmp/jobs.csv"
done

template="filesrc location={input} ! qtdemux ! h264parse ! avdec_h264 ! \
stageresize width=640 height=360 ! $enc ! h264parse ! mp4mux ! \
filesink location=$tmp/out/{stem}.mp4"
mkdir -p "$tmp/out"
"$sb" --dry-run --state-dir "$tmp/state" "$template" "$tmp/jobs.csv" \
  | grep -v '^#' > "$tmp/lines.sh"

now() { date +%s.%N; }
calc() { awk "BEGIN { print $* }"; }
# best of $runs: seconds
best() {
  local b="" t0 t1 t
  for _ in $(seq 1 "$runs"); do
    rm -rf "$tmp/out" "$tmp/state"; mkdir -p "$tmp/out"
    t0=$(now); "$@" >/dev/null 2>"$tmp/err" || { echo "failed: $*" >&2; tail -5 "$tmp/err" >&2; exit 1; }; t1=$(now)
    t=$(calc "$t1 - $t0")
    if [ -z "$b" ] || [ "$(calc "$t < $b")" = 1 ]; then b=$t; fi
  done
  printf "%.3f" "$b"
}

seq_loop() { while IFS= read -r line; do eval "$line" >/dev/null || return 1; done < "$1"; }

echo
echo "resize + encode, $clips clips (best of $runs):"
t_seq=$(best seq_loop "$tmp/lines.sh")
printf "  %-28s %8.3f s\n" "sequential loop" "$t_seq"
p_best=""; p_j=0
for j in $(seq 1 $(( 2 * cores ))); do
  t=$(best parallel -j "$j" -a "$tmp/lines.sh")
  printf "  %-28s %8.3f s\n" "GNU parallel -j $j" "$t"
  if [ -z "$p_best" ] || [ "$(calc "$t < $p_best")" = 1 ]; then p_best=$t; p_j=$j; fi
done
t_sb=$(best "$sb" --jobs auto --progress=none --state-dir "$tmp/state" "$template" "$tmp/jobs.csv")
printf "  %-28s %8.3f s\n" "stage-batch --jobs auto" "$t_sb"
t_sb1=$(best "$sb" --jobs "$p_j" --progress=none --state-dir "$tmp/state" "$template" "$tmp/jobs.csv")
printf "  %-28s %8.3f s\n" "stage-batch --jobs $p_j" "$t_sb1"

echo
echo "scheduling overhead, $noop no-op jobs, one at a time (best of $runs):"
{ echo name; for i in $(seq 1 "$noop"); do echo "n$i"; done; } > "$tmp/noop.csv"
"$sb" --dry-run --state-dir "$tmp/state" 'fakesrc num-buffers=1 name={name} ! fakesink' \
  "$tmp/noop.csv" | grep -v '^#' > "$tmp/noop.sh"
t_nl=$(best seq_loop "$tmp/noop.sh")
t_ns=$(best "$sb" --jobs 1 --progress=none --state-dir "$tmp/state" \
  'fakesrc num-buffers=1 name={name} ! fakesink' "$tmp/noop.csv")
t_np=$(best parallel -j 1 -a "$tmp/noop.sh")
printf "  %-28s %8.3f s\n" "sequential gst-launch-1.0" "$t_nl" "stage-batch --jobs 1" "$t_ns" \
  "GNU parallel -j 1" "$t_np"

echo
echo "results ($cores cores):"
printf "  stage-batch --jobs auto / GNU parallel best (-j %d): %.2fx the time (goal <= 1.00)\n" \
  "$p_j" "$(calc "$t_sb / $p_best")"
printf "  stage-batch --jobs auto / sequential loop: %.2fx the time\n" "$(calc "$t_sb / $t_seq")"
printf "  scheduling overhead per job: %.1f ms (stage-batch), %.1f ms (GNU parallel) over gst-launch-1.0 (goal < 20 ms)\n" \
  "$(calc "($t_ns - $t_nl) * 1000 / $noop")" "$(calc "($t_np - $t_nl) * 1000 / $noop")"
