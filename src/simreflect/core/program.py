"""Running an untrusted program in its own process and describing what happened.

This is the plain-subprocess runner: its own process group, a wall-clock timeout that kills the
whole group, bounded captured output. The sandboxed runner (namespaces, rlimits) builds on the
same result type.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OUTPUT_TAIL_CHARS = 4000


@dataclass(frozen=True)
class ProgramResult:
    """Outcome of one program run. `status` is ok, error (non-zero exit), timeout or crash."""

    status: str
    exit_code: int | None
    output_tail: str
    seconds: float
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "exit_code": self.exit_code,
            "output_tail": self.output_tail,
            "seconds": round(self.seconds, 4),
            "reason": self.reason,
        }


def _tail(data: bytes, limit: int = OUTPUT_TAIL_CHARS) -> str:
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= limit else "...[output cut]...\n" + text[-limit:]


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
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = proc.communicate()
        return ProgramResult("timeout", None, _tail(out), time.monotonic() - start, f"killed after {timeout_s:g} s")
    finally:
        try:  # children left behind by a finished program die with their group
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    elapsed = time.monotonic() - start
    if proc.returncode == 0:
        return ProgramResult("ok", 0, _tail(out), elapsed)
    if proc.returncode < 0:
        sig = signal.Signals(-proc.returncode).name
        return ProgramResult("crash", proc.returncode, _tail(out), elapsed, f"killed by {sig}")
    return ProgramResult("error", proc.returncode, _tail(out), elapsed, f"exit code {proc.returncode}")
