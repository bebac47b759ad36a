"""The return of a multi-attempt episode: the discounted best attempt, which cannot be farmed.

An attempt's reward is its own verdict's reward; an attempt whose program did not run to the end
(a crash, a timeout, no program in the answer) earns the suite's crash reward, its lowest reward
(`Suite.crash_reward`). The episode return of attempts r_1 .. r_T is

    R = max over t of  floor + gamma**(t - 1) * (r_t - floor)

with floor the crash reward and gamma in (0, 1]. A repeat of the same partial result earns nothing
more (a maximum, not a sum); a crash earns nothing above the floor; a later success earns less than
the same success earlier. With a solve earning the suite's top reward, no sequence of attempts
returns more than a solve on the first attempt, and with gamma < 1 only that sequence returns it.

`increments` are the per-step rewards whose sum is R (R after each attempt minus R before it, 0
before the first): what the environment hands a learner that sums step rewards.

The default gamma comes from the budget B: gamma = LAST_ROUND_SHARE ** (1 / (B - 1)), so a solve in
the last round of any budget keeps LAST_ROUND_SHARE of a first-round solve's margin above the floor
(gait and audit, B = 3: 1, 0.894, 0.8; pace, B = 20: 0.988 per attempt). A fixed gamma would make
the twentieth attempt of pace worth 0.9 ** 19 = 0.14 of the first, below the partial progress of the
unchanged source design, and teach a policy to stop repairing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

LAST_ROUND_SHARE = 0.8


def budget_discount(budget: int) -> float:
    """The default gamma for an episode of `budget` attempts (1.0 for a single attempt)."""
    if budget < 1:
        raise ValueError(f"a budget is at least one attempt, got {budget}")
    return 1.0 if budget == 1 else LAST_ROUND_SHARE ** (1.0 / (budget - 1))


@dataclass(frozen=True)
class ReturnRule:
    """How an episode's attempt rewards make its return (see the module docstring)."""

    floor: float  # the crash reward: the lowest reward an attempt earns
    discount: float  # gamma, in (0, 1]

    def __post_init__(self) -> None:
        if not math.isfinite(self.floor):
            raise ValueError(f"the floor must be finite, got {self.floor!r}")
        if not 0.0 < self.discount <= 1.0:
            raise ValueError(f"the discount must be in (0, 1], got {self.discount!r}")

    def credit(self, reward: float, attempt: int) -> float:
        """What attempt number `attempt` (1-based) earning `reward` is worth."""
        if not math.isfinite(reward):
            raise ValueError(f"attempt {attempt}: reward {reward!r} is not finite")
        # the share lost is subtracted, so that the first attempt is worth its reward exactly
        return reward - (1.0 - self.discount ** (attempt - 1)) * (reward - self.floor)

    def of(self, rewards: Sequence[float]) -> float:
        """The episode return of these attempt rewards (0.0 before the first attempt)."""
        if not rewards:
            return 0.0
        return max(self.credit(float(r), t) for t, r in enumerate(rewards, start=1))

    def increments(self, rewards: Sequence[float]) -> list[float]:
        """Per-attempt rewards that sum to `of(rewards)`: each attempt's change of the return."""
        out, before = [], 0.0
        for t in range(1, len(rewards) + 1):
            now = self.of(rewards[:t])
            out.append(now - before)
            before = now
        return out
