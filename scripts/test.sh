#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds into build/, runs
# every suite and ends with "N passed, N failed".
#
#   scripts/test.sh [SUITE...]                     normal build, build/
#   scripts/test.sh --sanitize=address [SUITE...]  ASan + UBSan, build-asan/
#   scripts/test.sh --sanitize=thread [SUITE...]   TSan (clang), build-tsan/;
#                                                  default suites: stagebin
#                                                  and the stageprof ones
#   scripts/test.sh --fuzz[=SECONDS]               libFuzzer targets, build-fuzz/
#                                                  (scripts/fuzz.sh for long runs)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

sanitize=""
fuzz=""
args=()
for a in "$@"; do
  case "$a" in
    --sanitize=address|--sanitize=thread) sanitize="${a#--sanitize=}" ;;
    --sanitize=*) echo "test.sh: --sanitize takes address or thread" >&2; exit 2 ;;
    --fuzz) fuzz=20 ;;
    --fuzz=*) fuzz="${a#--fuzz=}" ;;
    *) args+=("$a") ;;
  esac
done

stages_ensure_packages $STAGES_BUILD_PACKAGES $STAGES_TEST_PACKAGES

if [ -n "$fuzz" ]; then
  stages_ensure_packages $STAGES_SANITIZER_PACKAGES
  exec bash scripts/fuzz.sh --time="$fuzz" --summary
fi

builddir=build
case "$sanitize" in
  "")
    stages_build -Dtests=enabled
    ;;
  address)
    stages_ensure_packages $STAGES_SANITIZER_PACKAGES
    builddir=build-asan
    # UBSan aborts on the first finding (-fno-sanitize-recover) so that it
    # fails the suite; CUDA off: nvcc objects are not instrumented.
    stages_build_in "$builddir" -Dtests=enabled -Dcuda=disabled \
      -Db_sanitize=address,undefined -Db_lundef=false \
      -Dc_args=-fno-sanitize-recover=all -Dc_link_args=-fno-sanitize-recover=all
    ;;
  thread)
    stages_ensure_packages $STAGES_SANITIZER_PACKAGES
    builddir=build-tsan
    # clang links its TSan runtime statically into each test executable, so
    # the plugins that it loads share that runtime.
    CC=clang stages_build_in "$builddir" -Dtests=enabled -Dcuda=disabled \
      -Db_sanitize=thread -Db_lundef=false
    ;;
esac

status=0
wrapper=()
if [ -n "$sanitize" ]; then
  # Plugins load in the test process, not in a forked scanner (which is
  # not instrumented).
  export GST_REGISTRY_FORK=no
fi
if [ "$sanitize" = address ]; then
  # Suites that spawn gst-launch-1.0 or python3 load our instrumented
  # plugins into uninstrumented programs: the runtime must come first, so
  # it is preloaded into every test and the children it starts.
  # Leak checking is off: GLib and GStreamer keep their type system and
  # caches until exit; the stagebin suite's leaks-tracer test checks ours.
  asan_rt=$(gcc -print-file-name=libasan.so)
  ubsan_rt=$(gcc -print-file-name=libubsan.so)
  wrapper=(--wrapper "env LD_PRELOAD=$asan_rt:$ubsan_rt")
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:detect_odr_violation=0:${ASAN_OPTIONS:-}"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
fi
if [ "$sanitize" = thread ]; then
  # GLib's GMutex/GCond use futexes that TSan cannot see: a preloaded shim
  # routes them through pthreads so that TSan sees the synchronisation.
  # Findings in GLib/GStreamer internals are suppressed (tests/tsan.supp).
  shim="$PWD/$builddir/tests/libtsan-glib-shim.so"
  wrapper=(--wrapper "env LD_PRELOAD=$shim")
  export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp:halt_on_error=1:second_deadlock_stack=1:report_signal_unsafe=0:${TSAN_OPTIONS:-}"
  if [ ${#args[@]} -eq 0 ]; then
    args=(stagebin stageprof stageprof_queues stageprof_output stageprof_params
          stageprof_app stageprof_writer)
  fi
fi

meson test -C "$builddir" --print-errorlogs --num-processes 2 \
  ${wrapper[@]+"${wrapper[@]}"} ${args[@]+"${args[@]}"} || status=$?

# meson names the log after the wrapper (testlog-env.json): the newest one
python3 - "$(ls -t "$builddir"/meson-logs/testlog*.json | head -n 1)" <<'PY'
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
