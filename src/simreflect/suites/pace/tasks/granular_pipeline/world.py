"""Grain pipeline: a feeder releases grains at a steady rate through a hopper outlet; a chute the designer builds must carry the
grains down and across to a bin on the ground."""

from __future__ import annotations

import math

from Box2D import b2FixtureDef, b2PolygonShape

from simreflect.suites.pace.task import PaceWorld

OUTLET = (0.0, 6.0)  # centre of the hopper outlet
OUTLET_W = 0.7
FEED_SPEED = 2.0  # m/s, downward, as a grain leaves the feeder
BIN_WALL = 1.0  # height of the bin's walls
WALL_T = 0.1
ZONE_X0 = -2.0
ZONE_TOP = 5.9
HOOD_GAP = 0.4  # over the bin the zone starts this far above the rim
GROUND_X = (-5.0, 18.0)


def hexagon(r: float) -> list[tuple[float, float]]:
    return [(r * math.cos(math.pi / 3 * k), r * math.sin(math.pi / 3 * k)) for k in range(6)]


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        x1 = env["bin_x"] - env["bin_width"] / 2 - WALL_T
        x2 = env["bin_x"] + env["bin_width"] / 2
        hood = env["bin_floor"] + BIN_WALL + HOOD_GAP
        low = [(ZONE_X0, 0.0), (x1, 0.0), (x1, hood), (ZONE_X0, hood)]
        high = [(ZONE_X0, hood), (x2, hood), (x2, ZONE_TOP), (ZONE_X0, ZONE_TOP)]
        return {"build": [low, high], "anchors": [low, high]}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        g0, g1 = GROUND_X
        sim.static_box(((g0 + g1) / 2, -0.5), g1 - g0, 1.0, friction=0.6)
        # the hopper's spout: two walls either side of the outlet (the feeder releases grains inside it)
        ox, oy = OUTLET
        h = OUTLET_W / 2
        for sgn in (-1.0, 1.0):
            sim.static_box((ox + sgn * (h + 0.06), oy + 0.6), 0.12, 1.2, friction=0.3)
        sim.static_box((ox, oy + 1.26), OUTLET_W + 0.24, 0.12, friction=0.3)
        bx, bw = env["bin_x"], env["bin_width"]
        self.bin = (bx - bw / 2, bx + bw / 2)
        f = self.floor = env["bin_floor"]
        for x in self.bin:
            sim.static_box((x + math.copysign(WALL_T / 2, x - bx), f + BIN_WALL / 2), WALL_T, BIN_WALL, friction=0.6)
        if f > 0:  # the bin stands on a pedestal
            sim.static_box((bx, f / 2), bw + 2 * WALL_T, f, friction=0.6)
        self.verts = hexagon(env["particle_radius"])
        self.n = int(env["particle_count"])
        self.every = max(1, int(round(60.0 / env["feed_rate"])))
        self.grains = []

    def before_step(self, step: int) -> None:
        """The feeder: one grain every `every` steps, released in the spout at one of four lanes."""
        k = len(self.grains)
        if k >= self.n or step % self.every:
            return
        env, r = self.env, self.env["particle_radius"]
        lane = (0, 2, 1, 3)[k % 4]
        x = OUTLET[0] - OUTLET_W / 2 + r + 0.02 + lane * (OUTLET_W - 2 * r - 0.04) / 3
        body = self.sim.world.CreateDynamicBody(position=(x, OUTLET[1] + 0.9), angle=0.3 * (k % 5),
                                                linearVelocity=(0.0, -FEED_SPEED))
        body.CreateFixture(b2FixtureDef(shape=b2PolygonShape(vertices=self.verts), density=env["particle_density"],
                                        friction=env["particle_friction"], restitution=env["particle_restitution"]))
        self.sim.register(body, "particle", "grain", track=False)
        self.grains.append(body)
