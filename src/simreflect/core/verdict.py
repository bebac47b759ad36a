"""Checks and verdicts: what a verifier says about one artefact.

A Check is one rule with its measured value, its limit and where it failed. A Verdict gathers the
checks of one verification; it passes only when every check passes. Both serialise to plain JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Detail:
    """One piece of evidence attached to a check, shown from evidence level `level` upward (1-3)."""

    level: int
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "text": self.text, "data": self.data}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Detail:
        return cls(level=int(d["level"]), text=str(d["text"]), data=dict(d.get("data", {})))


@dataclass(frozen=True)
class Check:
    """The outcome of one rule.

    `value` is the worst measured value, `limit` the threshold it is compared with (both in the
    units named by `unit`), `where` locates the failure (frames, bones, vertex indices, bodies,
    timestamps ...), `details` carry level-tagged evidence for the report.
    """

    name: str
    passed: bool
    value: float | None = None
    limit: str = ""
    unit: str = ""
    message: str = ""
    where: dict[str, Any] = field(default_factory=dict)
    details: tuple[Detail, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "value": self.value,
            "limit": self.limit,
            "unit": self.unit,
            "message": self.message,
            "where": self.where,
            "details": [d.to_dict() for d in self.details],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Check:
        return cls(
            name=str(d["name"]),
            passed=bool(d["passed"]),
            value=None if d.get("value") is None else float(d["value"]),
            limit=str(d.get("limit", "")),
            unit=str(d.get("unit", "")),
            message=str(d.get("message", "")),
            where=dict(d.get("where", {})),
            details=tuple(Detail.from_dict(x) for x in d.get("details", [])),
        )


@dataclass(frozen=True)
class Verdict:
    """All checks of one verification, plus the numbers a run records.

    `passed` is true only when there is at least one check and every check passed; an artefact the
    verifier could not read at all gets a verdict with `invalid` set and no passing checks.
    """

    checks: tuple[Check, ...]
    score: float
    reward: float
    invalid: str = ""
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.invalid and bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def errors(self) -> list[str]:
        """Names of the failed checks (plus 'invalid_artefact' when the artefact was unreadable)."""
        names = [c.name for c in self.checks if not c.passed]
        return (["invalid_artefact"] + names) if self.invalid else names

    def check(self, name: str) -> Check:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(f"no check named {name!r}; checks are {[c.name for c in self.checks]}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "errors": self.errors,
            "score": self.score,
            "reward": self.reward,
            "invalid": self.invalid,
            "checks": [c.to_dict() for c in self.checks],
            "diagnostics": self.diagnostics,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verdict:
        return cls(
            checks=tuple(Check.from_dict(c) for c in d.get("checks", [])),
            score=float(d["score"]),
            reward=float(d["reward"]),
            invalid=str(d.get("invalid", "")),
            diagnostics=dict(d.get("diagnostics", {})),
        )

    @classmethod
    def invalid_artefact(cls, reason: str, score: float = 0.0, reward: float = 0.0) -> Verdict:
        """The verdict for an artefact that could not be read or broke the task's structure."""
        return cls(checks=(), score=score, reward=reward, invalid=reason)
