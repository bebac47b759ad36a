"""The hook must hold the load for the whole hold time, sagging no more than allowed; no joint may break."""

from __future__ import annotations

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.task import Outcome, PaceEvaluator

from .world import LOWER_S

LOWER_STEPS = int(round(LOWER_S * 60))
DROP_Y = -3.0  # a hook this far below its place: the cantilever has come down


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.limit_steps = int(round(env["hold_time"] * 60))
        self.max_sag = env["max_sag"]
        self.sag = 0.0
        self.sag_step = None
        self.peak_sag = 0.0
        self.peak_sag_step = 0
        self.held_until = 0
        self.down_step = None
        self.no_hook = world.hook_joint is None
        if self.no_hook:
            sim.event("failure", f"no part of the design covers the hook point ({world.hook[0]:g}, 0): "
                                 "the load drops", 0)

    def tick(self, step: int) -> bool:
        if step == LOWER_STEPS:
            self.sim.event("phase", "the crane has handed the whole load over to the hook", step)
        x, y = self.world.hook_position()
        sag = -y
        self.sag = sag
        if sag > self.peak_sag:
            self.peak_sag, self.peak_sag_step = sag, step
        if sag > self.max_sag and self.sag_step is None:
            self.sag_step = step
            self.sim.event("failure", f"the tip sags {sag:.3f} m below the hook level, more than the allowed "
                                      f"{self.max_sag:g} m", step)
        if self.sag_step is None and not self.no_hook and not self.sim.broken_joints():
            self.held_until = step
        if y < DROP_Y and self.down_step is None:
            self.down_step = step
            self.sim.event("failure", "the tip has dropped more than 3 m: the cantilever came down", step)
        self.success.update(step, self.sag_step is None and not self.no_hook and not self.sim.broken_joints())
        if self.down_step is not None and step > self.down_step + 30:
            return True
        return step >= self.limit_steps

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        x, y = self.world.hook_position()
        held = self.success.conclude(sim.steps >= self.limit_steps)
        constraints = [
            Constraint("structure_intact", "no joint breaks", passed=not broken, value=float(len(broken)), limit=0.0,
                       unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=(f"first: {broken[0].id} ({broken[0].a}-{broken[0].b}) at step {broken[0].broken_step} "
                               f"({broken[0].broken_by})" if broken else "")),
            Constraint("tip_sag", "the hook point never sags more than the allowed deflection",
                       passed=self.sag_step is None and not self.no_hook, value=round(self.peak_sag, 4),
                       limit=self.max_sag, unit="m", step=self.sag_step),
        ]
        failure = None
        if self.no_hook:
            failure = (0, "nothing holds the load: no part covers the hook point")
        for st, why in ((broken[0].broken_step if broken else None,
                         f"joint {broken[0].id} broke ({broken[0].broken_by})" if broken else ""),
                        (self.sag_step, "the tip sagged past the allowed deflection")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not held and failure is None:
            failure = (sim.steps, "the hold time was not completed")
        progress = min(1.0, self.held_until / self.limit_steps) if self.limit_steps else 0.0
        return Outcome(goal_met=held, progress=progress,
                       goal=(f"the load was held within the sag limit for {self.held_until / 60:.2f} s of "
                             f"{self.limit_steps / 60:g} s; peak sag {self.peak_sag:.3f} m (limit {self.max_sag:g} m)"),
                       constraints=constraints, failure=failure,
                       terminal={"hook_x": round(x, 3), "hook_y": round(y, 3), "peak_sag": round(self.peak_sag, 4),
                                 "peak_sag_step": self.peak_sag_step, "held_s": round(self.held_until / 60, 3),
                                 "hold_s": self.limit_steps / 60, "carrier": self.world.carrier or "",
                                 "broken_joints": len(broken)})
