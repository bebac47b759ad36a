"""The crate must be struck (a blow, not a shove), slide into the zone and come to rest there upright."""

from __future__ import annotations

import math

from simreflect.suites.pace.scoring import Constraint
from simreflect.suites.pace.hold import Hold
from simreflect.suites.pace.task import Outcome, PaceEvaluator

TILT_DEG = 30.0
REST_SPEED = 0.05


class Evaluator(PaceEvaluator):
    def __init__(self, sim, world, env, rule):
        super().__init__(sim, world, env, rule)
        self.crate = world.crate
        self.x0 = self.crate.position.x
        self.limit_steps = int(round(env["time_limit"] * 60))
        self.max_contact = env["max_contact_time"]
        self.zone = (env["zone_start"], env["zone_end"])
        self.design_bodies = list(sim.parts.values())
        self.prev_speeds = []
        self.first_hit = None
        self.hit_speed = 0.0
        self.contact_steps = 0
        self.blows = 0
        self.touching = False
        self.over_step = None
        self.peak_crate_speed = 0.0
        self.peak_speed_step = None
        self.max_tilt = 0.0
        self.tilt_step = None
        self.rest = Hold(rule)  # the crate at rest anywhere (in the zone or not) ends the run
        self.goal_step = None
        self.rest_x = None
        self.best = 0.0
        self.far = self.x0

    def _hammer_contact(self):
        for edge in self.crate.contacts:
            if edge.contact.touching and edge.other in self.design_bodies:
                return edge.other
        return None

    def tick(self, step: int) -> bool:
        c = self.crate
        p, v = c.position, c.linearVelocity
        speed = math.hypot(v.x, v.y)
        other = self._hammer_contact()
        before = self.prev_speeds
        self.prev_speeds = [b.linearVelocity.length for b in self.design_bodies]
        if other is not None:
            self.contact_steps += 1
            if not self.touching:
                self.blows += 1
                hs = max(before) if before else 0.0
                if self.first_hit is None:
                    self.first_hit = step
                    self.hit_speed = hs
                    self.sim.event("contact", f"the hammer strikes the crate (its fastest part moved at {hs:.2f} "
                                              "m/s just before)", step)
                else:
                    self.sim.event("contact", f"the hammer touches the crate again (contact {self.blows}; its fastest "
                                              f"part moved at {hs:.2f} m/s just before)", step)
            self.touching = True
            if self.contact_steps / 60.0 > self.max_contact and self.over_step is None:
                self.over_step = step
                self.sim.event("failure", f"the hammer has pressed on the crate for more than "
                                          f"{self.max_contact:g} s in all: a shove, not a blow", step)
        else:
            self.touching = False
        if speed > self.peak_crate_speed:
            self.peak_crate_speed, self.peak_speed_step = speed, step
        if p.x > self.far:
            self.far = p.x
        tilt = abs(math.degrees(math.remainder(c.angle, 2 * math.pi)))
        if tilt > self.max_tilt:
            self.max_tilt = tilt
            if tilt > TILT_DEG and self.tilt_step is None:
                self.tilt_step = step
                self.sim.event("failure", f"the crate tipped past {TILT_DEG:g} degrees at x = {p.x:.2f} m", step)
        centre = (self.zone[0] + self.zone[1]) / 2
        self.best = max(self.best, max(0.0, 1.0 - abs(p.x - centre) / max(centre - self.x0, 1.0)))
        moved = self.first_hit is not None and abs(p.x - self.x0) > 0.02
        resting = moved and speed < REST_SPEED and other is None
        inside = self.zone[0] <= p.x <= self.zone[1]
        if self.success.update(step, resting and inside) and self.goal_step is None:
            self.goal_step = step
        if self.rest.update(step, resting) and self.rest_x is None:
            self.rest_x = p.x
            self.sim.event("phase", f"the crate comes to rest at x = {p.x:.2f} m after sliding "
                                    f"{p.x - self.x0:.2f} m ({'inside' if inside else 'outside'} the zone "
                                    f"{self.zone[0]:g} to {self.zone[1]:g} m)", self.rest.since)
        if self.rest_x is not None or self.goal_step is not None:
            return True
        return step >= self.limit_steps

    def finish(self) -> Outcome:
        sim = self.sim
        broken = sim.broken_joints()
        c = self.crate
        p = c.position
        contact_s = self.contact_steps / 60.0
        constraints = [
            Constraint("single_blow", f"the hammer touches the crate for at most {self.max_contact:g} s in all",
                       passed=self.over_step is None, value=round(contact_s, 4), limit=self.max_contact, unit="s",
                       step=self.over_step),
            Constraint("crate_upright", f"the crate never tilts more than {TILT_DEG:g} degrees",
                       passed=self.tilt_step is None, value=round(self.max_tilt, 2), limit=TILT_DEG, unit="deg",
                       step=self.tilt_step),
            Constraint("hammer_intact", "no joint of the hammer breaks", passed=not broken, value=float(len(broken)),
                       limit=0.0, unit="broken joints", step=broken[0].broken_step if broken else None,
                       detail=f"first: {broken[0].id} at step {broken[0].broken_step} ({broken[0].broken_by})"
                       if broken else ""),
        ]
        goal_met = self.goal_step is not None
        failure = None
        for st, why in ((self.over_step, "the hammer pushed the crate instead of striking it"),
                        (self.tilt_step, "the crate tipped over"),
                        (broken[0].broken_step if broken else None, f"joint {broken[0].id} of the hammer broke"
                         if broken else "")):
            if st is not None and (failure is None or st < failure[0]):
                failure = (st, why)
        if not goal_met and failure is None:
            if self.first_hit is None:
                failure = (sim.steps, "the hammer never struck the crate")
            elif self.rest_x is None:
                failure = (sim.steps, f"the crate had not come to rest by the time limit (x = {p.x:.2f} m)")
            elif self.rest_x < self.zone[0]:
                failure = (sim.steps, f"the crate stopped short of the zone, at x = {self.rest_x:.2f} m")
            else:
                failure = (sim.steps, f"the crate slid past the zone, to x = {self.rest_x:.2f} m")
        return Outcome(goal_met=goal_met, progress=self.best,
                       goal=f"crate at x = {p.x:.2f} m; zone from x = {self.zone[0]:g} to {self.zone[1]:g} m",
                       constraints=constraints, failure=failure,
                       terminal={"crate_x": round(p.x, 3), "crate_start_x": round(self.x0, 3),
                                 "crate_speed": round(c.linearVelocity.length, 3),
                                 "rest_x": None if self.rest_x is None else round(self.rest_x, 3),
                                 "peak_crate_speed": round(self.peak_crate_speed, 3),
                                 "peak_speed_step": self.peak_speed_step, "first_hit": self.first_hit,
                                 "hit_speed": round(self.hit_speed, 3), "contacts": self.blows,
                                 "contact_time": round(contact_s, 4), "max_tilt": round(self.max_tilt, 2),
                                 "zone": list(self.zone)})
