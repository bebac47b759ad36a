"""Galloping mast: a tall mast pinned at its base, an antenna on top, in air that feeds its sway
(negative aerodynamic damping, as in galloping cables and towers), held upright only by the
spring-damper guys of the design, which are clamped to it through collars."""

from __future__ import annotations

from Box2D import b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.engine import DESIGN_GROUP
from simreflect.suites.pace.task import PaceWorld

MAST_MASS = 60.0
MAST_W = 0.16
ANTENNA_W, ANTENNA_H = 0.8, 0.4
COLLAR_HALF = 0.25  # the collar strip: |x| <= this around the mast
COLLAR_Y0 = 0.5


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        H = env["mast_height"]
        strip = [(-COLLAR_HALF, COLLAR_Y0), (COLLAR_HALF, COLLAR_Y0), (COLLAR_HALF, H - 0.2), (-COLLAR_HALF, H - 0.2)]
        a0, a1 = env["anchor_min"], env["anchor_max"]
        anchors = [[(a0, -0.05), (a1, -0.05), (a1, 0.05), (a0, 0.05)],
                   [(-a1, -0.05), (-a0, -0.05), (-a0, 0.05), (-a1, 0.05)]]
        return {"build": [strip], "anchors": anchors}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((0.0, -0.5), 30.0, 1.0, friction=0.8)
        H = env["mast_height"]
        body = sim.world.CreateDynamicBody(position=(0.0, 0.0))
        body.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(MAST_W / 2, H / 2, (0.0, H / 2), 0.0)),
                                        density=MAST_MASS / (MAST_W * H), friction=0.5, groupIndex=DESIGN_GROUP))
        body.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(ANTENNA_W / 2, ANTENNA_H / 2, (0.0, H), 0.0)),
                                        density=env["antenna_mass"] / (ANTENNA_W * ANTENNA_H), friction=0.5,
                                        groupIndex=DESIGN_GROUP))
        sim.register(body, "vehicle", "mast")
        sim.world.CreateRevoluteJoint(bodyA=sim.ground, bodyB=body, anchor=(0.0, 0.0), collideConnected=False)
        self.mast = body
        self.H = H
        self.bodies = [body]

    def place(self, design) -> None:
        """Every declared part is a collar: clamp it to the mast, then start the gust."""
        sim = self.sim
        for p in design.parts:
            part = sim.parts[p.id]
            sim.world.CreateWeldJoint(bodyA=self.mast, bodyB=part, anchor=(0.0, p.y), collideConnected=False)
            self.bodies.append(part)
        w = self.env["gust_speed"] / self.H  # the gust: the top starts swaying at gust_speed
        for b in self.bodies:
            b.angularVelocity = w
            p = b.worldCenter
            b.linearVelocity = (-w * p.y, w * p.x)

    def top(self):
        return self.mast.GetWorldPoint((0.0, self.H))

    def before_step(self, step: int) -> None:
        b = self.env["galloping_rate"]
        if b:  # the air pushes every part along its motion: F = +b m v, torque +b I w about its centre
            for body in self.bodies:
                v = body.linearVelocity
                m = body.mass
                body.ApplyForceToCenter((b * m * v.x, b * m * v.y), True)
                i_cm = body.inertia - m * body.localCenter.lengthSquared  # Box2D's inertia is about the origin
                body.ApplyTorque(b * i_cm * body.angularVelocity, True)
        wind = self.env["wind"]
        if wind:
            self.mast.ApplyForce((wind, 0.0), self.top(), True)
