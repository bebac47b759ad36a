"""The cargo must reach the landing dry; the boat must hold together."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import GOAL_X

WET_FRACTION = 0.1  # the cargo counts as wet once this share of its area is under the water
CHECK_EVERY = 3


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.w = world
        self.cargo = world.cargo
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.start_x = self.cargo.position.x
        self.best_x = self.start_x
        parts = list(sim.design.parts) if sim.design else []
        heaviest = max(parts, key=lambda p: p.mass, default=None)
        self.hull = sim.parts[heaviest.id] if heaviest is not None else None
        self.hull_id = heaviest.id if heaviest is not None else ""
        self.hull_a0 = self.hull.angle if self.hull is not None else 0.0
        self.max_tilt = 0.0
        self.max_wet = 0.0
        self.wet_step = None
        self.goal_step = None
        self.max_cargo_tilt = 0.0
        self.milestones = [(GOAL_X / 2, f"the cargo passes x = {GOAL_X / 2:g} m, half way")]

    def tick(self, step: int) -> bool:
        if step % CHECK_EVERY and step < self.limit_steps:
            return False
        c = self.cargo.position
        self.best_x = max(self.best_x, c.x)
        frac = self.w.cargo_sub / self.w.cargo_area
        self.max_wet = max(self.max_wet, frac)
        if self.hull is not None:
            tilt = abs(math.degrees(math.remainder(self.hull.angle - self.hull_a0, 2 * math.pi)))
            self.max_tilt = max(self.max_tilt, tilt)
        self.max_cargo_tilt = max(self.max_cargo_tilt, abs(math.degrees(math.remainder(self.cargo.angle, 2 * math.pi))))
        while self.milestones and c.x >= self.milestones[0][0]:
            self.sim.event("phase", self.milestones.pop(0)[1], step)
        if frac > WET_FRACTION and self.wet_step is None:
            self.wet_step = step
            self.sim.event("failure", f"the cargo is in the water ({100 * frac:.0f}% of it submerged)", step)
        hold = self.success
        reached = c.x >= GOAL_X and self.wet_step is None
        if reached and hold.first_step is None and step <= self.limit_steps:
            self.sim.event("phase", f"the cargo reaches the landing (x = {GOAL_X:g} m) dry", step)
        if hold.update(step, reached, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the cargo has stayed on the landing (past x = {GOAL_X:g} m) dry"
                                   f" for {hold.rule.seconds:g} s", step)
        return (self.goal_step is not None or self.wet_step is not None
                or (step >= self.limit_steps and not hold.running))

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        c = self.cargo.position
        constraints = [
            Constraint("cargo_dry", f"never more than {100 * WET_FRACTION:g}% of the cargo under the water",
                       passed=self.wet_step is None, value=round(100 * self.max_wet, 2), limit=100 * WET_FRACTION,
                       unit="% submerged", step=self.wet_step),
            Constraint("boat_intact", "no joint of the boat breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step} ({broken[0].broken_by})"
                       if broken else ""),
        ]
        failure = None
        for st, why in ((broken[0].broken_step if broken else None, f"joint {broken[0].id} of the boat broke"
                         if broken else ""), (self.wet_step, "the cargo went into the water")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        goal_met = self.goal_step is not None and not broken
        if not goal_met and failure is None:
            failure = (sim.steps, self.success.not_held(f"the landing (x = {GOAL_X:g} m)")
                       or f"time ran out with the cargo at x = {self.best_x:.2f} m (landing at x = {GOAL_X:g} m)")
        span = GOAL_X - self.start_x
        progress = max(0.0, min(1.0, (self.best_x - self.start_x) / span)) if span > 0 else 0.0
        hull_y = hull_tilt = 0.0
        if self.hull is not None:
            hull_y = self.hull.position.y
            hull_tilt = math.degrees(math.remainder(self.hull.angle - self.hull_a0, 2 * math.pi))
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"cargo reached x = {self.best_x:.2f} m (landing at x >= {GOAL_X:g} m)"
                            + ("" if self.wet_step is None else ", but went into the water"),
                       constraints=constraints, failure=failure,
                       terminal={"cargo_x": round(c.x, 3), "cargo_y": round(c.y, 3), "best_x": round(self.best_x, 3),
                                 "cargo_speed": round(self.cargo.linearVelocity.length, 3),
                                 "max_wet_pct": round(100 * self.max_wet, 2), "max_tilt": round(self.max_tilt, 2),
                                 "max_cargo_tilt": round(self.max_cargo_tilt, 2), "hull": self.hull_id,
                                 "hull_y": round(hull_y, 3), "hull_tilt": round(hull_tilt, 2),
                                 "time": round(sim.steps / 60.0, 3)})
