"""What a suite declares beside its interface: its run protocol, its score scale, and the optional
capabilities a caller may look for (each a small runtime-checkable Protocol).

A caller that needs a capability asks for it (`isinstance(suite, Exports)` or `capabilities(suite)`)
instead of guessing from attribute names; a suite that lacks it says so by not having its members.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.records import RoundRecord
from simreflect.core.task import Task

#: What an agent is shown of earlier rounds (run/history.py): every round, the last and the best as
#: chat pairs, or PACE's Previous-One + Best revision prompt.
HISTORY_MODES = ("full", "last+best", "previous+best")


@dataclass(frozen=True)
class RunProtocol:
    """How a run of the suite goes unless the run says otherwise."""

    #: Rounds (or verified attempts) an agent gets per task.
    budget: int = 1
    #: Independent runs per task (Pass@k needs k of them).
    runs: int = 1
    #: What an agent is shown of earlier rounds: every round (full) or the last and the best.
    history: str = "full"
    #: Invalid generations in a row that end an episode (0: never).
    invalid_streak: int = 0
    #: PACE's generation retries: an answer with no program is asked again this many times at no
    #: cost to the budget; when every one of them holds none, the episode ends (0: no retries).
    invalid_retries: int = 0
    #: The evidence levels a run covers (each level is its own condition).
    levels: tuple[str, ...] = ("L1", "L2", "L3")
    #: Seconds an agent's program may run in one round (the suite's own program timeout).
    timeout_s: float = 60.0

    def __post_init__(self) -> None:
        if (self.budget < 1 or self.runs < 1 or self.invalid_streak < 0 or self.invalid_retries < 0
                or not self.timeout_s > 0):
            raise ValueError(f"a run protocol needs budget >= 1, runs >= 1, invalid_streak >= 0, timeout_s > 0: {self}")
        if self.history not in HISTORY_MODES:
            raise ValueError(f"history must be one of {HISTORY_MODES}, not {self.history!r}")
        if not self.levels or any(lv not in ("L1", "L2", "L3") for lv in self.levels):
            raise ValueError(f"levels must be a non-empty subset of L1, L2, L3, not {self.levels!r}")

    def describe(self) -> str:
        """One line for help texts: the defaults a run gets."""
        streak = f", {self.invalid_streak} invalid in a row end an episode" if self.invalid_streak else ""
        if self.invalid_retries:
            streak += f", an answer without a program asked again {self.invalid_retries} times at no cost"
        return (f"{self.budget} round{'s' if self.budget != 1 else ''}, {self.runs} run{'s' if self.runs != 1 else ''}"
                f" per task, history {self.history}, levels {','.join(self.levels)}{streak}")


@dataclass(frozen=True)
class ScoreScale:
    """What a verdict's score and reward mean for a suite: their ranges, and the map of a reward to
    [0, 1] (0 the suite's lowest reward, which is also what a crashed attempt earns; 1 a pass)."""

    score_low: float
    score_high: float
    reward_low: float
    reward_high: float
    #: What a score counts (for tables and help), e.g. "checks passed / 7".
    meaning: str

    def __post_init__(self) -> None:
        for low, high in ((self.score_low, self.score_high), (self.reward_low, self.reward_high)):
            if not (math.isfinite(low) and math.isfinite(high) and low < high):
                raise ValueError(f"a score scale needs finite low < high: {self}")

    def score_in_range(self, score: float) -> bool:
        return isinstance(score, (int, float)) and math.isfinite(score) and self.score_low <= score <= self.score_high

    def reward_in_range(self, reward: float) -> bool:
        return isinstance(reward, (int, float)) and math.isfinite(reward) and self.reward_low <= reward <= self.reward_high

    def unit_reward(self, reward: float) -> float:
        """The reward on [0, 1]; a reward outside the declared range is a defect of the suite."""
        if not self.reward_in_range(reward):
            raise ValueError(f"reward {reward!r} outside the declared [{self.reward_low}, {self.reward_high}]")
        return (float(reward) - self.reward_low) / (self.reward_high - self.reward_low)


# ----- optional capabilities -------------------------------------------------------------------------

@runtime_checkable
class Exports(Protocol):
    """Tasks can be written out and read back elsewhere (Harbor export, `simreflect check`)."""

    #: The file name under which an agent's program is delivered when a task is exported.
    program_filename: str

    def save_task(self, task: Task, dest: Path) -> None:
        """Write what `load_task` needs to rebuild the task elsewhere (hidden parts included)."""

    def load_task(self, path: Path) -> Task:
        """The task saved by `save_task` in `path`."""


@runtime_checkable
class SourcePrograms(Protocol):
    """Tasks start from a working program the agent adapts (param-search tunes its numbers)."""

    def source_program(self, task: Task) -> str:
        """The program the workspace starts from."""


@runtime_checkable
class AttemptBudget(Protocol):
    """An attempt-budget protocol (Pass@k, Score@k, taxonomy): the trajectory contract of
    simreflect.analysis.trajectory."""

    #: The stage numbers a task's trajectory may carry.
    stages: tuple[int, ...]

    def trajectory_fields(self, task: Task) -> dict:
        """The task's {"domain", "stage"} in the trajectory contract."""

    def attempt_flags(self, verdict: dict) -> dict[str, bool]:
        """Simulator flags of one verified attempt (constraint_violation, structural_failure,
        numerical_instability), read from a recorded verdict; never inferred from a score."""


@runtime_checkable
class EpisodeFlags(Protocol):
    """Flags a suite raises on an episode from its round records (e.g. audit's verify_gain)."""

    def episode_flags(self, rounds: Sequence[RoundRecord]) -> list[str]: ...


@runtime_checkable
class VolatileDiagnostics(Protocol):
    """Keys of a verdict's diagnostics that describe the run rather than judge it (wall time, raw
    output): `rescore` and `simreflect check` do not expect them to repeat."""

    volatile_diagnostics: tuple[str, ...]


@runtime_checkable
class BaselineAgent(Protocol):
    """An honest non-model repair baseline (an object with `act`), or None when the configured
    suite has none (gait's blender interface)."""

    def baseline_agent(self) -> Any: ...


@runtime_checkable
class Pictures(Protocol):
    """A picture or video of a task's starting state (GIF, MP4 or PNG), if the suite made one."""

    def picture(self, task: Task) -> Path | None: ...


@runtime_checkable
class AttemptPictures(Protocol):
    """A picture (GIF, MP4 or PNG) of what an agent's program produced, written to `dest`.

    `programs` are the accepted programs of the episode's earlier rounds in order, then the round's
    own: the suite replays what its workspace needs (pace evaluates the last alone; gait runs each on
    the rig the one before left). Every program runs as a round's does (in the sandbox, each within
    `timeout_s`). Returns the path written, or None when there is nothing to draw (the program did
    not run, its artefact was rejected)."""

    def attempt_picture(self, task: Task, programs: Sequence[str], dest: Path, timeout_s: float) -> Path | None: ...


@runtime_checkable
class InteractiveEpisodes(Protocol):
    """The suite can be played as interactive sessions (core.interactive): one attempt is one live
    session a model drives with the tools in `interactive_tools` (of http, python, submit, finish) until
    it finishes or a budget ends it. `open_world` gives the task's session in directory `base` at
    evidence level `level` (what the session's reports show; a core.interactive.World; restored from
    what it recorded there when the session is resumed, its wall clock going on from `wall_used_s`);
    `grade_world` the verdict of the world's final state;
    `interactive_instruction` the opening message (what to build, the interface);
    `interactive_oracle` the reference driving the session through tool calls (a TurnAgent)."""

    interactive_tools: tuple[str, ...]

    def open_world(self, task: Task, base: Path, level: EvidenceLevel, wall_used_s: float = 0.0) -> Any: ...

    def grade_world(self, task: Task, world: Any) -> Any: ...

    def interactive_instruction(self, task: Task) -> str: ...

    def interactive_oracle(self, task: Task) -> Any: ...


@dataclass(frozen=True)
class BrokenTask:
    """A task of a tasks directory that does not load, and why (the other tasks still run)."""

    id: str
    reason: str


@runtime_checkable
class BrokenTasks(Protocol):
    """Tasks are hand-written folders, each of which may fail to load on its own: `load_tasks` leaves
    a broken one out (with a warning) and this names it with its reason."""

    def broken_tasks(self, root: Path | None = None) -> tuple[BrokenTask, ...]: ...


CAPABILITIES: dict[str, type] = {
    "export": Exports, "source-programs": SourcePrograms, "attempt-budget": AttemptBudget,
    "episode-flags": EpisodeFlags, "volatile-diagnostics": VolatileDiagnostics, "baseline-agent": BaselineAgent,
    "pictures": Pictures, "attempt-pictures": AttemptPictures, "interactive": InteractiveEpisodes, "broken-tasks": BrokenTasks,
}


def capabilities(suite: object) -> tuple[str, ...]:
    """The names of the optional capabilities `suite` has, in CAPABILITIES order."""
    return tuple(name for name, proto in CAPABILITIES.items() if isinstance(suite, proto))


def value_texts(value: Any, digits: tuple[int, ...] = (6, 4)) -> tuple[str, ...]:
    """How a hidden number may appear in a text (repr, and rounded to each of `digits` significant
    digits), keeping only renderings with at least three digits: shorter ones occur in any text by chance."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return ()
    forms = {repr(value)} if isinstance(value, int) else {repr(float(value)), *(f"{value:.{d}g}" for d in digits)}
    return tuple(sorted(f for f in forms if sum(ch.isdigit() for ch in f) >= 3))


#: Characters either side of a hidden value within which one of its `near` words must appear.
NEAR_CHARS = 80


@dataclass(frozen=True)
class HiddenValue:
    """A hidden value as it could appear in a text: any of `texts` as a whole number (not inside a
    longer one); with `near` (e.g. the variable's name), only when one of those words is within
    NEAR_CHARS of it, so a round number that a text holds for another reason is not taken for it."""

    texts: tuple[str, ...]
    near: tuple[str, ...] = ()

    def shown_in(self, text: str) -> str | None:
        """The rendering `text` shows, or None."""
        lowered = text.lower()
        for value in self.texts:
            for m in re.finditer(rf"(?<![\d.]){re.escape(value)}(?![\d])", text):
                around = lowered[max(0, m.start() - NEAR_CHARS):m.end() + NEAR_CHARS]
                if not self.near or any(w.lower() in around for w in self.near):
                    return value
        return None


def volatile_keys(suite: object) -> tuple[str, ...]:
    """The suite's volatile diagnostic keys (none when it declares none)."""
    return tuple(suite.volatile_diagnostics) if isinstance(suite, VolatileDiagnostics) else ()
