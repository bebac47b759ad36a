"""Small grains must pass into the fines bin; large grains must be kept out of it."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import BIN_WALL, FINES, REJECT_X, ZONE

CHECK_EVERY = 15


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.w = world
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.end = self.limit_steps + self.success.rule.steps  # the bins' state at the limit must last this long
        self.need = env["pass_fraction"]
        self.allow = env["large_allowed"]
        self.first_large = None
        self.over_step = None

    @staticmethod
    def census(bodies) -> dict:
        f0, f1 = FINES
        c = {"fines": 0, "reject": 0, "held": 0, "other": 0}
        for g in bodies:
            p = g.position
            if f0 < p.x < f1 and p.y < BIN_WALL:
                c["fines"] += 1
            elif f1 < p.x < REJECT_X and p.y < BIN_WALL:
                c["reject"] += 1
            elif p.y > ZONE[2] - 0.3 and ZONE[0] - 0.5 < p.x < ZONE[1] + 0.5:
                c["held"] += 1
            else:
                c["other"] += 1
        return c

    def tick(self, step: int) -> bool:
        if step % CHECK_EVERY and step < self.end:
            return False
        large = self.census(self.w.large)
        if large["fines"] and self.first_large is None:
            self.first_large = step
            self.sim.event("leak", "the first large grain lands in the fines bin", step)
        if large["fines"] > self.allow * self.w.n_large + 1e-9 and self.over_step is None:
            self.over_step = step
            self.sim.event("failure", f"large grains in the fines bin exceed the allowed {100 * self.allow:g}% "
                                      f"({large['fines']} of {self.w.n_large})", step)
        if step >= self.limit_steps:
            w = self.w
            fines = self.census(w.small)["fines"]
            self.success.update(step, (fines / w.n_small if w.n_small else 1.0) >= self.need - 1e-9
                                and large["fines"] <= self.allow * w.n_large + 1e-9)
        return step >= self.end

    def finish(self) -> Outcome:
        sim, w = self.sim, self.w
        small, large = self.census(w.small), self.census(w.large)
        pending = w.n - w.released
        small["other"] += max(0, w.n_small - len(w.small))
        large["other"] += max(0, w.n_large - len(w.large))
        ns, nl = w.n_small, w.n_large
        fs = small["fines"] / ns if ns else 1.0
        fl = large["fines"] / nl if nl else 0.0
        broken = sim.broken_joints()
        passed_ok = fs >= self.need - 1e-9
        held_ok = fl <= self.allow + 1e-9
        goal_met = self.success.conclude(sim.steps >= self.end) and passed_ok and held_ok
        constraints = [
            Constraint("screen_intact", "no joint of the screen breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step} ({broken[0].broken_by})"
                       if broken else ""),
        ]
        failure = (broken[0].broken_step, f"joint {broken[0].id} of the screen broke") if broken else None
        if self.over_step is not None and (failure is None or self.over_step < failure[0]):
            failure = (self.over_step, "too many large grains got through into the fines bin")
        if not goal_met and failure is None:
            failure = (sim.steps, f"only {small['fines']} of {ns} small grains reached the fines bin "
                                  f"(at least {100 * self.need:g}% required)")
        progress = min(1.0, fs / self.need if self.need else 1.0) * (1.0 - fl)
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"{small['fines']} of {ns} small grains ({100 * fs:.0f}%) and {large['fines']} of {nl} "
                            f"large grains ({100 * fl:.0f}%) in the fines bin; required at least "
                            f"{100 * self.need:g}% of the small, at most {100 * self.allow:g}% of the large",
                       constraints=constraints, failure=failure,
                       terminal={"small": small, "large": large, "n_small": ns, "n_large": nl, "pending": pending,
                                 "first_large_step": self.first_large, "time": round(sim.steps / 60.0, 3)})
