"""RL throughput on pace: RepairEnv.step() and the batch API, in evaluations per second per core.

    .venv/bin/python benchmarks/rl_throughput.py [--label before|after|...] [--reps 6]
                                                 [--task statics_bridge.stage1] [--workers 1,2]
                                                 [--group 8] [--out PATH]

A fixed set of programs on one task (default statics_bridge on its first target stage): the
oracle (passes), a broken variant (the source design, which fails in the target) and a crashing
one (raises at build). Each is played as `step()` right after a `reset()` (the reset is timed
apart, `reset_ms`: it verifies the task's opening workspace, since this change once per task and
environment, then copies it). Per step it measures

* wall: perf_counter around step();
* cpu: this process's CPU plus the CPU of every sandbox run in the meantime, read from each run's
  cgroup, a pre-started launcher's start-up included (the meter of benchmarks/overhead.py);
* evaluations per second per core: 1 / cpu (what one core sustains), and 1 / wall (one step
  after the other, as a single-threaded trainer sees it).

The profile of one step splits the wall time into: the sandbox (its start, open_session; the
build request; its close; pace's Timings.program_s counts the time waiting for the program, the
close only after a build), engine (b2World.Step), the pace harness
(world building, checks, scoring, feedback text: Timings.harness_s), the workspace copies and
checks (copy_workspace), the report and prompt (observe, round_feedback) and the rest (records,
info). With --workers the batch API (simreflect.rl.evaluate_group) plays a group of --group
programs (the fixed set repeated) with each worker count, its throughput as evaluations per
second of wall time and per core of CPU. The load average is printed and recorded; nothing here is
asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from overhead import SandboxCpu  # noqa: E402 - the one cgroup CPU meter

import simreflect  # noqa: E402
from simreflect.core.cache import cache_dir  # noqa: E402

CRASHING = "def build(api):\n    raise RuntimeError('crash at build')\n"


class Profile:
    """Wall seconds spent inside named functions, by wrapping them where they are looked up."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    @contextmanager
    def wrapped(self, targets: list[tuple[Any, str, str]]) -> Iterator[Profile]:
        with ExitStack() as stack:
            for owner, attr, label in targets:
                original = getattr(owner, attr)
                setattr(owner, attr, self._timed(original, label))
                stack.callback(setattr, owner, attr, original)
            yield self

    def _timed(self, fn: Callable[..., Any], label: str) -> Callable[..., Any]:
        seconds = self.seconds

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds[label] += time.perf_counter() - t0
        return timed


def profile_targets() -> list[tuple[Any, str, str]]:
    from simreflect.core import attempt as attempt_mod
    from simreflect.core import env as env_mod
    from simreflect.core import rounds as rounds_mod
    from simreflect.suites.pace.evaluate import SandboxChannel
    from simreflect.suites.pace.suite import PaceSuite
    return [(SandboxChannel, "__init__", "sandbox start (open_session)"),
            (SandboxChannel, "request", "sandbox build request"), (SandboxChannel, "close", "sandbox close"),
            (rounds_mod, "copy_workspace", "workspace copy"), (attempt_mod, "copy_workspace", "workspace check"),
            (PaceSuite, "observe", "report (observe)"), (env_mod, "round_feedback", "prompt (round_feedback)"),
            (PaceSuite, "verify", "verify (verdict)"), (PaceSuite, "run_program", "run_program")]


def programs(env: Any) -> dict[str, str]:
    task = env.unwrapped._task
    suite = env.unwrapped.suite
    return {"oracle": suite.oracle(task), "broken": suite.source_program(task), "crashing": CRASHING}


def measure_steps(env: Any, task: str, progs: dict[str, str], reps: int, meter: SandboxCpu) -> dict[str, Any]:
    out: dict[str, Any] = {}
    prof = Profile()
    timings: dict[str, list[float]] = defaultdict(list)
    from simreflect.suites.pace.evaluate import Evaluation
    from simreflect.suites.pace.suite import PaceSuite
    runs: list[Any] = []
    original_run = PaceSuite.run_program

    def run_program(*args: Any, **kwargs: Any) -> Any:  # keeps the Evaluation for its Timings
        run = original_run(*args, **kwargs)
        runs.append(run.artefact)
        return run
    PaceSuite.run_program = run_program  # type: ignore[method-assign]
    with ExitStack() as stack, prof.wrapped(profile_targets()):
        stack.callback(setattr, PaceSuite, "run_program", original_run)
        for name, prog in progs.items():
            walls, cpus, boxed = [], [], []
            for i in range(reps + 1):  # the first is a warm-up
                t_reset = time.perf_counter()
                env.reset(options={"task": task})
                if i:
                    timings["reset"].append(time.perf_counter() - t_reset)
                box0, cpu0, t0 = meter.total_s, time.process_time(), time.perf_counter()
                before = dict(prof.seconds)
                env.step(prog)
                wall = time.perf_counter() - t0
                if i == 0:
                    continue
                walls.append(wall)
                boxed.append(meter.total_s - box0)
                cpus.append(time.process_time() - cpu0 + boxed[-1])
                spent = {k: v - before.get(k, 0.0) for k, v in prof.seconds.items()}
                for k, v in spent.items():
                    timings[f"{name}: {k}"].append(v)
                art = runs[-1] if runs else None
                sandbox = sum(v for k, v in spent.items() if k.startswith("sandbox"))
                engine = art.timings.engine_s if isinstance(art, Evaluation) else 0.0
                timings[f"{name}: run_program outside sandbox and engine"].append(
                    spent.get("run_program", 0.0) - sandbox - engine)
                timings[f"{name}: step outside run_program"].append(wall - spent.get("run_program", 0.0))
                timings[f"{name}: wall"].append(wall)
                if isinstance(art, Evaluation):
                    for k in ("program_s", "engine_s", "harness_s"):
                        timings[f"{name}: pace {k}"].append(getattr(art.timings, k))
            out[name] = {"wall_ms": _ms(walls), "cpu_ms": _ms(cpus), "sandbox_cpu_ms": _ms(boxed),
                         "per_s_wall": round(1 / statistics.median(walls), 2),
                         "per_s_core": round(1 / max(statistics.median(cpus), 1e-9), 2)}
    out["profile_ms"] = {k: _ms(v) for k, v in sorted(timings.items())}
    return out


def measure_group(env: Any, task: str, progs: dict[str, str], group: int, workers: int,
                  reps: int) -> dict[str, Any]:
    """A group of `group` programs (the fixed set repeated) from the task's first state by
    env.evaluate_batch, its pool kept across the repetitions (the first one, which starts it, is
    the warm-up). The workers' CPU is not metered (their sandboxes' cgroups are read in the
    workers): per core is the wall throughput over the workers that can run at once."""
    batch = [list(progs.values())[i % len(progs)] for i in range(group)]
    walls = []
    for i in range(reps + 1):
        env.reset(options={"task": task})
        t0 = time.perf_counter()
        members = env.unwrapped.evaluate_batch(batch, workers=workers)
        wall = time.perf_counter() - t0
        assert len(members) == group
        if i:
            walls.append(wall)
    per_s = group / statistics.median(walls)
    return {"group": group, "workers": workers, "wall_ms": _ms(walls), "per_s_wall": round(per_s, 2),
            "per_s_core": round(per_s / min(workers, os.cpu_count() or 1), 2)}


def _ms(xs: list[float]) -> float:
    return round(1000 * statistics.median(xs), 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="now")
    ap.add_argument("--reps", type=int, default=6)
    ap.add_argument("--task", default="statics_bridge.stage1")
    ap.add_argument("--workers", default="", help="worker counts of the batch API to measure, e.g. 1,2")
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    meter = SandboxCpu()
    env = simreflect.make("pace", level="L2")
    env.reset(options={"task": args.task})
    progs = programs(env)
    load0 = os.getloadavg()
    with meter.installed():
        steps = measure_steps(env, args.task, progs, args.reps, meter)
        groups = [measure_group(env, args.task, progs, args.group, int(w), max(1, args.reps // 3))
                  for w in args.workers.split(",") if w]
    env.close()
    load = os.getloadavg()
    print(f"task {args.task}; load average {load0[0]:.2f} at start, {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          f"at end; {os.cpu_count()} cores")
    print(f"{'program':<10} {'wall ms':>9} {'cpu ms':>9} {'sandbox cpu':>11} {'evals/s (wall)':>14} "
          f"{'evals/s/core':>12}")
    for name in progs:
        s = steps[name]
        print(f"{name:<10} {s['wall_ms']:9.2f} {s['cpu_ms']:9.2f} {s['sandbox_cpu_ms']:11.2f} {s['per_s_wall']:14.2f} "
              f"{s['per_s_core']:12.2f}")
    print("\nprofile of one step (median ms)")
    for k, v in steps["profile_ms"].items():
        print(f"  {k:<42} {v:9.2f}")
    for g in groups:
        print(f"\nbatch: group {g['group']}, {g['workers']} worker(s): {g['wall_ms']:.1f} ms, "
              f"{g['per_s_wall']:.2f} evaluations/s of wall time, {g['per_s_core']:.2f} per core")
    out = args.out or cache_dir() / "benchmarks" / f"rl_throughput-{args.label}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"label": args.label, "task": args.task, "load": list(load), "load_start": list(load0),
                               "cores": os.cpu_count(), "steps": steps, "groups": groups,
                               "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, indent=1) + "\n")
    print(f"\nwritten: {out}")


if __name__ == "__main__":
    main()
