"""Charged puck on an air table: beyond x = 0 a magnetic field stands out of the table and bends
the moving puck (Lorentz force F = q v x B, always across its motion); the air cushion drags it
slightly (a force against its motion, proportional to its speed)."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

ZONE = (-4.0, -3.0, -0.5, 3.0)  # launch zone x0, y0, x1, y1
TABLE = (-5.0, -7.0, 15.0, 7.0)  # inside of the rails
PUCK_R = 0.15
FIELD_X = 0.0
DT = 1.0 / 60.0


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        x0, y0, x1, y1 = ZONE
        rect = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        return {"build": [rect], "anchors": [rect], "placements": {"puck": [rect]}}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, 0.0)
        x0, y0, x1, y1 = TABLE
        self.rails = [sim.static_box(c, w, h, friction=0.3) for c, w, h in (
            (((x0 + x1) / 2, y0 - 0.1), x1 - x0 + 0.4, 0.2), (((x0 + x1) / 2, y1 + 0.1), x1 - x0 + 0.4, 0.2),
            ((x0 - 0.1, (y0 + y1) / 2), 0.2, y1 - y0), ((x1 + 0.1, (y0 + y1) / 2), 0.2, y1 - y0))]
        self.posts = []
        if env["post_radius"] > 0:
            from Box2D import b2CircleShape, b2FixtureDef
            self.posts.append(sim.ground.CreateFixture(b2FixtureDef(
                shape=b2CircleShape(radius=env["post_radius"], pos=(env["post_x"], env["post_y"])), friction=0.3)))
        self.puck = None

    def place(self, design) -> None:
        env = self.env
        pos = design.placement("puck") or (ZONE[0] + 0.5, 0.0)
        density = env["puck_mass"] / (math.pi * PUCK_R ** 2)
        self.puck = self.sim.dynamic_circle(pos, PUCK_R, density, friction=0.3, restitution=0.3, role="projectile",
                                            name="puck", bullet=True)
        self.puck.linearDamping = env["table_drag"]
        self.omega = env["puck_charge"] * env["field"] / env["puck_mass"]  # cyclotron frequency (rad/s)
        c, s = math.cos(self.omega * DT), math.sin(self.omega * DT)
        self.rot = (c, s)

    def before_step(self, step: int) -> None:
        p = self.puck
        if p.position.x <= FIELD_X or not self.omega:
            return
        # F = q v x B with B out of the table turns the velocity clockwise (q B > 0) at omega = q B / m
        # without changing its speed: the force that turns it exactly by omega dt this step
        v = p.linearVelocity
        c, s = self.rot
        nx, ny = c * v.x + s * v.y, -s * v.x + c * v.y
        m = p.mass
        p.ApplyForceToCenter((m * (nx - v.x) / DT, m * (ny - v.y) / DT), True)
