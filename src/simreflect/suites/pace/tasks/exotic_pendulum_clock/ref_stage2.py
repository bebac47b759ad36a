"""Stage-2 reference: a much longer pendulum.

The field now comes from an attractor 15 m below the pivot: it grows towards it (1/r^2) and its
lines converge, which both steepen the restoring force. For a bob at L below the pivot
T^2 = 4 pi^2 L (R - L)^3 / (g R^3): the 1.3 m pendulum beats 1.77 s, and 2 s takes about 1.9 m,
far more than the stronger field at the bob alone suggests. The case is just deep enough.
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
    pendulum(api, length=1.9, bob=0.15, start_deg=10.0)
