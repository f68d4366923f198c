#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test suite: installs what is missing, builds into build/, runs
# every suite and ends with "N passed, N failed".
#
#   scripts/test.sh [SUITE...]                     normal build, build/
#   scripts/test.sh --sanitize=address [SUITE...]  ASan + UBSan, build-asan/
#   scripts/test.sh --sanitize=thread [SUITE...]   TSan (clang), build-tsan/;
#                                                  default suites: stagebin,
#                                                  stageresize (its workers)
#                                                  and the stageprof ones
#   scripts/test.sh --fuzz[=SECONDS]               libFuzzer targets, build-fuzz/
#                                                  (scripts/fuzz.sh for long runs)
#   scripts/test.sh --distro=trixie|sid [SUITE...] the suite on Debian 13's
#                                                  GStreamer 1.26 or unstable's
#                                                  1.28, in a debootstrap root
#                                                  kept under /var/cache/gst-stages
#                                                  (scripts/distro.sh); as root
#   scripts/test.sh --container                    builds the Containerfile and
#                                                  runs the image, in a Debian 12
#                                                  debootstrap root without an
#                                                  engine (scripts/container-check.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

sanitize=""
fuzz=""
distro=""
container=""
args=()
for a in "$@"; do
  case "$a" in
    -h|--help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    --sanitize=address|--sanitize=thread) sanitize="${a#--sanitize=}" ;;
    --sanitize=*) echo "test.sh: --sanitize takes address or thread" >&2; exit 2 ;;
    --fuzz) fuzz=20 ;;
    --fuzz=*) fuzz="${a#--fuzz=}" ;;
    --distro=trixie|--distro=sid) distro="${a#--distro=}" ;;
    --distro=*) echo "test.sh: --distro takes trixie (Debian 13) or sid (unstable)" >&2; exit 2 ;;
    --container) container=1 ;;
    -*) echo "test.sh: unknown option $a (scripts/test.sh --help)" >&2; exit 2 ;;
    *) args+=("$a") ;;
  esac
done

if [ -n "$container" ]; then
  if [ ${#args[@]} -gt 0 ] || [ -n "$distro$sanitize$fuzz" ]; then
    echo "test.sh: --container takes no suites or other options" >&2
    exit 2
  fi
  exec bash scripts/container-check.sh
fi

if [ -n "$distro" ]; then
  [ "$(id -u)" = 0 ] || { echo "test.sh: --distro needs root (debootstrap, chroot)" >&2; exit 2; }
  . scripts/distro.sh
  stages_distro_test "$distro" ${args[@]+"${args[@]}"}
  exit $?
fi

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
  # routes them through pthreads so that TSan sees the synchronisation
  # (tests/tsan-glib-shim.c). Reports entirely inside GLib/GStreamer (not
  # instrumented) do not fail a suite; tests/tsan-verdict.py sorts them.
  export STAGES_TSAN_SHIM="$PWD/$builddir/tests/libtsan-glib-shim.so"
  export STAGES_TSAN_DIR="$PWD/$builddir/tsan-reports"
  rm -rf "$STAGES_TSAN_DIR"
  mkdir -p "$STAGES_TSAN_DIR"
  wrapper=(--wrapper "$PWD/tests/tsan-run.sh")
  # With the registry scanned in-process, every installed plugin is loaded
  # into the instrumented test (gst-plugins-bad alone brings drivers whose
  # own init TSan reports): the system plugins seen are those of GStreamer
  # core, base, good, ugly and libav only, linked into build-tsan/plugins/.
  rm -rf "$builddir/plugins"
  mkdir -p "$builddir/plugins"
  for pkg in libgstreamer1.0-0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
      gstreamer1.0-plugins-ugly gstreamer1.0-libav; do
    dpkg -L "$pkg" 2>/dev/null | grep '/gstreamer-1.0/libgst.*\.so$' \
      | xargs -r ln -sf -t "$builddir/plugins"
  done
  export GST_PLUGIN_SYSTEM_PATH_1_0="$PWD/$builddir/plugins"
  export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp:exitcode=0:second_deadlock_stack=1:report_signal_unsafe=0:${TSAN_OPTIONS:-}"
  # Left out under TSan: tests that start gst-launch-1.0 or python3 (they
  # cannot load TSan-built plugins: clang's runtime is linked into the test
  # programs only), tests asserting time shares or latencies, which TSan's
  # slowdown skews, and tests needing gst-plugins-bad (h264parse), whose
  # plugins are not loaded here.
  export GST_CHECKS_IGNORE="test_kill9,test_defaults_and_stdout,test_bad_params,\
test_bad_filter,test_unwritable_paths,test_quoted_path_text,test_interval,test_db,\
test_python_example,test_source_production,test_input_bound,test_collectpads_mux,\
test_aggregator,test_typed_values,test_inspect,test_separator_typos,\
test_held_buffer,test_queue_dwell,test_live_render,test_reference_timestamp,\
test_flow_arrows,test_decoder_reorder,test_encoder_lookahead,test_muxer_file"
  if [ ${#args[@]} -eq 0 ]; then
    args=(stagebin stagebin_replicas stagebin_lifecycle stageresize stageprof
          stageprof_latency
          stageprof_queues stageprof_output
          stageprof_params stageprof_app stageprof_writer)
  fi
fi

meson test -C "$builddir" --print-errorlogs --num-processes 2 \
  ${wrapper[@]+"${wrapper[@]}"} ${args[@]+"${args[@]}"} || status=$?

# meson names the log after the wrapper (testlog-env.json): the newest one
first_log="$builddir/meson-logs/first-pass.json"
cp "$(ls -t "$builddir"/meson-logs/testlog*.json | head -n 1)" "$first_log"
# A suite that failed is run once more, alone, and says so: the machines
# are shared and noisy, and a suite that fails twice fails the pass. The
# first failure's log stays above for whoever reads it.
mapfile -t failed_suites < <(python3 - "$first_log" <<'PY'
import json, re, sys
for line in open(sys.argv[1]):
    if line.strip():
        r = json.loads(line)
        if r["result"] not in ("OK", "EXPECTEDFAIL", "SKIP"):
            # "gst-stages:tracer / stageprof" (meson 1.0) or "tracer -
            # gst-stages:stageprof" (newer): meson test takes the name
            print(re.split(r"[:/ ]", r["name"])[-1])
PY
)
rerun_log=""
if [ ${#failed_suites[@]} -gt 0 ] && [ ${#failed_suites[@]} -le 3 ]; then
  echo "test.sh: running again, alone: ${failed_suites[*]}"
  status=0
  rm -f "$builddir"/meson-logs/rerun*.json
  meson test -C "$builddir" --print-errorlogs --num-processes 1 \
    --logbase rerun ${wrapper[@]+"${wrapper[@]}"} "${failed_suites[@]}" \
    || status=$?
  # rerun.json, or rerun-env.json under a wrapper
  rerun_log="$(ls -t "$builddir"/meson-logs/rerun*.json 2>/dev/null | head -n 1)"
  if [ -z "$rerun_log" ]; then
    echo "test.sh: the second run wrote no log" >&2
    status=1
  fi
fi

summary=$(python3 - "$first_log" "$rerun_log" <<'PY'
import json, sys
def results(path):
    out = {}
    for line in open(path):
        if line.strip():
            r = json.loads(line)
            out[r["name"]] = r["result"]
    return out
res = results(sys.argv[1])
if sys.argv[2]:
    again = results(sys.argv[2])
    for name, r in again.items():
        if name not in res or res[name] in ("OK", "EXPECTEDFAIL", "SKIP"):
            continue  # only the suites that failed are taken again
        if r in ("OK", "EXPECTEDFAIL"):
            print(f"test.sh: FLAKY: {name} failed, then passed alone",
                  file=sys.stderr)
        res[name] = r
passed = failed = skipped = 0
for r in res.values():
    if r in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r == "SKIP":
        skipped += 1
    else:
        failed += 1
tail = f", {skipped} skipped" if skipped else ""
print(f"{passed} passed, {failed} failed{tail}")
PY
) || status=1
if [ "$sanitize" = thread ]; then
  # TSan's verdict on each suite counts as a test of its own
  verdict=$(python3 tests/tsan-verdict.py "$STAGES_TSAN_DIR" "$PWD") || status=1
  echo "$verdict"
  v=$(echo "$verdict" | tail -n 1)
  m=$(echo "$summary" | tail -n 1)
  summary="$(( ${m%% passed*} + ${v%% passed*} )) passed, $(( $(echo "$m" | sed 's/.*passed, \([0-9]*\) failed.*/\1/') + $(echo "$v" | sed 's/.*passed, \([0-9]*\) failed.*/\1/') )) failed"
fi
echo "$summary"
exit $status
