#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Everything the CUDA work needs checked on a GPU machine, in one go, every figure and log
# into DIR (DIR/summary.txt: one line per step, its exit status and time).
#
#   here:   scripts/gpu-test.sh pack
#   there:  scripts/gpu-check.sh DIR    (with .gpu carried; about 5 minutes)
#           STEPS="gpu-suite ncu" scripts/gpu-check.sh DIR   (some steps only)
#
# Steps: what the machine is; the GPU suite (tests/test_stageresize_cuda.c:
# CPU-exact output for every format and method, odd sizes, padding, CUDA
# pool, shared context, bad device id, zero copy from NVDEC); bench/cuda.sh
# (kernels against the copy bandwidth, stageresize against cudascale);
# stageprof on GPU pipelines; and on the machine's cores bench/stagebin.sh
# (1 to 16 replicas, resize-heavy and decode-heavy) and bench/resize.sh
# (n-threads 1 to 16 beside the memory floor).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-check.sh OUTPUT_DIR}
mkdir -p "$out"
GPU_TEST_LIB=1 . scripts/gpu-test.sh
set +e   # gpu-test.sh sets -e: a failing step must not end the run
gpu_env || exit 1
export TMPDIR=${TMPDIR:-/tmp}

# step NAME SECONDS COMMAND...: the command's output into DIR/NAME.log
step () {
  local name=$1 limit=$2 t0 rc
  shift 2
  # STEPS="gpu-suite ncu": only these steps
  [ -z "${STEPS:-}" ] || [[ " $STEPS " == *" $name "* ]] || return 0
  t0=$(date +%s.%N)
  # bash -c: the step may be one of the functions here
  timeout -k 5 "$limit" bash -c "$(declare -f machine stageprof_runs \
    stagebin_runs sanitizer_run ncu_run); out='$out'; \"\$@\"" step "$@" \
    >"$out/$name.log" 2>&1
  rc=$?
  printf "%-18s rc=%-3s %6.1f s\n" "$name" "$rc" \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" \
    | tee -a "$out/summary.txt"
}

machine () {
  nvidia-smi
  nvidia-smi --query-gpu=name,memory.total,clocks.max.memory,driver_version \
    --format=csv
  nproc
  grep -m1 'model name' /proc/cpuinfo
  ldconfig -p | grep -E 'libcuda\.|nvcuvid|nvidia-encode|libnpp' || true
  ls /usr/local/cuda*/lib64 2>/dev/null | grep -i npp || echo "no NPP in /usr/local/cuda*/lib64"
  gst-inspect-1.0 nvcodec
  gst-inspect-1.0 stageresize | grep -A3 -i cuda || true
}

stageprof_runs () {
  local up="videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=3840,height=2160 ! cudaupload ! video/x-raw(memory:CUDAMemory)"
  local dec="videotestsrc num-buffers=150 ! video/x-raw,format=I420,width=1280,height=720 ! x264enc speed-preset=ultrafast ! h264parse ! nvh264dec"
  echo "== cudaupload ! stageresize ! cudadownload (trace: gpu-trace.json)"
  # shellcheck disable=SC2086
  env GST_TRACERS="stageprof(trace=$out/gpu-trace.json)" gst-launch-1.0 -q $up \
    ! stageresize width=1920 height=1080 ! cudadownload ! fakesink sync=false
  echo "== ... with cuda-sync=true"
  # shellcheck disable=SC2086
  env GST_TRACERS='stageprof(cuda-sync=true)' gst-launch-1.0 -q $up \
    ! stageresize width=1920 height=1080 ! cudadownload ! fakesink sync=false
  if gst-inspect-1.0 nvh264dec >/dev/null 2>&1; then
    echo "== x264enc ! nvh264dec ! stageresize"
    # shellcheck disable=SC2086
    env GST_TRACERS=stageprof gst-launch-1.0 -q $dec \
      ! stageresize width=1280 height=720 ! fakesink sync=false
    echo "== what the tracer and cuda-sync cost: wall time of the same decode + resize (best of 3)"
    for tr in "" stageprof "stageprof(cuda-sync=true)"; do
      for i in 1 2 3; do
        # shellcheck disable=SC2086
        env GST_TRACERS="$tr" gst-launch-1.0 $dec ! stageresize width=1280 height=720 \
          ! fakesink sync=false 2>&1 | sed -n 's/.*Execution ended after //p'
      done | sort | head -1 | sed "s/^/  GST_TRACERS='$tr': /"
    done
  fi
}

# Where the kernels spend their time (Nsight Compute, hardware counters;
# Firecracker machines only): one pixel a thread against the chosen variant.
ncu_run () {
  local ncu
  ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  [ -n "$ncu" ] || { echo "no ncu here"; return 0; }
  "$ncu" --clock-control none --section SpeedOfLight --section Occupancy \
    --section MemoryWorkloadAnalysis --section LaunchStats \
    -k regex:'stage_resize_c1(_x4)?$' -c 2 .gpu/bin/cuda-kernel 3
}

# The kernels under compute-sanitizer's memcheck: odd sizes, 3 bytes a
# pixel, the padding-zeroing threads and bicubic's wide taps.
sanitizer_run () {
  local cs
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  [ -n "$cs" ] || { echo "no compute-sanitizer here"; return 0; }
  for fmt in RGB I420 NV12; do
    "$cs" --tool memcheck --error-exitcode 3 gst-launch-1.0 -q videotestsrc num-buffers=3 \
      ! video/x-raw,format=$fmt,width=641,height=361 ! cudaupload \
      ! "video/x-raw(memory:CUDAMemory)" ! stageresize width=333 height=187 method=bicubic ! cudadownload \
      ! fakesink || return $?
  done
}

stagebin_runs () {
  echo "== resize-heavy"
  REPLICAS="2 4 8 16" FRAMES=96 RUNS=2 TINY_FRAMES=5000 BUILD=.gpu \
    bench/stagebin.sh
  echo
  echo "== decode-heavy"
  WORKLOAD=decode REPLICAS="2 4 8 16" FRAMES=96 RUNS=2 TINY_FRAMES=2000 \
    BUILD=.gpu bench/stagebin.sh
}

step machine 60 machine
step gpu-suite 200 test_stageresize_cuda
step cuda-bench 110 env CUDA_KERNEL=.gpu/bin/cuda-kernel bench/cuda.sh 1000 2
step stageprof 60 stageprof_runs
step stagebin 110 stagebin_runs
step resize-threads 70 env THREADS="1 2 4 8 16" RESIZE_BENCH=.gpu/bin/resize-bench \
  IN_FRAMES=2 IN_REPS=20 bench/resize.sh 120 2
step sanitizer 45 sanitizer_run
step ncu 60 ncu_run
