# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by scripts/test.sh, scripts/demo.sh and the Containerfile:
# installs the Debian 12 packages that are missing (as root), or prints the
# exact apt-get line.

# Build and run: GStreamer core, base, good/bad (queues, videoscale for
# comparisons), libav (decode/encode), Meson.
STAGES_BUILD_PACKAGES="meson ninja-build pkg-config gcc libglib2.0-dev \
libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
gstreamer1.0-plugins-bad gstreamer1.0-libav libsqlite3-dev libjson-glib-dev"
# stageprof's metrics endpoint (metrics=HOST:PORT, meson option `metrics`,
# optional): libmicrohttpd.
STAGES_BUILD_PACKAGES="$STAGES_BUILD_PACKAGES libmicrohttpd-dev"
# meson asks dpkg-architecture for Debian's multiarch libdir: without it,
# `meson install` puts the plugins in lib64/, where GStreamer never looks.
STAGES_BUILD_PACKAGES="$STAGES_BUILD_PACKAGES dpkg-dev"
# The container image (Containerfile) is built and run with these: it has
# no nvcc, so no CUDA path.
STAGES_IMAGE_PACKAGES=$STAGES_BUILD_PACKAGES
# gstreamer-cuda-1.0 (the CUDA path, where nvcc is found) comes with
# gst-plugins-bad's headers, and those bring OpenCV's and more (about 1 GB).
STAGES_BUILD_PACKAGES="$STAGES_BUILD_PACKAGES libgstreamer-plugins-bad1.0-dev"
# Tests add the Python bindings (PyGObject example) and ffmpeg (reference).
STAGES_TEST_PACKAGES="python3 python3-gi gir1.2-gstreamer-1.0 python3-gst-1.0 ffmpeg"
# Stored streams (stagesink/stagesrc tests, docs/store.md) and the selectors'
# muxer tests: x264enc; sqlite3 for the store's documented queries.
STAGES_TEST_PACKAGES="$STAGES_TEST_PACKAGES gstreamer1.0-plugins-ugly sqlite3"
# Sanitizer passes and fuzzing (scripts/test.sh --sanitize=..., --fuzz,
# scripts/fuzz.sh): clang with its runtimes (TSan, libFuzzer); gcc's ASan
# and UBSan runtimes come with gcc.
STAGES_SANITIZER_PACKAGES="clang libclang-rt-14-dev"
# stageprof-report's tests: its HTML report in a browser, its DOT graph.
STAGES_TEST_PACKAGES="$STAGES_TEST_PACKAGES chromium graphviz"
# ops/'s NEON kernels run under emulation (test ops_resize_neon): an arm64
# cross compiler and qemu's user-mode emulator.
STAGES_TEST_PACKAGES="$STAGES_TEST_PACKAGES gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static"
# tests/test_slurm.py runs docs/distributed.md's Slurm recipe on a one-node
# Slurm of its own (munged, slurmctld, slurmd) and parses its Kubernetes Job.
STAGES_TEST_PACKAGES="$STAGES_TEST_PACKAGES slurm-wlm munge python3-yaml"
# tests/test_stageprof_metrics.py scrapes a live pipeline with a real
# Prometheus server and checks the exposition with promtool.
STAGES_TEST_PACKAGES="$STAGES_TEST_PACKAGES prometheus"
# bench/resize.sh compares with libyuv and swscale in process.
STAGES_BENCH_PACKAGES="libyuv-dev libswscale-dev valgrind python3-opencv"

stages_missing_packages () {
  local missing="" p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      && continue
    # A name that an installed package provides (Debian unstable: qemu-user
    # provides qemu-user-static).
    dpkg-query -W -f='${Status}|${Provides}\n' 2>/dev/null \
      | grep '^install ok installed|' | cut -d'|' -f2 | tr ',' '\n' \
      | sed 's/ *(.*//; s/^ *//' | grep -qx "$p" && continue
    missing="$missing $p"
  done
  echo "$missing"
}

stages_ensure_packages () {
  local missing
  missing=$(stages_missing_packages "$@")
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ]; then
    echo "gst-stages: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null \
      || { echo "gst-stages: apt-get install failed for:$missing" >&2; return 1; }
  else
    echo "gst-stages: missing packages. Run as root, then again:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    return 1
  fi
}

# Configure (once) and build into build/.
stages_build () {
  if [ -f build/build.ninja ]; then
    meson setup --reconfigure build "$@" >/dev/null
  else
    meson setup build "$@"
  fi
  meson compile -C build
}

# Configure (once) and build into another folder (sanitizer builds).
stages_build_in () {
  local dir=$1
  shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@"
  fi
  meson compile -C "$dir"
}
