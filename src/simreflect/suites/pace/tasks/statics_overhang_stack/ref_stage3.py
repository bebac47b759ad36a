"""Stage-3 reference: the light lever with its upper counterweight laid flat.

A breeze pushes every block outward in proportion to its frontal height, gravity is weaker and
the stack must hold for 6 s: the narrow upright counterweight on the upper plank (0.1 x 0.2 m)
creeps outward until the plank tips. The push per unit weight is wind / (rho w g): the same mass
laid flat (0.2 m wide, 0.1 m tall) takes half of it, and a slightly heavier lower counterweight
keeps the whole stack's centre of mass well behind the table edge.
"""

DENSITY = {"wood": 180.0, "steel": 500.0, "concrete": 800.0}
TOP = 1.0


def two_tier(api, reach, lower=(1.0, 0.1), lower_right=0.5, upper=(1.0, 0.1), cw_lower=(0.3, 0.3, "concrete"),
             cw_upper=(0.2, 0.2, "concrete"), wood="wood"):
    """A lower plank on the table reaching lower_right past the edge, held down by a counterweight
    on its back end; an upper plank resting on the lower one's front part
    and reaching `reach`, held down by a counterweight on its own back end."""
    L1, t1 = lower
    L2, t2 = upper
    x1 = lower_right - L1 / 2
    api.block((x1, TOP + t1 / 2), L1, t1, material=wood)
    w, h, m = cw_lower
    api.block((lower_right - L1 + w / 2, TOP + t1 + h / 2), w, h, material=m)
    x2 = reach - L2 / 2
    api.block((x2, TOP + t1 + t2 / 2), L2, t2, material=wood)
    w2, h2, m2 = cw_upper
    api.block((reach - L2 + w2 / 2, TOP + t1 + t2 + h2 / 2), w2, h2, material=m2)



def build(api):
    two_tier(api, 1.23, lower=(1.0, 0.05), upper=(1.0, 0.05), lower_right=0.54, cw_lower=(0.2, 0.3, "concrete"),
             cw_upper=(0.2, 0.1, "concrete"))
