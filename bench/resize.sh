#!/usr/bin/env bash
# Net time per frame of stageresize against videoscale and ffmpeg's swscale,
# same method (bilinear), same 1080p I420 input, to 640x480, single-threaded,
# measured side by side in one run; then stageresize's n-threads scaling.
#
#   bench/resize.sh [FRAMES] [ROUNDS]       (defaults 120 frames, 7 rounds)
#   BUILD=/path/to/builddir bench/resize.sh (default: build/)
#
# Last, a quality check: PSNR of a shrunk zone plate against ffmpeg's
# accurate Lanczos, for stageresize and videoscale.
#
# "Net" = CPU time (user + sys) of the pipeline minus that of the same
# pipeline without the scaler, divided by the frame count; each figure is
# the best of ROUNDS interleaved runs, because the machine may be shared.
# The input is made once in /tmp from /work/shared/media (a real clip,
# upscaled to 1080p) when present, else from videotestsrc pattern=snow.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-120}
ROUNDS=${2:-7}
BUILD=${BUILD:-build}
W=1920 H=1080 OW=640 OH=480
FRAME=$((W * H * 3 / 2))
WORK=${TMPDIR:-/tmp}/stageresize-bench
IN=$WORK/in_${W}x${H}_i420_${N}.yuv
mkdir -p "$WORK"

case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
export GST_PLUGIN_PATH_1_0=$BUILD/gst
export GST_REGISTRY_1_0=$WORK/registry.bin
unset GST_TRACERS

if ! gst-inspect-1.0 stageresize >/dev/null 2>&1; then
  echo "stageresize not found in $BUILD/gst: build first (meson compile -C $BUILD)" >&2
  exit 1
fi
command -v ffmpeg >/dev/null || { echo "ffmpeg not installed" >&2; exit 1; }

if [ ! -s "$IN" ]; then
  clip=$(ls /work/shared/media/*.mp4 2>/dev/null | head -1 || true)
  if [ -n "$clip" ]; then
    echo "making $IN from $clip (upscaled to ${W}x${H})"
    ffmpeg -v error -y -i "$clip" -frames:v "$N" \
      -vf "scale=${W}:${H}:flags=lanczos,format=yuv420p" -f rawvideo "$IN"
  else
    echo "making $IN from videotestsrc pattern=snow"
    gst-launch-1.0 -q videotestsrc pattern=snow num-buffers="$N" \
      ! "video/x-raw,format=I420,width=$W,height=$H" ! filesink location="$IN"
  fi
fi
N=$(( $(stat -c %s "$IN") / FRAME ))

SRC="filesrc location=$IN blocksize=$FRAME ! rawvideoparse format=i420 width=$W height=$H framerate=30/1"
OUTCAPS="video/x-raw,width=$OW,height=$OH"

# cpu_s CMD...: CPU seconds (user + sys) of CMD; wall_s: elapsed seconds.
cpu_s() {
  local t
  t=$( { TIMEFORMAT='%3U %3S %3R'; time "$@" >/dev/null 2>&1; } 2>&1 | tail -1)
  awk '{ printf "%.3f", $1 + $2 }' <<<"$t"
}
wall_s() {
  local t
  t=$( { TIMEFORMAT='%3R'; time "$@" >/dev/null 2>&1; } 2>&1 | tail -1)
  echo "$t"
}
gst() { gst-launch-1.0 -q $SRC $1 ! fakesink sync=false; }
ffm() {
  ffmpeg -v error -nostdin -threads 1 -filter_threads 1 \
    -f rawvideo -pix_fmt yuv420p -s ${W}x${H} -r 30 -i "$IN" "$@" -f null -
}

declare -A best
measure() { # name kind(cpu|wall) cmd...
  local name=$1 kind=$2 v
  shift 2
  if [ "$kind" = cpu ]; then v=$(cpu_s "$@"); else v=$(wall_s "$@"); fi
  if [ -z "${best[$name]:-}" ] || awk -v a="$v" -v b="${best[$name]}" 'BEGIN { exit !(a < b) }'; then
    best[$name]=$v
  fi
}

NPROC=$(nproc)
THREADS="1 2"
[ "$NPROC" -ge 4 ] && THREADS="$THREADS 4"
[ "$NPROC" -gt 4 ] && THREADS="$THREADS $NPROC"

echo "input: $N frames ${W}x${H} I420 -> ${OW}x${OH}, bilinear, $ROUNDS rounds, $NPROC cores"
for r in $(seq "$ROUNDS"); do
  measure gst_base cpu gst ""
  measure stageresize cpu gst "! stageresize method=bilinear n-threads=1 ! $OUTCAPS"
  measure videoscale cpu gst "! videoscale method=bilinear ! $OUTCAPS"
  measure stage_area cpu gst "! stageresize method=area n-threads=1 ! $OUTCAPS"
  measure stage_bicubic cpu gst "! stageresize method=bicubic n-threads=1 ! $OUTCAPS"
  measure stage_nearest cpu gst "! stageresize method=nearest n-threads=1 ! $OUTCAPS"
  measure ffm_base cpu ffm
  measure swscale cpu ffm -vf "scale=${OW}:${OH}:flags=bilinear"
  measure wall_base wall gst ""
  for t in $THREADS; do
    measure "wall_t$t" wall gst "! stageresize method=bilinear n-threads=$t ! $OUTCAPS"
  done
done

net() { # name base -> ms/frame
  awk -v a="${best[$1]}" -v b="${best[$2]}" -v n="$N" 'BEGIN { v = (a - b) * 1000 / n; printf "%.3f", v < 0.001 ? 0.001 : v }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

s=$(net stageresize gst_base)
v=$(net videoscale gst_base)
f=$(net swscale ffm_base)
echo
echo "single-threaded net CPU time per frame (best of $ROUNDS):"
printf "  %-34s %8s ms/frame\n" "stageresize method=bilinear" "$s"
printf "  %-34s %8s ms/frame\n" "videoscale method=bilinear" "$v"
printf "  %-34s %8s ms/frame\n" "ffmpeg swscale flags=bilinear" "$f"
printf "  %-34s %8s ms/frame\n" "stageresize method=nearest" "$(net stage_nearest gst_base)"
printf "  %-34s %8s ms/frame\n" "stageresize method=area" "$(net stage_area gst_base)"
printf "  %-34s %8s ms/frame\n" "stageresize method=bicubic" "$(net stage_bicubic gst_base)"
echo "ratios (higher = stageresize faster):"
echo "  videoscale / stageresize = $(ratio "$v" "$s")x   (goal >= 1.5)"
echo "  swscale    / stageresize = $(ratio "$f" "$s")x   (goal >= 1.0)"
echo
echo "n-threads scaling, bilinear, net wall time per frame:"
t1=$(net wall_t1 wall_base)
for t in $THREADS; do
  x=$(net "wall_t$t" wall_base)
  printf "  n-threads=%-3s %8s ms/frame  speed-up %sx\n" "$t" "$x" "$(ratio "$t1" "$x")"
done

# Quality: a zone plate (all frequencies up to Nyquist) shrunk 3x, compared
# with ffmpeg's accurate Lanczos as the reference (PSNR, higher is better).
# Aliasing shows as a low PSNR.
ZP=$WORK/zoneplate_${W}x${H}.gray
gst-launch-1.0 -q videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=1 \
  ! "video/x-raw,format=GRAY8,width=$W,height=$H" ! filesink location="$ZP"
QH=$((OW * H / W))
ffmpeg -v error -y -f rawvideo -pix_fmt gray -s ${W}x${H} -i "$ZP" \
  -vf "scale=${OW}:${QH}:flags=lanczos+accurate_rnd" -f rawvideo "$WORK/zp_ref.gray"
psnr() { # scaler description -> dB
  rm -f "$WORK/zp_out.gray"
  gst-launch-1.0 -q filesrc location="$ZP" blocksize=$((W * H)) \
    ! rawvideoparse format=gray8 width=$W height=$H ! $1 \
    ! "video/x-raw,width=$OW,height=$QH" ! filesink location="$WORK/zp_out.gray" \
    || { echo failed; return; }
  ffmpeg -nostdin -f rawvideo -pix_fmt gray -s ${OW}x${QH} -i "$WORK/zp_out.gray" \
    -f rawvideo -pix_fmt gray -s ${OW}x${QH} -i "$WORK/zp_ref.gray" \
    -lavfi psnr -f null - 2>&1 | grep -o 'average:[0-9.inf]*' | cut -d: -f2
}
echo
echo "quality: zone plate ${W}x${H} -> ${OW}x${QH}, PSNR against ffmpeg lanczos (dB):"
printf "  %-34s %8s\n" "stageresize method=bilinear" "$(psnr 'stageresize method=bilinear')"
printf "  %-34s %8s\n" "videoscale method=bilinear" "$(psnr 'videoscale method=bilinear')"
# catrom is Catmull-Rom, the same Keys a=-0.5 cubic as our bicubic.
printf "  %-34s %8s\n" "stageresize method=bicubic" "$(psnr 'stageresize method=bicubic')"
printf "  %-34s %8s\n" "videoscale method=catrom" "$(psnr 'videoscale method=catrom')"
printf "  %-34s %8s\n" "stageresize method=area" "$(psnr 'stageresize method=area')"
