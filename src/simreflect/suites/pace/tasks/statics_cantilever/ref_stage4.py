"""Stage-4 reference: the tie-and-strut bracket seated at the edges of a 2 m-high zone, slender members.

The zone now reaches only 2 m above the hook, so the lever between the seats drops from 3.5 m to
2.8 m and the axial forces M / lever grow by a quarter; gusts push the hung load away from the
rock, adding a swinging outward pull on the tie. The dead load of the members is a third of the
moment: slender members (0.06 m) seated at the very top and bottom of the zone keep the most
loaded pivot near 83% of its strength through the gusting hold time.
"""


def tie_and_strut(api, depth, rise, t=0.06, material="wood"):
    """A strut from (0, -depth) and a tie from (0, rise), pinned to the face and to each other at the hook."""
    L = api.env["reach"]
    s = api.beam((0.0, -depth), (L + 0.05, 0.01 * depth), thickness=t, material=material)
    api.pivot(s, api.GROUND, (0.0, -depth))
    tie = api.beam((0.0, rise), (L + 0.05, -0.01 * rise), thickness=t, material=material)
    api.pivot(tie, api.GROUND, (0.0, rise))
    api.pivot(s, tie, (L, 0.0))


def build(api):
    tie_and_strut(api, depth=api.env["zone_depth"] - 0.1, rise=api.env["zone_height"] - 0.1, t=0.06)
