"""Wiper: debris lies in a curved trough (a circular arc of radius R, lowest point at the origin);
the trough's right lip is lower than its left, and beyond it is a bin. The design, pinned only to a
vertical mounting post over the trough's middle, must sweep the debris along the trough and over the
right lip. A steady
draught may blow along the trough."""

from __future__ import annotations

import math

from simreflect.suites.pace.task import PaceWorld

LEFT_DEG = 180.0  # the trough's arc runs from its left lip (180 degrees, level with the centre) through
# its bottom (270) to its right lip at the angle `lip_angle`
SEGMENTS = 30
PIECE = 0.12  # debris pieces are squares this wide
GAP = 0.15  # least distance between the centres of neighbouring pieces as laid out
POST_X, POST_Y = (-0.1, 0.1), (0.8, 2.2)  # the mounting post: the only place the design may pin to
BIN_DROP = 1.0  # the bin floor lies this far below the right lip


def geometry(env):
    R = env["trough_radius"]
    c = (0.0, R)
    a = math.radians(env["lip_angle"])
    lip = (c[0] + R * math.cos(a), c[1] + R * math.sin(a))
    return R, c, lip


class World(PaceWorld):
    @classmethod
    def zones(cls, env):
        R, c, lip = geometry(env)
        H = env["zone_height"]
        return {"build": [[(-R - 0.3, 0.0), (R + 0.3, 0.0), (R + 0.3, H), (-R - 0.3, H)]],
                "anchors": [[(POST_X[0], POST_Y[0]), (POST_X[1], POST_Y[0]), (POST_X[1], POST_Y[1]),
                             (POST_X[0], POST_Y[1])]]}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        mu = env["debris_friction"]
        R, c, lip = geometry(env)
        pts = []
        for k in range(SEGMENTS + 1):
            a = math.radians(LEFT_DEG + (env["lip_angle"] - LEFT_DEG) * k / SEGMENTS)
            pts.append((c[0] + R * math.cos(a), c[1] + R * math.sin(a)))
        for p, q in zip(pts, pts[1:]):
            sim.static_edge(p, q, friction=mu)
        self.lip = lip
        self.bin_y = lip[1] - BIN_DROP
        sim.static_box((lip[0] + 2.5, self.bin_y - 0.5), 5.0, 1.0, friction=0.8)  # the bin's floor
        n = int(env["debris_count"])
        density = env["debris_mass"] / (PIECE * PIECE)
        lo, hi = env["debris_from"], 300.0
        r = R - PIECE / 2 - 0.005
        step = max((hi - lo) / n, math.degrees(GAP / r))  # evenly from `lo` towards 300 deg, never touching
        self.debris = []
        for i in range(n):
            a = math.radians(lo + step * (i + 0.5))
            pos = (c[0] + r * math.cos(a), c[1] + r * math.sin(a))
            body = sim.dynamic_box(pos, PIECE, PIECE, density, friction=mu, angle=a + math.pi / 2,
                                   role="particle", name=f"debris{i + 1}", track=False)
            self.debris.append(body)
        self.wind = env["draught"]
        self.forces = self.wind != 0.0

    def before_step(self, step: int) -> None:
        f = -self.wind
        for b in self.debris:
            b.ApplyForceToCenter((f * b.mass, 0.0), True)
