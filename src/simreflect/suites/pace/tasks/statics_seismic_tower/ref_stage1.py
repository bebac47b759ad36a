"""Stage-1 reference: a pinned A-frame, two legs from the footprint to the tank.

The quake is stronger and the tank heavier: the overturning moment of the inertial forces,
sum(m a h), exceeds what the column's base weld carries in torque. Two legs pinned to the ground
1.5 m either side of the axis and to each other under the tank form a triangle with the ground:
the moment becomes a push in one leg and a pull in the other, about M / b with b the spread of
the feet, and pins carry no torque at all.
"""

def a_frame(api, half, legs=("wood", 0.2), ties=("wood", 0.1), levels=(), footing=None):
    """Two legs from x = -half and x = half up to the mount point (0, h), pinned together there.
    The feet are pinned to the ground, or, with footing = (width, height, material), to a block of
    that size resting on the ground under each foot (a deadweight footing, no ground anchor).
    Optional horizontal ties at the given heights, pinned to both legs."""
    h = api.env["height"]
    y0 = 0.0 if footing is None else footing[1]
    left = api.beam((-half, y0), (0.0, h), thickness=legs[1], material=legs[0])
    right = api.beam((half, y0), (0.0, h), thickness=legs[1], material=legs[0])
    for leg, x in ((left, -half), (right, half)):
        if footing is None:
            api.pivot(leg, api.GROUND, (x, 0.0))
        else:
            w, fh, m = footing
            block = api.block((x, fh / 2), w, fh, material=m)
            api.pivot(leg, block, (x, fh))
    api.pivot(left, right, (0.0, h))
    legs_out = (left, right)
    for y in levels:
        x = half * (1.0 - (y - y0) / (h - y0))
        tie = api.beam((-x, y), (x, y), thickness=ties[1], material=ties[0])
        api.pivot(tie, left, (-x, y))
        api.pivot(tie, right, (x, y))
    return legs_out


def ballast(api, legs, half, size, material="concrete", lift=0.1):
    """A ballast block welded onto each leg just above its foot (clear of the ground)."""
    h = api.env["height"]
    w, bh = size
    for leg, sx in zip(legs, (-1.0, 1.0)):
        y = lift + bh / 2
        x = sx * half * (1.0 - y / h)
        b = api.block((x, y), w, bh, material=material)
        api.rigid(b, leg, (x, y))


def build(api):
    a_frame(api, 1.5)
