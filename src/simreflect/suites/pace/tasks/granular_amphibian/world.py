"""Amphibian: a vehicle drives across flat land, down a bank into a river, across it and up the
far bank.

The river is a force field, not particles: its surface is level (y = -0.3 m), its water flows
towards -x (against the crossing) at the current's speed. Before every step each fixture of the
vehicle is clipped by the surface and its submerged part gets
  * buoyancy rho g A_sub, upward, at the centroid of the submerged area (Archimedes in 2D),
  * linear drag -rho A_sub k_lin v_rel at that centroid and form drag -0.5 Cd rho D |v_rel| v_rel
    (D: the submerged part's width across v_rel), with v_rel the velocity of the part relative to
    the water: for blocks and beams the velocity of the centroid itself (a turning paddle pushes
    water), for wheels the velocity of the wheel's centre (a smooth rim slides past the water),
  * a rotational damping of the submerged area (blocks and beams).
"""

from __future__ import annotations

import math

from Box2D import b2CircleShape, b2PolygonShape

from simreflect.suites.pace.task import PaceWorld

LEVEL = -0.3  # the water's surface
PAYLOAD_W, PAYLOAD_H = 0.5, 0.3  # the payload block bolted on the chassis
SHELF = 0.5  # depth below the surface where the banks' slopes end (steep channel walls below)
GOAL_BEYOND = 3.0  # the goal line lies this far beyond the far bank's top edge
BANK_X = 4.0  # where the near bank starts to fall
K_LIN = 0.3  # 1/s, linear drag rate of the water on a submerged area
CD = 1.0  # form drag coefficient
CW = 1.2
RHO_AIR = 1.2
CIRCLE_SEGMENTS = 16
STRIP = 0.25


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
        self.A = 0.0  # calm water
        self.k = 1.0
        self.w = 0.0
        self.level = LEVEL
        self.U = -env["current"]  # the river flows towards -x, against the crossing
        self.wind = 0.0
        self.gust = 0.0
        self.x0, self.x1 = x_range
        self.t = 0.0

    def eta(self, x):
        if not self.x0 <= x <= self.x1:
            return -1e9
        return self.level

    def slope(self, x):
        return self.A * self.k * math.cos(self.k * x - self.w * self.t)

    def velocity(self, x, y):
        return self.U, 0.0

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
            smooth = isinstance(fixture.shape, b2CircleShape)  # a wheel's rim slides past the water
            centre = body.worldCenter
            fixture_sub = mx = my = 0.0
            verts = []
            for sub, cx, cy, sub_poly in self.submerged(poly):
                fixture_sub += sub
                mx += sub * cx
                my += sub * cy
                verts += sub_poly
                body.ApplyForce((0.0, rho * g * sub), (cx, cy), True)
                v = body.GetLinearVelocityFromWorldPoint(centre if smooth else (cx, cy))
                ux, uy = self.velocity(cx, cy)
                body.ApplyForce((-rho * sub * K_LIN * (v[0] - ux), -rho * sub * K_LIN * (v[1] - uy)), (cx, cy), True)
            if fixture_sub > 1e-9:  # form drag on the whole submerged part of the fixture
                cx, cy = mx / fixture_sub, my / fixture_sub
                v = body.GetLinearVelocityFromWorldPoint(centre if smooth else (cx, cy))
                ux, uy = self.velocity(cx, cy)
                rx, ry = v[0] - ux, v[1] - uy
                sp = math.hypot(rx, ry)
                if sp > 1e-6:
                    ex, ey = -ry / sp, rx / sp  # across the flow
                    proj = [px * ex + py * ey for px, py in verts]
                    q = 0.5 * CD * rho * (max(proj) - min(proj)) * sp
                    body.ApplyForce((-q * rx, -q * ry), (cx, cy), True)
            total += fixture_sub
            if fixture_sub > 1e-9 and not smooth:
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
        L, H = env["zone_length"], env["zone_height"]
        return {"build": [[(-L / 2, 0.0), (L / 2, 0.0), (L / 2, H), (-L / 2, H)]], "anchors": []}

    @staticmethod
    def geometry(env):
        """x of: the near bank's top edge, where its slope meets the water, where the far bank's
        slope leaves the water, the far bank's top edge; and the river bed's y."""
        t = math.tan(math.radians(env["bank_slope"]))
        bed = LEVEL - env["water_depth"]
        x0 = BANK_X
        x1 = x0 + (0.0 - LEVEL) / t
        x2 = x1 + env["crossing_width"]
        x3 = x2 + (0.0 - LEVEL) / t
        return x0, x1, x2, x3, bed

    @staticmethod
    def shelf(env):
        """The banks slope down to this depth below the surface; deeper, the channel has steep
        walls down to the bed. Returns (the shelf's y, x of the near and far shelf edges)."""
        t = math.tan(math.radians(env["bank_slope"]))
        x0, x1, x2, x3, bed = World.geometry(env)
        y = LEVEL - min(SHELF, env["water_depth"])
        return y, x0 + (0.0 - y) / t, x3 - (0.0 - y) / t

    def build(self) -> None:
        env, sim = self.env, self.sim
        sim.set_gravity(0.0, -env["gravity"])
        mu = env["ground_friction"]
        x0, x1, x2, x3, bed = self.geometry(env)
        ys, xs0, xs1 = self.shelf(env)
        floor = bed - 1.0
        sim.static_box(((x0 - 12.0) / 2, -0.5), x0 + 12.0, 1.0, friction=mu)  # the near land (top y = 0)
        sim.static_polygon([(x0, 0.0), (x0, floor), (xs0, floor), (xs0, ys)], friction=mu)  # near bank
        sim.static_box(((xs0 + xs1) / 2, bed - 0.5), xs1 - xs0, 1.0, friction=mu)  # the river bed
        sim.static_polygon([(xs1, ys), (xs1, floor), (x3, floor), (x3, 0.0)], friction=mu)  # far bank
        sim.static_box((x3 + 10.0, -0.5), 20.0, 1.0, friction=mu)  # the far land
        sim.static_box((x3 + 20.5, 2.0), 1.0, 6.0, friction=mu)  # end wall
        self.goal_x = x3 + GOAL_BEYOND
        self.water = Water(env, (x0, x3))

    def place(self, design) -> None:
        self.floating = [self.sim.parts[pid] for pid in self.sim.parts]
        frame = [p for p in design.parts if p.kind != "wheel"] or list(design.parts)
        heaviest = max(frame, key=lambda p: p.mass, default=None)
        self.chassis_id = heaviest.id if heaviest is not None else ""
        self.chassis = self.sim.parts[heaviest.id] if heaviest is not None else None
        self.chassis_area = heaviest.area if heaviest is not None else 1.0
        self.chassis_sub = 0.0
        self.buoyancy = 0.0
        self.payload = None
        P = self.env["payload"]
        if P > 0 and heaviest is not None:  # a load bolted on top of the chassis, at its middle
            c, s = math.cos(heaviest.angle), math.sin(heaviest.angle)
            up = heaviest.height / 2 + PAYLOAD_H / 2
            pos = (heaviest.x - s * up, heaviest.y + c * up)
            self.payload = self.sim.dynamic_box(pos, PAYLOAD_W, PAYLOAD_H, P / (PAYLOAD_W * PAYLOAD_H), friction=0.5,
                                                angle=heaviest.angle, role="payload", name="payload", group=-1)
            self.sim.world.CreateWeldJoint(bodyA=self.chassis, bodyB=self.payload, anchor=pos, collideConnected=False)
            self.floating.append(self.payload)

    def before_step(self, step: int) -> None:
        water = self.water
        water.t = step / 60.0
        total = 0.0
        for body in self.floating:
            sub = water.act(body)
            total += sub
            if body is self.chassis:
                self.chassis_sub = sub
        self.buoyancy = water.rho * water.g * total  # N, on the vehicle and its load
