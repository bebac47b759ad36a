"""The error taxonomy as PACE-Bench's own analysis code assigns it (its trajectory error type), beside
ours (taxonomy.py, whose rules are stricter: numerical instability needs a detected blow-up, design
fixation a window of near-identical programs with a flat score, and so on).

PACE's rules, first match wins, over the attempts PACE's history holds: the source design evaluated
in the target (our attempt 0) and every verified model attempt (an answer without a program never
enters its history; a program that failed to run scores 0, as PACE's verifier scores it):

 1. catastrophic_collapse   best score <= -60
 2. constraint_violation    the best attempt violated a hard constraint
 3. structural_failure      the best attempt broke a joint or beam
 4. numerical_instability   best score < 0
 5. design_fixation         mean token-set Jaccard similarity of the last 5 transitions > 0.85, |score trend|
                            < 3 and best < 50
 6. late_convergence        improved late (>= 10 attempts and the second half's best exceeds the first
                            half's by more than 2) and best >= 30
 7. stagnation              no positive score, |score trend| < 2 and at most one distinct failure reason
 8. exploration             no positive score and at least three distinct failure reasons
 9. late_convergence if improved late, else budget_exhaustion, when 0 < best < 100
10. stagnation              otherwise

The score trend is the mean of the last third of the scores minus the mean of the first third (the
last third starting no earlier than two thirds in). A failure reason is what the verifier said was
wrong (the attempt's invalid reason, else its failed checks), lower-cased and cut to 80 characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from simreflect.analysis.trajectory import Trajectory
from simreflect.core.records import Attempt

#: PACE's constants, as its classifier has them.
COLLAPSE_MAX_BEST = -60.0
FIXATION_MIN_RECENT_SIMILARITY = 0.85
FIXATION_MAX_TREND = 3.0
FIXATION_MAX_BEST = 50.0
LATE_MIN_ATTEMPTS = 10
LATE_MIN_GAIN = 2.0
LATE_MIN_BEST = 30.0
STAGNATION_MAX_TREND = 2.0
RECENT_TRANSITIONS = 5
REASON_CHARS = 80


def token_jaccard(a: str, b: str) -> float:
    """PACE's code similarity: Jaccard similarity of the whitespace-separated token sets (0 when either is empty)."""
    ta, tb = set(a.split()), set(b.split())
    return len(ta & tb) / max(1, len(ta | tb)) if ta and tb else 0.0


@dataclass(frozen=True)
class PaceSignals:
    """The trajectory signals PACE's classifier reads."""

    scores: tuple[float, ...]
    best: float
    first_positive: int
    score_trend: float
    improved_late: bool
    failure_reasons: int
    recent_similarity: float


def pace_history(traj: Trajectory) -> tuple[Attempt, ...]:
    """The attempts PACE's history would hold: the source (index 0) and every attempt with a program."""
    return tuple(a for a in traj.considered(include_attempt0=True) if a.program is not None or a.index == 0)


def _score(a: Attempt) -> float:
    return 0.0 if a.score is None else a.score


def _reason(a: Attempt) -> str:
    text = a.invalid_reason or ", ".join(a.errors)
    return text.strip().lower()[:REASON_CHARS]


def signals(attempts: Sequence[Attempt]) -> PaceSignals:
    scores = tuple(_score(a) for a in attempts)
    first_positive = next((i for i, s in enumerate(scores) if s > 0), -1)
    third = max(1, len(scores) // 3)
    early = sum(scores[:third]) / third
    late = scores[max(2 * third, len(scores) - third):]
    trend = sum(late) / max(1, len(late)) - early
    improved_late = False
    if len(scores) >= LATE_MIN_ATTEMPTS:
        mid = len(scores) // 2
        improved_late = max(scores[mid:]) > max(scores[:mid]) + LATE_MIN_GAIN
    reasons = {r for r in (_reason(a) for a in attempts) if r}
    sims = [token_jaccard(a.program or "", b.program or "") for a, b in zip(attempts, attempts[1:])]
    recent = sims[-RECENT_TRANSITIONS:]
    return PaceSignals(scores, max(scores, default=0.0), first_positive, trend, improved_late, len(reasons),
                       sum(recent) / len(recent) if recent else 0.0)


def classify_pace(traj: Trajectory) -> str | None:
    """PACE's label of a failed run (None when a model attempt passed)."""
    if traj.end_reason == "infra":
        raise ValueError(f"{traj.label()} is unfinished (infrastructure error); split_infra first")
    if traj.solved:
        return None
    attempts = pace_history(traj)
    if not attempts:
        return "stagnation"
    s = signals(attempts)
    best = max(attempts, key=_score)  # ties to the earliest, as Python's max keeps the first
    if s.best <= COLLAPSE_MAX_BEST:
        return "catastrophic_collapse"
    if best.constraint_violation:
        return "constraint_violation"
    if best.structural_failure:
        return "structural_failure"
    if s.best < 0:
        return "numerical_instability"
    if s.recent_similarity > FIXATION_MIN_RECENT_SIMILARITY and abs(s.score_trend) < FIXATION_MAX_TREND \
            and s.best < FIXATION_MAX_BEST:
        return "design_fixation"
    if s.improved_late and s.best >= LATE_MIN_BEST:
        return "late_convergence"
    if s.first_positive < 0 and abs(s.score_trend) < STAGNATION_MAX_TREND and s.failure_reasons <= 1:
        return "stagnation"
    if s.first_positive < 0 and s.failure_reasons >= 3:
        return "exploration"
    if 0 < s.best < 100:
        return "late_convergence" if s.improved_late else "budget_exhaustion"
    return "stagnation"
