"""Stage-3 reference: a thicker, lower inverted-L dam under the new budget and zone.

The zone now stops at 1.8 m and the welds are weaker: a thicker wall (0.4 m) on a thinner base
spreads the bending at the wall's foot over a wider weld section (the moment the weld must carry
falls with a shorter wall and a stiffer section), and the 1.4 m heel still holds the dam in place
with the grains' weight, within the 900 kg budget.
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
    dam(api, wall_w=0.4, wall_h=1.75, x_wall=-0.5, heel=1.4, base_t=0.25)
