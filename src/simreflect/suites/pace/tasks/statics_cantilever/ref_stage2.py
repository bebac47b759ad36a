"""Stage-2 reference: the same pinned bracket, with its strut seated 2.8 m down the face.

Stronger gravity raises every load by a fifth and the pivots are weaker (12 kN): the 1.5 m deep
bracket's axial forces M / d now exceed them. Seating the strut lower (d = 2.8 m) and thinning the
members (less dead load) brings the largest pivot force back to about 75% of its strength.
"""


def bracket(api, depth=1.5, rise=None, top=("wood", 0.2), strut=("wood", 0.2), tie=("wood", 0.15)):
    L = api.env["reach"]
    beam = api.beam((0.0, 0.0), (L + 0.1, 0.0), thickness=top[1], material=top[0])
    api.pivot(beam, api.GROUND, (0.0, 0.0))
    if depth:
        s = api.beam((0.0, -depth), (L, 0.0), thickness=strut[1], material=strut[0])
        api.pivot(s, api.GROUND, (0.0, -depth))
        api.pivot(s, beam, (L, 0.0))
    if rise:
        t = api.beam((0.0, rise), (L, 0.0), thickness=tie[1], material=tie[0])
        api.pivot(t, api.GROUND, (0.0, rise))
        api.pivot(t, beam, (L, 0.0))


def build(api):
    bracket(api, depth=2.8, top=("wood", 0.12), strut=("wood", 0.12))
