"""The ball must be lifted to the target height and held there for 2 s; once lifted it must not be
dropped; no joint may break."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

LIFTED = 0.3  # the ball counts as lifted once its underside is this far above the floor


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.ball = world.ball
        self.r = env["ball_radius"]
        self.target = env["target_height"]
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.start = self.ball.position.y
        self.best = self.start
        self.lift_step = None
        self.drop_step = None
        self.reach_step = None
        self.goal_step = None
        self.grasp_step = None

    def tick(self, step: int) -> bool:
        sim = self.sim
        b = self.ball
        y = b.position.y
        if y > self.best:
            self.best = y
        touching = [e.other for e in b.contacts if e.contact.touching]
        on_floor = sim.ground in touching
        if self.grasp_step is None and any(o != sim.ground for o in touching):
            self.grasp_step = step
            sim.event("contact", f"the gripper first touches the ball (centre at y = {y:.2f} m)", step)
        if self.lift_step is None and y - self.r >= LIFTED:
            self.lift_step = step
            sim.event("phase", f"the ball is off the floor (underside {LIFTED:g} m up)", step)
        if self.lift_step is not None and self.drop_step is None and on_floor:
            self.drop_step = step
            sim.event("failure", f"the ball slipped from the gripper and fell back to the floor at x = "
                                 f"{b.position.x:.2f} m", step)
        hold = self.success
        if y >= self.target and hold.since is None and self.reach_step is None:
            self.reach_step = step
            sim.event("phase", f"the ball's centre reaches {self.target:g} m", step)
        if y < self.target and hold.since is not None:
            sim.event("phase", f"the ball sinks below {self.target:g} m (centre at {y:.2f} m)", step)
        if hold.update(step, y >= self.target) and self.goal_step is None:
            self.goal_step = step
            sim.event("goal", f"the ball has been held at or above {self.target:g} m for "
                              f"{hold.rule.seconds:g} s", step)
        return self.goal_step is not None or self.drop_step is not None or step >= self.limit_steps

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        b = self.ball
        y = b.position.y
        span = self.target - self.start
        progress = max(0.0, min(1.0, (self.best - self.start) / span)) if span > 0 else 0.0
        if self.goal_step is None:
            progress *= 0.95
        constraints = [
            Constraint("ball_not_dropped", "once lifted off the floor, the ball never falls back to it",
                       passed=self.drop_step is None, value=0.0 if self.drop_step is None else 1.0, limit=0.0,
                       unit="drops", step=self.drop_step),
            Constraint("gripper_intact", "no joint of the gripper breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step}" if broken else ""),
        ]
        failure = None
        for st, why in ((broken[0].broken_step if broken else None, "a joint of the gripper broke"),
                        (self.drop_step, "the ball slipped out of the gripper")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        goal_met = self.goal_step is not None
        if not goal_met and failure is None:
            if self.grasp_step is None:
                failure = (sim.steps, "the gripper never touched the ball")
            elif self.lift_step is None:
                failure = (sim.steps, f"time ran out and the ball never left the floor (its centre at {y:.2f} m)")
            elif self.reach_step is None:
                failure = (sim.steps, f"time ran out with the ball's centre at {y:.2f} m (highest {self.best:.2f} m; "
                                      f"goal {self.target:g} m)")
            else:
                failure = (sim.steps, f"the ball reached {self.target:g} m but was not held there for "
                                      f"{self.success.rule.seconds:g} s")
        v = b.linearVelocity
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"ball's centre at {y:.2f} m, highest {self.best:.2f} m (goal: at least {self.target:g} m "
                            f"for {self.success.rule.seconds:g} s)",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(b.position.x, 3), "y": round(y, 3), "best": round(self.best, 3),
                                 "speed": round(v.length, 3), "grasp_step": self.grasp_step,
                                 "lift_step": self.lift_step, "reach_step": self.reach_step, "broken": len(broken)})
