#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""stage-batch, end to end: every option against small clips made here.

Runs the built tool (STAGE_BATCH) with the build tree's plugins and checks
what it prints, writes and returns. Everything lives in one temporary
directory, removed at the end."""
import json
import os
import re
import shutil
import sqlite3
import signal
import subprocess
import sys
import tempfile
import time

SB = os.environ.get("STAGE_BATCH", "stage-batch")
TMP = tempfile.mkdtemp(prefix="stage-batch-test-")
FAILED = []

RESIZE = ("filesrc location={input} ! avidemux ! jpegdec ! "
          "stageresize width={width} height={height} ! jpegenc ! avimux ! "
          "filesink location=" + TMP + "/out/{stem}.avi")
# Long enough to be interrupted: about 2 s at 20 ms a frame.
SLOW = ("videotestsrc num-buffers={n} ! video/x-raw,width=32,height=24 ! "
        "identity sleep-time={sleep} ! jpegenc ! avimux ! "
        "filesink location=" + TMP + "/slow/{name}.avi")


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL:", what, flush=True)
    return cond


def make_clip(path, frames, w=64, h=48):
    subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", f"num-buffers={frames}",
                    "!", f"video/x-raw,width={w},height={h},framerate=30/1", "!",
                    "jpegenc", "!", "avimux", "!", "filesink", f"location={path}"],
                   check=True, capture_output=True)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def run(args, env=None, timeout=120, **kw):
    e = dict(os.environ)
    e.pop("GST_TRACERS", None)
    for k in ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT",
              "SLURM_ARRAY_TASK_MIN", "STAGE_BATCH_SHARDS"):
        e.pop(k, None)
    e.update(env or {})
    return subprocess.run([SB] + args, capture_output=True, text=True, env=e,
                          timeout=timeout, cwd=TMP, **kw)


def events(stderr):
    out = []
    for line in stderr.splitlines():
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def table(stdout):
    """The final table: job number -> (status, frames)."""
    rows = {}
    for line in stdout.splitlines()[1:]:
        f = line.split()
        if len(f) >= 4 and f[0].isdigit():
            rows[int(f[0])] = (f[2], f[3])
    return rows


def frames_of(path):
    """Frames and width of an output, by decoding it."""
    r = subprocess.run(["gst-launch-1.0", "-v", "filesrc", f"location={path}", "!",
                        "avidemux", "!", "jpegdec", "!", "identity", "silent=false",
                        "!", "fakesink"], capture_output=True, text=True)
    n = len(re.findall(r"identity0: last-message = chain", r.stdout))
    w = re.search(r"jpegdec0\.GstPad:src: caps = video/x-raw.*?width=\(int\)(\d+)", r.stdout)
    return n, int(w.group(1)) if w else None


# ---------------------------------------------------------------------------

def test_help():
    r = run(["--help"])
    check(r.returncode == 0 and "stage-batch --jobs 2" in r.stdout, "--help has an example")
    check("--run-one" not in r.stdout, "--help hides the internal mode")


def test_basic_run():
    os.makedirs(f"{TMP}/clips", exist_ok=True)
    sizes = {"a": 6, "b": 14, "c": 10}
    for name, n in sizes.items():
        make_clip(f"{TMP}/clips/{name}.avi", n)
    m = write(f"{TMP}/jobs.csv", "input,width,height\n"
              f"{TMP}/clips/a.avi,32,24\n"
              f'"{TMP}/clips/b.avi",48,36\n'
              f"{TMP}/clips/c.avi, 40 ,32\n")
    r = run(["--jobs", "2", "--progress=jsonl", RESIZE, m])
    check(r.returncode == 0, f"basic run exits 0 ({r.returncode}: {r.stderr[-500:]})")
    t = table(r.stdout)
    check(t == {0: ("ok", "6"), 1: ("ok", "14"), 2: ("ok", "10")},
          f"table has exact frame counts: {t}")
    ev = events(r.stderr)
    starts = [e["job"] for e in ev if e["event"] == "job-start"]
    check(starts == [1, 2, 0], f"longest input first (by file size): {starts}")
    ends = {e["job"]: e for e in ev if e["event"] == "job-end"}
    check(all(e["status"] == "ok" and e["fps"] > 0 for e in ends.values()),
          "job-end events say ok, with fps")
    check(ev[0]["event"] == "start" and ev[-1]["event"] == "end" and ev[-1]["ok"] == 3,
          "jsonl starts with start and ends with end")
    check(all(l.startswith("{") for l in r.stderr.splitlines() if l.strip()),
          f"--progress=jsonl writes only JSON lines: {r.stderr[:300]!r}")
    check(all("verdict" in e and "error" in e for e in ends.values()),
          "job-end has verdict and error (null when there is none)")
    for name, w in (("a", 32), ("b", 48), ("c", 40)):
        n, width = frames_of(f"{TMP}/out/{name}.avi")
        check((n, width) == (sizes[name], w), f"out/{name}.avi: {n} frames of width {width}")
    check(not [f for f in os.listdir(f"{TMP}/out") if f.endswith(".sb-part")],
          "no temporary outputs left")
    check(os.path.exists(f"{TMP}/jobs.batch/done/job-0.json"), "done markers written")
    check(os.path.exists(f"{TMP}/jobs.batch/logs/job-1.log"), "per-job logs written")


def test_dry_run_and_input():
    r = run(["--dry-run", "-i", f"{TMP}/clips/a.avi", "-i", f"{TMP}/clips/b.avi",
             "filesrc location={input} ! avidemux ! jpegdec ! jpegenc ! avimux ! "
             "filesink location=" + TMP + "/dry/{stem}-{job}.avi"])
    check(r.returncode == 0, f"--dry-run exits 0: {r.stderr}")
    lines = [l for l in r.stdout.splitlines() if l.startswith("gst-launch-1.0")]
    check(len(lines) == 2 and "dry/b-1.avi" in r.stdout and "dry/a-0.avi" in r.stdout,
          f"--dry-run prints a line per job with {{stem}} and {{job}}: {r.stdout}")
    check(not os.path.exists(f"{TMP}/dry"), "--dry-run runs nothing")
    # The printed lines run as they are.
    os.makedirs(f"{TMP}/dry")
    rr = subprocess.run(lines[0], shell=True, capture_output=True, text=True)
    check(rr.returncode == 0 and os.path.exists(f"{TMP}/dry/b-1.avi"),
          f"a --dry-run line runs in a shell: {rr.stderr[-300:]}")


def test_quoting():
    d = f"{TMP}/odd dir, with (chars)"
    os.makedirs(d)
    make_clip(f"{d}/x y.avi", 3)
    m = write(f"{TMP}/odd.csv", f'input,width,height\n"{d}/x y.avi",32,24\n')
    r = run(["--progress=none", "filesrc location={input} ! avidemux ! jpegdec ! "
             "stageresize width={width} height={height} ! jpegenc ! avimux ! "
             "filesink location=\"" + d + "/{stem} out.avi\"", m])
    check(r.returncode == 0 and os.path.exists(f"{d}/x y out.avi"),
          f"values with spaces, commas and brackets are quoted: {r.stderr[-400:]}")


def bad_usage(args, expect, what):
    before = set(os.listdir(TMP))
    r = run(args)
    after = set(os.listdir(TMP))
    ok = check(r.returncode == 2, f"{what}: exit 2 (got {r.returncode}: {r.stderr.strip()[:300]})")
    if ok:
        check(re.search(expect, r.stderr), f"{what}: message names it: {r.stderr.strip()}")
        check(after == before, f"{what}: nothing started or created ({after - before})")


def test_bad_input():
    m = f"{TMP}/jobs.csv"
    bad_usage([RESIZE, f"{TMP}/missing.csv"], r"missing\.csv", "missing manifest")
    bad_usage([RESIZE.replace("{height}", "{heigth}"), m], r"\{heigth\}", "placeholder without a column")
    rag = write(f"{TMP}/ragged.csv", "input,width,height\na.avi,1,2\nb.avi,3\n")
    os.rename(rag, f"{TMP}/ragged.txt")
    bad_usage([RESIZE, f"{TMP}/ragged.txt"], r"ragged\.txt:3: row 2 \(job 1\) has 2 values",
              "ragged row")
    write(f"{TMP}/empty.tsv", "input\twidth\theight\n" + TMP + "/clips/a.avi\t\t2\n")
    bad_usage([RESIZE, f"{TMP}/empty.tsv"], r"empty\.tsv:2.*column \"width\"", "missing value (TSV)")
    bad_usage([RESIZE.replace("jpegdec", "jpegdek"), m], r"jobs\.csv:2.*no element \"jpegdek\"",
              "unparsable template")
    write(f"{TMP}/badval.csv", "input,width,height\n" + TMP + "/clips/a.avi,32,24\n"
          + TMP + "/clips/b.avi,wide,24\n")
    bad_usage([RESIZE, f"{TMP}/badval.csv"], r"badval\.csv:3.*\"wide\".*column \"width\"",
              "bad value in a later row names the row and column")
    write(f"{TMP}/afile", "x")
    bad_usage([RESIZE.replace(TMP + "/out/", TMP + "/afile/"), m], r"afile.*not a writable",
              "output directory not writable")
    bad_usage([RESIZE.replace("{stem}", "same"), m], r"as job 0 does", "two jobs, one output")
    bad_usage(["--jobs", "0", RESIZE, m], r"--jobs", "--jobs 0")
    bad_usage(["--shard", "3/3", RESIZE, m], r"index must be from 0", "--shard 3/3")
    bad_usage(["--progress=fancy", RESIZE, m], r"--progress", "--progress=fancy")
    bad_usage([RESIZE], r"MANIFEST", "no manifest")
    # inputs are checked before anything runs: a missing file (named, with
    # its column), and a stored stream the store does not have
    write(f"{TMP}/noinput.csv", "input,width,height\n" + TMP + "/clips/a.avi,32,24\n"
          + TMP + "/clips/zz.avi,32,24\n")
    bad_usage([RESIZE, f"{TMP}/noinput.csv"],
              r"noinput\.csv:3: job 1: filesrc\d+ reads \".*zz\.avi\", which does not exist "
              r"\(the value of column \"input\"\)", "a missing input file")
    check(not os.path.exists(f"{TMP}/noinput.batch/logs/job-0.log"),
          "no job ran when an input is missing")
    write(f"{TMP}/nostream.csv", "name\nnope\n")
    bad_usage([f"stagesrc store={TMP}/nostore stream={{name}} ! fakesink", f"{TMP}/nostream.csv"],
              r"does not exist", "a store that does not exist")


def test_failures_and_crash():
    write(f"{TMP}/clips/corrupt.avi", "RIFF this is not an AVI file at all" * 20)
    m = write(f"{TMP}/fail.csv", "input,width,height\n"
              f"{TMP}/clips/a.avi,32,24\n{TMP}/clips/corrupt.avi,32,24\n{TMP}/clips/c.avi,32,24\n")
    r = run(["--jobs", "2", "--progress=jsonl", RESIZE, m])
    t = table(r.stdout)
    check(r.returncode == 1, f"a failed job: exit 1 ({r.returncode})")
    check(t.get(0) == ("ok", "6") and t.get(2) == ("ok", "10") and t.get(1, ("",))[0] == "failed",
          f"the corrupt job fails, the others complete: {t}")
    log = f"{TMP}/fail.batch/logs/job-1.log"
    check(log in r.stderr and os.path.exists(log) and "ERROR" in open(log).read(),
          "the failed job's log is listed and kept with its error")

    # A crash: SIGSEGV into one running child.
    m = write(f"{TMP}/crash.csv", "name,n,sleep\nlong,400,20000\nshort1,5,0\nshort2,5,0\n")
    # Under the ASan pass the sanitizer would catch the SIGSEGV and exit 1:
    # let the signal kill the job as it would anywhere else.
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":handle_segv=0"
    p = subprocess.Popen([SB, "--jobs", "3", "--progress=jsonl", SLOW, m], cwd=TMP,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env)
    victim = None
    for _ in range(1200):
        for pid in children(p.pid):
            if "slow/long.avi" in cmdline(pid):
                victim = pid
        if victim:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    if check(victim is not None, "found the long job's process"):
        os.kill(victim, signal.SIGSEGV)
    out, err = p.communicate(timeout=120)
    t = table(out)
    check(p.returncode == 1 and t.get(0, ("",))[0] == "crashed" and t.get(1) == ("ok", "5")
          and t.get(2) == ("ok", "5"), f"a crashed job never stops the others: {t} {err[-300:]}")
    check("signal 11" in err, "the crash is reported with its signal")
    check(not [f for f in os.listdir(f"{TMP}/slow") if f.endswith(".sb-part")],
          "a crashed job's temporary output is removed")


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    st = f.read()
                if int(st.rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return out


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read().replace("\0", " ")
    except OSError:
        return ""


def test_timeout_and_retries():
    m = write(f"{TMP}/to.csv", "name,n,sleep\nstuck,10000,20000\nquick,3,0\n")
    r = run(["--timeout", "2", "--retries", "1", "--progress=jsonl", SLOW, m])
    t = table(r.stdout)
    check(r.returncode == 1 and t.get(0, ("",))[0] == "timeout" and t.get(1) == ("ok", "3"),
          f"--timeout kills the stuck job: {t}")
    ev = events(r.stderr)
    retried = [e for e in ev if e["event"] == "job-retry"]
    end = [e for e in ev if e["event"] == "job-end" and e["job"] == 0]
    check(len(retried) == 1 and end and end[0]["attempts"] == 2,
          f"--retries 1 runs it twice: {retried} {end}")
    check(end and end[0]["cpu_s"] > 0,
          f"a timed-out job reports the CPU time it used: {end and end[0]['cpu_s']}")
    log = open(f"{TMP}/to.batch/logs/job-0.log").read()
    check(log.count("# stage-batch job 0") == 2, "the log keeps both attempts")
    check(not os.path.exists(f"{TMP}/slow/stuck.avi"), "a killed job leaves no output")


def test_resume_after_kill9():
    m = write(f"{TMP}/res.csv", "name,n,sleep\n" +
              "".join(f"r{i},25,20000\n" for i in range(4)))
    p = subprocess.Popen([SB, "--jobs", "1", "--progress=none", SLOW, m], cwd=TMP,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    done = f"{TMP}/res.batch/done"

    def markers():
        # done markers only: a marker being written is a temporary file
        # beside them until its rename (g_file_set_contents)
        return [f for f in os.listdir(done) if re.fullmatch(r"job-\d+\.json", f)] \
            if os.path.isdir(done) else []
    for _ in range(3000):
        if len(markers()) >= 2:
            break
        time.sleep(0.02)
    kids = children(p.pid)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    n_done = len(markers())
    check(2 <= n_done < 4, f"killed with {n_done} jobs done")
    for _ in range(100):
        if not any(os.path.exists(f"/proc/{k}") and "zombie" not in open(f"/proc/{k}/status").read().lower()
                   for k in kids):
            break
        time.sleep(0.05)
    alive = [k for k in kids if os.path.exists(f"/proc/{k}") and "--run-one" in cmdline(k)]
    check(not alive, f"the jobs die with the tool ({alive})")
    finals = sorted(f for f in os.listdir(f"{TMP}/slow") if f.startswith("r") and f.endswith(".avi"))
    # a job's output takes its final name at EOS and its marker follows:
    # killed between the two (--jobs 1), one output more than markers
    check(n_done <= len(finals) <= n_done + 1,
          f"only completed jobs have final outputs: {finals}, {n_done} done")
    r = run(["--resume", "--progress=jsonl", "--jobs", "2", SLOW, m])
    ev = events(r.stderr)
    started = sorted(e["job"] for e in ev if e["event"] == "job-start")
    check(r.returncode == 0 and len(started) == 4 - n_done,
          f"--resume runs only the rest: {started} ({r.returncode})")
    t = table(r.stdout)
    check(sum(1 for s in t.values() if s[0] == "skipped") == n_done, f"skipped shown: {t}")
    for i in range(4):
        n, _ = frames_of(f"{TMP}/slow/r{i}.avi")
        check(n == 25, f"r{i}.avi complete after resume ({n} frames)")
    # A changed row runs again.
    write(m, open(m).read().replace("r0,25,", "r0,26,"))
    r = run(["--resume", "--progress=jsonl", SLOW, m])
    started = [e["job"] for e in events(r.stderr) if e["event"] == "job-start"]
    check(started == [0], f"--resume reruns a job whose pipeline changed: {started}")


def test_shards_and_profile():
    rows = "".join(f"s{i},{3 + i},0\n" for i in range(7))
    m = write(f"{TMP}/sh.csv", "name,n,sleep\n" + rows)
    prof = f"{TMP}/prof"
    envs = [({}, ["--shard", "0/3"]),
            ({"JOB_COMPLETION_INDEX": "1", "STAGE_BATCH_SHARDS": "3"}, []),
            ({"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1",
              "SLURM_ARRAY_TASK_COUNT": "3"}, [])]
    ran = []
    for i, (env, extra) in enumerate(envs):
        r = run(extra + ["--profile", prof, "--progress=jsonl", SLOW, m], env=env)
        check(r.returncode == 0, f"shard {i} exits 0: {r.stderr[-300:]}")
        jobs = [e["job"] for e in events(r.stderr) if e["event"] == "job-end"]
        check(all(j % 3 == i for j in jobs), f"shard {i} runs rows with index mod 3 == {i}: {jobs}")
        check(os.path.exists(f"{prof}/trace.shard-{i}-of-3.json"), f"shard {i} merged its own profile")
        pe = [e for e in events(r.stderr) if e["event"] == "profile"]
        check(len(pe) == 1 and pe[0]["trace"].endswith(f"trace.shard-{i}-of-3.json")
              and all(l.startswith("{") for l in r.stderr.splitlines() if l.strip()),
              f"the profile is a JSON event, no plain line: {r.stderr[-300:]}")
        ran += jobs
    check(sorted(ran) == list(range(7)), f"the shards' union is the full run, once each: {sorted(ran)}")
    r = run(["--merge-profile", prof])
    check(r.returncode == 0, f"--merge-profile exits 0: {r.stderr}")
    trace = json.load(open(f"{prof}/trace.json"))
    names = {e["args"]["name"] for e in trace if e.get("name") == "process_name"}
    check(names == {f"job {i} s{i}" for i in range(7)}, f"a process per job, named by its row: {names}")
    elems = [e for e in trace if e.get("ph") == "X" and e.get("tid") != 0]
    pids = {e["pid"] for e in elems}
    check(len(pids) == 7, f"every job's stageprof events are in the merged trace ({len(pids)})")
    summ = json.load(open(f"{prof}/summary.json"))
    check(len(summ["jobs"]) == 7 and summ["totals"]["frames"] == sum(3 + i for i in range(7))
          and summ["totals"]["status"] == {"ok": 7}, f"merged summary totals: {summ['totals']}")
    check(all("summary" in j and j["summary"].get("elements") for j in summ["jobs"]),
          "each job row carries its stageprof summary")
    check(any(e["name"].startswith("videotestsrc") for e in summ["totals"]["elements"]),
          "totals aggregate elements over jobs")
    check(all(e["jobs"] <= 7 for e in summ["totals"]["elements"])
          and any(e["jobs"] == 7 for e in summ["totals"]["elements"]),
          f"an element's job count counts jobs, not its rows per thread: "
          f"{[(e['name'], e['jobs']) for e in summ['totals']['elements']]}")
    # One time axis: each job's events start after its launch.
    job_slices = {e["pid"]: e for e in trace if e.get("ph") == "X" and e.get("tid") == 0}
    ok = all(min(e["ts"] for e in elems if e["pid"] == pid) >= s["ts"] - 1000
             and min(e["ts"] for e in elems if e["pid"] == pid) <= s["ts"] + s["dur"]
             for pid, s in job_slices.items())
    check(ok and len(job_slices) == 7, "job traces sit inside their job's wall-clock slice")
    rep = os.environ.get("STAGEPROF_REPORT")
    if rep:
        # the launcher's job slices are not elements, and each job keeps
        # its own links (every job has a pipeline0)
        r = subprocess.run([rep, "show", f"{prof}/trace.json"], capture_output=True, text=True)
        check(r.returncode == 0 and not re.search(r"/job \d+: ok|/stage-batch ", r.stdout)
              and "job 3 s3/videotestsrc0" in r.stdout,
              f"show on a merged batch trace lists the jobs' elements only: {r.stdout[:600]}")
        r = subprocess.run([rep, "dot", "-o", "-", f"{prof}/trace.json"], capture_output=True,
                           text=True)
        edges = re.findall(r'"([^"]+)" -> "([^"]+)"', r.stdout)
        check(r.returncode == 0 and edges and all(a.split("/")[0] == b.split("/")[0] for a, b in edges)
              and len({a.split("/")[0] for a, b in edges}) == 7,
              f"dot on a merged batch trace: each job's links in its own job: {edges[:6]}")
    # a copy of the folder, merged from elsewhere, by a relative path: the
    # records name their files relative to their own folder
    copy = f"{TMP}/elsewhere/prof-copy"
    shutil.copytree(prof, copy)
    os.remove(f"{copy}/trace.json")
    shutil.move(prof, prof + "-moved")  # the paths the batch used are gone
    r = subprocess.run([SB, "--merge-profile", "prof-copy"], capture_output=True, text=True,
                       cwd=f"{TMP}/elsewhere", timeout=120)
    t2 = json.load(open(f"{copy}/trace.json")) if r.returncode == 0 else []
    pids2 = {e["pid"] for e in t2 if e.get("ph") == "X" and e.get("tid") != 0}
    check(r.returncode == 0 and len(pids2) == 7,
          f"a copied profile folder merges from another folder with every job's trace: "
          f"{r.returncode} {len(pids2)} {r.stderr[-300:]}")
    # a shard's jobs missing: named, exit 1, the merged files left as they were
    before = open(f"{copy}/trace.json").read()
    shutil.rmtree(f"{copy}/job-2")
    shutil.rmtree(f"{copy}/job-5")
    r = subprocess.run([SB, "--merge-profile", copy], capture_output=True, text=True,
                       timeout=120)
    check(r.returncode == 1 and "job 2: no profile" in r.stderr and "job 5: no profile" in r.stderr
          and open(f"{copy}/trace.json").read() == before,
          f"missing jobs are named, exit 1, nothing overwritten: {r.returncode} {r.stderr[-400:]}")
    os.remove(f"{copy}/job-1/trace.json")
    shutil.copytree(f"{prof}-moved/job-2", f"{copy}/job-2")
    shutil.copytree(f"{prof}-moved/job-5", f"{copy}/job-5")
    r = subprocess.run([SB, "--merge-profile", copy], capture_output=True, text=True,
                       timeout=120)
    check(r.returncode == 1 and "job 1 (s1): its trace is missing" in r.stderr,
          f"a finished job's missing trace is named: {r.returncode} {r.stderr[-400:]}")


def test_jobs_and_progress():
    m = write(f"{TMP}/seq.csv", "name,n,sleep\nq0,5,10000\nq1,5,10000\nq2,5,10000\n")
    r = run(["--jobs", "1", "--progress=jsonl", SLOW, m])
    ev = events(r.stderr)
    spans = {}
    for e in ev:
        if e["event"] in ("job-start", "job-end"):
            spans.setdefault(e["job"], []).append(e["t_s"])
    order = sorted(spans.values())
    check(r.returncode == 0 and all(order[i][1] <= order[i + 1][0] for i in range(2)),
          f"--jobs 1 runs one job at a time: {order}")
    r = run(["--jobs", "auto", "--progress=bar", SLOW, m])
    check(r.returncode == 0 and "] 3/3 done, 0 failed" in r.stderr, f"--progress=bar draws a bar: {r.stderr!r}")
    r = run(["--progress=none", SLOW, m])
    check(r.returncode == 0 and r.stderr == "", f"--progress=none is quiet: {r.stderr!r}")


def test_interrupt():
    m = write(f"{TMP}/int.csv", "name,n,sleep\ni0,25,20000\ni1,25,20000\ni2,25,20000\n")
    p = subprocess.Popen([SB, "--jobs", "1", "--progress=jsonl", SLOW, m], cwd=TMP,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(1200):
        if any("--run-one" in cmdline(k) for k in children(p.pid)):
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    t = table(out)
    started = [e["job"] for e in events(err) if e["event"] == "job-start"]
    check(p.returncode == 1 and len(started) == 1 and t.get(started[0]) == ("ok", "25")
          and sum(1 for v in t.values() if v[0] == "pending") == 2,
          f"Ctrl-C lets the running job finish and starts no other: {t} {started}")


def test_manifest_and_braces():
    # BOM, CRLF, a quoted value with a comma, quotes and a newline, a blank line.
    with open(f"{TMP}/crlf.csv", "wb") as f:
        f.write(b'\xef\xbb\xbfname,n,note\r\nw1,2,"a, ""quoted""\r\nnote"\r\n\r\nw2,3,x\r\n')
    r = run(["--progress=none", "videotestsrc num-buffers={n} ! "
             "video/x-raw,format={I420,YV12},width=32,height=24 ! fakesink name={name}",
             f"{TMP}/crlf.csv"])
    t = table(r.stdout)
    check(r.returncode == 0 and t == {0: ("ok", "2"), 1: ("ok", "3")},
          f"BOM, CRLF, quoted newlines and caps lists in braces: {t} {r.stderr[-300:]}")
    r = run(["--dry-run", "videotestsrc num-buffers={n} ! video/x-raw,format={{I420}} ! "
             "fakesink name={name}", f"{TMP}/crlf.csv"])
    check(r.returncode == 0 and "format={I420}" in r.stdout, f"{{{{ }}}} are literal braces: {r.stdout}")
    bad_usage(["videotestsrc ! video/x-raw,format={I420} ! fakesink", f"{TMP}/crlf.csv"],
              r"\{I420\}.*literal braces", "a brace placeholder that is not a column")


def test_special_outputs():
    """Issue 30, defect 1: what is at an output path and is not a regular
    file is written in place (a device, a FIFO) or refused (a symbolic link,
    a socket), never replaced by rename. A null device made here stands for
    /dev/null."""
    import socket
    import stat
    import threading
    d = f"{TMP}/special"
    os.makedirs(d)
    os.mknod(f"{d}/null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    m = write(f"{d}/one.csv", "name\na\n")
    tpl = "videotestsrc num-buffers=3 ! filesink location=" + d + "/{out}"
    r = run(["--progress=none", "--state-dir", f"{d}/s1",
             tpl.replace("{out}", "null"), m])
    check(r.returncode == 0 and stat.S_ISCHR(os.lstat(f"{d}/null").st_mode),
          f"an output that is a device is written in place, still a device: {r.stderr[-300:]}")
    os.mkfifo(f"{d}/fifo")
    got = []
    reader = threading.Thread(target=lambda: got.append(len(open(f"{d}/fifo", "rb").read())),
                              daemon=True)
    reader.start()
    r = run(["--progress=none", "--state-dir", f"{d}/s2", tpl.replace("{out}", "fifo"), m])
    reader.join(10)
    check(r.returncode == 0 and stat.S_ISFIFO(os.lstat(f"{d}/fifo").st_mode) and got
          and got[0] > 0, f"an output that is a FIFO is written in place: {got} {r.stderr[-300:]}")
    write(f"{d}/target", "keep")
    os.symlink(f"{d}/target", f"{d}/link")
    r = run(["--progress=none", "--state-dir", f"{d}/s3", tpl.replace("{out}", "link"), m])
    check(r.returncode == 2 and "symbolic link" in r.stderr and os.path.islink(f"{d}/link")
          and open(f"{d}/target").read() == "keep",
          f"an output that is a symbolic link is refused, link and target kept: {r.stderr[-300:]}")
    # a link made after the launcher's checks: the job's own process refuses
    r = run(["--run-one", tpl.replace("{out}", "link")])
    done = [json.loads(l) for l in r.stdout.splitlines() if '"done"' in l]
    check(r.returncode == 1 and done and "symbolic link" in done[0].get("error", "")
          and os.path.islink(f"{d}/link"),
          f"a job refuses an output that became a symbolic link: {r.returncode} {r.stdout[-300:]}")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(f"{d}/sock")
    r = run(["--progress=none", "--state-dir", f"{d}/s4", tpl.replace("{out}", "sock"), m])
    check(r.returncode == 2 and "socket" in r.stderr and stat.S_ISSOCK(os.lstat(f"{d}/sock").st_mode),
          f"an output that is a socket is refused: {r.stderr[-300:]}")
    sock.close()
    # the done marker, written by the launcher: same rule
    os.makedirs(f"{d}/s5/done")
    os.mknod(f"{d}/s5/done/job-0.json", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    r = run(["--progress=none", "--state-dir", f"{d}/s5", tpl.replace("{out}", "o5"), m])
    check(r.returncode == 0 and stat.S_ISCHR(os.lstat(f"{d}/s5/done/job-0.json").st_mode),
          f"a done marker that is a device is written in place: {r.stderr[-300:]}")
    os.makedirs(f"{d}/s6/done")
    os.symlink(f"{d}/target", f"{d}/s6/done/job-0.json")
    r = run(["--progress=none", "--state-dir", f"{d}/s6", tpl.replace("{out}", "o6"), m])
    check(r.returncode == 1 and "symbolic link" in r.stdout + r.stderr
          and os.path.islink(f"{d}/s6/done/job-0.json") and open(f"{d}/target").read() == "keep",
          f"a done marker that is a symbolic link is refused: {r.returncode} {r.stderr[-300:]}")
    # --profile: the merged trace (written by rename in spmerge) and summary
    os.makedirs(f"{d}/prof")
    os.mkfifo(f"{d}/prof/trace.json")
    os.mknod(f"{d}/prof/summary.json", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    got = []
    reader = threading.Thread(target=lambda: got.append(open(f"{d}/prof/trace.json", "rb").read()),
                              daemon=True)
    reader.start()
    r = run(["--progress=none", "--state-dir", f"{d}/s7", "--profile", f"{d}/prof",
             tpl.replace("{out}", "o7"), m])
    reader.join(10)
    check(r.returncode == 0 and stat.S_ISFIFO(os.lstat(f"{d}/prof/trace.json").st_mode)
          and stat.S_ISCHR(os.lstat(f"{d}/prof/summary.json").st_mode)
          and got and got[0].startswith(b"["),
          f"--profile's trace (a FIFO) and summary (a device) are written in place: "
          f"{got[0][:40] if got else None} {r.stderr[-300:]}")


def test_values_are_data():
    """Issue 30, defect 10: a manifest value is one property value, never
    pipeline syntax, unless its placeholder is declared {name:pipeline}."""
    d = f"{TMP}/data"
    os.makedirs(d)
    evil = f"tee name=t ! queue ! filesink location={d}/x t. ! queue"
    m = write(f"{d}/evil.csv", f'elem,name\n"{evil}",a\n')
    r = run(["--progress=none", "--state-dir", f"{d}/s1",
             "videotestsrc num-buffers=3 ! {elem} ! fakesink", m])
    check(r.returncode == 2 and "{elem:pipeline}" in r.stderr and not os.path.exists(f"{d}/x"),
          f"a placeholder where an element stands is refused: {r.returncode} {r.stderr[-300:]}")
    r = run(["--progress=none", "--state-dir", f"{d}/s2",
             "videotestsrc num-buffers=3 ! fakesink name={elem}", m])
    check(r.returncode == 0 and not os.path.exists(f"{d}/x"),
          f"the same value as a property value is a string: {r.stderr[-300:]}")
    r = run(["--progress=none", "--state-dir", f"{d}/s3",
             "videotestsrc num-buffers=3 ! {elem:pipeline} ! fakesink", m])
    check(r.returncode == 0 and os.path.getsize(f"{d}/x") > 0,
          f"{{elem:pipeline}} splices elements in: {r.stderr[-300:]}")
    # paths with spaces and quotes, unquoted, quoted and after a lone '='
    odd = 'a "b" c'
    m = write(f"{d}/odd.csv", f'out,n\n"{d}/{odd.replace(chr(34), chr(34) * 2)}",3\n')
    for i, tpl in enumerate(["filesink location={out}.1", 'filesink location="{out}.2"',
                             "filesink location = {out}.3"]):
        r = run(["--progress=none", "--state-dir", f"{d}/o{i}",
                 "videotestsrc num-buffers={n} ! " + tpl, m])
        check(r.returncode == 0 and os.path.exists(f"{d}/{odd}.{i + 1}"),
              f"a path with spaces and quotes ({tpl}): {os.listdir(d)} {r.stderr[-300:]}")
    m = write(f"{d}/bs.csv", "out\na\\b\n")
    r = run(["--progress=none", "--state-dir", f"{d}/s4",
             "videotestsrc num-buffers=3 ! filesink location=" + d + "/{out}", m])
    check(r.returncode == 2 and "backslash" in r.stderr,
          f"a value with a backslash is refused: {r.stderr[-300:]}")


def test_frames_and_stdout():
    m = write(f"{TMP}/fr.csv", "name,stride\nst,3\n")
    r = run(["--progress=jsonl", "videotestsrc num-buffers=10 ! video/x-raw,width=32,height=24 ! "
             "stagestride stride={stride} ! queue ! jpegenc ! avimux ! "
             "filesink location=" + TMP + "/fr-{name}.avi", m])
    t = table(r.stdout)
    check(r.returncode == 0 and t.get(0) == ("ok", "4"),
          f"frames are counted after stagestride, where the encoder takes them: {t}")
    # issue 37 #12: a demuxer before it has pads is no sink (its input
    # blocks were counted as frames: 87 for these 30)
    subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=30", "!",
                    "video/x-raw,width=64,height=48,framerate=30/1", "!", "x264enc", "!", "h264parse", "!",
                    "mp4mux", "name=m", "!", "filesink", f"location={TMP}/av.mp4", "audiotestsrc",
                    "num-buffers=50", "!", "avenc_aac", "!", "m."], check=True, capture_output=True)
    m = write(f"{TMP}/av.csv", f"input\n{TMP}/av.mp4\n")
    r = run(["--progress=none", "filesrc location={input} ! qtdemux ! h264parse ! fakesink", m])
    check(r.returncode == 0 and table(r.stdout).get(0) == ("ok", "30"),
          f"a demuxer is not counted as a sink: 30 frames: {table(r.stdout)}")
    # a template with an unlinked element: refused before anything runs
    m = write(f"{TMP}/unl.csv", "name\nx\n")
    for tpl, what in (("videotestsrc num-buffers=10", "videotestsrc0's source pad 'src' is not linked"),
                      ("videotestsrc num-buffers=2 ! fakesink videotestsrc name=lonely",
                       "lonely's source pad")):
        r = run(["--progress=none", tpl, m])
        check(r.returncode == 2 and what in r.stderr and not os.path.exists(f"{TMP}/unl.batch/logs/job-0.log"),
              f"an unlinked pad is bad usage, said before any job runs: {r.returncode} {r.stderr[-300:]}")
    m = write(f"{TMP}/dump.csv", "name\nd\n")
    r = run(["--progress=none", "videotestsrc num-buffers=2 ! video/x-raw,width=8,height=8 ! "
             "identity dump=true ! fakesink name={name}", m])
    log = open(f"{TMP}/dump.batch/logs/job-0.log").read()
    check(r.returncode == 0 and table(r.stdout).get(0) == ("ok", "2") and "00000000" in log,
          f"what elements print on stdout goes to the job's log, not the report: {r.stderr[-300:]}")


def test_docs_examples():
    """The blocks marked <!-- run: quickstart --> in docs/stage-batch.md and
    docs/distributed.md, in order, in one directory, as a user would."""
    src = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
    script = ["set -e"]
    for page in ("stage-batch.md", "distributed.md"):
        text = open(os.path.join(src, "docs", page), encoding="utf-8").read()
        script += re.findall(r"<!-- run: quickstart -->\n```sh\n(.*?)```", text, re.S)
    d = os.path.join(TMP, "docs")
    os.makedirs(d)
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(SB)) + ":" + env["PATH"]
    env.pop("GST_TRACERS", None)
    r = subprocess.run(["bash", "-c", "\n".join(script)], cwd=d, env=env,
                       capture_output=True, text=True, timeout=240)
    check(len(script) >= 6, f"found the docs' examples ({len(script) - 1} blocks)")
    check(r.returncode == 0, f"the docs' examples run: {r.stderr[-800:]}")
    for f in ("out/clip2-320.mp4", "prof/trace.json", "prof/summary.json",
              "shard-prof/trace.json", "k8s-prof/trace.json", "k8s-out/clip3.mp4"):
        check(os.path.exists(os.path.join(d, f)), f"the docs' examples make {f}")
    check(re.search(r"\n +2 +clip3 +ok +8 ", r.stdout), f"quick start table: {r.stdout[:600]}")


def test_stored_streams():
    # the store bins' inner elements have no factory: the check crashed
    # (exit 139, even with --dry-run) on any template with stagesink/stagesrc
    m = write(f"{TMP}/st.csv", "name,n\nsa,12\nsb,7\n")
    store = f"{TMP}/store"
    w = f"videotestsrc num-buffers={{n}} ! video/x-raw,width=64,height=48 ! stagesink store={store} stream={{name}}"
    r = run(["--progress=none", "--dry-run", w, m])
    check(r.returncode == 0 and "stagesink store=" in r.stdout,
          f"--dry-run of a stagesink template: {r.returncode} {r.stderr[-300:]}")
    r = run(["--progress=none", w, m])
    t = table(r.stdout)
    check(r.returncode == 0 and t == {0: ("ok", "12"), 1: ("ok", "7")},
          f"a batch writes stored streams: {r.returncode} {t} {r.stderr[-300:]}")
    rd = (f"stagesrc store={store} stream={{name}} ! stageresize width=32 height=24 ! "
          f"stagesink store={store} stream={{name}}-small")
    r = run(["--progress=none", rd, m])
    t = table(r.stdout)
    check(r.returncode == 0 and t == {0: ("ok", "12"), 1: ("ok", "7")},
          f"a batch reads stored streams: {r.returncode} {t} {r.stderr[-300:]}")


def store_frames(store, stream):
    """(index, pts, crc) of every packet of a stored stream, decode order."""
    db = sqlite3.connect(os.path.join(store, "catalog.db"))
    rows = db.execute("SELECT idx, pts, crc FROM frames f JOIN streams s ON s.id = f.stream "
                      "WHERE s.name = ? ORDER BY pkt", (stream,)).fetchall()
    db.close()
    return rows


def test_split():
    # one long stored stream cut into keyframe-aligned runs, one job each,
    # the parts joined: the same packets as the runs done by hand and joined
    store = f"{TMP}/split-in"
    subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=240", "pattern=ball", "!",
                    "video/x-raw,format=I420,width=160,height=120,framerate=30/1", "!", "x264enc",
                    "speed-preset=ultrafast", "key-int-max=30", "bframes=2", "!", "h264parse", "!",
                    "stagesink", f"store={store}", "stream=long"], check=True, capture_output=True)
    m = write(f"{TMP}/split.csv", "name\nlong\n")
    tpl = (f"stagesrc store={store} stream={{name}} ranges={{range}} ! stageresize width=80 height=60 ! "
           f"stagesink store={TMP}/split-out{{shard}} stream={{name}}-small{{part}}")
    r = run(["--progress=none", "--dry-run", "--split", "3", tpl.replace("{shard}", ""), m])
    lines = [l for l in r.stdout.splitlines() if l.startswith("gst-launch-1.0")]
    ranges = [re.search(r"ranges=(\d+):(\d+)", l).groups() for l in lines]
    check(r.returncode == 0 and len(lines) == 3 and ranges[0][0] == "0" and ranges[-1][1] == "240"
          and all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
          and all(int(a) % 30 == 0 for a, _ in ranges),
          f"--split 3 plans 3 keyframe-aligned runs covering every frame: {ranges} {r.stderr[-300:]}")
    # by hand: the planned lines, then stage-store join
    for l in lines:
        subprocess.run(l.replace("-out ", "-hand ").replace(f"{TMP}/split-out", f"{TMP}/split-hand"),
                       shell=True, check=True, capture_output=True, cwd=TMP)
    tool = os.path.join(os.path.dirname(SB), "stage-store")
    subprocess.run([tool, "join", f"{TMP}/split-hand"], check=True, capture_output=True)
    hand = store_frames(f"{TMP}/split-hand", "long-small")

    r = run(["--progress=jsonl", "--split", "3", "--profile", f"{TMP}/split-prof", tpl.replace("{shard}", ""), m])
    ev = [e for e in events(r.stderr) if e.get("event") == "join"]
    try:
        with open(f"{TMP}/split-prof/summary.json") as f:
            prof = json.load(f)
    except (OSError, ValueError):
        prof = {}
    check(sorted((j.get("job"), j.get("status")) for j in prof.get("jobs", [])) == [(0, "ok"), (1, "ok"), (2, "ok")],
          f"--split 3 --profile: the parts' profiles merged: {prof.get('jobs')} "
          f"(exit {r.returncode}: {r.stderr[-400:]})")
    got = store_frames(f"{TMP}/split-out", "long-small")
    check(r.returncode == 0 and len(ev) == 1 and ev[0]["ok"] and ev[0]["parts"] == 3,
          f"--split 3: the parts joined: {r.returncode} {ev} {r.stderr[-300:]}")
    check(len(got) == 240 and got == hand and sorted(f[0] for f in got) == list(range(240)),
          f"--split 3: 240 frames, the packets of the runs done by hand ({len(got)}, {len(hand)})")
    pts = sorted(f[1] for f in got)
    check(all(abs((b - a) - 1e9 / 30) < 2 for a, b in zip(pts, pts[1:])),
          "--split 3: even timestamps across the parts")

    # issue 37 #3: --resume after a completed split batch: nothing to do,
    # exit 0; with the joined stream removed, the parts run and join again
    rtpl = tpl.replace("split-out{shard}", "split-res")
    args = ["--progress=none", "--split", "3", "--resume", "--state-dir", f"{TMP}/split-res-state", rtpl, m]
    r1 = run(args)
    r2 = run(args)
    check(r1.returncode == 0 and r2.returncode == 0 and "joined by an earlier run" in r2.stderr
          and store_frames(f"{TMP}/split-res", "long-small") == hand,
          f"--split --resume after a completed batch: done, the stream as it was: {r2.returncode} {r2.stderr[-300:]}")
    subprocess.run([tool, "rm", f"{TMP}/split-res", "long-small"], check=True, capture_output=True)
    r3 = run(args)
    check(r3.returncode == 0 and "joined 3 parts" in r3.stderr
          and store_frames(f"{TMP}/split-res", "long-small") == hand,
          f"--split --resume with the joined stream removed: the parts again: {r3.returncode} {r3.stderr[-300:]}")

    # two shards, a store each ({shard}); merging the stores joins the parts
    for i in range(2):
        r = run(["--progress=none", "--split", "3", "--shard", f"{i}/2", "--state-dir",
                 f"{TMP}/split-state{i}", tpl, m])
        check(r.returncode == 0 and "stage-store merge" in r.stderr,
              f"--split with --shard {i}/2: {r.returncode} {r.stderr[-300:]}")
    r = subprocess.run([tool, "merge", f"{TMP}/split-all", f"{TMP}/split-out0", f"{TMP}/split-out1"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "joined long-small" in r.stderr
          and store_frames(f"{TMP}/split-all", "long-small") == hand,
          f"shards' stores merged: the same stream: {r.stderr[-300:]}")

    # what --split cannot do is said before anything runs
    r = run(["--progress=none", "--split", "3", tpl.replace("{range}", "0:10"), m])
    check(r.returncode == 2 and "{range}" in r.stderr, f"--split without {{range}}: {r.stderr[-200:]}")
    r = run(["--progress=none", "--split", "3", tpl.replace("{{part}}", "").replace("{part}", ""), m])
    check(r.returncode == 2 and "{part}" in r.stderr, f"--split without {{part}}: {r.stderr[-200:]}")
    bad = write(f"{TMP}/split-bad.csv", "name\nlong\nlnog\n")
    r = run(["--progress=none", "--split", "3", tpl, bad])
    check(r.returncode == 2 and "split-bad.csv:3" in r.stderr and "lnog" in r.stderr,
          f"--split of a stream the store lacks names the row: {r.stderr[-300:]}")


def max_overlap(ev):
    """The most jobs running at once, from job-start/job-end events."""
    cur = top = 0
    for e in ev:
        if e["event"] == "job-start":
            cur += 1
            top = max(top, cur)
        elif e["event"] == "job-end":
            cur -= 1
    return top


def test_cpu_limits():
    m = write(f"{TMP}/cpu.csv", "name,n,sleep\n" + "".join(f"c{i},4,1000\n" for i in range(6)))
    r = subprocess.run(["taskset", "-c", "0", SB, "--progress=jsonl", SLOW, m],
                       capture_output=True, text=True, cwd=TMP, timeout=120)
    ev = events(r.stderr)
    st = ev[0] if ev else {}
    check(r.returncode == 0 and st.get("cpus") == 1 and st.get("parallel") == 1
          and "affinity" in st.get("parallel_why", "") and max_overlap(ev) == 1,
          f"--jobs auto under taskset -c 0: one CPU, one job at a time: {st} {max_overlap(ev)}")
    cg = f"{TMP}/cgroup"
    os.makedirs(cg, exist_ok=True)
    write(f"{cg}/cpu.max", "50000 100000\n")
    r = run(["--progress=jsonl", SLOW, m], env={"STAGE_BATCH_CGROUP_ROOT": cg})
    ev = events(r.stderr)
    st = ev[0] if ev else {}
    check(r.returncode == 0 and st.get("cpus") == 1 and "cgroup quota" in st.get("parallel_why", "")
          and max_overlap(ev) == 1,
          f"--jobs auto under a half-CPU cgroup quota: one job at a time: {st} {max_overlap(ev)}")
    r = run(["--progress=jsonl", SLOW, m])
    ev = events(r.stderr)
    cpus = len(os.sched_getaffinity(0))
    check(r.returncode == 0 and max_overlap(ev) <= cpus,
          f"--jobs auto never runs more jobs than CPUs ({cpus}): {max_overlap(ev)}")
    r = run(["--progress=bar", SLOW, m])
    check("jobs at once" in r.stderr or "job at once" in r.stderr,
          f"the bar says how many jobs run at once and why: {r.stderr[:300]!r}")


def test_eta():
    # jobs of one cost whose rows name inputs of very different sizes: the
    # ETA followed the share of bytes done and said "almost done" once the
    # big rows (run first) had finished, with most of the time still ahead
    rows = []
    for i in range(8):
        f = write(f"{TMP}/eta-{i}.bin", "x" * (200000 // (i + 1) ** 2))
        rows.append(f"e{i},{f},20,20000\n")
    m = write(f"{TMP}/eta.csv", "name,input,n,sleep\n" + "".join(rows))
    # the row's input file is read (a second branch), so it weighs the job
    tpl = SLOW + " filesrc location={input} ! fakesink"
    r = run(["--jobs", "1", "--progress=jsonl", tpl, m])
    ev = events(r.stderr)
    end = [e for e in ev if e["event"] == "end"]
    prog = [e for e in ev if e["event"] == "progress" and e.get("eta_s") is not None
            and e["done"] >= 2 and e["pending"] >= 2]
    ratios = [e["eta_s"] / max(end[0]["wall_s"] - e["t_s"], 1e-3) for e in prog] if end else []
    check(r.returncode == 0 and ratios and all(0.6 <= x <= 1.6 for x in ratios),
          f"the ETA is within 0.6-1.6x of the time left: {[round(x, 2) for x in ratios]}")


def test_ctrl_c_race():
    # a terminal's Ctrl-C goes to the whole process group; a job started a
    # few ms before it died of it (reported crashed: signal 2) before the
    # launcher made its children ignore SIGINT from their first instant
    m = write(f"{TMP}/race.csv", "name,n,sleep\nr0,6,20000\nr1,6,20000\n")
    crashed = 0
    for attempt in range(4):
        p = subprocess.Popen([SB, "--jobs", "1", "--progress=jsonl", SLOW, m], cwd=TMP,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        deadline = time.time() + 30
        while time.time() < deadline and not any("--run-one" in cmdline(k)
                                                  for k in children(p.pid)):
            time.sleep(0.001)
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=120)
        ends = [e for e in events(err) if e["event"] == "job-end"]
        crashed += sum(1 for e in ends if e["status"] != "ok")
        shutil.rmtree(f"{TMP}/race.batch", ignore_errors=True)
    check(crashed == 0, f"Ctrl-C right after a job starts lets it finish: {crashed} crashed in 4 tries")


def main():
    tests = [test_help, test_basic_run, test_dry_run_and_input, test_quoting, test_bad_input,
             test_failures_and_crash, test_timeout_and_retries, test_resume_after_kill9,
             test_shards_and_profile, test_jobs_and_progress, test_interrupt,
             test_manifest_and_braces, test_special_outputs, test_values_are_data,
             test_stored_streams, test_split, test_cpu_limits,
             test_ctrl_c_race, test_eta,
             test_frames_and_stdout,
             test_docs_examples]
    only = sys.argv[1:]
    try:
        for t in tests:
            if only and t.__name__ not in only:
                continue
            t0 = time.time()
            t()
            print(f"{t.__name__}: {time.time() - t0:.1f} s", flush=True)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print(f"{len(FAILED)} failures")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
