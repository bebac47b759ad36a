"""The pole must come upright over the middle of the track and be held there: it must never fall
past the tilt limit and the cart must never strike an end stop."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import CART_W


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.hold_steps = self.success.rule.steps
        self.tilt_max = env["max_tilt_deg"]
        self.settle_deg = env["settle_deg"]
        self.settle_x = env["settle_x"]
        self.reach = env["track_half"] - CART_W / 2  # the cart's centre touches a stop here
        self.max_tilt = 0.0
        self.fall_step = None
        self.stop_step = None
        self.max_x = 0.0
        self.best_hold = 0
        self.goal_step = None
        self.first_settle = None
        self.last_state = None

    def tick(self, step: int) -> bool:
        w = self.world
        x = w.cart.position.x
        tilt = math.degrees(w.tilt())
        self.max_tilt = max(self.max_tilt, abs(tilt))
        self.max_x = max(self.max_x, abs(x))
        if abs(tilt) > self.tilt_max and self.fall_step is None:
            self.fall_step = step
            side = "left" if tilt > 0 else "right"
            self.sim.event("failure", f"the pole fell to the {side} past {self.tilt_max:g} degrees "
                                      f"(cart at x = {x:.2f} m, moving {w.cart.linearVelocity.x:.2f} m/s)", step)
        if abs(x) >= self.reach - 1e-3 and self.stop_step is None:
            self.stop_step = step
            self.sim.event("failure", f"the cart struck the {'right' if x > 0 else 'left'} end stop at "
                                      f"{abs(w.cart.linearVelocity.x):.2f} m/s", step)
        settled = abs(tilt) <= self.settle_deg and abs(x) <= self.settle_x
        hold = self.success
        if settled and hold.since is None and self.first_settle is None:
            self.first_settle = step
            self.sim.event("phase", f"the pole is first within {self.settle_deg:g} degrees with the cart "
                                    f"within {self.settle_x:g} m of the middle", step)
        if not settled and hold.since is not None and step - hold.since >= 30:
            why = (f"tilt {tilt:.1f} deg" if abs(tilt) > self.settle_deg else f"cart at x = {x:.2f} m")
            self.sim.event("phase", f"the hold broke after {(step - hold.since) / 60:.2f} s ({why})", step)
        if hold.update(step, settled) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the pole has been held upright over the middle for "
                                   f"{self.hold_steps / 60:g} s", step)
        self.best_hold = hold.best
        if self.goal_step is not None or self.fall_step is not None or self.stop_step is not None:
            return True
        return step >= self.limit_steps

    def finish(self) -> Outcome:
        w = self.world
        x, v = w.cart.position.x, w.cart.linearVelocity.x
        tilt = math.degrees(w.tilt())
        fallen = self.fall_step is not None
        struck = self.stop_step is not None
        constraints = [
            Constraint("pole_up", f"the pole never tilts past {self.tilt_max:g} degrees", passed=not fallen,
                       value=round(self.max_tilt, 2), limit=self.tilt_max, unit="deg", step=self.fall_step),
            Constraint("on_track", "the cart never strikes an end stop", passed=not struck,
                       value=round(self.max_x, 3), limit=round(self.reach, 3), unit="m", step=self.stop_step),
        ]
        goal_met = self.goal_step is not None
        failure = None
        if fallen or struck:
            cands = [(s, why) for s, why in ((self.fall_step, "the pole fell"),
                                             (self.stop_step, "the cart struck an end stop")) if s is not None]
            failure = min(cands)
        elif not goal_met:
            failure = (self.sim.steps, f"time ran out: the longest hold was {self.best_hold / 60:.2f} s of "
                                       f"{self.hold_steps / 60:g} s (pole at {tilt:.1f} deg, cart at x = {x:.2f} m)")
        progress = min(1.0, self.best_hold / self.hold_steps) if self.hold_steps else 0.0
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"longest hold {self.best_hold / 60:.2f} s of {self.hold_steps / 60:g} s (pole within "
                            f"{self.settle_deg:g} deg, cart within {self.settle_x:g} m of x = 0)",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(x, 3), "v": round(v, 3), "tilt_deg": round(tilt, 2),
                                 "spin": round(w.pole.angularVelocity, 3), "max_tilt": round(self.max_tilt, 2),
                                 "max_x": round(self.max_x, 3), "best_hold": round(self.best_hold / 60, 3),
                                 "first_settle": self.first_settle,
                                 "saturated": round(w.saturated / max(1, w.requests), 3), "reach": round(self.reach, 3)})
