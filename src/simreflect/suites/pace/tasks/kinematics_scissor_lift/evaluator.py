"""The crate must be raised to the target height and held there; it must stay on the platform,
the platform level, and the lift in one piece."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import CRATE_H

CRATE_TILT = 15.0
PLATFORM_TILT = 10.0


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.crate = world.crate
        self.platform = world.platform
        self.target = env["target_height"]
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.start = self.height()
        self.best = self.start
        self.goal_step = None
        self.reach_step = None
        self.drop_step = None
        self.crate_tilt = 0.0
        self.platform_tilt = 0.0
        self.crate_tilt_step = None
        self.platform_tilt_step = None
        self.half_step = None

    def height(self) -> float:
        """Height of the crate's underside above the ground."""
        return self.crate.position.y - CRATE_H / 2

    def tick(self, step: int) -> bool:
        sim = self.sim
        h = self.height()
        if h > self.best:
            self.best = h
        if self.half_step is None and h - self.start >= 0.5 * (self.target - self.start):
            self.half_step = step
            sim.event("phase", f"the crate is half way up (underside at {h:.2f} m)", step)
        ct = abs(math.degrees(math.remainder(self.crate.angle, 2 * math.pi)))
        pt = abs(math.degrees(math.remainder(self.platform.angle, 2 * math.pi)))
        self.crate_tilt = max(self.crate_tilt, ct)
        self.platform_tilt = max(self.platform_tilt, pt)
        if ct > CRATE_TILT and self.crate_tilt_step is None:
            self.crate_tilt_step = step
            sim.event("failure", f"the crate tilted past {CRATE_TILT:g} degrees", step)
        if pt > PLATFORM_TILT and self.platform_tilt_step is None:
            self.platform_tilt_step = step
            sim.event("failure", f"the platform tilted past {PLATFORM_TILT:g} degrees", step)
        if self.drop_step is None:
            for body in (self.crate, self.platform):
                if any(e.contact.touching and e.other == sim.ground for e in body.contacts):
                    self.drop_step = step
                    what = "crate" if body is self.crate else "platform"
                    sim.event("failure", f"the {what} fell to the ground", step)
                    break
        hold = self.success
        if h >= self.target and hold.since is None and self.reach_step is None:
            self.reach_step = step
            sim.event("phase", f"the crate's underside reaches {self.target:g} m", step)
        if h < self.target and hold.since is not None:
            sim.event("phase", f"the crate sinks below {self.target:g} m (underside at {h:.2f} m)", step)
        if hold.update(step, h >= self.target) and self.goal_step is None:
            self.goal_step = step
            sim.event("goal", f"the crate has been held at or above {self.target:g} m for "
                              f"{hold.rule.seconds:g} s", step)
        return (self.goal_step is not None or step >= self.limit_steps or self.drop_step is not None)

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        h = self.height()
        span = self.target - self.start
        progress = max(0.0, min(1.0, (self.best - self.start) / span)) if span > 0 else 0.0
        if self.goal_step is None:
            progress *= 0.95
        crate_ok = self.crate_tilt_step is None and self.drop_step is None
        constraints = [
            Constraint("load_secure", "the crate stays on the platform", passed=crate_ok,
                       value=round(self.crate_tilt, 2), limit=CRATE_TILT, unit="deg",
                       step=self.drop_step if self.drop_step is not None else self.crate_tilt_step,
                       detail="the crate or the platform fell to the ground" if self.drop_step is not None else ""),
            Constraint("platform_level", f"the platform never tilts more than {PLATFORM_TILT:g} degrees",
                       passed=self.platform_tilt_step is None, value=round(self.platform_tilt, 2),
                       limit=PLATFORM_TILT, unit="deg", step=self.platform_tilt_step),
            Constraint("lift_intact", "no joint of the lift breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step}" if broken else ""),
        ]
        failure = None
        for st, why in ((broken[0].broken_step if broken else None, "a joint of the lift broke"),
                        (self.drop_step, "the load fell off the lift"),
                        (self.crate_tilt_step, "the crate tipped on the platform"),
                        (self.platform_tilt_step, "the platform tilted")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        goal_met = self.goal_step is not None
        if not goal_met and failure is None:
            if self.reach_step is None:
                failure = (sim.steps, f"time ran out with the crate's underside at {h:.2f} m (highest "
                                      f"{self.best:.2f} m; goal {self.target:g} m)")
            else:
                failure = (sim.steps, f"the crate reached {self.target:g} m but was not held there for "
                                      f"{self.success.rule.seconds:g} s")
        v = self.crate.linearVelocity
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"crate's underside at {h:.2f} m, highest {self.best:.2f} m (goal: at least "
                            f"{self.target:g} m for {self.success.rule.seconds:g} s)",
                       constraints=constraints, failure=failure,
                       terminal={"height": round(h, 3), "best": round(self.best, 3), "start": round(self.start, 3),
                                 "crate_x": round(self.crate.position.x, 3), "speed": round(v.length, 3),
                                 "crate_tilt": round(self.crate_tilt, 2), "platform_tilt": round(self.platform_tilt, 2),
                                 "reach_step": self.reach_step, "broken": len(broken)})
