#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job, end to end: make a sample H.264 clip, then decode it with
# gst-libav, resize, stride and encode it again, profiled by stageprof.
set -euo pipefail
case "${1-}" in
  "") ;;
  -h|--help)
    sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"
    echo "Usage: scripts/demo.sh (no arguments; DEMO_OUT=DIR writes there instead of out/)"
    exit 0 ;;
  *) echo "demo.sh: takes no arguments (scripts/demo.sh --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
. scripts/deps.sh

stages_ensure_packages $STAGES_BUILD_PACKAGES
stages_build

out=${DEMO_OUT:-out}
mkdir -p "$out"
export GST_PLUGIN_PATH_1_0="$PWD/build/gst:$PWD/build/tracer${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
export GST_REGISTRY_1_0="$PWD/build/demo.registry"

# 1. A 10 s 720p H.264 clip of moving test content, made here (no downloads).
sample="$out/sample.mp4"
if [ ! -s "$sample" ]; then
  echo "== making $sample (1280x720, 30 fps, 300 frames, H.264)"
  gst-launch-1.0 -q videotestsrc num-buffers=300 pattern=smpte horizontal-speed=3 \
    ! video/x-raw,width=1280,height=720,framerate=30/1 \
    ! openh264enc bitrate=4000000 ! h264parse ! mp4mux ! filesink location="$sample" 2>&1 | { grep -v cmInitParaError || true; }
fi

# 2. The graph: decode (gst-libav) -> resize -> keep every 2nd frame -> encode.
result="$out/demo.mp4"
trace="$out/demo-trace.json"
graph="filesrc location=$sample ! qtdemux ! h264parse ! avdec_h264 ! queue \
  ! stageresize width=640 height=360 method=bilinear ! stagestride stride=2 \
  ! queue ! openh264enc ! h264parse ! mp4mux ! filesink location=$result"
echo "== running: gst-launch-1.0 $graph"
summary="$out/demo-summary.txt"
tracers=""
if gst-inspect-1.0 stageprof >/dev/null 2>&1; then
  tracers="stageprof(trace=$trace,summary=$summary)"
  rm -f "$summary"
else
  echo "(stageprof tracer not built: running without the profile)"
fi
# shellcheck disable=SC2086
GST_TRACERS="$tracers" gst-launch-1.0 -q $graph 2>&1 | { grep -v cmInitParaError || true; }

# 3. What came out: decode the result and report its caps and frame count.
# Every line below is one the demo promises: a missing one fails the demo.
echo "== result: $result"
log=$(gst-launch-1.0 -v filesrc location="$result" ! qtdemux ! h264parse ! avdec_h264 \
  ! fakesink sync=false silent=false 2>&1)
caps=$(echo "$log" | grep -m1 -o "fakesink0\.GstPad:sink: caps = video/x-raw.*" | tr -d '\\') \
  || { echo "demo: no caps line for the decoded result in gst-launch's output" >&2; exit 1; }
echo "$caps"
frames=$(echo "$log" | grep -c 'chain   \*\*\*' || true)
[ "$frames" -gt 0 ] || { echo "demo: the decoded result has no frames" >&2; exit 1; }
echo "frames in result: $frames (input 300 frames, stride 2)"
if [ -n "$tracers" ]; then
  [ -s "$summary" ] || { echo "demo: stageprof wrote no summary at $summary" >&2; exit 1; }
  echo "== stageprof summary ($summary)"
  cat "$summary"
  # The decoder is the slowest stage by far (timed alone: decode 2-2.5x the
  # encode), working mostly in libav's own threads: a verdict that names
  # another element would send a user to optimise the wrong one.
  grep -q '^Verdict: .*avdec_h264' "$summary" \
    || { echo "demo: the verdict does not name the decoder (avdec_h264)" >&2; exit 1; }
  [ -s "$trace" ] || { echo "demo: stageprof wrote no trace at $trace" >&2; exit 1; }
  echo "== stageprof trace: $trace (open it in https://ui.perfetto.dev or chrome://tracing)"
fi
