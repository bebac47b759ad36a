"""The water force field (pace/water.py): its shortcuts give the general computation's exact
numbers, and its forces are Archimedes' and nothing for a body out of the water."""

from __future__ import annotations

import math
import random

from Box2D import b2World

from simreflect.suites.pace.water import Water, clip_by_distances, clip_half, polygon_area_centroid


def clip_general(poly, px, py, nx, ny):
    """Sutherland-Hodgman against one plane, without shortcuts (the reference)."""
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


def random_convex(rng: random.Random) -> list[tuple[float, float]]:
    n = rng.randint(3, 16)
    cx, cy, r = rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(0.05, 2.0)
    angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(n))
    return [(cx + r * math.cos(a), cy + r * math.sin(a)) for a in angles]


def test_clip_shortcuts_give_the_general_clip_exactly():
    rng = random.Random(7)
    kinds = {"whole": 0, "none": 0, "cut": 0}
    for _ in range(3000):
        poly = random_convex(rng)
        a = rng.uniform(0, 2 * math.pi)
        px, py = rng.uniform(-5, 5), rng.uniform(-5, 5)
        nx, ny = math.cos(a), math.sin(a)
        got = clip_half(poly, px, py, nx, ny)
        assert got == clip_general(poly, px, py, nx, ny)
        kinds["whole" if len(got) == len(poly) and set(got) == set(poly) else "none" if not got else "cut"] += 1
    assert min(kinds.values()) > 100, kinds  # every path was exercised
    assert clip_by_distances([], []) == []
    # a vertex exactly on the line takes the general path (the shortcut needs every vertex strictly inside)
    square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
    assert clip_half(square, 0.0, 1.0, 0.0, 1.0) == clip_general(square, 0.0, 1.0, 0.0, 1.0)


def test_calm_water_cut_equals_the_general_cut():
    rng = random.Random(3)
    water = Water(rho=1000.0, g=9.81, x_range=(-10.0, 10.0), level=0.2)
    for _ in range(2000):
        poly = random_convex(rng)
        pieces = water.submerged(poly)
        xs = [p[0] for p in poly]
        piece = clip_general(poly, (min(xs) + max(xs)) / 2, 0.2, 0.0, 1.0)
        area, cx, cy = polygon_area_centroid(piece)
        assert pieces == ([(area, cx, cy, piece)] if area > 1e-9 else [])


def floating_box(y: float, x: float = 0.0):
    world = b2World(gravity=(0, 0))
    body = world.CreateDynamicBody(position=(x, y))
    body.CreatePolygonFixture(box=(0.5, 0.5), density=1.0)
    wheel = world.CreateDynamicBody(position=(x, y))
    wheel.CreateCircleFixture(radius=0.5, density=1.0)
    return world, body, wheel


def test_archimedes_and_dry_bodies():
    water = Water(rho=1000.0, g=10.0, x_range=(-5.0, 5.0), level=0.0)
    for y, expected in ((0.0, 0.5), (-2.0, 1.0), (0.7, 0.0)):
        world, box, wheel = floating_box(y)  # the world must outlive its bodies
        assert math.isclose(water.act(box), expected, abs_tol=1e-6)
        polygon_circle = 16 * 0.5 * 0.5 * math.sin(2 * math.pi / 16) / 2  # the 16-gon a circle is cut as
        assert math.isclose(water.act(wheel), {0.5: polygon_circle / 2, 1.0: polygon_circle, 0.0: 0.0}[expected],
                            rel_tol=1e-6, abs_tol=1e-9)
    world, beside, _ = floating_box(-1.0, x=8.0)  # under the level but beside the water's x range
    assert water.act(beside) == 0.0


def test_a_submerged_body_floats_up_by_archimedes():
    """A light block held under calm water accelerates up at (rho_w/rho_b - 1) g."""
    water = Water(rho=1000.0, g=10.0, x_range=(-5.0, 5.0), level=0.0, k_lin=0.0, cd=0.0)
    world = b2World(gravity=(0, -10.0))
    body = world.CreateDynamicBody(position=(0.0, -2.0))
    body.CreatePolygonFixture(box=(0.5, 0.5), density=250.0)
    water.act(body)
    world.Step(1.0 / 60, 8, 3)
    assert math.isclose(body.linearVelocity[1] * 60, (1000.0 / 250.0 - 1.0) * 10.0, rel_tol=1e-4)
