#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The zoo: stageprof on real pipelines, every figure held against the
truth harness (gsttruth.py), which shares no code with the tracer.

    zoo.py [--full] [--only NAME,...] [--strict] [--list] [--core]

Each pipeline runs in a process of its own (its CPU and its threads are
its own), with GST_TRACERS="stageprof(latency=true,summary=FILE.json)" set
before Gst.init and the harness's probes on every pad; it prints one table:
pipeline, check, stageprof, truth, ok. The checks:

- through:ELEMENT  mean time through the element (ms, from entering it to
  leaving it), stageprof's element_latency row against the probes';
  within max(1 ms, 5 %);
- e2e:SINK         mean end to end at the sink (ms from the frame's origin),
  the latency row against the probes; within max(1 ms, 5 %);
- os-threads       the OS-thread table's CPU as a share of the process's
  CPU (getrusage, read when the pipeline stopped); 90 % to 110 %;
- unmatched:ELEMENT  outputs of an element that cuts or stamps its own grid
  (audiomixer, videorate) that covered no frame still inside it, which
  both sides count and never give another frame's origin; within max(2,
  2 %);
- drops:QUEUE      buffers a leaky queue dropped: its `dropped` against the
  probes' buffers in minus buffers out; exact;
- workers          CPU of the elements' own threads (`worker_cpu_s`, all
  elements) against the harness's threads that never ran a probe; within
  max(50 ms, 10 %);
- workers:ELEMENT  one element's workers' CPU against the harness's
  workers alive when that element first pushed its caps (it opened its
  codec; the decoder after it had not), same run; within max(50 ms,
  10 %); in the full form its self time plus workers and the stage timed
  alone are shown beside (not checked: x264's threads use 20-30 % more
  CPU beside a decoder than alone, by the OS's count);
- cpu:ELEMENT      (full form only) the element's self time on every
  thread plus its workers' CPU against the process CPU of its stage timed
  alone on the same input, less that input made alone; within max(5 ms,
  10 %); with `pool`, plus the CPU stageprof lists as GLib's shared
  thread pool's (videoconvert's n-threads run there; whose work a pool
  thread did the kernel does not tell). Not in the quick form: on a shared 2-core machine a stage beside
  another uses up to 15 % more CPU than alone (caches), whatever measures;
- late:SINK        a live sink's `Late` against the probes: 2 % of the
  frames (and 2 or more) arriving after what the pipeline's own LATENCY
  query answers, or none (not drawn in between, nor with the P99 within
  max(1 ms, 5 %) of it);
- frames:NODE      (pipelines that list it in `frames`) the frames an
  element passed on (its element_latency count) or a sink drew a latency
  from (its latency row's frames), and those unmatched, against the
  probes'; exact (a mean of the wrong frames can be close to the truth);
- verdict          the element the verdict names first against the stage
  that, timed alone in the same process, takes longest (its input made and
  dropped, less the same input without it).

With --full (or --core), the pipelines marked `core` (x264 default, the
compositor, the audiomixer, the tee) run once more under GStreamer's own
latency tracer only (`latency(flags=pipeline+element)`, its log lines at
GST_TRACER:7) with the harness's probes, and a second table puts its
means against those probes, beside stageprof's against the zoo run's
(not a check; "nothing logged" where it says nothing).

A check listed in a pipeline's `known` is a known stageprof failure (the
reason is printed): it is shown as KNOWN and fails only with --strict.
Elements that this GStreamer lacks skip their pipeline with the reason.
A pipeline with a failed check runs once more (the machines are shared and
noisy); its checks then read "(rerun)" and the second result counts.
Exit status: 0 when every other check passed, 1 otherwise.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gsttruth  # noqa: E402  (Gst.init: in run_one, after GST_TRACERS is set)

QUICK = dict(W=320, H=240, N=45, SEC=1.5, FPS=30)
FULL = dict(W=640, H=360, N=150, SEC=5, FPS=30)

# Input files some pipelines read, made once per zoo run.
MEDIA = {
    "clip.mp4": "videotestsrc num-buffers={N} ! video/x-raw,width={W},height={H},framerate=30/1 ! "
                "x264enc speed-preset=ultrafast bframes=2 key-int-max=30 ! h264parse ! "
                "mp4mux name=m ! filesink location={TMP}/clip.mp4 "
                "audiotestsrc num-buffers={AN} ! audio/x-raw,rate=48000,channels=2 ! "
                "avenc_aac ! aacparse ! m.",
}

VRAW = "video/x-raw,format=I420,width={W},height={H},framerate={FPS}/1"
VSRC = "videotestsrc num-buffers={N} ! " + VRAW
LSRC = "videotestsrc is-live=true num-buffers={N} ! " + VRAW
BIG = "video/x-raw,format=I420,width={W3},height={H3}"


def scale_alone(method):
    return (VSRC + f" ! videoscale method={method} ! " + BIG + " ! fakesink", VSRC + " ! fakesink")


def jpeg_alone(quality):
    return ("videotestsrc num-buffers={N} ! " + BIG + f" ! jpegenc quality={quality} ! fakesink",
            "videotestsrc num-buffers={N} ! " + BIG + " ! fakesink")


ZOO = [
    dict(name="x264-default", core=True, needs=["x264enc", "avdec_h264", "h264parse"],
         launch=VSRC + " ! x264enc ! h264parse ! avdec_h264 ! fakesink",
         through=["x264enc0", "h264parse0", "avdec_h264-0"], workers=True, media=["clip.mp4"],
         # no cpu: check against the stage alone: x264's own threads use
         # 20-30 % more CPU here than alone, by the OS's own count; its
         # workers against the harness's in the same run instead, the
         # stage alone beside them
         workers_of=["x264enc0"],
         verdict={"x264enc0": (VSRC + " ! x264enc ! fakesink", VSRC + " ! fakesink"),
                  "avdec_h264-0": ("filesrc location={TMP}/clip.mp4 ! qtdemux ! h264parse ! "
                                   "avdec_h264 ! fakesink", "filesrc location={TMP}/clip.mp4 ! "
                                   "qtdemux ! h264parse ! fakesink")}),
    dict(name="x264-default-live", needs=["x264enc", "avdec_h264"], live=True,
         launch=LSRC + " ! x264enc ! avdec_h264 ! queue ! fakesink sync=true",
         through=["x264enc0", "avdec_h264-0", "queue0"]),
    dict(name="x264-zerolatency-live", needs=["x264enc", "avdec_h264"], live=True,
         launch=LSRC + " ! x264enc tune=zerolatency ! avdec_h264 ! fakesink sync=true",
         through=["x264enc0", "avdec_h264-0"]),
    dict(name="x264-bframes3", needs=["x264enc", "avdec_h264", "h264parse"],
         launch=VSRC + " ! x264enc bframes=3 speed-preset=veryfast ! h264parse ! queue ! "
                "avdec_h264 ! fakesink",
         through=["x264enc0", "h264parse0", "queue0", "avdec_h264-0"]),
    dict(name="x265enc", needs=["x265enc", "h265parse"],
         launch=VSRC + " ! x265enc speed-preset=ultrafast ! h265parse ! fakesink",
         through=["x265enc0", "h265parse0"]),
    dict(name="openh264enc", needs=["openh264enc", "avdec_h264"],
         launch=VSRC + " ! openh264enc ! avdec_h264 ! fakesink",
         through=["openh264enc0", "avdec_h264-0"]),
    dict(name="vp8enc-live", needs=["vp8enc", "vp8dec"], live=True,
         launch=LSRC + " ! vp8enc deadline=1 ! vp8dec ! fakesink sync=true",
         through=["vp8enc0", "vp8dec0"]),
    dict(name="jpeg", needs=["jpegenc", "jpegdec"],
         launch=VSRC + " ! jpegenc ! jpegdec ! fakesink",
         through=["jpegenc0", "jpegdec0"]),
    dict(name="avdec-frame-threads", needs=["avdec_h264", "qtdemux", "h264parse"], media=["clip.mp4"],
         launch="filesrc location={TMP}/clip.mp4 ! qtdemux ! h264parse ! "
                "avdec_h264 max-threads=2 thread-type=frame ! fakesink",
         through=["h264parse0", "avdec_h264-0"], workers=True),
    dict(name="transcode-mkv-aac", needs=["avdec_h264", "avenc_aac", "avdec_aac", "matroskamux"],
         media=["clip.mp4"],
         launch="filesrc location={TMP}/clip.mp4 ! qtdemux name=d d.video_0 ! queue ! h264parse ! "
                "avdec_h264 ! x264enc speed-preset=ultrafast ! h264parse ! matroskamux name=m ! "
                "filesink location={TMP}/out.mkv d.audio_0 ! queue ! aacparse ! avdec_aac ! "
                "audioconvert ! avenc_aac ! m.",
         through=["avdec_h264-0", "x264enc0", "avdec_aac0", "avenc_aac0"]),
    dict(name="mp4mux-aac", needs=["x264enc", "avenc_aac", "mp4mux"],
         launch=VSRC + " ! x264enc speed-preset=ultrafast ! h264parse ! queue ! mp4mux name=m ! "
                "filesink location={TMP}/mux.mp4 audiotestsrc num-buffers={AN} ! "
                "audio/x-raw,rate=48000,channels=2 ! avenc_aac ! queue ! m.",
         through=["x264enc0", "avenc_aac0", "queue0", "queue1"]),
    # A default x264enc (B-frames) into a file: the muxer's PTS are on its
    # own time line (mp4mux's first DTS is 0: every PTS moves by the
    # reorder delay), in a BYTES segment; each frame must still reach the
    # file with its own origin, and the container's headers are no frames.
    dict(name="mp4mux-bframes", needs=["x264enc", "h264parse", "mp4mux"],
         launch=VSRC + " ! x264enc ! h264parse ! queue ! mp4mux ! "
                "filesink location={TMP}/bframes.mp4",
         through=["x264enc0", "mp4mux0"], frames=["mp4mux0", "filesink0"]),
    dict(name="matroskamux-bframes", needs=["x264enc", "h264parse", "matroskamux"],
         launch=VSRC + " ! x264enc ! h264parse ! queue ! matroskamux ! "
                "filesink location={TMP}/bframes.mkv",
         through=["x264enc0", "matroskamux0"], frames=["matroskamux0", "filesink0"]),
    dict(name="decodebin3", needs=["decodebin3", "avdec_h264"], media=["clip.mp4"],
         launch="filesrc location={TMP}/clip.mp4 ! decodebin3 ! video/x-raw ! videoconvert ! "
                "video/x-raw,format=RGB ! fakesink",
         through=["videoconvert0"]),
    dict(name="compositor-3", core=True, needs=["compositor"],
         launch="compositor name=c sink_1::xpos=100 sink_2::ypos=100 ! video/x-raw,width={W},height={H} ! "
                "videoconvert ! fakesink " + " ".join(
                    f"videotestsrc num-buffers={{N}} pattern={p} ! video/x-raw,width=160,height=120,"
                    "framerate={FPS}/1 ! c." for p in ("smpte", "ball", "snow")),
         through=["c", "videoconvert0"]),
    dict(name="audiomixer-live", core=True, needs=["audiomixer"], live=True,
         launch="audiomixer name=m ! fakesink sync=true audiotestsrc is-live=true num-buffers={AN} "
                "samplesperbuffer=1024 ! m. audiotestsrc is-live=true num-buffers={AN} "
                "samplesperbuffer=1024 freq=880 ! m.",
         through=["m"], unmatched=["m"]),
    dict(name="tee-2", core=True, needs=["jpegenc"],
         launch=VSRC + " ! tee name=t t. ! queue ! videoconvert ! video/x-raw,format=RGB ! "
                "fakesink t. ! queue ! jpegenc ! fakesink",
         through=["t", "queue0", "queue1", "videoconvert0", "jpegenc0"]),
    dict(name="rtp-loop-live", needs=["x264enc", "rtph264pay", "rtph264depay", "rtpjitterbuffer",
                                      "avdec_h264", "udpsrc"], live=True, eos_after="SEC",
         launch="videotestsrc is-live=true ! " + VRAW + " ! x264enc tune=zerolatency "
                "speed-preset=ultrafast ! rtph264pay ! udpsink host=127.0.0.1 port={PORT} "
                "async=false sync=false udpsrc port={PORT} caps=\"application/x-rtp,media=video,"
                "clock-rate=90000,encoding-name=H264,payload=96\" ! rtpjitterbuffer latency=50 ! "
                "rtph264depay ! avdec_h264 ! fakesink sync=true",
         through=["x264enc0", "rtph264pay0", "rtpjitterbuffer0", "rtph264depay0", "avdec_h264-0"]),
    dict(name="appsrc-appsink", driver="app", launch="appsrc name=src is-live=false format=time "
         "caps=" + VRAW + " ! videoconvert ! video/x-raw,format=RGB ! queue ! appsink name=sink "
         "sync=false max-buffers=2", through=["videoconvert0", "queue0"]),
    dict(name="videorate", needs=["videorate"],
         launch=VSRC + " ! videorate ! video/x-raw,framerate=20/1 ! videoconvert ! fakesink",
         through=["videorate0", "videoconvert0"], unmatched=["videorate0"]),
    # up: every other frame out repeats one already out, which covers no
    # frame still inside (unmatched, never given another frame's origin)
    dict(name="videorate-up", needs=["videorate"],
         launch=VSRC + " ! videorate ! video/x-raw,framerate=60/1 ! fakesink",
         through=["videorate0"], unmatched=["videorate0"]),
    # A conversion heavy enough (lanczos chroma, 16 bits a channel: 3-4x
    # the source's cost alone) that one stage limits: to RGB it cost what
    # videotestsrc does, and either could be the "busiest" of a tie.
    dict(name="videoconvert-n-threads",
         launch=VSRC + " ! queue ! videoconvert n-threads=2 chroma-resampler=lanczos ! "
         "video/x-raw,format=ARGB64 ! fakesink",
         through=["queue0", "videoconvert0"], cpu=["videoconvert0"],
         # its n-threads run in GLib's shared pool ("pool-python3"), whose
         # threads stageprof does not give to an element (any element's
         # task pool runs there): its self time plus that pool's CPU
         pool=True,
         # timed alone behind its queue too: on a thread of its own, as in
         # the pipeline (1.28's conversion costs 10-20 % more there than
         # on the source's thread, by the OS's count)
         verdict={"videoconvert0": (VSRC + " ! queue ! videoconvert n-threads=2 chroma-resampler=lanczos ! "
                                    "video/x-raw,format=ARGB64 ! fakesink", VSRC + " ! queue ! fakesink")}),
    # Two stages on two threads; then the scaler slowed on purpose (lanczos,
    # and the encoder lightened, so that the margin stays wide on a loaded
    # machine): the verdict must follow the stage that limits, which each
    # stage timed alone says.
    dict(name="stages-encode-bound", needs=["jpegenc"],
         launch=VSRC + " ! queue ! videoscale method=nearest-neighbour ! " + BIG + " ! queue ! "
                "jpegenc quality=100 ! fakesink",
         through=["queue0", "videoscale0", "queue1", "jpegenc0"],
         verdict={"videoscale0": scale_alone("nearest-neighbour"),
                  "jpegenc0": jpeg_alone(100)}),
    dict(name="stages-scale-slowed", needs=["jpegenc"],
         launch=VSRC + " ! queue ! videoscale method=lanczos envelope=5 ! " + BIG + " ! queue ! "
                "jpegenc quality=50 ! fakesink",
         through=["queue0", "videoscale0", "queue1", "jpegenc0"], cpu=["videoscale0"],
         verdict={"videoscale0": scale_alone("lanczos envelope=5"),
                  "jpegenc0": jpeg_alone(50)}),
    dict(name="leaky-queue",
         launch=VSRC + " ! queue leaky=downstream max-size-buffers=2 ! identity sleep-time=20000 ! "
                "fakesink", through=["identity0"], drops="queue0"),
    dict(name="stagebin-replicas", needs=["stagebin"],
         launch=VSRC + " ! stagebin name=sb ops=\"videoconvert ! videoscale\" "
                "replicas=2 ! fakesink", e2e_only=True),
    dict(name="stagesrc-sparse", needs=["stagesrc", "stagesink", "x264enc"],
         setup=VSRC + " ! x264enc speed-preset=ultrafast key-int-max=15 bframes=2 ! h264parse ! "
               "stagesink store={TMP}/store stream=clip",
         launch="stagesrc store={TMP}/store stream=clip indices=1,7,16,30,44 ! videoconvert ! "
                "video/x-raw,format=RGB ! fakesink",
         through=["videoconvert0"]),
]


def fmt(params, s):
    return s.format(**params)


def free_udp_port():
    """A UDP port on loopback that nobody holds now (the kernel's pick)."""
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def params_for(full, tmp):
    p = dict(FULL if full else QUICK)
    p["FULL"] = full
    p["TMP"] = tmp
    p["AN"] = int(p["N"] / p["FPS"] * 48000 / 1024) + 1
    p["PORT"] = free_udp_port()
    p["W3"], p["H3"] = 3 * p["W"], 3 * p["H"]
    return p


# -- one pipeline, in its own process ----------------------------------------
def run_one(spec, params, out_path):
    tmp = params["TMP"]
    summary = os.path.join(tmp, spec["name"] + ".json")
    os.environ["GST_TRACERS"] = f"stageprof(latency=true,summary={summary})"
    from gsttruth import Gst
    Gst.init(None)
    if spec.get("setup"):
        gsttruth.run_to_eos(Gst.parse_launch(fmt(params, spec["setup"])))
    pipeline = Gst.parse_launch(fmt(params, spec["launch"]))
    pipeline.set_name(spec["name"])
    truth = gsttruth.Truth(pipeline)
    eos_after = params[spec["eos_after"]] if spec.get("eos_after") else None
    latency = {}
    if spec.get("driver") == "app":
        drive_app(pipeline, params, Gst)
    else:
        gsttruth.run_to_eos(pipeline, timeout_s=120, eos_after_s=eos_after, latency=latency,
                            on_eos=truth.sample_now)
    truth.finish()
    if truth.errors:
        raise RuntimeError("the harness failed: " + "; ".join(truth.errors[:3]))
    # the summary as written when the pipeline stopped, before the stages
    # timed alone add theirs
    with open(summary) as f:
        s = json.load(f)
    alone = {}
    alone_cpu = {}
    for el, (launch, feed) in spec.get("verdict", {}).items():
        # the stage's own time and CPU: with its input made and dropped,
        # less the same input made and dropped without it
        wall, cpu = gsttruth.time_alone(fmt(params, launch))
        feed_wall, feed_cpu = gsttruth.time_alone(fmt(params, feed))
        alone[el] = wall - feed_wall
        alone_cpu[el] = cpu - feed_cpu
    rows = checks(spec, s, truth, alone, latency, alone_cpu if params.get("FULL") else {})
    rows += frame_checks(spec, s, truth)
    if params.get("FULL"):
        rows += cpu_checks(spec, s, alone_cpu)
    with open(out_path, "w") as f:
        json.dump(rows, f)


def drive_app(pipeline, params, Gst):
    """appsrc fed and appsink drained from Python, as an application does."""
    import threading
    src = pipeline.get_by_name("src")
    sink = pipeline.get_by_name("sink")
    size = params["W"] * params["H"] * 3 // 2
    got = []

    def pull():
        while True:
            sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
            if sample is None:
                return
            got.append(sample.get_buffer().pts)

    pipeline.set_state(Gst.State.PLAYING)
    t = threading.Thread(target=pull)
    t.start()
    dur = Gst.SECOND // params["FPS"]
    for i in range(params["N"]):
        buf = Gst.Buffer.new_wrapped(bytes([i % 256]) * size)
        buf.pts = i * dur
        buf.duration = dur
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    t.join()
    bus = pipeline.get_bus()
    bus.timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if len(got) != params["N"]:
        raise RuntimeError(f"appsink got {len(got)} of {params['N']} buffers")


def within(a, b, rel=0.05, floor=1.0):
    return abs(a - b) <= max(floor, rel * abs(b))


def checks(spec, s, truth, alone, latency, alone_cpu):
    rows = []
    pipe = spec["name"]

    def add(check, ours, true, ok, unit=""):
        rows.append(dict(pipeline=pipe, check=check, stageprof=ours, truth=true, ok=ok,
                         unit=unit, known=spec.get("known", {}).get(check)))

    el_lat = {r["name"]: r for r in s.get("element_latency", []) if r.get("pipeline") == pipe}
    for el in spec.get("through", []):
        tv = truth.through.get(el, [])
        r = el_lat.get(el)
        ours = r["mean_ms"] if r and r.get("count") else None
        true = gsttruth.mean(tv) if tv else None
        ok = ours is not None and true is not None and within(ours, true)
        add("through:" + el, fmt_ms(ours, r and r.get("count"), r and r.get("unmatched")),
            fmt_ms(true, len(tv), truth.unmatched(el)), ok)
    for el in spec.get("unmatched", []):
        # outputs that covered no frame inside: the same count on both
        # sides (within 2 or 2 %), so that neither takes a wrong frame
        r = el_lat.get(el)
        ours = r.get("unmatched", 0) if r else None
        true = truth.unmatched(el)
        add("unmatched:" + el, "-" if ours is None else str(ours), str(true),
            ours is not None and abs(ours - true) <= max(2, 0.02 * true))
    sinks = {r["name"]: r for r in s.get("latency", []) if r.get("pipeline") == pipe}
    for sink, tv in sorted(truth.e2e.items()):
        if "e2e" in spec and sink not in spec["e2e"]:
            continue
        r = sinks.get(sink)
        ours = r["mean_ms"] if r and r.get("frames") else None
        true = gsttruth.mean(tv)
        ok = ours is not None and within(ours, true)
        add("e2e:" + sink, fmt_ms(ours, r and r.get("frames"), r and r.get("unmatched")),
            fmt_ms(true, len(tv), 0), ok)
        late_check(add, sink, r, tv, latency)
    # the rows hold each thread's CPU since it started (the main thread's
    # since the process started): against the whole process's
    listed = sum(r["cpu_s"] for r in s.get("os_threads", []))
    proc = truth.cpu_end
    share = 100.0 * listed / proc if proc > 0 else 100.0
    add("os-threads", f"{listed:.3f} s", f"{proc:.3f} s", 90.0 <= share <= 110.0,
        unit=f"{share:.0f} %")
    rows[-1]["stageprof"] = f"{listed:.3f} s ({share:.0f} %)"
    if spec.get("drops"):
        q = spec["drops"]
        qrow = next((r for r in s.get("queues", []) if r["name"] == q and r.get("pipeline") == pipe),
                    None)
        ours = qrow.get("dropped", 0) if qrow else None
        true = truth.buffers_in[q] - truth.buffers_out[q]
        add("drops:" + q, str(ours), str(true), ours == true and true > 0)
    if spec.get("workers"):
        # whose each thread is, the probes cannot tell; that they are
        # workers (threads that never ran a probe), they can
        ours = sum(r.get("worker_cpu_s", 0.0) for r in s.get("elements", [])
                   if r.get("pipeline") == pipe)
        true = truth.worker_cpu_s()
        add("workers", f"{ours:.3f} s", f"{true:.3f} s",
            abs(ours - true) <= max(0.05, 0.10 * true) and true > 0)
    for el in spec.get("workers_of", []):
        # one element's workers: the harness's are the threads alive when
        # it first pushed its caps (it opened its codec); the stage timed
        # alone, a figure beside them (not the check: the same encode uses
        # more CPU beside a decoder than alone, by the OS's own count)
        mine = [r for r in s.get("elements", []) if r["name"] == el and r.get("pipeline") == pipe]
        ours = sum(r.get("worker_cpu_s", 0.0) for r in mine)
        true = truth.workers_before_caps_s(el)
        beside = ""
        if el in alone_cpu:
            self_s = sum(r["total_s"] for r in mine)
            beside = (f"; self+workers {self_s + ours:.3f} s, the stage alone "
                      f"{alone_cpu[el]:.3f} s")
        add("workers:" + el, f"{ours:.3f} s", "-" if true is None else f"{true:.3f} s{beside}",
            true is not None and true > 0 and abs(ours - true) <= max(0.05, 0.10 * true))
    if alone:
        expect = max(alone, key=alone.get)
        verdict = next((r["verdict"] for r in s.get("pipelines", []) if r["pipeline"] == pipe), "")
        named = first_named(verdict, list(alone) + element_names(s, pipe))
        add("verdict", named or verdict[:40], expect + " (" + ", ".join(
            f"{k} {v:.2f} s" for k, v in alone.items()) + " alone)", named == expect)
        rows[-1]["detail"] = verdict
    return rows


def frame_checks(spec, s, truth):
    """frames:NODE: stageprof's frames and unmatched through an element or
    at a sink against the probes', exactly."""
    rows = []
    pipe = spec["name"]
    el_lat = {r["name"]: r for r in s.get("element_latency", []) if r.get("pipeline") == pipe}
    sinks = {r["name"]: r for r in s.get("latency", []) if r.get("pipeline") == pipe}
    for node in spec.get("frames", []):
        if node in sinks:
            r = sinks[node]
            ours = (r.get("frames", 0), r.get("unmatched", 0))
            # the probes draw no latency from a frame of unknown origin
            # and count none: a sink's unmatched must be 0
            true = (len(truth.e2e.get(node, [])), 0)
        else:
            r = el_lat.get(node, {})
            ours = (r.get("count", 0), r.get("unmatched", 0))
            true = (len(truth.through.get(node, [])), truth.unmatched(node))
        check = "frames:" + node
        rows.append(dict(pipeline=pipe, check=check, stageprof="%d, %d unmatched" % ours,
                         truth="%d, %d unmatched" % true, ok=ours == true and true[0] > 0,
                         unit="", known=spec.get("known", {}).get(check)))
    return rows


def cpu_checks(spec, s, alone_cpu):
    """An element's CPU in the pipeline (its self time on every thread plus
    its workers' CPU) against the process CPU of its stage timed alone on
    the same input; within max(5 ms, 10 %)."""
    rows = []
    pipe = spec["name"]
    for el in spec.get("cpu", []):
        mine = [r for r in s.get("elements", []) if r["name"] == el and r.get("pipeline") == pipe]
        ours = sum(r["total_s"] + r.get("worker_cpu_s", 0.0) for r in mine)
        shown = f"{ours:.3f} s"
        if spec.get("pool"):
            # what stageprof lists as GLib's shared pool's, no element's
            pool = s.get("process", {}).get("shared_pool_cpu_s", 0.0)
            ours += pool
            shown = f"{ours:.3f} s ({pool:.3f} s pool)"
        true = alone_cpu[el]
        check = "cpu:" + el
        rows.append(dict(pipeline=pipe, check=check, stageprof=shown,
                         truth=f"{true:.3f} s alone", ok=abs(ours - true) <= max(0.005, 0.1 * true),
                         unit="", known=spec.get("known", {}).get(check)))
    return rows


def late_check(add, sink, r, tv, latency):
    """Late: a live pipeline's P99 arrival after what its LATENCY query
    answered (the harness asks the pipeline itself). Not drawn where the
    truth is within max(1 ms, 5 %) of the reported latency: too close to
    call on a loaded machine."""
    if not latency.get("live") or not tv:
        return
    v = sorted(tv)
    p99 = v[min(len(v) - 1, int(0.99 * len(v)))]
    late = sum(1 for x in v if x > latency["min_ms"])
    # one late frame in 45 is a P99 of 45 samples: neither side's estimate
    # of it is firm, so late needs 2 % of the frames and 2 of them
    if within(p99, latency["min_ms"]) or 0 < late < max(2, 0.02 * len(v)):
        return
    true = late > 0
    # stageprof says nothing where no frame of known origin arrived
    ours = "-" if r is None or "late" not in r else \
        f"{'yes' if r['late'] else 'no'} ({r.get('reported_min_ms', 0):.1f} ms)"
    add("late:" + sink, ours,
        f"{'yes' if true else 'no'} (P99 {p99:.1f} ms, reported {latency['min_ms']:.1f} ms)",
        ours != "-" and bool(r["late"]) == true)


def element_names(s, pipe):
    return sorted({r["name"] for r in s.get("elements", []) if r.get("pipeline") == pipe},
                  key=len, reverse=True)


def first_named(verdict, names):
    """The element a verdict names first; a thread ('on thread queue0',
    'thread videotestsrc0 works') is named after an element but is not
    the stage."""
    best = None
    for n in names:
        for m in re.finditer(r"(?<![\w/-])" + re.escape(n) + r"(?![\w-])", verdict):
            if verdict[:m.start()].endswith("thread "):
                continue
            if best is None or m.start() < best[0]:
                best = (m.start(), n)
            break
    return best[1] if best else None


def fmt_ms(v, n, unmatched):
    if v is None:
        return "-" if not unmatched else f"- ({unmatched} unmatched)"
    extra = f", {unmatched} unmatched" if unmatched else ""
    return f"{v:.2f} ms ({n}{extra})"


# -- the table -----------------------------------------------------------------
def missing_elements(spec):
    from gi.repository import Gst
    if not Gst.is_initialized():
        os.environ.pop("GST_TRACERS", None)   # no tracer in this process
        Gst.init(None)
    return [e for e in spec.get("needs", []) if Gst.ElementFactory.find(e) is None]


def make_media(names, params):
    for n in names:
        path = os.path.join(params["TMP"], n)
        if os.path.exists(path):
            continue
        r = subprocess.run(["gst-launch-1.0", "-q"] + split_launch(fmt(params, MEDIA[n])),
                           capture_output=True, text=True, timeout=120,
                           env={k: v for k, v in os.environ.items() if k != "GST_TRACERS"})
        if r.returncode != 0:
            raise RuntimeError(f"making {n}: {r.stderr}")


def run_child(spec, params, out):
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", spec["name"],
                        json.dumps(params), out], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip()[-2000:])
    with open(out) as f:
        return json.load(f)


def split_launch(s):
    import shlex
    return shlex.split(s)


# -- GStreamer's own latency tracer on the same pipelines ----------------------
CORE_EL = re.compile(r"element-latency, element-id=\(string\)[^,]*, element=\(string\)([^,]+), "
                     r"src=\(string\)([^,]+), time=\(guint64\)(\d+)")
CORE_E2E = re.compile(r" latency, src-element-id=\(string\)[^,]*, src-element=\(string\)([^,]+), "
                      r"src=\(string\)[^,]+, sink-element-id=\(string\)[^,]*, "
                      r"sink-element=\(string\)([^,]+), sink=\(string\)[^,]+, "
                      r"time=\(guint64\)(\d+)")


def core_one(spec, params, out_path):
    """In a child: the pipeline under GStreamer's latency tracer only, its
    log lines to a file, with the harness's probes: the core tracer's
    figures and the truth of the same run."""
    log = os.path.join(params["TMP"], spec["name"] + ".core.log")
    os.environ.update(GST_TRACERS="latency(flags=pipeline+element)", GST_DEBUG="GST_TRACER:7",
                      GST_DEBUG_FILE=log, GST_DEBUG_NO_COLOR="1")
    from gsttruth import Gst
    Gst.init(None)
    pipeline = Gst.parse_launch(fmt(params, spec["launch"]))
    pipeline.set_name(spec["name"])
    truth = gsttruth.Truth(pipeline)
    gsttruth.run_to_eos(pipeline, timeout_s=120)
    truth.finish()
    el, e2e = {}, {}
    with open(log, errors="replace") as f:
        for line in f:
            m = CORE_EL.search(line)
            if m:
                el.setdefault(m.group(1), []).append(int(m.group(3)) / 1e6)
                continue
            m = CORE_E2E.search(line)
            if m:
                e2e.setdefault(m.group(2), {}).setdefault(m.group(1), []).append(
                    int(m.group(3)) / 1e6)
    with open(out_path, "w") as f:
        json.dump(dict(el=el, e2e=e2e, through={k: v for k, v in truth.through.items()},
                       truth_e2e={k: v for k, v in truth.e2e.items()}), f)


def core_latency(spec, params):
    out = os.path.join(params["TMP"], spec["name"] + ".core.json")
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--core-one", spec["name"],
                            json.dumps(params), out], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        # GStreamer 1.26.2's latency tracer deadlocks in these pipelines (a
        # source's thread waits in gst_object_get_parent() under its hook)
        raise TimeoutError("hung: no EOS in 60 s under the core tracer") from None
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip()[-300:])
    with open(out) as f:
        return json.load(f)


def ms_n(v):
    return f"{gsttruth.mean(v):.2f} ms ({len(v)})" if v else "nothing logged"


def core_table(rows, params, only):
    """GStreamer's latency tracer against the probes of its own run (it
    costs tens of times stageprof's, and a queue's dwell differs from run
    to run), beside stageprof against the probes of the zoo's run."""
    out = [("pipeline", "figure", "core tracer", "its probes", "stageprof", "zoo's probes")]
    hung = None
    for spec in ZOO:
        if not spec.get("core") or (only and spec["name"] not in only) or missing_elements(spec):
            continue
        if hung:
            out.append((spec["name"], "run", "not run: the core tracer hung on " + hung, "", "", ""))
            continue
        try:
            c = core_latency(spec, params)
        except Exception as e:  # noqa: BLE001
            out.append((spec["name"], "run", str(e)[-80:], "", "", ""))
            if isinstance(e, TimeoutError):
                hung = spec["name"]
            continue
        mine = {r["check"].replace(" (rerun)", ""): r for r in rows if r["pipeline"] == spec["name"]}
        for name in spec.get("through", []):
            r = mine.get("through:" + name, {})
            out.append((spec["name"], "through " + name, ms_n(c["el"].get(name)),
                        ms_n(c["through"].get(name)), r.get("stageprof", "-"), r.get("truth", "-")))
        for sink, tv in sorted(c["truth_e2e"].items()):
            r = mine.get("e2e:" + sink, {})
            core = "; ".join(f"{ms_n(v)} from {src}" for src, v in
                             sorted(c["e2e"].get(sink, {}).items())) or "nothing logged"
            out.append((spec["name"], "end to end " + sink, core, ms_n(tv),
                        r.get("stageprof", "-"), r.get("truth", "-")))
    if len(out) == 1:
        return
    print("\nGStreamer's latency tracer (latency(flags=pipeline+element)) against the probes "
          "of its own run, beside stageprof against the zoo's run's:")
    widths = [max(len(c[i]) for c in out) for i in range(len(out[0]))]
    for c in out:
        print("  ".join(x.ljust(w) for x, w in zip(c, widths)).rstrip())


def main(argv):
    full = "--full" in argv
    strict = "--strict" in argv
    only = None
    for i, a in enumerate(argv):
        if a == "--only":
            only = set(argv[i + 1].split(","))
        if a == "--core-one":
            spec = next(z for z in ZOO if z["name"] == argv[i + 1])
            core_one(spec, json.loads(argv[i + 2]), argv[i + 3])
            return 0
        if a == "--one":
            spec = next(z for z in ZOO if z["name"] == argv[i + 1])
            params = json.loads(argv[i + 2])
            run_one(spec, params, argv[i + 3])
            return 0
    if "--list" in argv:
        print("\n".join(z["name"] for z in ZOO))
        return 0
    tmp = tempfile.mkdtemp(prefix="stageprof-zoo-")
    params = params_for(full, tmp)
    rows = []
    failed = 0
    t0 = time.monotonic()
    for spec in ZOO:
        if only and spec["name"] not in only:
            continue
        miss = missing_elements(spec)
        if miss:
            print(f"SKIP {spec['name']}: this GStreamer has no {', '.join(miss)}", flush=True)
            continue
        out = os.path.join(tmp, spec["name"] + ".result.json")
        try:
            make_media(spec.get("media", []), params)
            t1 = time.monotonic()
            res = run_child(spec, params, out)
            if any(not r["ok"] and not r.get("known") for r in res):
                # the machines are shared: a pipeline that failed runs
                # once more and says so; its second result counts
                bad = [f"{r['check']} ({r['stageprof']} against {r['truth']})" for r in res
                       if not r["ok"] and not r.get("known")]
                print(f"# {spec['name']}: failed {'; '.join(bad)}; running it again", flush=True)
                res = run_child(spec, params, out)
                for r in res:
                    r["check"] += " (rerun)"
            print(f"# {spec['name']}: {time.monotonic() - t1:.1f} s", flush=True)
        except Exception as e:  # noqa: BLE001 (a pipeline that fails is a failed check)
            res = [dict(pipeline=spec["name"], check="run", stageprof="-", truth=str(e)[-300:],
                        ok=False, known=None)]
        rows += res
    print_table(rows)
    if full or "--core" in argv:
        core_table(rows, params, only)
    for r in rows:
        if not r["ok"] and (strict or not r.get("known")):
            failed += 1
    for r in rows:
        if not r["ok"] and r.get("detail"):
            print(f"  {r['pipeline']} {r['check']}: stageprof said '{r['detail']}'")
    known = [r for r in rows if not r["ok"] and r.get("known")]
    if known:
        print("\nKnown stageprof failures (not counted without --strict):")
        for r in known:
            print(f"  {r['pipeline']} {r['check']}: {r['known']}")
    passed_known = [r for r in rows if r["ok"] and r.get("known")]
    for r in passed_known:
        print(f"  note: {r['pipeline']} {r['check']} passed although listed as known")
    print(f"\n{len(rows)} checks, {sum(r['ok'] for r in rows)} ok, {len(known)} known failures, "
          f"{failed} failed, {time.monotonic() - t0:.0f} s")
    if failed == 0:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"files kept in {tmp}")
    return 1 if failed else 0


def print_table(rows):
    head = ("pipeline", "check", "stageprof", "truth", "ok")
    cells = [head] + [(r["pipeline"], r["check"], str(r["stageprof"]), str(r["truth"]),
                       "ok" if r["ok"] else ("KNOWN" if r.get("known") else "FAIL"))
                      for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    for c in cells:
        print("  ".join(x.ljust(w) for x, w in zip(c, widths)).rstrip())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
