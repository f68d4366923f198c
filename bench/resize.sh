#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# stageresize against ffmpeg's swscale, libyuv and videoscale.
#
#   bench/resize.sh [FRAMES] [ROUNDS]       (defaults 120 frames, 7 rounds)
#   BUILD=/path/to/builddir bench/resize.sh (default: build/)
#   CALLGRIND=1 bench/resize.sh             (also instruction counts)
#   PIPELINES=0 bench/resize.sh             (the in-process part only)
#
# Part 1, in process (bench/resize-bench.c, built here against ops/ with
# ops' flags): ops/resize.c, libyuv (I420Scale / NV12Scale / ARGBScale) and
# swscale (sws_scale) on the same frames, one call per frame, single-
# threaded, for three cases - 1080p -> 640x480 I420,
# 4K -> 1080p NV12, 720p -> 1080p RGBA - with bilinear (libyuv
# kFilterBilinear, SWS_BILINEAR), area (kFilterBox, SWS_AREA) and nearest
# (kFilterNone, SWS_POINT; no goal), each
# with the PSNR of its result against a double-precision Lanczos-3
# reference; the memory floor of each case (every source byte read, every
# output byte written, no arithmetic: no resizer gets far below it); then
# stageresize's kernels with each SIMD path (STAGES_RESIZE_SIMD), and
# n-threads=2 for 4K -> 1080p beside the floor's own 2-thread gain. CPU time per
# frame, best of ROUNDS interleaved runs of IN_FRAMES frames x IN_REPS; each
# ratio also as the median over the rounds of the ratio within a round
# ("per round": the peers are measured next to each other, so a busy
# moment of the shared machine slows both).
# With CALLGRIND=1 valgrind counts the instructions of the same calls:
# deterministic, immune to load, but blind to vector width.
#
# Part 2, whole pipelines: net time per frame of stageresize against
# videoscale and the ffmpeg command line, same 1080p I420 input, to
# 640x480, then n-threads scaling and a zone-plate PSNR.
#
# "Net" = CPU time (user + sys) of the pipeline minus that of the same
# pipeline without the scaler, divided by the frame count; each figure is
# the best of ROUNDS interleaved runs, because the machine may be shared.
# Inputs are made once in /tmp from /work/shared/media (a real clip,
# scaled with Lanczos) when present, else synthetic.
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

# ---- part 1: in process ---------------------------------------------------
IN_FRAMES=${IN_FRAMES:-4}
IN_REPS=${IN_REPS:-5}
RB=${RESIZE_BENCH:-$WORK/resize-bench}
CC=${CC:-cc}
if [ -n "${RESIZE_BENCH:-}" ]; then
  :   # a prebuilt bench/resize-bench.c (scripts/gpu-test.sh packs one)
elif [ ! -e /usr/include/libyuv.h ] || ! pkg-config --exists libswscale libavutil; then
  echo "bench/resize.sh needs libyuv and swscale headers:" \
    "apt-get install libyuv-dev libswscale-dev (STAGES_BENCH_PACKAGES in scripts/deps.sh)" >&2
  exit 1
fi
if [ -z "${RESIZE_BENCH:-}" ]; then
  for f in resize resize_scalar resize_sse41 resize_avx2 resize_avx2_pair resize_neon; do
    $CC -O3 -g -c "ops/$f.c" -o "$WORK/$f.o"
  done
  # shellcheck disable=SC2046
  $CC -O2 -g -Wall -Wextra -Iops bench/resize-bench.c "$WORK"/resize*.o \
    -o "$RB" -lyuv $(pkg-config --cflags --libs libswscale libavutil) -lm -lpthread
fi

# THREADS="1 2 4 8 16" bench/resize.sh: n-threads scaling alone, 4K -> 1080p
# NV12 (bilinear, area) beside the memory floor run with the same threads
# (every source byte read, every output byte written: what memory allows),
# wall time per frame, best of ROUNDS; synthetic frames.
if [ -n "${THREADS:-}" ]; then
  t1=${THREADS%% *}
  declare -A best
  for r in $(seq "$ROUNDS"); do
    for t in $THREADS; do
      for lib in stage/bilinear stage/area floor/area; do
        v=$(RESIZE_BENCH_NO_PSNR=1 "$RB" nv12 "${lib#*/}" "${lib%/*}" \
          "$IN_FRAMES" "$IN_REPS" "$t" | awk '{ print $5 }')
        k=$lib/$t
        if [ -z "${best[$k]:-}" ] || awk -v a="$v" -v b="${best[$k]}" 'BEGIN { exit !(a < b) }'; then
          best[$k]=$v
        fi
      done
    done
  done
  echo "n-threads scaling, 4K -> 1080p NV12, wall ms per frame (best of $ROUNDS), $(nproc) cores"
  printf "%-8s %-22s %-22s %-22s\n" threads "bilinear ms (x 1)" "area ms (x 1)" "memory floor ms (x 1)"
  for t in $THREADS; do
    row="$(printf '%-8s' "$t")"
    for lib in stage/bilinear stage/area floor/area; do
      row="$row $(awk -v a="${best[$lib/$t]}" -v b="${best[$lib/$t1]}" 'BEGIN { printf "%7.3f (%5.2fx)        ", a, b / a }')"
    done
    echo "$row"
  done
  exit 0
fi

clip=$(ls /work/shared/media/*.mp4 2>/dev/null | head -1 || true)
# case -> input size and ffmpeg pixel format
declare -A CSIZE=([i420]=1920x1080 [nv12]=3840x2160 [rgba]=1280x720)
declare -A CFMT=([i420]=yuv420p [nv12]=nv12 [rgba]=rgba)
declare -A CDESC=([i420]="1080p -> 640x480 I420" [nv12]="4K -> 1080p NV12"
  [rgba]="720p -> 1080p RGBA")
input_of() { # case -> raw input file, or "" (synthetic)
  local c=$1 f="$WORK/in_$1_${CSIZE[$1]}_$IN_FRAMES.raw"
  if [ -n "$clip" ] && [ ! -s "$f" ]; then
    ffmpeg -v error -y -i "$clip" -frames:v "$IN_FRAMES" \
      -vf "scale=${CSIZE[$c]/x/:}:flags=lanczos,format=${CFMT[$c]}" \
      -f rawvideo "$f" || rm -f "$f"
  fi
  [ -s "$f" ] && echo "$f" || echo ""
}

declare -A ms psnr at
run_rb() { # key cpu|wall case method lib threads [env...]: best ms, PSNR
  local key=$1 kind=$2 c=$3 m=$4 lib=$5 t=$6 out v
  shift 6
  # The reference is slow: quality once, in the first round.
  [ "$r" -gt 1 ] && set -- "$@" RESIZE_BENCH_NO_PSNR=1
  out=$(env "$@" "$RB" "$c" "$m" "$lib" "$IN_FRAMES" "$IN_REPS" "$t" \
    "$(input_of "$c")")
  # fields: lib case method cpu_ms wall_ms psnr
  v=$(awk -v k="$kind" '{ print (k == "wall" ? $5 : $4) }' <<<"$out")
  at[$key/$r]=$v
  if [ -z "${ms[$key]:-}" ] || awk -v a="$v" -v b="${ms[$key]}" 'BEGIN { exit !(a < b) }'; then
    ms[$key]=$v
  fi
  [ "$r" -gt 1 ] || psnr[$key]=$(awk '{ print $6 }' <<<"$out")
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# The median over the rounds of A/B measured in the same round: a second
# view of a ratio, less at the mercy of one lucky or unlucky round than the
# ratio of the bests.
median_ratio() { # key_a key_b
  local r
  for r in $(seq "$ROUNDS"); do
    awk -v a="${at[$1/$r]}" -v b="${at[$2/$r]}" 'BEGIN { print a / b }'
  done | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "part 1: in process, $IN_FRAMES frames x $IN_REPS passes, best of $ROUNDS rounds"
[ -n "$clip" ] && echo "input: $clip, scaled with Lanczos" || echo "input: synthetic"
SIMDS=$("$RB" --simd-paths | tr '\n' ' ')
for r in $(seq "$ROUNDS"); do
  for c in i420 nv12 rgba; do
    for m in bilinear area nearest; do
      for lib in stage libyuv swscale; do
        run_rb "$c/$m/$lib" cpu $c $m $lib 1
      done
      [ $m != bilinear ] || run_rb "$c/floor" cpu $c $m floor 1 RESIZE_BENCH_NO_PSNR=1
    done
  done
  for p in $SIMDS; do
    run_rb "i420/bilinear/simd-$p" cpu i420 bilinear stage 1 \
      STAGES_RESIZE_SIMD=$p RESIZE_BENCH_NO_PSNR=1
  done
  for m in bilinear area; do
    run_rb "nv12/$m/t1" wall nv12 $m stage 1 RESIZE_BENCH_NO_PSNR=1
    run_rb "nv12/$m/t2" wall nv12 $m stage 2 RESIZE_BENCH_NO_PSNR=1
  done
  run_rb "nv12/floor/t1" wall nv12 area floor 1 RESIZE_BENCH_NO_PSNR=1
  run_rb "nv12/floor/t2" wall nv12 area floor 2 RESIZE_BENCH_NO_PSNR=1
done

for c in i420 nv12 rgba; do
  for m in bilinear area nearest; do
    s=${ms[$c/$m/stage]} y=${ms[$c/$m/libyuv]} w=${ms[$c/$m/swscale]}
    goals="(goal 1.3)|(goal 1.2)"
    [ $m = nearest ] && goals="(no goal)|(no goal)"
    printf "%-24s %-8s  stage %7.3f ms %5.1f dB | libyuv %7.3f ms %5.1f dB | swscale %7.3f ms %5.1f dB | swscale/stage %sx %s libyuv/stage %sx %s | per round: %sx %sx\n" \
      "${CDESC[$c]}" "$m" "$s" "${psnr[$c/$m/stage]}" "$y" "${psnr[$c/$m/libyuv]}" \
      "$w" "${psnr[$c/$m/swscale]}" "$(ratio "$w" "$s")" "${goals%|*}" "$(ratio "$y" "$s")" "${goals#*|}" \
      "$(median_ratio "$c/$m/swscale" "$c/$m/stage")" "$(median_ratio "$c/$m/libyuv" "$c/$m/stage")"
  done
done
echo "memory floor (bench/resize-bench.c \"floor\": reads every source byte, writes every output byte, no arithmetic):"
for c in i420 nv12 rgba; do
  printf "  %-24s %7.3f ms; stage bilinear %sx, area %sx the floor\n" "${CDESC[$c]}" \
    "${ms[$c/floor]}" "$(ratio "${ms[$c/bilinear/stage]}" "${ms[$c/floor]}")" \
    "$(ratio "${ms[$c/area/stage]}" "${ms[$c/floor]}")"
done
echo "stageresize kernels by SIMD path, 1080p -> 640x480 I420 bilinear:"
for p in $SIMDS; do
  printf "  STAGES_RESIZE_SIMD=%-7s %7.3f ms/frame  %sx scalar\n" "$p" \
    "${ms[i420/bilinear/simd-$p]}" "$(ratio "${ms[i420/bilinear/simd-scalar]}" "${ms[i420/bilinear/simd-$p]}")"
done
echo "n-threads=2, 4K -> 1080p NV12 (wall time; goal 1.8x on 2 free cores):"
for m in bilinear area; do
  printf "  %-8s 1 thread %7.3f ms, 2 threads %7.3f ms: %sx (per round %sx)\n" "$m" \
    "${ms[nv12/$m/t1]}" "${ms[nv12/$m/t2]}" "$(ratio "${ms[nv12/$m/t1]}" "${ms[nv12/$m/t2]}")" \
    "$(median_ratio "nv12/$m/t1" "nv12/$m/t2")"
done
printf "  %-8s 1 thread %7.3f ms, 2 threads %7.3f ms: %sx (the most 2 threads can gain where memory sets the pace)\n" \
  floor "${ms[nv12/floor/t1]}" "${ms[nv12/floor/t2]}" "$(ratio "${ms[nv12/floor/t1]}" "${ms[nv12/floor/t2]}")"

if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
  echo "instructions per frame (callgrind, one pass over 2 frames):"
  for c in i420 nv12 rgba; do
    for m in bilinear area; do
      line="  $(printf '%-24s %-8s' "${CDESC[$c]}" "$m")"
      for lib in stage libyuv swscale; do
        RESIZE_BENCH_NO_PSNR=1 valgrind --tool=callgrind \
          --toggle-collect=bench_pass --callgrind-out-file="$WORK/cg.out" \
          "$RB" $c $m $lib 2 1 1 "$(input_of $c)" >/dev/null 2>"$WORK/cg.log"
        ir=$(awk '/^(summary|totals):/ { ir = $2 } END { printf "%.1f", ir / 2e6 }' "$WORK/cg.out")
        eval "ir_$lib=$ir"
        line="$line $lib ${ir}M"
      done
      # shellcheck disable=SC2154
      echo "$line  swscale/stage $(ratio "$ir_swscale" "$ir_stage")x libyuv/stage $(ratio "$ir_libyuv" "$ir_stage")x"
    done
  done
fi
[ "${PIPELINES:-1}" = 0 ] && exit 0

# ---- part 2: whole pipelines ----------------------------------------------
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

echo
echo "part 2: whole pipelines"
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
# The median over the rounds of A/B measured in the same round: a second
# view of a ratio, less at the mercy of one lucky or unlucky round than the
# ratio of the bests.
median_ratio() { # key_a key_b
  local r
  for r in $(seq "$ROUNDS"); do
    awk -v a="${at[$1/$r]}" -v b="${at[$2/$r]}" 'BEGIN { print a / b }'
  done | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

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
