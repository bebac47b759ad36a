"""Constraints and the one score formula of the suite.

Every evaluation ends with a goal (met or not, with a progress fraction where the task defines
one) and a list of hard constraints: the four every task has (execution, build_zone, mass_budget,
design_rules) and the task's own. The score, in [-100, 100], is computed here and only here:

* 100 when the goal is met and no hard constraint is violated;
* -100 * (violated / all) when any hard constraint is violated (so in [-100, 0));
* otherwise partial progress: 100 * progress, capped at 99 (a run that broke nothing but did
  not reach the goal).

No task chooses its own scoring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

MAX_PARTIAL = 99.0


@dataclass(frozen=True)
class Constraint:
    """One hard constraint in one evaluation.

    `value` is the measured quantity and `limit` the threshold in the same `unit`; `sense` is
    "<=" (value must not exceed limit) or ">=" (value must reach limit). `hidden_limit` marks a
    limit that is an invisible variable of the environment: reports then show the value as a
    percentage of the limit and never the limit itself. `step` is when it was first violated."""

    name: str
    description: str
    passed: bool
    value: float | None = None
    limit: float | None = None
    unit: str = ""
    sense: str = "<="
    detail: str = ""
    step: int | None = None
    hidden_limit: bool = False

    @property
    def margin(self) -> float | None:
        """Relative slack: positive when passing with room, negative when violated."""
        if self.value is None or self.limit is None or not math.isfinite(self.limit) or self.limit == 0:
            return None
        scale = abs(self.limit) if self.limit != 0 else 1.0
        slack = (self.limit - self.value) if self.sense == "<=" else (self.value - self.limit)
        return slack / scale

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "passed": self.passed,
                "value": self.value, "limit": None if self.hidden_limit else self.limit, "unit": self.unit,
                "sense": self.sense, "margin": None if self.margin is None else round(self.margin, 4),
                "detail": self.detail, "step": self.step, "hidden_limit": self.hidden_limit}


def score(goal_met: bool, progress: float, hard: list[Constraint]) -> float:
    """The score of an evaluation (see the module docstring)."""
    if not hard:
        raise ValueError("an evaluation has at least the four generic hard constraints")
    violated = sum(1 for c in hard if not c.passed)
    if violated:
        return round(-100.0 * violated / len(hard), 2)
    if goal_met:
        return 100.0
    p = progress if math.isfinite(progress) else 0.0
    return round(min(MAX_PARTIAL, max(0.0, 100.0 * p)), 2)
