"""Launcher: a ball thrown from a mounted launcher into a basket downrange, over a wall."""

from __future__ import annotations

from simreflect.suites.pace.task import PaceWorld

ZONE_X = (-3.0, 1.0)
BALL_R = 0.2
BASKET_WALL = 0.8
BASKET_T = 0.1


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        x0, x1 = ZONE_X
        H = env["zone_height"]
        rect = [(x0, 0.0), (x1, 0.0), (x1, H), (x0, H)]
        return {"build": [rect], "anchors": [rect], "placements": {"ball": [rect]}}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        sim.static_box((10.0, -0.5), 40.0, 1.0, friction=0.6)
        D, w = env["basket_distance"], env["basket_width"]
        self.basket = (D - w / 2, D + w / 2)
        sim.static_box((D - w / 2 - BASKET_T / 2, BASKET_WALL / 2), BASKET_T, BASKET_WALL, friction=0.6)
        sim.static_box((D + w / 2 + BASKET_T / 2, BASKET_WALL / 2), BASKET_T, BASKET_WALL, friction=0.6)
        self.wall = None
        if env["wall_height"] > 0:
            self.wall = (env["wall_x"], env["wall_height"])
            sim.static_box((env["wall_x"], env["wall_height"] / 2), 0.2, env["wall_height"], friction=0.6)
        self.ball = None

    def place(self, design) -> None:
        env = self.env
        pos = design.placement("ball") or (ZONE_X[0] + 0.5, BALL_R)
        density = env["ball_mass"] / (3.141592653589793 * BALL_R ** 2)
        self.ball = self.sim.dynamic_circle(pos, BALL_R, density, friction=0.5, restitution=0.2,
                                            role="projectile", name="ball", bullet=True)
        self.ball.linearDamping = env["air_drag"]
        self.forces = env["wind"] != 0.0
        self._wind = (env["wind"], 0.0)

    def before_step(self, step: int) -> None:
        self.ball.ApplyForceToCenter(self._wind, True)
