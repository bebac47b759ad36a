"""The rover's centre of mass must reach the far side of the ditch; it must not flip or break."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import CURB_X, DITCH_X, GOAL_X

TILT_DEG = 60.0


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        design = sim.design
        self.bodies = [(sim.parts[p.id], p.mass) for p in design.parts]
        frame = [p for p in design.parts if p.kind != "wheel"] or list(design.parts)
        heaviest = max(frame, key=lambda p: p.mass, default=None)
        self.chassis = sim.parts[heaviest.id] if heaviest is not None else None
        self.chassis_id = heaviest.id if heaviest is not None else ""
        self.start_x = self.sim.design_com()[0] if self.bodies else 0.0
        self.best_x = self.start_x
        self.max_tilt = 0.0
        self.tilt_step = None
        self.goal_step = None
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.milestones = [(CURB_X, "the rover's centre of mass passes the curb"),
                           (DITCH_X, "the rover's centre of mass reaches the ditch")]
        self.low_step = None

    def tick(self, step: int) -> bool:
        if not self.bodies:
            return step >= self.limit_steps
        x, y = self.sim.design_com()
        if x > self.best_x:
            self.best_x = x
        while self.milestones and x >= self.milestones[0][0]:
            self.sim.event("phase", self.milestones.pop(0)[1], step)
        tilt = abs(math.degrees(math.remainder(self.chassis.angle, 2 * math.pi)))
        if tilt > self.max_tilt:
            self.max_tilt = tilt
            if tilt > TILT_DEG and self.tilt_step is None:
                self.tilt_step = step
                self.sim.event("failure", f"the chassis ({self.chassis_id}) tilted past {TILT_DEG:g} degrees", step)
        if y < -1.0 and self.low_step is None:
            self.low_step = step
            self.sim.event("failure", f"the rover fell into the ditch (centre of mass at y = {y:.2f} m)", step)
        hold = self.success
        reached = x >= GOAL_X
        if reached and hold.first_step is None and step <= self.limit_steps:
            self.sim.event("phase", f"the rover's centre of mass reaches x = {GOAL_X:g} m", step)
        if hold.update(step, reached, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the rover's centre of mass has stayed past x = {GOAL_X:g} m"
                                   f" for {hold.rule.seconds:g} s", step)
        return (self.goal_step is not None or (step >= self.limit_steps and not hold.running)
                or self.tilt_step is not None)

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        x, y = self.sim.design_com()
        span = GOAL_X - self.start_x
        progress = max(0.0, min(1.0, (self.best_x - self.start_x) / span)) if span > 0 else 0.0
        constraints = [
            Constraint("rover_upright", f"the chassis never tilts more than {TILT_DEG:g} degrees",
                       passed=self.tilt_step is None, value=round(self.max_tilt, 2), limit=TILT_DEG, unit="deg",
                       step=self.tilt_step),
            Constraint("rover_intact", "no pivot of the rover breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step}" if broken else ""),
        ]
        failure = None
        if broken:
            failure = (broken[0].broken_step, f"pivot {broken[0].id} of the rover broke")
        for st, why in ((self.tilt_step, "the rover tipped over"), (self.low_step, "the rover fell into the ditch")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        goal_met = self.goal_step is not None
        if not goal_met and failure is None:
            failure = (sim.steps, self.success.not_held(f"x = {GOAL_X:g} m")
                       or f"time ran out with the rover at x = {self.best_x:.2f} m (goal x >= {GOAL_X:g} m)")
        speed = 0.0
        if self.chassis is not None:
            speed = self.chassis.linearVelocity.length
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"rover's centre of mass reached x = {self.best_x:.2f} m (goal x >= {GOAL_X:g} m)",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(x, 3), "y": round(y, 3), "best_x": round(self.best_x, 3),
                                 "tilt_deg": round(math.degrees(math.remainder(self.chassis.angle, 2 * math.pi)), 2)
                                 if self.chassis is not None else 0.0,
                                 "speed": round(speed, 3), "max_tilt": round(self.max_tilt, 2),
                                 "broken": len(broken), "chassis": self.chassis_id})
