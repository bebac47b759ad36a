"""The vehicle must cross the river and reach the far land; it must not flip, break or swamp."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

TILT_DEG = 60.0
SWAMP = 0.95  # the chassis counts as under water once this share of it is submerged
STALL_STEPS = 600  # a vehicle that gains less than STALL_GAIN in this many steps is stuck
STALL_GAIN = 0.1


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.w = world
        design = sim.design
        self.bodies = [(sim.parts[p.id], p.mass) for p in design.parts]
        self.chassis = world.chassis
        self.a0 = self.chassis.angle if self.chassis is not None else 0.0
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.goal_x = world.goal_x
        x0, x1, x2, x3, bed = world.geometry(env)
        self.start_x = self.sim.design_com()[0] if self.bodies else 0.0
        self.best_x = self.start_x
        self.max_tilt = 0.0
        self.tilt_step = None
        self.swamp_step = None
        self.goal_step = None
        self.max_sub = 0.0
        self.progress_mark = (0, self.best_x)  # (step, best x then): to notice a vehicle that is stuck
        self.stall_step = None
        self.milestones = [(x1, "the vehicle's centre of mass reaches the water"),
                           (x2, "the vehicle's centre of mass reaches the far bank's waterline"),
                           (x3, "the vehicle's centre of mass is up on the far bank")]

    def tick(self, step: int) -> bool:
        if not self.bodies:
            return step >= self.limit_steps
        x, y = self.sim.design_com()
        self.best_x = max(self.best_x, x)
        while self.milestones and x >= self.milestones[0][0]:
            self.sim.event("phase", self.milestones.pop(0)[1], step)
        if self.chassis is not None:
            tilt = abs(math.degrees(math.remainder(self.chassis.angle - self.a0, 2 * math.pi)))
            self.max_tilt = max(self.max_tilt, tilt)
            if tilt > TILT_DEG and self.tilt_step is None:
                self.tilt_step = step
                self.sim.event("failure", f"the chassis ({self.w.chassis_id}) tilted past {TILT_DEG:g} degrees", step)
            frac = self.w.chassis_sub / self.w.chassis_area if self.w.chassis_area else 0.0
            self.max_sub = max(self.max_sub, frac)
            if frac > SWAMP and self.swamp_step is None:
                self.swamp_step = step
                self.sim.event("failure", f"the chassis ({self.w.chassis_id}) went under the water", step)
        if self.best_x > self.progress_mark[1] + STALL_GAIN:
            self.progress_mark = (step, self.best_x)
        elif step - self.progress_mark[0] >= STALL_STEPS and self.stall_step is None:
            self.stall_step = step
            self.sim.event("phase", f"the vehicle has gained less than {STALL_GAIN:g} m in {STALL_STEPS / 60:g} s "
                                    f"(stuck at x = {x:.2f} m); the run ends", step)
        hold = self.success
        reached = x >= self.goal_x
        if reached and hold.first_step is None and step <= self.limit_steps:
            self.sim.event("phase", f"the vehicle's centre of mass reaches x = {self.goal_x:.2f} m", step)
        if hold.update(step, reached, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the vehicle's centre of mass has stayed past x = {self.goal_x:.2f} m"
                                   f" for {hold.rule.seconds:g} s", step)
        return (self.goal_step is not None or (step >= self.limit_steps and not hold.running)
                or self.tilt_step is not None
                or self.swamp_step is not None or self.stall_step is not None)

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        x, y = self.sim.design_com() if self.bodies else (0.0, 0.0)
        progress = max(0.0, min(1.0, (self.best_x - self.start_x) / (self.goal_x - self.start_x)))
        constraints = [
            Constraint("vehicle_upright", f"the chassis never tilts more than {TILT_DEG:g} degrees",
                       passed=self.tilt_step is None, value=round(self.max_tilt, 2), limit=TILT_DEG, unit="deg",
                       step=self.tilt_step),
            Constraint("chassis_afloat", f"the chassis never goes (more than {100 * SWAMP:g}%) under the water",
                       passed=self.swamp_step is None, value=round(100 * self.max_sub, 2), limit=100 * SWAMP,
                       unit="% submerged", step=self.swamp_step),
            Constraint("vehicle_intact", "no joint of the vehicle breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step}" if broken else ""),
        ]
        failure = (broken[0].broken_step, f"joint {broken[0].id} of the vehicle broke") if broken else None
        for st, why in ((self.tilt_step, "the vehicle tipped over"), (self.swamp_step, "the chassis went under the water")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        goal_met = self.goal_step is not None and not broken
        if not goal_met and failure is None:
            why = "the vehicle got stuck" if self.stall_step is not None else "time ran out with the vehicle"
            failure = (sim.steps, self.success.not_held(f"x = {self.goal_x:.2f} m")
                       or f"{why} at x = {self.best_x:.2f} m (goal x >= {self.goal_x:.2f} m)")
        speed = self.chassis.linearVelocity.length if self.chassis is not None else 0.0
        weight = sum(b.mass for b in self.w.floating) * self.env["gravity"]
        wheels = [sim.parts[p.id] for p in sim.design.parts if p.kind == "wheel"]
        grounded = 0
        for wb in wheels:
            if any(e.contact.touching and e.other == sim.ground for e in wb.contacts):
                grounded += 1
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"vehicle's centre of mass reached x = {self.best_x:.2f} m (goal x >= {self.goal_x:.2f} m)",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(x, 3), "y": round(y, 3), "best_x": round(self.best_x, 3),
                                 "goal_x": round(self.goal_x, 3), "speed": round(speed, 3),
                                 "max_tilt": round(self.max_tilt, 2), "max_sub_pct": round(100 * self.max_sub, 2),
                                 "chassis": self.w.chassis_id, "time": round(sim.steps / 60.0, 3),
                                 "buoyancy_pct": round(100 * self.w.buoyancy / weight, 1) if weight > 0 else 0.0,
                                 "wheels": len(wheels), "wheels_grounded": grounded})
