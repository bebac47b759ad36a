"""Pre-forked sandboxes from a zygote (core/sandbox/zygote.py, zygote_program.py): a run from the
pool is confined as bwrap confines it, nothing of one program reaches the next, the zygote never
runs a program itself, and a zygote or sandbox that fails costs a run nothing but its start through
bwrap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simreflect.core import sandbox
from simreflect.core.sandbox import Limits, isolation_report, open_session, run_sandboxed
from simreflect.core.sandbox import zygote

REPORT = isolation_report()
FULL = REPORT["mode"] == "bwrap" and "cpuacct" in REPORT["cgroup"] and "memory" in REPORT["cgroup"]
pytestmark = pytest.mark.skipif(not FULL, reason="needs bubblewrap and the memory and cpuacct cgroups")

from test_sandbox_pool import FIRST, SECOND  # noqa: E402  the same two programs as the launchers'


@pytest.fixture(autouse=True)
def zygote_on(monkeypatch):
    monkeypatch.setenv(zygote.ZYGOTE_ENV, "1")
    monkeypatch.delenv("SIMREFLECT_SANDBOX_LAUNCHERS", raising=False)


def _ready_pool() -> zygote.SandboxPool:
    pool = zygote.sandbox_pool(sandbox.probe._probe()["_cgroups"])
    assert pool.wait_ready(30), f"no pre-forked sandbox was ready within 30 s ({pool.failed})"
    return pool


def test_two_programs_back_to_back_share_nothing(tmp_path):
    first_dir, second_dir = tmp_path / "first", tmp_path / "second"
    first_dir.mkdir()
    second_dir.mkdir()
    limits = Limits(wall_s=30, cpu_s=30, memory_mb=512)
    pool = _ready_pool()
    used = pool.used
    first = run_sandboxed([sys.executable, "-c", FIRST + "\nGLOBAL_OF_FIRST = 1\nimport json\n"], first_dir, limits)
    assert first.ok, first.reason + first.output_tail
    assert pool.used == used + 1
    assert first.usage["cpu_s"] >= 0.5 and first.usage["peak_memory_mb"] >= 120
    _ready_pool()
    second = run_sandboxed([sys.executable, "-c", SECOND.replace(
        'print(json.dumps(found))',
        'import __main__\nfound["global"] = hasattr(__main__, "GLOBAL_OF_FIRST")\n'
        'found["zygote_globals"] = sorted(k for k in vars(__main__) if not k.startswith("__") and k not in '
        '("json", "os", "sys", "found"))\nprint(json.dumps(found))')], second_dir, limits)
    assert second.ok, second.reason + second.output_tail
    assert pool.used == used + 2
    found = json.loads(second.output_tail.strip().splitlines()[-1])
    assert found["tmp"] == [] and found["workdir"] == [] and found["env"] == [] and not found["leftmod"]
    assert found["fds"] == [0, 1, 2, 3]
    assert not found["global"] and found["zygote_globals"] == []  # a fresh __main__, not the zygote's
    assert found["pids"] == [1, 2], found  # the namespace's init and the program: no zygote, no first
    assert not any("sleep" in c for c in found["cmdlines"]), found["cmdlines"]
    assert second.usage["cpu_s"] < 0.4 and second.usage["peak_memory_mb"] < 100, second.usage
    assert (first_dir / "left-by-first").exists() and not (second_dir / "left-by-first").exists()


def test_a_program_runs_as_python_would_run_it(tmp_path):
    _ready_pool()
    (tmp_path / "prog.py").write_text(
        "import atexit, sys\n"
        "print(__name__, sys.argv, sys.path[0], __file__)\n"
        "atexit.register(lambda: print('atexit ran', flush=True))\n"
        "left_open = open('/workdir/unclosed.txt', 'w')\n"
        "left_open.write('flushed at exit')\n"
        "sys.exit(3)\n")
    r = run_sandboxed([sys.executable, f"{sandbox.SANDBOX_WORKDIR}/prog.py", "a", "b"], tmp_path, Limits(wall_s=30))
    assert r.exit_code == 3, (r.status, r.reason, r.output_tail)
    assert "__main__ ['/workdir/prog.py', 'a', 'b'] /workdir /workdir/prog.py" in r.output_tail
    assert "atexit ran" in r.output_tail
    assert (tmp_path / "unclosed.txt").read_text() == "flushed at exit"
    r = run_sandboxed([sys.executable, "-c", "raise ValueError('boom')"], tmp_path, Limits(wall_s=30))
    assert r.exit_code == 1 and "ValueError: boom" in r.output_tail and "Traceback" in r.output_tail
    r = run_sandboxed([sys.executable, "-P", "-m", "json.tool", "--help"], tmp_path, Limits(wall_s=30))
    assert r.ok and "usage:" in r.output_tail, r.output_tail
    r = run_sandboxed(["/bin/sh", "-c", "echo from sh; id -u"], tmp_path, Limits(wall_s=30))  # exec'd
    assert r.ok and r.output_tail.split() == ["from", "sh", str(sandbox.SANDBOX_UID)], r.output_tail


def test_the_confinement_is_bwraps(tmp_path):
    """The same program sees the same sandbox started from the zygote as started through bwrap."""
    probe = r"""
import os, socket, resource
st = {l.split(':')[0]: l.split(':')[1].strip() for l in open('/proc/self/status') if ':' in l}
mounts = sorted((l.split()[4], 'ro' if l.split()[5].startswith('ro') else 'rw') for l in open('/proc/self/mountinfo'))
def denied(f):
    try:
        f()
        return False
    except OSError:
        return True
print(repr((os.getuid(), os.getgid(), os.getcwd(), socket.gethostname(), sorted(os.listdir('/')),
            {k: st[k] for k in ('CapEff', 'CapPrm', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Seccomp')},
            mounts, sorted(os.environ.items()),
            [resource.getrlimit(r) for r in (resource.RLIMIT_CPU, resource.RLIMIT_FSIZE, resource.RLIMIT_NOFILE)],
            denied(lambda: open('/usr/x', 'w')), denied(lambda: open('/x', 'w')),
            denied(lambda: socket.create_connection(('10.0.0.1', 80), timeout=1)),
            sorted(p for p in os.listdir('/proc') if p.isdigit()))))
"""
    limits = Limits(wall_s=30, cpu_s=7, file_mb=3)
    _ready_pool()
    used = zygote._POOL.used
    from_zygote = run_sandboxed([sys.executable, "-c", probe], tmp_path, limits, package_modules=["simreflect.core.relay"])
    assert zygote._POOL.used == used + 1
    os.environ[zygote.ZYGOTE_ENV] = "0"
    try:
        from_bwrap = run_sandboxed([sys.executable, "-c", probe], tmp_path, limits,
                                   package_modules=["simreflect.core.relay"])
    finally:
        os.environ[zygote.ZYGOTE_ENV] = "1"
    assert from_zygote.ok and from_bwrap.ok, (from_zygote.output_tail, from_bwrap.output_tail)
    z, b = eval(from_zygote.output_tail), eval(from_bwrap.output_tail)  # noqa: S307 our own repr
    z_mounts = [m for m in z[6] if m[0] != "/proc/sys"]  # the zygote also makes /proc/sys read-only
    assert z[:6] == b[:6] and z_mounts == b[6] and z[7:] == b[7:], (z, b)
    assert z[3] == "sandbox" and z[5]["CapEff"] == "0" * 16 and z[5]["NoNewPrivs"] == "1" and z[5]["Seccomp"] == "2"


def test_limits_and_the_kill_of_the_whole_tree(tmp_path):
    _ready_pool()
    r = run_sandboxed([sys.executable, "-c", "x = bytearray(400 << 20)\nfor i in range(0, len(x), 4096): x[i] = 1"],
                      tmp_path, Limits(wall_s=30, memory_mb=128))
    assert r.status == "limit" and "memory" in r.limits_hit, (r.status, r.reason)
    _ready_pool()
    marker = f"zygote-tree-{os.getpid()}-{time.monotonic_ns()}"
    r = run_sandboxed([sys.executable, "-c", f"import subprocess, time\n"
                       f"subprocess.Popen(['sleep', '300', '{marker}'], start_new_session=True)\n"
                       "time.sleep(300)"], tmp_path, Limits(wall_s=1.5))
    assert r.status == "timeout", (r.status, r.reason)
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    assert left == [], left
    _ready_pool()
    r = run_sandboxed([sys.executable, "-c", "import os\nfor _ in range(20): os.fork() or os._exit(0)"], tmp_path,
                      Limits(wall_s=30, processes=4))
    assert r.status != "ok" or "process" in r.reason or r.limits_hit, (r.status, r.reason)


def test_a_session_from_the_zygote_answers_and_is_confined(tmp_path):
    (tmp_path / "echo.py").write_text("import os, sys\nfor line in sys.stdin:\n"
                                      "    print(line.strip()[:-1] + ', \"uid\": %d}' % os.getuid(), flush=True)\n"
                                      "print('bye', file=sys.stderr)\n")
    pool = _ready_pool()
    used = pool.used
    with open_session([sys.executable, f"{sandbox.SANDBOX_WORKDIR}/echo.py"], tmp_path, Limits(wall_s=30)) as s:
        assert s.request({"n": 1}, 10) == {"n": 1, "uid": sandbox.SANDBOX_UID}
        assert s.request({"n": 2}, 10) == {"n": 2, "uid": sandbox.SANDBOX_UID}
    result = s.close()
    assert pool.used == used + 1
    assert result.ok and result.usage["requests"] == 2 and "bye" in result.output_tail, result.reason


def test_a_crashed_zygote_is_restarted(tmp_path):
    pool = _ready_pool()
    pool.kill_zygote()
    for box in list(pool._ready.queue):  # the ready sandboxes die with it
        deadline = time.monotonic() + 10
        while box.alive() and time.monotonic() < deadline:
            time.sleep(0.01)
    r = run_sandboxed([sys.executable, "-c", "print('ran')"], tmp_path, Limits(wall_s=30))
    assert r.ok and r.output_tail.strip() == "ran"  # through bwrap, or a new zygote already
    restarts = pool.restarts
    pool = _ready_pool()
    assert pool.restarts >= 1 and pool.failed is None, (restarts, pool.failed)
    used = pool.used
    r = run_sandboxed([sys.executable, "-c", "print('ran again')"], tmp_path, Limits(wall_s=30))
    assert r.ok and r.output_tail.strip() == "ran again" and pool.used == used + 1


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts over the work directory on the host")
def test_a_sandbox_that_cannot_confine_the_run_hands_it_to_bwrap(tmp_path, capsys):
    """The sandbox's mount namespace was copied before this bind mount: it finds another directory
    at the work directory's path, refuses it (device and inode), and the run starts through bwrap."""
    pool = _ready_pool()
    work, other = tmp_path / "work", tmp_path / "other"
    work.mkdir()
    other.mkdir()
    (other / "inside.txt").write_text("the real one")
    subprocess.run(["mount", "--bind", str(other), str(work)], check=True)
    try:
        used = pool.used
        r = run_sandboxed([sys.executable, "-c", "print(open('/workdir/inside.txt').read())"], work,
                          Limits(wall_s=30))
        assert pool.used == used + 1
        assert r.ok and r.output_tail.strip() == "the real one", (r.reason, r.output_tail)
        assert "not the one asked for" in capsys.readouterr().err
    finally:
        subprocess.run(["umount", str(work)], check=True)


def test_the_zygote_holds_nothing_of_a_run(tmp_path):
    """A run's message goes to its own sandbox, never to the zygote: the zygote's memory has no
    trace of a program's text or environment."""
    pool = _ready_pool()
    secret = f"zygote-never-sees-{time.monotonic_ns()}"
    r = run_sandboxed([sys.executable, "-c", f"print({secret!r}[:4])"], tmp_path, Limits(wall_s=30),
                      env={"RUN_SECRET": secret})
    assert r.ok
    _ready_pool()
    pid = pool._zygote.proc.pid
    maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    found = False
    with open(f"/proc/{pid}/mem", "rb") as mem:
        for line in maps:
            addr, perms = line.split()[:2]
            if "r" not in perms or "w" not in perms:
                continue
            start, end = (int(x, 16) for x in addr.split("-"))
            try:
                mem.seek(start)
                found |= secret.encode() in mem.read(end - start)
            except (OSError, ValueError, OverflowError):
                continue
    assert not found


def test_off_by_default_and_on_when_asked(tmp_path, monkeypatch):
    monkeypatch.setenv(zygote.ZYGOTE_ENV, "1")
    pool = _ready_pool()
    used = pool.used
    r = run_sandboxed([sys.executable, "-c", "print('from the zygote')"], tmp_path, Limits(wall_s=30))
    assert r.ok and pool.used == used + 1
    monkeypatch.delenv(zygote.ZYGOTE_ENV)
    r = run_sandboxed([sys.executable, "-c", "print('direct')"], tmp_path, Limits(wall_s=30))
    assert r.ok and r.output_tail.strip() == "direct"
    assert pool.used == used + 1


def test_a_forked_child_leaves_the_parents_sandboxes_alone(tmp_path):
    """A worker forked while sandboxes wait must not hold their pipes: a session started from one
    afterwards still gets the end of its input when it is closed."""
    pool = _ready_pool()
    child = os.fork()
    if child == 0:  # the forked worker just sits there, holding whatever it inherited
        time.sleep(20)
        os._exit(0)
    try:
        used = pool.used
        (tmp_path / "cat.py").write_text("import sys\nfor line in sys.stdin:\n    print(line.strip(), flush=True)\n")
        s = open_session([sys.executable, f"{sandbox.SANDBOX_WORKDIR}/cat.py"], tmp_path, Limits(wall_s=30))
        assert s.request([1], 10) == [1]
        result = s.close(grace_s=5.0)
        assert result.ok, result.reason
        assert pool.used == used + 1
    finally:
        os.kill(child, 9)
        os.waitpid(child, 0)
