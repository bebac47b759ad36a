"""The ball must pass every gate without touching a door and cross the finish line in time."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import BALL_R, MOVE_S, ZONE_X


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.ball = world.ball
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.finish_x = env["finish_x"]
        self.period, self.open_time = env["gate_period"], env["open_time"]
        self.gates = world.gates()
        self.door_bodies = [b for b, _ in world.doors]
        self.passed: list[float] = []  # time the ball's centre crossed each gate
        self.hit_step = None
        self.hit_gate = None
        self.on_track = None
        self.track_speed = None
        self.finish_step = None
        self.goal_step = None
        self.best_x = self.ball.position.x
        self.prev_vx = 0.0

    def _window(self, phase: float, t: float) -> tuple[float, float]:
        """The open interval (rise start to fall end) of the cycle nearest time t."""
        n = round((t - phase - (MOVE_S + self.open_time / 2)) / self.period)
        start = phase + n * self.period
        return start, start + 2 * MOVE_S + self.open_time

    def tick(self, step: int) -> bool:
        b = self.ball
        p, v = b.position, b.linearVelocity
        t = step / 60.0
        self.best_x = max(self.best_x, p.x)
        if self.on_track is None and p.x > ZONE_X[1] + BALL_R:
            self.on_track = step
            self.track_speed = v.x
            self.sim.event("phase", f"the ball leaves the ramp zone at {v.x:.2f} m/s", step)
        k = len(self.passed)
        if k < len(self.gates) and p.x >= self.gates[k][0]:
            self.passed.append(t)
            a, z = self._window(self.gates[k][1], t)
            self.sim.event("phase", f"the ball passes gate {k + 1} (x = {self.gates[k][0]:g} m) at t = {t:.2f} s "
                                    f"moving at {v.x:.2f} m/s; that cycle the gate opened at t = {a:.2f} s and "
                                    f"closed at t = {z:.2f} s", step)
        if self.hit_step is None:
            for edge in b.contacts:
                if edge.contact.touching and edge.other in self.door_bodies:
                    i = self.door_bodies.index(edge.other)
                    a, z = self._window(self.gates[i][1], t)
                    self.hit_step, self.hit_gate = step, i + 1
                    when = ("before it had opened far enough" if t < a + MOVE_S else "as it was closing")
                    self.sim.event("contact", f"the ball strikes the door of gate {i + 1} at t = {t:.2f} s, at "
                                              f"{self.prev_vx:.2f} m/s ({when}; that cycle the gate opened at t = {a:.2f} s and "
                                              f"closed at t = {z:.2f} s)", step)
                    break
        self.prev_vx = v.x
        hold = self.success
        if self.finish_step is None and p.x >= self.finish_x and step <= self.limit_steps:
            self.finish_step = step
            self.sim.event("phase", f"the ball crosses the finish line at t = {t:.2f} s", step)
        if hold.update(step, p.x >= self.finish_x, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the ball has stayed past the finish line for {hold.rule.seconds:g} s", step)
            return True
        if self.hit_step is not None and step > self.hit_step + 30:
            return True
        return step >= self.limit_steps and not hold.running

    def finish(self) -> Outcome:
        sim = self.sim
        p = self.ball.position
        n = len(self.gates)
        clean = self.hit_step is None
        constraints = [
            Constraint("clear_passage", "the ball touches no gate door", passed=clean,
                       value=0.0 if clean else 1.0, limit=0.0, unit="door strikes", step=self.hit_step,
                       detail="" if clean else f"it struck gate {self.hit_gate} at step {self.hit_step}"),
        ]
        goal_met = self.goal_step is not None and clean
        failure = None
        if not clean:
            failure = (self.hit_step, f"the ball struck the door of gate {self.hit_gate}")
        elif not goal_met:
            if self.on_track is None:
                failure = (sim.steps, "the ball never left the ramp zone")
            elif self.finish_step is None:
                failure = (sim.steps, f"the ball had not crossed the finish line by the time limit (x = {p.x:.2f} m)")
            else:
                failure = (sim.steps, f"the ball crossed the finish line but did not stay past it for "
                                      f"{self.success.rule.seconds:g} s (x = {p.x:.2f} m)")
        through = len(self.passed) if clean else max(0, min(len(self.passed), (self.hit_gate or 1) - 1))
        reach = max(0.0, min(1.0, self.best_x / self.finish_x))
        progress = (through + (reach if through == n else 0.0)) / (n + 1)
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"{through} of {n} gates passed cleanly; ball at x = {p.x:.2f} m (finish line x = "
                            f"{self.finish_x:g} m)",
                       constraints=constraints, failure=failure,
                       terminal={"ball_x": round(p.x, 3), "ball_speed": round(self.ball.linearVelocity.x, 3),
                                 "track_step": self.on_track,
                                 "track_speed": None if self.track_speed is None else round(self.track_speed, 3),
                                 "gates": [[x, round(ph, 3)] for x, ph in self.gates],
                                 "pass_times": [round(t, 3) for t in self.passed], "hit_gate": self.hit_gate,
                                 "hit_time": None if self.hit_step is None else round(self.hit_step / 60.0, 3),
                                 "finish_time": None if self.finish_step is None else round(self.finish_step / 60.0, 3),
                                 "finish_x": self.finish_x})
