#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""stage-store: every command, its exit codes (0 ok, 1 work failed, 2 bad
usage), data on stdout and messages on stderr; plus the sqlite3 queries and
command sequences of docs/store.md, run as written in a temp dir."""
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

TOOL = os.environ["STAGE_STORE"]
SRC = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
failures = 0


def check(cond, what):
    global failures
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures += 1


def run(args, cwd):
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, timeout=120)


def launch(desc, cwd):
    r = run(["gst-launch-1.0", "-q"] + desc.split(), cwd)
    assert r.returncode == 0, r.stderr


def main():
    tmp = tempfile.mkdtemp(prefix="stage-store-cli-")
    try:
        launch("videotestsrc num-buffers=90 pattern=ball ! video/x-raw,width=160,height=120,"
               "framerate=30/1 ! x264enc speed-preset=ultrafast bframes=2 key-int-max=30 ! "
               "h264parse ! mp4mux ! filesink location=clip.mp4", tmp)
        r = run([TOOL, "-q", "ingest", "store", "clip", "clip.mp4"], tmp)
        check(r.returncode == 0 and "90 frames" in r.stderr and r.stdout == "", "ingest")
        r = run([TOOL, "-q", "ingest", "store", "clip", "clip.mp4"], tmp)
        check(r.returncode == 1 and "already has a stream 'clip'" in r.stderr, "ingest twice: mode=error")
        r = run([TOOL, "-q", "--mode=overwrite", "-n", "10", "ingest", "store", "clip", "clip.mp4"], tmp)
        check(r.returncode == 0, "ingest --mode=overwrite")
        r = run([TOOL, "-q", "ingest", "store", "x", "nonexistent.mp4"], tmp)
        check(r.returncode == 1 and "no such file" in r.stderr, "ingest of a missing file")
        with open(os.path.join(tmp, "notvideo.txt"), "w") as f:
            f.write("hello\n" * 100)
        r = run([TOOL, "-q", "ingest", "store", "x", "notvideo.txt"], tmp)
        check(r.returncode == 1 and "failed" in r.stderr, "ingest of a non-video file")

        r = run([TOOL, "ls", "store"], tmp)
        check(r.returncode == 0 and re.search(r"^clip\s+video\s+h264\s+90\s", r.stdout, re.M) is not None,
              "ls: " + r.stdout.strip().replace("\n", " | "))
        r = run([TOOL, "info", "store", "clip"], tmp)
        check(r.returncode == 0 and "frames: 90" in r.stdout and "B-frames (reordered): yes" in r.stdout
              and "chunks: 3 (io-packet-size 10)" in r.stdout and "keyframe interval: min 30, max 30" in r.stdout,
              "info")
        r = run([TOOL, "info", "store", "clp"], tmp)
        check(r.returncode == 1 and "nearest names: 'clip'" in r.stderr, "info of an unknown stream")
        r = run([TOOL, "verify", "store"], tmp)
        check(r.returncode == 0 and "ok   clip" in r.stdout, "verify")

        # a kill -9 during a write leaves an orphan that verify notes and gc removes
        p = subprocess.Popen(["gst-launch-1.0", "-q", "videotestsrc", "is-live=true", "!",
                              "video/x-raw,width=160,height=120,framerate=50/1", "!", "stagesink",
                              "store=store", "stream=half", "io-packet-size=5"], cwd=tmp)
        deadline = time.time() + 60
        while time.time() < deadline:
            dirs = [d for d in os.listdir(os.path.join(tmp, "store", "data")) if d.startswith("half.")]
            if dirs and os.path.exists(os.path.join(tmp, "store", "data", dirs[0], "chunk-000001.bin")):
                break
            time.sleep(0.1)
        r = run([TOOL, "gc", "store"], tmp)
        check(r.returncode == 0 and "half." not in r.stdout, "gc leaves a running writer alone")
        p.send_signal(signal.SIGKILL)
        p.wait()
        r = run([TOOL, "verify", "store"], tmp)
        check(r.returncode == 0 and "interrupted write" in r.stderr, "verify notes the orphan")
        r = run([TOOL, "gc", "store"], tmp)
        check(r.returncode == 0 and "removed data/half." in r.stdout, "gc removes it")

        # corrupt a chunk: verify fails naming it
        db = sqlite3.connect(os.path.join(tmp, "store", "catalog.db"))
        data, = db.execute("SELECT data FROM streams WHERE name = 'clip'").fetchone()
        db.close()
        chunk = os.path.join(tmp, "store", data, "chunk-000001.bin")
        with open(chunk, "r+b") as f:
            f.seek(20)
            f.write(b"\xff\x00\xff")
        r = run([TOOL, "verify", "store", "clip"], tmp)
        check(r.returncode == 1 and "chunk-000001.bin" in r.stdout and "checksum" in r.stdout,
              "verify finds a corrupt chunk")

        r = run([TOOL, "rm", "store", "clip"], tmp)
        check(r.returncode == 0 and not os.path.exists(chunk), "rm")
        r = run([TOOL, "rm", "store", "clip"], tmp)
        check(r.returncode == 1, "rm of a missing stream")
        r = run([TOOL, "ls", "nostore"], tmp)
        check(r.returncode == 1 and "does not exist" in r.stderr, "ls of a missing directory")
        for bad in (["ls"], ["frobnicate", "store"], ["info", "store"], ["--mode=sometimes", "ingest", "s", "n", "f"],
                    ["--no-such-option", "ls", "store"]):
            r = run([TOOL] + bad, tmp)
            check(r.returncode == 2 and "Usage" in r.stderr, "bad usage: " + " ".join(bad))
        r = run([TOOL, "--help"], tmp)
        check(r.returncode == 0 and "stage-store ingest store clip" in r.stdout, "--help has an example")
        docs_sequences(tmp)
    finally:
        shutil.rmtree(tmp)
    print(f"{failures} failures")
    return 1 if failures else 0


def docs_sequences(tmp):
    """The ```sh blocks with stagesink of README.md and docs/store.md, stagesink.md and stagesrc.md that start from videotestsrc: run
    line by line in one fresh directory (later lines read what earlier ones
    stored), stage-store meaning this build's tool."""
    text = ""
    for page in ("README.md", "docs/store.md", "docs/stagesink.md", "docs/stagesrc.md"):
        path = os.path.join(SRC, page)
        if os.path.exists(path):
            text += open(path, encoding="utf-8").read()
    for n, block in enumerate(re.findall(r"```sh\n(.*?)```", text, re.S)):
        block = re.sub(r"\\\n\s*", " ", block)
        if "videotestsrc" not in block or "stagesink" not in block:
            continue
        d = os.path.join(tmp, f"docs{n}")
        os.mkdir(d)
        for line in block.splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            line = re.sub(r"^stage-store\b", TOOL, line)
            # the docs keep their stores in /tmp/stages-store, outside any
            # clone; the test keeps them in its own folder
            line = line.replace("/tmp/stages-store", os.path.join(d, "stages-store"))
            r = subprocess.run(line, shell=True, capture_output=True, text=True, cwd=d, timeout=120)
            check(r.returncode == 0 and "ERROR" not in r.stderr, f"docs: {line}"
                  + ("" if r.returncode == 0 else f"\n{r.stdout[-500:]}{r.stderr[-500:]}"))


if __name__ == "__main__":
    sys.exit(main())
