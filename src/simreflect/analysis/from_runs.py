"""Trajectories (the contract of analysis.trajectory) from a run's episode rows, for attempt-budget suites.

Attempt 0 is the unchanged source design evaluated in the target (the score before round 1);
attempts 1..n are the rounds. A round whose program did not run, or whose artefact the verifier
rejected, is an invalid attempt (no score). An episode stopped by infrastructure errors is an
"infra" run, excluded from every denominator and listed apart.
"""

from __future__ import annotations

from typing import Any, Sequence

from simreflect.analysis.trajectory import Attempt, Trajectory
from simreflect.core.records import RoundRecord
from simreflect.core.contract import AttemptBudget


def trajectory_of(row: dict[str, Any], fields: dict[str, Any], method: str, model: str, budget: int,
                  suite: AttemptBudget, records: Sequence[RoundRecord]) -> Trajectory:
    attempts = []
    if row["rounds"] and row["rounds"][0].get("score_before") is not None:
        attempts.append(Attempt(index=0, score=float(row["rounds"][0]["score_before"]), passed=False))
    by_round = {r.round: r for r in records}
    for r in row["rounds"]:
        rec = by_round.get(r["round"])
        if r.get("accepted") and r.get("score") is not None:
            flags = suite.attempt_flags((rec.verdict if rec else None) or {})
            attempts.append(Attempt(index=r["round"], score=float(r["score"]), passed=bool(rec and rec.passed),
                                    program=r.get("script"), **flags))
        else:
            reason = r.get("error") or ("the verifier rejected the artefact" if rec and rec.rejected else "invalid")
            attempts.append(Attempt(index=r["round"], score=None, passed=False, program=r.get("script"),
                                    invalid_reason=reason))
    end = row.get("end_reason") if row["finished"] else "infra"
    return Trajectory(task=row["task"], domain=fields["domain"], stage=int(fields["stage"]), method=method,
                      model=model, run=int(row.get("run", 0)), attempts=tuple(attempts), end_reason=end,
                      budget=budget, score_range=(suite.scale.score_low, suite.scale.score_high),
                      stages=suite.stages)
