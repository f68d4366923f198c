#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One long stored stream processed by 1, 2 and 4 jobs at once
# (stage-batch --split N): wall time of each against one job, in one run.
# The stream is the three real clips of ../shared/media one after the
# other, scaled to 720p at 25 fps (libx264, GOP 50), repeated REPEAT times
# (default 2: about 60 s, 1500 frames); each job reads its run of frames
# with stagesrc ranges=, resizes to 640x360 and writes a part with
# stagesink (x264enc), and the parts are joined into one stream. Checked:
# the joined stream has every frame, and verifies.
#
#   bench/split.sh                      (SPLITS="1 2 4", REPS=3)
#   REPEAT=1 SPLITS="1 2" REPS=1 bench/split.sh    (a quick look)
#   MEDIA=../shared/media BUILD=build
#
# Each figure is the best of REPS runs. On a machine with C cores, more
# jobs than C cannot help; x264enc and avdec_h264 use threads of their own,
# so one job already uses more than one core. Goal: 2 jobs faster than 1
# on a 2-core machine; on more cores, near-linear to the core count.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build}
MEDIA=${MEDIA:-../shared/media}
REPEAT=${REPEAT:-2}
SPLITS=${SPLITS:-1 2 4}
REPS=${REPS:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/split-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
export GST_PLUGIN_PATH_1_0=$BUILD/gst
export GST_REGISTRY_1_0=$WORK/registry.bin
unset GST_TRACERS
SB=$BUILD/tools/stage-batch
SS=$BUILD/tools/stage-store
[ -x "$SB" ] && [ -x "$SS" ] || { echo "build first: $SB, $SS" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "ffmpeg not installed (scripts/deps.sh)" >&2; exit 1; }
real=("$MEDIA"/cockatoo_720p_h264.mp4 "$MEDIA"/bbb_720p_h264.mp4 "$MEDIA"/intel_car_detection_432p_h264.mp4)
for f in "${real[@]}"; do [ -f "$f" ] || { echo "no $f" >&2; exit 1; }; done

echo "making the long stream (${#real[@]} real clips x $REPEAT, 720p 25 fps, GOP 50) ..." >&2
inputs=() maps=""
for r in $(seq 1 "$REPEAT"); do
  for f in "${real[@]}"; do
    inputs+=(-i "$f")
    n=$(( ${#inputs[@]} / 2 - 1 ))
    maps="$maps[$n:v]scale=1280:720,setsar=1,fps=25,format=yuv420p[v$n];"
  done
done
n=$(( ${#inputs[@]} / 2 ))
chain=""; for i in $(seq 0 $((n - 1))); do chain="$chain[v$i]"; done
ffmpeg -v error -nostdin "${inputs[@]}" -filter_complex "$maps${chain}concat=n=$n:v=1:a=0[v]" \
  -map "[v]" -c:v libx264 -preset veryfast -bf 2 -g 50 -keyint_min 50 -sc_threshold 0 \
  -movflags +faststart "$WORK/long.mp4"
"$SS" -q ingest "$WORK/in" long "$WORK/long.mp4"
frames=$("$SS" info "$WORK/in" long | sed -n 's/^frames: //p')
printf 'name\nlong\n' > "$WORK/jobs.csv"
echo "cores: $(nproc); stream: $frames frames" >&2

best() { sort -n | head -1; }
printf '%-8s %10s %10s %8s\n' jobs wall_s fps "vs 1"
base=""
for s in $SPLITS; do
  times=""
  for r in $(seq 1 "$REPS"); do
    rm -rf "$WORK/out" "$WORK/state"
    t0=$(date +%s.%N)
    "$SB" --progress=none --jobs "$s" --split "$s" --state-dir "$WORK/state" \
      "stagesrc store=$WORK/in stream={name} ranges={range} ! stageresize width=640 height=360 ! stagesink store=$WORK/out stream={name}-360p{part}" \
      "$WORK/jobs.csv" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    got=$("$SS" info "$WORK/out" long-360p | sed -n 's/^frames: //p')
    [ "$got" = "$frames" ] || { echo "split $s: $got frames joined, expected $frames" >&2; exit 1; }
    "$SS" verify "$WORK/out" >/dev/null || { echo "split $s: verify failed" >&2; exit 1; }
    times="$times $(echo "$t1 - $t0" | bc)"
  done
  t=$(printf '%s\n' $times | best)
  [ -n "$base" ] || base=$t
  printf '%-8s %10.2f %10.1f %7.2fx\n' "$s" "$t" "$(echo "$frames / $t" | bc -l)" "$(echo "$base / $t" | bc -l)"
done
