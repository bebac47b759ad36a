"""Overhang stack: a table whose edge is at x = 0 (top at y = 1 m); blocks stacked on it without any
glue. A passing load may shake the table (simulated in the table's frame: a horizontal inertial
field, entered as a horizontal component of gravity) and a breeze may push the blocks."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

TABLE_TOP = 1.0
TABLE_LEFT = -4.0
ZONE_LEFT = -3.0
SETTLE_S = 1.0  # the shaking and the breeze start after the stack has settled


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        H = env["zone_height"]
        right = env["target_overhang"] + 1.0
        rect = [(ZONE_LEFT, TABLE_TOP), (right, TABLE_TOP), (right, TABLE_TOP + H), (ZONE_LEFT, TABLE_TOP + H)]
        return {"build": [rect], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        self.g = env["gravity"]
        sim.set_gravity(0.0, -self.g)
        mu = env["table_friction"]
        sim.static_box(((TABLE_LEFT + 0.0) / 2, TABLE_TOP / 2), -TABLE_LEFT, TABLE_TOP, friction=mu)
        sim.static_box((2.0, -0.25), 14.0, 0.5, friction=0.8)  # the floor
        self.omega = 2.0 * math.pi / env["shake_period"]
        self.table_accel = 0.0

    def place(self, design) -> None:
        # the shaking enters as a changing gravity, which does not wake sleeping bodies: keep them awake
        for body in self.sim.world.bodies:
            body.sleepingAllowed = False
        self.blocks = [(p.id, self.sim.parts[p.id]) for p in design.parts]
        # the engine puts every design part in one non-colliding group (welded structures); loose
        # blocks must rest on one another, so they leave that group
        for _, body in self.blocks:
            for fx in body.fixtures:
                fd = fx.filterData
                fd.groupIndex = 0
                fx.filterData = fd
        w = self.env["wind"]
        self._wind = []
        if w:
            for p in design.parts:
                frontal = abs(math.sin(p.angle)) * p.width + abs(math.cos(p.angle)) * p.height
                self._wind.append((self.sim.parts[p.id], (w * frontal, 0.0)))

    def accel(self, step: int) -> float:
        t = step / 60.0 - SETTLE_S
        if t < 0:
            return 0.0
        ramp = min(1.0, t / 0.5)
        return self.env["shake_accel"] * ramp * math.sin(self.omega * t)

    def before_step(self, step: int) -> None:
        a = self.accel(step)
        self.table_accel = a
        self.sim.world.gravity = (-a, -self.g)
        if step >= SETTLE_S * 60:
            for body, force in self._wind:
                body.ApplyForceToCenter(force, True)

    def reach(self) -> tuple[float, str]:
        """The right-most point of any block still on the table (x) and the block's id."""
        best, who = -1e9, ""
        for pid, body in self.blocks:
            if body.position.y < TABLE_TOP:
                continue  # fallen off
            xf = body.transform
            for fx in body.fixtures:
                for v in fx.shape.vertices:
                    x = (xf * v)[0]
                    if x > best:
                        best, who = x, pid
        return best, who
