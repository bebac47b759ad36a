"""The walker's centre of mass must reach the goal; only its feet may touch the ground; its body
must stay upright; no joint may break."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import GOAL_X, STEP_X, TRENCH_X

TILT_DEG = 60.0
FOOT = 0.15  # the last 0.15 m of a beam (or its thickness, if larger) is its foot
DRAG_LIMIT_S = 1.0


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        design = sim.design
        self.bodies = [(sim.parts[p.id], p.mass) for p in design.parts]
        heaviest = max(design.parts, key=lambda p: p.mass, default=None)
        self.body = sim.parts[heaviest.id] if heaviest is not None else None
        self.body_id = heaviest.id if heaviest is not None else ""
        # feet: for each beam, the half length and where its foot starts (local x)
        self.feet = {}
        for p in design.parts:
            if p.kind == "beam":
                self.feet[sim.parts[p.id]] = (p.id, p.width / 2 - max(FOOT, p.height))
        self.names = {sim.parts[p.id]: p.id for p in design.parts}
        self.start_x = self.sim.design_com()[0] if self.bodies else 0.0
        self.best_x = self.start_x
        self.max_tilt = 0.0
        self.tilt_step = None
        self.goal_step = None
        self.low_step = None
        self.drag_ticks = 0
        self.drag_step = None
        self.drag_parts: list[str] = []
        self.every = sim.settings.tick_every
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.milestones = [(STEP_X, "the walker's centre of mass passes the ledge"),
                           (TRENCH_X, "the walker's centre of mass reaches the trench")]

    def _dragging(self) -> list[str]:
        """Design parts touching the ground anywhere but at a foot."""
        ground = self.sim.ground
        out = []
        for edge in ground.contacts:
            c = edge.contact
            if not c.touching:
                continue
            body = edge.other
            if body not in self.names:
                continue
            foot = self.feet.get(body)
            if foot is not None:
                n = c.manifold.pointCount
                pts = c.worldManifold.points[:n]
                if all(abs(body.GetLocalPoint(pt)[0]) >= foot[1] for pt in pts):
                    continue
            out.append(self.names[body])
        return out

    def tick(self, step: int) -> bool:
        if not self.bodies:
            return step >= self.limit_steps
        x, y = self.sim.design_com()
        if x > self.best_x:
            self.best_x = x
        while self.milestones and x >= self.milestones[0][0]:
            self.sim.event("phase", self.milestones.pop(0)[1], step)
        tilt = abs(math.degrees(math.remainder(self.body.angle, 2 * math.pi)))
        if tilt > self.max_tilt:
            self.max_tilt = tilt
            if tilt > TILT_DEG and self.tilt_step is None:
                self.tilt_step = step
                self.sim.event("failure", f"the body ({self.body_id}) tilted past {TILT_DEG:g} degrees", step)
        drag = self._dragging()
        if drag:
            self.drag_ticks += 1
            for d in drag:
                if d not in self.drag_parts:
                    self.drag_parts.append(d)
            if self.drag_step is None and self.drag_ticks * self.every / 60.0 > DRAG_LIMIT_S:
                self.drag_step = step
                self.sim.event("failure", f"parts other than feet have touched the ground for more than "
                                          f"{DRAG_LIMIT_S:g} s ({', '.join(self.drag_parts[:4])})", step)
        if y < -0.8 and self.low_step is None:
            self.low_step = step
            self.sim.event("failure", f"the walker fell into the trench (centre of mass at y = {y:.2f} m)", step)
        hold = self.success
        reached = x >= GOAL_X
        if reached and hold.first_step is None and step <= self.limit_steps:
            self.sim.event("phase", f"the walker's centre of mass reaches x = {GOAL_X:g} m", step)
        if hold.update(step, reached, may_start=step <= self.limit_steps) and self.goal_step is None:
            self.goal_step = step
            self.sim.event("goal", f"the walker's centre of mass has stayed past x = {GOAL_X:g} m"
                                   f" for {hold.rule.seconds:g} s", step)
        return (self.goal_step is not None or (step >= self.limit_steps and not hold.running)
                or self.tilt_step is not None
                or self.low_step is not None)

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        x, y = self.sim.design_com() if self.bodies else (0.0, 0.0)
        span = GOAL_X - self.start_x
        progress = max(0.0, min(1.0, (self.best_x - self.start_x) / span)) if span > 0 else 0.0
        drag_s = self.drag_ticks * self.every / 60.0
        constraints = [
            Constraint("legs_only", "only feet touch the ground", passed=self.drag_step is None,
                       value=round(drag_s, 3), limit=DRAG_LIMIT_S, unit="s", step=self.drag_step,
                       detail=f"parts that touched the ground off their feet: {', '.join(self.drag_parts[:6])}"
                       if self.drag_parts else ""),
            Constraint("body_upright", f"the body never tilts more than {TILT_DEG:g} degrees",
                       passed=self.tilt_step is None, value=round(self.max_tilt, 2), limit=TILT_DEG, unit="deg",
                       step=self.tilt_step),
            Constraint("walker_intact", "no joint of the walker breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step}" if broken else ""),
        ]
        failure = None
        for st, why in ((broken[0].broken_step if broken else None, "a joint of the walker broke"),
                        (self.tilt_step, "the walker tipped over"),
                        (self.drag_step, "the walker dragged parts other than its feet on the ground"),
                        (self.low_step, "the walker fell into the trench")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        goal_met = self.goal_step is not None
        if not goal_met and failure is None:
            failure = (sim.steps, self.success.not_held(f"x = {GOAL_X:g} m")
                       or f"time ran out with the walker at x = {self.best_x:.2f} m (goal x >= {GOAL_X:g} m)")
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=f"walker's centre of mass reached x = {self.best_x:.2f} m (goal x >= {GOAL_X:g} m)",
                       constraints=constraints, failure=failure,
                       terminal={"x": round(x, 3), "y": round(y, 3), "best_x": round(self.best_x, 3),
                                 "tilt_deg": round(math.degrees(math.remainder(self.body.angle, 2 * math.pi)), 2)
                                 if self.body is not None else 0.0,
                                 "speed": round(self.body.linearVelocity.length, 3) if self.body is not None else 0.0,
                                 "max_tilt": round(self.max_tilt, 2), "drag_s": round(drag_s, 3),
                                 "broken": len(broken), "body": self.body_id})
