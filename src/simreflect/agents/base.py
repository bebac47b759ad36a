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
from simreflect.core.records import RoundRecord
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict


class InfrastructureError(RuntimeError):
    """The agent could not be asked (not the agent's fault): never scored, retried on resume."""


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0  # requests sent (retries included)
    latency_s: float = 0.0
    cached: bool = False
    aux_calls: int = 0  # auxiliary model calls (reviews, reflections), counted apart from the attempt

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                     self.calls + other.calls, self.latency_s + other.latency_s, self.cached and other.cached,
                     self.aux_calls + other.aux_calls)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens, "calls": self.calls, "latency_s": round(self.latency_s, 4),
                "cached": self.cached, "aux_calls": self.aux_calls}


@dataclass(frozen=True)
class Observation:
    task: Task
    level: EvidenceLevel
    round: int  # 1-based
    budget: int
    messages: tuple[dict[str, str], ...]  # the exact chat shown to the agent
    verdict: Verdict  # the current verdict, structured (baselines may read it)
    # every earlier round of this episode, as the store records it (core.records.RoundRecord: its
    # script, score, acceptance, errors, diagnosis, the method_notes a method recorded, the report it
    # showed); methods and search baselines rebuild their state from it, so a resumed run continues exactly
    history: tuple[RoundRecord, ...] = ()
    run: int = 0  # which of the run's independent repetitions this episode is
    report: str = ""  # the verifier report this round shows (the last message of `messages` ends with it)
    # how many times this round's answer was asked again because it held no program (PACE's
    # generation retries); a model agent sends it as the request's seed offset so a retry is a new draw
    generation: int = 0
    # the video-feedback intervention: PNG frames of the latest attempt's run, which a model agent
    # sends with the last user message as image content (the chat in `messages` stays text)
    images: tuple[bytes, ...] = ()


@dataclass(frozen=True)
class Action:
    """What the agent answered. `program` is None when no program could be found in the answer."""

    program: str | None
    diagnosis: str = ""
    raw: str = ""
    usage: Usage = field(default_factory=Usage)
    error: str = ""  # why no program could be read from the answer
    messages: tuple[dict[str, str], ...] | None = None  # the chat actually sent, when a method changed it
    notes: dict[str, Any] = field(default_factory=dict)  # what a method did (e.g. a reviewer's advice)


class Agent(Protocol):
    name: str

    def act(self, observation: Observation) -> Action: ...
