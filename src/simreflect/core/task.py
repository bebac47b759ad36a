"""Task: one seeded, reproducible problem of a suite.

`params` is what the agent may see; `hidden` is ground truth only the verifier and the oracle see.
Rebuilding a task from its suite and seed gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Task:
    id: str
    suite: str
    seed: int
    params: dict[str, Any] = field(default_factory=dict)
    hidden: dict[str, Any] = field(default_factory=dict)
    budget: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "suite": self.suite,
            "seed": self.seed,
            "budget": self.budget,
            "params": self.params,
            "hidden": self.hidden,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Task:
        return cls(
            id=str(d["id"]),
            suite=str(d["suite"]),
            seed=int(d["seed"]),
            params=dict(d.get("params", {})),
            hidden=dict(d.get("hidden", {})),
            budget=int(d.get("budget", 1)),
        )
