"""Dam against a granular surge: a column of grains released towards the dam site, a pit downstream."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

ZONE_X = (-2.0, 0.0)
COLUMN_X = (-10.0, -5.0)
LEAK_X = 1.0  # grains past this line count as leaked
PIT_X = 3.0
PARTICLE_GROUP = 0


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        x0, x1 = ZONE_X
        H = env["zone_height"]
        rect = [(x0, 0.0), (x1, 0.0), (x1, H), (x0, H)]
        return {"build": [rect], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        mu = env["ground_friction"]
        sim.static_box(((COLUMN_X[0] - 1.0 + PIT_X) / 2, -0.5), PIT_X - COLUMN_X[0] + 1.0, 1.0, friction=mu)
        sim.static_box((COLUMN_X[0] - 1.25, 2.0), 0.5, 6.0, friction=mu)  # back wall of the reservoir
        sim.static_box((PIT_X + 3.0, -3.5), 6.0, 1.0, friction=mu)  # floor of the pit downstream
        r = env["particle_radius"]
        n = int(env["particle_count"])
        density = env["particle_density"]
        x0, x1 = COLUMN_X
        per_row = max(1, int((x1 - x0) / (2.05 * r)))
        self.grains = []
        vx = env["surge_speed"]
        for i in range(n):
            row, col = divmod(i, per_row)
            x = x0 + r + col * 2.05 * r + (r if row % 2 else 0.0)
            y = r + row * 1.8 * r
            body = sim.dynamic_circle((x, y), r, density, friction=env["particle_friction"], restitution=0.05,
                                      role="particle", name="grain", track=False)
            body.linearVelocity = (vx, 0.0)
            self.grains.append(body)
        self.grain_mass = density * math.pi * r * r
