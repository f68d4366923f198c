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
        merge_tests(tmp)
        join_tests(tmp)
        network_fs_tests(tmp)
        docs_sequences(tmp)
    finally:
        shutil.rmtree(tmp)
    print(f"{failures} failures")
    return 1 if failures else 0


def store_state(store):
    """What a store holds: its catalog rows (data directories aside) and
    its data directories."""
    db = sqlite3.connect(os.path.join(store, "catalog.db"))
    rows = db.execute("SELECT name, frames, bytes, chunks, created, committed, caps FROM streams "
                      "ORDER BY name").fetchall()
    frames = db.execute("SELECT s.name, idx, pkt, chunk, offset, size, pts, dts, duration, keyframe, crc "
                        "FROM frames f JOIN streams s ON s.id = f.stream ORDER BY s.name, pkt").fetchall()
    db.close()
    return rows, frames, sorted(os.listdir(os.path.join(store, "data")))


def decoded(store, stream, cwd):
    """md5 of every decoded frame of a stored stream, in order."""
    r = run(["gst-launch-1.0", "-q", "stagesrc", f"store={store}", f"stream={stream}", "!", "videoconvert",
             "!", "video/x-raw,format=I420", "!", "checksumsink", "hash=md5"], cwd)
    assert r.returncode == 0, r.stderr
    return r.stdout


def merge_tests(tmp):
    """stage-store merge: per-shard stores joined, checked, in one change;
    refused and interrupted merges leave the destination as it was."""
    d = os.path.join(tmp, "merge")
    os.mkdir(d)
    for i, (names, pattern) in enumerate(((("a", "b"), "ball"), (("c",), "snow"))):
        for name in names:
            launch(f"videotestsrc num-buffers=40 pattern={pattern} ! video/x-raw,width=160,height=120,"
                   "framerate=30/1 ! x264enc speed-preset=ultrafast bframes=2 key-int-max=10 ! h264parse ! "
                   f"stagesink store=shard{i} stream={name} io-packet-size=10", d)
    r = run([TOOL, "merge", "all", "shard0", "shard1"], d)
    check(r.returncode == 0 and "3 streams from 2 stores" in r.stderr, "merge: " + r.stderr.strip()[-200:])
    r = run([TOOL, "verify", "all"], d)
    check(r.returncode == 0 and r.stdout.count("ok   ") == 3, "verify after merge")
    rows, frames, dirs = store_state(os.path.join(d, "all"))
    s0 = store_state(os.path.join(d, "shard0"))
    s1 = store_state(os.path.join(d, "shard1"))
    check(rows == sorted(s0[0] + s1[0]) and frames == sorted(s0[1] + s1[1], key=lambda f: (f[0], f[2])),
          "merge: the catalog rows and frame index are the sources'")
    check(decoded("all", "c", d) == decoded("shard1", "c", d), "merge: a merged stream decodes as its source")
    before = store_state(os.path.join(d, "all"))

    r = run([TOOL, "merge", "all", "shard1"], d)
    check(r.returncode == 1 and "already has stream 'c'" in r.stderr and store_state(os.path.join(d, "all")) == before,
          "merge of a name DEST has: refused, DEST as it was")
    r = run([TOOL, "--mode=ignore", "merge", "all", "shard1"], d)
    check(r.returncode == 0 and "0 streams" in r.stderr and store_state(os.path.join(d, "all")) == before,
          "merge --mode=ignore keeps DEST's")
    r = run([TOOL, "--mode=overwrite", "merge", "all", "shard1"], d)
    after = store_state(os.path.join(d, "all"))
    check(r.returncode == 0 and after[0] == before[0] and after[2] != before[2] and len(after[2]) == 3,
          "merge --mode=overwrite replaces it, the old data gone")
    r = run([TOOL, "merge", "both", "shard0", "shard0"], d)
    check(r.returncode == 1 and "given twice" in r.stderr and not os.path.exists(os.path.join(d, "both")),
          "merge of one store twice: refused, DEST not made")
    r = run([TOOL, "merge", "all", "all"], d)
    check(r.returncode == 1 and "into itself" in r.stderr, "merge of a store into itself")
    r = run([TOOL, "merge", "x", "nostore"], d)
    check(r.returncode == 1 and "does not exist" in r.stderr and not os.path.exists(os.path.join(d, "x")),
          "merge of a missing store")

    # a source with a corrupt chunk: refused, naming it; DEST as it was, no copy left
    shutil.copytree(os.path.join(d, "shard1"), os.path.join(d, "bad"))
    db = sqlite3.connect(os.path.join(d, "bad", "catalog.db"))
    data, = db.execute("SELECT data FROM streams WHERE name = 'c'").fetchone()
    db.execute("UPDATE streams SET name = 'c2'")
    db.commit()
    db.close()
    with open(os.path.join(d, "bad", data, "chunk-000002.bin"), "r+b") as f:
        f.seek(30)
        f.write(b"\x00\xff\x00")
    before = store_state(os.path.join(d, "all"))
    r = run([TOOL, "merge", "all", "bad"], d)
    check(r.returncode == 1 and "chunk-000002.bin" in r.stderr and store_state(os.path.join(d, "all")) == before,
          "merge of a corrupt source: refused, DEST as it was: " + r.stderr.strip()[-160:])

    # kill -9 in the middle: 'a' copied, then the read of 'z' blocks (its
    # chunk is a FIFO); the catalog is as it was, the copy an orphan gc removes
    shutil.copytree(os.path.join(d, "shard0"), os.path.join(d, "slow"))
    db = sqlite3.connect(os.path.join(d, "slow", "catalog.db"))
    db.execute("UPDATE streams SET name = 'z' || name")
    data, = db.execute("SELECT data FROM streams WHERE name = 'zb'").fetchone()
    db.commit()
    db.close()
    fifo = os.path.join(d, "slow", data, "chunk-000000.bin")
    os.unlink(fifo)
    os.mkfifo(fifo)
    p = subprocess.Popen([TOOL, "merge", "all", "slow"], cwd=d, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline and not any(x.startswith("za.") for x in os.listdir(os.path.join(d, "all", "data"))):
        time.sleep(0.05)
    time.sleep(0.3)
    p.send_signal(signal.SIGKILL)
    p.wait()
    mid = store_state(os.path.join(d, "all"))
    check(mid[0] == before[0] and mid[1] == before[1] and any(x.startswith("za.") for x in mid[2]),
          "merge killed: the catalog as it was, the copy left")
    r = run([TOOL, "verify", "all"], d)
    check(r.returncode == 0 and "interrupted write" in r.stderr, "verify notes the interrupted merge's copy")
    r = run([TOOL, "gc", "all"], d)
    check(r.returncode == 0 and store_state(os.path.join(d, "all")) == before, "gc removes it: DEST as it was")


def join_tests(tmp):
    """Parts of a split stream (NAME.part-K-of-N) written into two stores:
    merge joins them once all are there; join refuses a missing or a
    mismatched part, changing nothing."""
    d = os.path.join(tmp, "join")
    os.mkdir(d)
    launch("videotestsrc num-buffers=90 pattern=ball ! video/x-raw,width=160,height=120,framerate=30/1 ! "
           "x264enc speed-preset=ultrafast key-int-max=15 bframes=2 ! h264parse ! stagesink store=src stream=long", d)
    for k in range(3):
        launch(f"stagesrc store=src stream=long ranges={30 * k}:{30 * k + 30} ! videoconvert ! "
               f"stagesink store=p{k % 2} stream=small.part-{k}-of-3 io-packet-size=8", d)
    parts = "".join(decoded(f"p{k % 2}", f"small.part-{k}-of-3", d) for k in range(3))

    r = run([TOOL, "merge", "only0", "p0"], d)
    check(r.returncode == 0 and "not joined yet" in r.stderr and "part 1 is missing" in r.stderr,
          "merge of some parts: kept as parts, the missing one named")
    r = run([TOOL, "join", "only0", "small"], d)
    check(r.returncode == 1 and "part 1 is missing" in r.stderr, "join with a part missing: refused")
    r = run([TOOL, "merge", "all", "p0", "p1"], d)
    check(r.returncode == 0 and "joined small" in r.stderr, "merge joins the parts: " + r.stderr.strip()[-200:])
    r = run([TOOL, "ls", "all"], d)
    check(re.search(r"^small\s+video\s+h264\s+90\s", r.stdout, re.M) is not None and ".part-" not in r.stdout,
          "the joined stream alone: " + r.stdout.strip().replace("\n", " | "))
    r = run([TOOL, "verify", "all"], d)
    check(r.returncode == 0 and "ok   small (90 frames" in r.stdout, "verify the joined stream")
    joined = decoded("all", "small", d)
    check([l.split()[-1] for l in joined.splitlines()] == [l.split()[-1] for l in parts.splitlines()],
          "the joined stream decodes as its parts, in order")
    times = [l.split()[0] for l in joined.splitlines()]
    check(times == sorted(times) and len(set(times)) == 90, "its timestamps run on across the parts")
    r = run(["gst-launch-1.0", "-q", "stagesrc", "store=all", "stream=small", "indices=29,30,31,59,60", "!",
             "videoconvert", "!", "video/x-raw,format=I420", "!", "checksumsink", "hash=md5"], d)
    full = joined.splitlines()
    check(r.returncode == 0 and r.stdout.splitlines() == [full[i] for i in (29, 30, 31, 59, 60)],
          "sparse reads across the part boundaries are exact")

    # parts that cannot follow each other: refused, nothing changed
    launch("stagesrc store=src stream=long ranges=0:30 ! videoconvert ! videoscale ! video/x-raw,width=80,height=60 ! "
           "stagesink store=odd stream=x.part-0-of-2", d)
    launch("stagesrc store=src stream=long ranges=30:60 ! videoconvert ! stagesink store=odd stream=x.part-1-of-2", d)
    before = store_state(os.path.join(d, "odd"))
    r = run([TOOL, "join", "odd"], d)
    check(r.returncode == 1 and "differ in frame size" in r.stderr and store_state(os.path.join(d, "odd")) == before,
          "join of mismatched parts: refused, the store as it was")


def network_fs_tests(tmp):
    """A store on a network filesystem: writing refused unless the rollback
    journal is asked for; reading works. STAGE_STORE_TEST_NETWORK_FS makes a
    folder count as NFS (a real mount cannot be made here)."""
    d = os.path.join(tmp, "net")
    nfs = os.path.join(d, "nfs")
    os.makedirs(nfs)
    env = dict(os.environ, STAGE_STORE_TEST_NETWORK_FS=nfs)
    src = "videotestsrc num-buffers=20 ! video/x-raw,width=160,height=120 ! x264enc ! h264parse ! "

    def sh(cmd, extra=None):
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, cwd=d, timeout=120,
                              env=dict(env, **(extra or {})))

    r = sh(f"gst-launch-1.0 -q {src} stagesink store=nfs/s stream=a")
    check(r.returncode != 0 and "network filesystem (NFS)" in r.stderr and "stage-store merge" in r.stderr
          and not os.path.exists(os.path.join(nfs, "s")), "stagesink on NFS: refused, nothing made")
    launch(f"{src} stagesink store=local stream=a", d)
    r = sh(f"{TOOL} merge nfs/m local")
    check(r.returncode == 1 and "STAGE_STORE_JOURNAL=delete" in r.stderr, "merge into NFS: refused")
    r = sh(f"{TOOL} merge nfs/m local", {"STAGE_STORE_JOURNAL": "delete"})
    check(r.returncode == 0 and not os.path.exists(os.path.join(nfs, "m", "catalog.db-wal")),
          "merge into NFS with STAGE_STORE_JOURNAL=delete: rollback journal")
    r = sh(f"gst-launch-1.0 -q {src} stagesink store=nfs/m stream=b", {"STAGE_STORE_JOURNAL": "delete"})
    check(r.returncode == 0, "stagesink on NFS with STAGE_STORE_JOURNAL=delete")
    r = sh(f"gst-launch-1.0 -q {src} stagesink store=nfs/m stream=c", {"STAGE_STORE_JOURNAL": "sometimes"})
    check(r.returncode != 0 and "STAGE_STORE_JOURNAL='sometimes'" in r.stderr, "a bad STAGE_STORE_JOURNAL")
    # a WAL store copied there reads (immutable), and is not written
    shutil.copytree(os.path.join(d, "local"), os.path.join(nfs, "w"))
    r = sh(f"{TOOL} verify nfs/w")
    check(r.returncode == 0 and "ok   a" in r.stdout, "verify of a store on NFS")
    r = sh("gst-launch-1.0 -q stagesrc store=nfs/w stream=a ! fakesink")
    check(r.returncode == 0, "stagesrc from a store on NFS: " + r.stderr[-200:])
    r = sh(f"{TOOL} rm nfs/w a")
    check(r.returncode == 1 and "network filesystem" in r.stderr, "rm on NFS: refused")


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
