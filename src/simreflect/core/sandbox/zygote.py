"""Pre-forked sandboxes: programs started from a zygote, a pre-loaded trusted interpreter.

The zygote (zygote_program.py) is started once per process, with the clean environment and
nothing of simreflect imported, bound to die with this process. A thread of this process keeps
`DEPTH` sandboxes ready: for each, a fresh run cgroup and five pipes are made here and handed to the
zygote, which forks a monitor; the monitor joins the cgroup (cgroup v1's idle wait is spent here,
off the run's path), unshares every namespace and forks the namespace's init, which forks the
program's process, which says it is ready. A run (`PreforkedSandbox.launch`) sends that process its
one message (bwrap's options as bwrap.py builds them, the command, the seccomp filter, the
environment, the rlimits, the work directory's identity); it builds its root, confines itself and
answers "go" before any untrusted byte runs, or names what failed, and the run then starts the
usual way (bwrap) in the same cgroup. A python command runs in the pre-loaded interpreter itself
(no interpreter start, no imports of its own start-up); any other command is exec'd.

Each sandbox serves one run. The run's cgroup counters are restarted when its command is sent
(`_RunCgroup.rebase`): what the monitor, the init and the setup spent is `prestart_cpu_s`.

Opt-in: SIMREFLECT_SANDBOX_ZYGOTE=1 turns it on (docs/security.md has the figures and why it is not the default yet). When the zygote
cannot start or the kernel refuses a namespace, the reason is printed once and every run starts
through bwrap; a zygote that dies or hangs is restarted (at most RESTARTS times).
"""

from __future__ import annotations

import array
import atexit
import marshal
import os
import queue
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from simreflect.core.sandbox import probe as probing
from simreflect.core.sandbox.bwrap import _bwrap_argv, _clean_env
from simreflect.core.sandbox.limits import Limits
from simreflect.core.sandbox.cgroups import _RunCgroup
from simreflect.core.sandbox.spawn import _preexec, _start_bwrap

ZYGOTE_ENV = "SIMREFLECT_SANDBOX_ZYGOTE"
#: Sandboxes kept ready.
DEPTH = 2
#: Zygote restarts allowed per process before the zygote is given up.
RESTARTS = 3
_READY_TIMEOUT_S = 5.0
_GO_TIMEOUT_S = 5.0
_STATUS = struct.Struct("<cH")


class ZygoteError(RuntimeError):
    """The zygote or a pre-forked sandbox failed (the run starts through bwrap instead)."""


def _program_text() -> str:
    return (Path(__file__).with_name("zygote_program.py")).read_text()


class _StatusPipe:
    """The status pipe's read end: R, G, E and X messages (zygote_program.py)."""

    def __init__(self, fd: int):
        self.fd = fd
        self._buf = b""
        self.eof = False

    def read(self, timeout_s: float | None) -> tuple[bytes, bytes] | None:
        """The next message, None when none came in time; (b"", b"") at the end of the pipe."""
        end = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            if len(self._buf) >= _STATUS.size:
                tag, n = _STATUS.unpack_from(self._buf)
                if len(self._buf) >= _STATUS.size + n:
                    payload = self._buf[_STATUS.size:_STATUS.size + n]
                    self._buf = self._buf[_STATUS.size + n:]
                    return tag, payload
            if self.eof:
                return b"", b""
            wait = None if end is None else max(0.0, end - time.monotonic())
            r, _, _ = select.select([self.fd], [], [], wait)
            if not r:
                return None
            chunk = os.read(self.fd, 4096)
            if not chunk:
                self.eof = True
            self._buf += chunk

    def close(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


class ZygoteProcess:
    """What run.py and session.py use of a Popen, for a program started from the zygote: `pid` is
    the namespace's init's (a session leader: kill_group kills it, and its death takes the whole
    namespace; a pidfd wakes wait_exit when it ends), the exit status is the one it reports
    (bwrap's convention), and an init killed before it could report counts as killed by SIGKILL."""

    def __init__(self, pid: int, pidfd: int, stdin: Any, stdout: Any, stderr: Any, status: _StatusPipe):
        self.pid = pid
        self._pidfd = pidfd
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self._status = status
        self.returncode: int | None = None
        self.args = ["zygote"]

    def _take(self, timeout_s: float | None) -> bool:
        end = None if timeout_s is None else time.monotonic() + timeout_s
        while self.returncode is None:
            left = None if end is None else max(0.0, end - time.monotonic())
            msg = self._status.read(left)
            if msg is None:
                return False
            tag, payload = msg
            if tag == b"X" and len(payload) == 4:
                self.returncode = struct.unpack("<i", payload)[0]
            elif tag == b"":
                self.returncode = -9
        self._status.close()
        if self._pidfd >= 0:
            os.close(self._pidfd)
            self._pidfd = -1
        return True

    def poll(self) -> int | None:
        self._take(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._take(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return self.returncode  # type: ignore[return-value]

    def send_signal(self, sig: int) -> None:
        if self._pidfd >= 0 and self.returncode is None:
            try:
                import signal as _signal
                _signal.pidfd_send_signal(self._pidfd, sig)
            except OSError:
                pass

    def kill(self) -> None:
        self.send_signal(9)


class _Zygote:
    """The zygote process and its fork requests (one at a time)."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = _clean_env(None, "/tmp")
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", _program_text(), str(theirs.fileno())], cwd="/",
                                         env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True,
                                         pass_fds=(theirs.fileno(),), preexec_fn=_preexec([], []))
        finally:
            theirs.close()
        self.sock = ours
        self.sock.settimeout(2.0)
        self._lock = threading.Lock()

    def fork(self, fds: list[int]) -> int:
        with self._lock:
            try:
                self.sock.sendmsg([b"F"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
                reply = self.sock.recv(16)
            except OSError as e:
                raise ZygoteError(f"the zygote did not answer a fork request ({e})") from None
        if len(reply) != 4:
            raise ZygoteError("the zygote ended" if not reply else "the zygote answered garbage")
        pid = struct.unpack("<i", reply)[0]
        if pid <= 0:
            raise ZygoteError("the zygote refused a fork request")
        return pid

    def cpu_s(self) -> float:
        """The zygote's own CPU so far (its scheduler's run time)."""
        try:
            return int(Path(f"/proc/{self.proc.pid}/schedstat").read_text().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            return 0.0

    def stop(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


class PreforkedSandbox:
    """One ready sandbox: its init (`pid`, as the host sees it), its cgroup, the host's ends of its pipes."""

    def __init__(self, pid: int, pidfd: int, cgroup: _RunCgroup, stdin_w: int, stdout_r: int, stderr_r: int,
                 control_w: int, status: _StatusPipe):
        self.pid, self._pidfd, self.cgroup = pid, pidfd, cgroup
        self._stdin_w, self._stdout_r, self._stderr_r, self._control_w = stdin_w, stdout_r, stderr_r, control_w
        self._status = status

    def alive(self) -> bool:
        r, _, _ = select.select([self._pidfd], [], [], 0)
        return not r

    def launch(self, bwrap_argv: list[str], env: dict[str, str], rlimits: list[tuple[int, int, int]],
               seccomp: bytes | None, *, session: bool) -> Any:
        """Run bwrap's argv (as bwrap.py builds it) in this sandbox, confined by the sandbox's own
        process before the command starts; when that fails, the reason is printed once and the run
        starts through bwrap in the same cgroup. Returns a Popen-like process."""
        args = bwrap_argv[1:]
        dash = args.index("--")
        options, command = args[:dash], args[dash + 1:]
        try:
            workdir = options[options.index("--bind") + 1]
            st = os.stat(workdir)
            _send(self._control_w, (options, command, seccomp or b"", env, session, [tuple(r) for r in rlimits],
                                    (workdir, st.st_dev, st.st_ino)))
            os.close(self._control_w)
            self._control_w = -1
            while True:
                msg = self._status.read(_GO_TIMEOUT_S)
                if msg is None:
                    raise ZygoteError(f"the sandbox did not confirm its start within {_GO_TIMEOUT_S:g} s")
                tag, payload = msg
                if tag == b"G":
                    break
                if tag == b"E":
                    raise ZygoteError(payload.decode(errors="replace"))
                if tag in (b"", b"X"):
                    raise ZygoteError("the sandbox ended before its start")
        except (ZygoteError, OSError, ValueError) as e:
            _note_once(f"a pre-forked sandbox failed ({e}); this run starts through bwrap")
            return self._fallback(bwrap_argv, env, rlimits, seccomp, session)
        stdin = stderr = None
        if session:
            stdin, stderr = os.fdopen(self._stdin_w, "wb", buffering=0), os.fdopen(self._stderr_r, "rb", buffering=0)
        else:
            os.close(self._stdin_w)
            os.close(self._stderr_r)
        return ZygoteProcess(self.pid, self._pidfd, stdin, os.fdopen(self._stdout_r, "rb", buffering=0), stderr,
                             self._status)

    def _fallback(self, bwrap_argv: list[str], env: dict[str, str], rlimits: list[tuple[int, int, int]],
                  seccomp: bytes | None, session: bool) -> subprocess.Popen:
        self._end()
        self.cgroup.kill_all()
        self.cgroup.rebase()
        fds = self.cgroup.procs_fds()
        try:
            pipes = (subprocess.PIPE, subprocess.PIPE) if session else (subprocess.DEVNULL, subprocess.STDOUT)
            return _start_bwrap(bwrap_argv, env, rlimits, fds, seccomp, stdin=pipes[0], stderr=pipes[1])
        finally:
            for fd in fds:
                os.close(fd)

    def _end(self) -> None:
        for fd in (self._stdin_w, self._stdout_r, self._stderr_r, self._control_w, self._pidfd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._stdin_w = self._stdout_r = self._stderr_r = self._control_w = self._pidfd = -1
        self._status.close()

    def discard(self) -> None:
        """End an unused sandbox (its program's process reads the end of its pipe) and remove its cgroup."""
        self._end()
        self.cgroup.kill_all()
        self.cgroup.remove()

    def forget(self) -> None:
        """In a forked child: let go of the parent's sandbox without ending it."""
        for fd in (self._stdin_w, self._stdout_r, self._stderr_r, self._control_w, self._pidfd, self._status.fd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass


def _send(fd: int, value: Any) -> None:
    message = marshal.dumps(value)
    view = memoryview(len(message).to_bytes(8, "little") + message)
    while view:
        view = view[os.write(fd, view):]


def _base_options() -> list[str]:
    """bwrap's options every run begins with (the namespaces, /tmp, /proc, /dev, the system and the
    /etc files): what a pre-forked sandbox builds before it is ready."""
    probe = probing._probe()
    argv = _bwrap_argv(probe["bwrap"], probe["_options"], Path("/"), Limits(), [], ["-"])[1:]
    return argv[:argv.index("--bind")]


def _prefork(zygote: _Zygote, controllers: dict[str, tuple[str, Path]], staging: str,
             base: list[str]) -> PreforkedSandbox:
    cg = _RunCgroup(controllers)
    if cg.problems:
        cg.remove()
        raise ZygoteError("; ".join(cg.problems))
    cgroup_fds = cg.procs_fds()
    pipes = [os.pipe() for _ in range(5)]  # stdin, stdout, stderr, control, status
    (stdin_r, stdin_w), (stdout_r, stdout_w), (stderr_r, stderr_w), (control_r, control_w), (status_r, status_w) = pipes
    for fd in (stdin_w, stdout_r, stderr_r, control_w, status_r):
        os.set_inheritable(fd, False)
    status = _StatusPipe(status_r)
    ok = False
    try:
        if cg.problems:
            raise ZygoteError("; ".join(cg.problems))
        pid = zygote.fork([stdin_r, stdout_w, stderr_w, control_r, status_w, *cgroup_fds])
        for fd in (stdin_r, stdout_w, stderr_w, control_r, status_w, *cgroup_fds):
            os.close(fd)
        cgroup_fds = []
        _send(control_w, (base, staging))
        init_pid, pidfd = 0, -1
        while True:
            msg = status.read(_READY_TIMEOUT_S)
            if msg is not None and msg[0] == b"P" and len(msg[1]) == 4 and pidfd < 0:
                init_pid = struct.unpack("<i", msg[1])[0]
                pidfd = os.pidfd_open(init_pid)  # it cannot end before its program's process said R
                continue
            if msg is None or msg[0] != b"R" or pidfd < 0:
                if pidfd >= 0:
                    os.close(pidfd)
                why = "no answer" if msg is None else msg[1].decode(errors="replace") or "it ended"
                raise ZygoteError(f"a pre-forked sandbox did not get ready: {why}")
            break
        ok = True
        return PreforkedSandbox(init_pid, pidfd, cg, stdin_w, stdout_r, stderr_r, control_w, status)
    finally:
        if not ok:
            for fd in (stdin_r, stdout_w, stderr_w, control_r, status_w, *cgroup_fds):
                try:
                    os.close(fd)
                except OSError:
                    pass
            for fd in (stdin_w, stdout_r, stderr_r, control_w):
                os.close(fd)
            status.close()
            cg.kill_all()
            cg.remove()


_NOTED: set[str] = set()


def _note_once(text: str) -> None:
    if text not in _NOTED:
        _NOTED.add(text)
        print(f"simreflect sandbox: {text}", file=sys.stderr)


class SandboxPool:
    """`DEPTH` pre-forked sandboxes kept ready by one thread that lives as long as the process (the
    zygote's death signal follows the thread that started it)."""

    def __init__(self, controllers: dict[str, tuple[str, Path]]):
        self._controllers = controllers
        self._ready: queue.Queue[PreforkedSandbox] = queue.Queue()
        self._wanted = threading.Semaphore(DEPTH)
        self._pid = os.getpid()
        self._closed = False
        #: Why the pool gave up (then every run starts through bwrap), or None.
        self.failed: str | None = None
        self.used = 0
        self.restarts = 0
        self._zygote: _Zygote | None = None
        self._staging = tempfile.mkdtemp(prefix="simreflect-zygote-")
        self._base = _base_options()
        self._thread = threading.Thread(target=self._loop, name="simreflect-sandbox-zygote", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while True:
            self._wanted.acquire()
            if self._closed:
                return
            while not self._closed:
                try:
                    if self._zygote is None:
                        self._zygote = _Zygote()
                    box = _prefork(self._zygote, self._controllers, self._staging, self._base)
                    if self._closed:
                        box.discard()
                        return
                    self._ready.put(box)
                    break
                except (ZygoteError, OSError) as e:
                    dead = self._zygote is None or self._zygote.proc.poll() is not None
                    if self._zygote is not None and (dead or "did not answer" in str(e)):
                        self._zygote.stop()
                        self._zygote = None
                        self.restarts += 1
                        if self.restarts <= RESTARTS:
                            continue
                    self.failed = str(e)
                    self._closed = True
                    _note_once(f"the zygote is off ({e}); every run starts through bwrap")
                    return

    def take(self, wait_s: float = 0.5) -> PreforkedSandbox | None:
        """A ready sandbox (and the next one started), or None (the pool failed, or none got ready
        within `wait_s`: the run then starts through bwrap)."""
        if self._closed or os.getpid() != self._pid:
            return None
        end = time.monotonic() + wait_s
        while True:
            try:
                box = self._ready.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                return None
            self._wanted.release()
            if box.alive():
                self.used += 1
                return box
            box.discard()

    def wait_ready(self, timeout_s: float) -> bool:
        end = time.monotonic() + timeout_s
        while self._ready.qsize() < DEPTH and time.monotonic() < end and not self._closed:
            time.sleep(0.001)  # never on a run's path
        return self._ready.qsize() >= DEPTH

    def cpu_s(self) -> float:
        """The zygote's own CPU so far (not in any run's cgroup)."""
        return self._zygote.cpu_s() if self._zygote is not None else 0.0

    def kill_zygote(self) -> None:
        """For the tests: kill the zygote as a crash would."""
        if self._zygote is not None:
            self._zygote.proc.kill()
            self._zygote.proc.wait()

    def forget(self) -> None:
        self._closed = True
        for box in list(self._ready.queue):
            box.forget()
        if self._zygote is not None:
            self._zygote.sock.close()
            self._zygote.proc.returncode = -1

    def close(self) -> None:
        self._closed = True
        self._wanted.release()
        while True:
            try:
                self._ready.get_nowait().discard()
            except queue.Empty:
                break
        if self._zygote is not None:
            self._zygote.stop()
        shutil.rmtree(self._staging, ignore_errors=True)


_POOL: SandboxPool | None = None
_POOL_LOCK = threading.Lock()


def sandbox_pool(controllers: dict[str, tuple[str, Path]]) -> SandboxPool:
    """This process's pool (started on first use, and again in a forked child)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL._pid != os.getpid():
            _POOL = SandboxPool(controllers)
            atexit.register(_POOL.close)
        return _POOL


def zygote_enabled() -> bool:
    """On with SIMREFLECT_SANDBOX_ZYGOTE=1: faster than a start through bwrap in wall time and
    cheaper in CPU, the zygote's own counted (docs/security.md); off by default until two failures
    seen only in the whole test suite are understood (docs/security.md)."""
    return os.environ.get(ZYGOTE_ENV, "0") == "1"


def take_sandbox(controllers: dict[str, tuple[str, Path]]) -> PreforkedSandbox | None:
    """A pre-forked sandbox in a fresh cgroup of `controllers`, or None (turned off with
    SIMREFLECT_SANDBOX_ZYGOTE unset or not 1, no cgroups, or the pool failed): the caller starts bwrap itself."""
    if not controllers or not zygote_enabled():
        return None
    return sandbox_pool(controllers).take()


def _forget_in_child() -> None:
    global _POOL, _POOL_LOCK
    _POOL_LOCK = threading.Lock()
    pool, _POOL = _POOL, None
    if pool is not None:
        pool.forget()


os.register_at_fork(after_in_child=_forget_in_child)
