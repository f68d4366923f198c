#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The NEON kernels of ops/, run: builds tests/resize-paths.c with ops/ for
# arm64 (aarch64-linux-gnu-gcc, static) and runs it under qemu-aarch64,
# which compares every path with the scalar one byte for byte. Exits 77
# (skipped) where the cross compiler or qemu is missing: scripts/test.sh
# installs both (gcc-aarch64-linux-gnu, qemu-user-static).
#
#   tests/resize-paths.sh [WORKDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
cc=aarch64-linux-gnu-gcc
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)

if ! command -v "$cc" >/dev/null; then
  echo "skipped: $cc not installed (apt-get install gcc-aarch64-linux-gnu)"
  exit 77
fi
if [ -z "$qemu" ]; then
  echo "skipped: qemu-aarch64 not installed (apt-get install qemu-user-static)"
  exit 77
fi
mkdir -p "$work"
bin=$work/resize-paths-arm64
"$cc" -std=gnu11 -O2 -static -Wall -Wextra -Werror -I"$root/ops" \
  "$root/tests/resize-paths.c" "$root/ops/resize.c" \
  "$root/ops/resize_scalar.c" "$root/ops/resize_neon.c" \
  "$root/ops/resize_sse41.c" "$root/ops/resize_avx2.c" \
  "$root/ops/resize_avx2_pair.c" -o "$bin" -lm -lpthread
echo "paths on arm64: $("$qemu" "$bin" --paths | tr '\n' ' ')"
exec "$qemu" "$bin"
