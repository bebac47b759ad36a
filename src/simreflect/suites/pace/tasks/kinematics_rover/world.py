"""Rover over a curb and a ditch: flat start, a curb up to a plateau, a ditch across the plateau."""

from __future__ import annotations

from simreflect.suites.pace.task import PaceWorld

CURB_X = 4.0
DITCH_X = 8.0
DITCH_DEPTH = 3.0
GOAL_X = 13.0
END_X = 24.0


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        L, H = env["zone_length"], env["zone_height"]
        return {"build": [[(-L / 2, 0.0), (L / 2, 0.0), (L / 2, H), (-L / 2, H)]], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        mu = env["ground_friction"]
        h = env["curb_height"]
        ditch = env["ditch_width"]
        sim.static_box(((-10.0 + CURB_X) / 2, -0.5), CURB_X + 10.0, 1.0, friction=mu)  # start ground (top y = 0)
        sim.static_box(((CURB_X + DITCH_X) / 2, (h - 1.0) / 2), DITCH_X - CURB_X, h + 1.0, friction=mu)  # plateau
        far = DITCH_X + ditch
        sim.static_box(((far + END_X) / 2, (h - 1.0) / 2), END_X - far, h + 1.0, friction=mu)
        sim.static_box(((DITCH_X + far) / 2 if ditch > 0 else DITCH_X, -DITCH_DEPTH - 0.5), max(ditch, 0.1) + 0.2, 1.0,
                       friction=mu)  # the ditch floor
        sim.static_box((END_X + 0.5, h + 2.0), 1.0, 6.0, friction=mu)  # end wall
