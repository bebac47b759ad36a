"""Time to build and verify the 30-episode gait benchmark, and the time of one verification.

Targets on 2 cores: the whole build (generation, controls through real fix-script processes, files,
GIFs) under 20 s; one verification under 50 ms.

    .venv/bin/python benchmarks/gait_build.py [--episodes 30] [--repeats 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from simreflect.suites.gait.build import build_benchmark
from simreflect.suites.gait.rig import Rig
from simreflect.suites.gait.suite import GaitSuite
from simreflect.suites.gait.verify import WalkReference, verify_rig


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=30)
    ap.add_argument("--repeats", type=int, default=50)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench"
        t0 = time.perf_counter()
        build_benchmark(out, seed=0, episodes=args.episodes)
        build_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        build_benchmark(Path(tmp) / "nogif", seed=0, episodes=args.episodes, gifs=False)
        build_nogif_s = time.perf_counter() - t0

        suite = GaitSuite()
        tasks = suite.load_tasks(out)
        rigs = [(Rig.load(Path(t.params["dir"]) / "rig.json"), WalkReference.from_dict(t.hidden["walk_check"])) for t in tasks]
        times = []
        for k in range(args.repeats):
            rig, ref = rigs[k % len(rigs)]
            t0 = time.perf_counter()
            verify_rig(rig, ref, trusted=rig)
            times.append(time.perf_counter() - t0)
        file_times = []
        for k in range(min(args.repeats, 20)):
            task = tasks[k % len(tasks)]
            t0 = time.perf_counter()
            suite.verify(task, Path(task.params["dir"]))
            file_times.append(time.perf_counter() - t0)
    print(f"machine: {os.cpu_count()} cores")
    print(f"build + verify controls + GIFs, {args.episodes} episodes: {build_s:.2f} s   (target < 20 s)")
    print(f"build + verify controls, no GIFs:                 {build_nogif_s:.2f} s")
    print(f"one verification (in memory), median of {len(times)}: {statistics.median(times) * 1000:.1f} ms "
          f"(max {max(times) * 1000:.1f} ms; target < 50 ms)")
    print(f"one verification from files (load + structure check + 7 checks), median: "
          f"{statistics.median(file_times) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
