"""Stage-3 reference: a compound pendulum with a counterweight above the pivot.

The case is only 1.3 m deep: a simple pendulum that short beats about 1.7 s here. A compound
pendulum beats T = 2 pi sqrt(I / (m g d)) (d: its centre of mass below the pivot); a counterweight
0.4 m above the pivot shrinks m d while adding to I, so a 0.9 m pendulum beats 2 s. The field is
tilted: the pendulum rests 15 degrees from the case's vertical, so it is declared 4 degrees from the
vertical (11 degrees from rest); the thicker air takes that down to about 5 degrees in 30 s.
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
    pendulum(api, length=0.9, bob=0.18, start_deg=4.0, top=0.4, weight=0.17)
