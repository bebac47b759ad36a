"""The closing-note table of the audit suite: every claim with its reference implementation.

    .venv/bin/python benchmarks/audit_references.py [--only ID ...] [--markdown]

For each task: id, key strength, the base target (closed form, reference capture, or '-' for
honesty-only claims), its tolerance, the value the reference implementation measures (run in the
sandbox exactly as an agent's script would be), the reference's runtime (sandboxed, base run) and
the grade it gets (including the variant re-run and the raw-array recompute). Timings are
measurements on this machine, never asserted in tests.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from simreflect.suites.audit.cards import REFERENCE_FILE, load_cards
from simreflect.suites.audit.suite import read_run_record, run_script, verify_workspace, write_workspace
from simreflect.suites.audit.summary import find_summary, read_metrics


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    rows = []
    for card in load_cards():
        if args.only and card.id not in args.only:
            continue
        with tempfile.TemporaryDirectory(prefix="simreflect-audit-bench-") as tmp:
            work = Path(tmp) / "work"
            write_workspace(card, work, card.run_params("base"))
            t0 = time.perf_counter()
            result = run_script((card.directory / REFERENCE_FILE).read_text(), work)
            runtime = time.perf_counter() - t0
            t1 = time.perf_counter()
            verdict = verify_workspace(card, work)
            grade_s = time.perf_counter() - t1
            summary = find_summary(str((read_run_record(work) or {}).get("output_tail", "")))
        measured = read_metrics(card, (summary.data or {}).get("metrics")).values
        for i, (m, spec) in enumerate(card.metrics.items()):
            key = card.key(m)
            target = "-" if key is None else f"{key[0]:.6g}"
            tol = "-" if spec.tolerance is None else spec.tolerance.text()
            first = i == 0
            rows.append((card.id if first else "", card.key_strength if first else "", m, target, tol,
                         f"{measured[m]:.6g}" if m in measured else "missing",
                         f"{runtime:.2f}" if first else "", f"{verdict.score:g}" if first else "",
                         f"{grade_s:.2f}" if first else "", result.status if first else ""))
    head = ("id", "key", "metric", "target", "tolerance", "reference measured", "runtime s", "score", "grading s", "run")
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
