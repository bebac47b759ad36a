"""The control evaluations `pace-bench validate` runs, scored by PACE-Bench and by this suite.

For each task: the source (Initial) reference on the source, then for every target stage the
source reference on the target (expected to fail) and the stage's reference on the stage: 9
evaluations a task, 324 for the 36 tasks. `pacebench_controls` runs PACE-Bench's own harness
(`validate_task_references`, what its `validate` command prints) in a process of its own, with
the Python given (default: this one, which imports the checkout); `simreflect_controls` runs the
same programs through evaluate.py (sandbox and proxy).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass

from simreflect.suites.pacebench import checkout
from simreflect.suites.pacebench.evaluate import evaluate

TARGETS = ("Stage-1", "Stage-2", "Stage-3", "Stage-4")
#: Run in the harness's process: PACE-Bench's own function, its result as JSON lines.
_HARNESS = """
import json, sys
from pace_bench.evaluation.runner import validate_task_references
from pace_bench.tasks.registry import get_registry
registry = get_registry()
for task in registry.select(sys.argv[1:]):
    for c in validate_task_references(task, registry=registry):
        print(json.dumps([task.name, c.reference_environment, c.execution_environment, c.actual_success,
                          c.score, c.error]), flush=True)
"""


@dataclass(frozen=True)
class ControlScore:
    task: str
    reference: str
    environment: str
    success: bool
    score: float
    error: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.task, self.reference, self.environment)


def control_pairs(task: str) -> list[tuple[str, str]]:
    """(reference environment, environment it runs on), in validate's order."""
    out = [("Initial", "Initial")]
    for stage in TARGETS:
        out += [("Initial", stage), (stage, stage)]
    return out


def pacebench_controls(tasks: list[str], root: str | None = None, python: str | None = None,
                       timeout_s: float = 7200.0) -> list[ControlScore]:
    """PACE-Bench's own scores of the controls of `tasks`, from its harness in a fresh process."""
    src = str(checkout.checkout_root(root) / "src")
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1",
           "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([python or sys.executable, "-c", _HARNESS, *tasks], capture_output=True, text=True,
                          env=env, timeout=timeout_s, check=True)
    return [ControlScore(*json.loads(line)) for line in done.stdout.splitlines() if line.startswith("[")]


def simreflect_controls(tasks: list[str], root: str | None = None) -> list[ControlScore]:
    """The same controls through this suite's evaluation (the program in the sandbox)."""
    checkout.load(root)
    from pace_bench.tasks.registry import get_reference_solution, get_registry

    registry = get_registry()
    out = []
    for name in tasks:
        spec = registry.resolve(name)
        for reference, environment in control_pairs(name):
            r = evaluate(name, environment, get_reference_solution(spec, reference), root=root)
            out.append(ControlScore(spec.name, reference, environment, r.success, r.score, r.error))
    return out


def compare(ours: list[ControlScore], theirs: list[ControlScore]) -> tuple[int, list[dict]]:
    """(identical count, the differences): identical means the same success and the same score."""
    by_key = {c.key: c for c in theirs}
    same, differences = 0, []
    for c in ours:
        other = by_key.get(c.key)
        if other is not None and other.success == c.success and other.score == c.score:
            same += 1
        else:
            differences.append({"simreflect": asdict(c), "pacebench": None if other is None else asdict(other)})
    return same, differences
