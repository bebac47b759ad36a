"""An interactive workshop session killed with SIGKILL at several turns and resumed by the same
command ends exactly as an uninterrupted one: the same final state bytes, the same commands in the
record (none executed twice), the same tool calls in the transcript."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simreflect.core.interactive import Transcript
from simreflect.core.records import SessionEndRecord, TurnRecord
from simreflect.run.interactive import session_dir
from simreflect.run.store import RunStore
from simreflect.suites.workshop.recording import COMMANDS_FILE, FINAL_FILE

pytestmark = pytest.mark.slow


def _command(out: Path) -> list[str]:
    return [sys.executable, "-m", "simreflect.cli", "run", "workshop", "--agent", "oracle", "--mode", "interactive",
            "--tasks", "place-0", "--levels", "L1", "--out", str(out)]


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "SIMREFLECT_CACHE": str(tmp_path / "cache")}


def _finish(out: Path, env) -> None:
    done = subprocess.run(_command(out), env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _kill_at(out: Path, lines: int, env) -> int:
    """Start the run and SIGKILL its process group once the transcript holds `lines` records."""
    proc = subprocess.Popen(_command(out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    path = session_dir(out, "place-0", "L1") / "transcript.jsonl"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        if path.is_file() and path.read_bytes().count(b"\n") >= lines:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return path.read_bytes().count(b"\n")


def _outcome(out: Path) -> dict:
    base = session_dir(out, "place-0", "L1")
    recs = Transcript(base / "transcript.jsonl").read()
    commands = [json.loads(line) for line in (base / "record" / COMMANDS_FILE).read_text().splitlines()]
    rounds = [r for r in RunStore(out).read().records if r["type"] == "round"]
    return {"final": (base / "record" / FINAL_FILE).read_bytes(),
            "commands": [(c["kind"], c["request"]) for c in commands],
            "calls": [r.message["tool_calls"][0]["function"]["arguments"] for r in recs if isinstance(r, TurnRecord)],
            "end": [(r.budget, r.turns, r.commands) for r in recs if isinstance(r, SessionEndRecord)],
            "passed": [r["passed"] for r in rounds]}


def test_sigkill_at_several_turns_then_resume_equals_an_uninterrupted_run(tmp_path):
    env = _env(tmp_path)
    _finish(tmp_path / "whole", env)
    whole = _outcome(tmp_path / "whole")
    assert whole["passed"] == [True] and whole["end"][0][0] == "finish"
    # early, in the middle, and twice in one run (the second kill lands in the resumed session)
    for name, kills in (("early", (3,)), ("middle", (len(whole["calls"]),)), ("twice", (40, 120))):
        out = tmp_path / name
        for lines in kills:
            _kill_at(out, lines, env)
        _finish(out, env)
        got = _outcome(out)
        assert got["passed"] == [True], name
        assert got["commands"] == whole["commands"], f"{name}: the record's commands differ (one ran twice?)"
        assert got["final"] == whole["final"], f"{name}: the final state differs"
        assert got["calls"] == whole["calls"] and got["end"] == whole["end"], name
