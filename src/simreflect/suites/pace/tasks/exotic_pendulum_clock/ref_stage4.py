"""Stage-4 reference: the compound pendulum, lighter, swung wider.

The 38 kg stage-3 pendulum weighs more than the pivot's 350 N. The period depends on the ratios of
masses and distances, not on the mass: a thinner rod, a smaller bob and counterweight (23 kg in all)
beat the same 2 s. Lighter parts lose their swing faster to the air (drag per unit mass grows), and
6 degrees must remain: released 19 degrees from rest, it ends near 6.9. The wider swing lengthens
the period (by about amplitude^2 / 16), which the counterweight's size takes back.
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
    pendulum(api, length=0.9, bob=0.14, start_deg=-4.0, top=0.4, weight=0.133, rod_t=0.02)
