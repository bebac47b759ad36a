"""Stage-2 reference: the 33 degree plank, pinned at its top and carried by two pinned posts.

The grains are heavier and the joints weaker. A plank welded at its top is a cantilever: the weld
carries the moment of the plank and of the grains on it, beyond 20 kN m here. Pins carry forces
but no moments: a plank pinned at its top and held up by two posts pinned at both ends is a simply
supported beam, and each joint carries only a share of the load (at most about 6 kN).
"""

import math


def chute(api, angle, x0=-0.6, y0=5.3, y1=1.45, x_max=6.5, posts=(), t=0.1, back=0.5, mat="steel", pinned=False):
    """A straight plank from (x0, y0) down at `angle` degrees to height y1 (or x_max), a
    backstop at its upper end, joined to the ground there and carried by vertical posts (welded,
    or with `pinned` pinned at both ends, so that the joints carry forces but no moments)."""
    x1 = min(x_max, x0 + (y0 - y1) / math.tan(math.radians(angle)))
    y1 = y0 - (x1 - x0) * math.tan(math.radians(angle))
    plank = api.beam((x0, y0), (x1, y1), thickness=t, material=mat)
    join = api.pivot if pinned else api.rigid
    join(plank, api.GROUND, (x0, y0))
    stop = api.beam((x0, y0), (x0, y0 + back), thickness=t, material=mat)
    api.rigid(stop, plank, (x0, y0))
    for x in posts:
        y = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        post = api.beam((x, 0.0), (x, y), thickness=t, material=mat)
        join(post, api.GROUND, (x, 0.05))
        join(post, plank, (x, y))
    return plank


def build(api):
    chute(api, 33, posts=[1.5, 4.5], t=0.07, pinned=True)
