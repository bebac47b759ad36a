"""Stage-3 reference: a thin steel plank at 33 degrees from the top of the zone to just above
the bin's rim, on two thin pinned wooden posts.

The budget is 300 kg and the bin is further away. A grain keeps sliding only if the drop of the
chute over its run exceeds the effective friction coefficient (0.63): starting at the very top of
the zone (5.55 m) and ending at x = 6.4 m, 1.2 m up, gives 0.65. A 5 cm steel plank (the least
friction for the grains) and 6 cm wooden posts keep the mass at 282 kg. Weaker gravity slows the
stream but does not change the friction angle.
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
    chute(api, 33, x0=-0.3, y0=5.55, y1=1.1, x_max=6.4, back=0.35, posts=[1.5, 4.5], t=0.05, pinned=True,
          post_mat="wood", post_t=0.06)
