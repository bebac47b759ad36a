"""Water as a force field, for task worlds with a river, a lake or waves (no particles).

The surface is eta(x, t) = level + A sin(k x - w t), a travelling deep-water wave (w^2 = g k; A = 0
is calm water), over x_range only. The water's velocity is the current plus the wave's orbital
velocity (decaying as e^{k y} below the mean level). `Water.act(body)`, called before every step,
cuts each fixture of the body into vertical strips (at most STRIP wide, in waves; one piece in calm
water), clips each by the local surface (the wave's tangent at the strip's middle), and gives each
submerged piece
  * buoyancy rho g A_sub, upward, at the centroid of its submerged area (Archimedes in 2D),
  * linear drag -rho A_sub k_lin v_rel there (v_rel: the velocity of that point relative to the
    water);
each fixture's whole submerged part also gets form drag -0.5 cd rho D |v_rel| v_rel at its centroid
(D: its width across v_rel) and a rotational damping. With smooth_circles a circle's drag uses the
velocity of its centre and it gets no rotational damping: a smooth rim slides past the water, only
what sticks out of it (a paddle) pushes water. A fixture's part above the water gets a horizontal
wind drag 0.5 cw rho_air H |w - v_x| (w - v_x) (H: the height of that part; the wind pulses by
+-gust over 4 s).

The host's work is bounded deterministically (never by wall time): `work` counts the polygon
pieces the field cuts and weighs (a fixture in calm water or in the wind is one, a fixture in
waves one per strip), and a run whose count passes `max_work` (each water task states its own in
its card, about ten times what its most demanding reference needs; MAX_WORK by default) is ended
with StopSimulation("work"): the evaluation's execution constraint fails with that reason. A design
of many large parts in waves (40 blocks of 8 m: 1,280 strips a step; the engine takes up to 400
parts of 10 m) otherwise kept the host busy for minutes (benchmarks/pace_water_work.py).
"""

from __future__ import annotations

import math
from typing import Any

from Box2D import b2CircleShape, b2PolygonShape, b2Vec2

from simreflect.suites.pace.engine import StopSimulation

RHO_AIR = 1.2
CIRCLE_SEGMENTS = 16
STRIP = 0.25  # m: in waves, bodies are cut into vertical strips this wide
DRY = -1e9  # the "surface" outside the water's x range: nothing there is submerged
#: Polygon pieces a run's water may cut and weigh (see the module docstring).
MAX_WORK = 300_000


def clip_half(poly: list[tuple[float, float]], px: float, py: float, nx: float,
              ny: float) -> list[tuple[float, float]]:
    """The part of a convex polygon on the side of the line through (px, py) opposite to its
    normal (nx, ny) (Sutherland-Hodgman against one plane)."""
    return clip_by_distances(poly, [(x - px) * nx + (y - py) * ny for x, y in poly])


def clip_by_distances(poly: list[tuple[float, float]], d: list[float]) -> list[tuple[float, float]]:
    """`clip_half` given each vertex's signed distance d to the line (inside: d <= 0). A polygon
    wholly inside comes back whole (starting from its last vertex, as the general loop would
    return it), one wholly outside as nothing."""
    if not d:
        return []
    if max(d) < 0:
        return poly[-1:] + poly[:-1]
    if min(d) > 0:
        return []
    out = []
    append = out.append
    a, da = poly[-1], d[-1]
    for b, db in zip(poly, d):  # each edge a -> b, starting with the closing one
        if da <= 0:
            append(a)
        if (da < 0) != (db < 0) and da != db:
            t = da / (da - db)
            ax, ay = a
            bx, by = b
            append((ax + t * (bx - ax), ay + t * (by - ay)))
        a, da = b, db
    return out


def polygon_area_centroid(pts: list[tuple[float, float]]) -> tuple[float, float, float]:
    """(area, centroid x, centroid y) of a simple polygon; zeros when it is degenerate."""
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


#: (cos, sin) of the corners of the CIRCLE_SEGMENTS-gon a circle is drawn as.
UNIT_CIRCLE = [(math.cos(2 * math.pi * i / CIRCLE_SEGMENTS), math.sin(2 * math.pi * i / CIRCLE_SEGMENTS))
               for i in range(CIRCLE_SEGMENTS)]


class Outline:
    """What the water needs of one fixture's shape, read from Box2D once: a circle's centre and
    radius, or a polygon's corners, in the body's frame."""

    __slots__ = ("circle", "local", "radius", "reach")

    def __init__(self, shape: Any):
        self.circle = isinstance(shape, b2CircleShape)
        if self.circle:
            self.local, self.radius = b2Vec2(shape.pos), shape.radius
            self.reach = math.hypot(*shape.pos) + shape.radius
        else:
            self.local, self.radius = [b2Vec2(v) for v in shape.vertices], 0.0
            self.reach = max(math.hypot(*v) for v in shape.vertices)

    def world(self, xf: Any) -> list[tuple[float, float]]:
        """The outline in world coordinates under the body's transform `xf` (Box2D's own float32
        transform, so the corners are exactly the engine's)."""
        if self.circle:
            c = xf * self.local
            cx, cy, r = c[0], c[1], self.radius
            return [(cx + r * ux, cy + r * uy) for ux, uy in UNIT_CIRCLE]
        return [tuple(xf * v) for v in self.local]


def outlines(body: Any) -> list[Outline]:
    """The outlines of a body's fixtures that the water acts on (circles and polygons)."""
    return [Outline(f.shape) for f in body.fixtures if isinstance(f.shape, (b2CircleShape, b2PolygonShape))]


class Water:
    """The water's surface, velocity and forces (see the module docstring). Set `t` (seconds)
    before calling `act` each step."""

    def __init__(self, *, rho: float, g: float, x_range: tuple[float, float], level: float = 0.0,
                 wave_height: float = 0.0, wave_length: float = 1.0, current: float = 0.0, wind: float = 0.0,
                 gust: float = 0.0, k_lin: float = 0.1, cd: float = 1.0, cw: float = 1.2,
                 smooth_circles: bool = False, max_work: int = MAX_WORK):
        self.rho, self.g = rho, g
        self.level = level
        self.A = wave_height / 2.0
        self.k = 2 * math.pi / wave_length
        self.w = math.sqrt(g * self.k) if self.A else 0.0
        self.U = current
        self.wind, self.gust = wind, gust
        self.k_lin, self.cd, self.cw = k_lin, cd, cw
        self.smooth_circles = smooth_circles
        self.x0, self.x1 = x_range
        self.t = 0.0
        # body -> its outlines (a body's hash and == are its C++ object's, whichever proxy pybox2d hands out)
        self._outlines: dict[Any, list[Outline]] = {}
        # no cut surface (a strip's tangent included) rises above this; a fixture wholly above it
        # or wholly beside the water's x range has nothing under water (1 mm spares float32 noise)
        self.top = level + abs(self.A) * (1.0 + self.k * STRIP) + 1e-3
        self.work = 0
        self.max_work = max_work

    def _spend(self, pieces: int) -> None:
        self.work += pieces
        if self.work > self.max_work:
            raise StopSimulation("work", f"the design made the water model cut more than {self.max_work:,} pieces "
                                         f"(its parts in the water, cut into {STRIP:g} m strips in waves, every "
                                         "step): the run was ended there")

    def eta(self, x: float) -> float:
        if not self.x0 <= x <= self.x1:
            return DRY
        if not self.A:
            return self.level
        return self.level + self.A * math.sin(self.k * x - self.w * self.t)

    def slope(self, x: float) -> float:
        return self.A * self.k * math.cos(self.k * x - self.w * self.t) if self.A else 0.0

    def velocity(self, x: float, y: float) -> tuple[float, float]:
        if not self.A:
            return self.U, 0.0
        ph = self.k * x - self.w * self.t
        amp = self.A * self.w * math.exp(self.k * min(0.0, y - self.level))
        return self.U + amp * math.sin(ph), -amp * math.cos(ph)

    def wind_speed(self) -> float:
        return self.wind * (1.0 + self.gust * math.sin(2 * math.pi * self.t / 4.0))

    def submerged(self, poly: list[tuple[float, float]]) -> list[tuple[float, float, float, list]]:
        """The pieces of a convex polygon under the surface: [(area, cx, cy, piece)]. In calm water
        one cut by the level; in waves the polygon is cut into vertical strips at most STRIP wide
        and each strip by the tangent of the surface at its middle."""
        xs = [p[0] for p in poly]
        x0, x1 = min(xs), max(xs)
        if not self.A and math.isfinite(x0) and math.isfinite(x1):
            # calm water: one cut by the level (the distances below are the general cut's, whose
            # normal is (0, 1), without its zero x term)
            h = self.eta((x0 + x1) / 2)
            piece = clip_by_distances(poly, [y - h for _, y in poly])
            self._spend(1)
            area, cx, cy = polygon_area_centroid(piece)
            return [(area, cx, cy, piece)] if area > 1e-9 else []
        n = 1 if self.A == 0 else max(1, int(math.ceil((x1 - x0) / STRIP)))
        self._spend(n)
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

    def act(self, body: Any) -> float:
        """Apply buoyancy, drag and wind to every fixture of `body`; returns the submerged area.
        A body's shapes are read on its first call: its fixtures must not change afterwards (no
        pace world adds, removes or destroys them during a run)."""
        known = self._outlines.get(body)
        if known is None:
            known = self._outlines[body] = outlines(body)
        total = 0.0
        rho, g, k_lin = self.rho, self.g, self.k_lin
        xf = body.transform
        centre = body.worldCenter
        origin = xf.position
        ox, oy = origin[0], origin[1]
        x0, x1, top = self.x0 - 1e-3, self.x1 + 1e-3, self.top
        for outline in known:
            if not self.wind:
                r = outline.reach
                if oy - r > top or ox + r < x0 or ox - r > x1:
                    continue  # wholly dry, and no wind to feel
            poly = outline.world(xf)
            smooth = self.smooth_circles and outline.circle
            pieces = self.submerged(poly)
            if not pieces and not self.wind:
                continue
            fixture_sub = mx = my = 0.0
            verts = []
            for sub, cx, cy, sub_poly in pieces:
                fixture_sub += sub
                mx += sub * cx
                my += sub * cy
                verts += sub_poly
                body.ApplyForce((0.0, rho * g * sub), (cx, cy), True)
                v = body.GetLinearVelocityFromWorldPoint(centre if smooth else (cx, cy))
                ux, uy = self.velocity(cx, cy)
                body.ApplyForce((-rho * sub * k_lin * (v[0] - ux), -rho * sub * k_lin * (v[1] - uy)), (cx, cy), True)
            if fixture_sub > 1e-9:  # form drag on the whole submerged part of the fixture
                cx, cy = mx / fixture_sub, my / fixture_sub
                v = body.GetLinearVelocityFromWorldPoint(centre if smooth else (cx, cy))
                ux, uy = self.velocity(cx, cy)
                rx, ry = v[0] - ux, v[1] - uy
                sp = math.hypot(rx, ry)
                if sp > 1e-6:
                    ex, ey = -ry / sp, rx / sp  # across the flow
                    proj = [px * ex + py * ey for px, py in verts]
                    q = 0.5 * self.cd * rho * (max(proj) - min(proj)) * sp
                    body.ApplyForce((-q * rx, -q * ry), (cx, cy), True)
            total += fixture_sub
            if fixture_sub > 1e-9 and not smooth:
                body.ApplyTorque(-rho * fixture_sub * k_lin * (fixture_sub / 6.0) * body.angularVelocity, True)
            if self.wind:
                area, fx_c, _ = polygon_area_centroid(poly)
                if area - fixture_sub > 1e-9:
                    ys = [p[1] for p in poly]
                    top = max(ys)
                    bottom = max(min(ys), self.eta(fx_c))
                    H = max(0.0, top - bottom)
                    if H > 0:
                        w = self.wind_speed()
                        y_mid = (top + bottom) / 2
                        vx = body.GetLinearVelocityFromWorldPoint((fx_c, y_mid))[0]
                        rel = w - vx
                        body.ApplyForce((0.5 * self.cw * RHO_AIR * H * abs(rel) * rel, 0.0), (fx_c, y_mid), True)
        return total
