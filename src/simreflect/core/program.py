"""Running an untrusted program in its own process and describing what happened.

This is the plain-subprocess runner: its own process group, a wall-clock timeout that kills the
whole group, bounded captured output. The sandboxed runner (`simreflect.core.sandbox`: namespaces,
cgroups, rlimits) builds on the same result type and the same helpers: `OutputCapture` (bounded,
incremental capture), `pump` (read output until the program ends, a deadline passes or a watcher
objects) and `kill_group`.
"""

from __future__ import annotations

import os
import select
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from simreflect.core.untrusted import text_problem

OUTPUT_TAIL_CHARS = 4000
#: How often `pump` wakes up to look at the process and the watcher when no output arrives.
POLL_S = 0.1


@dataclass(frozen=True)
class ProgramResult:
    """Outcome of one program run.

    `status` is ok, error (non-zero exit), timeout (wall time), limit (stopped by a resource limit:
    cpu, memory, file size, processes, disk) or crash (killed by a signal). `reason` says why in
    words; `limits_hit` names every limit the run ran into (`wall_time`, `cpu`, `memory`,
    `file_size`, `processes`, `disk`, `output`), also when the program still succeeded (truncated
    output, say). `isolation` records how the program was confined (empty for `run_process`) and
    `usage` what it used where known (cpu_s, peak_memory_mb, output_bytes).
    """

    status: str
    exit_code: int | None
    output_tail: str
    seconds: float
    reason: str = ""
    limits_hit: tuple[str, ...] = ()
    isolation: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self, usage: bool = False) -> dict[str, Any]:
        """The result as JSON-able data. `seconds` is its only field that varies from run to run of
        the same program; the measurements in `usage` (cpu time, peak memory) are left out unless
        asked for, so that records and environment infos stay comparable."""
        out = {
            "status": self.status,
            "exit_code": self.exit_code,
            "output_tail": self.output_tail,
            "seconds": round(self.seconds, 4),
            "reason": self.reason,
            "limits_hit": list(self.limits_hit),
            "isolation": self.isolation,
        }
        if usage:
            out["usage"] = self.usage
        return out



@dataclass(frozen=True)
class ProgramRun:
    """What a suite's `run_program` hands to its `verify`: the program's process result and the
    suite's handle on the artefact the run produced (pace's Evaluation, the workshop's final
    session state, audit's run record; None for a suite whose artefact is the work directory
    alone). Passed explicitly, so `verify` depends on its arguments only, never on what a suite
    object remembers from an earlier call."""

    result: ProgramResult
    artefact: Any = None

    @property
    def ok(self) -> bool:
        return self.result.ok

#: The longest program a suite writes and runs (a model's answer is at most 400k characters).
MAX_PROGRAM_CHARS = 1_000_000


def refuse_program(program: Any, max_chars: int = MAX_PROGRAM_CHARS) -> ProgramResult | None:
    """The failed result of a program that cannot be written as a file: not text, longer than
    `max_chars`, or holding a lone surrogate (not text). None when it can be run. Every suite's
    run_program asks this first, so such a program costs its round like any failed program."""
    problem = text_problem(program, max_chars, "the program")
    if problem is None:
        return None
    return ProgramResult("error", None, "", 0.0, reason=f"invalid program: {problem}")


def _tail(data: bytes, limit: int = OUTPUT_TAIL_CHARS) -> str:
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= limit else "...[output cut]...\n" + text[-limit:]


class OutputCapture:
    """Keeps the first `head_bytes` and the last `tail_bytes` of a stream, counting the rest.

    Memory stays bounded however much a program prints; `text()` marks what was cut.
    """

    def __init__(self, head_bytes: int, tail_bytes: int):
        self.head_bytes = max(0, int(head_bytes))
        self.tail_bytes = max(0, int(tail_bytes))
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_bytes - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_bytes:
            self.tail += chunk[-self.tail_bytes:]
            if len(self.tail) > 2 * self.tail_bytes:  # trim in batches, not on every chunk
                del self.tail[: len(self.tail) - self.tail_bytes]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.head) + min(len(self.tail), self.tail_bytes)

    def data(self) -> bytes:
        """Head and tail bytes, without a marker."""
        return bytes(self.head) + bytes(self.tail[-self.tail_bytes:] if self.tail_bytes else b"")

    def text(self) -> str:
        tail = bytes(self.tail[-self.tail_bytes:]) if self.tail_bytes else b""
        if not self.truncated:
            return (bytes(self.head) + tail).decode("utf-8", errors="replace")
        cut = self.total - len(self.head) - len(tail)
        return (bytes(self.head).decode("utf-8", errors="replace")
                + f"\n...[{cut} bytes of output cut; {self.total} bytes in all]...\n"
                + tail.decode("utf-8", errors="replace"))


def kill_group(pid: int, sig: int = signal.SIGKILL) -> None:
    """Signal the process group led by `pid` (a process started with start_new_session=True)."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def pump(proc: subprocess.Popen, capture: OutputCapture, deadline: float,
         watch: Callable[[], str | None] | None = None, watch_every_s: float = 0.25) -> str | None:
    """Read `proc.stdout` into `capture` until the program is done or must be stopped.

    Returns None once the program has exited (having read its output to the end, or as far as it
    goes when a leftover child still holds the pipe), "timeout" when the monotonic `deadline`
    passed first, or whatever non-empty reason `watch()` returned (called about every
    `watch_every_s` seconds). A program that closes its output and keeps running is still waited
    for. Kills nothing itself.
    """
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    now = time.monotonic()
    next_watch = now + watch_every_s if watch is not None else float("inf")
    next_poll = now + POLL_S
    exited_at = None
    eof = False
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if now >= deadline:
                return "timeout"
            if now >= next_watch:
                why = watch()
                if why:
                    return why
                next_watch = now + watch_every_s
            if eof:
                if wait_exit(proc, max(0.0, min(deadline, next_watch) - now)):
                    return None
                continue
            if now >= next_poll:
                next_poll = now + POLL_S
                if proc.poll() is not None:  # exited, but something it left behind holds the pipe
                    if exited_at is None:
                        exited_at = now
                    elif now - exited_at >= POLL_S:
                        return None
            if sel.select(max(0.0, min(deadline, next_poll, next_watch) - now)):
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    eof = True
                    sel.unregister(fd)
                    continue
                capture.feed(chunk)


def wait_exit(proc: subprocess.Popen, timeout_s: float) -> bool:
    """Wait at most `timeout_s` for `proc` to exit, woken by the kernel through a pidfd (Popen's own
    timed wait polls with sleeps of up to 50 ms); True once it has exited (and is reaped)."""
    if proc.poll() is not None:
        return True
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (OSError, AttributeError):  # no pidfds here: Popen's own wait
        try:
            proc.wait(timeout=max(0.0, timeout_s))
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        select.select([pidfd], [], [], max(0.0, timeout_s))
    finally:
        os.close(pidfd)
    return proc.poll() is not None


def drain(proc: subprocess.Popen, capture: OutputCapture, seconds: float = 0.5) -> None:
    """After a kill: read what is left in the pipe, for at most `seconds`."""
    try:
        pump(proc, capture, time.monotonic() + seconds)
    except (OSError, ValueError):
        pass


def run_process(argv: list[str], cwd: Path, timeout_s: float, env: dict[str, str] | None = None) -> ProgramResult:
    """Run argv in its own process group; on timeout kill the whole group."""
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    capture = OutputCapture(0, 64 * 1024)
    try:
        stopped = pump(proc, capture, start + timeout_s)
        if stopped == "timeout":
            kill_group(proc.pid)
            drain(proc, capture)
            proc.wait()
            return ProgramResult("timeout", None, _tail(capture.data()), time.monotonic() - start,
                                 f"killed after {timeout_s:g} s", limits_hit=("wall_time",))
        proc.wait()
    finally:
        kill_group(proc.pid)  # children left behind by a finished program die with their group
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    elapsed = time.monotonic() - start
    out = _tail(capture.data())
    if proc.returncode == 0:
        return ProgramResult("ok", 0, out, elapsed)
    if proc.returncode < 0:
        sig = signal.Signals(-proc.returncode).name
        return ProgramResult("crash", proc.returncode, out, elapsed, f"killed by {sig}")
    return ProgramResult("error", proc.returncode, out, elapsed, f"exit code {proc.returncode}")
