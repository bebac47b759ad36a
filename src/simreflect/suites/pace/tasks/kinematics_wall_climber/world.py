"""Chimney climber: two vertical walls a chimney-width apart above a floor."""

from __future__ import annotations

from simreflect.suites.pace.task import PaceWorld

WALL_T = 0.5
WALL_TOP = 8.0


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        w, H = env["chimney_width"], env["zone_height"]
        return {"build": [[(-w / 2, 0.0), (w / 2, 0.0), (w / 2, H), (-w / 2, H)]], "anchors": []}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        w = env["chimney_width"]
        mu = env["wall_friction"]
        sim.static_box((0.0, -0.5), 10.0, 1.0, friction=0.8)
        x = w / 2 + WALL_T / 2
        self.walls = (sim.static_box((x, WALL_TOP / 2), WALL_T, WALL_TOP, friction=mu),
                      sim.static_box((-x, WALL_TOP / 2), WALL_T, WALL_TOP, friction=mu))

    def on_walls(self, bodies) -> bool:
        """Whether any of `bodies` touches a wall now (a climber held by the walls, not flying)."""
        walls = self.walls
        for body in bodies:
            for edge in body.contacts:
                c = edge.contact
                if c.touching and (c.fixtureA in walls or c.fixtureB in walls):
                    return True
        return False
