"""Several runs side by side (`simreflect view RUN RUN ...`): a comparison page and each run's own pages.

out/index.html names the runs (A, B, ...), gives each run's solved rate and mean score on the tasks all
of them share (same suite, task id and evidence level), the paired differences of every pair of runs
with their bootstrap intervals (analysis/compare.py), the solved-within-b curves of the runs, and the
shared tasks one per row (filtered, sorted, searched in the page). Runs that share no task say so.
Each run's pages are in out/runs/<letter>/, as `simreflect view RUN` writes them.
"""

from __future__ import annotations

import math
import string
from itertools import combinations
from pathlib import Path
from typing import Sequence

from simreflect.analysis.compare import (CONFIDENCE, ItemResult, PairedDifference, item_results, paired_difference,
                                         run_on_items, shared_items)
from simreflect.viewer.charts import bar_chart, line_chart
from simreflect.viewer.figures import solved_within_series
from simreflect.viewer.listing import LISTING_SCRIPT, controls
from simreflect.viewer.markup import e, page
from simreflect.viewer.outcome import score_text
from simreflect.viewer.pages import write_run_view
from simreflect.viewer.runs import LoadedRun

MAX_RUNS = len(string.ascii_uppercase)


def letters(n: int) -> list[str]:
    if n > MAX_RUNS:
        raise ValueError(f"at most {MAX_RUNS} runs can be compared, got {n}")
    return list(string.ascii_uppercase[:n])


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def _pp_ci(ci: tuple[float, float]) -> str:
    return "-" if math.isnan(ci[0]) else f"[{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]"


def _signed(x: float, scale: float = 1.0) -> str:
    return "-" if math.isnan(x) else f"{scale * x:+.4g}"


def _ci(ci: tuple[float, float]) -> str:
    return "-" if math.isnan(ci[0]) else f"[{ci[0]:+.4g}, {ci[1]:+.4g}]"


def _runs_table(runs: Sequence[LoadedRun], names: Sequence[str]) -> str:
    lines = []
    for name, run in zip(names, runs):
        rows = run.rows
        finished = sum(1 for r in rows if r["finished"])
        infra = sum(1 for r in rows if not r["finished"] and r["infra_errors"])
        lines.append(f"<tr class='run'><td><a href='runs/{name}/index.html'>{name}</a></td><td>{e(run.dir.name)}</td>"
                     f"<td>{e(run.description)}</td><td>{e(', '.join(run.config.levels))}</td>"
                     f"<td class='num'>{run.config.rounds}</td><td class='num'>{len(rows)}</td>"
                     f"<td class='num'>{finished}</td><td class='num'>{infra}</td></tr>")
    return ("<table id='runs'><thead><tr><th>run</th><th>directory</th><th>suite, agent, model</th><th>levels</th>"
            "<th>rounds</th><th>episodes</th><th>finished</th><th>infrastructure errors</th></tr></thead><tbody>"
            + "".join(lines) + "</tbody></table>")


def _shared_table(names: Sequence[str], results: Sequence[dict], items: list) -> str:
    if not items:
        return ("<p class='no-shared'>These runs share no task (same task id and evidence level): there is "
                "nothing to compare on all of them.</p>")
    lines = []
    for name, res in zip(names, results):
        r = run_on_items(name, res, items)
        lines.append(f"<tr><td>{name}</td><td class='num'>{r.n}</td><td class='num solved'>{_pct(r.solved)}</td>"
                     f"<td class='num score'>{score_text(r.score)}</td><td class='num'>{r.scored}</td></tr>")
    return (f"<p>{len(items)} task(s) x level shared by every run. Solved: the share of an item's finished episodes "
            "solved, averaged over items; score: the best score an episode reached (before round 1 or after a "
            "verified round), averaged the same way. Unfinished episodes enter no mean.</p>"
            "<table id='shared'><thead><tr><th>run</th><th>items</th><th>solved</th><th>mean score</th>"
            "<th>items scored</th></tr></thead><tbody>" + "".join(lines) + "</tbody></table>")


def _differences_table(diffs: Sequence[PairedDifference]) -> str:
    lines = []
    for d in diffs:
        if not d.shared:
            lines.append(f"<tr class='difference none'><td>{d.a} &minus; {d.b}</td><td class='num'>0</td>"
                         f"<td colspan='10'>{d.a} and {d.b} share no task (same task id and level): no difference "
                         "can be measured</td></tr>")
            continue
        lines.append(f"<tr class='difference'><td>{d.a} &minus; {d.b}</td><td class='num'>{d.n}</td>"
                     f"<td class='num'>{_pct(d.solved_a)}</td><td class='num'>{_pct(d.solved_b)}</td>"
                     f"<td class='num solved-diff'>{_signed(d.solved_diff, 100)}</td><td>{_pp_ci(d.solved_ci)}</td>"
                     f"<td class='num'>{score_text(d.score_a)}</td><td class='num'>{score_text(d.score_b)}</td>"
                     f"<td class='num score-diff'>{_signed(d.score_diff)}</td><td>{_ci(d.score_ci)}</td>"
                     f"<td>{d.wins}/{d.losses}/{d.ties}</td><td class='num'>{d.p:.3g}</td></tr>")
    resamples, seed = (diffs[0].resamples, diffs[0].seed) if diffs else (0, 0)
    return (f"<p>Paired differences on the items each pair shares: the mean per-item difference with a paired "
            f"{CONFIDENCE:.0%} percentile bootstrap interval (items resampled together; {resamples:,} resamples, "
            f"seed {seed}). W/L/T: items on which the first run scored above, below, the same as the second; p: the exact two-sided "
            "sign test on W against L.</p>"
            "<table id='differences'><thead><tr><th>pair</th><th>shared</th><th>solved (first)</th>"
            "<th>solved (second)</th><th>difference (pp)</th><th>95% CI</th><th>score (first)</th>"
            "<th>score (second)</th><th>difference</th><th>95% CI</th><th>W/L/T</th><th>p</th></tr></thead><tbody>"
            + "".join(lines) + "</tbody></table>")


def _items_table(names: Sequence[str], results: Sequence[dict[tuple, ItemResult]], items: list) -> str:
    """Every item any run has, one row each: per run its solved share and score (blank where it has none)."""
    everything = sorted({i for res in results for i in res})
    if not everything:
        return "<p>No run finished an episode.</p>"
    shared = set(items)
    lines = []
    for k, item in enumerate(everything):
        _, task, level = item
        cells, scores = [], []
        for res in results:
            r = res.get(item)
            cells.append("<td>-</td><td>-</td>" if r is None else
                         f"<td class='num'>{_pct(r.solved)}</td><td class='num'>{score_text(r.score)}</td>")
            scores.append(None if r is None else r.score)
        diff = (scores[0] - scores[1]) if len(scores) == 2 and None not in scores else None
        data = (f"data-order='{k}' data-task='{e(task)}' data-level='{e(level)}' "
                f"data-shared='{'yes' if item in shared else 'no'}' data-diff='{'' if diff is None else repr(diff)}'")
        lines.append(f"<tr {data}><td>{e(task)}</td><td>{e(level)}</td>{''.join(cells)}"
                     + (f"<td class='num'>{score_text(diff)}</td>" if len(results) == 2 else "") + "</tr>")
    head = "".join(f"<th>{n} solved</th><th>{n} score</th>" for n in names) + (
        f"<th>score {names[0]} &minus; {names[1]}</th>" if len(names) == 2 else "")
    levels = sorted({i[2] for i in everything})
    sorts = [("order", "task"), ("diff", "score difference")] if len(names) == 2 else [("order", "task")]
    return (controls("items", levels=levels, sorts=sorts, numeric=("order", "diff"))
            + f"<table id='items'><thead><tr><th>task</th><th>level</th>{head}</tr></thead><tbody>"
            + "".join(lines) + "</tbody></table>")


def _charts(names: Sequence[str], runs: Sequence[LoadedRun], items: list) -> str:
    keep = set(items)
    series = []
    for name, run in zip(names, runs):
        rows = [r for r in run.rows if not keep or (run.config.suite, r["task"], r["level"]) in keep]
        series.append(solved_within_series(name, rows, run.config.rounds))
    on = "the shared tasks" if items else "each run's own tasks"
    curve = line_chart(f"Solved within b rounds, on {on} (finished episodes)", series, "round budget b",
                       "solved (%)", (0.0, 100.0), "compare-curve")
    bars = bar_chart(f"Solved on {on}", [(n, s.points[-1][1] if s.points else 0.0) for n, s in zip(names, series)],
                     lambda v: f"{v:.1f}%", 100.0, "compare-solved", width=560, colors=True)
    return "<h2>Charts</h2><div class='charts'>" + "".join(f"<div>{c}</div>" for c in (curve, bars) if c) + "</div>"


def write_compare(runs: Sequence[LoadedRun], out: Path, *, pictures: bool = True) -> Path:
    """Write the comparison of `runs` into `out` (and each run's pages under out/runs/). Returns index.html."""
    out = Path(out)
    names = letters(len(runs))
    for name, run in zip(names, runs):
        write_run_view(run, out / "runs" / name, pictures=pictures, back="../../index.html")
    results = [item_results(run.config.suite, run.rows) for run in runs]
    items = shared_items(*results)
    diffs = [paired_difference(names[i], results[i], names[j], results[j])
             for i, j in combinations(range(len(runs)), 2)]
    body = [f"<h1>simreflect: {len(runs)} runs compared</h1>", _runs_table(runs, names),
            "<h2>On the tasks every run shares</h2>", _shared_table(names, results, items),
            "<h2>Paired differences</h2>", _differences_table(diffs), _charts(names, runs, items),
            "<h2>Tasks</h2>", _items_table(names, results, items)]
    index = out / "index.html"
    out.mkdir(parents=True, exist_ok=True)
    index.write_text(page(f"simreflect: {len(runs)} runs compared", "\n".join(body), LISTING_SCRIPT))
    return index
