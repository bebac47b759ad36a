"""Slot jumper: a sled slides down a ramp the design builds, leaves its lip and must fly through
the windows of one or two walls before touching down on a landing strip."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

ZONE_X = (-8.0, 0.0)
SLED_R = 0.15
WALL_T = 0.2
WALL_TOP = 12.0


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        x0, x1 = ZONE_X
        H = env["zone_height"]
        rect = [(x0, 0.0), (x1, 0.0), (x1, H), (x0, H)]
        return {"build": [rect], "anchors": [rect], "placements": {"sled": [rect]}}

    def windows(self):
        """[(wall x, window bottom, window top)] for the walls that stand in this environment."""
        env = self.env
        half = env["window_size"] / 2
        out = [(env["wall1_x"], env["window1_y"] - half, env["window1_y"] + half)]
        if env["wall2_x"] > 0:
            out.append((env["wall2_x"], env["window2_y"] - half, env["window2_y"] + half))
        return out

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        self.floor = sim.static_box((8.0, -0.5), 40.0, 1.0, friction=0.6)
        self.walls = []
        for x, lo, hi in self.windows():
            a = sim.static_box((x, lo / 2), WALL_T, lo, friction=0.6)
            b = sim.static_box((x, (hi + WALL_TOP) / 2), WALL_T, WALL_TOP - hi, friction=0.6)
            self.walls.append((a, b))
        self.sled = None

    def place(self, design) -> None:
        env = self.env
        pos = design.placement("sled") or (ZONE_X[0] + 0.5, SLED_R)
        density = env["sled_mass"] / (math.pi * SLED_R ** 2)
        # a sled, not a ball: it slides on its runners and does not roll
        self.sled = self.sim.dynamic_circle(pos, SLED_R, density, friction=env["sled_friction"], restitution=0.0,
                                            role="projectile", name="sled", bullet=True)
        self.sled.fixedRotation = True
        self.sled.linearDamping = env["air_drag"]
        self._wind = (env["wind"], 0.0)
        self.forces = env["wind"] != 0.0

    def before_step(self, step: int) -> None:
        self.sled.ApplyForceToCenter(self._wind, True)
