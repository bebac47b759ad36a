"""Pivot balance: a fulcrum pin at (0, H) held by a stand behind the beam's plane, two loads hung
from hooks on the beam line, a breeze on the structure, rain filling the right-hand bucket."""

from __future__ import annotations

from simreflect.suites.pace.engine import DESIGN_GROUP
from simreflect.suites.pace.task import PaceWorld

PIVOT_Y = 3.0  # height of the fulcrum pin
ZONE_HALF = 4.0  # the build zone spans x from -4 to 4 m
ZONE_UP = 1.0  # and reaches 1 m above the pin
HOOK_TOL = 0.05
LOAD_W, LOAD_H = 0.4, 0.4
HANG = 0.5  # the loads hang this far below their hooks (centre HANG + LOAD_H/2 below)
HANDOVER_S = 1.5  # the crane hands the loads over to the hooks during the first 1.5 s,
RELEASE_STEP = 90  # while a latch holds the beam at its built angle; then the latch lets go
MASS_EVERY = 6  # steps between updates of the filling bucket's mass


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        D = env["zone_depth"]
        rect = [(-ZONE_HALF, PIVOT_Y - D), (ZONE_HALF, PIVOT_Y - D), (ZONE_HALF, PIVOT_Y + ZONE_UP),
                (-ZONE_HALF, PIVOT_Y + ZONE_UP)]
        return {"build": [rect], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((0.0, -0.5), 12.0, 1.0, friction=0.8)
        self.hooks = {"left": (-env["left_arm"], PIVOT_Y), "right": (env["right_arm"], PIVOT_Y)}
        self.loads = {}
        area = LOAD_W * LOAD_H
        for side, mass in (("left", env["left_mass"]), ("right", env["right_mass"])):
            hx, hy = self.hooks[side]
            self.loads[side] = sim.dynamic_box((hx, hy - HANG - LOAD_H / 2), LOAD_W, LOAD_H, mass / area,
                                               friction=0.6, role="payload", name=f"{side} load", group=DESIGN_GROUP)
        self.area = area
        self.m_right0 = env["right_mass"]
        self.beam = None  # the part the fulcrum pin holds
        self.beam_angle0 = 0.0
        self.pin = None
        self.beam_body = None
        self.latch = None
        self.hung = {}

    @staticmethod
    def _cover(design, x, y):
        best = None
        for p in design.parts:
            d = p.distance_to(x, y)
            if d <= HOOK_TOL and (best is None or d < best[0]):
                best = (d, p.id)
        return None if best is None else best[1]

    def place(self, design) -> None:
        sim, env = self.sim, self.env
        # the rain changes a mass, which does not wake sleeping bodies: keep every body awake
        for body in sim.world.bodies:
            body.sleepingAllowed = False
        pid = self._cover(design, 0.0, PIVOT_Y)
        if pid is not None:
            self.beam = pid
            self.beam_angle0 = design.part(pid).angle
            self.pin = sim.world.CreateRevoluteJoint(bodyA=sim.ground, bodyB=sim.parts[pid], anchor=(0.0, PIVOT_Y),
                                                     collideConnected=False)
            self.beam_body = sim.parts[pid]
            self.latch = sim.world.CreateWeldJoint(bodyA=sim.ground, bodyB=sim.parts[pid], anchor=(0.0, PIVOT_Y),
                                                   collideConnected=False)
        for side, (hx, hy) in self.hooks.items():
            hid = self._cover(design, hx, hy)
            if hid is not None:
                self.hung[side] = hid
                sim.world.CreateRevoluteJoint(bodyA=sim.parts[hid], bodyB=self.loads[side], anchor=(hx, hy),
                                              collideConnected=False)
        g = env["gravity"]
        self.weights = {side: body.mass * g for side, body in self.loads.items()}
        w = env["wind"]
        self._wind = []
        if w:
            import math

            for p in design.parts:
                frontal = abs(math.sin(p.angle)) * p.width + abs(math.cos(p.angle)) * p.height
                self._wind.append((sim.parts[p.id], (w * frontal, 0.0)))

    def before_step(self, step: int) -> None:
        if step == RELEASE_STEP and self.latch is not None:
            self.sim.world.DestroyJoint(self.latch)
            self.latch = None
        share = 1.0 - step / (60.0 * HANDOVER_S)
        if share > 0:
            for side, body in self.loads.items():
                body.ApplyForceToCenter((0.0, share * self.weights[side]), True)
        if self.beam_body is not None:  # the bearing's viscous damping: a torque against the beam's spin
            self.beam_body.ApplyTorque(-self.env["bearing_damping"] * self.beam_body.angularVelocity, True)
        for body, force in self._wind:
            body.ApplyForceToCenter(force, True)
        rate = self.env["rain_rate"]
        if rate and step % MASS_EVERY == 0:
            bucket = self.loads["right"]
            bucket.fixtures[0].density = (self.m_right0 + rate * step / 60.0) / self.area
            bucket.ResetMassData()

    def beam_angle(self) -> float:
        """The beam's tilt from its built angle (radians, counter-clockwise positive)."""
        return 0.0 if self.beam is None else self.sim.parts[self.beam].angle - self.beam_angle0

    def pin_load(self) -> float:
        """The fulcrum pin's reaction force this step (N)."""
        return 0.0 if self.pin is None else self.pin.GetReactionForce(60.0).length
