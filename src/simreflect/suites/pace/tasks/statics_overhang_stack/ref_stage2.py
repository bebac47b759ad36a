"""Stage-2 reference: the two-tier lever with thin planks and light, compact counterweights.

The budget falls to 100 kg (the stage-1 stack weighs 157 kg) and a passing load shakes the table.
What balances a plank is the moment of the counterweight about the edge, not its mass: thin planks
(0.05 m) weigh little, so the counterweights they need shrink (40 kg and 16 kg, 74 kg in all).
Compact blocks do not tip under the shaking (their width/height ratios stay well above a/g).
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
    two_tier(api, 1.23, lower=(1.0, 0.05), upper=(1.0, 0.05), lower_right=0.52, cw_lower=(0.2, 0.25, "concrete"),
             cw_upper=(0.1, 0.2, "concrete"))
