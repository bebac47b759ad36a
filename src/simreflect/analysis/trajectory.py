"""The data contract between a source-to-target adaptation run and its analysis.

One `Trajectory` is one run of one method x model on one source-to-target pair (a base task and a
target stage); it holds the `Attempt`s (core.records.Attempt, the one attempt type) in budget order. The runner writes trajectories as JSON lines
(`dump_trajectories`), the analysis reads them back (`load_trajectories`); nothing here needs a
simulator.

Attempts and the budget
    index 0      the unchanged source design evaluated in the target (optional: present only if the
                 runner evaluated it). It is not a model attempt and costs no budget.
    index 1..B   the model's attempts, in order; the index is the budget position.
    Non-infrastructure attempts must be numbered contiguously from 0 or 1. An attempt flagged
    `infra_error` (the model could not be asked, the simulator host died, ...) is not a model
    attempt: it holds no score, costs no budget, may carry any index, and is reported apart by
    `simreflect.analysis.infra` (never silently dropped).

Scores
    A score is a finite float in the trajectory's `score_range` (the suite's declared ScoreScale,
    core.contract; a file written before suites declared it holds pace's, LEGACY_SCORE_RANGE), or
    None when the attempt is invalid (no
    program could be parsed, or the program crashed before it was evaluated; `invalid_reason` says
    which). A NaN or Inf score is rejected: the simulator's detection of a blow-up is reported as
    `numerical_instability=True` on an attempt that still carries the evaluator's finite score.
    A run with no valid score among the attempts considered counts as the range's low end (the model failed
    to produce anything that could be scored; it is not excluded from any denominator).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from simreflect.core.records import Attempt, ContractError

#: What trajectories carried before suites declared their scale and stages (every one was pace's).
LEGACY_SCORE_RANGE = (-100.0, 100.0)
LEGACY_STAGES = (1, 2, 3, 4)
END_REASONS = ("solved", "budget", "invalid_streak", "infra")
GROUP_FIELDS = ("method", "model", "domain", "stage", "task")
"""The fields a table may group by."""


@dataclass(frozen=True)
class Trajectory:
    task: str
    domain: str
    stage: int
    method: str
    model: str
    run: int
    attempts: tuple[Attempt, ...]
    end_reason: str
    budget: int | None = None
    """The model-attempt budget B of the protocol (optional; defaults to the last index seen)."""
    score_range: tuple[float, float] = LEGACY_SCORE_RANGE
    """[low, high] of a valid score: the suite's declared score scale."""
    stages: tuple[int, ...] = LEGACY_STAGES
    """The stages the suite declares (core.contract.AttemptBudget.stages)."""
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "attempts", tuple(self.attempts))
        where = f"{self.method}/{self.model}/{self.task}/stage{self.stage}/run{self.run}"
        object.__setattr__(self, "score_range", tuple(float(x) for x in self.score_range))
        object.__setattr__(self, "stages", tuple(self.stages))
        low, high = self.score_range
        if not low < high:
            raise ContractError(f"{where}: score_range must be [low, high] with low < high, got {self.score_range}")
        if self.stage not in self.stages:
            raise ContractError(f"{where}: stage must be one of {self.stages}")
        for a in self.attempts:
            if a.score is not None and not low <= a.score <= high:
                raise ContractError(f"{where}: attempt {a.index}: score {a.score} outside [{low}, {high}]")
        if not isinstance(self.run, int) or self.run < 0:
            raise ContractError(f"{where}: run must be an int >= 0")
        if self.end_reason not in END_REASONS:
            raise ContractError(f"{where}: end_reason {self.end_reason!r} not in {END_REASONS}")
        if self.budget is not None and (not isinstance(self.budget, int) or self.budget < 1):
            raise ContractError(f"{where}: budget must be an int >= 1 or None")
        indices = [a.index for a in self.attempts if not a.infra_error]
        if indices and (indices[0] not in (0, 1) or indices != list(range(indices[0], indices[0] + len(indices)))):
            raise ContractError(f"{where}: non-infra attempt indices must run contiguously from 0 or 1, got {indices}")
        if self.budget is not None and indices and indices[-1] > self.budget:
            raise ContractError(f"{where}: attempt {indices[-1]} beyond the budget {self.budget}")
        if self.end_reason == "solved" and not any(a.passed for a in self.attempts):
            raise ContractError(f"{where}: end_reason 'solved' but no attempt passed")

    @property
    def score_floor(self) -> float:
        """What a run with no valid attempt scores: the low end of the declared range."""
        return self.score_range[0]

    # ----- identities ----------------------------------------------------------------------------
    @property
    def pair(self) -> tuple[str, int]:
        """The source-to-target pair: (base task, target stage)."""
        return (self.task, self.stage)

    @property
    def cell(self) -> tuple[str, str, str, int]:
        """The unit of Pass@k: (method, model, task, stage); its runs are the k independent tries."""
        return (self.method, self.model, self.task, self.stage)

    @property
    def key(self) -> tuple[str, str, str, int, int]:
        return (self.method, self.model, self.task, self.stage, self.run)

    def label(self) -> str:
        return f"{self.method}/{self.model}/{self.task}/stage{self.stage}/run{self.run}"

    # ----- views ---------------------------------------------------------------------------------
    def considered(self, include_attempt0: bool) -> tuple[Attempt, ...]:
        """The non-infra attempts in budget order, with or without attempt 0."""
        return tuple(a for a in self.attempts if not a.infra_error and (include_attempt0 or a.index >= 1))

    @property
    def model_attempts(self) -> tuple[Attempt, ...]:
        return self.considered(include_attempt0=False)

    @property
    def solved(self) -> bool:
        """A model attempt passed (attempt 0 passing would mean the pair is broken; it is not a solve)."""
        return any(a.passed for a in self.model_attempts)

    @property
    def effective_budget(self) -> int:
        """`budget` if the runner gave it, else the last model-attempt index (0 when there is none)."""
        if self.budget is not None:
            return self.budget
        return max((a.index for a in self.model_attempts), default=0)

    def truncated(self, b: int) -> "Trajectory":
        """The run as if its budget had been b model attempts (attempt 0 and infra records kept)."""
        if b < 1:
            raise ValueError("a budget is at least 1 attempt")
        kept = tuple(a for a in self.attempts if a.index <= b)
        cut = len(kept) < len(self.attempts)
        if self.end_reason == "infra":
            end = "infra"  # an unfinished run stays out at every budget, so n does not move with b
        elif any(a.passed for a in kept if a.index >= 1 and not a.infra_error):
            end = "solved"
        else:
            end = "budget" if cut or self.end_reason == "solved" else self.end_reason
        return replace(self, attempts=kept, end_reason=end, budget=b if self.budget is None else min(b, self.budget))

    # ----- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = {"task": self.task, "domain": self.domain, "stage": self.stage, "method": self.method,
             "model": self.model, "run": self.run, "end_reason": self.end_reason, "budget": self.budget,
             "attempts": [a.to_dict() for a in self.attempts], "score_range": list(self.score_range),
             "stages": list(self.stages)}
        if self.meta:
            d["meta"] = self.meta
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Trajectory":
        try:
            return cls(task=str(d["task"]), domain=str(d["domain"]), stage=d["stage"], method=str(d["method"]),
                       model=str(d["model"]), run=d["run"], end_reason=d["end_reason"], budget=d.get("budget"),
                       attempts=tuple(Attempt.from_dict(a) for a in d["attempts"]), meta=dict(d.get("meta") or {}),
                       score_range=tuple(d.get("score_range", LEGACY_SCORE_RANGE)),
                       stages=tuple(d.get("stages", LEGACY_STAGES)))
        except KeyError as exc:
            raise ContractError(f"trajectory record lacks {exc.args[0]!r}") from None


def best_attempt(attempts: Iterable[Attempt]) -> Attempt | None:
    """The highest-scoring valid attempt; ties go to the earliest. None when no attempt is valid."""
    best = None
    for a in attempts:
        if a.valid and (best is None or a.score > best.score):
            best = a
    return best


def best_score(attempts: Iterable[Attempt], floor: float) -> float:
    """The best valid score, or `floor` (a trajectory's `score_floor`) when no attempt has one."""
    b = best_attempt(attempts)
    return floor if b is None else b.score


def check_group_fields(by: Sequence[str]) -> tuple[str, ...]:
    by = tuple(by)
    bad = [f for f in by if f not in GROUP_FIELDS]
    if bad or len(set(by)) != len(by):
        raise ValueError(f"group fields must be distinct names from {GROUP_FIELDS}, got {by}")
    return by


def group_key(traj: Trajectory, by: Sequence[str]) -> tuple:
    """The values of the `by` fields for a trajectory (empty tuple = everything pooled)."""
    return tuple(getattr(traj, f) for f in by)


def check_unique(trajectories: Sequence[Trajectory]) -> None:
    """Raise when two trajectories share (method, model, task, stage, run) or a task has two domains."""
    seen: set[tuple] = set()
    domains: dict[str, str] = {}
    for t in trajectories:
        if t.key in seen:
            raise ContractError(f"duplicate trajectory {t.label()}")
        seen.add(t.key)
        if domains.setdefault(t.task, t.domain) != t.domain:
            raise ContractError(f"task {t.task} appears in domains {domains[t.task]!r} and {t.domain!r}")


def load_trajectories(path: str | Path) -> list[Trajectory]:
    """Read a JSONL file of trajectories (blank lines skipped; a bad line raises with its number)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append(Trajectory.from_dict(json.loads(line)))
            except (json.JSONDecodeError, ContractError, TypeError) as exc:
                raise ContractError(f"{path}:{no}: {exc}") from None
    check_unique(out)
    return out


def dump_trajectories(trajectories: Iterable[Trajectory], path: str | Path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for t in trajectories:
            fh.write(json.dumps(t.to_dict(), sort_keys=True) + "\n")
