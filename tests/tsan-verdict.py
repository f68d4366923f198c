#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Sorts the ThreadSanitizer reports of `scripts/test.sh --sanitize=thread`.

GLib and GStreamer are not built with TSan: their atomics, bit locks and
internal queues are invisible, so TSan reports races and lock cycles
entirely inside them. A report that has no frame in our sources (gst/,
tracer/, ops/) is such a report: counted, listed, not a failure. A report
with a frame in our sources fails the suite it came from (tests/tsan.supp
holds the few GLib/GStreamer internals that reach our frames).

Usage: tsan-verdict.py REPORT_DIR SOURCE_ROOT
Prints one line per suite and ends with "N passed, N failed"."""
import collections
import glob
import os
import re
import sys

report_dir, root = sys.argv[1], os.path.realpath(sys.argv[2])
ours_re = re.compile(r"\s#\d+ \S+ (\S+?):\d+")
context_re = re.compile(r"\n  (?:Mutex M\d+ .*created at|Thread T\d+ .*created by"
                        r" .* at|Location is .*):\n(?:    #.*\n)*")
# The stacks of the two accesses of a data race: "Write of size 8 at ... by
# thread T1:" and "Previous read of size 8 at ... by main thread:".
access_re = re.compile(r"^  (?:Previous )?(?:[Aa]tomic )?(?:[Rr]ead|[Ww]rite) of "
                       r"size \d+ at .*:\n((?:    #.*\n)*)", re.M)
allocator = ("free", "realloc", "cfree", "__libc_free")


def ours(stack):
    for m in ours_re.finditer(stack):
        f = os.path.realpath(m.group(1))
        if f.startswith(root) and "/tests/" not in f \
                and os.path.relpath(f, root).split("/")[0] in ("gst", "tracer", "ops"):
            return True
    return False


def reused_block(rep):
    """A free() called from our code (a GError made and freed on one
    thread) "racing" with an earlier access to the same address by code
    that is not ours (the block was another's before malloc handed it out
    again): GLib's and libcheck's own allocations are not instrumented, so
    TSan cannot see that the earlier owner let go of it. Not a race of
    ours."""
    stacks = access_re.findall(rep)
    if len(stacks) != 2:
        return False
    cur, prev = stacks
    top = re.match(r"\s*#0 (\S+)", cur)
    return bool(top) and top.group(1) in allocator and not ours(prev)


def quark_block(rep):
    """GLib's interned strings (g_intern_string, g_quark_from_string) live
    in blocks of 4088 bytes (QUARK_STRING_BLOCK_SIZE), written under GLib's
    own quark lock, which TSan cannot see: our code interning a name (which
    may allocate the block) and GStreamer interning another on its thread
    look like a race on that block. Only when both racing instructions are
    GLib's own (a libc copy or allocation called from libglib), whoever
    called into GLib."""
    if "Location is heap block of size 4088 " not in rep:
        return False
    stacks = access_re.findall(context_re.sub("", rep))

    def in_glib(stack):
        frames = stack.split("\n")
        return len(frames) > 1 and "libglib-2.0" in frames[1]
    return len(stacks) == 2 and all(in_glib(st) for st in stacks)


suites = collections.OrderedDict()
for path in sorted(glob.glob(os.path.join(report_dir, "*"))):
    suite = os.path.basename(path).split(".")[0]
    text = open(path, errors="replace").read()
    s = suites.setdefault(suite, {"ours": [], "internal": 0})
    for rep in text.split("==================\nWARNING: ThreadSanitizer:")[1:]:
        kind = rep.split("\n", 1)[0].split("(")[0].strip()
        # Where a mutex or a thread was created, or the block allocated, is
        # context, not an access: our test or element creating a GMutex that
        # GLib then races on does not make the race ours.
        quark = quark_block(rep)
        rep = context_re.sub("", rep)
        if quark or reused_block(rep):
            s["internal"] += 1
            continue
        files = set()
        for m in ours_re.finditer(rep):
            f = os.path.realpath(m.group(1))
            if f.startswith(root) and "/tests/" not in f:
                files.add(os.path.relpath(f, root))
        if any(f.split("/")[0] in ("gst", "tracer", "ops") for f in files):
            top = next((m.group(0).strip() for m in ours_re.finditer(rep)
                        if "/gst/" in m.group(1) or "/tracer/" in m.group(1)
                        or "/ops/" in m.group(1)), "")
            s["ours"].append(f"{kind}: {top}")
        else:
            s["internal"] += 1
passed = failed = 0
for suite, s in suites.items():
    if s["ours"]:
        failed += 1
        print(f"TSan {suite}: FAIL, {len(s['ours'])} report(s) in our code, "
              f"{s['internal']} inside GLib/GStreamer")
        for line, n in collections.Counter(s["ours"]).most_common(10):
            print(f"    {n} x {line}")
    else:
        passed += 1
        print(f"TSan {suite}: ok, {s['internal']} report(s) inside GLib/GStreamer only")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
