#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs every gst-launch-1.0 example in README.md and docs/*.md that needs no
outside input (it starts from videotestsrc, or from a store that an example
before it wrote), so the docs stay true.

Display sinks become fakesink; an example that fails, hangs or posts an error
fails the test. Also checks that gst-inspect-1.0 documents every element."""
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

src = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
ELEMENTS = ["stageresize", "stagestride", "stagerange", "stagegather", "stagebin",
            "stagerepeat", "stagerepeatnull", "stageslice", "stageunslice",
            "stagesink", "stagesrc"]


def examples(path):
    text = open(path, encoding="utf-8").read()
    # every fence pairs with the next one, whatever its language, so that a
    # ```text block does not shift the pairing; only shell blocks run
    for lang, block in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        if lang not in ("", "sh", "bash", "shell"):
            continue
        yield from launch_lines(block)


def man_examples(path):
    """The examples of a troff man page (tools/*/*.1), where a shell
    backslash is written \\."""
    text = open(path, encoding="utf-8").read()
    for block in re.findall(r"^\.nf\n(.*?)^\.fi", text, re.S | re.M):
        yield from launch_lines(block.replace("\\\\", "\\"))


def launch_lines(block):
    """(GST_TRACERS value or None, gst-launch-1.0 command) of each line of a
    shell text that runs gst-launch-1.0 from videotestsrc."""
    joined = re.sub(r"\\\n\s*", " ", block)
    for line in joined.splitlines():
        line = line.strip()
        m = re.search(r"(gst-launch-1\.0\s.*)$", line)
        # from videotestsrc, or from a store an example before wrote
        if not m or not re.search(r"videotestsrc|stagesrc", line):
            continue
        cmd = m.group(1)
        t = re.search(r'GST_TRACERS=("[^"]*"|\S+)', line[:m.start()])
        if re.search(r"\bnv\w+|cuda", cmd):
            continue  # GPU examples are run by the GPU suite
        cmd = re.sub(r"\b(autovideosink|xvimagesink|ximagesink|glimagesink)\b",
                     "fakesink", cmd)
        yield (t.group(1).strip('"') if t else None), cmd


# Elements that move, split or select frames: they cost next to nothing by
# design, so an example is not "about" them for the table check below.
PLUMBING = {"queue", "queue2", "multiqueue", "capsfilter", "fakesink", "filesink",
            "filesrc", "tee", "funnel", "identity", "videotestsrc", "audiotestsrc",
            "fakesrc", "stagestride", "stagerange", "stagegather", "qtdemux",
            "h264parse", "mp4mux", "input-selector", "clocksync"}
MIN_MEAN_MS = 0.02  # a pass-through buffer costs ~0.001 ms
DOCS_STORE = "/tmp/stages-store"  # where the docs' examples write their store


def working_elements(cmd):
    """(factory, name) of each element of a gst-launch description whose
    work the example means to show."""
    out, seg = [], []
    words = [w for w in shlex.split(cmd)[1:] if not w.startswith("-")]
    for w in words + ["!"]:
        if w != "!":
            seg.append(w)
            continue
        words, seg = seg, []
        # a segment: caps, or "[pad-ref.] factory prop=value ... [pad-ref.]"
        words = [x for x in words if not (x.endswith(".") and "=" not in x)]
        if not words or "/" in words[0] or "=" in words[0]:
            continue
        factory = words[0]
        name = next((w.split("=", 1)[1] for w in words[1:] if w.startswith("name=")), None)
        ops = next((w.split("=", 1)[1] for w in words[1:] if w.startswith("ops=")), None)
        if factory == "stagebin" and ops:
            out += working_elements("gst-launch-1.0 " + ops)
        elif factory not in PLUMBING:
            out.append((factory, name))
    return out


def table_means(stdout):
    """Node -> mean ms from stageprof's Elements table(s) on stdout."""
    means, cols = {}, None
    for line in stdout.splitlines():
        words = line.split()
        if words[:2] == ["Node", "Thread"]:
            cols = words
            continue
        if cols is None:
            continue
        if len(words) != len(cols) or line.startswith(("Queues", "Threads")):
            cols = None if not line.startswith("  ") else cols
            continue
        try:
            # an element can have a row per thread: its work is the largest
            mean = float(words[cols.index("Mean")])
            means[words[0]] = max(mean, means.get(words[0], 0.0))
        except ValueError:
            pass
    return means


def check_table(cmd, stdout):
    """The table names each working element of the example with a mean
    above pass-through cost; returns what is wrong, or None."""
    means = table_means(stdout)
    if not means:
        return None  # the example prints no table (summary elsewhere)
    for factory, name in working_elements(cmd):
        rows = {n: m for n, m in means.items()
                if (name and n.split("/")[-1] == name) or
                (not name and re.fullmatch(re.escape(factory) + r"-?\d+", n.split("/")[-1]))}
        if not rows:
            return f"the table has no row for {name or factory}"
        if max(rows.values()) < MIN_MEAN_MS:
            return (f"{name or factory} does no work (mean {max(rows.values()):.3f} ms):"
                    " the example must use real-sized frames that it changes")
    return None


def run_group(args, timeout):
    """Runs args in a session of its own, killed whole on timeout: a script
    that ignored --help would start builds and suites."""
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, "", "timed out: it ran instead of answering"


def check_scripts():
    """The README's two commands answer --help (and refuse an unknown
    option) at once, without installing, building or running anything."""
    failed = 0
    for script in ("scripts/demo.sh", "scripts/test.sh"):
        path = os.path.join(src, script)
        rc, out, err = run_group(["bash", path, "--help"], 30)
        if rc != 0 or script not in out:
            print(f"FAIL: {script} --help: status {rc}, {out[-300:]} {err[-300:]}")
            failed += 1
        rc, out, err = run_group(["bash", path, "--no-such-option"], 30)
        if rc != 2 or "--help" not in err:
            print(f"FAIL: {script} --no-such-option: status {rc} (want 2), {err[-300:]}")
            failed += 1
    return failed


def main():
    failed = check_scripts()
    count = 0
    for el in ELEMENTS:
        r = subprocess.run(["gst-inspect-1.0", el], capture_output=True, text=True)
        if r.returncode != 0 or "Element Properties" not in r.stdout:
            print(f"FAIL: gst-inspect-1.0 {el}: {r.stderr.strip()}")
            failed += 1
    files = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    found = [(path, ex) for path in files for ex in examples(path)]
    # the tools' man pages and --help texts are docs too
    found += [(path, ex) for path in sorted(glob.glob(os.path.join(src, "tools", "*", "*.1")))
              for ex in man_examples(path)]
    tools = os.environ.get("TOOLS_DIR")
    for tool in (sorted(glob.glob(os.path.join(tools, "*"))) if tools else []):
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
            continue
        r = subprocess.run([tool, "--help"], capture_output=True, text=True)
        found += [(tool + " --help", ex) for ex in launch_lines(r.stdout)]
    for path, (tracers, cmd) in found:
        count += 1
        bad = re.search(r"\bstore=(?!/tmp/stages-store\b)(\S+)", cmd)
        if bad and not bad.group(1).startswith(("DIR", "...")):
            print(f"FAIL: {path}: {cmd}: writes a store to '{bad.group(1)}'"
                  " relative to where it runs (the clone, for a newcomer): use"
                  f" {DOCS_STORE}")
            failed += 1
            continue
        env = dict(os.environ)
        env.pop("GST_TRACERS", None)
        if tracers:
            env["GST_TRACERS"] = tracers
        # the docs keep their stores outside any clone, in /tmp/stages-store;
        # the test keeps one per page in its own folder, and runs a read
        # from it only when the page wrote it first (other pages ingest a
        # file of the reader's, which the test does not have)
        store = os.path.join(workdir, re.sub(r"\W", "_", os.path.basename(path)),
                             "stages-store")
        if "videotestsrc" not in cmd and not os.path.isdir(store):
            count -= 1
            continue
        os.makedirs(os.path.dirname(store), exist_ok=True)
        args = [a.replace(DOCS_STORE, store) for a in shlex.split(cmd)]
        try:
            r = subprocess.run(args, capture_output=True, text=True, timeout=120,
                               env=env, cwd=workdir)
            ok = r.returncode == 0 and "ERROR" not in r.stderr
            problem = check_table(cmd, r.stdout) if ok and tracers else None
            if problem:
                ok = False
                print(f"FAIL (table): {problem}")
        except subprocess.TimeoutExpired:
            ok, r = False, None
        status = "ok" if ok else "FAIL"
        where = path if path.endswith(" --help") else os.path.relpath(path, src)
        print(f"{status}: {where}: {cmd}")
        if not ok:
            failed += 1
            if r is not None:
                print(r.stdout[-2000:], r.stderr[-2000:])
    print(f"{count} examples, {failed} failures")
    return 1 if failed or count == 0 else 0


if __name__ == "__main__":
    # examples run in one fresh directory, removed at the end: those that
    # write files (stagesink's store, traces) leave nothing behind
    workdir = tempfile.mkdtemp(prefix="docs-examples-")
    try:
        rc = main()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    sys.exit(rc)
