"""Stage-1 reference: the same pendulum, longer.

A stronger field shortens the period as T = 2 pi sqrt(L_eff / g): the source beats 1.81 s. The
length that restores 2 s scales with g: 1.06 m x 12 / 9.81, about 1.3 m.
"""

import math


def pendulum(api, length, bob, start_deg, top=0.0, weight=0.0, rod_t=0.03, rod="wood", bob_material="steel"):
    """A rod through the pivot from a counterweight (a square of side `weight`, `top` m above the
    pivot; none if 0) to a square bob (side `bob`) `length` m below it, the whole declared turned by
    `start_deg` from straight down the case (counter-clockwise positive)."""
    a = math.radians(start_deg)
    ux, uy = math.sin(a), -math.cos(a)  # along the rod, downwards
    end = (length * ux, length * uy)
    start = (-top * ux, -top * uy) if top > 0 else (0.0, 0.0)
    arm = api.beam(start, end, thickness=rod_t, material=rod)
    b = api.block(end, bob, bob, angle=a, material=bob_material)
    api.rigid(arm, b, end)
    if top > 0 and weight > 0:
        w = api.block(start, weight, weight, angle=a, material=bob_material)
        api.rigid(arm, w, start)
    api.pivot(api.GROUND, arm, (0.0, 0.0))


def build(api):
    pendulum(api, length=1.315, bob=0.15, start_deg=10.0)
