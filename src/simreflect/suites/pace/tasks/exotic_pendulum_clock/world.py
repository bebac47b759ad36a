"""Pendulum clock in a strange gravity field: the field may be tilted from the clock's vertical and
may come from a compact attractor not far below (pointing at its centre, growing as 1/r^2 towards
it); the air in the case brakes each part in proportion to its size and speed."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

CASE_TOP = 0.5


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        w, d = env["case_half_width"], env["case_depth"]
        case = [(-w, -d), (w, -d), (w, CASE_TOP), (-w, CASE_TOP)]
        bracket = [(-0.05, -0.05), (0.05, -0.05), (0.05, 0.05), (-0.05, 0.05)]
        return {"build": [case], "anchors": [bracket]}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, 0.0)  # the field is applied below, body by body
        tilt = math.radians(env["field_tilt"])
        self.down = (math.sin(tilt), -math.cos(tilt))  # the field's direction at the pivot
        R = env["attractor_distance"]
        self.centre = None if R <= 0 else (R * self.down[0], R * self.down[1])
        self.bodies = []

    def place(self, design) -> None:
        sim = self.sim
        self.parts = []
        for p in design.parts:
            body = sim.parts[p.id]
            self.parts.append((body, p.width + p.height))
        self.pendulum = None  # the part pinned to the bracket
        for j in design.joints:
            if "ground" in (j.a, j.b) and j.kind == "pivot":
                self.pendulum = sim.parts[j.b if j.a == "ground" else j.a]
                break

    def field_at(self, x: float, y: float) -> tuple[float, float]:
        g = self.env["gravity"]
        if self.centre is None:
            return g * self.down[0], g * self.down[1]
        R = self.env["attractor_distance"]
        dx, dy = self.centre[0] - x, self.centre[1] - y
        r = math.hypot(dx, dy)
        a = g * R * R / (r * r)
        return a * dx / r, a * dy / r

    def before_step(self, step: int) -> None:
        b = self.env["air_drag"]
        for body, size in self.parts:
            c = body.worldCenter
            gx, gy = self.field_at(c.x, c.y)
            m = body.mass
            v = body.linearVelocity
            body.ApplyForceToCenter((m * gx - b * size * v.x, m * gy - b * size * v.y), True)
