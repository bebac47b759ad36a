"""The lander must settle on the pad: gentle and upright at touchdown, the hull never touching ground,
and no leg ever touching the ground outside the pad (a touchdown off the pad is a landing off the
pad, even if the lander then hops or slides onto it: the pad is the one place it may land)."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.body = world.body
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.vmax = env["max_touchdown_speed"]
        self.tilt_max = env["max_tilt_deg"]
        self.touch_step = None
        self.touch_speed = None
        self.touch_tilt = None
        self.hull_step = None
        self.max_tilt = 0.0
        self.tilt_step = None
        self.goal_step = None
        self.start = (self.body.position.x, self.body.position.y)
        self.best = 0.0
        self.fuel_out_step = None
        self.off_pad_step = None
        self.off_pad_x = None

    def tick(self, step: int) -> bool:
        b = self.body
        p, v = b.position, b.linearVelocity
        tilt = abs(math.degrees(math.remainder(b.angle, 2 * math.pi)))
        if tilt > self.max_tilt:
            self.max_tilt = tilt
        if tilt > self.tilt_max and self.tilt_step is None:
            self.tilt_step = step
            self.sim.event("failure", f"the lander tilted past {self.tilt_max:g} degrees ({tilt:.0f})", step)
        if self.world.fuel <= 0 and self.fuel_out_step is None:
            self.fuel_out_step = step
            self.sim.event("phase", "the fuel ran out", step)
        legs = self.world.leg_contacts()
        if any(legs) and self.touch_step is None:
            self.touch_step = step
            self.touch_speed = math.hypot(v.x, v.y)
            self.touch_tilt = tilt
            side = "both legs" if all(legs) else ("the left leg" if legs[0] else "the right leg")
            self.sim.event("contact", f"touchdown on {side} at x = {p.x:.2f} m, speed {self.touch_speed:.2f} m/s "
                                      f"(vertical {v.y:.2f}), tilt {tilt:.1f} deg", step)
        left, right = self.world.pad
        if self.off_pad_step is None:
            for touching, foot in zip(legs, self.world.feet()):
                if touching and not left <= foot <= right:
                    self.off_pad_step, self.off_pad_x = step, foot
                    self.sim.event("failure", f"a leg touched the ground off the pad (foot at x = {foot:.2f} m; "
                                              f"pad {left:g} to {right:g} m)", step)
                    break
        if self.hull_step is None and self.world.hull_contact():
            self.hull_step = step
            self.sim.event("failure", "the hull struck the ground", step)
        on_pad = left <= p.x - 1.0 and p.x + 1.0 <= right
        d0 = math.hypot(self.start[0] - (left + right) / 2, self.start[1])
        d = math.hypot(p.x - (left + right) / 2, p.y - 0.7)
        self.best = max(self.best, max(0.0, 1.0 - d / d0))
        resting = all(legs) and math.hypot(v.x, v.y) < 0.2 and on_pad
        if self.success.update(step, resting) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", "the lander rests on the pad", step)
        if self.goal_step is not None or self.hull_step is not None or self.off_pad_step is not None:
            return True
        return step >= self.limit_steps

    def finish(self) -> Outcome:
        sim = self.sim
        b = self.body
        p, v = b.position, b.linearVelocity
        hard = self.touch_speed is not None and self.touch_speed > self.vmax
        constraints = [
            Constraint("gentle_touchdown", f"speed at first touchdown at most {self.vmax:g} m/s",
                       passed=not hard, value=None if self.touch_speed is None else round(self.touch_speed, 3),
                       limit=self.vmax, unit="m/s", step=self.touch_step if hard else None),
            Constraint("upright", f"tilt never above {self.tilt_max:g} degrees", passed=self.tilt_step is None,
                       value=round(self.max_tilt, 2), limit=self.tilt_max, unit="deg", step=self.tilt_step),
            Constraint("hull_clear", "the hull never touches the ground", passed=self.hull_step is None,
                       value=0.0 if self.hull_step is None else 1.0, limit=0.0, unit="strikes", step=self.hull_step),
            Constraint("on_pad", "no leg touches the ground outside the pad", passed=self.off_pad_step is None,
                       value=None if self.off_pad_x is None else round(self.off_pad_x, 3), unit="m",
                       step=self.off_pad_step),
        ]
        goal_met = self.goal_step is not None
        failure = None
        for st, why in ((self.touch_step if hard else None, f"touchdown too fast ({self.touch_speed or 0:.2f} m/s)"),
                        (self.tilt_step, "the lander tilted too far"), (self.hull_step, "the hull struck the ground"),
                        (self.off_pad_step, "a leg touched the ground off the pad")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not goal_met and failure is None:
            left, right = self.world.pad
            if self.touch_step is None:
                failure = (sim.steps, f"time ran out before touchdown (altitude {p.y - 0.7:.2f} m)")
            elif not (left <= p.x - 1.0 and p.x + 1.0 <= right):
                failure = (sim.steps, f"the lander is not on the pad (x = {p.x:.2f} m; pad {left:g} to {right:g} m)")
            else:
                failure = (sim.steps, "the lander did not come to rest on the pad in time")
        return Outcome(goal_met=goal_met, progress=self.best,
                       goal=f"lander at x = {p.x:.2f} m, altitude {p.y - 0.7:.2f} m; pad from x = "
                            f"{self.world.pad[0]:g} to {self.world.pad[1]:g} m",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(p.x, 3), "altitude": round(p.y - 0.7, 3), "vx": round(v.x, 3),
                                 "vy": round(v.y, 3), "tilt_deg": round(math.degrees(math.remainder(b.angle, 2 * math.pi)), 2),
                                 "fuel": round(self.world.fuel, 2), "fuel_used": round(self.world.burned, 2),
                                 "touch_step": self.touch_step, "touch_speed": None if self.touch_speed is None
                                 else round(self.touch_speed, 3), "pad": list(self.world.pad)})
