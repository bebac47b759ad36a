"""At least the required number of grains must lie in the bin when time runs out; the chute must hold."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import BIN_WALL, OUTLET

CHECK_EVERY = 15


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.grains = world.grains
        self.n = world.n
        self.required = int(env["required"])
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.bin = world.bin
        self.floor = world.floor
        self.first_out = None
        self.first_in = None
        self.goal_step = None
        self.delivered = 0
        self.best = 0

    def census(self) -> dict:
        b0, b1 = self.bin
        oy = OUTLET[1]
        c = {"delivered": 0, "hopper": self.n - len(self.grains), "on_chute": 0, "short": 0, "over": 0,
             "moving": 0}
        for g in self.grains:
            p = g.position
            if p.y > oy - 0.05 and abs(p.x - OUTLET[0]) < 0.5:
                c["hopper"] += 1
            elif b0 < p.x < b1 and self.floor < p.y < self.floor + BIN_WALL:
                c["delivered"] += 1
            elif p.y < 0.35:
                c["short" if p.x < b0 else "over"] += 1
            elif g.linearVelocity.lengthSquared < 0.01:
                c["on_chute"] += 1
            else:
                c["moving"] += 1
        return c

    def tick(self, step: int) -> bool:
        if step % CHECK_EVERY and step < self.limit_steps:
            return False
        c = self.census()
        self.delivered = c["delivered"]
        self.best = max(self.best, self.delivered)
        if self.first_out is None and len(self.grains) == self.n:
            self.first_out = step
            self.sim.event("phase", "the feeder has released its last grain", step)
        if self.first_in is None and self.delivered:
            self.first_in = step
            self.sim.event("phase", "the first grain lands in the bin", step)
        hold = self.success
        reached = self.delivered >= self.required
        if reached and hold.first_step is None and step <= self.limit_steps:
            self.sim.event("phase", f"{self.delivered} grains lie in the bin (required {self.required})", step)
        if hold.update(step, reached, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"at least {self.required} grains have lain in the bin"
                                   f" for {hold.rule.seconds:g} s ({self.delivered} now)", step)
        return self.goal_step is not None or (step >= self.limit_steps and not hold.running)

    def finish(self) -> Outcome:
        sim = self.sim
        c = self.census()
        broken = sim.broken_joints()
        delivered = c["delivered"]
        goal_met = self.goal_step is not None and not broken
        constraints = [
            Constraint("chute_intact", "no joint of the chute breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step} ({broken[0].broken_by})"
                       if broken else ""),
        ]
        failure = (broken[0].broken_step, f"joint {broken[0].id} of the chute broke") if broken else None
        if self.goal_step is None and failure is None:
            failure = (sim.steps, self.success.not_held(f"{self.required} grains in the bin")
                       or f"only {delivered} grains reached the bin in the time allowed (required {self.required})")
        progress = min(1.0, max(delivered, 0) / self.required) if self.required else 1.0
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"{delivered} of {self.n} grains in the bin; at least {self.required} required",
                       constraints=constraints, failure=failure,
                       terminal={**c, "grains": self.n, "required": self.required, "feed_done_step": self.first_out,
                                 "first_in_step": self.first_in, "time": round(sim.steps / 60.0, 3)})
