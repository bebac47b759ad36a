"""Sessions: a confined program that stays alive and answers JSON-lines requests."""

from __future__ import annotations

import json
import os
import select
import struct
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

from simreflect.core.program import OutputCapture, ProgramResult, kill_group, wait_exit
from simreflect.core.sandbox.bwrap import _bwrap_argv, _clean_env, _plain_argv, _python_paths
from simreflect.core.sandbox.limits import Limits, MAX_WORKDIR_ENTRIES, MB, _rlimits
from simreflect.core.sandbox.outcome import _classify
from simreflect.core.sandbox.prepare import _prepare
from simreflect.core.sandbox.seccomp import _seccomp_filter
from simreflect.core.sandbox.spawn import _popen, _start_bwrap
from simreflect.core.sandbox.workdir import _dir_usage, _sanitize
from simreflect.core.untrusted import JsonLimits, Refusal, load_json


#: Longest reply line a session accepts unless told otherwise.
SESSION_MAX_MESSAGE_BYTES = 1 << 20
_SESSION_WATCH_S = 0.25
#: A frame (`SandboxSession.request_frame`): FRAME_MAGIC, the payload's length as a little-endian
#: u32, the payload. The sandbox side states the same format in its own module (it cannot import
#: this one): suites/pace/wire.py, checked equal by the tests.
FRAME_MAGIC = b"srf\x01"
FRAME_HEADER = struct.Struct("<4sI")
T = TypeVar("T")


class SessionError(RuntimeError):
    """A session request that failed; the session cannot be used any more.

    `kind` is timeout (no answer in time, or the session's wall time is spent), closed (the
    program ended or stopped reading), protocol (a reply that is not one JSON value on one line,
    a frame without its header or that its decoder refuses, or output on the reply channel nobody
    asked for), too_large (a reply past the size limit) or
    disk (the work directory grew past its limit)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


#: How a session's replies are read unless told otherwise (the length is always `max_message_bytes`):
#: NaN and infinities refused, lone surrogates in strings replaced by U+FFFD.
SESSION_REPLY_LIMITS = JsonLimits(surrogates="replace")


class SandboxSession:
    """A confined program that stays alive and answers requests, one JSON value per line.

    Made by `open_session`: the same confinement as `run_sandboxed` (bubblewrap, cgroup, rlimits,
    seccomp, clean environment, one writable work directory at SANDBOX_WORKDIR), with three pipes:
    requests go to the program's stdin, its replies come from its stdout (one JSON line per
    request), and whatever it prints on stderr is captured like a run's output (`output_kb`, head
    and tail). A program that does not answer in time, answers with something that is not one JSON
    value on one line, answers too much or ends early fails the request (`SessionError`) and the
    session is over: `close()` then kills it. The session's whole life is bounded by `limits.wall_s`.

    `close()` returns the ProgramResult of the whole session (status, reason, limits met,
    isolation, usage), like `run_sandboxed` does for a run.
    """

    def __init__(self, proc: subprocess.Popen, cg: Any, capture: OutputCapture, limits: Limits, workdir: Path,
                 start: float, sandboxed: bool, degraded: list[str], probe: dict[str, Any], max_message_bytes: int,
                 reply_limits: JsonLimits = SESSION_REPLY_LIMITS):
        self._proc = proc
        self._cg = cg
        self._capture = capture
        self._limits = limits
        self._workdir = workdir
        self._start = start
        self._sandboxed = sandboxed
        self._degraded = degraded
        self._probe = probe
        self._max = int(max_message_bytes)
        self._reply_limits = replace(reply_limits, max_bytes=self._max)
        self._buf = bytearray()
        self._stdout_fd = proc.stdout.fileno()
        self._stderr_fd = proc.stderr.fileno()
        self._stdin_fd = proc.stdin.fileno()
        for fd in (self._stdout_fd, self._stderr_fd, self._stdin_fd):
            os.set_blocking(fd, False)
        self._stderr_open = True
        self._poll = select.poll()
        self._poll.register(self._stdout_fd, select.POLLIN)
        self._poll.register(self._stderr_fd, select.POLLIN)
        self._wall_deadline = start + limits.wall_s
        self._next_watch = start + _SESSION_WATCH_S
        self._disk_note = ""
        self._error: SessionError | None = None
        self._result: ProgramResult | None = None
        #: Requests answered so far.
        self.requests = 0

    # --- state

    @property
    def alive(self) -> bool:
        """True while requests can still be made (no failure, not closed)."""
        return self._error is None and self._result is None

    @property
    def error(self) -> SessionError | None:
        """The failure that ended the session, if one did."""
        return self._error

    @property
    def pid(self) -> int:
        return self._proc.pid

    # --- requests

    def _begin_request(self, timeout_s: float) -> tuple[int, float]:
        """The number and deadline of the next request, once the session can take one (SessionError
        when it is closed or has failed, or the program wrote to the reply channel unasked)."""
        if self._result is not None:
            raise SessionError("closed", "the session is closed")
        if self._error is not None:
            raise self._error
        n = self.requests + 1
        if self._buf:
            self._fail("protocol", f"the program wrote to the reply channel without being asked (before request {n})")
        return n, min(time.monotonic() + max(0.0, float(timeout_s)), self._wall_deadline)

    def request(self, obj: Any, timeout_s: float) -> Any:
        """Send `obj` as one JSON line and return the program's one-line JSON reply.

        Raises SessionError when the program does not answer within `timeout_s` (or the
        session's wall time runs out first), ends, or answers with anything but one JSON value on
        one line of at most `max_message_bytes` within the session's `reply_limits` (depth, items,
        strings, numbers: core.untrusted). NaN and infinities are refused both ways."""
        n, deadline = self._begin_request(timeout_s)
        data = (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode()
        self._write(data, deadline, n, timeout_s)
        line = self._read_line(deadline, n, timeout_s)
        try:
            value = load_json(line, self._reply_limits, "it")
        except Refusal as e:
            shown = line[:120].decode("utf-8", errors="replace")
            self._fail("protocol", f"reply {n} is not one JSON value ({e}); it began {shown!r}")
        self.requests = n
        return value

    def request_frame(self, payload: bytes, timeout_s: float, decode: Callable[[bytes], T]) -> T:
        """Send `payload` as one frame (FRAME_HEADER) and return `decode` of the program's one reply
        frame's payload, a copy of the bytes read.

        The reply's header is judged before its payload is read: a reply that does not begin with
        FRAME_MAGIC is a protocol failure, one whose length is past `max_message_bytes` too_large.
        `decode` judges the payload; a ValueError it raises (its reason in words) is a protocol
        failure. Timeouts, a program that ends, and output nobody asked for fail the request as
        they do in `request`."""
        n, deadline = self._begin_request(timeout_s)
        data = FRAME_HEADER.pack(FRAME_MAGIC, len(payload)) + payload
        try:
            done = os.write(self._stdin_fd, data)  # a small frame goes at once (a full pipe or an error: _write)
        except OSError:
            done = 0
        if done < len(data):
            self._write(data[done:], deadline, n, timeout_s)
        reply = self._read_frame(deadline, n, timeout_s)
        try:
            value = decode(reply)
        except ValueError as e:
            self._fail("protocol", f"reply {n} is not a valid frame ({e})")
        self.requests = n
        return value

    def _read_frame(self, deadline: float, n: int, timeout_s: float) -> bytes:
        size = FRAME_HEADER.size
        while True:
            have = len(self._buf)
            if have >= size:
                magic, length = FRAME_HEADER.unpack_from(self._buf)
                if magic != FRAME_MAGIC:
                    shown = bytes(self._buf[:40])
                    self._fail("protocol", f"reply {n} does not begin with a frame header; it began {shown!r}")
                if length > self._max:
                    self._fail("too_large", f"reply {n} is longer than {self._max} bytes")
                if have >= size + length:
                    payload = bytes(self._buf[size:size + length])
                    del self._buf[:size + length]
                    return payload
            elif have and not FRAME_MAGIC.startswith(bytes(self._buf[:len(FRAME_MAGIC)])):
                shown = bytes(self._buf[:40])
                self._fail("protocol", f"reply {n} does not begin with a frame header; it began {shown!r}")
            chunk = self._wait_readable(deadline, n, timeout_s)
            if not chunk:
                continue
            if not self._buf and len(chunk) >= size:  # the usual case: the whole reply in one read
                magic, length = FRAME_HEADER.unpack_from(chunk)
                if magic == FRAME_MAGIC and length <= self._max and len(chunk) == size + length:
                    return chunk[size:]
            self._buf += chunk

    def _wait_readable(self, deadline: float, n: int, timeout_s: float) -> bytes:
        """Wait (up to the deadline, watching the disk) for the reply channel and return what it
        has (b"" when nothing came yet); stderr is drained as it comes."""
        now = time.monotonic()
        if now >= deadline:
            self._timed_out(n, timeout_s)
        self._watch()
        wait_ms = max(0, min(int((deadline - now) * 1000) + 1, int(_SESSION_WATCH_S * 1000)))
        ready = self._poll.poll(wait_ms)
        out = False
        for fd, _ in ready:
            if fd == self._stderr_fd:
                self._drain_stderr()
                if not self._stderr_open:
                    self._poll.unregister(self._stderr_fd)
            else:
                out = True
        if not out:
            return b""
        try:
            chunk = os.read(self._stdout_fd, 1 << 16)
        except BlockingIOError:
            return b""
        except OSError:
            chunk = b""
        if not chunk:
            self._drain_stderr()
            self._fail("closed", f"the program ended without answering request {n}")
        return chunk

    def _fail(self, kind: str, message: str) -> None:
        self._error = SessionError(kind, message)
        raise self._error

    def _timed_out(self, n: int, timeout_s: float) -> None:
        if time.monotonic() >= self._wall_deadline:
            self._fail("timeout", f"timeout: the session's {self._limits.wall_s:g} s of wall time ran out "
                                  f"waiting for reply {n}")
        self._fail("timeout", f"timeout: no reply to request {n} within {timeout_s:g} s")

    def _watch(self) -> None:
        now = time.monotonic()
        if now < self._next_watch:
            return
        self._next_watch = now + _SESSION_WATCH_S
        used, entries = _dir_usage(self._workdir, MAX_WORKDIR_ENTRIES)
        if used > self._limits.disk_mb * MB:
            self._disk_note = f"the work directory grew past {self._limits.disk_mb} MB"
        elif entries > MAX_WORKDIR_ENTRIES:
            self._disk_note = f"more than {MAX_WORKDIR_ENTRIES} files in the work directory"
        if self._disk_note:
            self._fail("disk", f"disk limit: {self._disk_note}")

    def _drain_stderr(self) -> None:
        while self._stderr_open:
            try:
                chunk = os.read(self._stderr_fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._stderr_open = False
                return
            self._capture.feed(chunk)

    def _write(self, data: bytes, deadline: float, n: int, timeout_s: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._stdin_fd, view):]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError):
                self._fail("closed", f"the program stopped reading requests before request {n} "
                                     "(it has probably ended)")
            now = time.monotonic()
            if now >= deadline:
                self._timed_out(n, timeout_s)
            self._watch()
            rd = [self._stderr_fd] if self._stderr_open else []
            r, _, _ = select.select(rd, [self._stdin_fd], [], min(deadline - now, _SESSION_WATCH_S))
            if r:
                self._drain_stderr()

    def _read_line(self, deadline: float, n: int, timeout_s: float) -> bytes:
        while True:
            idx = self._buf.find(b"\n")
            if idx >= 0:
                if idx > self._max:
                    self._fail("too_large", f"reply {n} is longer than {self._max} bytes")
                line = bytes(self._buf[:idx])
                del self._buf[:idx + 1]
                return line
            if len(self._buf) > self._max:
                self._fail("too_large", f"reply {n} is longer than {self._max} bytes")
            now = time.monotonic()
            if now >= deadline:
                self._timed_out(n, timeout_s)
            self._watch()
            fds = [self._stdout_fd] + ([self._stderr_fd] if self._stderr_open else [])
            r, _, _ = select.select(fds, [], [], min(deadline - now, _SESSION_WATCH_S))
            if self._stderr_fd in r:
                self._drain_stderr()
            if self._stdout_fd in r:
                try:
                    chunk = os.read(self._stdout_fd, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    self._drain_stderr()
                    self._fail("closed", f"the program ended without answering request {n}")
                self._buf += chunk

    # --- the end

    def close(self, grace_s: float = 2.0) -> ProgramResult:
        """End the session and describe it. A healthy session gets EOF on its stdin and `grace_s`
        seconds to exit; a failed one (or one that does not exit) is killed with its whole tree.
        Idempotent: later calls return the same result."""
        if self._result is not None:
            return self._result
        proc, cg = self._proc, self._cg
        stopped: str | None = None
        killed_by_us = False
        try:
            if self._error is None:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
                end = min(time.monotonic() + grace_s, self._wall_deadline + grace_s)
                while self._stderr_open and proc.poll() is None and time.monotonic() < end:
                    r, _, _ = select.select([self._stderr_fd], [], [], max(0.0, end - time.monotonic()))
                    if r:
                        self._drain_stderr()
                if not wait_exit(proc, end - time.monotonic()):
                    stopped = "linger"
            else:
                stopped = self._error.kind
                if stopped == "closed":  # it may be ending on its own: its status, not our kill's
                    wait_exit(proc, 0.5)
            killed_by_us = stopped is not None and proc.poll() is None
            if stopped is not None:
                kill_group(proc.pid)
                if cg is not None:
                    cg.kill_all()
            proc.wait()
            end = time.monotonic() + 0.5
            while self._stderr_open and time.monotonic() < end:
                r, _, _ = select.select([self._stderr_fd], [], [], 0.05)
                if r:
                    self._drain_stderr()
        finally:
            kill_group(proc.pid)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for f in (proc.stdin, proc.stdout, proc.stderr):
                try:
                    f.close()
                except OSError:
                    pass
            stats: dict[str, Any] = {}
            if cg is not None:
                cg.kill_all()
                stats = cg.stats()
                cg.remove()
                if cg.problems:
                    self._degraded.append("cgroup: " + "; ".join(cg.problems))
            _sanitize(self._workdir)
        elapsed = time.monotonic() - self._start
        kind = self._error.kind if self._error is not None else None
        classify_stop = "timeout" if kind == "timeout" else "disk" if kind == "disk" else None
        status, exit_code, reason, hit = _classify(proc.returncode, self._sandboxed, classify_stop, stats,
                                                   self._capture, self._limits, self._disk_note)
        if kind == "timeout":
            reason = str(self._error)
        elif kind in ("protocol", "too_large"):
            status, exit_code, reason = "error", exit_code, f"protocol: {self._error}"
        elif kind == "closed" and status == "ok":
            status, reason = "error", f"protocol: {self._error} (exit code 0)"
        elif kind == "closed" and killed_by_us:  # it closed the reply channel and went on running
            status, reason = "error", f"protocol: {self._error} (it closed the reply channel and was stopped)"
        elif stopped == "linger":
            status, reason = "timeout", f"timeout: the program did not end within {grace_s:g} s of its last request"
            hit = [*hit, "wall_time"] if "wall_time" not in hit else hit
        isolation: dict[str, Any] = {"mode": self._probe["mode"], "active": list(self._probe["active"]),
                                     "session": True}
        if self._degraded:
            isolation["degraded"] = "; ".join(self._degraded)
        usage = {k: v for k, v in stats.items() if k in ("cpu_s", "peak_memory_mb")}
        usage["output_bytes"] = self._capture.total
        usage["requests"] = self.requests
        self._result = ProgramResult(status, exit_code, self._capture.text(), elapsed, reason, tuple(hit),
                                     isolation, usage)
        return self._result

    def __enter__(self) -> SandboxSession:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def open_session(argv: list[str], workdir: Path, limits: Limits = Limits(), readonly_paths: Iterable[Path] = (),
                 env: dict[str, str] | None = None, strict: bool = False,
                 package_modules: Iterable[str] | None = (),
                 max_message_bytes: int = SESSION_MAX_MESSAGE_BYTES,
                 reply_limits: JsonLimits = SESSION_REPLY_LIMITS) -> SandboxSession:
    """Start argv confined exactly as `run_sandboxed` would, but keep it running as a session that
    answers JSON-lines requests on its stdin/stdout (see SandboxSession). Same arguments as
    `run_sandboxed`, plus how long a reply may be and how it is read (`reply_limits`); raises
    SandboxUnavailable only with strict=True when isolation is degraded."""
    workdir, readonly_paths, package_files, probe, degraded, cg, cgroup_fds, launcher = _prepare(
        workdir, readonly_paths, package_modules, limits, strict)
    sandboxed = probe["mode"] == "bwrap"
    rlimits = _rlimits(limits, cg.dirs if cg is not None else {})
    capture = OutputCapture(limits.output_kb * 1024 // 2, limits.output_kb * 1024 - limits.output_kb * 1024 // 2)
    start = time.monotonic()
    proc = None
    try:
        if sandboxed:
            ro = _python_paths(include_package=package_files is None) + readonly_paths
            cmd = _bwrap_argv(probe["bwrap"], probe["_options"], workdir, limits, ro, list(argv), package_files)
            if launcher is not None:
                proc = launcher.launch(cmd, _clean_env(env, "/tmp"), rlimits, _seccomp_filter(), session=True)
            else:
                proc = _start_bwrap(cmd, _clean_env(env, "/tmp"), rlimits, cgroup_fds, _seccomp_filter(),
                                    stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        else:
            proc = _popen(_plain_argv(list(argv), workdir), _clean_env(env, str(workdir)), str(workdir),
                          rlimits, cgroup_fds, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        for fd in cgroup_fds:
            os.close(fd)
        if proc is None and launcher is not None:
            launcher.discard()  # and its cgroup
        elif proc is None and cg is not None:
            cg.remove()
    return SandboxSession(proc, cg, capture, limits, workdir, start, sandboxed, degraded, probe, max_message_bytes,
                          reply_limits)
