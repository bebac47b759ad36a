"""Where a simulation step of a PACE-Bench evaluation goes through the proxy (K_01 by default).

    SIMREFLECT_PACEBENCH=/path/to/PACE-Bench .venv/bin/python benchmarks/pacebench_step_profile.py \\
        [--task K_01] [--program Initial] [--environment Stage-1] [--steps 3000] [--native] [--profile]

Runs one program (a task's reference, by environment) on one environment with the task's step
budget cut to --steps (PACE-Bench's TASK_MAX_STEPS entry is lowered in this process only), through
the suite's evaluation, and prints the wall time per step, the session's round trips per step and
the bytes the trusted side sends per step. --native also times PACE-Bench's own verifier on the same
program and steps; --profile prints the trusted side's cProfile (cumulative) of the proxied run.
Timings are measurements on a shared machine, never asserted anywhere.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import time
from typing import Any


def _count_requests(counts: dict[str, int]) -> None:
    from simreflect.core.sandbox import session

    request = session.SandboxSession.request

    def counted(self: Any, obj: Any, timeout_s: float) -> Any:
        counts["requests"] += 1
        counts["bytes"] += len(json.dumps(obj, separators=(",", ":")))
        return request(self, obj, timeout_s)

    session.SandboxSession.request = counted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="K_01")
    parser.add_argument("--program", default="Initial", help="whose reference runs (Initial or Stage-N)")
    parser.add_argument("--environment", default="Stage-1")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--native", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    from simreflect.suites.pacebench import checkout, evaluate

    checkout.load(None)
    import pace_bench.tasks.registry as registry_module

    registry = registry_module.get_registry()
    task = registry.resolve(args.task)
    registry_module.TASK_MAX_STEPS[task.name] = args.steps
    program = registry_module.get_reference_solution(task, args.program)
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.native:
        from pace_bench.evaluation.verification.verifier import CodeVerifier

        env = {str(e.environment_id): e for e in registry.environments(task)}[args.environment]
        start = time.perf_counter()
        verifier = CodeVerifier(task.full_name, max_steps=args.steps, env_overrides=env.overrides, registry=registry)
        success, score, _ = verifier.verify_code(program, headless=True)[:3]
        seconds = time.perf_counter() - start
        print(f"PACE-Bench: score {score} success {success}: {seconds:.2f} s, "
              f"{seconds / args.steps * 1e6:.0f} us a step")
    counts = {"requests": 0, "bytes": 0}
    _count_requests(counts)
    profile = cProfile.Profile() if args.profile else None
    start = time.perf_counter()
    if profile is not None:
        profile.enable()
    result = evaluate.evaluate(task.name, args.environment, program)
    if profile is not None:
        profile.disable()
    seconds = time.perf_counter() - start
    steps = max(1, int(result.metrics.get("step_count") or args.steps))
    print(f"simreflect: score {result.score} success {result.success} steps {steps}: {seconds:.2f} s, "
          f"{seconds / steps * 1e6:.0f} us a step, {counts['requests'] / steps:.2f} round trips a step, "
          f"{counts['bytes'] / steps:.0f} bytes sent a step, {result.proxy_calls} environment calls")
    if profile is not None:
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
