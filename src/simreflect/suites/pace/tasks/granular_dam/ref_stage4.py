"""Stage-4 reference: a long-heeled inverted-L dam for the finer, heavier-falling grains.

Smaller grains (the same total volume in more grains) pack into a denser mass; stronger gravity
raises both the pressure on the wall and the weight on the heel. A 1.55 m heel under a 0.3 m wall
turns the extra weight into friction on the bed, and the wall's height stops the run-up of the
finer grains within the tighter allowance.
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
