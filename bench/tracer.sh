#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# stageprof's cost, as ratios measured side by side in one run.
#
#   bench/tracer.sh            # full run (about 2-4 minutes on 2 cores)
#   REPS=3 BUFFERS=50000 bench/tracer.sh --no-real    # quick look
#
# Worst case: fakesrc num-buffers=$BUFFERS sizetype=empty ! 8 x identity !
# fakesink, timed from PLAYING to EOS by bench/tracer-run.c, under: no
# tracer, stagenull (stageprof's hooks with empty bodies: the floor of
# GStreamer's hook dispatch), stageprof with summary=none / summary=stdout /
# a trace / latency=true / memory=true / interval=1 (windows), the core
# `stats` and `latency(flags=element)` tracers. Each config runs $REPS times, interleaved, and the median counts. Overhead = config -
# none; "x floor" = overhead / stagenull's overhead.
#
# Monitored service: the same pipeline with MONITOR_BUFFERS (1000000)
# buffers, stageprof's default against interval=1 with metrics= scraped
# every second.
#
# Realistic case: 1080p H.264 decode -> videoscale to 720p -> avenc_mpeg4,
# without and with stageprof's trace: overhead % and trace bytes per event.
#
# Environment: BUILD_DIR or BUILD (default build), REPS (5), BUFFERS (200000),
# MONITOR_BUFFERS (1000000),
# REAL_REPS (3), BENCH_TMP (a fresh temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD_DIR:-${BUILD:-build}}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
REPS=${REPS:-5}
BUFFERS=${BUFFERS:-200000}
REAL_REPS=${REAL_REPS:-3}
REAL=1
for a in "$@"; do
  case "$a" in
    --no-real) REAL=0 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "tracer.sh: unknown argument '$a' (try --help)" >&2; exit 2 ;;
  esac
done

TMP=${BENCH_TMP:-$(mktemp -d /tmp/stageprof-bench.XXXXXX)}
mkdir -p "$TMP"

# ---- build if needed -------------------------------------------------------
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" >/dev/null
fi
if ! meson compile -C "$BUILD" >"$TMP/build.log" 2>&1; then
  echo "note: 'meson compile -C $BUILD' failed (see $TMP/build.log); benchmarking what is built" >&2
fi
DRIVER="$BUILD/bench/tracer-run"
if [ ! -x "$DRIVER" ] || [ bench/tracer-run.c -nt "$DRIVER" ]; then
  mkdir -p "$BUILD/bench"
  cc -O2 -Wall bench/tracer-run.c -o "$DRIVER" \
    $(pkg-config --cflags --libs gstreamer-1.0)
fi

export GST_PLUGIN_PATH_1_0="$BUILD/gst:$BUILD/tracer"
export GST_REGISTRY_1_0="$TMP/registry.bin"
unset GST_TRACERS GST_DEBUG || true

# A tracer factory shows "Factory Details"; the plugin (also called
# stageprof) would not. No "| grep -q": with pipefail, grep's early exit
# would fail the pipe.
have_tracer() {
  gst-inspect-1.0 "$1" >"$TMP/inspect.txt" 2>/dev/null || return 1
  grep -q "^Factory Details" "$TMP/inspect.txt"
}
HAVE_PROF=0; have_tracer stageprof && HAVE_PROF=1
HAVE_NULL=0; have_tracer stagenull && HAVE_NULL=1

# ---- worst case ------------------------------------------------------------
IDS="identity ! identity ! identity ! identity ! identity ! identity ! identity ! identity"
PIPE="fakesrc num-buffers=$BUFFERS sizetype=empty ! $IDS ! fakesink"
N_ELEM=10

# label|GST_TRACERS
CONFIGS=("none|")
[ $HAVE_NULL = 1 ] && CONFIGS+=("stagenull (floor)|stagenull")
if [ $HAVE_PROF = 1 ]; then
  CONFIGS+=("stageprof summary=none|stageprof(summary=none)")
  CONFIGS+=("stageprof summary=stdout|stageprof(summary=stdout)")
  CONFIGS+=("stageprof trace|stageprof(summary=none,trace=$TMP/worst.json)")
  CONFIGS+=("stageprof latency|stageprof(summary=none,latency=true)")
  CONFIGS+=("stageprof memory|stageprof(summary=none,memory=true)")
  # windows every second (interval=1): bytes and self-time buckets on the
  # hot path, a window closed each second
  CONFIGS+=("stageprof interval=1|stageprof(summary=none,interval=1)")
fi
CONFIGS+=("core stats|stats")
CONFIGS+=("core latency(element)|latency(flags=element)")

RES="$TMP/worst.txt"
: >"$RES"
echo "worst case: $PIPE"
echo "  $REPS reps per config, interleaved; timing NULL->PLAYING->EOS only"
[ $HAVE_NULL = 1 ] || echo "  stagenull not built, skipped (ratios need it)"
[ $HAVE_PROF = 1 ] || echo "  stageprof not built, skipped"
for rep in $(seq 1 "$REPS"); do
  for c in "${CONFIGS[@]}"; do
    label=${c%%|*}; tr=${c#*|}
    if [ -n "$tr" ]; then
      out=$(GST_TRACERS="$tr" "$DRIVER" "$PIPE" 2>"$TMP/err.txt" | grep '^run ' || true)
    else
      out=$("$DRIVER" "$PIPE" 2>"$TMP/err.txt" | grep '^run ' || true)
    fi
    if [ -z "$out" ]; then
      echo "  $label: run failed: $(tail -1 "$TMP/err.txt")" >&2
      continue
    fi
    echo "$label|$out" >>"$RES"
  done
  printf '  rep %d/%d done\r' "$rep" "$REPS" >&2
done
echo >&2
WORST_TRACE_BYTES=0; WORST_TRACE_EVENTS=0
if [ -f "$TMP/worst.json" ]; then
  WORST_TRACE_BYTES=$(stat -c %s "$TMP/worst.json")
  WORST_TRACE_EVENTS=$(grep -c '^,\?{' "$TMP/worst.json" || true)
fi

python3 - "$RES" "$BUFFERS" "$N_ELEM" "$WORST_TRACE_BYTES" "$WORST_TRACE_EVENTS" <<'PY'
import sys, statistics, collections
res, buffers, n_elem = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tbytes, tevents = int(sys.argv[4]), int(sys.argv[5])
runs = collections.OrderedDict()
for line in open(res):
    label, rest = line.rstrip("\n").split("|", 1)
    kv = dict(x.split("=") for x in rest.split()[1:])
    runs.setdefault(label, []).append((int(kv["wall_ns"]), int(kv["cpu_ns"])))
med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
       for k, v in runs.items()}
if "none" not in med:
    sys.exit("no baseline run succeeded")
per = lambda ns: ns / (buffers * n_elem)
base_w, base_c = med["none"]
floor = med.get("stagenull (floor)")
print()
print(f"{'config':26} {'wall ms':>9} {'cpu ms':>9} {'ns/buf/elem':>12} {'+ns/buf/elem':>13} {'x floor':>8}")
ratios = {}
for k, (w, c) in med.items():
    over = per(c) - per(base_c)
    x = ""
    if floor and k not in ("none",):
        fo = per(floor[1]) - per(base_c)
        if fo > 0:
            ratios[k] = over / fo
            x = f"{ratios[k]:8.2f}"
    print(f"{k:26} {w/1e6:9.1f} {c/1e6:9.1f} {per(c):12.1f} {over:13.1f} {x:>8}")
if "stageprof trace" in med and tevents:
    # Per-event cost of tracing, for the realistic case's estimate.
    with open(res + ".per_event_ns", "w") as f:
        f.write(str((med["stageprof trace"][1] - base_c) / tevents))
print("  (ns per buffer per element from process CPU time, which includes")
print("   tracer writer threads; wall time shown for reference)")
if tevents:
    print(f"  worst-case trace: {tevents} events, {tbytes/tevents:.1f} bytes/event")
def goal(name, key, limit_key=None, limit=None):
    if key not in ratios:
        return
    r = ratios[key]
    if limit_key:
        lim = ratios.get(limit_key)
        if lim is None:
            return
        ok = r < lim
        print(f"  goal {name}: {r:.2f}x vs {lim:.2f}x  {'met' if ok else 'NOT met'}")
    else:
        ok = r <= limit
        print(f"  goal {name}: {r:.2f}x (<= {limit}x)  {'met' if ok else 'NOT met'}")
print()
goal("stageprof summary overhead <= 1.5x floor", "stageprof summary=stdout", limit=1.5)
goal("stageprof summary=none overhead <= 1.5x floor", "stageprof summary=none", limit=1.5)
goal("stageprof trace overhead <= 2x floor", "stageprof trace", limit=2.0)
goal("stageprof summary cheaper than core stats", "stageprof summary=stdout", limit_key="core stats")
if "stageprof latency" in ratios and "core latency(element)" in ratios:
    r, c = ratios["stageprof latency"], ratios["core latency(element)"]
    print(f"  goal stageprof latency=true below a third of core latency: "
          f"{r:.2f}x vs {c:.2f}x / 3 = {c / 3:.2f}x  {'met' if r < c / 3 else 'NOT met'}")
PY

# ---- a monitored service -----------------------------------------------------
# interval=1 and the metrics endpoint, scraped every second as Prometheus
# would, against the default stageprof, on a run long enough for several
# ticks and scrapes (MONITOR_BUFFERS, default 1000000: about 5 s).
# (gst-inspect-1.0 lists a tracer's properties only from 1.26: ask stageprof)
HAVE_METRICS=0
if [ $HAVE_PROF = 1 ] && ! GST_TRACERS="stageprof(summary=none,metrics=127.0.0.1:1)" \
    gst-launch-1.0 -q fakesrc num-buffers=1 ! fakesink 2>&1 | grep -q "no metrics endpoint"; then
  HAVE_METRICS=1
fi
[ $HAVE_METRICS = 1 ] || { echo; echo "monitored service: stageprof built without the metrics endpoint, skipped"; }
if [ $HAVE_METRICS = 1 ]; then
  MBUF=${MONITOR_BUFFERS:-1000000}
  MPIPE="fakesrc num-buffers=$MBUF sizetype=empty ! $IDS ! fakesink"
  PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # Scrapes until killed; bash's /dev/tcp, so no HTTP client is needed. A
  # scrape before the endpoint is up fails quietly.
  scrape_loop() {
    while :; do
      if exec 3<>"/dev/tcp/127.0.0.1/$PORT"; then
        printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
        head -n 1 <&3 >>"$TMP/scrapes.txt"
        cat <&3 >/dev/null
        exec 3<&-
      fi
      sleep 1
    done 2>/dev/null
  }
  MRES="$TMP/monitor.txt"
  : >"$MRES"
  : >"$TMP/scrapes.txt"
  echo
  echo "monitored service: $MPIPE, $REPS reps"
  for rep in $(seq 1 "$REPS"); do
    for c in "default|stageprof(summary=none)" \
        "interval=1 + metrics|stageprof(summary=none,progress=false,interval=1,metrics=127.0.0.1:$PORT)"; do
      label=${c%%|*}; tr=${c#*|}
      scraper=""
      case "$tr" in *metrics=*) scrape_loop & scraper=$! ;; esac
      out=$(GST_TRACERS="$tr" "$DRIVER" "$MPIPE" 2>"$TMP/err.txt" | grep '^run ' || true)
      if [ -n "$scraper" ]; then
        kill "$scraper"
        wait "$scraper" 2>/dev/null || true
      fi
      [ -n "$out" ] && echo "$label|$out" >>"$MRES" || echo "  $label: run failed: $(tail -1 "$TMP/err.txt")" >&2
    done
  done
  python3 - "$MRES" "$(grep -c ' 200 ' "$TMP/scrapes.txt" || true)" <<'PY'
import sys, statistics, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, rest = line.rstrip("\n").split("|", 1)
    kv = dict(x.split("=") for x in rest.split()[1:])
    runs[label].append((int(kv["wall_ns"]), int(kv["cpu_ns"])))
if len(runs) < 2:
    sys.exit("  monitored service: runs failed")
(dw, dc), (mw, mc) = [(statistics.median(w for w, _ in runs[k]), statistics.median(c for _, c in runs[k]))
                      for k in ("default", "interval=1 + metrics")]
print(f"  default              : wall {dw/1e6:8.1f} ms  cpu {dc/1e6:8.1f} ms")
print(f"  interval=1 + metrics : wall {mw/1e6:8.1f} ms  cpu {mc/1e6:8.1f} ms  ({sys.argv[2]} scrapes answered 200)")
print(f"  goal interval=1 + metrics within 5 % of the default stageprof: cpu {100*(mc-dc)/dc:+.1f} %, "
      f"wall {100*(mw-dw)/dw:+.1f} %  {'met' if mc <= 1.05 * dc else 'NOT met'}")
PY
fi

# ---- realistic case --------------------------------------------------------
[ $REAL = 1 ] || exit 0
echo
SRC=/work/shared/media/bbb_720p_h264.mp4
CLIP="$TMP/bench_1080p_h264.mp4"
DEC="qtdemux ! h264parse ! avdec_h264"
if [ ! -f "$CLIP" ]; then
  ffmpeg -hide_banner -encoders >"$TMP/encoders.txt" 2>/dev/null || true
  if [ -f "$SRC" ] && grep -q libx264 "$TMP/encoders.txt"; then
    ffmpeg -v error -y -i "$SRC" -vf scale=1920:1080 -an -c:v libx264 \
      -preset veryfast -crf 20 "$CLIP"
  else
    # No H.264 source or encoder: a 1080p MPEG-4 part 2 clip made here.
    echo "  (no H.264 1080p source: using an MPEG-4 part 2 clip made with avenc_mpeg4)"
    CLIP="$TMP/bench_1080p_mpeg4.mkv"
    DEC="matroskademux ! mpeg4videoparse ! avdec_mpeg4"
    gst-launch-1.0 -q videotestsrc num-buffers=150 pattern=ball \
      ! video/x-raw,width=1920,height=1080,framerate=25/1 \
      ! avenc_mpeg4 bitrate=8000000 ! matroskamux \
      ! filesink location="$CLIP"
  fi
fi
RPIPE="filesrc location=$CLIP ! $DEC ! queue ! videoscale ! video/x-raw,width=1280,height=720 ! queue ! avenc_mpeg4 ! fakesink"
echo "realistic case: $RPIPE"
if [ $HAVE_PROF = 0 ]; then
  echo "  stageprof not built, skipped"
  exit 0
fi
RRES="$TMP/real.txt"
: >"$RRES"
for rep in $(seq 1 "$REAL_REPS"); do
  for c in "none|" "trace|stageprof(summary=none,trace=$TMP/real.json)"; do
    label=${c%%|*}; tr=${c#*|}
    if [ -n "$tr" ]; then
      out=$(GST_TRACERS="$tr" "$DRIVER" "$RPIPE" 2>"$TMP/err.txt" | grep '^run ' || true)
    else
      out=$("$DRIVER" "$RPIPE" 2>"$TMP/err.txt" | grep '^run ' || true)
    fi
    [ -n "$out" ] && echo "$label|$out" >>"$RRES" || echo "  $label: run failed: $(tail -1 "$TMP/err.txt")" >&2
  done
done
RB=$(stat -c %s "$TMP/real.json" 2>/dev/null || echo 0)
RE=$(grep -c '^,\?{' "$TMP/real.json" 2>/dev/null || echo 0)
python3 - "$RRES" "$RB" "$RE" "$RES.per_event_ns" <<'PY'
import sys, statistics, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, rest = line.rstrip("\n").split("|", 1)
    kv = dict(x.split("=") for x in rest.split()[1:])
    runs[label].append((int(kv["wall_ns"]), int(kv["cpu_ns"])))
if not runs.get("none") or not runs.get("trace"):
    sys.exit("  realistic case: runs failed")
m = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
(wn, cn), (wt, ct) = m["none"], m["trace"]
print(f"  none : wall {wn/1e6:8.1f} ms  cpu {cn/1e6:8.1f} ms")
print(f"  trace: wall {wt/1e6:8.1f} ms  cpu {ct/1e6:8.1f} ms")
print(f"  overhead with trace: wall {100*(wt-wn)/wn:+.2f} %  cpu {100*(ct-cn)/cn:+.2f} %  (goal < 2 %; noise on a shared machine is about that size)")
b, e = int(sys.argv[2]), int(sys.argv[3])
if e:
    print(f"  trace: {e} events, {b} bytes, {b/e:.1f} bytes/event (goal < 100)")
    try:
        pe = float(open(sys.argv[4]).read())
        print(f"  estimate from the worst case's cost per traced event ({pe:.0f} ns):"
              f" {e} events x {pe:.0f} ns = {e*pe/1e6:.2f} ms = {100*e*pe/cn:.3f} % of the run")
    except (OSError, ValueError):
        pass
PY
