"""Hammer: a pendulum (or driven) hammer strikes a crate resting on the floor; the crate must slide
into a marked zone and stop there."""

from __future__ import annotations

from simreflect.suites.pace.task import PaceWorld

CRATE_W, CRATE_H = 0.8, 0.5
ZONE_LEFT = -4.0
GAP = 0.05  # between the build zone's right edge and the crate's left face


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        x1 = env["crate_x"] - CRATE_W / 2 - GAP
        rect = [(ZONE_LEFT, 0.0), (x1, 0.0), (x1, env["zone_height"]), (ZONE_LEFT, env["zone_height"])]
        return {"build": [rect], "anchors": [rect]}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        mu = env["floor_friction"]
        sim.static_box((8.0, -0.5), 30.0, 1.0, friction=mu)
        density = env["crate_mass"] / (CRATE_W * CRATE_H)
        # the crate's own friction equals the floor's, so the pair's coefficient (Box2D mixes them by
        # a geometric mean) is the floor friction
        self.crate = sim.dynamic_box((env["crate_x"], CRATE_H / 2), CRATE_W, CRATE_H, density, friction=mu,
                                     restitution=env["crate_restitution"], role="target", name="crate")
