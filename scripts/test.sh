#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds into build/, runs
# every suite and ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

stages_ensure_packages $STAGES_BUILD_PACKAGES $STAGES_TEST_PACKAGES
stages_build -Dtests=enabled

status=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || status=$?

python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r == "SKIP":
        skipped += 1
    else:
        failed += 1
tail = f", {skipped} skipped" if skipped else ""
print(f"{passed} passed, {failed} failed{tail}")
PY
exit $status
