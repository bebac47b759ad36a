"""How fast `simreflect pace probe` searches: evaluations per second, and where a pair's time goes.

    .venv/bin/python benchmarks/pace_probe.py [--budget 30] [--workers 2] [--pair TASK:STAGE ...] [--json]

Runs the probe (every candidate a sandboxed program through `evaluate`, as `pace verify` runs it)
over a sample of pairs (by default one design task per domain, and a controller task) into a
temporary findings directory, and prints per pair the wall time, evaluations and evaluations per
second, and the totals: search evaluations per second over the whole run (reference and GIF runs
excluded from the count, included in the time). The machine is shared: the load average is printed
with the figures. Measurements only, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from simreflect.suites.pace.probe import ProbeConfig, probe
from simreflect.suites.pace.task import parse_stage

SAMPLE = ("statics_bridge:2", "kinematics_wall_climber:1", "dynamics_launcher:3", "granular_dam:4",
          "control_lander:2", "exotic_egg_cradle:1")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=30, help="evaluations per pair")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gifs", type=int, default=0, help="GIFs per pair (their runs are not search evaluations)")
    ap.add_argument("--pair", nargs="*", default=list(SAMPLE), help="TASK:STAGE")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    pairs = [(p.split(":")[0], parse_stage(p.split(":")[1])) for p in args.pair]
    config = ProbeConfig(budget=args.budget, seed=args.seed, gifs=args.gifs)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="pace-probe-bench-") as tmp:
        t0 = time.perf_counter()
        results = probe(pairs, config, Path(tmp), workers=args.workers)
        wall = time.perf_counter() - t0
    evaluations = sum(r.evaluations for r in results)
    report = {"cpus": os.cpu_count(), "load_before": load_before, "load_after": os.getloadavg(),
              "workers": args.workers, "budget": args.budget, "wall_s": round(wall, 2), "evaluations": evaluations,
              "evaluations_per_s": round(evaluations / wall, 3),
              "pairs": [{"pair": f"{r.task}:{r.stage}", "wall_s": round(r.wall_s, 2), "evaluations": r.evaluations,
                         "screened": r.screened, "evaluations_per_s": round(r.evaluations / r.wall_s, 3),
                         "passes": len(r.findings), "unlike_reference": len(r.novel)} for r in results]}
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{'pair':36s} {'wall s':>8s} {'evals':>6s} {'screened':>8s} {'evals/s':>8s} {'passes':>6s} {'unlike':>6s}")
    for p in report["pairs"]:
        print(f"{p['pair']:36s} {p['wall_s']:8.1f} {p['evaluations']:6d} {p['screened']:8d} "
              f"{p['evaluations_per_s']:8.2f} {p['passes']:6d} {p['unlike_reference']:6d}")
    print(f"\n{len(results)} pairs, {evaluations} evaluations in {wall:.1f} s with {args.workers} workers: "
          f"{report['evaluations_per_s']:.2f} evaluations/s (load {load_before[0]:.1f} before, "
          f"{report['load_after'][0]:.1f} after, {report['cpus']} cores)")


if __name__ == "__main__":
    main()
