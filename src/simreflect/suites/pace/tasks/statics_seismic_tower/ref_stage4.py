"""Stage-4 reference: the ballasted frame on a narrower footprint, with heavier ballast.

The footprint shrinks to 3.6 m and gravity is weaker: M / b grows by a tenth and the dead weight
counts for less, so the rising foot is pulled up harder. Heavier ballast (0.55 m blocks, 176 kg)
brings the uplift back under the footing's 300 N; since the ballast also adds to the pressing
side, the slim legs keep the compression M / b + W / 2 near 85% of the pivots' strength: the
design sits in the window between uplift and crushing.
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
    legs = a_frame(api, 1.8, legs=("wood", 0.05))
    ballast(api, legs, 1.8, (0.4, 0.55))
