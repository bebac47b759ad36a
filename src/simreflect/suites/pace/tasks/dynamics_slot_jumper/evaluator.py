"""The sled must fly through every window without touching a wall and touch down on the strip."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import SLED_R, ZONE_X


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.sled = world.sled
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.windows = world.windows()
        self.wall_fixtures = [f for pair in world.walls for f in pair]
        self.floor = world.floor
        self.strip = (env["land_start"], env["land_end"])
        self.launch_step = None
        self.launch = None
        self.crossed: list[tuple[float, bool]] = []  # (y at the wall's plane, inside the window)
        self.wall_step = None
        self.wall_what = ""
        self.touch_step = None
        self.touch_x = None
        self.goal_step = None
        self.apex = None
        self.prev_x = self.sled.position.x
        self.prev_y = self.sled.position.y

    def _touching(self):
        out = []
        for edge in self.sled.contacts:
            c = edge.contact
            if c.touching:
                out.append(c.fixtureB if c.fixtureA.body == self.sled else c.fixtureA)
        return out

    def tick(self, step: int) -> bool:
        s = self.sled
        p, v = s.position, s.linearVelocity
        x, y = p.x, p.y
        if self.launch_step is None and x > ZONE_X[1] + SLED_R:
            self.launch_step = step
            self.launch = (math.hypot(v.x, v.y), math.degrees(math.atan2(v.y, v.x)), y)
            self.sim.event("phase", f"the sled leaves the launch zone at {self.launch[0]:.2f} m/s, "
                                    f"{self.launch[1]:.0f} degrees from horizontal, at y = {y:.2f} m", step)
        if self.launch_step is not None and (self.apex is None or y > self.apex):
            self.apex = y
        k = len(self.crossed)
        if k < len(self.windows) and self.wall_step is None:
            wx, lo, hi = self.windows[k]
            if x >= wx > self.prev_x:
                t = (wx - self.prev_x) / max(x - self.prev_x, 1e-9)
                yc = self.prev_y + t * (y - self.prev_y)
                ok = lo + SLED_R <= yc <= hi - SLED_R
                self.crossed.append((yc, ok))
                self.sim.event("phase", f"the sled crosses wall {k + 1} (x = {wx:g} m) at y = {yc:.2f} m; the window "
                                        f"spans {lo:.2f} to {hi:.2f} m", step)
        self.prev_x, self.prev_y = x, y
        touching = self._touching()
        if touching and self.wall_step is None:
            for f in touching:
                if f in self.wall_fixtures:
                    i = self.wall_fixtures.index(f)
                    wall, part = i // 2 + 1, ("below" if i % 2 == 0 else "above")
                    self.wall_step = step
                    self.wall_what = f"wall {wall} {part} its window"
                    self.sim.event("contact", f"the sled strikes {self.wall_what} at y = {y:.2f} m", step)
                    break
        if self.launch_step is not None and self.touch_step is None and self.floor in touching:
            self.touch_step, self.touch_x = step, x
            lo, hi = self.strip
            where = "on the strip" if lo <= x <= hi else ("short of the strip" if x < lo else "past the strip")
            self.sim.event("contact", f"the sled touches down at x = {x:.2f} m ({where}, {lo:g} to {hi:g} m)", step)
        lo, hi = self.strip
        first_on_strip = self.touch_x is not None and lo <= self.touch_x <= hi
        landed = (first_on_strip and self.wall_step is None and self.floor in touching
                  and len(self.crossed) == len(self.windows) and all(ok for _, ok in self.crossed))
        hold = self.success
        if hold.update(step, landed, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the sled landed on the strip and has stayed down for {hold.rule.seconds:g} s",
                           step)
            return True
        if self.wall_step is not None and step > self.wall_step + 30:
            return True
        if self.touch_step is not None and step > self.touch_step + 15 and not hold.running:
            return True
        return step >= self.limit_steps and not hold.running

    def finish(self) -> Outcome:
        sim = self.sim
        p = self.sled.position
        lo, hi = self.strip
        n = len(self.windows)
        through = sum(1 for _, ok in self.crossed if ok)
        all_through = through == n and len(self.crossed) == n
        landed = self.touch_x is not None and lo <= self.touch_x <= hi
        constraints = [
            Constraint("clean_flight", "the sled touches no wall", passed=self.wall_step is None,
                       value=0.0 if self.wall_step is None else 1.0, limit=0.0, unit="wall strikes",
                       step=self.wall_step, detail=f"it struck {self.wall_what} at step {self.wall_step}"
                       if self.wall_step is not None else ""),
        ]
        goal_met = all_through and landed and self.wall_step is None and self.goal_step is not None
        failure = None
        if self.wall_step is not None:
            failure = (self.wall_step, f"the sled struck {self.wall_what}")
        elif not goal_met:
            if self.launch_step is None:
                failure = (sim.steps, "the sled never left the launch zone")
            elif not all_through:
                failure = (self.touch_step or sim.steps, f"the sled touched down at x = {self.touch_x:.2f} m before "
                           "passing every wall" if self.touch_x is not None else "the sled did not pass every wall")
            elif self.touch_x is None:
                failure = (sim.steps, "the sled had not touched down by the time limit")
            elif landed:
                failure = (sim.steps, f"the sled touched down on the strip but did not stay down for "
                                      f"{self.success.rule.seconds:g} s: it bounced (it is at x = {p.x:.2f} m)")
            else:
                failure = (self.touch_step, f"the sled touched down at x = {self.touch_x:.2f} m, "
                           f"{'short of' if self.touch_x < lo else 'past'} the strip")
        score_land = 0.0
        if self.touch_x is not None and all_through:
            mid, half = (lo + hi) / 2, (hi - lo) / 2
            score_land = 1.0 if landed else max(0.0, 1.0 - (abs(self.touch_x - mid) - half) / 5.0)
        progress = (through + score_land) / (n + 1)
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=(f"{through} of {n} windows passed; touchdown "
                             + (f"at x = {self.touch_x:.2f} m" if self.touch_x is not None else "not reached")
                             + f"; strip from x = {lo:g} to {hi:g} m"),
                       constraints=constraints, failure=failure,
                       terminal={"sled_x": round(p.x, 3), "sled_y": round(p.y, 3),
                                 "launch": None if self.launch is None else [round(v, 3) for v in self.launch],
                                 "apex": None if self.apex is None else round(self.apex, 3),
                                 "crossings": [[round(y, 3), ok] for y, ok in self.crossed],
                                 "windows": [[x, round(a, 3), round(b, 3)] for x, a, b in self.windows],
                                 "touch_x": None if self.touch_x is None else round(self.touch_x, 3),
                                 "strip": [lo, hi]})
