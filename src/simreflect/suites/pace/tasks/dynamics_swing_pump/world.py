"""Swing pump: a swing hangs at rest from a frame; a motor-driven rider mechanism bolted to its
seat must pump it up until the seat rises to a target height."""

from __future__ import annotations

import math

from Box2D import b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.engine import DESIGN_GROUP
from simreflect.suites.pace.task import PaceWorld

SEAT_Y = 1.5  # the seat's top surface at rest
SEAT_W, SEAT_T = 1.2, 0.1
ROD_T = 0.06
ZONE_HALF = 0.6


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        """The rider's zone above the seat, in the hanging (upright) swing's frame: the design is
        declared on the hanging swing, and the whole swing with its rider is then pulled back."""
        H = env["zone_height"]
        rect = [(-ZONE_HALF, SEAT_Y), (ZONE_HALF, SEAT_Y), (ZONE_HALF, SEAT_Y + H), (-ZONE_HALF, SEAT_Y + H)]
        return {"build": [rect], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((0.0, -0.5), 30.0, 1.0, friction=0.8)
        L = env["rope_length"]
        self.top = (0.0, SEAT_Y + L)
        body = sim.world.CreateDynamicBody(position=self.top)
        # the rope: a light rigid rod from the hook down to the seat; the seat carries the swing's mass
        rod_mass = 2.0
        body.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(ROD_T / 2, L / 2, (0.0, -L / 2), 0.0)),
                                        density=rod_mass / (ROD_T * L), groupIndex=DESIGN_GROUP))
        body.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(SEAT_W / 2, SEAT_T / 2, (0.0, -L - SEAT_T / 2), 0.0)),
                                        density=env["swing_mass"] / (SEAT_W * SEAT_T), friction=0.8,
                                        groupIndex=DESIGN_GROUP))
        sim.world.CreateRevoluteJoint(bodyA=sim.ground, bodyB=body, anchor=self.top, collideConnected=False)
        body.angularDamping = 0.0
        sim.register(body, "vehicle", "swing")
        self.swing = body
        self.seat0 = SEAT_Y

    def seat_height(self) -> float:
        """Height of the seat's top surface (its middle) above the ground."""
        L = self.env["rope_length"]
        a = self.swing.angle
        return self.top[1] - L * math.cos(a)

    def place(self, design) -> None:
        sim = self.sim
        self.base = None
        if design.parts:
            first = design.parts[0]
            self.base = sim.parts[first.id]
            sim.world.CreateWeldJoint(bodyA=self.swing, bodyB=self.base, anchor=(first.x, first.y),
                                      collideConnected=False)
        self._damp = self.env["swing_damping"]
        # pull the swing back: the swing and its rider turn rigidly about the hook (joints keep their
        # local anchors, so nothing is strained)
        a = -math.radians(self.env["start_angle"])
        hx, hy = self.top
        c, s = math.cos(a), math.sin(a)
        for body in [self.swing] + [sim.parts[p.id] for p in design.parts]:
            px, py = body.position.x - hx, body.position.y - hy
            body.transform = ((hx + c * px - s * py, hy + s * px + c * py), body.angle + a)

    def before_step(self, step: int) -> None:
        if self._damp:
            # friction at the hook and air drag: a torque against the swing's rotation
            self.swing.ApplyTorque(-self._damp * self.swing.angularVelocity, True)
