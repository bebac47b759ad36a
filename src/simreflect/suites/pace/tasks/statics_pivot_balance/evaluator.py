"""The beam must stay level within the allowed angle for the balance time, the fulcrum's bearing must
not be overloaded and no joint may break."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import RELEASE_STEP


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.start = RELEASE_STEP
        self.end = self.start + int(round(env["balance_time"] * 60))
        self.max_angle = env["max_angle_deg"]
        self.capacity = env["fulcrum_capacity"]
        self.peak_angle = 0.0  # in the judged window
        self.peak_angle_step = 0
        self.tilt_step = None
        self.peak_load = 0.0
        self.peak_load_step = 0
        self.over_step = None
        self.level_until = 0
        self.angle = 0.0
        self.early = None  # the tilt 1 s after the release
        self.missing = []
        if world.pin is None:
            self.missing.append("no part covers the fulcrum point (0, 3): nothing rests on the fulcrum")
        for side in ("left", "right"):
            if side not in world.hung:
                x, y = world.hooks[side]
                self.missing.append(f"no part covers the {side} hook point ({x:g}, {y:g}): the {side} load drops")
        for text in self.missing:
            sim.event("failure", text, 0)

    def tick(self, step: int) -> bool:
        w = self.world
        a = math.degrees(w.beam_angle())
        self.angle = a
        load = w.pin_load()
        if load > self.peak_load:
            self.peak_load, self.peak_load_step = load, step
            if load > self.capacity and self.over_step is None:
                self.over_step = step
                self.sim.event("failure", f"the fulcrum bearing carries {load:.0f} N, more than its rated "
                                          f"{self.capacity:g} N", step)
        if step == self.start:
            self.sim.event("phase", "the loads hang fully from their hooks and the latch lets the beam go", step)
        if step == self.start + 60:
            self.early = a
        if step >= self.start:
            if abs(a) > self.peak_angle:
                self.peak_angle, self.peak_angle_step = abs(a), step
            if abs(a) > self.max_angle and self.tilt_step is None:
                self.tilt_step = step
                side = "left" if a > 0 else "right"
                self.sim.event("failure", f"the beam tilts {abs(a):.2f} deg ({side} end down), beyond the allowed "
                                          f"{self.max_angle:g} deg", step)
            if self.tilt_step is None and not self.missing:
                self.level_until = step
        self.success.update(step, self.tilt_step is None and not self.missing)
        if self.tilt_step is not None and abs(a) > 60 and step > self.tilt_step + 60:
            return True
        return step >= self.end

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        window = self.end - self.start
        held = max(0, self.level_until - self.start)
        level = self.success.conclude(sim.steps >= self.end)
        constraints = [
            Constraint("fulcrum_load", "the fulcrum bearing's load stays within its rating",
                       passed=self.over_step is None, value=round(self.peak_load, 1), limit=self.capacity, unit="N",
                       step=self.over_step),
            Constraint("structure_intact", "no joint breaks", passed=not broken, value=float(len(broken)), limit=0.0,
                       unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=(f"first: {broken[0].id} ({broken[0].a}-{broken[0].b}) at step {broken[0].broken_step} "
                               f"({broken[0].broken_by})" if broken else "")),
        ]
        failure = None
        if self.missing:
            failure = (0, self.missing[0])
        for st, why in ((self.over_step, "the fulcrum bearing was overloaded"),
                        (broken[0].broken_step if broken else None, "a joint of the balance broke"),
                        (self.tilt_step, "the beam tilted beyond the allowed angle")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not level and failure is None:
            failure = (sim.steps, "the balance time was not completed")
        progress = held / window if window else 0.0
        return Outcome(goal_met=level, progress=min(1.0, progress),
                       goal=(f"the beam stayed within {self.max_angle:g} deg of level for {held / 60:.2f} s of "
                             f"{window / 60:g} s (largest tilt in the judged window {self.peak_angle:.2f} deg)"),
                       constraints=constraints, failure=failure,
                       terminal={"angle_deg": round(self.angle, 3), "peak_angle_deg": round(self.peak_angle, 3),
                                 "peak_angle_step": self.peak_angle_step, "held_s": round(held / 60, 3),
                                 "window_s": window / 60, "peak_load": round(self.peak_load, 1),
                                 "peak_load_step": self.peak_load_step, "beam": self.world.beam or "",
                                 "early_angle_deg": None if self.early is None else round(self.early, 3),
                                 "broken_joints": len(broken)})
