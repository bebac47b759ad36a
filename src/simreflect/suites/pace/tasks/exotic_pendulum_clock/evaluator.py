"""The pendulum must beat the target period (mean of its full swings) and still swing wide enough
at the end; it must stay inside the case, and the bracket and joints must hold."""

from __future__ import annotations

import math

from Box2D import b2PolygonShape

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

MIN_SWINGS = 3


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.target = env["target_period"]
        self.tol = env["period_tolerance"]
        self.min_amp = env["min_amplitude"]
        self.w, self.d = env["case_half_width"], env["case_depth"]
        self.body = world.pendulum
        self.prev_w = None
        self.a0 = 0.0 if self.body is None else self.body.angle  # the declared pose
        self.prev_a = None
        self.turns = []  # (time s, angle rad, sign of the swing that ended)
        self.out_step = None
        self.out_what = ""

    def tick(self, step: int) -> bool:
        body = self.body
        if body is None:
            return True
        w, a = body.angularVelocity, body.angle
        t = step / 60.0
        if self.prev_w is not None and (self.prev_w > 0 >= w or self.prev_w < 0 <= w) and self.prev_w != w:
            f = self.prev_w / (self.prev_w - w)  # the turning point, interpolated within the step
            self.turns.append((t - (1 - f) / 60.0, self.prev_a + f * (a - self.prev_a), 1 if self.prev_w > 0 else -1))
        self.prev_w, self.prev_a = w, a
        if self.out_step is None and step % 2 == 0:
            for pid, part in self.sim.parts.items():
                for fx in part.fixtures:
                    if isinstance(fx.shape, b2PolygonShape):
                        for v in fx.shape.vertices:
                            p = part.transform * v
                            if abs(p[0]) > self.w + 0.02 or p[1] < -self.d - 0.02:
                                self.out_step, self.out_what = step, pid
                                self.sim.event("failure", f"{pid} swung out of the case at ({p[0]:.2f}, {p[1]:.2f}) m",
                                               step)
                                break
                    if self.out_step is not None:
                        break
                if self.out_step is not None:
                    break
        broken = self.sim.broken_joints()
        tt = self.turns
        wide = len(tt) >= 2 and math.degrees(abs(tt[-1][1] - tt[-2][1]) / 2) >= self.min_amp
        self.success.update(step, wide and self.out_step is None and not broken)
        if broken and step > broken[0].broken_step + 60:
            return True
        return step >= self.limit_steps

    def _periods(self):
        """Full periods: between turning points two apart (same side)."""
        tt = self.turns
        return [tt[i + 2][0] - tt[i][0] for i in range(len(tt) - 2)]

    def _amplitudes(self):
        tt = self.turns
        return [abs(tt[i + 1][1] - tt[i][1]) / 2 for i in range(len(tt) - 1)]

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        periods = self._periods()
        amps = self._amplitudes()
        mean = sum(periods) / len(periods) if periods else None
        amp_start = math.degrees(amps[0]) if amps else 0.0
        amp_end = math.degrees(amps[-1]) if amps else 0.0
        centre = None
        if len(self.turns) >= 2:
            centre = math.degrees((self.turns[-1][1] + self.turns[-2][1]) / 2 - self.a0)
        err = None if mean is None else (mean - self.target) / self.target
        swinging = len(periods) >= MIN_SWINGS
        on_time = swinging and abs(err) <= self.tol
        wide = swinging and amp_end >= self.min_amp
        kept = self.success.conclude(sim.steps >= self.limit_steps)  # wide on every half-swing of the last period
        constraints = [
            Constraint("inside_case", "no part ever leaves the clock case", passed=self.out_step is None,
                       value=0.0 if self.out_step is None else 1.0, limit=0.0, unit="exits", step=self.out_step,
                       detail=f"{self.out_what} at step {self.out_step}" if self.out_step is not None else ""),
            Constraint("clock_intact", "no joint of the pendulum breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"{broken[0].id} at step {broken[0].broken_step} ({broken[0].broken_by})" if broken
                       else ""),
        ]
        failure = None
        if self.out_step is not None:
            failure = (self.out_step, "the pendulum swung out of the case")
        if broken and (failure is None or broken[0].broken_step < failure[0]):
            failure = (broken[0].broken_step, f"joint {broken[0].id} broke")
        if failure is None and not (on_time and wide):
            if self.body is None:
                failure = (sim.steps, "nothing is pinned to the clock's pivot")
            elif not swinging:
                failure = (sim.steps, f"the pendulum completed only {len(periods)} full swings")
            elif not on_time:
                failure = (sim.steps, f"the pendulum's period is {mean:.4f} s, {100 * err:+.2f}% from the target "
                                      f"{self.target:g} s (tolerance {100 * self.tol:g}%)")
            elif not wide:
                failure = (sim.steps, f"the swing died down to {amp_end:.2f} degrees (at least {self.min_amp:g} "
                                      "needed)")
        if failure is None and not kept:
            failure = (sim.steps, f"the swing was not at least {self.min_amp:g} degrees on every half-swing of the "
                                  f"last {self.success.rule.seconds:g} s ({self.success.describe()})")
        progress = 0.0
        if swinging:
            progress = max(0.0, 1.0 - abs(err) / 0.1) * min(1.0, amp_end / self.min_amp)
        goal = ("no full swing measured" if mean is None else
                f"mean period {mean:.4f} s ({100 * err:+.2f}% from {self.target:g} s, tolerance "
                f"{100 * self.tol:g}%); swing at the end {amp_end:.2f} degrees (at least {self.min_amp:g})")
        return Outcome(goal_met=on_time and wide and kept, progress=progress, goal=goal, constraints=constraints,
                       failure=failure,
                       terminal={"periods": len(periods), "mean": None if mean is None else round(mean, 5),
                                 "first": round(periods[0], 5) if periods else None,
                                 "last": round(periods[-1], 5) if periods else None,
                                 "amp_start": round(amp_start, 3), "amp_end": round(amp_end, 3),
                                 "centre": None if centre is None else round(centre, 2),
                                 "pinned": self.body is not None})
