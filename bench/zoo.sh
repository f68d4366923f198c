#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The zoo in full: stageprof on twenty-odd real pipelines (x264enc default,
# zerolatency and bframes=3, x265enc, openh264enc, vp8enc, jpeg, avdec_h264
# frame threads, h264parse, qtdemux/mp4mux/matroskamux with AAC, decodebin3,
# compositor, audiomixer, tee, RTP over loopback UDP, appsrc/appsink from
# Python, videorate, videoconvert n-threads, a leaky queue, stagebin replicas,
# stagesrc sparse reads), live and not, each figure held against the truth
# harness of tests/truth/gsttruth.py (pad probes and /proc in the same
# process; no code shared with the tracer). Prints one table: pipeline,
# check, stageprof, truth, ok; then the known stageprof failures with their
# reasons (none on 1.22); then GStreamer's own latency tracer on the tee,
# mixer and x264 pipelines against the probes of its own run, beside
# stageprof's. The test suite runs the quick form (meson test zoo).
#
#   bench/zoo.sh                    # full form: 640x360, 150 frames, 5 s live
#   bench/zoo.sh --only x264-default,rtp-loop-live
#   bench/zoo.sh --quick            # what CI runs
#   bench/zoo.sh --strict           # known failures count as failures
#
# Exit status 1 when a check that is not a known failure fails.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
full=--full
args=""
for a in "$@"; do
  case "$a" in
    --quick) full="" ;;
    *) args="$args $a" ;;
  esac
done
export GST_PLUGIN_PATH_1_0="$build/gst:$build/tracer${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
export GST_REGISTRY_1_0=${GST_REGISTRY_1_0:-${TMPDIR:-/tmp}/zoo-bench-$(id -u).registry}
export GST_DEBUG=${GST_DEBUG:-ERROR}
# shellcheck disable=SC2086
exec /usr/bin/python3 "$here/tests/truth/zoo.py" $full $args
