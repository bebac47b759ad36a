"""No rock may enter the keep-clear space, the shelter may not intrude into it and no joint may
break, from the first rock until 2 s after the last."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import KEEP

AFTER_S = 2.0
INTRUDE_TOL = 0.02


def _rect_distance(x: float, y: float) -> float:
    x0, x1, y0, y1 = KEEP
    dx = max(x0 - x, 0.0, x - x1)
    dy = max(y0 - y, 0.0, y - y1)
    return (dx * dx + dy * dy) ** 0.5


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.r = env["rock_radius"]
        last = world.schedule[-1][0] if world.schedule else 0
        self.end = last + int(round(AFTER_S * 60))
        self.hits = []  # (step, rock name)
        self.hit_names = set()
        self.intrusion = None  # (step, part id, depth)
        self.deepest = 0.0
        self.deepest_part = ""
        self.first_contact = {}
        self.parts = [(pid, body) for pid, body in sim.parts.items()]
        self.announced = False
        self.struck = {}  # rock index -> step of its first blow on the shelter
        self.last_speed = {}
        self.design_bodies = {body: pid for pid, body in sim.parts.items()}

    def _intrusion(self) -> tuple[float, str]:
        x0, x1, y0, y1 = KEEP
        worst, who = 0.0, ""
        for pid, body in self.parts:
            xf = body.transform
            for fx in body.fixtures:
                shape = fx.shape
                verts = getattr(shape, "vertices", None)
                if not verts:
                    continue
                for v in verts:
                    px, py = xf * v
                    if x0 < px < x1 and y0 < py < y1:
                        d = min(px - x0, x1 - px, py - y0, y1 - py)
                        if d > worst:
                            worst, who = d, pid
        return worst, who

    def tick(self, step: int) -> bool:
        sim, w = self.sim, self.world
        for idx, body in enumerate(w.rocks, start=1):
            p = body.position
            v = body.linearVelocity
            if idx not in self.struck:
                for ce in body.contacts:
                    if ce.contact.touching and ce.other in self.design_bodies:
                        self.struck[idx] = step
                        u = self.last_speed.get(idx, (v.x ** 2 + v.y ** 2) ** 0.5)
                        sim.event("impact", f"rock {idx} strikes part {self.design_bodies[ce.other]} at x = {p.x:.2f} m, "
                                            f"y = {p.y:.2f} m, at {u:.1f} m/s", step)
                        break
            self.last_speed[idx] = (v.x ** 2 + v.y ** 2) ** 0.5
            if _rect_distance(p.x, p.y) < self.r - 0.01:
                if idx not in self.hit_names:
                    self.hit_names.add(idx)
                    self.hits.append((step, idx))
                    sim.event("failure", f"rock {idx} enters the keep-clear space at x = {p.x:.2f} m, "
                                         f"y = {p.y:.2f} m", step)
        if step % 4 == 0:
            d, who = self._intrusion()
            if d > self.deepest:
                self.deepest, self.deepest_part = d, who
            if d > INTRUDE_TOL and self.intrusion is None:
                self.intrusion = (step, who, d)
                sim.event("failure", f"part {who} of the shelter reaches {d:.2f} m into the keep-clear space", step)
        if w.rocks and not self.announced:
            self.announced = True
            sim.event("phase", "the first rock is released", step)
        self.success.update(step, not self.hits and self.intrusion is None)
        return step >= self.end

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        n = len(self.world.schedule)
        released = len(self.world.rocks)
        done = sim.steps >= self.end
        goal_met = self.success.conclude(done and released == n)
        constraints = [
            Constraint("shelter_intact", "no joint breaks", passed=not broken, value=float(len(broken)), limit=0.0,
                       unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=(f"first: {broken[0].id} ({broken[0].a}-{broken[0].b}) at step {broken[0].broken_step} "
                               f"({broken[0].broken_by})" if broken else "")),
            Constraint("space_clear", "the shelter never reaches into the keep-clear space",
                       passed=self.intrusion is None, value=round(self.deepest, 3), limit=INTRUDE_TOL, unit="m",
                       step=None if self.intrusion is None else self.intrusion[0],
                       detail=f"deepest: {self.deepest_part}" if self.deepest_part else ""),
        ]
        failure = None
        for st, why in ((self.hits[0][0] if self.hits else None,
                         f"rock {self.hits[0][1]} reached the keep-clear space" if self.hits else ""),
                        (broken[0].broken_step if broken else None,
                         f"joint {broken[0].id} of the shelter broke ({broken[0].broken_by})" if broken else ""),
                        (None if self.intrusion is None else self.intrusion[0],
                         "the shelter collapsed into the keep-clear space")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not goal_met and failure is None:
            failure = (sim.steps, "the run did not complete")
        # progress: the share of rocks released before anything went wrong
        first_bad = failure[0] if failure is not None else sim.steps + 1
        safe = sum(1 for st, _ in self.world.schedule if st < first_bad) if not goal_met else n
        if self.hits or self.intrusion is not None or broken:
            safe = max(0, safe - 1)
        progress = safe / n if n else 0.0
        return Outcome(goal_met=goal_met, progress=progress,
                       goal=(f"{len(self.hits)} of {n} rocks reached the keep-clear space; the shelter reached "
                             f"{self.deepest:.2f} m into it"),
                       constraints=constraints, failure=failure,
                       terminal={"rocks": n, "released": released, "hits": len(self.hits),
                                 "first_hit": None if not self.hits else self.hits[0][1],
                                 "deepest": round(self.deepest, 3), "deepest_part": self.deepest_part,
                                 "broken_joints": len(broken)})
