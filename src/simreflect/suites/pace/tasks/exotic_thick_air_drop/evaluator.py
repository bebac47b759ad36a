"""The package must touch down on the landing strip, gently and upright."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

TILT_DEG = 30.0


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.pkg = world.package
        self.bodies = [b for b, _, _ in world.craft]
        self.vmax = env["max_landing_speed"]
        self.strip = (env["strip_x"] - env["strip_width"] / 2, env["strip_x"] + env["strip_width"] / 2)
        self.x0 = self.pkg.position.x
        self.y0 = self.pkg.position.y
        self.touch_step = None
        self.touch = None  # x, speed, vx, vy, tilt
        self.goal_step = None
        self.max_tilt = 0.0
        self.tilt_step = None
        self.steady = None  # (step, altitude, descent rate, drift speed)
        self.half = None  # (step, x) at half height
        self.prev_vy = None
        self.prev_v = (0.0, 0.0)  # the velocity one tick earlier: the contact step has already absorbed the impact

    def tick(self, step: int) -> bool:
        b = self.pkg
        p, v = b.position, b.linearVelocity
        tilt = abs(math.degrees(math.remainder(b.angle, 2 * math.pi)))
        if self.touch_step is None:
            self.max_tilt = max(self.max_tilt, tilt)
            if tilt > TILT_DEG and self.tilt_step is None:
                self.tilt_step = step
                self.sim.event("failure", f"the package tilted past {TILT_DEG:g} degrees ({tilt:.0f}) at altitude "
                                          f"{p.y:.1f} m", step)
            if self.steady is None and step > 30 and self.prev_vy is not None and abs(v.y - self.prev_vy) < 0.002:
                self.steady = (step, p.y, -v.y, v.x)
                self.sim.event("phase", f"steady descent at {-v.y:.2f} m/s, drifting {v.x:+.2f} m/s, at altitude "
                                        f"{p.y:.1f} m", step)
            self.prev_vy = v.y
            if self.half is None and p.y < self.y0 / 2:
                self.half = (step, p.x)
            ground = self.sim.ground
            for body in self.bodies:
                if any(e.contact.touching and e.other == ground for e in body.contacts):
                    self.touch_step = step
                    vx, vy = self.prev_v
                    self.touch = (p.x, math.hypot(vx, vy), vx, vy, tilt)
                    left, right = self.strip
                    where = "on the strip" if left <= p.x <= right else "off the strip"
                    self.sim.event("contact", f"touchdown {where} at x = {p.x:.2f} m, {self.touch[1]:.2f} m/s "
                                              f"(vertical {vy:.2f}, horizontal {vx:+.2f}), tilt {tilt:.0f} deg",
                                   step)
                    break
            else:
                self.prev_v = (v.x, v.y)
                return False
        # after the touchdown: the package must stay down over the strip (a landing, not a skip)
        left, right = self.strip
        ground = self.sim.ground
        down = (left <= self.touch[0] <= right and left <= p.x <= right
                and any(e.contact.touching and e.other == ground for body in self.bodies for e in body.contacts))
        hold = self.success
        if hold.update(step, down) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the craft has stayed down with the package over the strip for "
                                   f"{hold.rule.seconds:g} s", step)
        return hold.met or not hold.running

    def finish(self) -> Outcome:
        sim = self.sim
        p = self.pkg.position
        left, right = self.strip
        hard = self.touch is not None and self.touch[1] > self.vmax
        constraints = [
            Constraint("gentle_landing", f"touchdown at most {self.vmax:g} m/s", passed=not hard,
                       value=None if self.touch is None else round(self.touch[1], 3), limit=self.vmax, unit="m/s",
                       step=self.touch_step if hard else None),
            Constraint("package_upright", f"the package never tilts more than {TILT_DEG:g} degrees before touchdown",
                       passed=self.tilt_step is None, value=round(self.max_tilt, 2), limit=TILT_DEG, unit="deg",
                       step=self.tilt_step),
        ]
        x = p.x if self.touch is None else self.touch[0]
        on = self.touch is not None and left <= x <= right
        landed = on and self.success.met
        failure = None
        if hard:
            failure = (self.touch_step, f"the package hit the ground at {self.touch[1]:.2f} m/s")
        if self.tilt_step is not None and (failure is None or self.tilt_step < failure[0]):
            failure = (self.tilt_step, "the package tipped over in the air")
        if not landed and failure is None:
            if on:
                failure = (sim.steps, f"the craft touched down on the strip but did not stay down over it for "
                                      f"{self.success.rule.seconds:g} s (the package is at x = {p.x:.2f} m)")
            elif self.touch is None:
                failure = (sim.steps, f"the package had not touched down when time ran out (altitude {p.y:.1f} m)")
            else:
                failure = (self.touch_step, f"the package touched down at x = {x:.2f} m, off the strip "
                                            f"({left:g} to {right:g} m)")
        miss = max(0.0, left - x, x - right)
        progress = 0.0 if self.touch is None else max(0.0, 1.0 - miss / 10.0)
        t = self.touch
        st = self.steady
        return Outcome(goal_met=landed, progress=progress,
                       goal=f"package {'touched down' if t else 'is'} at x = {x:.2f} m; strip from {left:g} to {right:g} m",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(x, 3), "y": round(p.y, 3), "release_x": round(self.x0, 3),
                                 "touch_step": self.touch_step,
                                 "touch": None if t is None else [round(t[1], 3), round(t[2], 3), round(t[3], 3),
                                                                  round(t[4], 1)],
                                 "steady": None if st is None else [st[0], round(st[1], 2), round(st[2], 3),
                                                                    round(st[3], 3)],
                                 "half_x": None if self.half is None else round(self.half[1], 3),
                                 "max_tilt": round(self.max_tilt, 2), "strip": [left, right],
                                 "strapped": list(self.world.strapped)})
