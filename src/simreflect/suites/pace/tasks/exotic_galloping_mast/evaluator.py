"""The antenna must hold still: the mast stands, the top sways less than the tolerance in the last
seconds, and no guy is loaded past its rating."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

TILT_DEG = 8.0


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.hold_from = self.limit_steps - self.success.rule.steps
        self.tol = env["sway_tolerance"]
        self.max_force = env["max_guy_force"]
        self.max_tilt = 0.0
        self.tilt_step = None
        self.peak_sway = 0.0
        self.peak_sway_step = 0
        self.late_sway = 0.0
        self.late_sum = 0.0
        self.late_n = 0
        self.peak_guy = 0.0
        self.peak_guy_id = ""
        self.peak_guy_step = 0
        self.over_step = None
        self.thirds = [0.0, 0.0, 0.0]  # the largest sway in each third of the test

    def tick(self, step: int) -> bool:
        mast = self.world.mast
        tilt = abs(math.degrees(mast.angle))
        x = self.world.top().x
        if tilt > self.max_tilt:
            self.max_tilt = tilt
        if tilt > TILT_DEG and self.tilt_step is None:
            self.tilt_step = step
            self.sim.event("failure", f"the mast leaned past {TILT_DEG:g} degrees (top at x = {x:.2f} m)", step)
        third = min(2, 3 * (step - 1) // self.limit_steps)
        self.thirds[third] = max(self.thirds[third], abs(x))
        if abs(x) > self.peak_sway:
            self.peak_sway, self.peak_sway_step = abs(x), step
        if step > self.hold_from:
            self.late_sway = max(self.late_sway, abs(x))
            self.late_sum += x
            self.late_n += 1
        for sid, joint in self.sim.springs.items():
            f = joint.GetReactionForce(60.0).length
            if f > self.peak_guy:
                self.peak_guy, self.peak_guy_id, self.peak_guy_step = f, sid, step
                if f > self.max_force and self.over_step is None:
                    self.over_step = step
                    self.sim.event("failure", f"guy {sid} carried {f:.0f} N, more than its rating of "
                                              f"{self.max_force:g} N", step)
        self.success.update(step, self.tilt_step is None and abs(x) <= self.tol)
        if step == self.hold_from:
            self.sim.event("phase", f"the hold window begins: the top is at x = {x:.3f} m", step)
        if self.tilt_step is not None and step > self.tilt_step + 60:
            return True
        return step >= self.limit_steps

    def finish(self) -> Outcome:
        sim = self.sim
        held = self.success.conclude(sim.steps >= self.limit_steps)
        constraints = [
            Constraint("mast_standing", f"the mast never leans more than {TILT_DEG:g} degrees",
                       passed=self.tilt_step is None, value=round(self.max_tilt, 3), limit=TILT_DEG, unit="deg",
                       step=self.tilt_step),
            Constraint("guy_load", f"no guy carries more than {self.max_force:g} N",
                       passed=self.over_step is None, value=round(self.peak_guy, 1), limit=self.max_force, unit="N",
                       step=self.over_step,
                       detail=(f"{self.peak_guy_id} peaked at step {self.peak_guy_step}" if self.over_step is not None
                               else "")),
        ]
        failure = None
        for st, why in ((self.tilt_step, "the mast leaned over"), (self.over_step, "a guy was overloaded")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not held and failure is None:
            failure = (sim.steps, f"the top swayed up to {self.late_sway:.3f} m from the vertical in the last "
                                  f"{self.success.rule.seconds:g} s (tolerance {self.tol:g} m)")
        progress = 0.0
        if self.tilt_step is None and sim.steps >= self.limit_steps:
            progress = max(0.0, min(1.0, self.tol / max(self.late_sway, 1e-9)))
        mean = self.late_sum / self.late_n if self.late_n else 0.0
        x = self.world.top().x
        if self.late_n:
            goal = (f"top of the mast swayed up to {self.late_sway:.3f} m from the vertical in the last "
                    f"{self.success.rule.seconds:g} s "
                    f"(tolerance {self.tol:g} m)")
        else:
            goal = (f"the test ended at step {sim.steps}, before the last {self.success.rule.seconds:g} s "
                    f"(tolerance {self.tol:g} m)")
        return Outcome(goal_met=held, progress=progress, goal=goal,
                       constraints=constraints, failure=failure,
                       terminal={"top_x": round(x, 4), "late_sway": round(self.late_sway, 4),
                                 "late_mean": round(mean, 4), "peak_sway": round(self.peak_sway, 4),
                                 "peak_sway_step": self.peak_sway_step,
                                 "thirds": [round(v, 4) for v in self.thirds], "held_window": self.late_n > 0,
                                 "max_tilt": round(self.max_tilt, 3), "peak_guy": round(self.peak_guy, 1),
                                 "peak_guy_id": self.peak_guy_id, "peak_guy_step": self.peak_guy_step,
                                 "hold_s": self.success.rule.seconds})
