"""Markdown rendering of the adaptation analysis: every table states its unit, its n, what was
excluded and why, whether attempt 0 was included, and how its intervals were made."""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

from simreflect.analysis.infra import InfraSplit
from simreflect.analysis.passk import (BudgetCurves, MetricTable, PairedComparison, budget_curves,
                                       compare_to_baseline, metric_table, standard_tables)
from simreflect.analysis.taxonomy import LABEL_TITLES, LABELS, THRESHOLDS, TaxonomyTable, taxonomy_table
from simreflect.analysis.trajectory import Trajectory


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{x * 100:.1f}%"


def _pct_ci(ci: tuple[float, float]) -> str:
    lo, hi = ci
    return "-" if math.isnan(lo) else f"[{lo * 100:.1f}, {hi * 100:.1f}]"


def _num(x: float, signed: bool = False) -> str:
    return "-" if math.isnan(x) else (f"{x:+.1f}" if signed else f"{x:.1f}")


def _num_ci(ci: tuple[float, float], signed: bool = False) -> str:
    lo, hi = ci
    return "-" if math.isnan(lo) else f"[{_num(lo, signed)}, {_num(hi, signed)}]"


def _pp_ci(ci: tuple[float, float]) -> str:
    lo, hi = ci
    return "-" if math.isnan(lo) else f"[{lo * 100:+.1f}, {hi * 100:+.1f}]"


def _a0(include_attempt0: bool) -> str:
    return ("attempt 0 (the unchanged source design) included" if include_attempt0
            else "attempt 0 (the unchanged source design) not included")


def _ci_note(resamples: int, seed: int, unit: str) -> str:
    return f"95% percentile bootstrap intervals over {unit} ({resamples:,} resamples, seed {seed})"


def _infra_line(infra: InfraSplit) -> str:
    return (f"Infrastructure errors, in no denominator: {infra.n_excluded_runs} unfinished run(s) excluded, "
            f"{infra.n_dropped_attempts} retried attempt(s) removed (listed in the infrastructure section).")


def _group_header(by: Sequence[str]) -> tuple[str, str]:
    names = list(by) or ["all"]
    return " | ".join(names), "|".join("---" for _ in names)


def _group_cells(group: Sequence[tuple[str, Any]]) -> str:
    return " | ".join(str(v) for _, v in group) or "all"


def metric_table_markdown(table: MetricTable, title: str = "") -> str:
    k = table.k
    budget = "the full budget" if table.budget is None else f"a budget of {table.budget} attempts"
    gh, gs = _group_header(table.by)
    if table.denominators == "valid":
        counted = (f"n = {table.n} valid instances (pairs); {table.n_excluded} pair(s) excluded for fewer than k "
                   "complete runs. PACE's denominators: a run with no valid attempt, or ended by invalid "
                   "generations, is incomplete and left out")
    else:
        counted = f"n = {table.n} pairs; {table.n_excluded} pair(s) excluded for fewer than k finished runs"
    ours = "" if table.denominators == "valid" else " A run with no valid attempt scores -100 and stays in the denominator."
    lines = [f"### {title or 'Pass@%d and Score@%d by %s' % (k, k, ' x '.join(table.by) or 'all')}", "",
             f"Unit: pair (method x model x task x stage) with k = {k} runs; {_a0(table.include_attempt0)}; "
             f"{budget}. {counted}. {_ci_note(table.resamples, table.seed, 'pairs')}.{ours}", "",
             f"{gh} | n | excluded | runs | no valid attempt | Pass@{k} | 95% CI | Score@{k} | 95% CI",
             f"{gs}|---:|---:|---:|---:|---:|---|---:|---"]
    for r in table.rows:
        lines.append(f"{_group_cells(r.group)} | {r.n} | {r.excluded} | {r.runs} | {r.runs_without_valid} | "
                     f"{_pct(r.pass_at_k)} | {_pct_ci(r.pass_ci)} | {_num(r.score_at_k)} | {_num_ci(r.score_ci)}")
    if table.exclusions:
        lines += ["", "Excluded pairs: " + "; ".join(f"{e.cell} ({e.reason})" for e in table.exclusions)]
    lines += ["", _infra_line(table.infra)]
    return "\n".join(lines) + "\n"


def budget_curves_markdown(curves: BudgetCurves, budgets: Sequence[int] | None = None, title: str = "") -> str:
    k = curves.k
    budgets = list(budgets) if budgets is not None else list(range(1, curves.max_budget + 1))
    gh, gs = _group_header(curves.by)
    truncated = ("Every run truncated to its first b model attempts" if curves.counting == "model" else
                 "b counted as PACE counts it: b = 1 is the source design alone (evaluated in the target), b = n "
                 "adds the first n - 1 model attempts")
    lines = [f"### {title or 'Pass@%d@b and Score@%d@b by attempt budget b' % (k, k)}", "",
             f"{truncated}; unit: pair with k = {k} runs; "
             f"{_a0(curves.include_attempt0)}; {len(curves.exclusions)} pair(s) excluded for fewer than k "
             f"finished runs. {_ci_note(curves.resamples, curves.seed, 'pairs')}.", "",
             f"{gh} | b | n | Pass@{k}@b | 95% CI | Score@{k}@b | 95% CI", f"{gs}|---:|---:|---:|---|---:|---"]
    for key, pts in curves.curves.items():
        for p in pts:
            if p.b in budgets:
                lines.append(f"{_group_cells(tuple(zip(curves.by, key)))} | {p.b} | {p.n} | {_pct(p.pass_at_k)} | "
                             f"{_pct_ci(p.pass_ci)} | {_num(p.score_at_k)} | {_num_ci(p.score_ci)}")
    lines += ["", _infra_line(curves.infra)]
    return "\n".join(lines) + "\n"


def taxonomy_markdown(table: TaxonomyTable, title: str = "") -> str:
    gh, gs = _group_header(table.by)
    lines = [f"### {title or 'Error taxonomy of the failed runs'}", "",
             "Unit: failed run (one label each, priority-ordered as the columns); n = failed runs. Cells: count "
             f"(share of n, {_ci_note(table.resamples, table.seed, 'failed runs')}).", "",
             f"{gh} | runs | solved | n (failed) | " + " | ".join(LABEL_TITLES[lb] for lb in LABELS),
             f"{gs}|---:|---:|---:|" + "|".join("---" for _ in LABELS)]
    for r in table.rows:
        cells = [f"{r.counts[lb]} ({_pct(r.shares[lb])} {_pct_ci(r.cis[lb])})" for lb in LABELS]
        lines.append(f"{_group_cells(r.group)} | {r.n_runs} | {r.n_solved} | {r.n_failed} | " + " | ".join(cells))
    lines += ["", _infra_line(table.infra)]
    return "\n".join(lines) + "\n"


def comparisons_markdown(comparisons: Iterable[PairedComparison], title: str = "") -> str:
    comparisons = list(comparisons)
    if not comparisons:
        return f"### {title or 'Paired comparisons'}\n\nNo two configurations share a model.\n"
    c0 = comparisons[0]
    k = c0.k
    lines = [f"### {title or 'Paired comparisons on the same pairs'}", "",
             f"A - B on the pairs (task, stage) both have with k = {k} finished runs; {_a0(c0.include_attempt0)}. "
             f"Intervals: paired {_ci_note(c0.resamples, c0.seed, 'pairs')}. W/L/T: pairs won, lost, tied by A; "
             "p: exact two-sided sign test on W vs L (McNemar's exact test when Pass@k is 0/1 per pair).", "",
             f"A | B | n | unmatched | Pass@{k} A | Pass@{k} B | diff (pp) | 95% CI | W/L/T | p | "
             f"Score@{k} A | Score@{k} B | diff | 95% CI | W/L/T | p",
             "---|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---|---|---:"]
    for c in comparisons:
        lines.append(f"{'/'.join(c.a)} | {'/'.join(c.b)} | {c.n} | {len(c.unmatched)} | {_pct(c.pass_a)} | "
                     f"{_pct(c.pass_b)} | {_num(c.pass_diff * 100, True)} | {_pp_ci(c.pass_diff_ci)} | "
                     f"{c.pass_wins}/{c.pass_losses}/{c.pass_ties} | {c.pass_p:.3g} | {_num(c.score_a)} | "
                     f"{_num(c.score_b)} | {_num(c.score_diff, True)} | {_num_ci(c.score_diff_ci, True)} | "
                     f"{c.score_wins}/{c.score_losses}/{c.score_ties} | {c.score_p:.3g}")
    unmatched = [(c, c.unmatched) for c in comparisons if c.unmatched]
    if unmatched:
        lines += ["", "Unmatched pairs (not compared): " + "; ".join(
            f"{'/'.join(c.a)} vs {'/'.join(c.b)}: {', '.join(u)}" for c, u in unmatched)]
    return "\n".join(lines) + "\n"


def thresholds_markdown(overrides: Mapping[str, float] | None = None) -> str:
    lines = ["### Error taxonomy: priority order and thresholds", "",
             "Priority (first match wins): " + " > ".join(LABEL_TITLES[lb] for lb in LABELS) + " (fallback).", "",
             "Threshold | Value | Definition", "---|---:|---"]
    for name, t in THRESHOLDS.items():
        value = (overrides or {}).get(name, t.value)
        lines.append(f"{name} | {value:g} | {t.doc}")
    return "\n".join(lines) + "\n"


def analysis_markdown(trajectories: Iterable[Trajectory], *, k: int, include_attempt0: bool, title: str,
                      baseline: str | None = None, curve_budgets: Sequence[int] | None = None,
                      thresholds: Mapping[str, float] | None = None, seed: int = 0, resamples: int = 2000) -> str:
    """The whole report: the three Pass@k/Score@k tables, budget curves, comparisons, taxonomy, infra."""
    trajectories = list(trajectories)
    tables = standard_tables(trajectories, k=k, include_attempt0=include_attempt0, seed=seed, resamples=resamples)
    parts = [f"# {title}\n"]
    parts += [metric_table_markdown(t, f"Pass@{k} and Score@{k} by {name}") for name, t in tables.items()]
    pace = metric_table(trajectories, by=("method", "model"), k=k, include_attempt0=include_attempt0, seed=seed,
                        resamples=resamples, denominators="valid")
    parts.append(metric_table_markdown(pace, f"Pass@{k} and Score@{k} by method x model, PACE's denominators "
                                             "(valid instances only)"))
    curves = budget_curves(trajectories, k=k, include_attempt0=include_attempt0, seed=seed, resamples=resamples)
    parts.append(budget_curves_markdown(curves, curve_budgets))
    if any(a.index == 0 for t in trajectories for a in t.attempts):  # the source was evaluated: PACE's curve too
        pace_curves = budget_curves(trajectories, k=k, include_attempt0=True, seed=seed, resamples=resamples,
                                    counting="pace")
        parts.append(budget_curves_markdown(pace_curves, curve_budgets,
                                            f"Pass@{k}@k and Score@{k}@k as PACE counts k (k = 1: the source alone)"))
    if baseline is not None:
        parts.append(comparisons_markdown(compare_to_baseline(trajectories, baseline, k=k,
                                                              include_attempt0=include_attempt0, seed=seed,
                                                              resamples=resamples),
                                          f"Paired comparisons against {baseline}"))
    parts.append(taxonomy_markdown(taxonomy_table(trajectories, by=("method", "model"), thresholds=thresholds,
                                                  seed=seed, resamples=resamples)))
    parts.append(thresholds_markdown(thresholds))
    parts.append(taxonomy_markdown(taxonomy_table(trajectories, by=("method", "model"), seed=seed, resamples=resamples,
                                                  rules="pace"),
                                   "Error taxonomy by PACE-Bench's own rules (analysis/taxonomy_pace.py)"))
    parts.append("### Infrastructure errors\n\n" + tables["method x model"].infra.markdown())
    return "\n".join(parts)
