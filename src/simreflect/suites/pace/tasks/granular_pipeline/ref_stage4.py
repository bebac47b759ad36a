"""Stage-4 reference: a short, steep plank (38 degrees) that ends before the raised bin.

The bin now stands on a 1 m pedestal at x = 4.2 m: a plank that passes over it sweeps the grains
past. The chute must end above the rim (2 m) and short of the bin: from (-0.3, 5.35) at 38 degrees
(tan 38 = 0.78, well above the friction coefficient 0.63) to x = 3.3 m, 0.5 m above the rim, the
stream leaves slowly enough to drop into the bin, bouncy grains included.
"""

import math


def chute(api, angle, x0=-0.6, y0=5.3, y1=1.45, x_max=6.5, posts=(), t=0.1, back=0.5, mat="steel", pinned=False,
          post_mat=None, post_t=None):
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
        post = api.beam((x, 0.0), (x, y), thickness=post_t or t, material=post_mat or mat)
        join(post, api.GROUND, (x, 0.05))
        join(post, plank, (x, y))
    return plank


def build(api):
    chute(api, 38, x0=-0.3, y0=5.35, y1=2.1, x_max=3.3, back=0.5, posts=[1.0, 2.6], t=0.05, pinned=True,
          post_mat="wood", post_t=0.06)
