#!/usr/bin/env python3
"""Runs every gst-launch-1.0 example in README.md and docs/*.md that needs no
outside input (it starts from videotestsrc), so the docs stay true.

Display sinks become fakesink; an example that fails, hangs or posts an error
fails the test. Also checks that gst-inspect-1.0 documents every element."""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

src = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
ELEMENTS = ["stageresize", "stagestride", "stagerange", "stagegather", "stagebin"]


def examples(path):
    text = open(path, encoding="utf-8").read()
    # every fence pairs with the next one, whatever its language, so that a
    # ```text block does not shift the pairing; only shell blocks run
    for lang, block in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        if lang not in ("", "sh", "bash", "shell"):
            continue
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.strip()
            m = re.search(r"(gst-launch-1\.0\s.*)$", line)
            if not m or "videotestsrc" not in line:
                continue
            cmd = m.group(1)
            t = re.search(r'GST_TRACERS=("[^"]*"|\S+)', line[:m.start()])
            if re.search(r"\bnv\w+|cuda", cmd):
                continue  # GPU examples are run by the GPU suite
            cmd = re.sub(r"\b(autovideosink|xvimagesink|ximagesink|glimagesink)\b",
                         "fakesink", cmd)
            yield (t.group(1).strip('"') if t else None), cmd


def main():
    failed = 0
    count = 0
    for el in ELEMENTS:
        r = subprocess.run(["gst-inspect-1.0", el], capture_output=True, text=True)
        if r.returncode != 0 or "Element Properties" not in r.stdout:
            print(f"FAIL: gst-inspect-1.0 {el}: {r.stderr.strip()}")
            failed += 1
    files = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    for path in files:
        for tracers, cmd in examples(path):
            count += 1
            env = dict(os.environ)
            env.pop("GST_TRACERS", None)
            if tracers:
                env["GST_TRACERS"] = tracers
            args = shlex.split(cmd)
            # examples that write files write them into a directory removed after
            work = tempfile.TemporaryDirectory(prefix="docs-example-")
            try:
                r = subprocess.run(args, capture_output=True, text=True, timeout=120,
                                   env=env, cwd=work.name)
                ok = r.returncode == 0 and "ERROR" not in r.stderr
            except subprocess.TimeoutExpired:
                ok, r = False, None
            work.cleanup()
            status = "ok" if ok else "FAIL"
            print(f"{status}: {os.path.relpath(path, src)}: {cmd}")
            if not ok:
                failed += 1
                if r is not None:
                    print(r.stdout[-2000:], r.stderr[-2000:])
    print(f"{count} examples, {failed} failures")
    return 1 if failed or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
