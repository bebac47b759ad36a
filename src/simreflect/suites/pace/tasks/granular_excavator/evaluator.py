"""Count the grains lying in the bin when time is up; the excavator must hold together.

Besides the count, the evaluator notes what a site engineer would: how many grains the machine
carried out of the pit at most (grains more than 0.3 m above ground level, outside the bin), when
the first grain reached the bin, and whether (and where) the machine came to a standstill before
the time was up.
"""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

CHECK_EVERY = 15
LIFT_Y = 0.3  # a grain this high above ground level, outside the bin, is being carried
STILL_SPEED = 0.05  # m/s: a part slower than this is at rest
STILL_STEPS = 60  # at rest this long: the machine has stopped


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.grains = world.grains
        self.n = len(self.grains)
        self.required = int(env["required"])
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.end = self.limit_steps + self.success.rule.steps  # the bin's state at the limit must last this long
        self.parts = [sim.parts[pid] for pid in sim.parts]
        self.peak = 0
        self.first_step = None
        self.carried = 0
        self.carried_step = None
        self.still_since = None
        self.stopped_step = None
        self.stopped_at = None
        self.top = (-1e9, 0)  # the highest a part's centre rose, and when

    def _count(self) -> int:
        return sum(1 for g in self.grains if self.world.in_bin(g))

    def tick(self, step: int) -> bool:
        if step % CHECK_EVERY and step < self.end:
            return False
        k = self._count()
        if k and self.first_step is None:
            self.first_step = step
            self.sim.event("delivery", "the first grain lands in the bin", step)
        self.peak = max(self.peak, k)
        lifted = sum(1 for g in self.grains if g.position.y > LIFT_Y and not self.world.in_bin(g))
        if lifted > self.carried:
            self.carried, self.carried_step = lifted, step
        if self.parts:
            y = max(b.worldCenter.y for b in self.parts)
            if y > self.top[0]:
                self.top = (y, step)
        if self.parts and self.stopped_step is None:
            moving = any(math.hypot(b.linearVelocity.x, b.linearVelocity.y) > STILL_SPEED for b in self.parts)
            if moving:
                self.still_since = None
            elif self.still_since is None:
                self.still_since = step
            elif step - self.still_since >= STILL_STEPS:
                self.stopped_step = self.still_since
                low = min(self.parts, key=lambda b: b.worldCenter.y)
                high = max(self.parts, key=lambda b: b.worldCenter.y)
                self.stopped_at = (round(low.worldCenter.y, 2), round(high.worldCenter.y, 2))
                self.sim.event("standstill", f"the excavator has come to rest (its parts' centres between "
                                             f"y = {self.stopped_at[0]:.2f} and {self.stopped_at[1]:.2f} m)",
                               self.still_since)
        if step >= self.limit_steps:
            self.success.update(step, k >= self.required and not self.sim.broken_joints())
        return step >= self.end

    def finish(self) -> Outcome:
        sim = self.sim
        k = self._count()
        places = [self.world.place_of(g) for g in self.grains]
        outside = {key: places.count(key) for key in ("left", "between", "beyond")}
        broken = sim.broken_joints()
        goal_met = self.success.conclude(sim.steps >= self.end) and k >= self.required and not broken
        constraints = [
            Constraint("excavator_intact", "no joint of the excavator breaks", passed=not broken,
                       value=float(len(broken)), limit=0.0, unit="broken joints",
                       step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step} ({broken[0].broken_by})"
                       if broken else ""),
        ]
        failure = None
        if broken:
            failure = (broken[0].broken_step, "a joint of the excavator broke")
        elif not goal_met:
            failure = (sim.steps, f"only {k} of the required {self.required} grains are in the bin")
        return Outcome(goal_met=goal_met, progress=min(1.0, k / self.required),
                       goal=f"{k} grains in the bin after {sim.steps / 60:.2f} s; at least {self.required} needed",
                       constraints=constraints, failure=failure,
                       terminal={"delivered": k, "required": self.required, "grains": self.n,
                                 "first_step": self.first_step, "carried": self.carried,
                                 "carried_step": self.carried_step, "outside": outside,
                                 "stopped_step": self.stopped_step, "top_y": round(self.top[0], 2), "top_step": self.top[1], "stopped_at": self.stopped_at,
                                 "limit_step": self.limit_steps})
