"""Stage-1 reference: an inverted-L dam whose heel reaches under the grains.

A faster, larger surge pushes the source's free-standing block along the bed: the friction that
holds a gravity dam is mu times the vertical load on its base. A base slab reaching 1.55 m upstream
under the grains carries their weight, which presses the dam onto the bed and adds a resisting
moment against tipping, without more concrete: the load itself holds the dam. A taller, thinner
wall keeps the surge from running over.
"""


def dam(api, wall_w, wall_h, x_wall, heel, base_t, material="concrete"):
    """An inverted-L gravity dam: a wall whose upstream face is at x_wall, welded at its foot to a
    base slab that reaches `heel` metres upstream, under the grains."""
    left, right = x_wall - heel, x_wall + wall_w
    base = api.block(((left + right) / 2, base_t / 2), right - left, base_t, material=material)
    wall = api.block((x_wall + wall_w / 2, base_t + (wall_h - base_t) / 2), wall_w, wall_h - base_t,
                     material=material)
    api.rigid(wall, base, (x_wall + wall_w / 2, base_t))


def build(api):
    dam(api, wall_w=0.3, wall_h=1.75, x_wall=-0.4, heel=1.55, base_t=0.3)
