#!/usr/bin/env bash
# The CUDA test suite on a GPU machine that has the CUDA driver
# but no GStreamer (the `device` tool's machines).
#
#   here:   scripts/gpu-test.sh pack   builds (CUDA on) and gathers into .gpu/
#                                      the plugins, the test programs and every
#                                      shared library they need but the C library
#   there:  scripts/gpu-test.sh run    (carry .gpu) runs the suite
#
# .gpu/ is listed in .gitignore; it stays well under the 64 MiB a device call
# may carry.
set -euo pipefail
cd "$(dirname "$0")/.."

gst_libdir=/usr/lib/x86_64-linux-gnu
pack () {
  . scripts/deps.sh
  stages_ensure_packages $STAGES_BUILD_PACKAGES
  stages_build -Dcuda=enabled -Dtests=enabled
  rm -rf .gpu
  mkdir -p .gpu/lib .gpu/plugins .gpu/bin
  # What the suite and the bench load: sources, converters, nvcodec's
  # cudaupload/cudadownload/cudascale, appsink, and ours.
  for p in coreelements videotestsrc videoconvertscale app nvcodec; do
    cp "$gst_libdir/gstreamer-1.0/libgst$p.so" .gpu/plugins/
  done
  cp build/gst/libgststages.so build/gst/libgststages-cuda.mod \
    build/tracer/libgststageprof.so .gpu/plugins/
  cp build/tests/test_stageresize_cuda .gpu/bin/
  cp /usr/bin/gst-launch-1.0 /usr/bin/gst-inspect-1.0 .gpu/bin/
  cp "$gst_libdir/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner" .gpu/bin/
  for f in .gpu/plugins/*.so .gpu/plugins/*.mod .gpu/bin/*; do
    ldd "$f" 2>/dev/null | awk '/=> \//{print $3}'
  done | sort -u | grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux-x86-64)\.so' \
    | while read -r lib; do cp -L "$lib" .gpu/lib/; done
  du -sh .gpu
}

run () {
  [ -d .gpu ] || { echo "no .gpu/: run 'scripts/gpu-test.sh pack' here and carry .gpu" >&2; exit 1; }
  export LD_LIBRARY_PATH="$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export GST_PLUGIN_SYSTEM_PATH_1_0="$PWD/.gpu/plugins" GST_PLUGIN_PATH_1_0=""
  export GST_PLUGIN_SCANNER_1_0="$PWD/.gpu/bin/gst-plugin-scanner"
  export GST_REGISTRY_1_0=/tmp/gst-stages-gpu.registry
  nvidia-smi -L || true
  .gpu/bin/gst-inspect-1.0 cudaupload >/dev/null \
    || echo "warning: nvcodec registered no cudaupload (no device or driver?)"
  status=0
  .gpu/bin/test_stageresize_cuda || status=$?
  echo "gpu suite exit status: $status"
  exit $status
}

case "${1:-}" in
  pack) pack ;;
  run) run ;;
  *) echo "usage: scripts/gpu-test.sh pack|run" >&2; exit 2 ;;
esac
