"""Pass@k and Score@k over independent runs, budget curves, and paired comparisons of methods.

Units
    A cell is one method x model on one source-to-target pair (task, stage); its finished runs are
    the independent tries. Every mean, interval and n below is over cells ("pairs").

Per run (over the attempts considered: model attempts 1..b, plus attempt 0 when include_attempt0)
    passed  any considered attempt passed
    best    the best valid score of the considered attempts; the trajectory's score floor (the low end of the suite's declared range) when none is valid

Per cell with n finished runs, c of them passed (n >= k required; a cell with fewer is excluded and
listed, never silently dropped)
    Pass@k  1 - C(n - c, k) / C(n, k): the chance that at least one of k runs drawn from the n passes.
            With n == k (the protocol: k runs per pair) this is exactly "any of the k runs passed".
    Score@k the expected best run score over k runs drawn from the n (exact, from the sorted run
            bests). With n == k it is exactly the best score across the k runs.

Tables report the mean over cells with a 95% percentile bootstrap interval over cells
(`simreflect.analysis.bootstrap.bootstrap_interval`, seeded: the same data gives the same interval).
`include_attempt0` is keyword-only and required everywhere, and every result records it.

Budget curves: Pass@k@b and Score@k@b for b = 1..B truncate every run to its first b model attempts
(a run solved after b counts as failed at b; attempt 0 costs no budget).

Paired comparisons: two configurations (method, model) on the cells they share (same task and
stage): the mean per-pair difference with a paired bootstrap interval (pairs resampled together),
and counts of pairs won, lost and tied with an exact two-sided sign test (McNemar's exact test when
each pair's Pass@k is 0 or 1, as with n == k).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any, Iterable, Sequence

import numpy as np
from scipy.stats import binomtest

from simreflect.analysis.bootstrap import bootstrap_interval
from simreflect.analysis.infra import InfraSplit, split_infra
from simreflect.analysis.trajectory import Trajectory, best_score, check_group_fields, group_key

CONFIDENCE = 0.95


# ----- estimators ----------------------------------------------------------------------------------

def pass_at_k(n: int, c: int, k: int) -> float:
    """Chance that at least one of k runs drawn without replacement from n (c passed) passed."""
    if not 1 <= k <= n or not 0 <= c <= n:
        raise ValueError(f"need 1 <= k <= n and 0 <= c <= n, got n={n} c={c} k={k}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def score_at_k(bests: Sequence[float], k: int) -> float:
    """Expected maximum of k values drawn without replacement from `bests` (their max when k == n)."""
    n = len(bests)
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got n={n} k={k}")
    s = sorted(bests)
    # the i-th smallest (1-based) is the maximum of C(i-1, k-1) of the C(n, k) subsets
    return float(sum(s[i - 1] * comb(i - 1, k - 1) for i in range(k, n + 1)) / comb(n, k))


@dataclass(frozen=True)
class RunOutcome:
    passed: bool
    best: float
    any_valid: bool


def run_outcome(traj: Trajectory, *, include_attempt0: bool, budget: int | None = None) -> RunOutcome:
    """Passed / best score of one run over its considered attempts (first `budget` model attempts)."""
    attempts = [a for a in traj.considered(include_attempt0) if budget is None or a.index <= budget]
    return RunOutcome(any(a.passed for a in attempts), best_score(attempts, traj.score_floor), any(a.valid for a in attempts))


def _prefix_outcomes(traj: Trajectory, include_attempt0: bool, max_b: int) -> tuple[list[bool], list[float]]:
    """passed[b], best[b] for b = 0..max_b (index b = the first b model attempts)."""
    attempts = traj.considered(include_attempt0)
    passed, best = [False] * (max_b + 1), [traj.score_floor] * (max_b + 1)
    p, s = False, None
    by_index = {a.index: a for a in attempts}
    if 0 in by_index and include_attempt0:
        a = by_index[0]
        p, s = a.passed, (a.score if a.valid else None)
    for b in range(max_b + 1):
        a = by_index.get(b) if b >= 1 else None
        if a is not None:
            p = p or a.passed
            if a.valid and (s is None or a.score > s):
                s = a.score
        passed[b], best[b] = p, (traj.score_floor if s is None else s)
    return passed, best


# ----- cells ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Exclusion:
    cell: str
    group: dict[str, Any]
    reason: str


@dataclass(frozen=True)
class _Cell:
    runs: tuple[Trajectory, ...]

    @property
    def first(self) -> Trajectory:
        return self.runs[0]


#: Who is in a cell's denominator: every finished run ("all", ours: a run with no valid attempt
#: scores the floor), or only complete ones ("valid", PACE's: a run with no executable attempt, or
#: one ended by invalid generations, is incomplete and left out; its pair is excluded when fewer
#: than k complete runs remain, so the valid instances need not be every pair).
DENOMINATORS = ("all", "valid")


def incomplete(traj: Trajectory, *, include_attempt0: bool) -> bool:
    """PACE's incomplete run: no valid (executable) attempt, or ended by invalid generations."""
    return traj.end_reason == "invalid_streak" or not any(a.valid for a in traj.considered(include_attempt0))


def _cells(kept: Sequence[Trajectory], k: int, denominators: str = "all",
           include_attempt0: bool = False) -> tuple[dict[tuple, _Cell], list[Exclusion]]:
    if k < 1:
        raise ValueError("k must be >= 1")
    if denominators not in DENOMINATORS:
        raise ValueError(f"denominators must be one of {DENOMINATORS}, not {denominators!r}")
    by_cell: dict[tuple, list[Trajectory]] = {}
    for t in kept:
        by_cell.setdefault(t.cell, []).append(t)
    cells, excluded = {}, []
    for key in sorted(by_cell, key=lambda c: tuple(map(str, c))):
        finished = tuple(sorted(by_cell[key], key=lambda t: t.run))
        runs = finished
        if denominators == "valid":
            runs = tuple(t for t in finished if not incomplete(t, include_attempt0=include_attempt0))
        if len(runs) < k:
            t = finished[0]
            reason = (f"{len(runs)} complete run(s) of {len(finished)}, k = {k} needed" if denominators == "valid"
                      else f"{len(runs)} finished run(s), k = {k} needed")
            excluded.append(Exclusion(f"{t.method}/{t.model}/{t.task}/stage{t.stage}", _fields(t), reason))
        else:
            cells[key] = _Cell(runs)
    return cells, excluded


def _fields(t: Trajectory) -> dict[str, Any]:
    return {"method": t.method, "model": t.model, "domain": t.domain, "stage": t.stage, "task": t.task}


def _cell_values(cell: _Cell, k: int, include_attempt0: bool, budget: int | None) -> tuple[float, float, int]:
    outs = [run_outcome(t, include_attempt0=include_attempt0, budget=budget) for t in cell.runs]
    return (pass_at_k(len(outs), sum(o.passed for o in outs), k), score_at_k([o.best for o in outs], k),
            sum(not o.any_valid for o in outs))


def _sort_key(key: tuple) -> tuple:
    return tuple(str(v) for v in key)


# ----- tables --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MetricRow:
    group: tuple[tuple[str, Any], ...]
    n: int
    """Cells (pairs) in the mean."""
    excluded: int
    """Cells of this group left out for having fewer than k finished runs (listed in the table)."""
    runs: int
    runs_without_valid: int
    """Runs with no valid attempt (scored the score floor; they are in the denominator)."""
    pass_at_k: float
    pass_ci: tuple[float, float]
    score_at_k: float
    score_ci: tuple[float, float]


@dataclass(frozen=True)
class MetricTable:
    by: tuple[str, ...]
    k: int
    include_attempt0: bool
    budget: int | None
    rows: tuple[MetricRow, ...]
    exclusions: tuple[Exclusion, ...]
    infra: InfraSplit
    seed: int
    resamples: int
    denominators: str = "all"

    @property
    def n(self) -> int:
        return sum(r.n for r in self.rows)

    @property
    def n_excluded(self) -> int:
        return len(self.exclusions)

    def to_dict(self) -> dict[str, Any]:
        return {"by": list(self.by), "k": self.k, "include_attempt0": self.include_attempt0, "budget": self.budget,
                "denominators": self.denominators, "unit": "pair (method x model x task x stage)", "confidence": CONFIDENCE, "seed": self.seed,
                "resamples": self.resamples, "n": self.n, "excluded": self.n_excluded,
                "rows": [{"group": dict(r.group), "n": r.n, "excluded": r.excluded, "runs": r.runs,
                          "runs_without_valid": r.runs_without_valid, "pass_at_k": r.pass_at_k,
                          "pass_ci": list(r.pass_ci), "score_at_k": r.score_at_k, "score_ci": list(r.score_ci)}
                         for r in self.rows],
                "exclusions": [{"cell": e.cell, "reason": e.reason} for e in self.exclusions],
                "infra": self.infra.to_dict()}


def metric_table(trajectories: Iterable[Trajectory], *, by: Sequence[str], k: int, include_attempt0: bool,
                 budget: int | None = None, seed: int = 0, resamples: int = 2000,
                 denominators: str = "all") -> MetricTable:
    """Pass@k and Score@k per group (by any of method, model, domain, stage, task; () pools all);
    `denominators` (DENOMINATORS): which runs count."""
    by = check_group_fields(by)
    split = split_infra(trajectories)
    cells, excluded = _cells(split.kept, k, denominators, include_attempt0)
    groups: dict[tuple, list[_Cell]] = {}
    for cell in cells.values():
        groups.setdefault(group_key(cell.first, by), []).append(cell)
    for e in excluded:
        groups.setdefault(tuple(e.group[f] for f in by), [])
    rows = []
    for key in sorted(groups, key=_sort_key):
        vals = [_cell_values(c, k, include_attempt0, budget) for c in groups[key]]
        passes, scores = [v[0] for v in vals], [v[1] for v in vals]
        group = dict(zip(by, key))
        rows.append(MetricRow(tuple(group.items()), len(vals),
                              sum(1 for e in excluded if all(e.group[f] == v for f, v in group.items())),
                              sum(len(c.runs) for c in groups[key]), sum(v[2] for v in vals),
                              float(np.mean(passes)) if vals else float("nan"),
                              bootstrap_interval(passes, confidence=CONFIDENCE, resamples=resamples, seed=seed),
                              float(np.mean(scores)) if vals else float("nan"),
                              bootstrap_interval(scores, confidence=CONFIDENCE, resamples=resamples, seed=seed)))
    return MetricTable(by, k, include_attempt0, budget, tuple(rows), tuple(excluded), split, seed, resamples,
                       denominators)


def standard_tables(trajectories: Iterable[Trajectory], *, k: int, include_attempt0: bool, budget: int | None = None,
                    seed: int = 0, resamples: int = 2000) -> dict[str, MetricTable]:
    """The three tables of a report: by method x model, by method x model x domain, and x stage."""
    trajectories = list(trajectories)
    return {name: metric_table(trajectories, by=by, k=k, include_attempt0=include_attempt0, budget=budget,
                               seed=seed, resamples=resamples)
            for name, by in (("method x model", ("method", "model")),
                             ("domain", ("method", "model", "domain")),
                             ("stage", ("method", "model", "stage")))}


# ----- budget curves -------------------------------------------------------------------------------

@dataclass(frozen=True)
class CurvePoint:
    b: int
    n: int
    pass_at_k: float
    pass_ci: tuple[float, float]
    score_at_k: float
    score_ci: tuple[float, float]


@dataclass(frozen=True)
class BudgetCurves:
    by: tuple[str, ...]
    k: int
    include_attempt0: bool
    max_budget: int
    curves: dict[tuple, tuple[CurvePoint, ...]]
    """Group key (values of `by`) -> points for b = 1..max_budget."""
    exclusions: tuple[Exclusion, ...]
    infra: InfraSplit
    seed: int
    resamples: int
    counting: str = "model"

    def to_dict(self) -> dict[str, Any]:
        return {"by": list(self.by), "k": self.k, "include_attempt0": self.include_attempt0,
                "max_budget": self.max_budget, "counting": self.counting, "confidence": CONFIDENCE, "seed": self.seed,
                "resamples": self.resamples,
                "curves": [{"group": dict(zip(self.by, key)),
                            "points": [{"b": p.b, "n": p.n, "pass_at_k": p.pass_at_k, "pass_ci": list(p.pass_ci),
                                        "score_at_k": p.score_at_k, "score_ci": list(p.score_ci)} for p in pts]}
                           for key, pts in self.curves.items()],
                "exclusions": [{"cell": e.cell, "reason": e.reason} for e in self.exclusions],
                "infra": self.infra.to_dict()}


#: How a budget curve counts its budget: "model" (b = model attempts 1..B; attempt 0, the source,
#: costs nothing and counts only with include_attempt0) or "pace" (PACE's k: the source evaluated in
#: the target is attempt 1, so k = 1 is the source alone and k = b + 1 adds b model attempts).
BUDGET_COUNTING = ("model", "pace")


def budget_curves(trajectories: Iterable[Trajectory], *, k: int, include_attempt0: bool,
                  by: Sequence[str] = ("method", "model"), max_budget: int | None = None, seed: int = 0,
                  resamples: int = 2000, counting: str = "model") -> BudgetCurves:
    """Pass@k@b and Score@k@b for b = 1..B per group (B = the largest run budget unless given);
    `counting="pace"` gives PACE's curve (BUDGET_COUNTING; include_attempt0 must then be True)."""
    if counting not in BUDGET_COUNTING:
        raise ValueError(f"counting must be one of {BUDGET_COUNTING}, not {counting!r}")
    if counting == "pace" and not include_attempt0:
        raise ValueError("PACE's budget counting includes the source as attempt 1: include_attempt0 must be True")
    by = check_group_fields(by)
    split = split_infra(trajectories)
    cells, excluded = _cells(split.kept, k)
    top = max_budget if max_budget is not None else max((t.effective_budget for t in split.kept), default=0)
    prefix = {t.key: _prefix_outcomes(t, include_attempt0, top) for c in cells.values() for t in c.runs}
    groups: dict[tuple, list[_Cell]] = {}
    for cell in cells.values():
        groups.setdefault(group_key(cell.first, by), []).append(cell)
    # point b of the curve reads the runs' outcome after `b - shift` model attempts
    shift, points = (1, top + 1) if counting == "pace" else (0, top)
    curves = {}
    for key in sorted(groups, key=_sort_key):
        pts = []
        for b in range(1, points + 1):
            passes, scores = [], []
            for c in groups[key]:
                outs = [(prefix[t.key][0][b - shift], prefix[t.key][1][b - shift]) for t in c.runs]
                passes.append(pass_at_k(len(outs), sum(p for p, _ in outs), k))
                scores.append(score_at_k([s for _, s in outs], k))
            pts.append(CurvePoint(b, len(passes), float(np.mean(passes)),
                                  bootstrap_interval(passes, confidence=CONFIDENCE, resamples=resamples, seed=seed),
                                  float(np.mean(scores)),
                                  bootstrap_interval(scores, confidence=CONFIDENCE, resamples=resamples, seed=seed)))
        curves[key] = tuple(pts)
    return BudgetCurves(by, k, include_attempt0, points, curves, tuple(excluded), split, seed, resamples, counting)


# ----- paired comparisons --------------------------------------------------------------------------

@dataclass(frozen=True)
class PairedComparison:
    a: tuple[str, str]
    b: tuple[str, str]
    """The two configurations (method, model); differences are a - b."""
    k: int
    include_attempt0: bool
    budget: int | None
    n: int
    """Pairs (task, stage) with at least k finished runs on both sides."""
    unmatched: tuple[str, ...]
    """Pairs present (with >= k runs) on one side only, or excluded on the other: not compared."""
    pass_a: float
    pass_b: float
    pass_diff: float
    pass_diff_ci: tuple[float, float]
    pass_wins: int
    pass_losses: int
    pass_ties: int
    pass_p: float
    """Exact two-sided sign test on the pairs won and lost (McNemar's exact test for 0/1 outcomes)."""
    score_a: float
    score_b: float
    score_diff: float
    score_diff_ci: tuple[float, float]
    score_wins: int
    score_losses: int
    score_ties: int
    score_p: float
    infra: InfraSplit
    seed: int
    resamples: int

    def to_dict(self) -> dict[str, Any]:
        out = {f: getattr(self, f) for f in ("k", "include_attempt0", "budget", "n", "pass_a", "pass_b",
                                             "pass_diff", "pass_wins", "pass_losses", "pass_ties", "pass_p",
                                             "score_a", "score_b", "score_diff", "score_wins", "score_losses",
                                             "score_ties", "score_p", "seed", "resamples")}
        out.update(a=list(self.a), b=list(self.b), pass_diff_ci=list(self.pass_diff_ci),
                   score_diff_ci=list(self.score_diff_ci), unmatched=list(self.unmatched),
                   infra=self.infra.to_dict(), confidence=CONFIDENCE)
        return out


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test on pairs won and lost (ties left out); 1.0 when there are none."""
    return 1.0 if wins + losses == 0 else float(binomtest(wins, wins + losses, 0.5).pvalue)


def paired_comparison(trajectories: Iterable[Trajectory], a: tuple[str, str], b: tuple[str, str], *, k: int,
                      include_attempt0: bool, budget: int | None = None, seed: int = 0,
                      resamples: int = 2000) -> PairedComparison:
    """Configuration a (method, model) against b on the pairs both have: a - b with paired intervals."""
    a, b = tuple(a), tuple(b)
    if a == b:
        raise ValueError("compare two different configurations")
    split = split_infra(t for t in trajectories if (t.method, t.model) in (a, b))
    cells, _ = _cells(split.kept, k)
    side: dict[tuple, dict[tuple, _Cell]] = {a: {}, b: {}}
    for (method, model, task, stage), cell in cells.items():
        side[(method, model)][(task, stage)] = cell
    all_pairs = {t.pair for t in split.kept} | {t.pair for t in split.excluded_runs}
    common = sorted(set(side[a]) & set(side[b]), key=_sort_key)
    unmatched = tuple(f"{task}/stage{stage}" for task, stage in sorted(all_pairs - set(common), key=_sort_key))
    va = [_cell_values(side[a][p], k, include_attempt0, budget) for p in common]
    vb = [_cell_values(side[b][p], k, include_attempt0, budget) for p in common]
    pa, pb = np.array([v[0] for v in va]), np.array([v[0] for v in vb])
    sa, sb = np.array([v[1] for v in va]), np.array([v[1] for v in vb])
    eps = 1e-9
    pw, pl = int(np.sum(pa - pb > eps)), int(np.sum(pb - pa > eps))
    sw, sl = int(np.sum(sa - sb > eps)), int(np.sum(sb - sa > eps))
    n = len(common)

    def mean(x: np.ndarray) -> float:
        return float(np.mean(x)) if n else float("nan")

    ci = dict(confidence=CONFIDENCE, resamples=resamples, seed=seed)
    return PairedComparison(a, b, k, include_attempt0, budget, n, unmatched,
                            mean(pa), mean(pb), mean(pa - pb), bootstrap_interval(pa - pb, **ci), pw, pl, n - pw - pl,
                            sign_test(pw, pl),
                            mean(sa), mean(sb), mean(sa - sb), bootstrap_interval(sa - sb, **ci), sw, sl, n - sw - sl,
                            sign_test(sw, sl), split, seed, resamples)


def compare_to_baseline(trajectories: Iterable[Trajectory], baseline: str, *, k: int, include_attempt0: bool,
                        budget: int | None = None, seed: int = 0, resamples: int = 2000) -> list[PairedComparison]:
    """Every other method against the baseline method, model by model, on shared pairs."""
    trajectories = list(trajectories)
    configs = sorted({(t.method, t.model) for t in trajectories})
    return [paired_comparison(trajectories, (method, model), (baseline, model), k=k,
                              include_attempt0=include_attempt0, budget=budget, seed=seed, resamples=resamples)
            for method, model in configs if method != baseline and (baseline, model) in configs]
