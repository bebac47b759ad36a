"""What stopped a program: status, exit code, reason and the limits met, from its exit status,
its cgroup's counters and its output."""

from __future__ import annotations

import re
import signal
from typing import Any

from simreflect.core.program import OutputCapture
from simreflect.core.sandbox.limits import Limits


_SIGNAL_EXIT_BASE = 128


def _exception_line(text: str) -> str:
    """The last line of a Python traceback in the output, if the output ends with one."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    for ln in reversed(lines[-5:]):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b", ln):
            return ln
    return ""


def _classify(rc: int | None, sandboxed: bool, stopped: str | None, stats: dict[str, Any], capture: OutputCapture,
              limits: Limits, watch_note: str) -> tuple[str, int | None, str, list[str]]:
    """(status, exit_code, reason, limits_hit) of a finished run."""
    hit: list[str] = []
    if stopped == "timeout":
        hit.append("wall_time")
    if stopped == "disk":
        hit.append("disk")
    if stats.get("oom_kills"):
        hit.append("memory")
    if stats.get("pids_refused"):
        hit.append("processes")
    if stats.get("cpu_s", 0.0) >= limits.cpu_s:
        hit.append("cpu")
    if capture.truncated:
        hit.append("output")
    sig = None
    if rc is not None:
        if sandboxed and rc > _SIGNAL_EXIT_BASE and rc - _SIGNAL_EXIT_BASE < signal.NSIG:
            sig = rc - _SIGNAL_EXIT_BASE
        elif rc < 0:
            sig = -rc
    exc = _exception_line(capture.text()) if rc not in (None, 0) and sig is None else ""
    exc_type = exc.split(":", 1)[0]
    if sig == signal.SIGXCPU and "cpu" not in hit:
        hit.append("cpu")
    if sig == signal.SIGXFSZ or "File too large" in exc:
        hit.append("file_size")
    if "MemoryError" in exc_type and "memory" not in hit:
        hit.append("memory")
    exit_code = None if sig is None and rc is None else (-sig if sig is not None else rc)

    if stopped == "timeout":
        return "timeout", None, f"timeout: killed after {limits.wall_s:g} s of wall time", hit
    if stopped == "disk":
        return "limit", None, f"disk limit: {watch_note}", hit
    if rc == 0:
        return "ok", 0, "", hit
    if sig is not None:
        name = _signal_name(sig)
        if "cpu" in hit and sig in (signal.SIGXCPU, signal.SIGKILL):
            return "limit", exit_code, f"cpu limit: {limits.cpu_s:g} s of CPU time ({name})", hit
        if "memory" in hit and sig == signal.SIGKILL:
            return "limit", exit_code, f"memory limit: killed by the OOM killer at {limits.memory_mb} MB", hit
        if sig == signal.SIGXFSZ:
            return "limit", exit_code, f"file too large: a file grew past {limits.file_mb} MB ({name})", hit
        return "crash", exit_code, f"killed by signal {sig} ({name})", hit
    if "memory" in hit:
        what = "MemoryError" if "MemoryError" in exc_type else f"the OOM killer stopped a process at {limits.memory_mb} MB"
        return "limit", rc, f"memory limit: {what} (exit code {rc})", hit
    if "file_size" in hit:
        return "limit", rc, f"file too large: a file grew past {limits.file_mb} MB (exit code {rc})", hit
    if "processes" in hit and ("Resource temporarily unavailable" in exc or "BlockingIOError" in exc):
        return "limit", rc, f"process limit: more than {limits.processes} processes (exit code {rc})", hit
    return "error", rc, f"exit code {rc}", hit


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
