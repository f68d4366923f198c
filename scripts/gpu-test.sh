#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The CUDA test suite on a GPU machine that has the CUDA driver
# but no GStreamer (the `device` tool's machines).
#
#   here:   scripts/gpu-test.sh pack   builds (CUDA on) and gathers into .gpu/
#                                      the plugins, the test programs, the
#                                      benchmarks' programs and every shared
#                                      library they need but the C library
#   there:  scripts/gpu-test.sh run    (carry .gpu) runs the suite
#           scripts/gpu-check.sh DIR   the suite, the benchmarks and the
#                                      16-core runs, every figure under DIR
#
# .gpu/ is listed in .gitignore; it stays well under the 64 MiB a device call
# may carry. Sourced (GPU_TEST_LIB=1), it only defines gpu_env.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The environment that makes .gpu/'s programs find .gpu/'s plugins and
# libraries (and nothing of the machine's but the C library and the driver).
gpu_env () {
  [ -d .gpu ] || { echo "no .gpu/: run 'scripts/gpu-test.sh pack' here and carry .gpu" >&2; return 1; }
  export LD_LIBRARY_PATH="$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export GST_PLUGIN_SYSTEM_PATH_1_0="$PWD/.gpu/plugins" GST_PLUGIN_PATH_1_0=""
  export GST_PLUGIN_SCANNER_1_0="$PWD/.gpu/bin/gst-plugin-scanner"
  export GST_REGISTRY_1_0=/tmp/gst-stages-gpu.registry
  export PATH="$PWD/.gpu/bin:$PATH"
}
[ "${GPU_TEST_LIB:-0}" = 1 ] && return 0

gst_libdir=/usr/lib/x86_64-linux-gnu
pack () {
  . scripts/deps.sh
  stages_ensure_packages $STAGES_BUILD_PACKAGES
  stages_build -Dcuda=enabled -Dtests=enabled
  rm -rf .gpu
  mkdir -p .gpu/lib .gpu/plugins .gpu/bin
  # What the suite and the bench load: sources, converters, nvcodec's
  # cudaupload/cudadownload/cudascale, appsink, and ours.
  # jpeg, jpegformat, multifile: the decode-heavy stagebin bench; x264,
  # videoparsersbad: the stream that nvh264dec decodes in the zero-copy test.
  for p in coreelements videotestsrc videoconvertscale app nvcodec \
      imagefreeze multifile jpeg jpegformat x264 videoparsersbad; do
    cp "$gst_libdir/gstreamer-1.0/libgst$p.so" .gpu/plugins/
  done
  cp build/gst/libgststages.so build/gst/libgststages-cuda.mod \
    build/tracer/libgststageprof.so .gpu/plugins/
  cp build/tests/test_stageresize_cuda .gpu/bin/
  # The benchmarks' own programs: the CUDA kernels timed alone (static CUDA
  # runtime: only the driver is needed there) and the CPU resize bench.
  local work=build/gpu-pack cc=${CC:-cc}
  mkdir -p "$work"
  stages_ensure_packages $STAGES_BENCH_PACKAGES
  for f in resize resize_scalar resize_sse41 resize_avx2 resize_avx2_pair resize_neon; do
    $cc -O3 -fPIC -c "ops/$f.c" -o "$work/$f.o"
  done
  "${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}" -O3 -Iops \
    -gencode arch=compute_90,code=sm_90 \
    -gencode arch=compute_80,code=sm_80 bench/cuda-kernel.cu "$work"/resize*.o \
    -o .gpu/bin/cuda-kernel -ldl
  # shellcheck disable=SC2046
  $cc -O2 -Iops bench/resize-bench.c "$work"/resize*.o -o .gpu/bin/resize-bench \
    -lyuv $(pkg-config --cflags --libs libswscale libavutil) -lm -lpthread
  cp /usr/bin/gst-launch-1.0 /usr/bin/gst-inspect-1.0 .gpu/bin/
  cp "$gst_libdir/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner" .gpu/bin/
  for f in .gpu/plugins/*.so .gpu/plugins/*.mod .gpu/bin/*; do
    ldd "$f" 2>/dev/null | awk '/=> \//{print $3}'
  done | sort -u | grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux-x86-64)\.so' \
    | while read -r lib; do cp -L "$lib" .gpu/lib/; done
  du -sh .gpu
}

run () {
  gpu_env
  nvidia-smi -L || true
  gst-inspect-1.0 cudaupload >/dev/null \
    || echo "warning: nvcodec registered no cudaupload (no device or driver?)"
  status=0
  test_stageresize_cuda || status=$?
  echo "gpu suite exit status: $status"
  exit $status
}

case "${1:-}" in
  pack) pack ;;
  run) run ;;
  *) echo "usage: scripts/gpu-test.sh pack|run" >&2; exit 2 ;;
esac
