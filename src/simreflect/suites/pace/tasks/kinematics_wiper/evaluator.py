"""Every piece of debris must end up over the trough's right lip, in the bin, within the time; none
may be flung out elsewhere; the wiper stays in its zone; no joint may break."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import geometry


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.debris = world.debris
        self.n = len(self.debris)
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.off = [None] * self.n  # step each piece went over the edge
        self.goal_step = None
        self.lost_step = None
        self.best = 0
        self.parts = [(sim.parts[p.id], p.id) for p in sim.design.parts]
        R, _, lip = geometry(env)
        self.R, self.lip = R, lip
        self.box = (-R - 0.8, R + 0.8, -0.5, env["zone_height"] + 0.5)
        self.out_step = None
        self.still_since = None
        self.stall_step = None
        self.stall_from = None
        self.every = sim.settings.tick_every

    def over(self, p) -> bool:
        """Over the right lip and fallen into the bin."""
        return p.x > self.lip[0] and p.y < self.lip[1] - 0.3

    def tick(self, step: int) -> bool:
        sim = self.sim
        count = 0
        for i, b in enumerate(self.debris):
            p = b.position
            if self.over(p):
                count += 1
                if self.off[i] is None:
                    self.off[i] = step
            if self.lost_step is None and (p.x < -self.R - 0.5 or p.y > self.box[3] + 2.0):
                self.lost_step = step
                sim.event("failure", f"a piece of debris was thrown out over the left lip or high into the air "
                                     f"(at x = {p.x:.2f} m, y = {p.y:.2f} m)", step)
        if self.out_step is None:
            x0, x1, y0, y1 = self.box
            for body, pid in self.parts:
                p = body.position
                if not (x0 <= p.x <= x1 and y0 <= p.y <= y1):
                    self.out_step = step
                    sim.event("failure", f"part {pid} of the wiper left the zone (at x = {p.x:.2f} m, y = {p.y:.2f} m)",
                              step)
                    break
        moving = any(b.linearVelocity.length > 0.05 or abs(b.angularVelocity) > 0.05 for b, _ in self.parts)
        if moving:
            self.still_since = None
        elif self.still_since is None:
            self.still_since = step
        elif self.stall_step is None and count < self.n and step - self.still_since >= 60:
            self.stall_step = step
            self.stall_from = self.still_since
            sim.event("phase", "the wiper has stood still for 1 s with debris left in the trough (its motors "
                               "stalled)", step)
        if count > self.best:
            if self.best < self.n // 2 <= count:
                sim.event("phase", f"half the debris ({count} of {self.n}) is in the bin", step)
            self.best = count
        hold = self.success
        reached = count == self.n
        if reached and hold.first_step is None and step <= self.limit_steps:
            sim.event("phase", f"all {self.n} pieces of debris are in the bin", step)
        if hold.update(step, reached, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            sim.event("goal", f"all {self.n} pieces of debris have stayed in the bin for {hold.rule.seconds:g} s", step)
        return self.goal_step is not None or (step >= self.limit_steps and not hold.running)

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        done = sum(1 for b in self.debris if self.over(b.position))
        left = [b.position.x for b in self.debris if not self.over(b.position)]
        constraints = [
            Constraint("debris_contained", "no debris is flung out over the left lip or high into the air",
                       passed=self.lost_step is None, value=0.0 if self.lost_step is None else 1.0, limit=0.0,
                       unit="pieces", step=self.lost_step),
            Constraint("wiper_in_place", "no part of the wiper leaves the zone", passed=self.out_step is None,
                       value=0.0 if self.out_step is None else 1.0, limit=0.0, unit="parts", step=self.out_step),
            Constraint("wiper_intact", "no joint of the wiper breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step}" if broken else ""),
        ]
        failure = None
        for st, why in ((broken[0].broken_step if broken else None, "a joint of the wiper broke"),
                        (self.lost_step, "debris was flung out of the trough"),
                        (self.out_step, "part of the wiper left the zone")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        goal_met = self.goal_step is not None
        if not goal_met and failure is None:
            failure = (sim.steps, self.success.not_held("all the debris in the bin")
                       or f"time ran out with {len(left)} of {self.n} pieces still in the trough")
        return Outcome(goal_met=goal_met, progress=done / self.n if self.n else 0.0,
                       goal=f"{done} of {self.n} pieces of debris swept over the lip into the bin (goal: all of them)",
                       constraints=constraints, failure=failure,
                       terminal={"done": done, "n": self.n, "left_min": round(min(left), 3) if left else None,
                                 "left_max": round(max(left), 3) if left else None,
                                 "last_step": max((s for s in self.off if s is not None), default=None),
                                 "stall_step": self.stall_from,
                                 "broken": len(broken)})
