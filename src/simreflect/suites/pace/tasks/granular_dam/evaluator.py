"""At most the allowed share of grains may get past the dam; the dam must hold and stay put."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import LEAK_X

MOVE_LIMIT = 0.5
CHECK_EVERY = 15


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.grains = world.grains
        self.n = len(self.grains)
        self.allowed = env["allowed_leak"]
        self.limit_steps = int(round(env["surge_time"] * 60))
        self.parts = [(pid, sim.parts[pid], (sim.parts[pid].position.x, sim.parts[pid].position.y))
                      for pid in sim.parts]
        self.max_move = 0.0
        self.move_step = None
        self.moved_part = ""
        self.first_leak = None
        self.over_limit_step = None
        self.leaked = 0
        self.peak_front = -1e9
        self.reached_dam = None

    def _leaked(self) -> int:
        return sum(1 for g in self.grains if g.position.x > LEAK_X)

    def tick(self, step: int) -> bool:
        if step % CHECK_EVERY and step < self.limit_steps:
            return False
        leaked = self._leaked()
        self.leaked = leaked
        if self.reached_dam is None:
            front = max(g.position.x for g in self.grains)
            if front > -2.0:
                self.reached_dam = step
                self.sim.event("phase", "the grain front reaches the dam site (x = -2 m)", step)
        if leaked and self.first_leak is None:
            self.first_leak = step
            self.sim.event("leak", "the first grain gets past the dam", step)
        if leaked > self.allowed * self.n and self.over_limit_step is None:
            self.over_limit_step = step
            self.sim.event("failure", f"leaked grains exceed the allowed {100 * self.allowed:g}% "
                                      f"({leaked} of {self.n})", step)
        for pid, body, (x0, y0) in self.parts:
            p = body.position
            d = math.hypot(p.x - x0, p.y - y0)
            if d > self.max_move:
                self.max_move = d
                self.moved_part = pid
                if d > MOVE_LIMIT and self.move_step is None:
                    self.move_step = step
                    self.sim.event("failure", f"dam part {pid} has moved {d:.2f} m from where it was built", step)
        self.success.update(step, leaked <= self.allowed * self.n + 1e-9)
        return step >= self.limit_steps

    def finish(self) -> Outcome:
        sim = self.sim
        leaked = self._leaked()
        broken = sim.broken_joints()
        frac = leaked / self.n if self.n else 0.0
        goal_met = self.success.conclude(sim.steps >= self.limit_steps) and frac <= self.allowed + 1e-12
        constraints = [
            Constraint("dam_intact", "no joint of the dam breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step} ({broken[0].broken_by})"
                       if broken else ""),
            Constraint("dam_in_place", f"no part of the dam moves more than {MOVE_LIMIT:g} m",
                       passed=self.move_step is None, value=round(self.max_move, 3), limit=MOVE_LIMIT, unit="m",
                       step=self.move_step, detail=f"largest: {self.moved_part}" if self.moved_part else ""),
        ]
        failure = None
        for st, why in ((broken[0].broken_step if broken else None, "a joint of the dam broke"),
                        (self.move_step, "the dam was pushed out of place"),
                        (self.over_limit_step, "too many grains got past the dam")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not goal_met and failure is None:
            failure = (sim.steps, f"{leaked} of {self.n} grains got past the dam")
        held = 1.0 - frac
        return Outcome(goal_met=goal_met, progress=held,
                       goal=f"{leaked} of {self.n} grains ({100 * frac:.1f}%) got past the dam; at most "
                            f"{100 * self.allowed:g}% may",
                       constraints=constraints, failure=failure,
                       terminal={"leaked": leaked, "grains": self.n, "leak_fraction": round(frac, 4),
                                 "max_move": round(self.max_move, 3), "moved_part": self.moved_part,
                                 "first_leak_step": self.first_leak, "front_step": self.reached_dam})
