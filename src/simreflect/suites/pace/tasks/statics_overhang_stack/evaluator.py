"""The stack must reach past the table edge by the target overhang and stay there: no block may fall
off and, once the stack has settled, no block may shift."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import SETTLE_S, TABLE_TOP

SHIFT_LIMIT = 0.05  # m a block may move after the stack has settled


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.target = env["target_overhang"]
        self.settle = int(round(SETTLE_S * 60))
        self.end = self.settle + int(round(env["hold_time"] * 60))
        self.reach0 = world.reach()[0] if world.blocks else 0.0
        self.reach = self.reach0
        self.reach_settled = None
        self.min_reach = None  # the least reach after settling
        self.fell = []  # (step, block id)
        self.settled_at = {}
        self.max_shift = 0.0
        self.shift_block = ""
        self.shift_step = None
        if not world.blocks:
            sim.event("failure", "the design has no blocks", 0)

    def tick(self, step: int) -> bool:
        w, sim = self.world, self.sim
        if not w.blocks:
            return True
        self.reach, who = w.reach()
        fallen = {b for _, b in self.fell}
        for pid, body in w.blocks:
            p = body.position
            if pid not in fallen and p.y < TABLE_TOP:
                self.fell.append((step, pid))
                sim.event("failure", f"block {pid} falls off (centre at x = {p.x:.2f} m, below the table top)", step)
        if step == self.settle:
            self.settled_at = {pid: (body.position.x, body.position.y) for pid, body in w.blocks}
            self.reach_settled = self.reach
            sim.event("phase", f"the stack has settled: it reaches x = {self.reach:.3f} m (block {who}); the hold "
                               "starts", step)
        if step >= self.settle and self.settled_at:
            self.min_reach = self.reach if self.min_reach is None else min(self.min_reach, self.reach)
            for pid, body in w.blocks:
                x0, y0 = self.settled_at[pid]
                p = body.position
                d = math.hypot(p.x - x0, p.y - y0)
                if d > self.max_shift:
                    self.max_shift, self.shift_block = d, pid
                    if d > SHIFT_LIMIT and self.shift_step is None:
                        self.shift_step = step
                        sim.event("failure", f"block {pid} has shifted {d:.3f} m since the stack settled", step)
        if step >= self.settle:
            self.success.update(step, not self.fell and self.reach >= self.target)
        if len(self.fell) == len(w.blocks):
            return True
        return step >= self.end

    def finish(self) -> Outcome:
        sim = self.sim
        n = len(self.world.blocks)
        reach = self.reach
        done = sim.steps >= self.end
        goal_met = self.success.conclude(done) and not self.fell and reach >= self.target and n > 0
        constraints = [
            Constraint("nothing_falls", "no block falls off the table", passed=not self.fell and n > 0,
                       value=float(len(self.fell)), limit=0.0, unit="blocks",
                       step=self.fell[0][0] if self.fell else None,
                       detail=f"first: {self.fell[0][1]}" if self.fell else ""),
            Constraint("stack_still", f"after settling, no block shifts more than {SHIFT_LIMIT:g} m",
                       passed=self.shift_step is None, value=round(self.max_shift, 4), limit=SHIFT_LIMIT, unit="m",
                       step=self.shift_step, detail=f"largest: {self.shift_block}" if self.shift_block else ""),
        ]
        failure = None
        for st, why in ((self.fell[0][0] if self.fell else None, "a block fell off the table"),
                        (self.shift_step, "a block shifted after the stack had settled")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not goal_met and failure is None:
            failure = (sim.steps, f"the stack reaches x = {reach:.3f} m, short of the target {self.target:g} m")
        progress = 0.0 if self.fell or n == 0 else max(0.0, min(1.0, reach / self.target))
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"the stack reaches x = {reach:.3f} m past the table edge (target >= {self.target:g} m)",
                       constraints=constraints, failure=failure,
                       terminal={"reach": round(reach, 4), "reach_built": round(self.reach0, 4),
                                 "reach_settled": None if self.reach_settled is None else round(self.reach_settled, 4),
                                 "min_reach": None if self.min_reach is None else round(self.min_reach, 4),
                                 "blocks": n, "fallen": len(self.fell), "max_shift": round(self.max_shift, 4),
                                 "shift_block": self.shift_block})
