"""The swing's seat must rise to the target height; the rider's joints must hold."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import SEAT_Y


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.target = env["target_height"]
        self.best = 0.0
        self.best_step = 0
        self.goal_step = None
        self.reach_step = None
        self.turns: dict[str, float | None] = {"left": None, "right": None}  # seat height at the latest turns
        self.max_angle = 0.0
        self.crossings: list[float] = []  # times the swing passes the vertical moving right
        self.prev_angle = world.swing.angle
        self.motors = [rec for rec in sim.joints.values() if rec.kind == "pivot"
                       and sim.design is not None and any(j.id == rec.id and j.motor_speed is not None
                                                          for j in sim.design.joints)]
        self.motor_turn = [0.0 for _ in self.motors]
        self.prev_motor = [r.joint.angle for r in self.motors]
        self.marks = [0.25, 0.5, 0.75]
        self.prev_w = world.swing.angularVelocity
        self.release = (abs(math.degrees(world.swing.angle)), world.seat_height() - SEAT_Y)

    def tick(self, step: int) -> bool:
        if self.release is not None:
            self.sim.event("phase", f"the swing is released {self.release[0]:.1f} degrees from the vertical (the "
                                    f"seat {self.release[1]:.2f} m above its lowest point)", 0)
            self.release = None
        sw = self.world.swing
        a = sw.angle
        h = self.world.seat_height() - SEAT_Y
        if h > self.best:
            self.best, self.best_step = h, step
        self.max_angle = max(self.max_angle, abs(math.degrees(a)))
        while self.marks and self.best >= self.marks[0] * self.target:
            self.sim.event("phase", f"the seat first rises {self.best:.2f} m ({100 * self.marks[0]:.0f}% of the "
                                    f"target), swinging {abs(math.degrees(a)):.0f} degrees from the vertical", step)
            self.marks.pop(0)
        w = sw.angularVelocity
        if self.prev_w < 0.0 <= w and step > 1:  # a turning point on the left: one event per cycle
            self.sim.event("phase", f"the swing turns back at {abs(math.degrees(a)):.1f} degrees on the left "
                                    f"(seat {h:.2f} m up)", step)
            self.turns["left"] = h
        elif self.prev_w > 0.0 >= w and step > 1:
            self.turns["right"] = h
        self.prev_w = w
        if self.prev_angle < 0.0 <= a:
            self.crossings.append(step / 60.0)
        self.prev_angle = a
        for i, rec in enumerate(self.motors):
            if rec.joint is not None:
                ang = rec.joint.angle
                self.motor_turn[i] += abs(ang - self.prev_motor[i])
                self.prev_motor[i] = ang
        if self.reach_step is None and h >= self.target and step <= self.limit_steps:
            self.reach_step = step
            self.sim.event("phase", f"the seat reaches {h:.2f} m above its lowest point", step)
        # a swing, not a kick: the seat must turn at the height on both sides in succession
        swinging = all(t is not None and t >= self.target for t in self.turns.values())
        hold = self.success
        if hold.update(step, swinging, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the seat has turned at least {self.target:g} m up on both sides and kept "
                                   f"swinging that high for {hold.rule.seconds:g} s", step)
            return True
        return step >= self.limit_steps and not hold.running

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        constraints = [
            Constraint("rider_intact", "no joint of the rider mechanism breaks", passed=not broken,
                       value=float(len(broken)), limit=0.0, unit="broken joints",
                       step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step} ({broken[0].broken_by})"
                       if broken else ""),
        ]
        goal_met = self.goal_step is not None
        failure = None
        if broken:
            failure = (broken[0].broken_step, f"joint {broken[0].id} of the rider broke")
        if not goal_met and failure is None:
            if self.reach_step is None:
                failure = (sim.steps, f"the seat rose at most {self.best:.2f} m (target {self.target:g} m)")
            else:
                failure = (sim.steps, f"the seat rose {self.best:.2f} m but did not turn at {self.target:g} m up on "
                                      f"both sides in succession (latest turns: left "
                                      f"{self.turns['left'] or 0.0:.2f} m, right {self.turns['right'] or 0.0:.2f} m)")
        periods = [b - a for a, b in zip(self.crossings, self.crossings[1:])]
        t = max(sim.steps, 1) / 60.0
        speeds = [round(turn / t, 3) for turn in self.motor_turn]
        return Outcome(goal_met=goal_met, progress=min(1.0, self.best / self.target),
                       goal=f"the seat rose {self.best:.2f} m above its lowest point (target {self.target:g} m)",
                       constraints=constraints, failure=failure,
                       terminal={"best_height": round(self.best, 3), "best_time": round(self.best_step / 60.0, 3),
                                 "max_angle": round(self.max_angle, 2),
                                 "angle": round(math.degrees(self.world.swing.angle), 2),
                                 "period_first": round(periods[0], 3) if periods else None,
                                 "period_last": round(periods[-1], 3) if periods else None,
                                 "cycles": len(periods), "motor_mean_speed": speeds,
                                 "motor_ids": [r.id for r in self.motors], "target": self.target})
