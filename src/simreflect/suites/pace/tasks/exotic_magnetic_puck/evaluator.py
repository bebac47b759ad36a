"""The puck must come to rest inside the target ring, touching neither rail nor post on its way."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import FIELD_X, PUCK_R, ZONE

REST_SPEED = 0.15


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.puck = world.puck
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.target = (env["target_x"], env["target_y"])
        self.ring = env["target_radius"]
        self.launched_step = None
        self.launch_speed = 0.0
        self.launch_dir = 0.0
        self.entry = None  # (step, x, y, speed, heading deg)
        self.entry_radius = None
        self.touch_step = None
        self.touch_what = ""
        self.goal_step = None
        self.stop_step = None
        self.closest = math.inf
        p = self.puck.position
        self.d0 = max(1.0, math.hypot(self.target[0] - ZONE[2], self.target[1]))
        self.prev_heading = None
        self.max_x = p.x

    def tick(self, step: int) -> bool:
        b = self.puck
        p, v = b.position, b.linearVelocity
        x, y = p.x, p.y
        speed = math.hypot(v.x, v.y)
        heading = math.atan2(v.y, v.x)
        self.max_x = max(self.max_x, x)
        outside = not (ZONE[0] - PUCK_R < x < ZONE[2] + PUCK_R and ZONE[1] - PUCK_R < y < ZONE[3] + PUCK_R)
        if self.launched_step is None and outside:
            self.launched_step = step
            self.launch_speed, self.launch_dir = speed, math.degrees(heading)
            self.sim.event("phase", f"the puck leaves the launch zone at {speed:.2f} m/s, heading "
                                    f"{self.launch_dir:.0f} degrees (counter-clockwise from +x)", step)
        if self.entry is None and x > FIELD_X:
            self.entry = (step, x, y, speed, math.degrees(heading))
            self.sim.event("phase", f"the puck enters the field at y = {y:.2f} m, {speed:.2f} m/s, heading "
                                    f"{math.degrees(heading):.0f} degrees", step)
        elif self.entry is not None and self.entry_radius is None and step == self.entry[0] + 6 and self.touch_step is None:
            turn = math.remainder(heading - math.radians(self.entry[4]), 2 * math.pi)
            path = 0.5 * (speed + self.entry[3]) * 6 / 60.0
            self.entry_radius = path / abs(turn) if abs(turn) > 1e-6 else math.inf
            self.entry_turn = "clockwise" if turn < 0 else "counter-clockwise"
        if self.launched_step is not None and self.touch_step is None:
            for edge in b.contacts:
                c = edge.contact
                if not c.touching:
                    continue
                fx = c.fixtureA if c.fixtureB.body == b else c.fixtureB
                if fx in self.world.rails or fx in self.world.posts:
                    self.touch_step = step
                    self.touch_what = "a rail" if fx in self.world.rails else "the post"
                    self.sim.event("contact", f"the puck strikes {self.touch_what} at x = {x:.2f} m, "
                                              f"y = {y:.2f} m at {speed:.2f} m/s", step)
                    break
        d = math.hypot(x - self.target[0], y - self.target[1])
        self.closest = min(self.closest, d)
        if self.launched_step is not None and speed < REST_SPEED:
            if self.stop_step is None:
                self.stop_step = step
                self.sim.event("phase", f"the puck comes to rest at x = {x:.2f} m, y = {y:.2f} m, {d:.2f} m from "
                                        "the target's centre", step)
        resting = self.launched_step is not None and speed < REST_SPEED and d <= self.ring
        if self.success.update(step, resting) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", "the puck rests inside the target ring", step)
        if self.goal_step is not None:
            return True
        if self.stop_step is not None and d > self.ring and step - self.stop_step > self.success.rule.steps:
            return True
        if self.touch_step is not None and step - self.touch_step > 60:
            return True
        return step >= self.limit_steps

    def finish(self) -> Outcome:
        sim = self.sim
        p, v = self.puck.position, self.puck.linearVelocity
        d = math.hypot(p.x - self.target[0], p.y - self.target[1])
        constraints = [
            Constraint("no_collision", "once launched the puck touches neither a rail nor a post",
                       passed=self.touch_step is None, value=0.0 if self.touch_step is None else 1.0, limit=0.0,
                       unit="contacts", step=self.touch_step,
                       detail=f"it struck {self.touch_what} at step {self.touch_step}" if self.touch_step else ""),
        ]
        goal_met = self.goal_step is not None
        failure = None
        if self.touch_step is not None:
            failure = (self.touch_step, f"the puck struck {self.touch_what}")
        if not goal_met and failure is None:
            if self.launched_step is None:
                failure = (sim.steps, "the puck never left the launch zone")
            elif self.stop_step is None:
                failure = (sim.steps, f"the puck was still moving at {v.length:.2f} m/s when time ran out")
            else:
                failure = (sim.steps, f"the puck came to rest {d:.2f} m from the target's centre (ring radius "
                                      f"{self.ring:g} m)")
        progress = max(0.0, 1.0 - d / self.d0) if self.launched_step is not None else 0.0
        e = self.entry
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"puck at x = {p.x:.2f} m, y = {p.y:.2f} m, {d:.2f} m from the target's centre "
                            f"({self.target[0]:g}, {self.target[1]:g}); ring radius {self.ring:g} m",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(p.x, 3), "y": round(p.y, 3), "speed": round(v.length, 3),
                                 "distance": round(d, 3), "closest": round(self.closest, 3),
                                 "launched_step": self.launched_step, "launch_speed": round(self.launch_speed, 3),
                                 "launch_dir": round(self.launch_dir, 1),
                                 "entry": None if e is None else [e[0], round(e[2], 3), round(e[3], 3), round(e[4], 1)],
                                 "entry_radius": None if self.entry_radius is None or not math.isfinite(
                                     self.entry_radius) else round(self.entry_radius, 2),
                                 "entry_turn": getattr(self, "entry_turn", ""),
                                 "stop_step": self.stop_step})
