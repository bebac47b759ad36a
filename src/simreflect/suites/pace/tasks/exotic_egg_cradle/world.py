"""Egg cradle in exotic physics: gravity that pulses in time, air that pushes instead of drags
(negative damping), an egg that gains mass as it goes."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

ZONE_HALF = 1.5
EGG_R = 0.25
MASS_EVERY = 6  # steps between updates of the growing egg's mass


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        H = env["zone_height"]
        rect = [(-ZONE_HALF, 0.0), (ZONE_HALF, 0.0), (ZONE_HALF, H), (-ZONE_HALF, H)]
        ground = [(-ZONE_HALF, -0.05), (ZONE_HALF, -0.05), (ZONE_HALF, 0.05), (-ZONE_HALF, 0.05)]
        return {"build": [rect], "anchors": [ground]}

    def gravity_at(self, step: int) -> float:
        env = self.env
        return env["gravity"] * (1.0 + env["pulse_amplitude"] * math.sin(2.0 * math.pi * step / 60.0 / env["pulse_period"]))

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -self.gravity_at(0))
        sim.static_box((0.0, -0.5), 30.0, 1.0, friction=0.8)
        self.m0 = env["egg_mass"]
        area = math.pi * EGG_R ** 2
        self.egg = sim.dynamic_circle((env["drop_x"], env["drop_height"]), EGG_R, self.m0 / area, friction=0.8,
                                      restitution=0.0, role="payload", name="egg", bullet=True)
        self.area = area
        self.wind = (env["wind"], 0.0)
        self.g = self.gravity_at(0)

    def before_step(self, step: int) -> None:
        env = self.env
        self.g = g = self.gravity_at(step)
        self.sim.world.gravity = (0.0, -g)
        egg = self.egg
        fx, fy = self.wind
        c = env["negative_damping"]
        if c:  # the air pushes the egg along its motion: F = +c m v (Box2D's own damping only brakes)
            v = egg.linearVelocity
            m = egg.mass
            fx += c * m * v.x
            fy += c * m * v.y
        if fx or fy:
            egg.ApplyForceToCenter((fx, fy), True)
        if env["mass_growth"] and step % MASS_EVERY == 0:
            m = self.m0 + env["mass_growth"] * step / 60.0
            fixture = self.egg.fixtures[0]
            fixture.density = m / self.area
            self.egg.ResetMassData()
