"""The host work of pace's water tasks: what the references need, and the worst design we can build.

    python benchmarks/pace_water_work.py [--attack-only] [--no-bound]

For every stage reference of the two water tasks (granular_boat, granular_amphibian) it prints the
water model's work count (polygon pieces cut and weighed, water.py) and the host time; then it runs
the most expensive designs we found (large blocks in the boat's waves: 40 of 8 m, and the engine's
cap of 400 parts of 10 m, both breaking design_rules but still simulated for their feedback) with
the boat's bound (its world's WATER_WORK) and, with --no-bound, without it. Times are measurements, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time

from simreflect.suites.pace import water as water_mod
from simreflect.suites.pace.evaluate import evaluate
from simreflect.suites.pace.task import TARGETS, load_spec

WATER_TASKS = ("granular_boat", "granular_amphibian")


def blocks(n: int, size: float) -> str:
    """n blocks of size x 0.5 m stacked in the boat's build zone (out of its zone and part count)."""
    rows = [f"    api.block((0.0, {-1.5 + 0.01 * i:.2f}), {size}, 0.5, material='foam')" for i in range(n)]
    return "def build(api):\n" + "\n".join(rows) + "\n"


def counted_run(spec, stage: str, program: str) -> tuple[object, int, float]:
    counts: list[int] = []
    original = water_mod.Water.__init__

    def init(self, *a, **kw):
        original(self, *a, **kw)
        counts.append(0)
        self._bench = len(counts) - 1

    spend = water_mod.Water._spend

    def counting(self, pieces):
        counts[self._bench] = self.work + pieces
        spend(self, pieces)

    water_mod.Water.__init__, water_mod.Water._spend = init, counting
    try:
        t0 = time.perf_counter()
        ev = evaluate(spec, stage, program, trusted_inprocess=True)  # our own programs only
        return ev, sum(counts), time.perf_counter() - t0
    finally:
        water_mod.Water.__init__, water_mod.Water._spend = original, spend


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--attack-only", action="store_true")
    ap.add_argument("--no-bound", action="store_true", help="also run the attacks without MAX_WORK (slow)")
    args = ap.parse_args()
    if not args.attack_only:
        peak = 0
        for task in WATER_TASKS:
            spec = load_spec(task)
            for stage in TARGETS:
                ev, work, wall = counted_run(spec, stage, spec.reference(stage))
                peak = max(peak, work)
                print(f"{task} {stage} reference: passed={ev.passed} steps={ev.steps} water work={work:,} "
                      f"host {wall:.2f} s (engine {ev.timings.engine_s:.2f} s)")
        print(f"most demanding reference: {peak:,} pieces")
    spec = load_spec("granular_boat")
    world = sys.modules[spec.world_class.__module__]
    bounds = [world.WATER_WORK] + ([10 ** 12] if args.no_bound else [])
    for n, size in ((40, 8.0), (400, 10.0)):
        for bound in bounds:
            world.WATER_WORK = bound
            ev, work, wall = counted_run(spec, "stage1", blocks(n, size))
            print(f"{n} blocks of {size:g} m, bound {bound:,}: steps={ev.steps} water work={work:,} host {wall:.1f} s "
                  f"(engine {ev.timings.engine_s:.1f} s); execution: "
                  f"{next(c.detail for c in ev.constraints if c.name == 'execution')[:90]!r}")


if __name__ == "__main__":
    main()
