"""The egg must be caught, never feel more than the allowed deceleration, stay in the cradle and
settle there."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import ZONE_HALF

G0 = 9.81  # the unit of the impact limit ("g"): standard gravity, whatever gravity does here


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.egg = world.egg
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.impact_limit = env["impact_limit"]
        self.box_top = env["zone_height"] + 1.0
        v = self.egg.linearVelocity
        self.prev = (v.x, v.y)
        self.peak = 0.0
        self.peak_step = 0
        self.over_step = None
        self.caught_step = None
        self.escape_step = None
        self.ground_step = None
        self.fast_since = 0
        self.max_late_speed = 0.0
        self.impact_speed = None
        self.settle_speed = env["settle_speed"]

    def tick(self, step: int) -> bool:
        egg = self.egg
        v = egg.linearVelocity
        vx, vy = v.x, v.y
        # proper acceleration: what the egg feels, gravity taken out (the pulse of the step just taken)
        g = self.world.gravity_at(step - 1)
        ax = (vx - self.prev[0]) * 60.0
        ay = (vy - self.prev[1]) * 60.0 + g
        before = self.prev
        self.prev = (vx, vy)
        felt = math.hypot(ax, ay) / G0
        if felt > self.peak:
            self.peak, self.peak_step = felt, step
            if felt > self.impact_limit and self.over_step is None:
                self.over_step = step
                self.sim.event("failure", f"the egg felt {felt:.1f} g, more than the {self.impact_limit:g} g it "
                                          "survives", step)
        p = egg.position
        touching = [e.other for e in egg.contacts if e.contact.touching]
        if touching and self.caught_step is None:
            self.caught_step = step
            self.impact_speed = math.hypot(*before)
            what = "the ground" if self.sim.ground in touching else "the cradle"
            self.sim.event("contact", f"the egg lands on {what} at x = {p.x:.2f} m, y = {p.y:.2f} m", step)
        if self.sim.ground in touching and self.ground_step is None:
            self.ground_step = step
            self.sim.event("failure", "the egg touches the bare ground", step)
        if self.caught_step is not None and self.escape_step is None:
            if abs(p.x) > ZONE_HALF or p.y > self.box_top:
                self.escape_step = step
                self.sim.event("failure", f"the egg left the cradle (x = {p.x:.2f} m, y = {p.y:.2f} m)", step)
        speed = math.hypot(vx, vy)
        if step > self.limit_steps - self.success.rule.steps:
            self.max_late_speed = max(self.max_late_speed, speed)
        held = (self.caught_step is not None and self.ground_step is None and self.escape_step is None
                and speed <= self.settle_speed)
        self.success.update(step, held)
        return step >= self.limit_steps or self.escape_step is not None and step > self.escape_step + 60

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        p = self.egg.position
        caught = self.caught_step is not None and self.ground_step is None
        settled = self.success.conclude(sim.steps >= self.limit_steps)
        constraints = [
            Constraint("egg_intact", f"the egg never feels more than {self.impact_limit:g} g",
                       passed=self.over_step is None, value=round(self.peak, 3), limit=self.impact_limit, unit="g",
                       step=self.over_step),
            Constraint("egg_contained", "once caught, the egg stays over the cradle zone and never touches the bare "
                                        "ground", passed=self.escape_step is None and self.ground_step is None,
                       value=float((self.escape_step is not None) + (self.ground_step is not None)), limit=0.0,
                       unit="escapes", step=self.escape_step if self.escape_step is not None else self.ground_step),
            Constraint("cradle_intact", "no joint of the cradle breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None),
        ]
        failure = None
        for st, why in ((self.over_step, "the egg was decelerated too hard"),
                        (self.escape_step, "the egg was thrown out of the cradle"),
                        (self.ground_step, "the egg hit the bare ground"),
                        (broken[0].broken_step if broken else None, "a joint of the cradle broke")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not settled and failure is None:
            if self.caught_step is None:
                failure = (sim.steps, "the egg was never caught")
            else:
                failure = (sim.steps, f"the egg did not settle: it still moved at up to {self.max_late_speed:.2f} m/s "
                                      "in the last second")
        progress = 0.0
        if self.caught_step is not None:
            progress = 0.5 + 0.5 * max(0.0, 1.0 - self.max_late_speed / 5.0)
        return Outcome(goal_met=settled, progress=progress,
                       goal=(f"egg at x = {p.x:.2f} m, y = {p.y:.2f} m, moving at up to {self.max_late_speed:.2f} m/s "
                             f"in the last second (settled: at most {self.settle_speed:g} m/s)"),
                       constraints=constraints, failure=failure,
                       terminal={"x": round(p.x, 3), "y": round(p.y, 3),
                                 "speed": round(self.egg.linearVelocity.length, 3),
                                 "late_speed": round(self.max_late_speed, 3), "peak_g": round(self.peak, 3),
                                 "peak_step": self.peak_step, "caught_step": self.caught_step,
                                 "impact_speed": None if self.impact_speed is None else round(self.impact_speed, 3)})
