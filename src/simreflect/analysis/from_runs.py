"""Trajectories (the contract of analysis.trajectory) from a run's episode rows, for attempt-budget suites.

Attempt 0 is the unchanged source design evaluated in the target (the score before round 1);
attempts 1..n are the rounds. A round whose program did not run, or whose artefact the verifier
rejected, is an invalid attempt (no score). An episode stopped by infrastructure errors is an
"infra" run, excluded from every denominator and listed apart.
"""

from __future__ import annotations

from typing import Any, Sequence

from simreflect.analysis.trajectory import Trajectory
from simreflect.core.records import Attempt, RoundRecord
from simreflect.core.contract import AttemptBudget


def trajectory_of(row: dict[str, Any], fields: dict[str, Any], method: str, model: str, budget: int,
                  suite: AttemptBudget, records: Sequence[RoundRecord]) -> Trajectory:
    attempts = []
    if records and records[0].score_before is not None:
        attempts.append(Attempt.start(records[0].score_before))
    attempts += [Attempt.of_round(r, suite.attempt_flags(r.verdict or {}) if r.accepted else None) for r in records]
    end = row.get("end_reason") if row["finished"] else "infra"
    return Trajectory(task=row["task"], domain=fields["domain"], stage=int(fields["stage"]), method=method,
                      model=model, run=int(row.get("run", 0)), attempts=tuple(attempts), end_reason=end,
                      budget=budget, score_range=(suite.scale.score_low, suite.scale.score_high),
                      stages=suite.stages)
