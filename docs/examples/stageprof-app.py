#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""stageprof from a Python (PyGObject) application.

Run:  GST_PLUGIN_PATH=/path/to/build/tracer python3 stageprof-app.py [PIPELINE [TRACE.json]]

The tracer is created by Gst.init() from GST_TRACERS, so the variable is set
before it. The application finds the tracer among the active ones and drives
it with properties and action signals: `trace` starts a Chrome trace,
`get-summary` returns the figures as a Gst.Structure, `write-trace` writes a
copy of the trace so far, `reset` starts over.
"""
import os
import sys

# Keep the user's own GST_TRACERS if there is one; the tables printed at
# pipeline stop are off here because we print our own.
os.environ.setdefault("GST_TRACERS", "stageprof(summary=none)")

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

DEFAULT_PIPELINE = (
    "videotestsrc num-buffers=100 ! video/x-raw,format=I420,width=1280,height=720 ! "
    "queue ! videoconvert name=work ! video/x-raw,format=RGB ! "
    "videoscale ! video/x-raw,width=640,height=360 ! fakesink sync=false"
)


def find_stageprof():
    for tracer in Gst.tracing_get_active_tracers():
        if type(tracer).__gtype__.name == "GstStageProf":
            return tracer
    return None


def run(pipeline):
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    msg = bus.timed_pop_filtered(Gst.CLOCK_TIME_NONE,
                                 Gst.MessageType.EOS | Gst.MessageType.ERROR)
    if msg.type == Gst.MessageType.ERROR:
        err, _ = msg.parse_error()
        print("pipeline error:", err.message, file=sys.stderr)
        return False
    return True


def rows(summary, table):
    """The rows of one table of the summary (a Gst.ValueArray of Gst.Structure)."""
    value = summary.get_value(table)
    return list(value) if value is not None else []


def print_summary(summary):
    print("%-20s %-20s %8s %10s %10s" % ("element", "thread", "count", "median ms", "total s"))
    for e in rows(summary, "elements"):
        print("%-20s %-20s %8d %10.3f %10.3f" % (
            e.get_string("name"), e.get_string("thread"),
            e.get_uint64("count")[1], e.get_double("median_ms")[1],
            e.get_double("total_s")[1]))
    print("verdict:", summary.get_string("verdict"))


def main():
    desc = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_PIPELINE
    trace = sys.argv[2] if len(sys.argv) > 2 else None
    Gst.init(None)

    prof = find_stageprof()
    if prof is None:
        print("stageprof is not active: is its plugin in GST_PLUGIN_PATH "
              "and 'stageprof' in GST_TRACERS?", file=sys.stderr)
        return 2
    pipeline = Gst.parse_launch(desc)
    if trace:
        prof.set_property("trace", trace)

    try:
        ok = run(pipeline)
        summary = prof.emit("get-summary")
        print_summary(summary)
    finally:
        pipeline.set_state(Gst.State.NULL)

    if trace:
        copy = trace + ".copy.json"
        written = prof.emit("write-trace", copy)
        print("trace copy %s: %s" % (copy, "written" if written else "FAILED"))
        ok = ok and written

    prof.emit("reset")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
