"""Stage-1 reference: two counterweighted planks instead of a harmonic staircase.

Four equal blocks of 1 m can never reach 1.2 m (the harmonic stack's limit is L/2 (1 + 1/2 + 1/3
+ 1/4) = 1.04 m, and the best loose arrangement of four about 1.17 m), and the zone is now too low
for four 0.2 m blocks anyway. Weight placed behind a support edge lets a plank reach further than
half its length: a lower plank 0.54 m out, held by a concrete block on its back end, carries an
upper plank reaching 1.23 m, itself held by a concrete block on its back end. Each assembly's centre
of mass stays 7 cm or more behind the edge it rests on.
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
    two_tier(api, 1.23, lower=(1.0, 0.1), upper=(1.0, 0.05), lower_right=0.54, cw_lower=(0.35, 0.4, "concrete"),
             cw_upper=(0.15, 0.15, "concrete"))
