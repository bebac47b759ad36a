"""The agent interface: an observation in, an action (a diagnosis and a program) out.

`Observation.messages` is the exact chat the agent is shown (system prompt first); baselines that
need no model may also read the task and the structured verdict. An agent signals a failure of the
infrastructure (endpoint down, rate limited after retries) by raising `InfrastructureError`: the
loop records it apart, and a resumed run tries that round again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict


class InfrastructureError(RuntimeError):
    """The agent could not be asked (not the agent's fault): never scored, retried on resume."""


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    latency_s: float = 0.0
    cached: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens, "calls": self.calls, "latency_s": round(self.latency_s, 4),
                "cached": self.cached}


@dataclass(frozen=True)
class Observation:
    task: Task
    level: EvidenceLevel
    round: int  # 1-based
    budget: int
    messages: tuple[dict[str, str], ...]  # the exact chat shown to the agent
    verdict: Verdict  # the current verdict, structured (baselines may read it)


@dataclass(frozen=True)
class Action:
    """What the agent answered. `program` is None when no program could be found in the answer."""

    program: str | None
    diagnosis: str = ""
    raw: str = ""
    usage: Usage = field(default_factory=Usage)
    error: str = ""  # why no program could be read from the answer


class Agent(Protocol):
    name: str

    def act(self, observation: Observation) -> Action: ...
