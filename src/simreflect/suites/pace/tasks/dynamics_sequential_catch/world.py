"""Sequential catch: balls are dropped one after another from above a floor; a motor-driven
catcher cart the design builds must be under each in time and hold every ball."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

ZONE_LEFT = -4.0
BALL_R = 0.15


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        x0, x1 = ZONE_LEFT, ZONE_LEFT + env["zone_length"]
        H = env["zone_height"]
        return {"build": [[(x0, 0.0), (x1, 0.0), (x1, H), (x0, H)]], "anchors": []}

    def drops(self):
        """[(release time, x, height)] of every ball, in release order."""
        env = self.env
        n = int(env["ball_count"])
        return [(env["first_drop_time"] + k * env["drop_interval"], env["first_drop_x"] + k * env["drop_spacing"],
                 env["drop_height"] + k * env["height_step"]) for k in range(n)]

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        self.floor = sim.static_box((15.0, -0.5), 50.0, 1.0, friction=env["floor_friction"])
        self.schedule = [(int(round(t * 60)), x, h) for t, x, h in self.drops()]
        self.balls: list = []
        self._next = 0
        self._density = env["ball_mass"] / (math.pi * BALL_R ** 2)
        self._wind = (env["wind"], 0.0)

    def before_step(self, step: int) -> None:
        while self._next < len(self.schedule) and self.schedule[self._next][0] <= step:
            _, x, h = self.schedule[self._next]
            ball = self.sim.dynamic_circle((x, h), BALL_R, self._density, friction=0.6,
                                           restitution=self.env["ball_restitution"], role="payload",
                                           name=f"ball {self._next + 1}", bullet=True)
            self.balls.append(ball)
            self._next += 1
            self.sim.event("phase", f"ball {self._next} is released at x = {x:g} m, height {h:g} m", step)
        if self._wind[0]:
            for ball in self.balls:
                ball.ApplyForceToCenter(self._wind, True)
