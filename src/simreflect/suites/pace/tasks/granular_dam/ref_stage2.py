"""Stage-2 reference: the same inverted-L dam, raised to 1.95 m.

Denser grains that slide more freely over one another press harder on the wall and run higher up
it; the longer grain column on the heel still supplies the friction, and the extra height keeps
the run-up from spilling over.
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
    dam(api, wall_w=0.3, wall_h=1.95, x_wall=-0.4, heel=1.55, base_t=0.3)
