"""The error taxonomy: exactly one label per failed run, from a priority-ordered classifier.

`classify(traj)` returns None for a solved run (a model attempt passed) and otherwise the first label
whose condition holds, in this order (hard failures, then trajectory patterns, then the fallback):

 1. catastrophic_collapse   the best score is <= collapse_max_best
 2. constraint_violation    the best attempt violated a hard constraint (flag from the evaluator)
 3. structural_failure      the best attempt broke a joint or beam (flag from the simulator)
 4. numerical_instability   the best attempt's simulation produced NaN/Inf or blew up (flag from
                            the simulator: a real detection, never inferred from a low score)
 5. design_fixation         the last fixation_window transitions all have a similarity and their mean
                            is >= fixation_min_similarity, and the valid scores of those attempts span
                            <= fixation_max_score_range (same code, flat score)
 6. late_convergence        the best score is >= near_pass_score and was first reached in the last
                            ceil(late_fraction * B) attempts of the budget B (progress came too late)
 7. stagnation              the best score did not improve in the second half of the attempts (gain
                            <= stagnation_max_gain over the first half's best) although the code kept
                            changing (mean similarity into the second half < stagnation_max_similarity)
 8. exploration             erratic search that never got close: score std >= exploration_min_score_std
                            or mean similarity < exploration_max_similarity, with best < near_pass_score
 9. budget_exhaustion       the fallback: none of the above (typically steady progress that ran out)

What is looked at
- Only the model's attempts (index >= 1, infrastructure attempts removed); attempt 0, the unchanged
  source design, is never part of the classification.
- "The best attempt" is the highest valid score, ties to the earliest. A run with no valid attempt
  has best score the trajectory's score floor (pace: -100) and so is a catastrophic collapse.
- "n" is the number of model attempts made; "B" is the run's budget (`Trajectory.budget`, else the
  last attempt index). Similarities are those of `simreflect.analysis.similarity` between
  consecutive model attempts (None when a side has no program).
- An unfinished run (end_reason "infra") cannot be classified: split infrastructure errors first.

All thresholds live in THRESHOLDS (below), each with its definition; pass overrides to `classify`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from simreflect.analysis.bootstrap import bootstrap_interval
from simreflect.analysis.infra import InfraSplit, split_infra
from simreflect.analysis.similarity import similarity
from simreflect.analysis.trajectory import (Trajectory, best_attempt, best_score, check_group_fields,
                                            group_key)

LABELS = ("catastrophic_collapse", "constraint_violation", "structural_failure", "numerical_instability",
          "design_fixation", "late_convergence", "stagnation", "exploration", "budget_exhaustion")
"""The labels in priority order (the first whose condition holds wins)."""

LABEL_TITLES = {
    "catastrophic_collapse": "Catastrophic collapse",
    "constraint_violation": "Constraint violation",
    "structural_failure": "Structural failure",
    "numerical_instability": "Numerical instability",
    "design_fixation": "Design fixation",
    "late_convergence": "Late convergence",
    "stagnation": "Stagnation",
    "exploration": "Exploration",
    "budget_exhaustion": "Budget exhaustion",
}


@dataclass(frozen=True)
class Threshold:
    value: float
    doc: str


THRESHOLDS: dict[str, Threshold] = {
    "collapse_max_best": Threshold(
        -60.0, "Catastrophic collapse when the best valid score of the model's attempts is <= this "
               "(a run with no valid attempt counts as -100)."),
    "fixation_window": Threshold(
        4, "Design fixation looks at the last this-many transitions between consecutive model attempts "
           "(the last window + 1 attempts); a run with fewer attempts cannot be fixated."),
    "fixation_min_similarity": Threshold(
        0.90, "Design fixation needs every transition of the window to have a similarity (both programs "
              "present) and their mean to be >= this."),
    "fixation_max_score_range": Threshold(
        5.0, "Design fixation needs max - min of the valid scores of the window's attempts to be <= this "
             "(a flat score; fewer than two valid scores count as flat)."),
    "near_pass_score": Threshold(
        90.0, "A best score >= this is 'close to passing': required by late convergence, and exploration "
              "requires the best to stay below it (no convergence)."),
    "late_fraction": Threshold(
        0.25, "Late convergence needs the best score to be first reached in the last ceil(late_fraction * B) "
              "attempts of the budget B, i.e. at an index >= B - ceil(late_fraction * B) + 1 (16..20 for B = 20)."),
    "stagnation_max_gain": Threshold(
        1.0, "Stagnation needs the best score over all n attempts to exceed the best of the first half "
             "(attempts 1..floor(n/2)) by at most this many points (no improvement in the second half); n >= 2."),
    "stagnation_max_similarity": Threshold(
        0.90, "Stagnation needs the mean similarity of the transitions into the second half (attempts "
              "floor(n/2)+1..n) to be below this: the code kept changing (at least one defined similarity)."),
    "exploration_min_score_std": Threshold(
        25.0, "Exploration when the population standard deviation of the valid scores (>= 2 of them) is "
              ">= this (high variance) ..."),
    "exploration_max_similarity": Threshold(
        0.60, "... or when the mean similarity over all transitions is below this (broad changes); "
              "either way only while the best stays below near_pass_score."),
}


def threshold_values(overrides: Mapping[str, float] | None = None) -> dict[str, float]:
    values = {k: t.value for k, t in THRESHOLDS.items()}
    for k, v in (overrides or {}).items():
        if k not in values:
            raise KeyError(f"unknown taxonomy threshold {k!r}; known: {sorted(values)}")
        values[k] = v
    return values


@dataclass(frozen=True)
class Features:
    """The numbers the classifier reads from a run (None where undefined)."""

    n: int
    budget: int
    best: float
    best_index: int | None
    best_flags: tuple[str, ...]
    similarities: tuple[float | None, ...]
    window_mean_similarity: float | None
    window_score_range: float | None
    first_half_best: float | None
    second_half_mean_similarity: float | None
    score_std: float | None
    mean_similarity: float | None


def features(traj: Trajectory, thresholds: Mapping[str, float] | None = None) -> Features:
    th = threshold_values(thresholds)
    attempts = traj.model_attempts
    n = len(attempts)
    best = best_attempt(attempts)
    sims = tuple(similarity(a.program, b.program) for a, b in zip(attempts, attempts[1:]))
    m = int(th["fixation_window"])
    window_mean = window_range = None
    if m >= 1 and len(sims) >= m and all(s is not None for s in sims[-m:]):
        window_mean = float(np.mean(sims[-m:]))
        scores = [a.score for a in attempts[-(m + 1):] if a.valid]
        window_range = float(max(scores) - min(scores)) if len(scores) >= 2 else 0.0
    h = n // 2
    first_half_best = best_score(attempts[:h], traj.score_floor) if h >= 1 else None
    # transitions into attempts h..n-1 (0-based); sims[i-1] is the transition into attempts[i]
    second = [s for s in sims[max(h, 1) - 1:] if s is not None] if h >= 1 else []
    valid_scores = [a.score for a in attempts if a.valid]
    defined = [s for s in sims if s is not None]
    return Features(
        n=n, budget=traj.effective_budget,
        best=traj.score_floor if best is None else best.score,
        best_index=None if best is None else best.index,
        best_flags=() if best is None else tuple(f for f in ("constraint_violation", "structural_failure",
                                                             "numerical_instability") if getattr(best, f)),
        similarities=sims, window_mean_similarity=window_mean, window_score_range=window_range,
        first_half_best=first_half_best,
        second_half_mean_similarity=float(np.mean(second)) if second else None,
        score_std=float(np.std(valid_scores)) if len(valid_scores) >= 2 else None,
        mean_similarity=float(np.mean(defined)) if defined else None,
    )


def conditions(traj: Trajectory, thresholds: Mapping[str, float] | None = None) -> dict[str, bool]:
    """Every label's condition evaluated on its own (budget_exhaustion, the fallback, is always True)."""
    th = threshold_values(thresholds)
    f = features(traj, th)
    late_start = f.budget - max(1, math.ceil(th["late_fraction"] * f.budget)) + 1
    near = th["near_pass_score"]
    return {
        "catastrophic_collapse": f.best <= th["collapse_max_best"],
        "constraint_violation": "constraint_violation" in f.best_flags,
        "structural_failure": "structural_failure" in f.best_flags,
        "numerical_instability": "numerical_instability" in f.best_flags,
        "design_fixation": (f.window_mean_similarity is not None
                            and f.window_mean_similarity >= th["fixation_min_similarity"]
                            and f.window_score_range <= th["fixation_max_score_range"]),
        "late_convergence": f.best >= near and f.best_index is not None and f.best_index >= late_start,
        "stagnation": (f.first_half_best is not None and f.best - f.first_half_best <= th["stagnation_max_gain"]
                       and f.second_half_mean_similarity is not None
                       and f.second_half_mean_similarity < th["stagnation_max_similarity"]),
        "exploration": f.best < near and (
            (f.score_std is not None and f.score_std >= th["exploration_min_score_std"])
            or (f.mean_similarity is not None and f.mean_similarity < th["exploration_max_similarity"])),
        "budget_exhaustion": True,
    }


def classify(traj: Trajectory, thresholds: Mapping[str, float] | None = None) -> str | None:
    """The one label of a failed run (first condition in LABELS order), or None when it was solved."""
    if traj.end_reason == "infra":
        raise ValueError(f"{traj.label()} is unfinished (infrastructure error); split_infra first")
    if traj.solved:
        return None
    held = conditions(traj, thresholds)
    return next(label for label in LABELS if held[label])


# ----- shares per group ----------------------------------------------------------------------------

@dataclass(frozen=True)
class TaxonomyRow:
    group: tuple[tuple[str, Any], ...]
    n_runs: int
    """Finished runs in the group."""
    n_solved: int
    n_failed: int
    """The denominator of the shares."""
    counts: dict[str, int]
    shares: dict[str, float]
    cis: dict[str, tuple[float, float]]


@dataclass(frozen=True)
class TaxonomyTable:
    by: tuple[str, ...]
    rows: tuple[TaxonomyRow, ...]
    infra: InfraSplit
    thresholds: dict[str, float]
    seed: int
    resamples: int
    rules: str = "simreflect"

    def to_dict(self) -> dict[str, Any]:
        return {"by": list(self.by), "unit": "failed run", "rules": self.rules, "thresholds": self.thresholds,
                "seed": self.seed,
                "resamples": self.resamples, "infra": self.infra.to_dict(),
                "rows": [{"group": dict(r.group), "n_runs": r.n_runs, "n_solved": r.n_solved, "n_failed": r.n_failed,
                          "counts": r.counts, "shares": r.shares, "ci": {k: list(v) for k, v in r.cis.items()}}
                         for r in self.rows]}


#: Whose rules label a failed run: ours (`classify`, THRESHOLDS) or PACE-Bench's own (taxonomy_pace.py).
TAXONOMY_RULES = ("simreflect", "pace")


def taxonomy_table(trajectories: Iterable[Trajectory], by: Sequence[str] = ("method",),
                   thresholds: Mapping[str, float] | None = None, seed: int = 0,
                   resamples: int = 2000, rules: str = "simreflect") -> TaxonomyTable:
    """Label counts and shares over the failed runs of each group, with 95% bootstrap intervals;
    `rules` (TAXONOMY_RULES) says whose classifier labels them."""
    from simreflect.analysis.taxonomy_pace import classify_pace

    if rules not in TAXONOMY_RULES:
        raise ValueError(f"rules must be one of {TAXONOMY_RULES}, not {rules!r}")
    by = check_group_fields(by)
    split = split_infra(trajectories)
    groups: dict[tuple, list[Trajectory]] = {}
    for t in split.kept:
        groups.setdefault(group_key(t, by), []).append(t)
    rows = []
    for key in sorted(groups, key=lambda k: tuple(map(str, k))):
        runs = groups[key]
        labels = [classify(t, thresholds) if rules == "simreflect" else classify_pace(t) for t in runs]
        failed = [lb for lb in labels if lb is not None]
        counts = {lb: failed.count(lb) for lb in LABELS}
        shares = {lb: (counts[lb] / len(failed) if failed else float("nan")) for lb in LABELS}
        cis = {lb: bootstrap_interval([1.0 if x == lb else 0.0 for x in failed], seed=seed, resamples=resamples)
               for lb in LABELS}
        rows.append(TaxonomyRow(tuple(zip(by, key)), len(runs), len(runs) - len(failed), len(failed),
                                counts, shares, cis))
    return TaxonomyTable(by, tuple(rows), split, threshold_values(thresholds) if rules == "simreflect" else {}, seed,
                         resamples, rules)
