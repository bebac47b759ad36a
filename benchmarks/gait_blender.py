"""What Blender costs per verification: the gait suite's blender interface vs its python interface.

    .venv/bin/python benchmarks/gait_blender.py [--episodes 6] [--runs 3]

On a small benchmark built for the purpose, for each episode and run (medians and 90th percentiles):

* one verification of a fix through each interface: the oracle fix run as the suite runs a fix
  script (sandboxed: fixrunner on rig.json / Blender on episode.blend), then `verify` (the numpy
  verifier on rig.json / Blender reading the saved .blend back, then the same verifier);
* the pieces of the blender interface: exporting an episode's rig.json to .blend (the cache is
  empty for it), reading a .blend back (import), running a bpy fix script;

and the extra time per verification that Blender costs (median blender minus median python).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path


def ms(xs: list[float]) -> tuple[float, float]:
    xs = sorted(xs)
    return 1000 * statistics.median(xs), 1000 * xs[min(len(xs) - 1, int(0.9 * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=6)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="simreflect-blender-bench-") as tmp:
        tmp = Path(tmp)
        os.environ["SIMREFLECT_CACHE"] = str(tmp / "cache")  # before the interface reads it

        from simreflect.suites.gait.blender import interface as blender
        from simreflect.suites.gait.blender.runtime import find_blender
        from simreflect.suites.gait.build import build_benchmark
        from simreflect.suites.gait.suite import GaitSuite

        runtime = find_blender()
        build_benchmark(tmp / "bench", seed=11, episodes=args.episodes, gifs=False, workers=1)
        py, bl = GaitSuite(), GaitSuite(interface="blender")
        tasks = py.load_tasks(tmp / "bench")
        times: dict[str, list[float]] = {k: [] for k in ("export", "import", "bpy script run", "verify python",
                                                         "verify blender")}
        for task in tasks:  # export: each episode once, into the empty cache
            t = time.perf_counter()
            eb = blender.episode_blend(Path(task.params["dir"]) / "rig.json", runtime)
            times["export"].append(time.perf_counter() - t)
            assert eb.roundtrip_data()["blender"]["problems"] == []
        for _ in range(args.runs):
            for task in tasks:
                work = tmp / "w"
                for suite, key in ((py, "verify python"), (bl, "verify blender")):
                    shutil.rmtree(work, ignore_errors=True)
                    suite.prepare_workspace(task, work)
                    t = time.perf_counter()
                    result = suite.run_program(task, suite.oracle(task), work, 60)
                    t_run = time.perf_counter()
                    verdict = suite.verify(task, work)
                    times[key].append(time.perf_counter() - t)
                    assert result.ok and verdict.passed, (task.id, key, result.reason, verdict.errors)
                    if suite is bl:
                        times["bpy script run"].append(t_run - t)
                blob = blender.episode_blend(Path(task.params["dir"]) / "rig.json", runtime).blend.read_bytes()
                t = time.perf_counter()
                blender.import_blend(blob, runtime=runtime)
                times["import"].append(time.perf_counter() - t)

    print(f"{runtime.describe()}; {len(tasks)} episodes x {args.runs} runs; {os.cpu_count()} cores")
    print(f"{'':34s} {'median ms':>10s} {'p90 ms':>10s} {'n':>4s}")
    for key, xs in times.items():
        med, p90 = ms(xs)
        print(f"{key:34s} {med:10.0f} {p90:10.0f} {len(xs):4d}")
    extra = ms(times["verify blender"])[0] - ms(times["verify python"])[0]
    print(f"extra time per verification through Blender (median): {extra:.0f} ms")


if __name__ == "__main__":
    main()
