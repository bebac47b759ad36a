"""Pre-started launchers: the kernel's slow part of a start done before the run is asked for.

Moving a process into a cgroup v1 waits for an RCU grace period (about 11 ms, unless another move
came just before), and forking from a large parent costs a few more. A launcher is a small trusted
Python process started ahead of time by one long-lived thread: it has already joined a fresh run
cgroup, asked to die with this process and opened its three pipes, and it waits on a fourth pipe
for the one command it will run. `take()` hands a ready launcher to a run (and starts the next one
in the background); the run sends bwrap's arguments, options, seccomp program, environment and
rlimits, and the launcher puts the options and the filter in memfds, sets the rlimits and execs
bwrap, exactly as `spawn._start_bwrap` would have. Each launcher and its cgroup serve one run;
nothing of one run reaches the next (the launcher's own CPU time and memory peak are taken out of
the cgroup's counters before the command starts: `_RunCgroup.rebase`).
"""

from __future__ import annotations

import atexit
import marshal
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from simreflect.core.sandbox.cgroups import _RunCgroup
from simreflect.core.sandbox.spawn import _preexec

#: What the launcher runs: read one marshalled message from fd 3 to its end, then become bwrap.
#: An empty message (this process ends) makes it exit without running anything.
_LAUNCHER = r"""
import os, sys
control = int(sys.argv[1])
def read(n):
    data = b""
    while len(data) < n:
        chunk = os.read(control, n - len(data))
        if not chunk:
            os._exit(0)
        data += chunk
    return data
size = int.from_bytes(read(8), "little")
if not size:
    os._exit(0)
message = read(size)
os.close(control)
import marshal, resource
bwrap, options, command, seccomp, env, stdin_null, stderr_to_stdout, rlimits = marshal.loads(message)
def memfd(name, data):
    fd = os.memfd_create(name, 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
if seccomp:
    options = options + [b"--seccomp", str(memfd("simreflect-seccomp", seccomp)).encode()]
afd = memfd("simreflect-bwrap-args", b"".join(a + b"\0" for a in options))
if stdin_null:
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
if stderr_to_stdout:
    os.dup2(1, 2)
for res, soft, hard in rlimits:
    resource.setrlimit(res, (soft, hard))
os.execve(bwrap, [bwrap, b"--args", str(afd).encode(), *command], env)
"""


@dataclass
class Launcher:
    """A started launcher and the fresh cgroup it is in."""

    proc: subprocess.Popen
    cgroup: _RunCgroup
    control_fd: int

    def launch(self, bwrap_argv: list[str], env: dict[str, str], rlimits: list[tuple[int, int, int]],
               seccomp: bytes | None, *, session: bool) -> subprocess.Popen:
        """Run bwrap (its argv as `bwrap.py` builds it) in this launcher: a run gets /dev/null on
        stdin and its stderr on stdout, a session three pipes. Returns the launcher's Popen, which
        is bwrap's from now on; the launcher cannot be used again."""
        bwrap, args = bwrap_argv[0], bwrap_argv[1:]
        dash = args.index("--")
        message = marshal.dumps((os.fsencode(bwrap), [os.fsencode(a) for a in args[:dash]],
                                 [os.fsencode(a) for a in args[dash:]], seccomp or b"",
                                 {os.fsencode(k): os.fsencode(v) for k, v in env.items()},
                                 not session, not session, [tuple(r) for r in rlimits]))
        try:
            view = memoryview(len(message).to_bytes(8, "little") + message)
            while view:
                view = view[os.write(self.control_fd, view):]
        except BrokenPipeError:
            pass  # killed since take(): the run finds it dead and says by which signal
        finally:
            os.close(self.control_fd)
        if not session:
            self.proc.stdin.close()
            self.proc.stderr.close()
            self.proc.stdin = self.proc.stderr = None
        return self.proc

    def discard(self) -> None:
        """End an unused launcher (a zero length) and remove its cgroup."""
        try:
            os.write(self.control_fd, bytes(8))
        except OSError:
            pass
        try:
            os.close(self.control_fd)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()
        self.cgroup.remove()


def _start_launcher(controllers: dict[str, tuple[str, Path]]) -> Launcher | None:
    """A launcher in a fresh cgroup of `controllers`, or None when the cgroup cannot be made whole
    (the run then starts the usual way and meets the same problem itself)."""
    cg = _RunCgroup(controllers)
    if cg.problems:
        cg.remove()
        return None
    cgroup_fds = cg.procs_fds()
    read_fd, write_fd = os.pipe()
    try:
        if cg.problems:
            os.close(write_fd)
            cg.remove()
            return None
        proc = subprocess.Popen([sys.executable, "-S", "-I", "-c", _LAUNCHER, str(read_fd)], cwd="/", env={},
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, pass_fds=(read_fd,), preexec_fn=_preexec([], cgroup_fds))
    except OSError:
        os.close(write_fd)
        cg.remove()
        return None
    finally:
        os.close(read_fd)
        for fd in cgroup_fds:
            os.close(fd)
    return Launcher(proc, cg, write_fd)


class LauncherPool:
    """One launcher kept ready per process, started by a thread that lives as long as the process
    (a child's death signal follows the thread that forked it)."""

    def __init__(self, controllers: dict[str, tuple[str, Path]]):
        self._controllers = controllers
        self._ready: queue.Queue[Launcher | None] = queue.Queue(maxsize=1)
        self._wanted = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="simreflect-sandbox-launcher", daemon=True)
        self._pid = os.getpid()
        #: Launchers handed to runs so far.
        self.used = 0
        self._wanted.release()
        self._thread.start()

    def _loop(self) -> None:
        while True:
            self._wanted.acquire()
            if self._closed:
                return
            self._ready.put(_start_launcher(self._controllers))

    def take(self) -> Launcher | None:
        """A ready launcher (and the next one started), or None when none is ready yet."""
        if self._closed or os.getpid() != self._pid:
            return None
        try:
            launcher = self._ready.get_nowait()
        except queue.Empty:
            return None
        self._wanted.release()
        if launcher is not None and launcher.proc.poll() is not None:  # killed while it waited
            launcher.discard()
            return None
        if launcher is not None:
            self.used += 1
        return launcher

    def wait_ready(self, timeout_s: float) -> bool:
        """Wait until a launcher is ready (for warm-ups and tests); False when none came in time."""
        end = time.monotonic() + timeout_s
        while self._ready.empty() and time.monotonic() < end:
            time.sleep(0.001)  # never on a run's path
        return not self._ready.empty()

    def forget(self) -> None:
        """In a forked child: let go of the parent's ready launcher (its pipes' copies here would
        keep a session's stdin open), never using or ending it."""
        self._closed = True
        for launcher in list(self._ready.queue):
            if launcher is not None:
                for f in (launcher.proc.stdin, launcher.proc.stdout, launcher.proc.stderr):
                    if f is not None:
                        f.close()
                os.close(launcher.control_fd)
                launcher.proc.returncode = -1  # not this process's child: never waited for here

    def close(self) -> None:
        self._closed = True
        self._wanted.release()
        try:
            launcher = self._ready.get_nowait()
        except queue.Empty:
            return
        if launcher is not None:
            launcher.discard()


_POOL: LauncherPool | None = None
_POOL_LOCK = threading.Lock()


def launcher_pool(controllers: dict[str, tuple[str, Path]]) -> LauncherPool:
    """This process's pool (started on first use, and again in a forked child)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL._pid != os.getpid():
            _POOL = LauncherPool(controllers)
            atexit.register(_POOL.close)
        return _POOL


#: Set to 1 to start runs from pre-started launchers: a launcher saves wall time per start (the
#: cgroup join and the fork are done ahead) and costs the CPU of its own Python start-up (about 15 ms
#: measured), so it is off by default: on a machine whose cores are all busy (RL rollouts, the test
#: suite) the CPU is the dearer of the two. Turn it on when spare cores wait for sandboxes.
LAUNCHERS_ENV = "SIMREFLECT_SANDBOX_LAUNCHERS"


def take_launcher(controllers: dict[str, tuple[str, Path]]) -> Launcher | None:
    """A pre-started launcher in a fresh cgroup of `controllers`, or None (the first call of a
    process, a launcher not ready yet, no cgroups, or launchers not turned on with
    SIMREFLECT_SANDBOX_LAUNCHERS=1): the caller then starts bwrap itself."""
    if not controllers or os.environ.get(LAUNCHERS_ENV, "0") != "1":
        return None
    return launcher_pool(controllers).take()


def _forget_in_child() -> None:
    global _POOL, _POOL_LOCK
    _POOL_LOCK = threading.Lock()  # another thread may have held it at the fork
    pool, _POOL = _POOL, None
    if pool is not None:
        pool.forget()


os.register_at_fork(after_in_child=_forget_in_child)
