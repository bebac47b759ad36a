"""The pace controller round trip: sandboxed vs in-process, and what it costs an evaluation.

    .venv/bin/python benchmarks/pace_control_roundtrip.py [--tasks control_lander,control_cartpole]
                                                          [--stage stage1] [--reps 5] [--json]

For each task the stage's reference program is evaluated through the real path (`evaluate`), in
the sandbox and in this process (`trusted_inprocess`, no isolation: the package's own reference
only). A round trip is one controller exchange as the simulator makes it: the channel's
`control(...)` call (sensor readings out, the program's reply read and judged), timed with
perf_counter around that call alone; world.sensors() and the command's clamping are not in it.
The median and the 90th percentile are over every round trip of `--reps` evaluations; the
evaluation's wall time is the median of `evaluate` itself. The machine's load (os.getloadavg) is
printed with them: these are measurements on a shared machine, never asserted in tests.

With --loop N it also times the channel alone: N exchanges back to back with nothing between them
(the readings an in-process evaluation of the reference recorded, replayed in turn), sandboxed and
in-process: the transport without the simulator's work between two requests, where neither process
sleeps long.

Also runs against an older tree (its channels have `request` only: the control op is timed then).

The target is a sandboxed round trip of at most 25 us. Measured when the frames came in (2 cores,
load average 8 to 9 from other work; medians, stage 1, 8 evaluations; before = JSON lines):

    control_lander    sandboxed  80 us -> 36 us   back to back 64-87 us -> 22-30 us   in-process 21-30 us
    control_cartpole  sandboxed  64 us -> 22-31   back to back 51 us    -> 19-24 us   in-process 14-21 us

Under heavier contention a run's median can still reach 110-230 us (p90 over 400 us): two processes
waiting for a core each way, which no framing removes; the JSON lines measured 80-125 us then.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from simreflect.suites.pace import evaluate as evaluate_mod
from simreflect.suites.pace.task import load_spec


def _quantiles(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {"median_us": 1e6 * statistics.median(xs), "p90_us": 1e6 * xs[min(len(xs) - 1, int(0.9 * len(xs)))],
            "n": len(xs)}


def _timed_channel(cls: type, sink: list[float]):
    """Wrap `cls`'s controller exchange so that each one appends its seconds to `sink`; returns the
    undo."""
    pc = time.perf_counter
    if "control" in cls.__dict__:
        saved = cls.control

        def control(self, *a, **k):
            t0 = pc()
            try:
                return saved(self, *a, **k)
            finally:
                sink.append(pc() - t0)

        cls.control = control
        return lambda: setattr(cls, "control", saved)
    saved = cls.request

    def request(self, msg, timeout_s):
        t0 = pc()
        try:
            return saved(self, msg, timeout_s)
        finally:
            if msg.get("op") == "control":
                sink.append(pc() - t0)

    cls.request = request
    return lambda: setattr(cls, "request", saved)


def measure(task: str, stage: str, reps: int, inprocess: bool) -> dict:
    spec = load_spec(task)
    program = spec.reference(stage)
    cls = evaluate_mod.InProcessChannel if inprocess else evaluate_mod.SandboxChannel
    trips: list[float] = []
    walls: list[float] = []
    passed = True
    with tempfile.TemporaryDirectory(prefix="simreflect-roundtrip-") as tmp:
        evaluate_mod.evaluate(spec, stage, program, workdir=Path(tmp) / "warm", trusted_inprocess=inprocess)
        undo = _timed_channel(cls, trips)
        try:
            for i in range(reps):
                t0 = time.perf_counter()
                ev = evaluate_mod.evaluate(spec, stage, program, workdir=Path(tmp) / f"w{i}",
                                           trusted_inprocess=inprocess)
                walls.append(time.perf_counter() - t0)
                passed = passed and ev.passed
        finally:
            undo()
    return {"task": task, "stage": stage, "mode": "in-process" if inprocess else "sandboxed", "passed": passed,
            "round_trip": _quantiles(trips), "requests_per_evaluation": len(trips) // max(1, reps),
            "evaluation_wall_ms": 1000 * statistics.median(walls)}


def loop(task: str, stage: str, n: int, inprocess: bool) -> dict:
    """`n` exchanges back to back on one channel (see the module docstring)."""
    from simreflect.core.sandbox import write_workspace_file

    spec = load_spec(task)
    program = spec.reference(stage)
    readings: list[dict] = []
    cls = evaluate_mod.InProcessChannel
    saved = cls.request

    def record(self, msg, timeout_s):
        if msg.get("op") == "control":
            readings.append(json.loads(json.dumps(msg["sensors"])))
        return saved(self, msg, timeout_s)

    cls.request = record
    try:
        evaluate_mod.evaluate(spec, stage, program, trusted_inprocess=True)
    finally:
        cls.request = saved
    trips: list[float] = []
    with tempfile.TemporaryDirectory(prefix="simreflect-roundtrip-") as tmp:
        write_workspace_file(Path(tmp), evaluate_mod.PROGRAM_FILE, program)
        channel = (evaluate_mod.InProcessChannel(program) if inprocess
                   else evaluate_mod.SandboxChannel(Path(tmp), 600.0))
        try:
            channel.request({"op": "build", "env": spec.visible(stage)}, 30)
            commands = tuple(spec.world_class.commands)
            exchange = getattr(channel, "control", None)
            for i in range(n):
                sensors = dict(readings[i % len(readings)])
                t0 = time.perf_counter()
                if exchange is not None:
                    exchange(sensors, commands, 5.0)
                else:
                    channel.request({"op": "control", "sensors": sensors}, 5.0)
                trips.append(time.perf_counter() - t0)
        finally:
            channel.close()
    return {"task": task, "stage": stage, "mode": ("in-process" if inprocess else "sandboxed") + " loop",
            "passed": None, "round_trip": _quantiles(trips), "requests_per_evaluation": n,
            "evaluation_wall_ms": float("nan")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default="control_lander,control_cartpole")
    ap.add_argument("--stage", default="stage1")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--loop", type=int, default=0, help="also N exchanges back to back on one channel")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    tasks = args.tasks.split(",")
    rows = [measure(t, args.stage, args.reps, inprocess) for t in tasks for inprocess in (False, True)]
    if args.loop:
        rows += [loop(t, args.stage, args.loop, inprocess) for t in tasks for inprocess in (False, True)]
    if args.json:
        print(json.dumps({"load": os.getloadavg(), "rows": rows}, indent=2))
        return
    print(f"load average {os.getloadavg()[0]:.2f}; {args.reps} evaluations each, stage {args.stage}")
    print(f"{'task':18s} {'mode':16s} {'trips':>6s} {'median us':>10s} {'p90 us':>8s} {'eval ms':>8s} passed")
    for r in rows:
        q = r["round_trip"]
        print(f"{r['task']:18s} {r['mode']:16s} {r['requests_per_evaluation']:6d} {q['median_us']:10.1f} "
              f"{q['p90_us']:8.1f} {r['evaluation_wall_ms']:8.1f} {r['passed']}")


if __name__ == "__main__":
    main()
