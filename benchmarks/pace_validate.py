"""How long a full pace validation takes, and where the time goes.

    .venv/bin/python benchmarks/pace_validate.py [--workers N] [--repeat K] [--task ID ...] [--json]

Runs every control (each stage's reference on its stage, the source design on the source and on every
target) through the real path: a sandboxed program, a Box2D run, the task's evaluator, the report.
Every evaluation measures its own time in three parts:

* engine:  wall time inside b2World.Step only;
* harness: our own Python in the simulator's process: design validation, world building, per-step
           joint-strength checks, environment forces, evaluator ticks, health checks, sensors and
           commands (our side of the controller IPC), scoring and the report;
* program: waiting for the sandboxed program: bwrap start-up, Python start-up, build(api), and for
           controller tasks every control() round trip.

It prints the full validation's wall time (parallel, as `simreflect pace validate` runs it), the
per-task split, the harness/engine ratio overall and per task, the time per evaluation, and (with
--inprocess) the same split with the trusted references run in this process, i.e. without the
sandbox, which isolates the harness from the program's start-up. With --breakdown it also splits the
in-process harness time into its parts (see `breakdown`). Timings are measurements on this machine
(shared with other work: the load average is printed), never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import defaultdict

from simreflect.suites.pace import engine as engine_mod
from simreflect.suites.pace import evaluate as evaluate_mod
from simreflect.suites.pace import validate as validate_mod
from simreflect.suites.pace.validate import run_controls

PARTS = ("world forces", "evaluator ticks", "joint checks", "health checks", "controller exchange (our side)",
         "stepping loop", "per evaluation (validate, build, report)")


def summarise(rows) -> dict:
    per_task: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    totals: dict[str, float] = defaultdict(float)
    walls = []
    for r in rows:
        t = r.timings
        for k in ("engine_s", "harness_s", "program_s", "total_s", "steps", "requests"):
            per_task[r.task][k] += t[k]
            totals[k] += t[k]
        per_task[r.task]["evaluations"] += 1
        walls.append(r.wall_s)
    per_env: dict[str, float] = defaultdict(float)
    for r in rows:
        per_env[f"{r.task} {r.env}"] += r.wall_s
    slowest = sorted(per_env.items(), key=lambda kv: -kv[1])[:5]
    return {"slowest_environments": slowest, "per_task": {k: dict(v) for k, v in sorted(per_task.items())}, "totals": dict(totals),
            "evaluations": len(rows), "eval_mean_s": statistics.mean(walls), "eval_median_s": statistics.median(walls),
            "eval_max_s": max(walls)}


def table(summary: dict, title: str) -> str:
    lines = [title, f"{'task':22s} {'evals':>5s} {'steps':>7s} {'engine s':>9s} {'harness s':>10s} {'program s':>10s} "
                    f"{'harness/engine':>15s} {'harness us/step':>16s}"]
    for task, v in summary["per_task"].items():
        ratio = v["harness_s"] / v["engine_s"] if v["engine_s"] else float("inf")
        lines.append(f"{task:22s} {int(v['evaluations']):5d} {int(v['steps']):7d} {v['engine_s']:9.3f} "
                     f"{v['harness_s']:10.3f} {v['program_s']:10.3f} {100 * ratio:14.0f}% "
                     f"{1e6 * v['harness_s'] / max(1, v['steps']):16.1f}")
    t = summary["totals"]
    busy = t["engine_s"] + t["harness_s"] + t["program_s"]
    lines.append(f"{'all':22s} {summary['evaluations']:5d} {int(t['steps']):7d} {t['engine_s']:9.3f} "
                 f"{t['harness_s']:10.3f} {t['program_s']:10.3f} {100 * t['harness_s'] / t['engine_s']:14.0f}% "
                 f"{1e6 * t['harness_s'] / max(1, t['steps']):16.1f}")
    lines.append(f"shares of the evaluations' time: engine {100 * t['engine_s'] / busy:.1f}%, harness "
                 f"{100 * t['harness_s'] / busy:.1f}%, program (sandbox start-up, build, controller replies) "
                 f"{100 * t['program_s'] / busy:.1f}%")
    lines.append(f"time per evaluation: mean {summary['eval_mean_s']:.3f} s, median {summary['eval_median_s']:.3f} s, "
                 f"max {summary['eval_max_s']:.3f} s")
    lines.append("slowest environments (every control run on it, summed wall): " +
                 "; ".join(f"{env} {wall:.2f} s" for env, wall in summary["slowest_environments"]))
    return "\n".join(lines)


def breakdown(task_ids) -> dict:
    """Where the in-process harness time goes, by part, per task. Each per-step callee of
    `Sim.run` is wrapped with a timer here (the engine has no such timers: they would cost more
    than some worlds' Box2D steps); the wrappers add roughly 0.1-0.2 us per call to the part
    they time. Parts: the world's own forces (`before_step`: water, gates, fields), evaluator
    ticks, joint-strength checks, health checks, our side of each controller exchange (sensors,
    command checks, actuators; the program's reply excluded), the stepping loop's own
    bookkeeping, and the per-evaluation work outside the run (validating the design, building
    the world, scoring, the report)."""
    pc = time.perf_counter
    acc: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    current = {"task": ""}

    def timed(fn, part):
        def wrapper(*a, **k):
            t0 = pc()
            try:
                return fn(*a, **k)
            finally:
                acc[current["task"]][part] += pc() - t0
        return wrapper

    sim_cls, channel_cls = engine_mod.Sim, evaluate_mod.InProcessChannel
    saved = {"run": sim_cls.run, "joints": sim_cls._check_joints, "health": sim_cls._check_health,
             "request": channel_cls.request, "evaluate": validate_mod.evaluate}
    ticked: list[tuple[type, object]] = []

    def run(self, evaluator, before_step=None, control=None, **kw):
        cls = type(evaluator)
        if "tick" in cls.__dict__ and all(c is not cls for c, _ in ticked):
            ticked.append((cls, cls.tick))
            cls.tick = timed(cls.tick, "evaluator ticks")
        before = timed(before_step, "world forces") if before_step is not None else None
        ctl = timed(control, "controller round trip") if control is not None else None
        t0, e0 = pc(), self.engine_s
        try:
            return saved["run"](self, evaluator, before_step=before, control=ctl, **kw)
        finally:
            acc[current["task"]]["run"] += pc() - t0
            acc[current["task"]]["engine"] += self.engine_s - e0

    def request(self, msg, timeout_s):
        t0 = pc()
        try:
            return saved["request"](self, msg, timeout_s)
        finally:
            acc[current["task"]]["program " + str(msg.get("op"))] += pc() - t0

    def evaluate(spec, *a, **k):
        current["task"] = spec.id
        t0 = pc()
        try:
            return saved["evaluate"](spec, *a, **k)
        finally:
            acc[spec.id]["total"] += pc() - t0

    sim_cls.run, channel_cls.request, validate_mod.evaluate = run, request, evaluate
    sim_cls._check_joints = timed(saved["joints"], "joint checks")
    sim_cls._check_health = timed(saved["health"], "health checks")
    try:
        rows = run_controls(task_ids, workers=1, trusted_inprocess=True)
    finally:
        sim_cls.run, channel_cls.request, validate_mod.evaluate = saved["run"], saved["request"], saved["evaluate"]
        sim_cls._check_joints, sim_cls._check_health = saved["joints"], saved["health"]
        for cls, tick in ticked:
            cls.tick = tick
    steps: dict[str, int] = defaultdict(int)
    for r in rows:
        steps[r.task] += r.steps
    out = {}
    for task, a in sorted(acc.items()):
        in_run = a["run"] - a["engine"] - a["controller round trip"]
        parts = {"world forces": a["world forces"], "evaluator ticks": a["evaluator ticks"],
                 "joint checks": a["joint checks"], "health checks": a["health checks"],
                 "controller exchange (our side)": a["controller round trip"] - a["program control"]}
        parts["stepping loop"] = in_run - parts["world forces"] - parts["evaluator ticks"] - parts["joint checks"] \
            - parts["health checks"]
        parts["per evaluation (validate, build, report)"] = a["total"] - a["run"] - a["program build"]
        out[task] = {"engine": a["engine"], "steps": steps[task], **parts}
    return out


def breakdown_table(parts: dict) -> str:
    short = ["forces", "ticks", "joints", "health", "control", "loop", "per-eval"]
    lines = ["harness by part, in-process (s; the last column: all parts as % of engine):",
             f"{'task':26s} {'engine':>7s} " + " ".join(f"{h:>8s}" for h in short) + f" {'harness %':>10s}"]
    totals: dict[str, float] = defaultdict(float)
    for task, v in parts.items():
        harness = sum(v[p] for p in PARTS)
        for k in ("engine", *PARTS):
            totals[k] += v[k]
        lines.append(f"{task:26s} {v['engine']:7.3f} " + " ".join(f"{v[p]:8.3f}" for p in PARTS)
                     + f" {100 * harness / v['engine']:9.0f}%")
    harness = sum(totals[p] for p in PARTS)
    lines.append(f"{'all':26s} {totals['engine']:7.3f} " + " ".join(f"{totals[p]:8.3f}" for p in PARTS)
                 + f" {100 * harness / totals['engine']:9.0f}%")
    lines.append("as % of engine time: " + ", ".join(f"{p} {100 * totals[p] / totals['engine']:.0f}%" for p in PARTS))
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    ap.add_argument("--repeat", type=int, default=1, help="run the full validation this many times")
    ap.add_argument("--task", nargs="*", default=None)
    ap.add_argument("--inprocess", action="store_true", help="also run the references in-process (no sandbox)")
    ap.add_argument("--breakdown", action="store_true",
                    help="also split the in-process harness time into its parts (sequential)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    report: dict = {"cpus": os.cpu_count(), "load_before": os.getloadavg()}
    walls, summaries = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        rows = run_controls(args.task, workers=args.workers)
        walls.append(time.perf_counter() - t0)
        bad = [r for r in rows if not r.ok]
        if bad:
            raise SystemExit(f"controls failed: {[(r.task, r.env, r.program) for r in bad]}")
        summaries.append(summarise(rows))
    report["validation_wall_s"] = walls
    report["sandboxed"] = summaries[-1]
    report["load_after"] = os.getloadavg()
    if args.inprocess:
        t0 = time.perf_counter()
        rows = run_controls(args.task, workers=1, trusted_inprocess=True)
        report["inprocess_wall_s"] = time.perf_counter() - t0
        report["inprocess"] = summarise(rows)
    if args.breakdown:
        report["breakdown"] = breakdown(args.task)
    if args.json:
        print(json.dumps(report, indent=1, default=float))
        return
    n = summaries[-1]["evaluations"]
    print(f"full validation: {n} evaluations on {report['cpus']} CPUs, wall "
          + ", ".join(f"{w:.2f} s" for w in walls) + f" (load average before {report['load_before'][0]:.2f}, "
          f"after {report['load_after'][0]:.2f})")
    print(table(summaries[-1], "sandboxed (the real path):"))
    if args.inprocess:
        print()
        print(table(report["inprocess"], f"in-process references, no sandbox (sequential wall "
                                         f"{report['inprocess_wall_s']:.2f} s):"))
    if args.breakdown:
        print()
        print(breakdown_table(report["breakdown"]))


if __name__ == "__main__":
    main()
