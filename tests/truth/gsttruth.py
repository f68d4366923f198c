# SPDX-License-Identifier: LGPL-2.1-or-later
"""An independent truth for stageprof's figures, on any pipeline.

Shares no code with the tracer: it watches a pipeline from the outside with
pad probes and /proc, in the same process, so that what stageprof reports
can be held against it (tests/truth/zoo.py, bench/zoo.sh; docs/tracer.md,
"Checking stageprof on your own pipeline").

    from gsttruth import Truth
    truth = Truth(pipeline)          # before the pipeline leaves NULL
    ... run it to EOS, set it to NULL ...
    truth.finish()
    truth.through["x264enc0"]        # ms from entering to leaving, per frame
    truth.e2e["fakesink0"]           # ms from a frame's origin to the sink
    truth.buffers_in["queue0"], truth.buffers_out["queue0"]
    truth.process_cpu_s(), truth.worker_cpu_s()
    truth.workers_before_caps_s("x264enc0")   # workers alive at its caps

What is recorded: a buffer probe on every real pad of every element (ghost
and proxy pads are left out: the pads inside see the same buffers), also on
elements and pads added later (decodebin). Each probe notes the time
(CLOCK_MONOTONIC, time.monotonic_ns()), the thread, the buffer's running
time (its PTS through the segment sticky on that pad, plus the pad's
offset) and, for RTP packets, the sequence number. A list is recorded
buffer by buffer.

How frames are followed (the matching rule):

- A buffer leaving an element takes the earliest buffer still inside the
  element that entered it with the same key: the RTP sequence number when
  both are RTP packets (a jitter buffer re-stamps its output), else the
  running time; where no running time is equal, the earliest whose span
  (running time to running time plus duration; a buffer with no duration
  is its running time) overlaps the output's span: the first input whose
  data an output cut on the element's own grid carries (videorate, an
  audio mixer, an encoder that re-chunks audio). Its time through is
  leaving minus entering. Each entry is
  taken at most once: a tee's second branch, a payloader's second packet of
  a frame or an encoder's output for a frame already out take no sample,
  they carry the origin of the entry that matched first.
- An element whose input had no timestamps at all (a parser of a file's
  bytes) gives its outputs the oldest entry instead; an element with
  timestamped input and an output that matches nothing (a frame videorate
  repeats, whose input was taken already) counts the output as unmatched,
  and that frame's origin is unknown downstream.
- A buffer leaving an element on a pad whose segment is not in time (a
  muxer's file: mp4mux puts its PTS on its own time line, shifted by the
  B-frames' delay) is followed by its bytes, never its PTS: it takes the
  earliest entry still inside with the same size and CRC-32 of its
  content (a muxer's sink pads, told by its factory's klass, and every
  pad in a segment not in time note them). One that matches none, from
  an element whose input was in time (frames), is the container's own
  bytes (a header, the moov): no frame, not unmatched, and no sink draws
  a latency from it.
- A buffer entering a sink pad is the frame that the same thread last sent
  from a source pad (a push runs the peer's chain on the pushing thread),
  even where a probe in between replaced the buffer or its timestamps. It
  arrived when that push's probe saw it leave: the chain runs right after
  on the same thread, and the sink pad's own probe may first have waited
  for Python's lock (a queue feeding mp4mux read 4 % short that way).
- A frame's origin is where it was first pushed (a source's push, or a
  demuxer's that pulls from a file). From a live source (is-live) it is its
  capture: the running time plus the pipeline's base time, on the
  pipeline's clock, which is CLOCK_MONOTONIC for GStreamer's system clock.
  End to end is the arrival at a sink element's pad minus the origin.

CPU: /proc/self/task/TID/schedstat (ns on a CPU) for each thread, sampled
every 100 ms by a thread of ours, at EOS and at finish() (a thread that
ends between two readings keeps its last one); the process from /proc/self/stat
(getrusage(RUSAGE_SELF), which keeps the threads that ended). Threads seen in a probe
are streaming threads; threads born after the Truth was made that never ran
a probe (and are not ours) are workers: a codec's own threads. Whose,
the harness tells only by birth: the threads alive when an element first
pushed its output caps are its and its upstream's (an encoder starts its
threads as it opens, before it tells its caps; the decoder after it opens
on them).

Stage timed alone: time_alone(launch) runs a pipeline to EOS in this
process and returns its wall time and CPU; the zoo runs each candidate
stage alone to say which one limits a pipeline.
"""
import collections
import itertools
import os
import resource
import threading
import time
import zlib

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402


def process_cpu_s():
    """User and system CPU of the whole process, threads that ended
    included: getrusage(), in microseconds (/proc/self/stat counts the same
    in clock ticks of 10 ms, too coarse for a run of a second)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def thread_cpu():
    """{tid: (kernel name, seconds on a CPU)} for every live thread."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
        except (OSError, ValueError, IndexError):
            continue
        out[int(tid)] = (name, ns / 1e9)
    return out


def element_path(element):
    """The element's path below its top-level pipeline, as stageprof names
    it (uridecodebin0/decodebin0/avdec_h264-0)."""
    parts = []
    e = element
    while e is not None and e.get_parent() is not None:
        parts.append(e.get_name())
        e = e.get_parent()
    return "/".join(reversed(parts))


def _running_time(seg, offset, pts):
    """pts through the segment the pad had then, plus the pad's offset;
    None without a PTS or outside the segment."""
    if pts == Gst.CLOCK_TIME_NONE:
        return None
    rt = pts
    if seg is not None and seg.format == Gst.Format.TIME:
        rt = seg.to_running_time(Gst.Format.TIME, pts)
        if rt == Gst.CLOCK_TIME_NONE or rt < 0:
            return None
    rt += offset
    return rt if rt >= 0 else None


class _Elem:
    def __init__(self, path, element):
        self.path = path
        self.element = element
        self.sink = bool(element.flags & Gst.ElementFlags.SINK)
        self.live = False
        if element.flags & Gst.ElementFlags.SOURCE:
            prop = element.find_property("is-live")
            if prop is not None:
                self.live = element.get_property("is-live")
        self.pending = []          # [rt, seq, t, origin, taken, duration]
        self.taken = {}            # rt or ("seq", n) -> origin
        self.timed_input = False
        self.had_input = False
        self.frames_in = False     # an input in a time segment
        self.by_digest = {}        # (size, crc32) -> deque of pending entries
        self.n_in = 0
        self.n_out = 0
        self.unmatched = 0
        self.last_origin = None


class Truth:
    def __init__(self, pipeline):
        self.pipeline = pipeline
        # (n, t, tid, is_src, element, path, pad, segment, pts, duration,
        # RTP sequence number)
        self.records = []
        self.elems = {}
        self.streaming = set()
        self.cpu_start = process_cpu_s()
        self.threads_before = set(thread_cpu())
        self.samples = {}          # tid -> (name, cpu_s), last reading
        self.sampler_tid = None
        self._stop = threading.Event()
        self.errors = []           # what went wrong in a probe
        self._seq = itertools.count()
        self._paths = {}           # element -> its path
        self._segment = {}         # pad -> its last segment
        self._rtp = {}             # pad -> its caps are RTP
        self._digest = {}          # record n -> (size, crc32) of its bytes
        self._muxer_in = set()     # a muxer's sink pads: their bytes noted
        self._watched = set()
        self._caps_out = {}        # element -> tids alive at its first output caps
        pipeline.connect("deep-element-added", self._on_added)
        it = pipeline.iterate_recurse()
        while True:
            res, e = it.next()
            if res == Gst.IteratorResult.OK:
                self._watch(e)
            elif res == Gst.IteratorResult.RESYNC:
                it.resync()
            else:
                break
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    # -- recording --------------------------------------------------------
    def _on_added(self, _bin, _sub, element):
        self._watch(element)

    def _watch(self, element):
        if isinstance(element, Gst.Bin) or element in self._watched:
            return
        self._watched.add(element)
        element.connect("pad-added", lambda e, p: self._probe(e, p))
        for pad in list(element.pads):
            self._probe(element, pad)

    def _probe(self, element, pad):
        if isinstance(pad, Gst.ProxyPad):
            return
        is_src = pad.get_direction() == Gst.PadDirection.SRC
        factory = element.get_factory()
        if not is_src and factory is not None and \
                "Muxer" in (factory.get_metadata("klass") or ""):
            self._muxer_in.add(pad)
        # pushes only: a pull (a demuxer reading its file) carries bytes,
        # not frames, and the puller is where a frame starts
        pad.add_probe(Gst.PadProbeType.BUFFER | Gst.PadProbeType.BUFFER_LIST |
                      Gst.PadProbeType.PUSH, self._on_buffer, element, is_src)
        # the segment and caps as they pass, so that a buffer's probe only
        # notes the time: every probe holds Python's lock, and a thread
        # waiting for it is time the harness does not see
        pad.add_probe(Gst.PadProbeType.EVENT_DOWNSTREAM, self._on_event, element)

    def _on_event(self, pad, info, element):
        # a probe that raises returns 0 to GStreamer, which is DROP: the
        # harness must never take an event from the pipeline
        try:
            ev = info.get_event()
            if ev.type == Gst.EventType.SEGMENT:
                self._segment[pad] = ev.parse_segment().copy()
            elif ev.type == Gst.EventType.CAPS:
                # by its text: GStreamer 1.26's Python overrides wrap a
                # caps' structure (no get_name() on it)
                self._rtp[pad] = ev.parse_caps().to_string().startswith(
                    "application/x-rtp")
                if pad.get_direction() == Gst.PadDirection.SRC and \
                        element not in self._caps_out:
                    # the threads alive when the element first told its
                    # output caps: an encoder has opened its codec, and
                    # the decoder after it has not yet
                    self._caps_out[element] = {int(t) for t in os.listdir("/proc/self/task")}
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"event probe on {pad.get_name()}: {e!r}")
        return Gst.PadProbeReturn.OK

    def _on_buffer(self, pad, info, element, is_src):
        t = time.monotonic_ns()
        try:
            self._note(pad, info, element, is_src, t)
        except Exception as e:  # noqa: BLE001 (never DROP, see _on_event)
            self.errors.append(f"buffer probe on {pad.get_name()}: {e!r}")
        return Gst.PadProbeReturn.OK

    def _note(self, pad, info, element, is_src, t):
        tid = threading.get_native_id()
        if info.type & Gst.PadProbeType.BUFFER_LIST:
            lst = info.get_buffer_list()
            bufs = [lst.get(i) for i in range(lst.length())]
        else:
            bufs = [info.get_buffer()]
        seg = self._segment.get(pad)
        rtp = self._rtp.get(pad, False)
        path = self._paths.get(element)
        if path is None:           # once per element, while it is in its bin
            path = self._paths[element] = element_path(element)
        for buf in bufs:
            seq = None
            if rtp:
                head = buf.extract_dup(0, 4)
                if len(head) == 4 and head[0] >> 6 == 2:
                    seq = (head[2] << 8) | head[3]
            # next() of a count and list.append are atomic under the GIL
            n = next(self._seq)
            if pad in self._muxer_in or (seg is not None and seg.format != Gst.Format.TIME):
                size = buf.get_size()
                self._digest[n] = (size, zlib.crc32(buf.extract_dup(0, size)))
            self.records.append((n, t, tid, is_src, element, path,
                                 pad, seg, buf.pts, buf.duration, seq))
        self.streaming.add(tid)

    def _sample(self):
        # every 100 ms: each look holds Python's lock that the probes need;
        # the codecs' threads that end at the pipeline's stop are read at
        # EOS (sample_now, run_to_eos's on_eos) and at finish()
        self.sampler_tid = threading.get_native_id()
        while not self._stop.wait(0.1):
            self.sample_now()

    def sample_now(self):
        """Read every thread's CPU now (threads that end later keep it)."""
        self.samples.update(thread_cpu())

    # -- after the run ----------------------------------------------------
    def finish(self):
        """Stop sampling and follow every frame; call after the pipeline
        went to NULL."""
        self._stop.set()
        self._sampler.join()
        self.samples.update(thread_cpu())
        self.cpu_end = process_cpu_s()
        self.through = collections.defaultdict(list)
        self.e2e = collections.defaultdict(list)
        self.buffers_in = collections.Counter()
        self.buffers_out = collections.Counter()
        clock = self.pipeline.get_clock()
        base = self.pipeline.get_base_time()
        monotonic = (isinstance(clock, Gst.SystemClock) and
                     clock.get_property("clock-type") == Gst.ClockType.MONOTONIC)
        last_out = {}              # tid -> (origin, time) of its last push
        for n, t, tid, is_src, element, path, pad, seg, pts, dur, seq in sorted(
                self.records, key=lambda r: r[0]):
            if path not in self.elems:
                self.elems[path] = _Elem(path, element)
            el = self.elems[path]
            rt = _running_time(seg, pad.get_offset(), pts)
            dur = dur if dur != Gst.CLOCK_TIME_NONE else 0
            if is_src:
                el.n_out += 1
                self.buffers_out[path] += 1
                if n in self._digest:
                    origin = self._leave_bytes(el, t, self._digest[n],
                                               base if monotonic else None)
                else:
                    origin = self._leave(el, t, rt, dur, seq,
                                         base if monotonic else None)
                last_out[tid] = (origin, t)
                continue
            el.n_in += 1
            self.buffers_in[path] += 1
            # a probe may have replaced the buffer (made it writable,
            # restamped it): the thread's last push is still this frame
            origin, t_sent = last_out.pop(tid, (None, None))
            if t_sent is not None:
                # it arrived when its push left the pad upstream: this
                # pad's own probe may have waited for Python's lock first
                t = t_sent
            el.had_input = True
            el.frames_in |= seg is not None and seg.format == Gst.Format.TIME
            if el.sink:
                if origin is not None:
                    self.e2e[path].append((t - origin) / 1e6)
                continue
            el.timed_input |= rt is not None
            el.pending.append([rt, seq, t, origin, False, dur])
            if n in self._digest:
                el.by_digest.setdefault(self._digest[n], collections.deque()).append(
                    el.pending[-1])
        return self

    def _leave_bytes(self, el, t, digest, base):
        """A buffer out in a segment not in time: the earliest entry still
        inside with the same bytes; None for the container's own bytes."""
        q = el.by_digest.get(digest)
        while q:
            entry = q.popleft()
            if not entry[4]:
                entry[4] = True
                self.through[el.path].append((t - entry[2]) / 1e6)
                el.last_origin = entry[3]
                return entry[3]
        if el.had_input and el.frames_in:
            return None
        # a source of bytes, or bytes in and out (a decompressor): the
        # usual rule, without the PTS
        return self._leave(el, t, None, None, None, base)

    def _leave(self, el, t, rt, dur, seq, base):
        if not el.had_input:
            if el.live and base is not None and rt is not None:
                return base + rt
            return t
        entry = None
        key = None
        if seq is not None:
            entry = next((e for e in el.pending if not e[4] and e[1] == seq), None)
            key = ("seq", seq)
        if entry is None and rt is not None:
            entry = next((e for e in el.pending if not e[4] and e[0] == rt), None)
            key = rt
        if entry is None and rt is not None:
            end = rt + max(dur, 1)
            entry = next((e for e in el.pending if not e[4] and e[0] is not None
                          and e[0] < end and rt < e[0] + max(e[5], 1)), None)
        if entry is None and not el.timed_input:
            entry = next((e for e in el.pending if not e[4]), None)
        if entry is not None:
            entry[4] = True
            el.pending = [e for e in el.pending if not e[4]] \
                if len(el.pending) > 256 else el.pending
            self.through[el.path].append((t - entry[2]) / 1e6)
            if key is not None:
                el.taken[key] = entry[3]
            el.last_origin = entry[3]
            return entry[3]
        if seq is not None and ("seq", seq) in el.taken:
            return el.taken[("seq", seq)]
        if rt is not None and rt in el.taken:
            return el.taken[rt]
        if rt is None or not el.timed_input:
            return el.last_origin
        el.unmatched += 1
        return None

    def unmatched(self, path):
        return self.elems[path].unmatched if path in self.elems else 0

    def process_cpu_s(self):
        """The process's CPU from this Truth's creation to finish()."""
        return self.cpu_end - self.cpu_start

    def worker_threads(self):
        """{tid: (name, cpu_s)}: threads born after the Truth was made that
        never ran a probe (and are not the sampler)."""
        return {tid: v for tid, v in self.samples.items()
                if tid not in self.threads_before and tid not in self.streaming
                and tid != self.sampler_tid}

    def worker_cpu_s(self):
        return sum(cpu for _name, cpu in self.worker_threads().values())

    def workers_before_caps_s(self, path):
        """CPU of the workers already alive when the element at `path`
        first pushed its output caps (an encoder opens its codec, and
        starts its threads, before it tells its caps; a decoder after it
        opens on those caps): that element's and those of elements
        upstream of it. None if it pushed no caps."""
        tids = next((v for e, v in self._caps_out.items()
                     if self._paths.get(e, element_path(e)) == path), None)
        if tids is None:
            return None
        return sum(cpu for tid, (_name, cpu) in self.worker_threads().items()
                   if tid in tids)


def median(values):
    v = sorted(values)
    if not v:
        return float("nan")
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def run_to_eos(pipeline, timeout_s=60, eos_after_s=None, latency=None, on_eos=None):
    """Play `pipeline` until EOS (or, with eos_after_s, send it EOS after
    that long: live network sources never end by themselves). Raises on an
    error message or a timeout. With a dict as `latency`, fills it with
    what the pipeline's own LATENCY query answers at EOS: live, min_ms.
    on_eos() is called at EOS, before the pipeline stops (Truth.sample_now:
    a codec's threads end when it stops)."""
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    start = time.monotonic()
    sent = False
    try:
        while True:
            if eos_after_s is not None and not sent and \
                    time.monotonic() - start > eos_after_s:
                pipeline.send_event(Gst.Event.new_eos())
                sent = True
            msg = bus.timed_pop_filtered(
                50 * Gst.MSECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
            if msg is None:
                if time.monotonic() - start > timeout_s:
                    raise TimeoutError(f"no EOS after {timeout_s} s")
                continue
            if msg.type == Gst.MessageType.ERROR:
                err, dbg = msg.parse_error()
                raise RuntimeError(f"{err.message} ({dbg})")
            if on_eos is not None:
                on_eos()
            if latency is not None:
                q = Gst.Query.new_latency()
                if pipeline.query(q):
                    live, lmin, _lmax = q.parse_latency()
                    latency.update(live=live, min_ms=lmin / 1e6)
            return time.monotonic() - start
    finally:
        pipeline.set_state(Gst.State.NULL)


def time_alone(launch, timeout_s=60):
    """A stage timed alone: run `launch` to EOS; (wall s, process CPU s)."""
    p = Gst.parse_launch(launch)
    cpu = process_cpu_s()
    t0 = time.monotonic()
    run_to_eos(p, timeout_s)
    return time.monotonic() - t0, process_cpu_s() - cpu


__all__ = ["Truth", "element_path", "median", "mean", "process_cpu_s",
           "thread_cpu", "run_to_eos", "time_alone", "GLib"]
