"""The flywheel must hold its set speed within the band (outside it for at most the allowance)
through the load changes, never overspeed and never overheat its brake."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import DT, HOIST, LATE, SWITCH_OFF, SWITCH_ON

WATCH_FROM = 1.0  # s


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.limit_steps = int(round(env["run_time"] * 60))
        self.band = env["band_pct"] / 100.0
        self.allow = env["max_out_time"]
        self.burst = env["burst_speed"]
        self.temp_max = env["max_brake_temp"]
        self.out_steps = 0
        self.watched = 0
        self.over_step = None
        self.hot_step = None
        self.peak = 0.0
        self.low = float("inf")
        self.peak_temp = 20.0
        self.worst_err = 0.0
        self.worst_at = 0
        self.out_since = None
        self.excursions = 0
        self.marks = [(SWITCH_ON, "the second machine engages"), (SWITCH_OFF, "the second machine disengages"),
                      (LATE, "the set speed changes"), (HOIST, "the hoist starts lowering its load")]
        self.err_sum = 0.0

    def tick(self, step: int) -> bool:
        w = self.world
        ev = self.sim.event
        t = step * DT
        for when, what in list(self.marks):
            if t >= when:
                self.marks.remove((when, what))
                if what != "the set speed changes" or self.env["set_speed_late"] != self.env["set_speed"]:
                    ev("phase", f"{what} (speed {w.wheel.angularVelocity:.2f} rad/s)", step)
        speed = w.wheel.angularVelocity
        self.peak = max(self.peak, speed)
        self.low = min(self.low, speed)
        self.peak_temp = max(self.peak_temp, w.brake_temp)
        if speed > self.burst and self.over_step is None:
            self.over_step = step
            ev("failure", f"the flywheel overspeeds: {speed:.2f} rad/s", step)
        if w.brake_temp > self.temp_max and self.hot_step is None:
            self.hot_step = step
            ev("failure", f"the brake overheats: {w.brake_temp:.0f} C", step)
        if t >= WATCH_FROM:
            ref = w.set_speed(t)
            err = (speed - ref) / ref
            self.watched += self.sim.settings.tick_every
            self.err_sum += abs(err) * self.sim.settings.tick_every
            if abs(err) > abs(self.worst_err):
                self.worst_err, self.worst_at = err, step
            if abs(err) > self.band:
                self.out_steps += self.sim.settings.tick_every
                if self.out_since is None:
                    self.out_since = step
                    self.excursions += 1
                    if self.excursions <= 4:
                        ev("contact", f"the speed leaves the band: {speed:.2f} rad/s against {ref:g} ({100 * err:+.1f}%)",
                           step)
            elif self.out_since is not None:
                if self.excursions <= 4:
                    ev("contact", f"the speed is back in the band after {(step - self.out_since) * DT:.2f} s", step)
                self.out_since = None
        self.success.update(step, self.over_step is None and self.hot_step is None
                            and self.out_steps * DT <= self.allow + 1e-9)
        if self.over_step is not None or self.hot_step is not None:
            return True
        return step >= self.limit_steps

    def finish(self) -> Outcome:
        w = self.world
        out_s = self.out_steps * DT
        constraints = [
            Constraint("no_overspeed", f"the flywheel never exceeds {self.burst:g} rad/s",
                       passed=self.over_step is None, value=round(self.peak, 3), limit=self.burst, unit="rad/s",
                       step=self.over_step),
            Constraint("brake_cool", f"the brake never exceeds {self.temp_max:g} C", passed=self.hot_step is None,
                       value=round(self.peak_temp, 2), limit=self.temp_max, unit="C", step=self.hot_step),
        ]
        finished = self.sim.steps >= self.limit_steps
        goal_met = self.success.conclude(finished)
        failure = None
        cands = [(s, why) for s, why in ((self.over_step, "the flywheel overspeeded"),
                                         (self.hot_step, "the brake overheated")) if s is not None]
        if cands:
            failure = min(cands)
        elif not goal_met:
            failure = (self.sim.steps, f"the speed was outside the +-{100 * self.band:g}% band for {out_s:.2f} s "
                                       f"(allowed {self.allow:g} s); worst {100 * self.worst_err:+.1f}% at "
                                       f"t = {self.worst_at * DT:.2f} s")
        frac_in = 1.0 - self.out_steps / max(1, self.watched)
        progress = max(0.0, min(1.0, frac_in))
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"outside the +-{100 * self.band:g}% band for {out_s:.2f} s of the allowed {self.allow:g} s",
                       constraints=constraints, failure=failure,
                       terminal={"speed": round(w.wheel.angularVelocity, 3), "set": w.set_speed(self.sim.steps * DT),
                                 "peak": round(self.peak, 3), "low": round(self.low, 3),
                                 "worst_err": round(self.worst_err, 4), "worst_at": self.worst_at,
                                 "out_time": round(out_s, 3), "excursions": self.excursions,
                                 "mean_err": round(self.err_sum / max(1, self.watched), 4),
                                 "brake_temp": round(w.brake_temp, 1), "peak_temp": round(self.peak_temp, 1),
                                 "brake_energy": round(w.brake_energy, 1)})
