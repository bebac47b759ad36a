"""The controls every pace task must pass, run through the real path (sandbox + simulator).

For every task: the source design passes the source environment and fails every target stage;
each stage's reference design passes its own stage. `run_controls` runs them over a process pool
(each control is one full evaluation: a sandboxed program, a Box2D run, an evaluator) and returns
one row per control with its score, steps and wall time (and where the time went), the fingerprint
of its metrics and how that stands against the fingerprint pinned in the task folder (pins.py).
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from simreflect.core.lifetime import worker_pool
from simreflect.suites.pace import pins
from simreflect.suites.pace.evaluate import DEFAULT_TIMEOUT_S, evaluate
from simreflect.core.contract import BrokenTask
from simreflect.suites.pace.task import TARGETS, discover, load_spec


@dataclass(frozen=True)
class Control:
    task: str
    env: str  # the environment (source, stage1..stage4)
    program: str  # which of the task's programs: source, stage1..stage4 (its reference)
    expect_pass: bool


@dataclass
class ControlResult:
    task: str
    env: str
    program: str
    expect_pass: bool
    passed: bool
    score: float
    steps: int
    wall_s: float
    failure: str = ""
    invalid: str = ""
    program_status: str = ""
    timings: dict[str, Any] = field(default_factory=dict)
    metrics_sha: str = ""
    pinned: str = pins.UNPINNED  # same | changed | unpinned | other platform

    @property
    def ok(self) -> bool:
        return self.passed == self.expect_pass

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def controls_for(task_ids: list[str] | None = None, root: Path | None = None) -> list[Control]:
    """The controls of the chosen tasks (all by default) that load; `broken_among` names the others."""
    found = discover(root)
    specs = list(found.specs)
    if task_ids:
        known = {s.id for s in specs} | {b.id for b in found.broken}
        unknown = [t for t in task_ids if t not in known]
        if unknown:
            raise KeyError(f"unknown pace task(s) {', '.join(unknown)}; tasks: {', '.join(sorted(known))}")
        specs = [s for s in specs if s.id in task_ids]
    out: list[Control] = []
    for spec in specs:
        out.append(Control(spec.id, "source", "source", True))
        for st in TARGETS:
            out.append(Control(spec.id, st, "source", False))
            out.append(Control(spec.id, st, st, True))
    return out


def broken_among(task_ids: list[str] | None = None, root: Path | None = None) -> tuple[BrokenTask, ...]:
    """The chosen tasks (all by default) whose folders do not load."""
    return tuple(b for b in discover(root).broken if not task_ids or b.id in task_ids)


def run_control(control: Control, root: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                trusted_inprocess: bool = False) -> ControlResult:
    import hashlib

    spec = load_spec(control.task, Path(root) if root else None)
    t0 = time.perf_counter()
    ev = evaluate(spec, control.env, spec.program(control.program), timeout_s=timeout_s,
                  trusted_inprocess=trusted_inprocess)
    wall = time.perf_counter() - t0
    fingerprint = hashlib.sha256(ev.metrics_json().encode()).hexdigest()[:16]
    return ControlResult(task=control.task, env=control.env, program=control.program,
                         expect_pass=control.expect_pass, passed=ev.passed, score=ev.score, steps=ev.steps,
                         wall_s=round(wall, 4), failure=ev.failure[:160], invalid=ev.invalid[:160],
                         program_status="" if ev.program is None else ev.program.status,
                         timings=ev.timings.to_dict(),
                         metrics_sha=fingerprint,
                         pinned=pins.compare(pins.read_pins(spec.folder), control.env, control.program, fingerprint))


def _run(args: tuple) -> ControlResult:
    return run_control(*args)


def run_controls(task_ids: list[str] | None = None, root: Path | None = None, workers: int | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, progress: Callable[[int, int], None] | None = None,
                 trusted_inprocess: bool = False) -> list[ControlResult]:
    """Every control of the chosen tasks (all by default), in the canonical order."""
    controls = controls_for(task_ids, root)
    workers = workers or min(len(controls), os.cpu_count() or 1)
    args = [(c, str(root) if root else None, timeout_s, trusted_inprocess) for c in controls]
    results: list[ControlResult] = []
    if workers <= 1:
        for i, a in enumerate(args):
            results.append(_run(a))
            if progress:
                progress(i + 1, len(args))
        return results
    with worker_pool(workers) as pool:
        for i, r in enumerate(pool.map(_run, args)):
            results.append(r)
            if progress:
                progress(i + 1, len(args))
    return results


def pin(rows: list[ControlResult], root: Path | None = None) -> list[Path]:
    """Pin every task's fingerprints from a validation in which every control came out as
    expected (a failing benchmark is never pinned). Returns the files written."""
    bad = [r for r in rows if not r.ok]
    if bad:
        raise ValueError("not pinning: control(s) failed: " + ", ".join(f"{r.task}/{r.env}/{r.program}" for r in bad))
    by_task: dict[str, list[ControlResult]] = {}
    for r in rows:
        by_task.setdefault(r.task, []).append(r)
    return [pins.write_pins(load_spec(task, root).folder, task_rows) for task, task_rows in by_task.items()]
