"""Cantilever from a wall: a vertical rock face at x = 0, a drop below, a load hung from a hook at the tip."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

WALL_W = 4.0  # the rock behind the face (x from -4 to 0)
WALL_TOP = 6.0
FLOOR_Y = -12.0
HOOK_TOL = 0.05  # the hook point must lie on a part (within this distance)
LOAD_W, LOAD_H = 0.6, 0.6
GUST_PERIOD = 1.5  # s, period of the wind's gusts on the load
LOWER_S = 1.0  # s, the crane hands the load over to the hook gradually


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        L, D, H = env["reach"], env["zone_depth"], env["zone_height"]
        build = [[(0.0, -D), (L + 0.5, -D), (L + 0.5, H), (0.0, H)]]
        anchors = [[(-0.1, -D), (0.0, -D), (0.0, H), (-0.1, H)]]
        return {"build": build, "anchors": anchors}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((-WALL_W / 2, (WALL_TOP + FLOOR_Y) / 2), WALL_W, WALL_TOP - FLOOR_Y, friction=0.8)
        sim.static_box((8.0, FLOOR_Y - 0.5), 24.0, 1.0, friction=0.8)
        self.hook = (env["reach"], 0.0)
        hx, hy = self.hook
        area = LOAD_W * LOAD_H
        self.load = sim.dynamic_box((hx, hy - 0.5 - LOAD_H / 2), LOAD_W, LOAD_H, env["load_mass"] / area,
                                    friction=0.6, role="payload", name="load")
        self.carrier = None
        self.hook_joint = None
        self.hanger = None

    def place(self, design) -> None:
        """Hang the load (by a short rigid hanger, 0.5 m) from the part that covers the hook point."""
        hx, hy = self.hook
        best = None
        for p in design.parts:
            d = p.distance_to(hx, hy)
            if d <= HOOK_TOL and (best is None or d < best[0]):
                best = (d, p.id)
        sim = self.sim
        if best is not None:
            self.carrier = best[1]
            body = sim.parts[best[1]]
            self.hook_joint = sim.world.CreateRevoluteJoint(bodyA=body, bodyB=self.load, anchor=(hx, hy),
                                                            collideConnected=False)
        self._wind = self.env["wind"]
        self._weight = self.load.mass * self.env["gravity"]

    def hook_position(self) -> tuple[float, float]:
        if self.hook_joint is None:
            p = self.load.position
            return (p.x, p.y + 0.5 + LOAD_H / 2)
        a = self.hook_joint.anchorA
        return (a[0], a[1])

    def before_step(self, step: int) -> None:
        # the crane lowers the load onto the hook: it carries a share of the weight falling to 0 over LOWER_S
        lift = self._weight * max(0.0, 1.0 - step / (60.0 * LOWER_S))
        # gusts: the wind on the load rises and falls between 50% and 100% of its peak
        f = self._wind * (0.75 + 0.25 * math.sin(2.0 * math.pi * step / 60.0 / GUST_PERIOD)) if self._wind else 0.0
        if lift or f:
            self.load.ApplyForceToCenter((f, lift), True)
