"""What an episode ended in, as the viewer says it: solved, not solved, or ended by infrastructure errors
(the endpoint or our machinery failed: the episode has no end record and its infrastructure errors are
recorded, as run/tally.py and analysis/infra.py count it; it enters no denominator) or unfinished (a run
stopped before it ended, with no error recorded)."""

from __future__ import annotations

import math
from typing import Any, Mapping

from simreflect.viewer.markup import e

SOLVED, NOT_SOLVED, INFRA, UNFINISHED = "solved", "not solved", "infrastructure error", "unfinished"
OUTCOMES = (SOLVED, NOT_SOLVED, INFRA, UNFINISHED)
_CLASS = {SOLVED: "ok", NOT_SOLVED: "fail", INFRA: "infra", UNFINISHED: "infra"}


def episode_outcome(row: Mapping[str, Any]) -> str:
    """One of OUTCOMES for an episode's row (runs.jsonl)."""
    if row.get("solved"):
        return SOLVED
    if not row.get("finished"):
        return INFRA if row.get("infra_errors") else UNFINISHED
    return NOT_SOLVED


def outcome_html(outcome: str) -> str:
    return f"<span class='{_CLASS.get(outcome, 'fail')} outcome'>{e(outcome)}</span>"


def score_text(score: Any) -> str:
    """A score from a record (data: any type) as shown: a finite number, else '-'."""
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        return "-"
    return f"{score:.4g}"
