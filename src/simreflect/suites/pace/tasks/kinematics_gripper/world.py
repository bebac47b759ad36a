"""Gripper: a ball lies on the floor; a linkage mounted on a wall plate must grasp it, lift it and
hold it up."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

ZONE_X = (-2.5, 1.5)
PLATE_X = (-2.5, -2.0)  # the wall plate the design may pin to (x range; y from 0 to PLATE_TOP)
PLATE_TOP = 1.5


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        x0, x1 = ZONE_X
        H = env["zone_height"]
        p0, p1 = PLATE_X
        return {"build": [[(x0, 0.0), (x1, 0.0), (x1, H), (x0, H)]],
                "anchors": [[(p0, 0.0), (p1, 0.0), (p1, PLATE_TOP), (p0, PLATE_TOP)]]}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((0.0, -0.5), 30.0, 1.0, friction=0.8)
        r = env["ball_radius"]
        self.ball = sim.dynamic_circle((env["ball_x"], r), r, env["ball_mass"] / (math.pi * r * r),
                                       friction=env["ball_friction"], restitution=0.05, role="payload", name="ball")
