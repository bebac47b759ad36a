"""Stage-4 reference: the same lever scaled up with 1.2 m planks to reach 1.48 m.

The target moves out to 1.45 m; blocks may now be 1.2 m long, the table is more slippery and the
shaking slower. The two-tier lever scales: the lower plank reaches 0.62 m, the upper 1.48 m, and
squat concrete counterweights (50 kg and 18 kg) keep each assembly's centre of mass behind its
edge; the whole stack weighs 90 kg, and the bottom plank's friction on the table still exceeds the
shaking's and the breeze's pull.
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
    two_tier(api, 1.48, lower=(1.2, 0.05), upper=(1.2, 0.05), lower_right=0.62, cw_lower=(0.25, 0.25, "concrete"),
             cw_upper=(0.15, 0.15, "concrete"))
