"""Stage-3 reference: a strut below and a tie above, no top beam.

The zone reaches only 1 m below the hook and the budget is 250 kg: a bracket 1 m deep would need
axial forces of M / 1 m, far beyond the pivots. A tie from 2.5 m up the face to the hook, pulling,
and a strut from 1 m down, pushing, share the load with a lever of 3.5 m between their seats, so
the horizontal reactions are M / 3.5 m; two slender members are light enough for the budget and
stiff enough (axially) for the 0.1 m sag limit.
"""


def tie_and_strut(api, depth, rise, strut=("wood", 0.1), tie=("wood", 0.1)):
    """A strut from (0, -depth) and a tie from (0, rise), pinned to the face and to each other at the hook."""
    L = api.env["reach"]
    s = api.beam((0.0, -depth), (L + 0.05, 0.01 * depth), thickness=strut[1], material=strut[0])
    api.pivot(s, api.GROUND, (0.0, -depth))
    t = api.beam((0.0, rise), (L + 0.05, -0.01 * rise), thickness=tie[1], material=tie[0])
    api.pivot(t, api.GROUND, (0.0, rise))
    api.pivot(s, t, (L, 0.0))


def build(api):
    tie_and_strut(api, depth=api.env["zone_depth"], rise=2.5, strut=("wood", 0.1), tie=("wood", 0.1))
