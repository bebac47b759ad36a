"""What a sandboxed evaluation costs against the engine's own time, and the sandbox's fixed cost.

    .venv/bin/python benchmarks/overhead.py [--label before|after|...] [--reps 20] [--task-reps 5]
                                            [--suites pace,audit,gait] [--out PATH] [--compare PATH]

For a fixed sample of tasks per suite (pace statics_bridge and control_cartpole on their first
target stage, the first audit task, the first gait episode), each evaluation is the real path:
the suite's oracle through `run_program` (the sandbox) and `verify`. Per evaluation it measures

* wall: perf_counter around run_program + verify;
* cpu: this process's CPU (time.process_time, every thread) plus the CPU of every sandbox run in
  the meantime, read from each run's cgroup (rusage misses the sandboxed processes: they are not
  waited for by this process, and bwrap's monitor joins the same cgroup first), the start-up of
  the pre-started launcher it came from included (core/sandbox/launcher.py), and with
  SIMREFLECT_SANDBOX_ZYGOTE=1 the pre-forked sandbox's set-up (its monitor, init and confinement,
  in the run's cgroup) and the zygote's own CPU meanwhile (its forks; core/sandbox/zygote.py);
* engine: where there is one, the time inside the engine's step (pace: b2World.Step);
* overhead: wall / engine.

The fixed cost is an empty program through the sandbox, in two forms: `run_sandboxed` of
`python -c pass` (a run), and pace's session path with a design that declares nothing (open the
session, the build request, close). Every figure is the median over the repetitions (with the 90th
percentile for the fixed cost). The machine's load (os.getloadavg) is printed and recorded with
them: the figures are measurements on a shared machine, never asserted in tests.

The results are written as JSON (default: <cache>/benchmarks/overhead-<label>.json); with
--compare (default: the "before" file next to it, when the label is not "before") the ratios
this/that are printed per figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from simreflect.core import registry
from simreflect.core.cache import cache_dir
from simreflect.core.sandbox import Limits, isolation_report, run_sandboxed
from simreflect.core.sandbox import cgroups as sandbox_cgroups
from simreflect.core.sandbox import launcher as sandbox_launcher
from simreflect.core.sandbox import zygote as sandbox_zygote

PACE_TASKS = ("statics_bridge", "control_cartpole")


@dataclass
class Figures:
    """Medians over the repetitions of one sampled task (or one fixed-cost probe)."""

    name: str
    reps: int
    wall_ms: float
    wall_p90_ms: float
    cpu_ms: float
    sandbox_cpu_ms: float
    engine_ms: float | None = None
    overhead: float | None = None
    extra: dict[str, float] = field(default_factory=dict)


class SandboxCpu:
    """The CPU seconds of every sandbox run finished while it is installed, read from the runs'
    own cgroups (the benchmark wraps the cgroup's stats; nothing of the sandbox changes)."""

    def __init__(self) -> None:
        self.total_s = 0.0

    @contextmanager
    def installed(self) -> Iterator[SandboxCpu]:
        original = sandbox_cgroups._RunCgroup.stats
        meter = self

        def stats(cg: Any) -> dict[str, Any]:
            out = original(cg)
            meter.total_s += float(out.get("cpu_s", 0.0)) + cg.prestart_cpu_s  # a launcher's start-up too
            return out

        sandbox_cgroups._RunCgroup.stats = stats  # type: ignore[method-assign]
        try:
            yield self
        finally:
            sandbox_cgroups._RunCgroup.stats = original  # type: ignore[method-assign]


def zygote_cpu_s() -> float:
    """The zygote's own CPU so far (0 without one): the forks it makes for the runs."""
    pool = sandbox_zygote._POOL
    return pool.cpu_s() if pool is not None else 0.0


def median_ms(xs: list[float]) -> float:
    return round(1000 * statistics.median(xs), 2)


def p90_ms(xs: list[float]) -> float:
    xs = sorted(xs)
    return round(1000 * xs[min(len(xs) - 1, int(0.9 * len(xs)))], 2)


def measure(name: str, reps: int, once: Callable[[], float | None], meter: SandboxCpu) -> Figures:
    """Run `once` (which returns the engine seconds it spent, or None) `reps` times after one warm-up."""
    once()
    walls, cpus, boxed, engines = [], [], [], []
    for _ in range(reps):
        box0, cpu0, z0, t0 = meter.total_s, time.process_time(), zygote_cpu_s(), time.perf_counter()
        engine = once()
        walls.append(time.perf_counter() - t0)
        box = meter.total_s - box0 + zygote_cpu_s() - z0
        boxed.append(box)
        cpus.append(time.process_time() - cpu0 + box)
        if engine is not None:
            engines.append(engine)
    fig = Figures(name, reps, median_ms(walls), p90_ms(walls), median_ms(cpus), median_ms(boxed))
    if engines:
        fig.engine_ms = median_ms(engines)
        fig.overhead = round(statistics.median(walls) / max(statistics.median(engines), 1e-9), 1)
    return fig


def fixed_costs(reps: int, meter: SandboxCpu, tmp: Path) -> list[Figures]:
    from simreflect.suites.pace.evaluate import SandboxChannel
    from simreflect.suites.pace.suite import SCRATCH_PROGRAM

    work = tmp / "fixed"
    work.mkdir()

    def empty_run() -> None:
        r = run_sandboxed([sys.executable, "-c", "pass"], work, Limits())
        assert r.ok, r.reason

    def empty_session() -> None:
        (work / "program.py").write_text(SCRATCH_PROGRAM)
        channel = SandboxChannel(work, 30.0)
        reply = channel.request({"op": "build", "env": {}}, 30.0)
        result = channel.close()
        assert reply.get("ok") and result.ok, (reply, result.reason)

    return [measure("fixed: run_sandboxed python -c pass", reps, empty_run, meter),
            measure("fixed: pace session, empty build", reps, empty_session, meter)]


def suite_sample(name: str) -> list[tuple[Any, Any]]:
    """(suite, task) pairs of the fixed sample of a suite."""
    suite = registry.load("suite", name)()
    tasks = suite.load_tasks(suite.default_root())
    if name == "pace":
        chosen = [next(t for t in tasks if t.params["task"] == tid) for tid in PACE_TASKS]
    else:
        chosen = tasks[:1]
    return [(suite, t) for t in chosen]


def task_costs(suites: list[str], reps: int, meter: SandboxCpu, tmp: Path) -> list[Figures]:
    out = []
    for name in suites:
        for suite, task in suite_sample(name):
            oracle = suite.oracle(task)
            counter = iter(range(1_000_000))

            def once(suite=suite, task=task, oracle=oracle, counter=counter) -> float | None:
                work = tmp / f"{suite.name}-{next(counter)}"
                suite.prepare_workspace(task, work)
                run = suite.run_program(task, oracle, work)
                verdict = suite.verify(task, work, run)
                assert verdict.passed, f"{task.id}: the oracle failed: {verdict}"
                timings = getattr(run.artefact, "timings", None)
                return getattr(timings, "engine_s", None)

            out.append(measure(f"{name}: {task.id}", reps, once, meter))
    return out


def print_table(figs: list[Figures], load: tuple[float, ...]) -> None:
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores")
    head = f"{'figure (median)':<42} {'reps':>4} {'wall ms':>9} {'p90 ms':>9} {'cpu ms':>9} {'sandbox cpu':>11} " \
           f"{'engine ms':>9} {'wall/engine':>11}"
    print(head)
    print("-" * len(head))
    for f in figs:
        eng = "" if f.engine_ms is None else f"{f.engine_ms:9.2f}"
        ovh = "" if f.overhead is None else f"{f.overhead:11.1f}"
        print(f"{f.name:<42} {f.reps:>4} {f.wall_ms:9.2f} {f.wall_p90_ms:9.2f} {f.cpu_ms:9.2f} {f.sandbox_cpu_ms:11.2f} "
              f"{eng:>9} {ovh:>11}")


def print_ratios(now: dict[str, Any], then: dict[str, Any]) -> None:
    before = {f["name"]: f for f in then["figures"]}
    print(f"\nratios {now['label']} / {then['label']} (below 1: faster); load then "
          f"{then['load'][0]:.2f}, now {now['load'][0]:.2f}")
    for f in now["figures"]:
        b = before.get(f["name"])
        if b is None:
            continue
        parts = []
        for key in ("wall_ms", "cpu_ms", "sandbox_cpu_ms", "overhead"):
            if f.get(key) and b.get(key):
                parts.append(f"{key} {f[key] / b[key]:.2f}")
        print(f"{f['name']:<42} " + ", ".join(parts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="now")
    ap.add_argument("--reps", type=int, default=20, help="repetitions of each fixed-cost probe")
    ap.add_argument("--task-reps", type=int, default=5, help="repetitions of each sampled task")
    ap.add_argument("--suites", default="pace,audit,gait")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--compare", type=Path, default=None)
    args = ap.parse_args()
    out = args.out or cache_dir() / "benchmarks" / f"overhead-{args.label}.json"
    compare = args.compare or (out.parent / "overhead-before.json" if args.label != "before" else None)
    report = isolation_report()
    meter = SandboxCpu()
    suites = [s for s in args.suites.split(",") if s]
    with tempfile.TemporaryDirectory(prefix="simreflect-overhead-") as tmp, meter.installed():
        figs = fixed_costs(args.reps, meter, Path(tmp))
        figs += task_costs(suites, args.task_reps, meter, Path(tmp))
    load = os.getloadavg()
    pool = sandbox_launcher._POOL
    used = pool.used if pool is not None else 0
    boxes = sandbox_zygote._POOL
    forked = boxes.used if boxes is not None else 0
    print(f"isolation: {report['mode']}" + (f" (degraded: {report['degraded']})" if report.get("degraded") else "")
          + f"; runs started from a pre-started launcher: {used}, from a pre-forked sandbox: {forked}")
    print_table(figs, load)
    data = {"label": args.label, "load": list(load), "cores": os.cpu_count(), "isolation": report["mode"],
            "launcher_runs": used, "zygote_runs": forked,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "figures": [asdict(f) for f in figs]}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"\nwritten: {out}")
    if compare is not None and compare.is_file():
        print_ratios(data, json.loads(compare.read_text()))


if __name__ == "__main__":
    main()
