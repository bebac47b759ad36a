"""Cargo boat: a river reach with a current, waves and wind; the designer's raft carries a cargo
crate from the dock to a landing downstream.

The water is a force field, not particles. Its surface is a travelling wave
eta(x, t) = A sin(k x - w t) (deep-water dispersion w^2 = g k), its velocity the current plus the
wave's orbital velocity (decaying as e^{k y} below the mean level y = 0). Before every step each
fixture of every floating body is cut into vertical strips (at most 0.25 m wide), each clipped by
the local surface (the wave's tangent line at the strip's middle), and each submerged piece gets
  * buoyancy rho g A_sub, upward, at the centroid of its submerged area (Archimedes in 2D),
  * linear drag from the water, -rho A_sub k_lin v_rel at the same point, with v_rel the velocity
    of that point relative to the water there;
each fixture's whole submerged part also gets form drag -0.5 Cd rho D |v_rel| v_rel at its
centroid (D: its width across v_rel) and a rotational damping, and
  * wind on its part above the water: 0.5 Cw rho_air H |w - v_x| (w - v_x), horizontal, with H
    the height of that part.
"""

from __future__ import annotations

import math

from Box2D import b2CircleShape, b2PolygonShape

from simreflect.suites.pace.task import PaceWorld

ZONE = (-2.0, 2.0, -2.0, 1.5)  # x0, x1, y0, y1 of the build zone (the water's mean level is y = 0)
CARGO_ZONE = (-2.0, 2.0, -1.0, 3.5)
WATER_X = (-8.0, 40.0)
DEPTH = 5.0
GOAL_X = 14.0
K_LIN = 0.1  # 1/s, linear drag rate of the water on a submerged area
CD = 1.0  # quadratic (form) drag coefficient in the water
CW = 1.2  # drag coefficient of the wind on what stands above the water
RHO_AIR = 1.2
CIRCLE_SEGMENTS = 16
STRIP = 0.25  # m: in waves, bodies are cut into vertical strips this wide


def clip_half(poly, px, py, nx, ny):
    """The part of a convex polygon on the side of the line through (px, py) opposite to its
    normal (nx, ny) (Sutherland-Hodgman against one plane)."""
    out = []
    for i in range(len(poly)):
        ax, ay = poly[i - 1]
        bx, by = poly[i]
        da = (ax - px) * nx + (ay - py) * ny
        db = (bx - px) * nx + (by - py) * ny
        if da <= 0:
            out.append((ax, ay))
        if (da < 0) != (db < 0) and da != db:
            t = da / (da - db)
            out.append((ax + t * (bx - ax), ay + t * (by - ay)))
    return out


def polygon_area_centroid(pts):
    if len(pts) < 3:
        return 0.0, 0.0, 0.0
    a = cx = cy = 0.0
    x0, y0 = pts[0]
    for i in range(1, len(pts) - 1):
        x1, y1 = pts[i]
        x2, y2 = pts[i + 1]
        t = ((x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)) / 2.0
        a += t
        cx += t * (x0 + x1 + x2) / 3.0
        cy += t * (y0 + y1 + y2) / 3.0
    if abs(a) < 1e-12:
        return 0.0, 0.0, 0.0
    return abs(a), cx / a, cy / a


def fixture_polygon(body, fixture):
    shape = fixture.shape
    xf = body.transform
    if isinstance(shape, b2CircleShape):
        c = xf * shape.pos
        r = shape.radius
        return [(c[0] + r * math.cos(2 * math.pi * i / CIRCLE_SEGMENTS),
                 c[1] + r * math.sin(2 * math.pi * i / CIRCLE_SEGMENTS)) for i in range(CIRCLE_SEGMENTS)]
    if isinstance(shape, b2PolygonShape):
        return [tuple(xf * v) for v in shape.vertices]
    return []


class Water:
    """The water's surface, velocity and forces (see the module docstring)."""

    def __init__(self, env, x_range):
        self.rho = env["water_density"]
        self.g = env["gravity"]
        self.A = env["wave_height"] / 2.0
        lam = env["wave_length"]
        self.k = 2 * math.pi / lam
        self.w = math.sqrt(self.g * self.k)
        self.U = env["current"]
        self.wind = env["wind"]
        self.gust = env.get("gust", 0.0)
        self.x0, self.x1 = x_range
        self.t = 0.0

    def eta(self, x):
        if not self.x0 <= x <= self.x1:
            return -1e9
        return self.A * math.sin(self.k * x - self.w * self.t)

    def slope(self, x):
        return self.A * self.k * math.cos(self.k * x - self.w * self.t)

    def velocity(self, x, y):
        ph = self.k * x - self.w * self.t
        amp = self.A * self.w * math.exp(self.k * min(0.0, y))
        return self.U + amp * math.sin(ph), -amp * math.cos(ph)

    def wind_speed(self):
        return self.wind * (1.0 + self.gust * math.sin(2 * math.pi * self.t / 4.0))

    def submerged(self, poly):
        """The pieces of a convex polygon under the surface: [(area, cx, cy, piece)]. In calm water
        one cut by the level; in waves the polygon is cut into vertical strips at most STRIP wide
        and each strip by the tangent of the surface at its middle."""
        xs = [p[0] for p in poly]
        x0, x1 = min(xs), max(xs)
        n = 1 if self.A == 0 else max(1, int(math.ceil((x1 - x0) / STRIP)))
        out = []
        for i in range(n):
            piece = poly
            if n > 1:
                a, b = x0 + (x1 - x0) * i / n, x0 + (x1 - x0) * (i + 1) / n
                piece = clip_half(clip_half(poly, a, 0.0, -1.0, 0.0), b, 0.0, 1.0, 0.0)
                xm = (a + b) / 2
            else:
                xm = (x0 + x1) / 2
            if len(piece) < 3:
                continue
            h = self.eta(xm)
            s = self.slope(xm)
            norm = math.hypot(s, 1.0)
            piece = clip_half(piece, xm, h, -s / norm, 1.0 / norm)
            area, cx, cy = polygon_area_centroid(piece)
            if area > 1e-9:
                out.append((area, cx, cy, piece))
        return out

    def act(self, body):
        """Apply buoyancy, drag and wind to every fixture of `body`; returns the submerged area."""
        total = 0.0
        rho, g = self.rho, self.g
        for fixture in body.fixtures:
            poly = fixture_polygon(body, fixture)
            if not poly:
                continue
            area, fx_c, fy_c = polygon_area_centroid(poly)
            fixture_sub = mx = my = 0.0
            verts = []
            for sub, cx, cy, sub_poly in self.submerged(poly):
                fixture_sub += sub
                mx += sub * cx
                my += sub * cy
                verts += sub_poly
                body.ApplyForce((0.0, rho * g * sub), (cx, cy), True)
                v = body.GetLinearVelocityFromWorldPoint((cx, cy))
                ux, uy = self.velocity(cx, cy)
                body.ApplyForce((-rho * sub * K_LIN * (v[0] - ux), -rho * sub * K_LIN * (v[1] - uy)), (cx, cy), True)
            if fixture_sub > 1e-9:  # form drag on the whole submerged part of the fixture
                cx, cy = mx / fixture_sub, my / fixture_sub
                v = body.GetLinearVelocityFromWorldPoint((cx, cy))
                ux, uy = self.velocity(cx, cy)
                rx, ry = v[0] - ux, v[1] - uy
                sp = math.hypot(rx, ry)
                if sp > 1e-6:
                    ex, ey = -ry / sp, rx / sp  # across the flow
                    proj = [px * ex + py * ey for px, py in verts]
                    q = 0.5 * CD * rho * (max(proj) - min(proj)) * sp
                    body.ApplyForce((-q * rx, -q * ry), (cx, cy), True)
            total += fixture_sub
            if fixture_sub > 1e-9:
                body.ApplyTorque(-rho * fixture_sub * K_LIN * (fixture_sub / 6.0) * body.angularVelocity, True)
            if area - fixture_sub > 1e-9 and self.wind:
                ys = [p[1] for p in poly]
                top = max(ys)
                bottom = max(min(ys), self.eta(fx_c))
                H = max(0.0, top - bottom)
                if H > 0:
                    w = self.wind_speed()
                    y_mid = (top + bottom) / 2
                    vx = body.GetLinearVelocityFromWorldPoint((fx_c, y_mid))[0]
                    rel = w - vx
                    body.ApplyForce((0.5 * CW * RHO_AIR * H * abs(rel) * rel, 0.0), (fx_c, y_mid), True)
        return total


class World(PaceWorld):
    forces = True

    @classmethod
    def zones(cls, env):
        x0, x1, y0, y1 = ZONE
        c0, c1, d0, d1 = CARGO_ZONE
        return {"build": [[(x0, y0), (x1, y0), (x1, y1), (x0, y1)]], "anchors": [],
                "placements": {"cargo": [[(c0, d0), (c1, d0), (c1, d1), (c0, d1)]]}}

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        w0, w1 = WATER_X
        sim.static_box(((w0 + w1) / 2, -DEPTH - 0.5), w1 - w0 + 2.0, 1.0, friction=0.6)  # the river bed
        sim.static_box((w0 - 0.5, -DEPTH / 2 + 0.5), 1.0, DEPTH + 1.0, friction=0.6)  # the dock wall behind
        self.water = Water(env, WATER_X)
        self.cargo = None

    def place(self, design) -> None:
        env = self.env
        w, h = env["cargo_width"], env["cargo_height"]
        pos = design.placement("cargo") or (0.0, 1.0 + h / 2)
        density = env["cargo_mass"] / (w * h)
        self.cargo = self.sim.dynamic_box(pos, w, h, density, friction=env["cargo_friction"], restitution=0.0,
                                          role="payload", name="cargo")
        self.floating = [self.sim.parts[pid] for pid in self.sim.parts] + [self.cargo]
        self.cargo_sub = 0.0
        self.cargo_area = w * h

    def before_step(self, step: int) -> None:
        water = self.water
        water.t = step / 60.0
        for body in self.floating:
            sub = water.act(body)
            if body is self.cargo:
                self.cargo_sub = sub
