"""Debris shelter: rocks fall from a cliff face above a work site; a keep-clear space on the ground
must stay free of rocks and of the shelter itself. A cross-wind drifts the falling rocks."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

KEEP = (-1.0, 1.0, 0.0, 1.6)  # the keep-clear space: x0, x1, y0, y1
ZONE_HALF = 2.5  # the build zone spans x from -2.5 to 2.5 m
FIRST_S = 0.5  # the first rock is released at this time
ROCK_GROUP = -5  # rocks do not collide with one another (they fall in a loose stream)


def release_x(i: int, spread: float) -> float:
    """Where the i-th rock is released: a fixed, evenly mixed sequence over [-spread, spread]."""
    u = (i * 0.6180339887498949) % 1.0
    return round(spread * (2.0 * u - 1.0), 3)


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        x0, x1, y0, y1 = KEEP
        H = env["zone_height"]
        Z = ZONE_HALF
        # the build zone wraps around the keep-clear space (which is not part of it)
        build = [[(-Z, 0.0), (x0, 0.0), (x0, y1), (x1, y1), (x1, 0.0), (Z, 0.0), (Z, H), (-Z, H)]]
        anchors = [[(-Z, -0.05), (x0, -0.05), (x0, 0.05), (-Z, 0.05)], [(x1, -0.05), (Z, -0.05), (Z, 0.05), (x1, 0.05)]]
        return {"build": build, "anchors": anchors}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((0.0, -0.5), 20.0, 1.0, friction=0.8)
        n = int(env["rock_count"])
        self.schedule = [(int(round((FIRST_S + i * env["rock_interval"]) * 60)), release_x(i, env["rock_spread"]))
                         for i in range(n)]
        self.rocks = []  # (body, release step)
        self.next = 0
        r = env["rock_radius"]
        self.rock_density = env["rock_mass"] / (math.pi * r * r)

    def place(self, design) -> None:
        self.last_release = self.schedule[-1][0] if self.schedule else 0

    def before_step(self, step: int) -> None:
        env, sim = self.env, self.sim
        while self.next < len(self.schedule) and self.schedule[self.next][0] <= step:
            _, x = self.schedule[self.next]
            body = sim.dynamic_circle((x, env["drop_height"]), env["rock_radius"], self.rock_density, friction=0.5,
                                      restitution=env["rock_bounce"], role="projectile", name=f"rock {self.next + 1}",
                                      group=ROCK_GROUP, bullet=True)
            body.linearVelocity = (0.0, 0.0)
            self.rocks.append(body)
            self.next += 1
        w = env["wind"]
        if w:
            for body in self.rocks:
                body.ApplyForceToCenter((w, 0.0), True)
