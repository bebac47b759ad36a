"""How a pace task decides success: a condition held without a break, never one tick.

Every card states its rule (read by `TaskSpec.hold_rule`):

    hold = "reach"    # the condition, once met, must stay met for hold_s without a break
    hold = "end"      # the condition must stay met, without a break, through the last hold_s of the run
    hold = "run"      # the condition must stay met at every check of the whole run, and the run complete
    hold_s = 1.0      # seconds (a number or "env:NAME"); not used by "run"

Each task's evaluator feeds its success condition to one `Hold` (`PaceEvaluator.success`) at its
ticks, and its goal can be met only when that hold is (the evaluation refuses an evaluator that
says otherwise). A hold lasts from the first tick the condition is seen met to the latest tick it
is still met, in steps: a condition seen on a single tick has lasted 0 s, and so a design that
touches its goal for a moment (a climber flung past the height, a ball rolling through a basket)
never succeeds.
"""

from __future__ import annotations

from dataclasses import dataclass

FPS = 60
MODES = ("reach", "end", "run")
#: The shortest hold a card may state (s).
MIN_HOLD_S = 0.5


@dataclass(frozen=True)
class HoldRule:
    """A card's success rule in one environment."""

    until: str  # one of MODES
    seconds: float = 0.0  # reach and end: how long the condition must hold

    def __post_init__(self) -> None:
        if self.until not in MODES:
            raise ValueError(f"hold must be one of {MODES}, not {self.until!r}")
        if self.until != "run" and not self.seconds >= MIN_HOLD_S:
            raise ValueError(f"hold_s must be at least {MIN_HOLD_S:g} s, not {self.seconds!r}")

    @property
    def steps(self) -> int:
        return int(round(self.seconds * FPS))

    def describe(self) -> str:
        if self.until == "reach":
            return f"once met, it holds for {self.seconds:g} s without a break"
        if self.until == "end":
            return f"it holds without a break through the last {self.seconds:g} s of the run"
        return "it holds at every check of the whole run"


class Hold:
    """The success condition of one run (see the module docstring)."""

    def __init__(self, rule: HoldRule):
        self.rule = rule
        self.since: int | None = 0 if rule.until == "run" else None  # first step of the current streak
        self.last: int | None = None  # the latest step the condition was seen (met or not)
        self.first_step: int | None = None  # when the first streak began
        self.best = 0  # the longest streak so far, in steps
        self.met_step: int | None = None
        self.broken_step: int | None = None  # "run": the first check that failed

    @property
    def met(self) -> bool:
        return self.met_step is not None

    @property
    def running(self) -> bool:
        """A streak is under way and not yet complete."""
        return self.since is not None and self.met_step is None

    @property
    def held_steps(self) -> int:
        """How long the current streak has lasted (0 when there is none)."""
        return 0 if self.since is None or self.last is None else max(0, self.last - self.since)

    def update(self, step: int, ok: bool, may_start: bool = True) -> bool:
        """Record the condition at `step` (`may_start=False`: a streak may go on but not begin, as
        after a deadline). Returns whether the goal is met (in "reach" it stays met once it is)."""
        self.last = step
        rule = self.rule
        if not ok:
            if rule.until == "run" and self.broken_step is None and self.met_step is None:
                self.broken_step = step
            self.since = None
        elif self.since is None and may_start and rule.until != "run":
            self.since = step
            if self.first_step is None:
                self.first_step = step
        if self.since is not None:
            held = step - self.since
            self.best = max(self.best, held)
            if rule.until == "reach" and self.met_step is None and held >= rule.steps:
                self.met_step = step
        return self.met

    def conclude(self, run_complete: bool) -> bool:
        """At the end of the run ("end" and "run"): met when the run reached its end with the
        condition unbroken for long enough. Returns whether the goal is met."""
        if self.rule.until == "reach" or self.met_step is not None:
            return self.met
        if run_complete and self.since is not None and self.last is not None:
            if self.rule.until == "run" or self.last - self.since >= self.rule.steps:
                self.met_step = self.last
        return self.met

    def not_held(self, what: str) -> str | None:
        """Why a goal that was reached is not met ("`what` was reached but not held ..."), or None
        when it was never reached (or is met)."""
        if self.met or self.first_step is None:
            return None
        if self.rule.until == "run":
            return f"{what} did not hold throughout the run (broken at step {self.broken_step})"
        where = "through the end of the run" if self.rule.until == "end" else "without a break"
        return f"{what} was reached but not held for {self.rule.seconds:g} s {where} ({self.describe()})"

    def describe(self) -> str:
        """The hold in words, for a task's goal line."""
        if self.rule.until == "run":
            return ("held throughout" if self.since is not None else
                    f"broken at step {self.broken_step}")
        return f"held {self.best / FPS:.2f} s of {self.rule.seconds:g} s"
