#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# stageresize on CUDA memory against nvcodec's cudascale, and its kernels
# against the GPU's memory bandwidth.
#
#   bench/cuda.sh [FRAMES] [ROUNDS]      (defaults 2000 frames, best of 3)
#   CUDA_KERNEL=path bench/cuda.sh       a built bench/cuda-kernel.cu
#                                        (scripts/gpu-test.sh pack makes one)
#
# Part 1, kernels alone (bench/cuda-kernel.cu): every method and format at
# 1080p -> 720p and 4K -> 1080p, microseconds per frame by CUDA events, and
# the bytes a resizer must move (source read once, output written once) per
# second as a share of a device-to-device copy's rate in the same run.
# Goal: bilinear above 70 % of it.
#
# Part 2, in a pipeline: the same frame, already on the GPU, resized FRAMES
# times (cudaupload ! CUDA caps ! imagefreeze ! RESIZER ! fakesink; without
# the caps cudaupload would pass system memory through), net wall time per
# frame (minus the same pipeline with identity), stageresize against
# cudascale (bilinear texture sampling). Each element waits for its
# kernels before it pushes (gstcuda 1.22 memory has no stream), so a frame
# costs a launch and a synchronisation on top of the kernel. Goal: faster
# than cudascale.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-2000}
ROUNDS=${2:-3}

if ! gst-inspect-1.0 cudaupload >/dev/null 2>&1; then
  echo "bench/cuda.sh: no cudaupload (nvcodec) here: no GPU, no driver or no gst-plugins-bad" >&2
  exit 1
fi
kernel=${CUDA_KERNEL:-}
if [ -z "$kernel" ] && command -v nvcc >/dev/null; then
  kernel=${TMPDIR:-/tmp}/stage-cuda-kernel
  work=${TMPDIR:-/tmp}/stage-cuda-kernel-ops
  mkdir -p "$work"
  for f in resize resize_scalar resize_sse41 resize_avx2 resize_avx2_pair resize_neon; do
    ${CC:-cc} -O3 -c "ops/$f.c" -o "$work/$f.o"
  done
  nvcc -O3 -Iops bench/cuda-kernel.cu "$work"/resize*.o -o "$kernel"
fi

echo "part 1: kernels alone (CUDA events)"
if [ -n "$kernel" ]; then
  "$kernel" 200
else
  echo "  (no nvcc and no CUDA_KERNEL: skipped)"
fi

echo
echo "part 2: in a pipeline, $N frames, best of $ROUNDS, net of the same pipeline with identity"
secs() { # the pipeline's own time from gst-launch's last line
  sed -n 's/.*Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\).*/\1 \2 \3/p' |
    awk '{ printf "%.6f", $1 * 3600 + $2 * 60 + $3 }'
}
run() { # format w h element...
  local fmt=$1 w=$2 h=$3 out
  shift 3
  # shellcheck disable=SC2068
  out=$(gst-launch-1.0 videotestsrc num-buffers=1 pattern=ball \
    ! "video/x-raw,format=$fmt,width=$w,height=$h,framerate=30/1" ! cudaupload \
    ! "video/x-raw(memory:CUDAMemory)" ! imagefreeze num-buffers="$N" ! $@ ! fakesink sync=false 2>&1) || {
    echo "pipeline failed: $*" >&2; echo "$out" | tail -5 >&2; echo 0; return; }
  echo "$out" | secs
}
best() {
  local b="" r v
  for r in $(seq "$ROUNDS"); do
    v=$(run "$@")
    if [ -z "$b" ] || awk -v a="$v" -v b="$b" 'BEGIN { exit !(a < b) }'; then b=$v; fi
  done
  echo "$b"
}
have_cs=0
gst-inspect-1.0 cudascale >/dev/null 2>&1 && have_cs=1
[ $have_cs = 1 ] || echo "(no cudascale here: gst-plugins-bad registers it only where NVRTC loads" \
  "and compiles its kernels; 1.22 asks NVRTC for compute_30/52, which CUDA 13 no longer has)"
printf "%-30s %-5s %12s %12s %9s\n" case fmt "stage us" "cudascale us" "ratio"
for c in "1920 1080 1280 720" "3840 2160 1920 1080"; do
  read -r w h dw dh <<<"$c"
  for fmt in NV12 RGBA; do
    base=$(best $fmt "$w" "$h" identity)
    st=$(best $fmt "$w" "$h" stageresize width="$dw" height="$dh" method=bilinear)
    cs=-1
    [ $have_cs = 0 ] || cs=$(best $fmt "$w" "$h" cudascale ! "video/x-raw(memory:CUDAMemory),width=$dw,height=$dh")
    awk -v b="$base" -v s="$st" -v c="$cs" -v n="$N" -v name="${w}x${h} -> ${dw}x${dh}" -v f="$fmt" 'BEGIN {
      su = (s - b) / n * 1e6
      if (c < 0) { printf "%-30s %-5s %12.1f %12s %9s\n", name, f, su, "-", "-"; exit }
      cu = (c - b) / n * 1e6
      printf "%-30s %-5s %12.1f %12.1f %8.2fx%s\n", name, f, su, cu, cu / su,
        (su < cu) ? "" : "  (goal: faster than cudascale: not met)" }'
  done
done
