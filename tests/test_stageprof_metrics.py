#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""stageprof's metrics endpoint (metrics=HOST:PORT), scraped by a real
Prometheus server, and its faults.

- A child process (/usr/bin/python3 with Gst) runs two live pipelines the
  test controls: `ratepipe` (videotestsrc is-live at 30 fps, an identity
  holding each buffer 20 ms, fakesink) and `schedpipe` (videotestsrc
  is-live at 30 fps, a queue of at most 10 buffers, fakesink), where a pad
  probe on the queue's output blocks it every other 3 s: the queue fills
  to its limit, then drains. Prometheus (Debian's package; loopback only,
  its own folder, stopped by pid) scrapes it every second for ~20 s; then
  its query API must give rate() of the sink's buffers = 30/s within 2 %,
  queue-level samples that follow the schedule, and a latency median
  within 1 ms of the 20 ms hold. promtool check metrics accepts the
  exposition.
- interval= snapshots logged as GstTracerRecords (stageprof-element and
  stageprof-queue, GST_DEBUG=GST_TRACER:7): one per element and queue a
  tick, whose interval counts add up and run at the source's rate.
- Faults, each on a gst-launch-1.0 of its own: 100 concurrent scrapes; a
  client that connects and never sends and one that never reads, while
  the pipeline and other scrapes go on; garbage requests get HTTP errors;
  a port already taken; a non-loopback address without
  metrics-any-address=true; a malformed address.

Skips (exit 77) with the reason only where prometheus or promtool is not
installed (scripts/deps.sh installs them).
"""
import concurrent.futures
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

SKIP = 77
FPS = 30
HOLD_US = 20000
PHASE_S = 3.0
QUEUE_MAX = 10
failures = 0


def check(cond, what):
    global failures
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures += 1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get(url, timeout=5):
    """(status, body) of a GET; HTTP errors are answers too."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def wait_for(url, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if get(url, timeout=1)[0] == 200:
                return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def sample(text, name, **labels):
    """The value of one series of an exposition, or None."""
    for line in text.splitlines():
        m = re.match(r"^([a-z_]+)\{(.*)\} (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        got = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        if all(got.get(k) == v for k, v in labels.items()):
            return float(m.group(3))
    return None


def tracer_env(params):
    env = dict(os.environ)
    env["GST_TRACERS"] = "stageprof(%s)" % params
    env.pop("GST_DEBUG", None)
    return env


LIVE = ("videotestsrc is-live=true ! video/x-raw,width=64,height=48,framerate=%d/1 "
        "! queue name=q ! fakesink name=sink sync=false" % FPS)


def launch(params, desc=LIVE, cwd=None):
    return subprocess.Popen(["gst-launch-1.0", "-q"] + desc.split(), env=tracer_env(params),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return p.communicate()


# ---------------------------------------------------------------------------
# The child: the two pipelines, until stdin closes.

def child():
    import threading
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import GLib, Gst
    Gst.init(None)
    rate = Gst.parse_launch(
        "videotestsrc is-live=true ! video/x-raw,width=64,height=48,framerate=%d/1 ! "
        "identity name=hold sleep-time=%d ! fakesink name=ratesink sync=false" % (FPS, HOLD_US))
    rate.set_name("ratepipe")
    sched = Gst.parse_launch(
        "videotestsrc is-live=true ! video/x-raw,width=64,height=48,framerate=%d/1 ! "
        "queue name=schedq max-size-buffers=%d max-size-bytes=0 max-size-time=0 ! "
        "fakesink name=schedsink sync=false" % (FPS, QUEUE_MAX))
    sched.set_name("schedpipe")
    t0 = time.time() + 1.0

    def gate(pad, info):
        # Phases of PHASE_S from t0: even ones open, odd ones closed (the
        # queue's output waits for the phase's end).
        now = time.time()
        k = int((now - t0) // PHASE_S)
        if now >= t0 and k % 2 == 1:
            time.sleep(t0 + (k + 1) * PHASE_S - now)
        return Gst.PadProbeReturn.OK

    sched.get_by_name("schedq").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, gate)
    loop = GLib.MainLoop()
    threading.Thread(target=lambda: (sys.stdin.read(), GLib.idle_add(loop.quit)),
                     daemon=True).start()
    rate.set_state(Gst.State.PLAYING)
    sched.set_state(Gst.State.PLAYING)
    print("T0 %.6f" % t0, flush=True)
    loop.run()
    rate.set_state(Gst.State.NULL)
    sched.set_state(Gst.State.NULL)
    return 0


# ---------------------------------------------------------------------------
# Prometheus against the child.

def prom_query(base, query, at=None):
    args = {"query": query}
    if at is not None:
        args["time"] = "%.3f" % at
    status, body = get(base + "/api/v1/query?" + urllib.parse.urlencode(args))
    r = json.loads(body)
    assert status == 200 and r["status"] == "success", body
    return r["data"]["result"]


def test_prometheus(tmp, prometheus, promtool):
    port, prom_port = free_port(), free_port()
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    kid = subprocess.Popen([python, os.path.abspath(__file__), "--child"],
                           env=tracer_env("metrics=127.0.0.1:%d,latency=true,summary=none" % port),
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    prom = None
    try:
        t0 = float(kid.stdout.readline().split()[1])
        url = "http://127.0.0.1:%d/metrics" % port
        check(wait_for(url, 10), "the child's endpoint answers")
        with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "scrape_configs:\n  - job_name: stageprof\n    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n" % port)
        plog = open(os.path.join(tmp, "prometheus.log"), "w")
        # (not the sanitizer runtime that an ASan pass preloads into our
        # programs: Prometheus is none of them)
        clean = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        prom = subprocess.Popen([prometheus, "--config.file=" + os.path.join(tmp, "prometheus.yml"),
                                 "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                                 "--web.listen-address=127.0.0.1:%d" % prom_port,
                                 "--log.level=warn"], stdout=plog, stderr=plog, cwd=tmp, env=clean)
        base = "http://127.0.0.1:%d" % prom_port
        check(wait_for(base + "/-/ready", 20), "prometheus is ready")
        # Four closed phases and more from t0, then the queries.
        time.sleep(max(0, t0 + 6 * PHASE_S + 1.2 - time.time()))
        now = time.time()

        up = prom_query(base, "up")
        check(len(up) == 1 and up[0]["value"][1] == "1", "prometheus scraped the endpoint: %s" % up)

        r = prom_query(base, 'rate(stageprof_sink_buffers_total{element="ratesink"}[10s])', now)
        rate = float(r[0]["value"][1]) if r else float("nan")
        check(abs(rate - FPS) <= 0.02 * FPS,
              "rate() of the sink's buffers %.3f/s = the source's %d fps within 2 %%" % (rate, FPS))

        r = prom_query(base, 'stageprof_latency_seconds{element="ratesink",quantile="0.5"}', now)
        med = float(r[0]["value"][1]) if r else float("nan")
        check(abs(med - HOLD_US / 1e6) <= 0.001,
              "latency median %.3f ms within 1 ms of the %.0f ms hold" % (med * 1e3, HOLD_US / 1e3))

        r = prom_query(base, 'stageprof_queue_level_buffers{element="schedq"}[%ds]' % int(now - t0 + 2), now)
        samples = [(float(t), float(v)) for t, v in (r[0]["values"] if r else [])]
        closed = [v for t, v in samples if t >= t0 and int((t - t0) // PHASE_S) % 2 == 1
                  and (t - t0) % PHASE_S >= 0.8 and (t - t0) % PHASE_S <= PHASE_S - 0.2]
        opened = [v for t, v in samples if t >= t0 and int((t - t0) // PHASE_S) % 2 == 0
                  and (t - t0) % PHASE_S >= 0.8 and (t - t0) % PHASE_S <= PHASE_S - 0.2]
        check(len(closed) >= 4 and all(QUEUE_MAX - 1 <= v <= QUEUE_MAX + 1 for v in closed),
              "queue level while its output is held: %s (its limit: %d)" % (closed, QUEUE_MAX))
        check(len(opened) >= 4 and all(v <= 1 for v in opened),
              "queue level while it flows: %s (at most 1)" % opened)
        r = prom_query(base, 'stageprof_queue_limit_buffers{element="schedq"}', now)
        check(r and float(r[0]["value"][1]) == QUEUE_MAX, "the queue's limit gauge: %s" % r)

        status, text = get(url)
        pc = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True,
                            env=clean)
        check(status == 200 and pc.returncode == 0,
              "promtool check metrics accepts the exposition (%s%s)" % (pc.stdout, pc.stderr))
        for name in ("stageprof_element_self_seconds_total", "stageprof_element_buffers_total",
                     "stageprof_queue_level_bytes", "stageprof_queue_level_seconds",
                     "stageprof_cores_used", "stageprof_element_invocation_seconds_count"):
            check(re.search(r"^%s[{ ]" % name, text, re.M) is not None, "the exposition has %s" % name)
    finally:
        if prom:
            prom.terminate()
            try:
                prom.wait(15)
            except subprocess.TimeoutExpired:
                prom.kill()
                prom.wait()
        kid.stdin.close()
        try:
            kid.wait(15)
        except subprocess.TimeoutExpired:
            kid.kill()
            kid.wait()
    check(kid.returncode == 0, "the child stopped cleanly")


# ---------------------------------------------------------------------------
# Faults.

def sink_buffers(url):
    status, text = get(url)
    return sample(text, "stageprof_sink_buffers_total", element="sink") if status == 200 else None


def raw(port, data, read=True):
    with socket.create_connection(("127.0.0.1", port), timeout=15) as s:
        s.sendall(data)
        if not read:
            return b""
        out = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except socket.timeout:
            return b"(no answer within 15 s)"
        return out


def test_faults(tmp):
    port = free_port()
    url = "http://127.0.0.1:%d/metrics" % port
    p = launch("metrics=127.0.0.1:%d,summary=none" % port)
    try:
        check(wait_for(url, 10), "endpoint up")
        time.sleep(1)

        with concurrent.futures.ThreadPoolExecutor(100) as ex:
            answers = list(ex.map(lambda _: get(url, timeout=20), range(100)))
        ok = [a for a in answers if a[0] == 200 and "stageprof_sink_buffers_total" in a[1]]
        check(len(ok) == 100, "100 concurrent scrapes: %d answered with the metrics" % len(ok))

        # Silent clients: one connects and never sends, one asks and never
        # reads (a tiny receive buffer); the pipeline and other scrapes go on.
        silent = socket.create_connection(("127.0.0.1", port))
        deaf = socket.socket()
        deaf.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        deaf.connect(("127.0.0.1", port))
        deaf.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
        a = sink_buffers(url)
        time.sleep(2.0)
        b = sink_buffers(url)
        check(a is not None and b is not None and abs((b - a) / 2.0 - FPS) <= 0.25 * FPS,
              "with a silent and a deaf client connected, the sink still gets %s fps and scrapes answer"
              % (None if a is None or b is None else (b - a) / 2.0))
        silent.close()
        deaf.close()

        # Garbage, all at once (a line that is no request line at all may be
        # dropped only at libmicrohttpd's 10 s timeout): each gets an HTTP
        # error, or, where the line is not HTTP at all, the server closes
        # the connection without one ("closed": libmicrohttpd 0.9.75).
        cases = [
            ("binary garbage", b"\x00\x01\x02garbage\xff\r\n\r\n", ("400", "closed")),
            ("a lone method", b"GET\r\n\r\n", ("400", "closed")),
            ("no HTTP version", b"GET /metrics\r\n\r\n", ("400",)),
            ("three words", b"garbage garbage garbage\r\n\r\n", ("400", "405")),
            ("a header without a colon", b"GET /metrics HTTP/1.1\r\nHost: x\r\nbad\r\n\r\n", ("400",)),
            ("a bad Content-Length", b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n",
             ("400",)),
            ("another path", b"GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n", ("404",)),
            ("another method", b"DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n", ("405",)),
            ("a 100 kB header", b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 100000
             + b"\r\n\r\n", ("400", "413", "414", "431")),
            ("an unknown HTTP version", b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n", ("400", "505"))]

        def answer(data):
            try:
                out = raw(port, data)
            except OSError as e:
                return "error %s" % e
            m = re.match(rb"HTTP/1\.[01] (\d\d\d)", out)
            return m.group(1).decode() if m else "closed" if out == b"" else repr(out[:60])

        with concurrent.futures.ThreadPoolExecutor(len(cases)) as ex:
            got = list(ex.map(lambda c: answer(c[1]), cases))
        for (what, data, codes), code in zip(cases, got):
            check(code in codes, "%s: %s (%s)" % (what, code, "/".join(codes)))
        check(get(url)[0] == 200, "scrapes answer after the garbage")
        check(p.poll() is None, "the pipeline is still running")
    finally:
        out, err = stop(p)
    check("CRITICAL" not in err and "stageprof" not in err, "no warning on stderr: %r" % err[-300:])

    # A port already taken: a clear warning, and the pipeline runs to EOS.
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    tport = taken.getsockname()[1]
    r = subprocess.run(["gst-launch-1.0", "videotestsrc", "num-buffers=30", "!", "fakesink"],
                       env=tracer_env("metrics=127.0.0.1:%d,summary=none" % tport),
                       capture_output=True, text=True, timeout=60)
    taken.close()
    check(r.returncode == 0 and "Got EOS" in r.stdout
          and "metrics=127.0.0.1:%d: cannot listen there: Address already in use" % tport in r.stderr
          and "running without the metrics endpoint" in r.stderr,
          "port taken: warned, and the pipeline ran to EOS (rc %d, %r)" % (r.returncode, r.stderr[-300:]))

    # Any address but loopback needs the opt-in, in either order.
    aport = free_port()
    p = launch("metrics=0.0.0.0:%d,summary=none" % aport)
    time.sleep(2)
    try:
        refused = False
        try:
            socket.create_connection(("127.0.0.1", aport), timeout=2).close()
        except OSError:
            refused = True
        check(refused and p.poll() is None, "metrics=0.0.0.0 without the opt-in: nothing listens, "
              "the pipeline runs")
    finally:
        out, err = stop(p)
    check("metrics=0.0.0.0:%d refused: not a loopback address" % aport in err
          and "metrics-any-address=true" in err, "the refusal says why and what to set: %r" % err[-300:])
    for params in ("metrics=0.0.0.0:%d,metrics-any-address=true",
                   "metrics-any-address=true,metrics=0.0.0.0:%d"):
        aport = free_port()
        p = launch((params % aport) + ",summary=none")
        try:
            check(wait_for("http://127.0.0.1:%d/metrics" % aport, 10), "opt-in: %s serves" % (params % aport))
        finally:
            out, err = stop(p)
        check("refused" not in err, "opt-in: no refusal warning (%s)" % (params % aport))

    for bad, says in [("nonsense", "is not HOST:PORT"), ("127.0.0.1:0", "is not HOST:PORT"),
                      ("127.0.0.1:70000", "is not HOST:PORT"),
                      ("example.com:9100", "'example.com' is not an IP address")]:
        r = subprocess.run(["gst-launch-1.0", "videotestsrc", "num-buffers=5", "!", "fakesink"],
                           env=tracer_env("metrics=%s,summary=none" % bad),
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and says in r.stderr, "metrics=%s: warned (%s), pipeline ran" % (bad, says))


# ---------------------------------------------------------------------------
# interval= snapshots as GstTracerRecords (GST_DEBUG=GST_TRACER:7).

def record_fields(line):
    """The fields of one logged record: name -> text."""
    return dict(re.findall(r"([\w-]+)=\([\w]+\)([^,;]*)", line))


def test_records():
    env = tracer_env("interval=0.5,summary=none,progress=false")
    env["GST_DEBUG"] = "GST_TRACER:7"
    env["GST_DEBUG_NO_COLOR"] = "1"
    # 90 frames at 30 fps, live: 3 s, six ticks.
    r = subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "is-live=true", "num-buffers=90", "!",
                        "video/x-raw,width=64,height=48,framerate=%d/1" % FPS, "!",
                        "queue", "name=q", "max-size-buffers=7", "!", "fakesink", "name=sink", "sync=false"],
                       env=env, capture_output=True, text=True, timeout=60)
    # (not the DEBUG line with each record's format string)
    lines = [l for l in r.stderr.splitlines() if "format string" not in l]
    elem = [record_fields(l) for l in lines if " stageprof-element, " in l]
    sink = [f for f in elem if f.get("element") == "sink"]
    queue = [record_fields(l) for l in lines if " stageprof-queue, " in l]
    check(r.returncode == 0 and len(sink) >= 4,
          "a stageprof-element record of the sink each tick: %d records" % len(sink))
    if not sink:
        return
    # Each tick's count is its own interval's: they add up to the cumulative
    # figure, and the middle ones run at the source's rate.
    total = sum(int(f["interval-buffers"]) for f in sink)
    check(total == int(sink[-1]["buffers"]) and int(sink[-1]["buffers"]) <= 90,
          "interval-buffers add up to buffers: %d = %s" % (total, sink[-1]["buffers"]))
    rates = sorted(int(f["interval-buffers"]) / float(f["interval"]) for f in sink[1:-1])
    mid = rates[len(rates) // 2] if rates else 0
    check(abs(mid - FPS) <= 0.1 * FPS, "interval-buffers / interval: %.1f/s = %d fps within 10 %%" % (mid, FPS))
    check(all(f.get("pipeline") == "pipeline0" and f.get("thread") for f in sink)
          and all(float(f["interval-self-time"]) <= float(f["self-time"]) for f in sink),
          "records name pipeline and thread, and the interval's self time is within the total")
    check(len(queue) >= 4 and all(f.get("queue") == "q" and f.get("limit-buffers") == "7" for f in queue)
          and all(0 <= int(f["level-buffers"]) <= 8 for f in queue),
          "a stageprof-queue record each tick with its limit: %s" % [f.get("level-buffers") for f in queue])


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child()
    prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
    tmp = tempfile.mkdtemp(prefix="stageprof-metrics-")
    try:
        test_records()
        test_faults(tmp)
        if not prometheus or not promtool:
            print("#" * 72 + "\nSKIP: prometheus or promtool is not installed (Debian's prometheus "
                  "package, scripts/deps.sh): the scrape test did not run\n" + "#" * 72, flush=True)
            return failures and 1 or SKIP
        test_prometheus(tmp, prometheus, promtool)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
