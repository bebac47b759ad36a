"""The verifier entry point of an exported Harbor task (run by its tests/test.sh).

Runs the agent's program on a fresh workspace of the saved task, verifies, and writes
{"reward": ..., "passed": ..., "errors": [...], "program": {...}} to --out.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from simreflect.core.attempt import attempt
from simreflect.core.registry import get_suite
from simreflect.core.sandbox import read_workspace_file
from simreflect.core.verdict import Verdict

#: The largest program file the verifier reads.
MAX_PROGRAM_BYTES = 4 << 20


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--task", required=True, type=Path, help="the task folder saved by the exporter")
    ap.add_argument("--program", required=True, type=Path, help="the agent's program")
    ap.add_argument("--out", required=True, type=Path, help="where to write reward.json")
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args(argv)
    suite = get_suite(args.suite)
    task = suite.load_task(args.task)
    result = harness = None
    try:  # the agent left the program: never read through a link, from a FIFO, or past a bound
        program = read_workspace_file(args.program.parent, args.program.name, MAX_PROGRAM_BYTES).decode(
            "utf-8", errors="replace")
    except FileNotFoundError:
        program, verdict = None, Verdict.invalid_artefact(f"no program at {args.program}")
    except (OSError, ValueError) as e:  # ValueError: UnsafeWorkspaceFile (a link, a FIFO, too large), or no file name
        program, verdict = None, Verdict.invalid_artefact(f"the program at {args.program} cannot be read: {e}")
    if program is not None:
        with tempfile.TemporaryDirectory(prefix="simreflect-harbor-") as tmp:
            work = Path(tmp) / "work"
            suite.prepare_workspace(task, work)
            outcome = attempt(suite, task, program, work, args.timeout)
            result, harness = outcome.program, outcome.harness
            verdict = outcome.verdict or Verdict.invalid_artefact(
                harness.describe() if result is None else f"the program failed ({result.status}: {result.reason})")
    report = {"reward": verdict.reward, "passed": verdict.passed, "score": verdict.score, "errors": verdict.errors,
              "invalid": verdict.invalid, "program": None if result is None else result.to_dict(),
              "harness_error": None if harness is None else harness.to_dict()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(json.dumps({k: report[k] for k in ("reward", "passed", "errors")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
