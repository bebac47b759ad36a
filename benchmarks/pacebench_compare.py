"""PACE-Bench's 324 controls timed and scored through PACE-Bench's verifier and through simreflect.

    SIMREFLECT_PACEBENCH=/path/to/PACE-Bench .venv/bin/python benchmarks/pacebench_compare.py \\
        [--tasks 'S_*' ...] [--results /work/pbcompare/results.jsonl] [--report-only]

The controls are those of `pace-bench validate` (suites/pacebench/parity.py: per task the source
reference on the source, and per stage the source reference on the stage and the stage's reference
on it). Each one runs twice, one side right after the other so that the machine's load falls on both
alike (which side goes first alternates):

* PACE-Bench: its own PhysicsVerifier in a process of its own, unsandboxed, as validate runs it
  (parity.pacebench_controls); the time is the verifier's alone, the process's start-up apart;
* simreflect: the same program through the suite's evaluation, in the sandbox behind the proxy
  (parity.simreflect_controls); the time includes the sandbox's start.

Tasks are taken round-robin across the six domains (S_01, K_01, D_01, F_01, C_01, E_01, S_02, ...),
so a partial run already covers every domain. Every finished control is appended to the results
file as one JSON line; running the same command again skips the controls it holds (a line that does
not parse, such as a last line cut by a kill, is ignored). The report (also --report-only) gives the
parity count with each difference, the median and total time ratio simreflect / PACE-Bench, the
per-domain medians, the load average the controls ran under and a projection of the remaining time.
Timings are measurements on a shared machine, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path

from simreflect.suites.pacebench import checkout
from simreflect.suites.pacebench.parity import (ControlScore, controls, pacebench_controls, simreflect_controls,
                                                task_names)
from simreflect.suites.pacebench.suite import domain_of

DEFAULT_RESULTS = Path("/work/pbcompare/results.jsonl")
#: A results line longer than this is not ours (the file is ours, but a damaged one is not read whole).
MAX_LINE_BYTES = 1 << 16

def round_robin(tasks: list[str]) -> list[str]:
    """The tasks taken one of each domain in turn (their order within a domain kept)."""
    by_domain: dict[str, list[str]] = defaultdict(list)
    for t in tasks:
        by_domain[domain_of(t)].append(t)
    lanes = list(by_domain.values())
    out = []
    for i in range(max((len(lane) for lane in lanes), default=0)):
        out += [lane[i] for lane in lanes if i < len(lane)]
    return out


def read_results(path: Path) -> list[dict]:
    """The records in the results file; lines that do not parse or lack the key fields are skipped."""
    if not path.exists():
        return []
    out = []
    with path.open("rb") as f:
        for raw in f:
            if len(raw) > MAX_LINE_BYTES:
                continue
            try:
                rec = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(rec, dict) and all(isinstance(rec.get(k), str) for k in ("task", "reference", "environment")):
                out.append(rec)
    return out


def append_result(path: Path, record: dict) -> None:
    """One record as one line, fsynced; a last line left unterminated by a kill is closed first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab+") as f:
        if f.tell() > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write((json.dumps(record, sort_keys=True) + "\n").encode())
        f.flush()
        os.fsync(f.fileno())


def _side(run, item: tuple[str, str, str]) -> tuple[ControlScore | None, float, str]:
    """(score or None, wall seconds of the call, error text) of one side on one control."""
    start = time.perf_counter()
    try:
        got = run([item])
    except Exception as e:  # a harness that died or timed out is this control's record, not the run's end
        return None, time.perf_counter() - start, f"{type(e).__name__}: {e}"[:2000]
    wall = time.perf_counter() - start
    if len(got) != 1:
        return None, wall, f"{len(got)} results for one control"
    return got[0], wall, ""


def run_one(item: tuple[str, str, str], index: int) -> dict:
    sides = {"pacebench": pacebench_controls, "simreflect": simreflect_controls}
    order = list(sides) if index % 2 == 0 else list(reversed(sides))
    record: dict = {"task": item[0], "reference": item[1], "environment": item[2], "domain": domain_of(item[0]),
                    "first": order[0]}
    for name in order:
        score, wall, error = _side(sides[name], item)
        record[name] = None if score is None else asdict(score)
        record[f"{name}_s"] = None if score is None else score.seconds
        record[f"{name}_call_s"] = wall
        if error:
            record[f"{name}_failure"] = error
    theirs, ours = record["pacebench"], record["simreflect"]
    record["identical"] = bool(theirs and ours and theirs["success"] == ours["success"]
                               and theirs["score"] == ours["score"])
    record["loadavg"] = list(os.getloadavg())
    return record


def _ratio(ours: float | None, theirs: float | None) -> float | None:
    if not isinstance(ours, (int, float)) or not isinstance(theirs, (int, float)) or theirs <= 0:
        return None
    return ours / theirs


def report(records: list[dict], planned: int) -> str:
    lines = []
    same = [r for r in records if r.get("identical") is True]
    lines.append(f"parity: {len(same)} of {len(records)} done identical ({planned} planned, "
                 f"{planned - len(records)} to go)")
    for r in records:
        if r.get("identical") is not True:
            def show(side):
                s = r.get(side)
                if not isinstance(s, dict):
                    return f"{side}: no result ({str(r.get(side + '_failure', ''))[:200]})"
                return f"{side}: success={s.get('success')} score={s.get('score')!r} error={str(s.get('error'))[:120]}"
            lines.append(f"  DIFFERENT {r['task']} {r['reference']} on {r['environment']}: "
                         f"{show('pacebench')}; {show('simreflect')}")
    timed = [(r, _ratio(r.get("simreflect_s"), r.get("pacebench_s"))) for r in records]
    timed = [(r, x) for r, x in timed if x is not None]
    if timed:
        ours_total = sum(r["simreflect_s"] for r, _ in timed)
        theirs_total = sum(r["pacebench_s"] for r, _ in timed)
        lines.append(f"time ratio simreflect/PACE-Bench over {len(timed)} controls: median "
                     f"{statistics.median(x for _, x in timed):.2f}, total {ours_total / theirs_total:.2f} "
                     f"({ours_total:.0f} s / {theirs_total:.0f} s)")
        by_domain: dict[str, list[tuple[dict, float]]] = defaultdict(list)
        for r, x in timed:
            by_domain[str(r.get("domain"))].append((r, x))
        for d in sorted(by_domain):
            rows = by_domain[d]
            lines.append(f"  {d:15s} n={len(rows):3d}  median ratio {statistics.median(x for _, x in rows):5.2f}  "
                         f"median s: PACE-Bench {statistics.median(r['pacebench_s'] for r, _ in rows):7.2f}, "
                         f"simreflect {statistics.median(r['simreflect_s'] for r, _ in rows):7.2f}")
    loads = [r["loadavg"][0] for r in records if isinstance(r.get("loadavg"), list) and r["loadavg"]
             and isinstance(r["loadavg"][0], (int, float))]
    if loads:
        lines.append(f"load average (1 min) at the controls' ends: median {statistics.median(loads):.2f}, "
                     f"max {max(loads):.2f}; now {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    walls = [sum(v for v in (r.get("pacebench_call_s"), r.get("simreflect_call_s")) if isinstance(v, (int, float)))
             for r in records]
    if walls and planned > len(records):
        per = statistics.mean(walls)
        left = per * (planned - len(records))
        lines.append(f"elapsed so far {sum(walls) / 3600:.2f} h ({per:.0f} s a control, both sides); projected "
                     f"remaining {left / 3600:.1f} h, total {(sum(walls) + left) / 3600:.1f} h (the mean so far: "
                     "controller tasks, late in each domain's lane, may be slower)")
    elif walls:
        lines.append(f"total wall {sum(walls) / 3600:.2f} h")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", nargs="*", default=None, help="Task name patterns (S_01, 'C_*'); default all 36.")
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help="The JSON-lines results file.")
    parser.add_argument("--report-only", action="store_true", help="Print the report of what the file holds.")
    parser.add_argument("--checkout", default=None, help="PACE-Bench checkout (default $SIMREFLECT_PACEBENCH).")
    args = parser.parse_args(argv)
    if args.checkout:
        os.environ[checkout.ENV_VAR] = str(Path(args.checkout).resolve())
    problem = checkout.available()
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        names = task_names(args.tasks)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    items = controls(round_robin(names))
    wanted = set(items)
    records = [r for r in read_results(args.results) if (r["task"], r["reference"], r["environment"]) in wanted]
    done = {(r["task"], r["reference"], r["environment"]) for r in records}
    if not args.report_only:
        todo = [i for i in items if i not in done]
        print(f"{len(items)} controls, {len(done)} already in {args.results}, {len(todo)} to run", flush=True)
        started = time.perf_counter()
        for n, item in enumerate(todo, 1):
            rec = run_one(item, len(done) + n)
            append_result(args.results, rec)
            records.append(rec)
            elapsed = time.perf_counter() - started
            eta = elapsed / n * (len(todo) - n)
            fmt = (lambda v: f"{v:7.2f}" if isinstance(v, (int, float)) and math.isfinite(v) else "      -")
            print(f"[{len(done) + n}/{len(items)}] {item[0]} {item[1]:>7s} on {item[2]:7s} "
                  f"PACE-Bench {fmt(rec['pacebench_s'])} s  simreflect {fmt(rec['simreflect_s'])} s  "
                  f"{'same' if rec['identical'] else 'DIFFERENT'}  load {rec['loadavg'][0]:.1f}  "
                  f"eta {eta / 3600:.1f} h", flush=True)
    print(report(records, len(items)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
