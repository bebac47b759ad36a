"""Supply drop in thick air: a package released at altitude falls through air dense enough that
quadratic drag (force ~ density x speed^2) dominates within a few metres; a steady wind carries
everything that falls through it. The drag acts on every face of the package and of the design's
parts (a flat-plate law, below); parts that touch the package are strapped to it."""

from __future__ import annotations

import math

from Box2D import b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.engine import DESIGN_GROUP
from simreflect.suites.pace.task import PaceWorld

ZONE_X = (-10.0, 10.0)
ZONE_DEPTH = 4.0  # the release zone spans y from the drop height to this much above it
PKG = 0.5  # the package is a 0.5 m square
STRAP = 0.3  # parts passing within this distance of the package's centre are strapped to it
CD = 1.2  # drag coefficient of a flat face


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        H = env["drop_height"]
        x0, x1 = ZONE_X
        rect = [(x0, H), (x1, H), (x1, H + ZONE_DEPTH), (x0, H + ZONE_DEPTH)]
        return {"build": [rect], "anchors": [], "placements": {"package": [rect]}}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((0.0, -0.5), 200.0, 1.0, friction=0.8)
        self.package = None

    def place(self, design) -> None:
        env, sim = self.env, self.sim
        H = env["drop_height"]
        px, py = design.placement("package") or (0.0, H + PKG / 2)
        body = sim.world.CreateDynamicBody(position=(px, py))
        body.CreateFixture(b2FixtureDef(shape=b2PolygonShape(box=(PKG / 2, PKG / 2)),
                                        density=env["package_mass"] / (PKG * PKG), friction=0.8,
                                        groupIndex=DESIGN_GROUP))
        sim.register(body, "payload", "package")
        self.package = body
        # every body of the craft with its faces: (body, width along its x axis, height along its y axis)
        self.craft = [(body, PKG, PKG)]
        self.strapped = []
        for p in design.parts:
            part = sim.parts[p.id]
            self.craft.append((part, p.width, p.height))
            if p.distance_to(px, py) <= STRAP:
                sim.world.CreateWeldJoint(bodyA=body, bodyB=part, anchor=(px, py), collideConnected=False)
                self.strapped.append(p.id)
        self.k = 0.5 * env["air_density"] * CD

    def wind_at(self, y: float) -> float:
        return self.env["wind"] + self.env["wind_shear"] * y

    def before_step(self, step: int) -> None:
        k = self.k
        for body, w, h in self.craft:
            v = body.linearVelocity
            vx, vy = v.x - self.wind_at(body.position.y), v.y
            a = body.angle
            c, s = math.cos(a), math.sin(a)
            un = -s * vx + c * vy  # across the faces of length w (normal along the body's y axis)
            ut = c * vx + s * vy  # across the faces of length h (normal along the body's x axis)
            fn = -k * w * un * abs(un)
            ft = -k * h * ut * abs(ut)
            body.ApplyForceToCenter((ft * c - fn * s, ft * s + fn * c), True)
