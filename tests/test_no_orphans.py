"""A run killed with SIGKILL leaves no process behind (pool workers, sandboxes, controller
sessions), and the same command then resumes and finishes.

The run is started by a supervisor process that makes itself a child subreaper
(PR_SET_CHILD_SUBREAPER): whatever the killed run leaves running is re-parented to the supervisor,
so "nothing left" is exact: no child of the supervisor remains, at any depth of the old tree.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from simreflect.run.store import RunStore

SUPERVISOR = r"""
import ctypes, json, os, signal, subprocess, sys, time

PR_SET_CHILD_SUBREAPER = 36
assert ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
argv = json.loads(sys.argv[1])
me = os.getpid()


def table():
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2:].split()
            out[int(d)] = (int(fields[1]), comm, fields[0])
    return out


def descendants(root, procs):
    found, todo = [], [root]
    while todo:
        p = todo.pop()
        for pid, (ppid, comm, state) in procs.items():
            if ppid == p:
                found.append((pid, comm, state))
                todo.append(pid)
    return found


run = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
seen, deadline = [], time.monotonic() + 240
while time.monotonic() < deadline and run.poll() is None:
    procs = table()
    tree = descendants(run.pid, procs)
    workers = {pid for pid, (ppid, comm, state) in procs.items() if ppid == run.pid}
    sandboxes = [pid for pid, comm, state in tree if comm == "bwrap" and procs[pid][0] in workers]
    # a bwrap whose sandboxed program has started (bwrap alone is a sandbox still being set up)
    running = [pid for pid in sandboxes if any(ppid == pid for ppid, _, _ in procs.values())]
    if len(workers) >= 2 and running:  # mid-episode: a pool worker is running a sandboxed program
        seen = tree
        break
    time.sleep(0.05)
if not seen:
    print(json.dumps({"killed": False, "returncode": run.poll()}))
    sys.exit(0)
os.kill(run.pid, signal.SIGKILL)
run.wait()
left, deadline = [], time.monotonic() + 60
while time.monotonic() < deadline:
    while True:  # reap the orphans that have died
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    left = [p for p in descendants(me, table()) if p[2] != "Z"]
    if not left:
        break
    time.sleep(0.1)
print(json.dumps({"killed": True, "seen": seen, "left": left}))
"""


def cli_run(out: Path) -> list[str]:
    return [sys.executable, "-m", "simreflect.cli", "run", "pace", "--agent", "oracle", "--tasks", "control_lander.*",
            "--runs", "1", "--workers", "2", "--out", str(out)]


@pytest.mark.slow
def test_sigkill_of_a_run_leaves_no_process_and_the_run_resumes(tmp_path):
    out = tmp_path / "run"
    res = subprocess.run([sys.executable, "-c", SUPERVISOR, json.dumps(cli_run(out))], capture_output=True, text=True,
                         timeout=400)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert report["killed"], f"the run ended before a sandbox was seen: {report}"
    comms = Counter(comm for _, comm, _ in report["seen"])
    assert comms["bwrap"] >= 1 and len(report["seen"]) >= 4, report["seen"]  # workers, bwrap, the sandboxed programs
    assert report["left"] == [], f"processes of the killed run still running: {report['left']}"

    done = subprocess.run(cli_run(out), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    records, damaged = RunStore(out).records()
    ends = Counter((r["task"], r["level"]) for r in records if r["type"] == "end")
    rounds = Counter((r["task"], r["level"], r["round"]) for r in records if r["type"] == "round")
    assert len(ends) == 4 and all(n == 1 for n in ends.values()), ends
    assert all(n == 1 for n in rounds.values()), rounds
    assert all(r["passed"] for r in records if r["type"] == "round")  # the references pass
