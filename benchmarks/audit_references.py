"""The closing-note table of the audit suite: every claim with its reference implementation.

    .venv/bin/python benchmarks/audit_references.py [--only ID ...] [--markdown]

For each task: id, key strength, the base target (closed form, reference capture, or '-' for
honesty-only claims), its tolerance, the value the reference implementation measures (run in the
sandbox exactly as an agent's script would be), the reference's runtime (sandboxed, base run),
the grade it gets and what one grade costs: wall seconds and CPU seconds (this process and the
sandboxed runs) of `grade_script`, which runs the script, the reference at the base parameters and,
at each drawn parameter set, the script and the reference again. "cold" is the first grade in a
process; "warm" grades another script text (other draws) once the base reference is cached, as in
a run or an RL loop. Timings are measurements on this machine, never asserted in tests.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from simreflect.suites.audit import suite as audit_suite
from simreflect.suites.audit.cards import REFERENCE_FILE, load_cards
from simreflect.suites.audit.suite import grade_script, read_run_record, run_script, write_workspace
from simreflect.suites.audit.summary import find_summary, read_metrics

SANDBOX_CPU = [0.0]  # CPU seconds of every sandboxed run so far (their cgroup's usage)
_run_sandboxed = audit_suite.run_sandboxed


def _counting_run_sandboxed(*args, **kwargs):
    # the sandboxed programs are not this process's children (rusage misses them): count their cgroup
    result = _run_sandboxed(*args, **kwargs)
    SANDBOX_CPU[0] += float(result.usage.get("cpu_s", 0.0))
    return result


audit_suite.run_sandboxed = _counting_run_sandboxed


def cpu_seconds() -> float:
    """CPU seconds of this process and of the sandboxed runs it started."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime + SANDBOX_CPU[0]


def timed_grade(task_id: str, script: str) -> tuple[float, float, float]:
    """(score, wall seconds, CPU seconds) of one grade."""
    t0, c0 = time.perf_counter(), cpu_seconds()
    _, verdict = grade_script(task_id, script)
    return verdict.score, time.perf_counter() - t0, cpu_seconds() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    rows = []
    for card in load_cards():
        if args.only and card.id not in args.only:
            continue
        source = (card.directory / REFERENCE_FILE).read_text()
        with tempfile.TemporaryDirectory(prefix="simreflect-audit-bench-") as tmp:
            work = Path(tmp) / "work"
            write_workspace(card, work, dict(card.params))
            t0 = time.perf_counter()
            result = run_script(source, work).result
            runtime = time.perf_counter() - t0
            summary = find_summary(str((read_run_record(work) or {}).get("output_tail", "")))
        score, cold_s, cold_cpu = timed_grade(card.id, source)
        warm_score, warm_s, warm_cpu = timed_grade(card.id, source + "\n# another script text, other draws\n")
        measured = read_metrics(card, (summary.data or {}).get("metrics")).values
        for i, (m, spec) in enumerate(card.metrics.items()):
            key = card.key(m)
            first = i == 0
            rows.append((card.id if first else "", card.key_strength if first else "", m,
                         "-" if key is None else f"{key[0]:.6g}", "-" if spec.tolerance is None else spec.tolerance.text(),
                         f"{measured[m]:.6g}" if m in measured else "missing",
                         f"{runtime:.2f}" if first else "", f"{score:g}/{warm_score:g}" if first else "",
                         f"{cold_s:.1f} / {cold_cpu:.1f}" if first else "", f"{warm_s:.1f} / {warm_cpu:.1f}" if first else "",
                         result.status if first else ""))
    head = ("id", "key", "metric", "target", "tolerance", "reference measured", "runtime s", "score cold/warm",
            "grade cold wall/CPU s", "grade warm wall/CPU s", "run")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
        for r in (head, *rows):
            print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)))


if __name__ == "__main__":
    main()
