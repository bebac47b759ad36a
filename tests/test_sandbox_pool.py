"""Pre-started launchers (core/sandbox/launcher.py): a run from the pool is confined like any
other, and nothing of one program reaches the next one started from the same pool."""

from __future__ import annotations

import json
import sys

import pytest

from simreflect.core import sandbox
from simreflect.core.sandbox import Limits, isolation_report, open_session, run_sandboxed
from simreflect.core.sandbox.launcher import launcher_pool

REPORT = isolation_report()
FULL = REPORT["mode"] == "bwrap" and "cpuacct" in REPORT["cgroup"] and "memory" in REPORT["cgroup"]
pytestmark = pytest.mark.skipif(not FULL, reason="needs bubblewrap and the memory and cpuacct cgroups")


@pytest.fixture(autouse=True)
def launchers_on(monkeypatch):
    """Launchers are off by default (they cost CPU); these tests are about runs that start from them."""
    monkeypatch.setenv("SIMREFLECT_SANDBOX_LAUNCHERS", "1")
    monkeypatch.setenv("SIMREFLECT_SANDBOX_ZYGOTE", "0")  # a pre-forked sandbox is taken before a launcher

#: The first program leaves whatever it can: a file in /tmp and in the work directory's parent's
#: view, an environment variable, a module on sys.path, an inherited open fd, a daemon process,
#: 120 MB of memory and half a second of CPU.
FIRST = r"""
import os, subprocess, sys, time
open("/tmp/left-by-first", "w").write("x")
open("/workdir/left-by-first", "w").write("x")
os.environ["LEFT_BY_FIRST"] = "1"
os.makedirs("/tmp/mods", exist_ok=True)
open("/tmp/mods/leftmod.py", "w").write("X = 1\n")
fd = os.open("/workdir/left-by-first", os.O_RDONLY)
os.set_inheritable(fd, True)
subprocess.Popen(["sleep", "30"], start_new_session=True, close_fds=False)
hog = bytearray(120 << 20)
for i in range(0, len(hog), 4096):
    hog[i] = 1
end = time.process_time() + 0.5
while time.process_time() < end:
    pass
print("first done", fd)
"""

#: The second program reports what it finds.
SECOND = r"""
import json, os, sys
found = {
    "tmp": sorted(os.listdir("/tmp")),
    "workdir": sorted(os.listdir("/workdir")),
    "env": sorted(k for k in os.environ if "FIRST" in k),
    "leftmod": any("leftmod" in m for m in sys.modules),
    "fds": sorted(int(f) for f in os.listdir("/proc/self/fd")),
    "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "cmdlines": [open(f"/proc/{p}/cmdline", "rb").read().decode(errors="replace")
                 for p in os.listdir("/proc") if p.isdigit()],
}
print(json.dumps(found))
"""


def _ready_pool():
    pool = launcher_pool(sandbox.probe._probe()["_cgroups"])
    assert pool.wait_ready(30), "no launcher was ready within 30 s"
    return pool


def test_two_programs_back_to_back_in_the_pool_share_nothing(tmp_path):
    first_dir, second_dir = tmp_path / "first", tmp_path / "second"
    first_dir.mkdir()
    second_dir.mkdir()
    limits = Limits(wall_s=30, cpu_s=30, memory_mb=512)
    pool = _ready_pool()
    used = pool.used
    first = run_sandboxed([sys.executable, "-c", FIRST], first_dir, limits)
    assert first.ok, first.reason + first.output_tail
    assert pool.used == used + 1  # the first came from the pool
    assert first.usage["cpu_s"] >= 0.5 and first.usage["peak_memory_mb"] >= 120
    _ready_pool()
    second = run_sandboxed([sys.executable, "-c", SECOND], second_dir, limits)
    assert second.ok, second.reason + second.output_tail
    assert pool.used == used + 2  # and so did the second
    found = json.loads(second.output_tail.strip().splitlines()[-1])
    assert found["tmp"] == [] and found["workdir"] == [] and found["env"] == [] and not found["leftmod"]
    assert found["fds"] == [0, 1, 2, 3]  # stdio and the directory listing itself
    assert not any("sleep" in c for c in found["cmdlines"]), found["cmdlines"]
    # the cgroup's counters are the second program's alone: not the first's CPU or memory, and
    # not the launcher's own start-up either
    assert second.usage["cpu_s"] < 0.4, second.usage
    assert second.usage["peak_memory_mb"] < 100, second.usage
    assert (first_dir / "left-by-first").exists() and not (second_dir / "left-by-first").exists()


def test_a_session_from_the_pool_answers_and_is_confined(tmp_path):
    (tmp_path / "echo.py").write_text("import os, sys\nfor line in sys.stdin:\n"
                                      "    print(line.strip()[:-1] + ', \"uid\": %d}' % os.getuid(), flush=True)\n")
    pool = _ready_pool()
    used = pool.used
    with open_session([sys.executable, f"{sandbox.SANDBOX_WORKDIR}/echo.py"], tmp_path, Limits(wall_s=30)) as s:
        assert s.request({"n": 1}, 10) == {"n": 1, "uid": sandbox.SANDBOX_UID}
        assert s.request({"n": 2}, 10) == {"n": 2, "uid": sandbox.SANDBOX_UID}
    result = s.close()
    assert pool.used == used + 1
    assert result.ok and result.usage["requests"] == 2, result.reason


def test_limits_hold_for_a_program_from_the_pool(tmp_path):
    _ready_pool()
    r = run_sandboxed([sys.executable, "-c", "x = bytearray(400 << 20)\nfor i in range(0, len(x), 4096): x[i] = 1"],
                      tmp_path, Limits(wall_s=30, memory_mb=128))
    assert r.status == "limit" and "memory" in r.limits_hit, (r.status, r.reason)
    _ready_pool()
    r = run_sandboxed([sys.executable, "-c", "import os\nos.write(1, b'%d' % os.getuid())"], tmp_path,
                      Limits(wall_s=30, processes=4))
    assert r.ok and r.output_tail.strip() == str(sandbox.SANDBOX_UID)


def test_a_launcher_killed_while_it_waits_is_not_used(tmp_path):
    pool = _ready_pool()
    launcher = pool._ready.queue[0]
    launcher.proc.kill()
    launcher.proc.wait()
    used = pool.used
    r = run_sandboxed([sys.executable, "-c", "print('ran')"], tmp_path, Limits(wall_s=30))
    assert r.ok and r.output_tail.strip() == "ran"
    assert pool.used == used  # started the usual way


def test_a_forked_child_leaves_the_parents_launcher_alone(tmp_path):
    """A worker forked while a launcher waits must not hold its pipes: a session started from that
    launcher afterwards still gets the end of its input when it is closed."""
    import os

    _ready_pool()
    child = os.fork()
    if child == 0:  # the forked worker just sits there, holding whatever it inherited
        import time

        time.sleep(20)
        os._exit(0)
    try:
        (tmp_path / "cat.py").write_text("import sys\nfor line in sys.stdin:\n    print(line.strip(), flush=True)\n")
        s = open_session([sys.executable, f"{sandbox.SANDBOX_WORKDIR}/cat.py"], tmp_path, Limits(wall_s=30))
        assert s.request([1], 10) == [1]
        result = s.close(grace_s=5.0)
        assert result.ok, result.reason  # not "did not end within 5 s of its last request"
    finally:
        os.kill(child, 9)
        os.waitpid(child, 0)


def test_launchers_can_be_turned_off(tmp_path, monkeypatch):
    pool = _ready_pool()
    used = pool.used
    monkeypatch.setenv("SIMREFLECT_SANDBOX_LAUNCHERS", "0")
    r = run_sandboxed([sys.executable, "-c", "print('direct')"], tmp_path, Limits(wall_s=30))
    assert r.ok and r.output_tail.strip() == "direct"
    assert pool.used == used


def test_launchers_are_off_by_default(tmp_path, monkeypatch):
    pool = _ready_pool()
    used = pool.used
    monkeypatch.delenv("SIMREFLECT_SANDBOX_LAUNCHERS")
    r = run_sandboxed([sys.executable, "-c", "print('direct')"], tmp_path, Limits(wall_s=30))
    assert r.ok and r.output_tail.strip() == "direct"
    assert pool.used == used
