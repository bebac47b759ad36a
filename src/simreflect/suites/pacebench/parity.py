"""The control evaluations `pace-bench validate` runs, scored by PACE-Bench and by this suite.

For each task: the source (Initial) reference on the source, then for every target stage the
source reference on the target (expected to fail) and the stage's reference on the stage: 9
evaluations a task, 324 for the 36 tasks. `pacebench_controls` runs them through PACE-Bench's own
verifier as its `validate_task_references` does, in a process of its own, with the Python given
(default: this one, which imports the checkout); `simreflect_controls` runs the same programs
through evaluate.py (sandbox and proxy).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass

from simreflect.core.selection import select_ids
from simreflect.suites.pacebench import checkout
from simreflect.suites.pacebench.evaluate import evaluate

TARGETS = ("Stage-1", "Stage-2", "Stage-3", "Stage-4")
#: Run in the harness's process: PACE-Bench's verifier exactly as `validate_task_references` calls it
#: (PhysicsVerifier, the task's max steps, headless, no GIF), its results as JSON lines.
_HARNESS = """
import json, sys, time
from pace_bench.evaluation.verification.verifier import PhysicsVerifier
from pace_bench.tasks.registry import get_reference_solution, get_registry, max_steps_for_task
registry = get_registry()
for name, reference, environment in json.loads(sys.argv[1]):
    task = registry.resolve(name)
    env = {str(e.environment_id): e for e in registry.environments(task)}[environment]
    verifier = PhysicsVerifier(task, env, max_steps=max_steps_for_task(task), headless=True, save_gif=False,
                               artifact_directory=None, registry=registry)
    start = time.perf_counter()
    try:
        r = verifier.verify(get_reference_solution(task, reference), 0)
    finally:
        verifier.close()
    seconds = time.perf_counter() - start
    print(json.dumps([task.name, reference, environment, r.success, r.score, r.error, seconds]), flush=True)
"""


@dataclass(frozen=True)
class ControlScore:
    task: str
    reference: str
    environment: str
    success: bool
    score: float
    error: str | None = None
    #: Wall seconds of the evaluation alone (PACE-Bench: its verifier's verify and close, in its process;
    #: simreflect: evaluate, the sandbox's start included); never part of what `compare` compares.
    seconds: float | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.task, self.reference, self.environment)


def expected_pass(reference: str, environment: str) -> bool:
    """A control is expected to pass on its own environment (a reference on its stage, the source on the
    source) and to fail elsewhere (the source on a target)."""
    return reference == environment


def task_names(patterns: list[str] | None = None, root: str | None = None) -> list[str]:
    """PACE-Bench's benchmark tasks (S_01, ...) in its order, those matching `patterns` (ids or globs;
    a pattern that matches nothing is a ValueError) when given."""
    checkout.load(root)
    from pace_bench.tasks.registry import get_registry

    return select_ids([t.name for t in get_registry().benchmark_tasks], patterns or [])


def control_pairs(task: str, stages: tuple[str, ...] = TARGETS) -> list[tuple[str, str]]:
    """(reference environment, environment it runs on), in validate's order (of `stages` alone if given)."""
    out = [("Initial", "Initial")]
    for stage in (s for s in TARGETS if s in stages):
        out += [("Initial", stage), (stage, stage)]
    return out


def controls(tasks: list[str], stages: tuple[str, ...] = TARGETS) -> list[tuple[str, str, str]]:
    """(task, reference environment, environment it runs on) of `tasks`, in validate's order."""
    return [(name, ref, env) for name in tasks for ref, env in control_pairs(name, stages)]


def one_control_each(tasks: list[str]) -> list[tuple[str, str, str]]:
    """One control of each task, the n-th task's (n mod 9)-th in validate's order: a sample that is the same
    on every run, covers every task (so every domain and every task whose references write motors or
    velocities) and takes each of the nine kinds of control (source on source, source on a stage, a stage's
    reference) about equally often."""
    out = []
    for n, name in enumerate(tasks):
        pairs = control_pairs(name)
        ref, env = pairs[n % len(pairs)]
        out.append((name, ref, env))
    return out


def pacebench_controls(items: list[tuple[str, str, str]], root: str | None = None, python: str | None = None,
                       timeout_s: float = 7200.0) -> list[ControlScore]:
    """PACE-Bench's own scores of the controls `items`, from its verifier in a fresh process."""
    src = str(checkout.checkout_root(root) / "src")
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1",
           "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([python or sys.executable, "-c", _HARNESS, json.dumps([list(i) for i in items])],
                          capture_output=True, text=True, env=env, timeout=timeout_s, check=True)
    return [ControlScore(*json.loads(line)) for line in done.stdout.splitlines() if line.startswith("[")]


def simreflect_controls(items: list[tuple[str, str, str]], root: str | None = None) -> list[ControlScore]:
    """The same controls through this suite's evaluation (the program in the sandbox)."""
    checkout.load(root)
    from pace_bench.tasks.registry import get_reference_solution, get_registry

    registry = get_registry()
    out = []
    for name, reference, environment in items:
        spec = registry.resolve(name)
        program = get_reference_solution(spec, reference)
        start = time.perf_counter()
        r = evaluate(name, environment, program, root=root)
        out.append(ControlScore(spec.name, reference, environment, r.success, r.score, r.error,
                                time.perf_counter() - start))
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
