"""The cart must reach the far cliff; the bridge must hold and the cart must stay on it, upright."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator


FALL_Y = -1.0
TILT_DEG = 30.0
GOAL_PAST_EDGE = 3.0


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.goal_x = env["gap_width"] + GOAL_PAST_EDGE
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.start_x = world.chassis.position.x
        self.best_x = self.start_x
        self.min_y = world.chassis.position.y
        self.max_tilt = 0.0
        self.fell_step = None
        self.tilt_step = None
        self.goal_step = None
        self.on_deck = False
        self.left_ground_step = None

    def tick(self, step: int) -> bool:
        c = self.world.chassis
        p = c.position
        x, y = p.x, p.y
        if x > self.best_x:
            self.best_x = x
        if y < self.min_y:
            self.min_y = y
        tilt = abs(math.degrees(c.angle))
        if tilt > self.max_tilt:
            self.max_tilt = tilt
            if tilt > TILT_DEG and self.tilt_step is None:
                self.tilt_step = step
                self.sim.event("failure", f"the cart tilted past {TILT_DEG:g} degrees ({tilt:.0f})", step)
        if not self.on_deck and x > 0.0:
            self.on_deck = True
            self.sim.event("phase", "the cart's centre passes the near edge of the ravine", step)
        if y < FALL_Y and self.fell_step is None:
            self.fell_step = step
            self.sim.event("failure", f"the cart dropped below y = {FALL_Y:g} m (x = {x:.2f} m): it fell", step)
        hold = self.success
        reached = x >= self.goal_x
        if reached and hold.first_step is None and step <= self.limit_steps:
            self.sim.event("phase", f"the cart reaches x = {self.goal_x:g} m on the far cliff", step)
        if hold.update(step, reached, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the cart has stayed past x = {self.goal_x:g} m on the far cliff"
                                   f" for {hold.rule.seconds:g} s", step)
        if self.goal_step is not None or (step >= self.limit_steps and not hold.running):
            return True
        return self.fell_step is not None and y < -6.0

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        p = self.world.chassis.position
        span = self.goal_x - self.start_x
        progress = max(0.0, min(1.0, (self.best_x - self.start_x) / span))
        constraints = [
            Constraint("structure_intact", "no joint of the bridge breaks", passed=not broken,
                       value=float(len(broken)), limit=0.0, unit="broken joints",
                       step=broken[0].broken_step if broken else None,
                       detail=(f"first: {broken[0].id} at step {broken[0].broken_step} ({broken[0].broken_by})"
                               if broken else "")),
            Constraint("cart_not_fallen", "the cart stays above the road level minus 1 m", passed=self.fell_step is None,
                       value=round(self.min_y, 3), limit=FALL_Y, unit="m", sense=">=", step=self.fell_step),
            Constraint("cart_upright", f"the cart never tilts more than {TILT_DEG:g} degrees",
                       passed=self.tilt_step is None, value=round(self.max_tilt, 2), limit=TILT_DEG, unit="deg",
                       step=self.tilt_step),
        ]
        failure = None
        if broken:
            failure = (broken[0].broken_step, f"joint {broken[0].id} of the bridge broke ({broken[0].broken_by})")
        for st, why in ((self.fell_step, "the cart fell into the ravine"),
                        (self.tilt_step, "the cart tipped over")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        goal_met = self.goal_step is not None
        if not goal_met and failure is None:
            failure = (sim.steps, self.success.not_held(f"x = {self.goal_x:g} m")
                       or f"time ran out with the cart at x = {self.best_x:.2f} m (goal x >= {self.goal_x:g} m)")
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"cart reached x = {self.best_x:.2f} m (goal x >= {self.goal_x:g} m)",
                       constraints=constraints, failure=failure,
                       terminal={"cart_x": round(p.x, 3), "cart_y": round(p.y, 3),
                                 "cart_tilt_deg": round(math.degrees(self.world.chassis.angle), 2),
                                 "cart_speed": round(self.world.chassis.linearVelocity.length, 3),
                                 "best_x": round(self.best_x, 3), "lowest_y": round(self.min_y, 3),
                                 "goal_x": self.goal_x, "broken_joints": len(broken)})
