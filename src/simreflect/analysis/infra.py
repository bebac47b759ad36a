"""Infrastructure errors, split out and reported apart: they never enter a denominator silently.

An infrastructure error is a failure of our machinery, not of the model: the endpoint was down,
a rate limit outlasted the retries, the simulator host died. The rules:

- A run that ended with `end_reason == "infra"` is unfinished: its outcome is unknown, so it is
  excluded whole, at every budget, and listed. (The protocol retries it when the command runs again.)
- A finished run may hold attempts flagged `infra_error` (a retried call): they cost no budget and
  carry no score, so they are removed from the run and listed; the run itself is kept.

Every table function calls `split_infra` first and carries its report, so a reader always sees how
many runs and attempts were set aside and why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

from simreflect.analysis.trajectory import Trajectory, check_unique


@dataclass(frozen=True)
class InfraRecord:
    run: str
    """The run's label (method/model/task/stage/run)."""
    attempt: int | None
    """The attempt index, or None when the whole run is excluded."""
    reason: str


@dataclass(frozen=True)
class InfraSplit:
    kept: tuple[Trajectory, ...]
    """Finished runs, with their infra-error attempts removed."""
    excluded_runs: tuple[Trajectory, ...]
    """Unfinished runs (end_reason "infra"): in no denominator."""
    records: tuple[InfraRecord, ...]
    """One record per excluded run and per removed attempt, in input order."""

    @property
    def n_excluded_runs(self) -> int:
        return len(self.excluded_runs)

    @property
    def n_dropped_attempts(self) -> int:
        return sum(1 for r in self.records if r.attempt is not None)

    def to_dict(self) -> dict[str, Any]:
        return {"kept_runs": len(self.kept), "excluded_runs": self.n_excluded_runs,
                "dropped_attempts": self.n_dropped_attempts,
                "records": [{"run": r.run, "attempt": r.attempt, "reason": r.reason} for r in self.records]}

    def markdown(self) -> str:
        lines = [f"Infrastructure errors (listed apart, in no denominator): {self.n_excluded_runs} unfinished "
                 f"run(s) excluded, {self.n_dropped_attempts} retried attempt(s) removed from finished runs; "
                 f"{len(self.kept)} run(s) kept."]
        if self.records:
            lines += ["", "Run | Attempt | Reason", "---|---|---"]
            lines += [f"{r.run} | {'whole run' if r.attempt is None else r.attempt} | {r.reason or '-'}"
                      for r in self.records]
        return "\n".join(lines) + "\n"


def split_infra(trajectories: Iterable[Trajectory]) -> InfraSplit:
    trajectories = list(trajectories)
    check_unique(trajectories)
    kept, excluded, records = [], [], []
    for t in trajectories:
        infra = [a for a in t.attempts if a.infra_error]
        if t.end_reason == "infra":
            excluded.append(t)
            reason = infra[-1].invalid_reason if infra and infra[-1].invalid_reason else "run ended on an infrastructure error"
            records.append(InfraRecord(t.label(), None, reason))
            continue
        for a in infra:
            records.append(InfraRecord(t.label(), a.index, a.invalid_reason or "infrastructure error (retried)"))
        kept.append(replace(t, attempts=tuple(a for a in t.attempts if not a.infra_error)) if infra else t)
    return InfraSplit(tuple(kept), tuple(excluded), tuple(records))
