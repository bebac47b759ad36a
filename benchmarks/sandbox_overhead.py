"""What the sandbox costs per run: sandboxed vs plain, for an empty Python and for a gait fix.

    .venv/bin/python benchmarks/sandbox_overhead.py [--runs 20]

Prints a table of medians (and 90th percentiles) over `--runs` runs of

* `python -c pass`: `run_process` (own process group, nothing else) vs `run_sandboxed`, and
  `run_sandboxed` started through bwrap vs from a pre-forked sandbox (core/sandbox/zygote.py;
  wall only: `benchmarks/overhead.py` counts the CPU);
* the oracle fix of a gait episode: the fixrunner under plain `run_process` (as the suite ran it
  before the sandbox) vs `GaitSuite.run_program` (the sandbox, as the suite runs it now);
* the pieces: one cgroup set created, limited and removed; bwrap alone around `/bin/true`;

and the isolation features active on this machine. The target is under 150 ms added per run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from simreflect.core import sandbox
from simreflect.core.program import run_process
from simreflect.core.sandbox import SANDBOX_WORKDIR, Limits, isolation_report, run_sandboxed
from simreflect.core.sandbox import zygote
from simreflect.suites.gait.build import build_benchmark
from simreflect.suites.gait.fixrunner import RIG_FILE
from simreflect.suites.gait.suite import FIX_SCRIPT, GaitSuite


def timed(fn, runs: int) -> list[float]:
    fn()  # warm the page cache and the probe
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def ms(xs: list[float]) -> tuple[float, float]:
    xs = sorted(xs)
    return 1000 * statistics.median(xs), 1000 * xs[min(len(xs) - 1, int(0.9 * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    report = isolation_report()
    rows: list[tuple[str, list[float], list[float] | None]] = []

    with tempfile.TemporaryDirectory(prefix="simreflect-sandbox-bench-") as tmp:
        tmp = Path(tmp)
        work = tmp / "w"
        work.mkdir()

        def plain_pass():
            assert run_process([sys.executable, "-c", "pass"], work, timeout_s=60).ok

        def sandboxed_pass():
            r = run_sandboxed([sys.executable, "-c", "pass"], work, Limits())
            assert r.ok, r.output_tail

        rows.append(("python -c pass", timed(plain_pass, args.runs), timed(sandboxed_pass, args.runs)))
        if sandbox._probe()["bwrap"]:
            previous = os.environ.get(zygote.ZYGOTE_ENV)
            try:
                os.environ[zygote.ZYGOTE_ENV] = "0"
                through_bwrap = timed(sandboxed_pass, args.runs)
                os.environ[zygote.ZYGOTE_ENV] = "1"
                from_zygote = timed(sandboxed_pass, args.runs)
            finally:
                if previous is None:
                    os.environ.pop(zygote.ZYGOTE_ENV, None)
                else:
                    os.environ[zygote.ZYGOTE_ENV] = previous
            rows.append(("sandboxed python -c pass: bwrap vs zygote", through_bwrap, from_zygote))

        bench = tmp / "bench"
        build_benchmark(bench, seed=0, episodes=2, workers=1, gifs=False)
        suite = GaitSuite()
        task = suite.load_tasks(bench)[0]
        oracle = suite.oracle(task)

        def plain_fix():
            ws = tmp / "plain"
            suite.prepare_workspace(task, ws)
            script = tmp / "plain.fix.py"
            script.write_text(oracle)
            r = run_process([sys.executable, "-m", "simreflect.suites.gait.fixrunner", str(ws), str(script)], ws, 60)
            assert r.ok, r.output_tail

        def sandboxed_fix():
            ws = tmp / "sandboxed"
            suite.prepare_workspace(task, ws)
            r = suite.run_program(task, oracle, ws, timeout_s=60)
            assert r.ok, r.output_tail

        rows.append(("gait oracle fix", timed(plain_fix, args.runs), timed(sandboxed_fix, args.runs)))
        assert suite.verify(task, tmp / "sandboxed").passed

        probe = sandbox._probe()
        if probe["_cgroups"]:
            def cgroup_cycle():
                cg = sandbox._RunCgroup(probe["_cgroups"])
                cg.apply(Limits())
                cg.remove()
            rows.append(("cgroup create+limit+remove", timed(cgroup_cycle, args.runs), None))
        if probe["bwrap"]:
            argv = sandbox._bwrap_argv(probe["bwrap"], probe["_options"], work, Limits(), sandbox._python_paths(),
                                       ["/usr/bin/true"])

            def bwrap_true():
                subprocess.run(argv, check=True, env={"PATH": "/usr/bin:/bin"})

            def true():
                subprocess.run(["/usr/bin/true"], check=True)
            rows.append(("/usr/bin/true: plain vs bare bwrap", timed(true, args.runs), timed(bwrap_true, args.runs)))

    print(f"sandbox overhead, median (p90) of {args.runs} runs, milliseconds")
    print(f"{'what':38} {'plain':>16} {'sandboxed':>16} {'added':>10}")
    for name, plain, boxed in rows:
        p50, p90 = ms(plain)
        if boxed is None:
            print(f"{name:38} {p50:8.1f} ({p90:5.1f}) {'':>16} {p50:10.1f}")
            continue
        b50, b90 = ms(boxed)
        print(f"{name:38} {p50:8.1f} ({p90:5.1f}) {b50:8.1f} ({b90:5.1f}) {b50 - p50:10.1f}")
    print(f"\nisolation ({report['mode']}), workdir at {SANDBOX_WORKDIR}, fix script {FIX_SCRIPT}, artefact {RIG_FILE}:")
    for feature in report["active"]:
        print(f"  - {feature}")
    if report.get("degraded"):
        print(f"  DEGRADED: {report['degraded']}")


if __name__ == "__main__":
    main()
