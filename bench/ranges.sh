#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# stagerange and stageslice with many ranges: N ranges ("0:1,3:4,...")
# over FRAMES tiny frames, seconds from PLAYING to EOS (the ranges are
# parsed at start), against the same frames kept by one range with
# stride 3 (the per-frame floor), one process each.
#   bench/ranges.sh            (N=10000000 FRAMES=3000; BUILD=build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${N:-10000000}
FRAMES=${FRAMES:-3000}
export GST_PLUGIN_PATH_1_0=$PWD/$BUILD/gst GST_REGISTRY_1_0=$(mktemp -u /tmp/ranges-bench.XXXXXX)
trap 'rm -f "$GST_REGISTRY_1_0"' EXIT
run () {
  /usr/bin/python3 - "$1" "$2" "$FRAMES" <<'PY'
import sys, time, gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
el, n, frames = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ranges = ",".join(f"{3 * i}:{3 * i + 1}" for i in range(n)) if n > 1 else f"0:{3 * frames}"
p = Gst.parse_launch(f"videotestsrc num-buffers={frames} ! video/x-raw,width=16,height=16 ! "
                     f"{el} name=r ! fakesink")
p.get_by_name("r").set_property("ranges", ranges)
if n == 1:
    p.get_by_name("r").set_property("stride", 3)
t = time.monotonic()
p.set_state(Gst.State.PLAYING)
m = p.get_bus().timed_pop_filtered(600 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
dt = time.monotonic() - t
p.set_state(Gst.State.NULL)
if m is None or m.type != Gst.MessageType.EOS:
    sys.exit(f"{el}: no EOS")
print(f"{dt:.3f}")
PY
}
for el in stagerange stageslice; do
  one=$(run "$el" 1)
  many=$(run "$el" "$N")
  echo "$el: $N ranges over $FRAMES frames: ${many} s to EOS; 1 range: ${one} s; x$(python3 -c "print(f'{$many / max($one, 1e-3):.1f}')")"
done
