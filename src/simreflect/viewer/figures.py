"""The charts of a run (SVG, charts.py) from the numbers the summary tables compute.

- Pass@k by attempt budget: for an attempt-budget suite the budget curves of analysis/passk.py (k as in
  the summary: min(2, runs), attempt 0 not counted), per method x model; for the others the share of
  finished episodes solved within b rounds (Pass@1 at budget b), per evidence level.
- Score by round: the mean over episodes of the verdict's score after each round (round 0: before the
  first), per evidence level.
- Failed checks: how many round verdicts failed each check (the names in the round records' verdicts).
- The error taxonomy (analysis/taxonomy.py) of an attempt-budget suite's failed runs, one bar per label.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from simreflect.analysis.passk import budget_curves
from simreflect.analysis.taxonomy import LABEL_TITLES, LABELS, taxonomy_table
from simreflect.core.records import EpisodeLog
from simreflect.viewer.charts import Series, bar_chart, line_chart

MAX_CHECK_BARS = 20
MAX_CHECK_NAME = 80


def _number(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def solved_within_series(label: str, rows: Iterable[Mapping[str, Any]], budget: int) -> Series:
    """Share (%) of the finished episodes solved within b rounds, b = 1..budget."""
    done = [r for r in rows if r.get("finished")]
    if not done:
        return Series(label, ())
    return Series(label, tuple((b, 100.0 * sum(1 for r in done if r.get("solved_round") and r["solved_round"] <= b)
                                / len(done)) for b in range(1, budget + 1)))


def passk_chart(rows: Sequence[Mapping[str, Any]], levels: Sequence[str], budget: int, trajectories: list,
                runs: int) -> str:
    if trajectories:
        k = min(2, runs)
        curves = budget_curves(trajectories, k=k, include_attempt0=False)
        series = [Series(" / ".join(map(str, key)), tuple((p.b, 100.0 * p.pass_at_k) for p in pts))
                  for key, pts in curves.curves.items()]
        return line_chart(f"Pass@{k} by attempt budget b (attempt 0 not counted)", series, "attempt budget b",
                          f"Pass@{k} (%)", (0.0, 100.0), "passk")
    series = [solved_within_series(level, [r for r in rows if r["level"] == level], budget) for level in levels]
    return line_chart("Solved within b rounds (Pass@1 at budget b), finished episodes", series, "round budget b",
                      "solved (%)", (0.0, 100.0), "passk")


def _round_score(verdict: Any) -> float | None:
    return _number(verdict.get("score")) if isinstance(verdict, dict) else None


def score_by_round_chart(logs: Mapping[str, EpisodeLog], levels: Sequence[str]) -> str:
    series = []
    for level in levels:
        by_round: dict[int, list[float]] = {}
        for log in logs.values():
            rounds = [r for r in log.rounds if r.level == level]
            if rounds and (s := _number(rounds[0].score_before)) is not None:
                by_round.setdefault(0, []).append(s)
            for r in rounds:
                if (s := _round_score(r.verdict)) is not None:
                    by_round.setdefault(r.round, []).append(s)
        series.append(Series(level, tuple((n, float(np.mean(v))) for n, v in sorted(by_round.items()))))
    return line_chart("Score by round (mean over episodes; round 0: before the first)", series, "round", "score",
                      css_class="score-by-round")


def failed_checks(logs: Mapping[str, EpisodeLog]) -> Counter:
    """Check name -> rounds whose verdict failed it (a record is data: names bounded, odd shapes skipped)."""
    counts: Counter = Counter()
    for log in logs.values():
        for r in log.rounds:
            checks = r.verdict.get("checks") if isinstance(r.verdict, dict) else None
            for c in checks if isinstance(checks, list) else []:
                if isinstance(c, dict) and c.get("passed") is False:
                    counts[str(c.get("name", "?"))[:MAX_CHECK_NAME]] += 1
    return counts


def failed_checks_chart(logs: Mapping[str, EpisodeLog]) -> str:
    counts = failed_checks(logs)
    if not counts:
        return ""
    bars = [(name, float(n)) for name, n in counts.most_common(MAX_CHECK_BARS)]
    rest = sum(n for _, n in counts.most_common()[MAX_CHECK_BARS:])
    if rest:
        bars.append((f"{len(counts) - MAX_CHECK_BARS} other checks", float(rest)))
    return bar_chart("Failed checks (rounds whose verdict failed each check)", bars, lambda v: f"{v:.0f}",
                     css_class="failed-checks")


def taxonomy_charts(trajectories: list) -> str:
    if not trajectories:
        return ""
    table = taxonomy_table(trajectories, by=("method", "model"))
    out = []
    for row in table.rows:
        group = " / ".join(str(v) for _, v in row.group)
        bars = [(LABEL_TITLES[lb], float(row.counts[lb])) for lb in LABELS]
        out.append(bar_chart(f"Error taxonomy of the failed runs: {group} ({row.n_failed} failed of {row.n_runs})",
                             bars, lambda v: f"{v:.0f}", css_class="taxonomy"))
    return "".join(out)


#: The heading of the summary's taxonomy table (analysis/tables.py), shown as taxonomy_charts instead.
TAXONOMY_HEADING = "Error taxonomy of the failed runs"


def run_charts(rows: Sequence[Mapping[str, Any]], logs: Mapping[str, EpisodeLog], levels: Sequence[str],
               budget: int, trajectories: list, runs: int) -> str:
    """The Pass@k curve, the score by round and the failed checks of a run, laid out to the page's width
    (the taxonomy's chart stands where the summary puts its table)."""
    grid = [c for c in (passk_chart(rows, levels, budget, trajectories, runs), score_by_round_chart(logs, levels)) if c]
    wide = failed_checks_chart(logs) or "<p class='meta'>Failed checks: no round's verdict failed a check.</p>"
    return ("<h2>Charts</h2><div class='charts'>" + "".join(f"<div>{c}</div>" for c in grid) + "</div>"
            + wide) if grid or wide else ""
