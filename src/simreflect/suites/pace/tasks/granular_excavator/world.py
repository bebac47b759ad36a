"""Excavator at a pit: a bed of grains settled in an open trench, a bin beside it, a pivot frame above.

The grains are laid in a hexagonal packing inside the trench and settled (a fixed number of steps,
before the design exists), so every run starts from the same bed at rest. The trench's banks slope
at 45 degrees and its floor lies 0.3 m or more below any sensible cut, so no grain is pinched
between a moving part and a vertical wall.
"""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

PIT_CX = -0.6  # centre of the pit at ground level
PIT_HALF = 2.2  # half-width of the pit at ground level (its banks slope at 45 degrees)
FRAME = ((-0.6, 1.2), (0.6, 3.0))  # the pivot frame: ground anchors anywhere in this box
BIN_WALL_T = 0.1
BIN_WIDTH = 1.3
ZONE_X0 = -4.0
ZONE_TOP = 6.0
SETTLE_STEPS = 90
ZONE_DIP = 0.1  # over the pit the build zone reaches 0.1 m below ground level (the grains lie lower)


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        x1 = env["bin_x"] - 0.1
        L, R = PIT_CX - PIT_HALF, PIT_CX + PIT_HALF
        build = [(ZONE_X0, 0.0), (L, 0.0), (L + ZONE_DIP, -ZONE_DIP), (R - ZONE_DIP, -ZONE_DIP), (R, 0.0),
                 (x1, 0.0), (x1, ZONE_TOP), (ZONE_X0, ZONE_TOP)]
        (ax0, ay0), (ax1, ay1) = FRAME
        anchor = [(ax0, ay0), (ax1, ay0), (ax1, ay1), (ax0, ay1)]
        return {"build": [build], "anchors": [anchor]}

    @staticmethod
    def bin_interior(env):
        bx = env["bin_x"]
        return (bx + BIN_WALL_T, bx + BIN_WALL_T + BIN_WIDTH, env["bin_height"])

    def build(self) -> None:
        env, sim = self.env, self.sim
        g = env["gravity"]
        sim.set_gravity(0.0, -g)
        D = env["pit_depth"]
        mu = 0.6
        L, R = PIT_CX - PIT_HALF, PIT_CX + PIT_HALF
        # banks: ground to the left and right of the pit, its floor, its sloping sides
        sim.static_polygon([(L - 20.0, 0.0), (L - 20.0, -D - 1.0), (L + D, -D - 1.0), (L + D, -D), (L, 0.0)], friction=mu)
        sim.static_polygon([(R, 0.0), (R - D, -D), (R - D, -D - 1.0), (R + 20.0, -D - 1.0), (R + 20.0, 0.0)],
                           friction=mu)
        sim.static_box((PIT_CX, -D - 0.5), 2 * (PIT_HALF - D) + 0.02, 1.0, friction=mu)
        # the bin: two walls standing on the ground (the ground is its floor)
        bx, H = env["bin_x"], env["bin_height"]
        self.bin = self.bin_interior(env)
        sim.static_box((bx + BIN_WALL_T / 2, H / 2), BIN_WALL_T, H, friction=mu)
        sim.static_box((bx + 1.5 * BIN_WALL_T + BIN_WIDTH, H / 2), BIN_WALL_T, H, friction=mu)
        # the grains: a hexagonal packing in the trench, settled before the design is built
        r = env["grain_radius"]
        n = int(env["grain_count"])
        dens = env["grain_density"]
        fr = env["grain_friction"]
        self.grains = []
        dx, dy = 2.0 * r * 1.001, math.sqrt(3.0) * r * 1.001
        row = 0
        while len(self.grains) < n and row < 200:
            y = -D + r + row * dy
            half = PIT_HALF - D + (y + D) - r * math.sqrt(2.0) - 0.002  # inside the 45-degree banks
            x = PIT_CX - half + (r if row % 2 else 0.0)
            while x <= PIT_CX + half + 1e-9 and len(self.grains) < n:
                body = sim.dynamic_circle((x, y), r, dens, friction=fr, restitution=0.05, role="particle",
                                          name="grain", track=False)
                self.grains.append(body)
                x += dx
            row += 1
        sim.settle(SETTLE_STEPS, 6, 2)
        for b in self.grains:
            b.linearVelocity = (0.0, 0.0)
            b.angularVelocity = 0.0

    def in_bin(self, body) -> bool:
        x0, x1, H = self.bin
        p = body.position
        return x0 < p.x < x1 and 0.0 < p.y < H

    def in_pit(self, body) -> bool:
        p = body.position
        return PIT_CX - PIT_HALF < p.x < PIT_CX + PIT_HALF and p.y < 0.05

    def place_of(self, body) -> str:
        """Where a grain lies: pit, bin, or outside both (left of the pit, between pit and bin,
        beyond the bin)."""
        if self.in_bin(body):
            return "bin"
        if self.in_pit(body):
            return "pit"
        x = body.position.x
        if x < PIT_CX - PIT_HALF:
            return "left"
        return "between" if x < self.bin[0] else "beyond"
