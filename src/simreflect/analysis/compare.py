"""Runs compared on the tasks they share: each run's solved rate and mean score, and paired differences.

Unit: an item, one (suite, task id, evidence level). A run's value on an item is the mean over its
finished episodes of that item (its independent runs): the share solved, and the mean episode score.
An episode's score is the best score it reached: the verifier's score before round 1 (the unchanged
input) and after each round whose artefact was verified. Unfinished episodes (infrastructure errors)
enter no mean, as in the summary tables.

Two runs are compared on the items both have: the mean per-item difference a - b with a paired 95%
percentile bootstrap interval (items resampled together: `analysis.bootstrap.bootstrap_interval` of the
differences, seeded), and the items won, lost and tied by a with the exact two-sided sign test on
them (analysis/passk.py's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from simreflect.analysis.bootstrap import bootstrap_interval
from simreflect.analysis.passk import sign_test

CONFIDENCE = 0.95
Item = tuple[str, str, str]
"""(suite, task id, evidence level)."""


def _number(x: Any) -> float | None:
    """A finite number from a record (which is data: any type), else None."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def episode_score(row: Mapping[str, Any]) -> float | None:
    """The best score an episode reached (its start, then each verified round), None when none is known."""
    rounds = row.get("rounds") or []
    scores = [_number(rounds[0].get("score_before"))] if rounds and isinstance(rounds[0], dict) else []
    scores += [_number(r.get("score")) for r in rounds if isinstance(r, dict)]
    known = [s for s in scores if s is not None]
    return max(known) if known else None


@dataclass(frozen=True)
class ItemResult:
    item: Item
    episodes: int
    """Finished episodes of the item (its independent runs) in the means."""
    solved: float
    """Share of those episodes solved."""
    score: float | None
    """Mean episode score (None when no episode has one)."""


def item_results(suite: str, rows: Iterable[Mapping[str, Any]]) -> dict[Item, ItemResult]:
    """A run's value on each item it finished (its runs.jsonl rows)."""
    by_item: dict[Item, list[Mapping[str, Any]]] = {}
    for r in rows:
        if r.get("finished"):
            by_item.setdefault((suite, str(r["task"]), str(r["level"])), []).append(r)
    out = {}
    for item, episodes in sorted(by_item.items()):
        scores = [s for s in (episode_score(r) for r in episodes) if s is not None]
        out[item] = ItemResult(item, len(episodes), float(np.mean([bool(r.get("solved")) for r in episodes])),
                               float(np.mean(scores)) if scores else None)
    return out


@dataclass(frozen=True)
class RunOnItems:
    """One run's means over a set of items."""

    label: str
    n: int
    solved: float
    score: float | None
    scored: int
    """Items with a score (the mean score's n)."""


def run_on_items(label: str, results: Mapping[Item, ItemResult], items: Sequence[Item]) -> RunOnItems:
    chosen = [results[i] for i in items if i in results]
    scores = [r.score for r in chosen if r.score is not None]
    return RunOnItems(label, len(chosen), float(np.mean([r.solved for r in chosen])) if chosen else float("nan"),
                      float(np.mean(scores)) if scores else None, len(scores))


@dataclass(frozen=True)
class PairedDifference:
    a: str
    b: str
    """The two runs' labels; differences are a - b."""
    n: int
    """Items both runs finished."""
    solved_a: float
    solved_b: float
    solved_diff: float
    solved_ci: tuple[float, float]
    scored: int
    """Items both runs have a score for (the score difference's n)."""
    score_a: float
    score_b: float
    score_diff: float
    score_ci: tuple[float, float]
    wins: int
    losses: int
    ties: int
    """Items on which a's score is above, below, equal to b's (its solved share when either has no score)."""
    p: float
    """Exact two-sided sign test on the wins and losses."""
    seed: int
    resamples: int

    @property
    def shared(self) -> bool:
        return self.n > 0


def shared_items(*results: Mapping[Item, ItemResult]) -> list[Item]:
    """The items every one of `results` has, sorted."""
    if not results:
        return []
    common = set(results[0])
    for r in results[1:]:
        common &= set(r)
    return sorted(common)


def paired_difference(a: str, a_results: Mapping[Item, ItemResult], b: str, b_results: Mapping[Item, ItemResult],
                      seed: int = 0, resamples: int = 2000) -> PairedDifference:
    """Run a against run b on the items both finished (n = 0: nothing shared, every mean NaN)."""
    items = shared_items(a_results, b_results)
    sa = np.array([a_results[i].solved for i in items], dtype=float)
    sb = np.array([b_results[i].solved for i in items], dtype=float)
    scored = [i for i in items if a_results[i].score is not None and b_results[i].score is not None]
    pa = np.array([a_results[i].score for i in scored], dtype=float)
    pb = np.array([b_results[i].score for i in scored], dtype=float)
    eps = 1e-9
    wins = losses = 0
    for i in items:
        x, y = a_results[i], b_results[i]
        d = (x.score - y.score) if i in scored else (x.solved - y.solved)
        wins += int(d > eps)
        losses += int(d < -eps)

    def mean(x: np.ndarray) -> float:
        return float(np.mean(x)) if x.size else float("nan")

    ci = dict(confidence=CONFIDENCE, resamples=resamples, seed=seed)
    return PairedDifference(a, b, len(items), mean(sa), mean(sb), mean(sa - sb), bootstrap_interval(sa - sb, **ci),
                            len(scored), mean(pa), mean(pb), mean(pa - pb), bootstrap_interval(pa - pb, **ci),
                            wins, losses, len(items) - wins - losses, sign_test(wins, losses), seed, resamples)
