#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/distributed.md's Slurm recipe on a real Slurm, and its Kubernetes
Job checked against it.

Starts munged, slurmctld and slurmd on localhost (one node, 2 CPUs, every
file in one temporary folder), submits the page's sbatch script and submit
commands as written, overriding only what a one-node cluster needs on the
sbatch command line (--array=0-2, --cpus-per-task=1, --output), waits for
the array and its dependent merge, and holds the outputs and the merged
profile to a one-machine stage-batch run of the same manifest and template.
The page's Kubernetes Job is parsed and must run the same command.

Skips (exit 77, with the reason and the daemon's log) only where the
daemons cannot start. Every daemon it started is stopped by its pid, and
any process left from its jobs is killed, whatever happens."""
import ctypes
import json
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SKIP = 77
SB = os.path.abspath(os.environ.get("STAGE_BATCH") or shutil.which("stage-batch") or "stage-batch")
SRC = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TMP = tempfile.mkdtemp(prefix="stage-slurm-test-")
BATCH = os.path.join(TMP, "batch")     # the recipe's shared folder
LOCAL = os.path.join(TMP, "local")     # the one-machine run
LOGS = os.path.join(TMP, "log")        # the daemons' own logs
SHARDS = 3
# 2-second clips at 320x240, resized to a size per row
CLIPS = [("smpte", 0, 60, 160, 120), ("ball", 18, 60, 240, 180), ("pinwheel", 22, 45, 176, 144)]
# what the test overrides in the submit block, and nothing else
ARRAY_SUBMIT = "sbatch --parsable resize-batch.sbatch"
OVERRIDES = f"--array=0-{SHARDS - 1} --cpus-per-task=1 --output={BATCH}/logs/shard-%a.out"
FAILED = []
DAEMONS = []  # (name, Popen, log path)


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL:", what, flush=True)
    return cond


def tail(path, n=25):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError as e:
        return f"({e})"


# --- the page ---------------------------------------------------------------

def page():
    text = open(os.path.join(SRC, "docs", "distributed.md"), encoding="utf-8").read()
    blocks = dict(re.findall(r"<!-- slurm: (\S+) -->\n```sh\n(.*?)```", text, re.S))
    yaml_blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    return blocks, yaml_blocks


def command_args(script):
    """The arguments of the script's `exec stage-batch ...` line, unexpanded
    ($BATCH stays as written)."""
    joined = re.sub(r"\\\n\s*", " ", script)
    line = [l for l in joined.splitlines() if l.startswith("exec stage-batch ")]
    return shlex.split(line[0])[2:] if len(line) == 1 else None


def normalised(args, root, var):
    """--opt=value split into --opt value, and the shared folder named ROOT."""
    out = []
    for a in args:
        a = a.replace(var, root)
        if a.startswith("--") and "=" in a:
            out += a.split("=", 1)
        else:
            out.append(a)
    return out


def test_kubernetes(script, yaml_blocks):
    """The Indexed Job runs what the Slurm test proves: the same command and
    template on /data, one shard per completion, a CPU quota --jobs auto
    can see."""
    import yaml
    if not check(len(yaml_blocks) == 1, f"one YAML block on the page ({len(yaml_blocks)})"):
        return
    job = yaml.safe_load(yaml_blocks[0])
    spec = job.get("spec", {})
    check(job.get("apiVersion") == "batch/v1" and job.get("kind") == "Job",
          f"the YAML is a batch/v1 Job: {job.get('apiVersion')} {job.get('kind')}")
    check(spec.get("completionMode") == "Indexed", "the Job is Indexed")
    cs = spec.get("template", {}).get("spec", {}).get("containers", [])
    if not check(len(cs) == 1, f"one container ({len(cs)})"):
        return
    c = cs[0]
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    check(env.get("STAGE_BATCH_SHARDS") == str(spec.get("completions")),
          f"STAGE_BATCH_SHARDS ({env.get('STAGE_BATCH_SHARDS')}) equals completions "
          f"({spec.get('completions')})")
    res = c.get("resources", {})
    lim, req = res.get("limits", {}).get("cpu"), res.get("requests", {}).get("cpu")
    check(lim is not None and str(lim) == str(req), f"limits.cpu ({lim}) equals requests.cpu ({req})")
    cmd = c.get("command", [])
    check(cmd[:1] == ["stage-batch"] and "--resume" in cmd, f"the command is stage-batch --resume: {cmd[:2]}")
    slurm = command_args(script)
    if check(slurm is not None, "the Slurm script has one `exec stage-batch` line"):
        k8s = normalised(cmd[1:], "/data", "$BATCH")
        sl = normalised(slurm, "/data", "$BATCH")
        check(k8s == sl, f"the Job's command is the Slurm script's, on /data:\n  k8s:   {k8s}\n  slurm: {sl}")


# --- the daemons --------------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def child_env():
    """The environment of everything started here: no outer Slurm or shard
    variables, the build's stage-batch first on PATH (sbatch passes PATH to
    the tasks), and a marker that finds leftover job processes."""
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("SLURM_", "SBATCH_", "SALLOC_", "SRUN_"))
         and k not in ("GST_TRACERS", "JOB_COMPLETION_INDEX", "STAGE_BATCH_SHARDS")}
    e["PATH"] = os.path.dirname(SB) + ":" + e.get("PATH", "/usr/bin:/bin")
    e["SLURM_CONF"] = os.path.join(TMP, "slurm.conf")
    e["STAGES_SLURM_TEST"] = TMP
    # ORC's JIT writes its code files under XDG_RUNTIME_DIR, else HOME
    e["XDG_RUNTIME_DIR"] = TMP
    return e


def die_with_parent():
    # PR_SET_PDEATHSIG: a daemon gets SIGTERM if the test is killed outright
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


def start(name, argv):
    log = os.path.join(LOGS, name + ".out")
    with open(log, "w") as out:
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=child_env(),
                             cwd=TMP, start_new_session=True, preexec_fn=die_with_parent)
    DAEMONS.append((name, p, log))
    return p


def wait_until(what, p, log, ok, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if p.poll() is not None:
            raise Skip(f"{what} exited ({p.returncode}) as it started; its log:\n{tail(log)}")
        if ok():
            return
        time.sleep(0.2)
    raise Skip(f"{what} did not come up in {timeout} s; its log:\n{tail(log)}")


def quiet(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, env=child_env(), cwd=TMP,
                          timeout=30, **kw)


def start_munge():
    d = os.path.join(TMP, "munge")
    os.makedirs(d)
    os.chmod(d, 0o755)  # munged wants its socket's folder searchable by all
    key = os.path.join(d, "munge.key")
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, os.urandom(1024))
    os.close(fd)
    sock = os.path.join(d, "munge.socket")
    p = start("munged", ["munged", "--foreground", f"--key-file={key}", f"--socket={sock}",
                         f"--pid-file={d}/munged.pid", f"--log-file={LOGS}/munged.log",
                         f"--seed-file={d}/munged.seed"])

    def answers():
        cred = quiet(["munge", "-n", "-S", sock])
        return cred.returncode == 0 and quiet(["unmunge", "-S", sock],
                                              input=cred.stdout).returncode == 0
    wait_until("munged", p, DAEMONS[-1][2], answers, 15)
    return sock


def write_conf(sock):
    user = pwd.getpwuid(os.getuid()).pw_name
    for d in ("state", "spool"):
        os.makedirs(os.path.join(TMP, d))
    # no cgroups (proctrack/linuxproc, no accounting), so it runs in a
    # container; task/affinity binds each task to its --cpus-per-task, which
    # stage-batch's --jobs auto counts
    conf = f"""ClusterName=stagestest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={TMP}/state
SlurmdSpoolDir={TMP}/spool
SlurmctldPidFile={TMP}/slurmctld.pid
SlurmdPidFile={TMP}/slurmd.pid
SlurmctldLogFile={LOGS}/slurmctld.log
SlurmdLogFile={LOGS}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=stages Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"""
    with open(os.path.join(TMP, "slurm.conf"), "w") as f:
        f.write(conf)
    # Slurm 23.11 and later start their cgroup plugin whatever the
    # proctrack: told it is off (where /sys/fs/cgroup is not mounted, as in
    # a chroot), slurmd starts; older ones refuse the value
    v = subprocess.run(["slurmd", "-V"], capture_output=True, text=True).stdout
    m = re.search(r"(\d+)\.(\d+)", v)
    if m and (int(m.group(1)), int(m.group(2))) >= (23, 11):
        with open(os.path.join(TMP, "cgroup.conf"), "w") as f:
            f.write("CgroupPlugin=disabled\n")


def start_slurm():
    for prog in ("munged", "munge", "unmunge", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo"):
        if not shutil.which(prog):
            raise Skip(f"{prog} is not installed (Debian: slurm-wlm and munge; "
                       f"scripts/deps.sh installs them)")
    os.makedirs(LOGS)
    t0 = time.time()
    sock = start_munge()
    write_conf(sock)
    conf = os.path.join(TMP, "slurm.conf")
    p = start("slurmctld", ["slurmctld", "-D", "-f", conf])
    wait_until("slurmctld", p, f"{LOGS}/slurmctld.log",
               lambda: quiet(["scontrol", "ping"]).returncode == 0, 30)
    p = start("slurmd", ["slurmd", "-D", "-f", conf, "-N", "localhost"])
    wait_until("slurmd", p, f"{LOGS}/slurmd.log",
               lambda: quiet(["sinfo", "-h", "-n", "localhost", "-o", "%T"]).stdout.strip() == "idle",
               30)
    print(f"slurm: munged, slurmctld and slurmd up in {time.time() - t0:.1f} s ({TMP})", flush=True)


def marked_processes():
    """Processes started for this test's jobs (they inherit the marker)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if ("STAGES_SLURM_TEST=" + TMP).encode() in env:
            pids.append(int(d))
    return pids


def stop_all():
    if any(n == "slurmctld" and p.poll() is None for n, p, _ in DAEMONS):
        quiet(["scancel", "--user", pwd.getpwuid(os.getuid()).pw_name])
    for name, p, _ in reversed(DAEMONS):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                print(f"{name} ({p.pid}) ignored SIGTERM: killed", flush=True)
                p.kill()
                p.wait()
    # slurmstepd and the jobs under it are not the daemons' children
    for pid in marked_processes():
        try:
            os.kill(pid, signal.SIGKILL)
            print(f"killed a leftover job process {pid}: {cmdline(pid)}", flush=True)
        except OSError:
            pass


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read().replace("\0", " ").strip()
    except OSError:
        return ""


# --- the batch -----------------------------------------------------------------

def make_clips():
    os.makedirs(os.path.join(TMP, "clips"))
    os.makedirs(BATCH)
    rows = ["input,width,height"]
    for name, pattern, frames, w, h in CLIPS:
        path = os.path.join(TMP, "clips", name + ".mp4")
        subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", f"num-buffers={frames}",
                        f"pattern={pattern}", "!",
                        "video/x-raw,format=I420,width=320,height=240,framerate=30/1", "!",
                        "openh264enc", "!", "h264parse", "!", "mp4mux", "!", "filesink",
                        f"location={path}"], check=True, capture_output=True, timeout=60, env=child_env())
        rows.append(f"{path},{w},{h}")
    with open(os.path.join(BATCH, "jobs.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")


def jobs():
    """Every job slurmctld knows: a dict of its fields per job."""
    r = quiet(["scontrol", "-o", "show", "job"])
    out = []
    for line in r.stdout.splitlines():
        out.append(dict(re.findall(r"(\w+)=(\S*)", line)))
    return out


def submit_and_wait(blocks):
    with open(os.path.join(TMP, "resize-batch.sbatch"), "w") as f:
        f.write(blocks["resize-batch.sbatch"])
    submit = blocks["submit"]
    if not check(submit.count(ARRAY_SUBMIT) == 1, f"the submit block runs `{ARRAY_SUBMIT}` once"):
        return None
    submit = submit.replace(ARRAY_SUBMIT, ARRAY_SUBMIT.replace(" resize-batch", f" {OVERRIDES} resize-batch"))
    env = child_env()
    env["BATCH"] = BATCH
    r = subprocess.run(["bash", "-euc", submit], cwd=TMP, env=env, capture_output=True,
                       text=True, timeout=60)
    if not check(r.returncode == 0, f"the submit block runs: {r.returncode} {r.stderr[-500:]}"):
        return None
    m = re.search(r"Submitted batch job (\d+)", r.stdout)
    check(m, f"the merge job is submitted: {r.stdout!r}")
    deadline = time.time() + 180
    while time.time() < deadline:
        js = jobs()
        # a merge after a failed array task waits forever
        if js and all(j.get("JobState") not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING",
                                                 "REQUEUED", "RESIZING", "SUSPENDED")
                      or j.get("Reason") == "DependencyNeverSatisfied" for j in js):
            break
        time.sleep(0.5)
    else:
        check(False, f"the jobs end within 180 s: {[(j.get('JobId'), j.get('JobState')) for j in js]}")
    return js, m.group(1) if m else None


def decoded_frames(path):
    """Each decoded frame's timestamp and MD5, in I420."""
    r = subprocess.run(["gst-launch-1.0", "-q", "filesrc", f"location={path}", "!", "qtdemux",
                        "!", "h264parse", "!", "avdec_h264", "!", "videoconvert", "!",
                        "video/x-raw,format=I420", "!", "checksumsink", "hash=md5"],
                       capture_output=True, text=True, timeout=60, env=child_env())
    return [l.split() for l in r.stdout.splitlines() if re.match(r"\d+:\d\d:\d\d\.\d+ [0-9a-f]{32}$", l)]


def summary_jobs(prof, root):
    """A merged summary's jobs, with ROOT in their paths written BATCH."""
    s = json.load(open(os.path.join(prof, "summary.json")))
    out = []
    for j in s["jobs"]:
        out.append((j["job"], j["label"], j["status"], j["frames"],
                    j["pipeline"].replace(root, "BATCH"),
                    tuple(o.replace(root, "BATCH") for o in j.get("outputs", []))))
    return sorted(out), s["totals"]


def process_names(prof):
    trace = json.load(open(os.path.join(prof, "trace.json")))
    return sorted(e["args"]["name"] for e in trace if e.get("name") == "process_name")


def test_slurm(blocks):
    make_clips()
    args = command_args(blocks["resize-batch.sbatch"]) or []
    tpl = [a for a in args if a.startswith("filesrc ")]
    if not check(len(tpl) == 1 and "$BATCH/out/" in tpl[0], f"the script's template writes to $BATCH/out: {tpl}"):
        return
    start_slurm()
    t0 = time.time()
    res = submit_and_wait(blocks)
    if res is None:
        return
    js, merge_id = res
    print(f"slurm: submitted, ran and merged in {time.time() - t0:.1f} s", flush=True)
    tasks = sorted((int(j["ArrayTaskId"]), j) for j in js if j.get("ArrayTaskId", "").isdigit())
    merge = [j for j in js if j.get("JobId") == merge_id]
    check([t for t, _ in tasks] == list(range(SHARDS)),
          f"the array ran tasks 0 to {SHARDS - 1}: {[t for t, _ in tasks]}")
    for t, j in tasks:
        check(j.get("JobState") == "COMPLETED" and j.get("ExitCode") == "0:0",
              f"task {t}: {j.get('JobState')} {j.get('ExitCode')}, log:\n{tail(f'{BATCH}/logs/shard-{t}.out')}")
        check(j.get("JobName") == "resize-batch" and j.get("NumCPUs") == "1",
              f"task {t} is the script's resize-batch on its 1 CPU: {j.get('JobName')} {j.get('NumCPUs')}")
    if check(len(merge) == 1 and merge[0].get("JobState") == "COMPLETED",
             f"the merge job completed: {merge and (merge[0].get('JobState'), merge[0].get('Reason'))} "
             f"{tail(os.path.join(TMP, f'slurm-{merge_id}.out'))}"):
        last_end = max(j["EndTime"] for _, j in tasks)
        check(merge[0]["StartTime"] >= last_end,
              f"the merge started after the array ended: {merge[0]['StartTime']} < {last_end}")
    # each task's shard, from its own log (stderr goes to --output too)
    for t in range(SHARDS):
        log = f"{BATCH}/logs/shard-{t}.out"
        ev = [json.loads(l) for l in open(log) if l.startswith("{")] if os.path.exists(log) else []
        start_ev = [e for e in ev if e["event"] == "start"]
        ends = [(e["job"], e["status"]) for e in ev if e["event"] == "job-end"]
        check(start_ev and start_ev[0].get("shard") == f"{t}/{SHARDS}" and start_ev[0].get("cpus") == 1,
              f"task {t} is shard {t}/{SHARDS} and --jobs auto counts its one CPU: {start_ev}")
        check(ends == [(t, "ok")], f"shard {t} ran job {t} only: {ends}")

    # the same manifest and template on one machine
    local_tpl = tpl[0].replace("$BATCH", LOCAL)
    r = subprocess.run([SB, "--resume", "--jobs", "auto", "--progress=jsonl",
                        "--state-dir", f"{LOCAL}/state", "--profile", f"{LOCAL}/prof",
                        local_tpl, f"{BATCH}/jobs.csv"],
                       cwd=TMP, env=child_env(), capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"the one-machine run: {r.returncode} {r.stderr[-500:]}")

    outs = sorted(os.listdir(f"{BATCH}/out")) if os.path.isdir(f"{BATCH}/out") else []
    want = sorted(f"{n}-{w}.mp4" for n, _, _, w, _ in CLIPS)
    check(outs == want, f"Slurm's outputs: {outs}, expected {want}")
    check(sorted(os.listdir(f"{LOCAL}/out")) == want, f"one machine's outputs: {os.listdir(f'{LOCAL}/out')}")
    for name, _, n, w, _ in CLIPS:
        f = f"{name}-{w}.mp4"
        a, b = decoded_frames(f"{BATCH}/out/{f}"), decoded_frames(f"{LOCAL}/out/{f}")
        check(len(a) == n and a == b,
              f"{f}: the same {n} frames from Slurm and one machine ({len(a)} and {len(b)}"
              f"{', different' if a != b and len(a) == len(b) else ''})")

    # the merged profile: every job once, ok, as in the one-machine run
    for i in range(SHARDS):
        check(os.path.exists(f"{BATCH}/prof/trace.shard-{i}-of-{SHARDS}.json"),
              f"shard {i} merged its own profile")
    if check(os.path.exists(f"{BATCH}/prof/summary.json") and os.path.exists(f"{BATCH}/prof/trace.json"),
             "the merge job wrote summary.json and trace.json"):
        sj, st = summary_jobs(f"{BATCH}/prof", BATCH)
        lj, lt = summary_jobs(f"{LOCAL}/prof", LOCAL)
        check([j[0] for j in sj] == list(range(len(CLIPS))) and all(j[2] == "ok" for j in sj),
              f"the merged summary has every job once, ok: {[(j[0], j[2]) for j in sj]}")
        check(st["status"] == {"ok": len(CLIPS)} and st["frames"] == sum(c[2] for c in CLIPS),
              f"the merged totals: {st['status']} {st['frames']}")
        check(sj == lj, f"the merged summary's jobs are the one-machine run's:\n  {sj}\n  {lj}")
        pn, ln = process_names(f"{BATCH}/prof"), process_names(f"{LOCAL}/prof")
        check(pn == ln and len(pn) == len(CLIPS), f"the merged trace has a process per job: {pn} {ln}")
    rep = os.environ.get("STAGEPROF_REPORT")
    if rep and os.path.exists(f"{BATCH}/prof/trace.json"):
        r = subprocess.run([rep, "show", f"{BATCH}/prof/trace.json"], capture_output=True, text=True,
                           timeout=60, env=child_env())
        check(r.returncode == 0 and all(f"job {i} " in r.stdout for i in range(len(CLIPS))),
              f"stageprof-report reads the merged trace: {r.returncode} {r.stdout[:300]}")


def main():
    # meson's timeout sends SIGTERM: stop the daemons on the way out
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("SIGTERM"))
    t0 = time.time()
    skipped = None
    try:
        os.chmod(TMP, 0o755)  # munged checks every folder above its socket
        blocks, yaml_blocks = page()
        if check(set(blocks) == {"resize-batch.sbatch", "submit"},
                 f"docs/distributed.md marks the Slurm script and its submit block: {sorted(blocks)}"):
            test_kubernetes(blocks["resize-batch.sbatch"], yaml_blocks)
            try:
                test_slurm(blocks)
            except Skip as e:
                skipped = str(e)
    finally:
        stop_all()
        time.sleep(0.2)
        left = [(pid, cmdline(pid)) for pid in marked_processes()]
        check(not left, f"nothing it started is left running: {left}")
        shutil.rmtree(TMP, ignore_errors=True)
    print(f"{time.time() - t0:.1f} s, {len(FAILED)} failures", flush=True)
    if FAILED:
        return 1
    if skipped:
        print("#" * 72 + f"\nSKIP: the Slurm test did not run: {skipped}\n" + "#" * 72, flush=True)
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
