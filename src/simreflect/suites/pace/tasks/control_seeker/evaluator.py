"""The craft must come within the capture radius of the moving beacon before the time runs out or
the beacon leaves the arena, without ramming it and without striking the arena's edge."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import ARENA


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.radius = env["capture_radius"]
        self.vmax = env["max_capture_speed"]
        self.r0, _ = world.relative()
        self.min_range = self.r0
        self.min_step = 0
        self.capture_step = None
        self.capture_speed = None
        self.goal_step = None
        self.wall_step = None
        self.escape_step = None
        self.prev_range = self.r0
        self.opening_logged = False
        self.marks = [20.0, 10.0, 5.0]

    def tick(self, step: int) -> bool:
        w = self.world
        rng, brg = w.relative()
        if rng < self.min_range:
            self.min_range, self.min_step = rng, step
        for m in list(self.marks):
            if rng < m:
                self.marks.remove(m)
                self.sim.event("phase", f"the range fell below {m:g} m (bearing {math.degrees(brg):.0f} deg off the "
                                        f"bow, craft speed {w.craft.linearVelocity.length:.2f} m/s)", step)
        if (not self.opening_logged and rng > self.prev_range + 1e-4 and step > 60
                and self.min_range > self.radius):
            self.opening_logged = True
            self.sim.event("phase", f"the range began to open at {rng:.2f} m: the beacon is drawing away",
                           step)
        self.prev_range = rng
        hold = self.success
        if rng <= self.radius and self.capture_step is None and step <= self.limit_steps:
            cv, bv = w.craft.linearVelocity, w.beacon.linearVelocity
            self.capture_step = step
            self.capture_speed = math.hypot(cv.x - bv.x, cv.y - bv.y)
            self.sim.event("phase", f"the beacon is captured (range {rng:.2f} m) at a relative speed of "
                                    f"{self.capture_speed:.2f} m/s", step)
        if hold.update(step, rng <= self.radius, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the craft has kept the beacon within {self.radius:g} m for "
                                   f"{hold.rule.seconds:g} s", step)
        if self.wall_step is None:
            for edge in w.craft.contacts:
                if edge.contact.touching and edge.other == self.sim.ground:  # not the beacon's sensor
                    self.wall_step = step
                    self.sim.event("failure", "the craft struck the edge of the arena", step)
                    break
        b = w.beacon.position
        x0, y0, x1, y1 = ARENA
        if self.escape_step is None and not (x0 < b.x < x1 and y0 < b.y < y1):
            self.escape_step = step
            self.sim.event("failure", "the beacon left the arena uncaught", step)
        if self.goal_step is not None or self.wall_step is not None or self.escape_step is not None:
            return True
        if self.capture_speed is not None and self.capture_speed > self.vmax:
            return True  # rammed: the run's verdict is settled
        return step >= self.limit_steps and not hold.running

    def finish(self) -> Outcome:
        w = self.world
        rng, brg = w.relative()
        c = w.craft
        rammed = self.capture_speed is not None and self.capture_speed > self.vmax
        constraints = [
            Constraint("gentle_capture", f"relative speed at capture at most {self.vmax:g} m/s", passed=not rammed,
                       value=None if self.capture_speed is None else round(self.capture_speed, 3), limit=self.vmax,
                       unit="m/s", step=self.capture_step if rammed else None),
            Constraint("hull_clear", "the craft never strikes the edge of the arena", passed=self.wall_step is None,
                       value=0.0 if self.wall_step is None else 1.0, limit=0.0, unit="strikes", step=self.wall_step),
        ]
        goal_met = self.goal_step is not None
        failure = None
        if rammed:
            failure = (self.capture_step, f"the craft rammed the beacon at {self.capture_speed:.2f} m/s")
        elif self.wall_step is not None:
            failure = (self.wall_step, "the craft struck the edge of the arena")
        elif not goal_met:
            why = "the beacon left the arena" if self.escape_step is not None else "time ran out"
            failure = (self.sim.steps, self.success.not_held(f"the capture (within {self.radius:g} m)")
                       or f"{why} before the capture (closest approach {self.min_range:.2f} m at "
                          f"t = {self.min_step / 60:.2f} s)")
        progress = max(0.0, min(1.0, (self.r0 - self.min_range) / max(1e-9, self.r0 - self.radius)))
        p, v = c.position, c.linearVelocity
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"closest approach {self.min_range:.2f} m (capture within {self.radius:g} m); "
                            f"range now {rng:.2f} m",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(p.x, 3), "y": round(p.y, 3), "vx": round(v.x, 3), "vy": round(v.y, 3),
                                 "heading_deg": round(math.degrees(math.remainder(c.angle, 2 * math.pi)), 2),
                                 "range": round(rng, 3), "bearing_deg": round(math.degrees(brg), 2),
                                 "beacon": [round(w.beacon.position.x, 3), round(w.beacon.position.y, 3)],
                                 "min_range": round(self.min_range, 3), "min_step": self.min_step,
                                 "capture_step": self.capture_step,
                                 "capture_speed": None if self.capture_speed is None else round(self.capture_speed, 3)})
