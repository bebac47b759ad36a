"""The sled must come to rest at the dock mark, never shaking its cargo harder than allowed and
never striking the buffer stop."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

REST_SPEED = 0.05
G0 = 9.81


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.body = world.body
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.D = env["dock_x"]
        self.tol = env["dock_tolerance"]
        self.a_max = env["max_accel"]
        self.peak_a = 0.0
        self.peak_a_step = 0
        self.over_step = None
        self.crash_step = None
        self.crash_speed = 0.0
        self.goal_step = None
        self.v_peak = 0.0
        self.fuel_out_step = None
        self.in_dust = None
        self.prev_v = 0.0

    def tick(self, step: int) -> bool:
        b = self.body
        x, v = b.position.x, b.linearVelocity.x
        buf = self.world.buffer
        touching_buffer = any(e.contact.touching and buf in (e.contact.fixtureA, e.contact.fixtureB)
                              for e in b.contacts)
        a = (v - self.prev_v) * 60.0 / self.sim.settings.tick_every
        self.prev_v = v
        if touching_buffer and self.crash_step is None:
            self.crash_step = step
            self.sim.event("failure", f"the sled struck the buffer stop at {abs(v):.2f} m/s", step)
        if not touching_buffer and self.crash_step is None:
            if abs(a) > self.peak_a:
                self.peak_a, self.peak_a_step = abs(a), step
                if abs(a) > self.a_max and self.over_step is None:
                    self.over_step = step
                    self.sim.event("failure", f"the cargo felt {abs(a):.2f} m/s^2 along the rail, more than the "
                                              f"{self.a_max:g} m/s^2 it tolerates (sled mass {self.world.mass:.0f} kg)",
                                   step)
        self.v_peak = max(self.v_peak, abs(v))
        if self.world.fuel <= 0 and self.fuel_out_step is None:
            self.fuel_out_step = step
            self.sim.event("phase", f"the fuel ran out at x = {x:.2f} m, {v:.2f} m/s", step)
        if self.world.dust > 0 and self.in_dust is None:
            self.in_dust = step
            self.sim.event("phase", f"the sled starts to sweep up dust at x = {x:.2f} m", step)
        near = abs(x - self.D) <= self.tol
        if self.success.update(step, abs(v) < REST_SPEED and near) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the sled rests at the dock (x = {x:.2f} m)", step)
        if self.goal_step is not None:
            return True
        if self.crash_step is not None and step > self.crash_step + 30:
            return True
        return step >= self.limit_steps

    def finish(self) -> Outcome:
        sim = self.sim
        w = self.world
        x, v = self.body.position.x, self.body.linearVelocity.x
        constraints = [
            Constraint("cargo_safe", f"the cargo never feels more than {self.a_max:g} m/s^2 along the rail",
                       passed=self.over_step is None, value=round(self.peak_a, 3), limit=self.a_max, unit="m/s^2",
                       step=self.over_step),
            Constraint("no_crash", "the sled never strikes the buffer stop", passed=self.crash_step is None,
                       value=0.0 if self.crash_step is None else 1.0, limit=0.0, unit="strikes", step=self.crash_step),
        ]
        goal_met = self.goal_step is not None
        failure = None
        for st, why in ((self.over_step, "the cargo was shaken too hard"),
                        (self.crash_step, "the sled struck the buffer stop")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not goal_met and failure is None:
            if abs(x - self.D) > self.tol:
                failure = (sim.steps, f"the sled is at x = {x:.2f} m, {x - self.D:+.2f} m from the dock mark "
                                      f"(tolerance {self.tol:g} m), moving at {v:.2f} m/s")
            else:
                failure = (sim.steps, f"the sled did not come to rest at the dock in time ({v:.2f} m/s)")
        progress = max(0.0, 1.0 - abs(x - self.D) / self.D)
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"sled at x = {x:.2f} m moving at {v:.2f} m/s; dock mark x = {self.D:g} m +- {self.tol:g} m",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(x, 3), "v": round(v, 3), "fuel": round(w.fuel, 2),
                                 "burned": round(w.burned, 2), "dust": round(w.dust, 2), "mass": round(w.mass, 2),
                                 "peak_a": round(self.peak_a, 3), "peak_a_step": self.peak_a_step,
                                 "v_peak": round(self.v_peak, 3), "fuel_out_step": self.fuel_out_step})
