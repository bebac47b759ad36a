"""The tank must stay where it was mounted (within the allowed drift) through the quake; no joint may
break and no ground anchor may be pulled out of its footing."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import AFTER_S, QUAKE_START_S


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.end = int(round((QUAKE_START_S + env["shake_time"] + AFTER_S) * 60))
        self.quake_end = int(round((QUAKE_START_S + env["shake_time"]) * 60))
        self.max_drift = env["max_drift"]
        self.pull_limit = env["anchor_pull"]
        self.x0, self.y0 = world.mount
        self.drift = 0.0
        self.peak_drift = 0.0
        self.peak_drift_step = 0
        self.drift_step = None
        self.ok_until = 0
        # the ground anchors: (joint record, sign turning the joint's reaction into the force on the part)
        self.anchors = [(rec, -1.0 if rec.b == "ground" else 1.0) for rec in sim.joints.values()
                        if "ground" in (rec.a, rec.b)]
        self.peak_pull = 0.0
        self.peak_pull_step = 0
        self.peak_pull_joint = ""
        self.pulled = []  # (step, joint id, pull)
        self.peak_accel = 0.0
        if world.carrier is None:
            sim.event("failure", f"no part covers the tank's mount point (0, {self.y0:g}): the tank falls", 0)

    def tick(self, step: int) -> bool:
        w, sim = self.world, self.sim
        self.peak_accel = max(self.peak_accel, abs(w.ground_accel))
        if step == int(round(QUAKE_START_S * 60)):
            sim.event("phase", "the ground starts to shake", step)
        if step == self.quake_end:
            sim.event("phase", "the shaking stops", step)
        for rec, sign in self.anchors:
            if rec.joint is None:
                continue
            fy = sign * rec.joint.GetReactionForce(60.0).y
            pull = max(0.0, -fy)  # the footing holding the part down
            if pull > self.peak_pull and not self.pulled:  # after a footing lets go, the rest is collapse
                self.peak_pull, self.peak_pull_step, self.peak_pull_joint = pull, step, rec.id
            if pull > self.pull_limit:
                sim.release_joint(rec, step, "uplift", pull)
                self.pulled.append((step, rec.id, pull))
                sim.event("failure", f"ground anchor {rec.id} ({rec.a}-{rec.b}) is pulled out of its footing: uplift "
                                     f"{pull:.0f} N, more than the {self.pull_limit:g} N it holds", step)
        p = w.tank.position
        d = math.hypot(p.x - self.x0, p.y - self.y0)
        self.drift = d
        if d > self.peak_drift:
            self.peak_drift, self.peak_drift_step = d, step
            if d > self.max_drift and self.drift_step is None:
                self.drift_step = step
                sim.event("failure", f"the tank has moved {d:.3f} m from its mount point, more than the allowed "
                                     f"{self.max_drift:g} m", step)
        if self.drift_step is None and w.carrier is not None and not sim.broken_joints():
            self.ok_until = step
        self.success.update(step, self.drift_step is None and not self.pulled and w.carrier is not None
                            and not any(r.broken_by != "uplift" for r in sim.broken_joints()))
        if self.drift_step is not None and p.y < 1.0:
            return True
        return step >= self.end

    def finish(self) -> Outcome:
        sim = self.sim
        broken = [r for r in sim.broken_joints() if r.broken_by != "uplift"]
        ok = self.success.conclude(sim.steps >= self.end)
        constraints = [
            Constraint("structure_intact", "no joint breaks", passed=not broken, value=float(len(broken)), limit=0.0,
                       unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=(f"first: {broken[0].id} ({broken[0].a}-{broken[0].b}) at step {broken[0].broken_step} "
                               f"({broken[0].broken_by})" if broken else "")),
            Constraint("anchors_hold", "no ground anchor is pulled up harder than its footing holds",
                       passed=not self.pulled, value=round(self.peak_pull, 1), limit=self.pull_limit, unit="N",
                       step=self.pulled[0][0] if self.pulled else None,
                       detail=f"first: {self.pulled[0][1]}" if self.pulled else ""),
            Constraint("tank_steady", "the tank never moves more than the allowed drift from its mount point",
                       passed=self.drift_step is None and self.world.carrier is not None,
                       value=round(self.peak_drift, 4), limit=self.max_drift, unit="m", step=self.drift_step),
        ]
        failure = None
        if self.world.carrier is None:
            failure = (0, "nothing holds the tank: no part covers its mount point")
        for st, why in ((broken[0].broken_step if broken else None,
                         f"joint {broken[0].id} broke ({broken[0].broken_by})" if broken else ""),
                        (self.pulled[0][0] if self.pulled else None,
                         f"ground anchor {self.pulled[0][1]} was pulled out" if self.pulled else ""),
                        (self.drift_step, "the tank moved beyond the allowed drift")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not ok and failure is None:
            failure = (sim.steps, "the run did not complete")
        progress = min(1.0, self.ok_until / self.end) if self.end else 0.0
        p = self.world.tank.position
        return Outcome(goal_met=ok, progress=progress,
                       goal=(f"the tank stayed within {self.max_drift:g} m of its mount point for "
                             f"{self.ok_until / 60:.2f} s of {self.end / 60:g} s (largest drift "
                             f"{self.peak_drift:.3f} m)"),
                       constraints=constraints, failure=failure,
                       terminal={"tank_x": round(p.x, 3), "tank_y": round(p.y, 3),
                                 "peak_drift": round(self.peak_drift, 4), "peak_drift_step": self.peak_drift_step,
                                 "peak_pull": round(self.peak_pull, 1), "peak_pull_step": self.peak_pull_step,
                                 "peak_pull_joint": self.peak_pull_joint, "anchors": len(self.anchors),
                                 "anchors_pulled": len(self.pulled), "broken_joints": len(broken),
                                 "ok_s": round(self.ok_until / 60, 3), "run_s": self.end / 60,
                                 "carrier": self.world.carrier or ""})
