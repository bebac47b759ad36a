"""The verifier entry point of an exported Harbor task (run by its tests/test.sh, in the verifier's own image).

Runs the agent's program on a fresh workspace of the saved task and verifies it. Writes Harbor's
reward file (--reward: {"reward": the verdict's reward on [0, 1], "passed": 1 or 0}, numbers only,
as Harbor's verifier reads it) and the rest of the verdict to --verdict (a file Harbor ignores).
Always exits 0 with a reward written: whatever the program did is a verdict, never a crash.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from pathlib import Path
from typing import Any

from simreflect.core.attempt import attempt
from simreflect.core.registry import get_suite
from simreflect.core.sandbox import read_workspace_file
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict

#: The largest program file the verifier reads.
MAX_PROGRAM_BYTES = 4 << 20


def _read_program(path: Path) -> tuple[str | None, str | None]:
    """The agent's program, or None and why (never read through a link, from a FIFO, or past a bound)."""
    try:
        return read_workspace_file(path.parent, path.name, MAX_PROGRAM_BYTES).decode("utf-8", errors="replace"), None
    except FileNotFoundError:
        return None, f"no program at {path}"
    except (OSError, ValueError) as e:  # ValueError: UnsafeWorkspaceFile (a link, a FIFO, too large), or no file name
        return None, f"the program at {path} cannot be read: {e}"


def verify_program(suite: Suite, task: Task, program_path: Path, timeout_s: float) -> dict[str, Any]:
    """The whole verdict of the program at `program_path` as a JSON-able dict (reward on [0, 1] included)."""
    program, why_not = _read_program(program_path)
    result = harness = None
    if program is None:
        verdict = Verdict.invalid_artefact(why_not, reward=suite.crash_reward)
    else:
        with tempfile.TemporaryDirectory(prefix="simreflect-harbor-") as tmp:
            work = Path(tmp) / "work"
            suite.prepare_workspace(task, work)
            outcome = attempt(suite, task, program, work, timeout_s)
            result, harness = outcome.program, outcome.harness
            verdict = outcome.verdict or Verdict.invalid_artefact(
                harness.describe() if result is None else f"the program failed ({result.status}: {result.reason})",
                reward=suite.crash_reward)
    return {"reward": _unit_reward(suite, verdict.reward), "suite_reward": verdict.reward, "passed": verdict.passed,
            "score": verdict.score, "errors": verdict.errors, "invalid": verdict.invalid,
            "program": None if result is None else result.to_dict(),
            "harness_error": None if harness is None else harness.to_dict()}


def _unit_reward(suite: Suite, reward: float) -> float:
    """The reward on [0, 1]; one outside the suite's declared range (a defect) earns 0, never a crash."""
    try:
        unit = suite.scale.unit_reward(reward)
    except ValueError:
        return 0.0
    return unit if math.isfinite(unit) else 0.0


def harbor_reward(report: dict[str, Any]) -> dict[str, float | int]:
    """Harbor's reward.json: finite numbers only."""
    return {"reward": float(report["reward"]), "passed": 1 if report["passed"] else 0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--task", required=True, type=Path, help="the task folder saved by the exporter")
    ap.add_argument("--program", required=True, type=Path, help="the agent's program")
    ap.add_argument("--reward", required=True, type=Path, help="where to write Harbor's reward.json")
    ap.add_argument("--verdict", required=True, type=Path, help="where to write the rest of the verdict")
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args(argv)
    suite = get_suite(args.suite)
    try:
        report = verify_program(suite, suite.load_task(args.task), args.program, args.timeout)
    except Exception as e:  # noqa: BLE001 - the trusted side failed: reward 0 and why, never a missing reward
        report = {"reward": 0.0, "passed": False, "invalid": None,
                  "harness_error": {"stage": "export-verifier", "type": type(e).__name__, "message": str(e)[:2000]}}
    for path in (args.reward, args.verdict):
        path.parent.mkdir(parents=True, exist_ok=True)
    args.verdict.write_text(json.dumps(report, indent=1))
    args.reward.write_text(json.dumps(harbor_reward(report)))
    print(json.dumps({k: report.get(k) for k in ("reward", "passed", "errors", "invalid")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
