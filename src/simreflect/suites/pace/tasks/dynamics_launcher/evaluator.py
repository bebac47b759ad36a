"""The ball must come to rest in the basket, having flown there without touching anything else."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import BALL_R, BASKET_WALL, ZONE_X


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.ball = world.ball
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.left0, self.right0 = world.basket
        self.target = (self.left0 + self.right0) / 2
        self.launched_step = None
        self.touch_step = None
        self.touch_what = ""
        self.goal_step = None
        self.best = 0.0
        self.apex = self.ball.position.y
        self.launch_speed = 0.0
        self.first_landing = None
        terrain = sim.ground
        self.terrain = terrain

    def _contacts(self):
        out = []
        for edge in self.ball.contacts:
            c = edge.contact
            if c.touching:
                out.append(edge.other)
        return out

    def tick(self, step: int) -> bool:
        b = self.ball
        p = b.position
        x, y = p.x, p.y
        if y > self.apex:
            self.apex = y
        dist = abs(x - self.target)
        closeness = max(0.0, 1.0 - dist / max(self.target - ZONE_X[1], 1.0))
        if closeness > self.best:
            self.best = closeness
        if self.launched_step is None and x > ZONE_X[1] + BALL_R:
            self.launched_step = step
            v = b.linearVelocity
            self.launch_speed = math.hypot(v.x, v.y)
            self.sim.event("phase", f"the ball leaves the launch zone at {self.launch_speed:.2f} m/s, "
                                    f"{math.degrees(math.atan2(v.y, v.x)):.0f} degrees above horizontal", step)
        inside = self.left0 < x < self.right0 and y < BASKET_WALL
        if self.launched_step is not None and self.touch_step is None and not inside:
            others = self._contacts()
            if others:
                what = "the ground" if self.terrain in others else "part of the launcher"
                if self.world.wall is not None and abs(x - self.world.wall[0]) < 0.5:
                    what = "the wall"
                elif what == "the ground" and y > 1.5 * BALL_R and min(abs(x - self.left0), abs(x - self.right0)) < 0.5:
                    what = "the basket's rim"
                self.touch_step, self.touch_what = step, what
                self.sim.event("contact", f"the ball touches {what} at x = {x:.2f} m, y = {y:.2f} m before reaching "
                                          "the basket", step)
        if inside and self.first_landing is None:
            self.first_landing = step
            self.sim.event("contact", f"the ball enters the basket at x = {x:.2f} m", step)
        if self.success.update(step, inside and b.linearVelocity.length < 0.5) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", "the ball rests in the basket", step)
        if self.goal_step is not None:
            return True
        if self.touch_step is not None and step - self.touch_step > 60:
            return True
        return step >= self.limit_steps

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        p = self.ball.position
        constraints = [
            Constraint("launcher_intact", "no joint of the launcher breaks", passed=not broken,
                       value=float(len(broken)), limit=0.0, unit="broken joints",
                       step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step} ({broken[0].broken_by})"
                       if broken else ""),
            Constraint("direct_flight", "after leaving the launch zone the ball touches nothing before the basket",
                       passed=self.touch_step is None, value=0.0 if self.touch_step is None else 1.0, limit=0.0,
                       unit="contacts", step=self.touch_step,
                       detail=f"it touched {self.touch_what} at step {self.touch_step}" if self.touch_step else ""),
        ]
        goal_met = self.goal_step is not None
        failure = None
        if broken:
            failure = (broken[0].broken_step, f"joint {broken[0].id} of the launcher broke")
        if self.touch_step is not None and (failure is None or self.touch_step < failure[0]):
            failure = (self.touch_step, f"the ball hit {self.touch_what} before the basket")
        if not goal_met and failure is None:
            if self.launched_step is None:
                failure = (sim.steps, "the ball never left the launch zone")
            else:
                failure = (sim.steps, f"the ball did not come to rest in the basket (it is at x = {p.x:.2f} m)")
        return Outcome(goal_met=goal_met, progress=self.best,
                       goal=f"ball at x = {p.x:.2f} m, y = {p.y:.2f} m; basket from x = {self.left0:.2f} to "
                            f"{self.right0:.2f} m",
                       constraints=constraints, failure=failure,
                       terminal={"ball_x": round(p.x, 3), "ball_y": round(p.y, 3),
                                 "ball_speed": round(self.ball.linearVelocity.length, 3),
                                 "apex": round(self.apex, 3), "launch_speed": round(self.launch_speed, 3),
                                 "launched_step": self.launched_step, "basket": [self.left0, self.right0],
                                 "closest": round(self.best, 4)})
