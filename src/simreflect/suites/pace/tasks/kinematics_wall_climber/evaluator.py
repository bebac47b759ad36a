"""The climber's centre of mass must reach the target height within the time limit and stay at or
above it, held by the walls, for the card's hold (a climber flung past the height is not held and
fails); it must not slide back down; no joint may break."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

SLIDE = 0.5  # sliding back this far below the best height counts as a fall


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        design = sim.design
        self.bodies = [(sim.parts[p.id], p.mass) for p in design.parts]
        self.parts = [body for body, _ in self.bodies]
        self.target = env["climb_height"]
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.start = self.sim.design_com()[1] if self.bodies else 0.0
        self.best = self.start
        self.fall_step = None
        self.goal_step = None
        self.reach_step = None
        self.half_step = None

    def tick(self, step: int) -> bool:
        if not self.bodies:
            return step >= self.limit_steps
        sim = self.sim
        x, y = self.sim.design_com()
        if y > self.best:
            self.best = y
        if self.half_step is None and y - self.start >= 0.5 * (self.target - self.start):
            self.half_step = step
            sim.event("phase", f"the climber is half way up (centre of mass at {y:.2f} m)", step)
        if self.fall_step is None and y < self.best - SLIDE:
            self.fall_step = step
            sim.event("failure", f"the climber slid down from {self.best:.2f} m to {y:.2f} m", step)
        hold = self.success
        if self.reach_step is None and y >= self.target and step <= self.limit_steps:
            self.reach_step = step
            sim.event("phase", f"the climber's centre of mass reaches {self.target:g} m", step)
        held = y >= self.target and self.world.on_walls(self.parts)
        if hold.update(step, held, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            sim.event("goal", f"the climber's centre of mass has stayed at or above {self.target:g} m, held by "
                              f"the walls, for {hold.rule.seconds:g} s", step)
        return (self.goal_step is not None or self.fall_step is not None
                or (step >= self.limit_steps and not hold.running))

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        x, y = self.sim.design_com() if self.bodies else (0.0, 0.0)
        span = self.target - self.start
        progress = max(0.0, min(1.0, (self.best - self.start) / span)) if span > 0 else 0.0
        constraints = [
            Constraint("no_slide", f"the climber never slides more than {SLIDE:g} m below the highest point it reached",
                       passed=self.fall_step is None, value=round(max(0.0, self.best - y), 3), limit=SLIDE, unit="m",
                       step=self.fall_step),
            Constraint("climber_intact", "no joint of the climber breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step}" if broken else ""),
        ]
        failure = None
        for st, why in ((broken[0].broken_step if broken else None, "a joint of the climber broke"),
                        (self.fall_step, "the climber lost its hold and slid down")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        goal_met = self.goal_step is not None
        if not goal_met and failure is None:
            if self.reach_step is None:
                failure = (sim.steps, f"time ran out with the climber's centre of mass at {y:.2f} m (highest "
                                      f"{self.best:.2f} m; goal {self.target:g} m)")
            else:
                failure = (sim.steps, f"the climber's centre of mass reached {self.target:g} m but did not stay "
                                      f"there, held by the walls, for {self.success.rule.seconds:g} s "
                                      f"({self.success.describe()}; now "
                                      f"at {y:.2f} m)")
        speed = 0.0
        if self.bodies:
            heaviest = max(self.bodies, key=lambda bm: bm[1])[0]
            speed = heaviest.linearVelocity.y
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"climber's centre of mass at {y:.2f} m, highest {self.best:.2f} m "
                            f"(goal {self.target:g} m)",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(x, 3), "y": round(y, 3), "best": round(self.best, 3),
                                 "start": round(self.start, 3), "vy": round(speed, 3), "broken": len(broken)})
