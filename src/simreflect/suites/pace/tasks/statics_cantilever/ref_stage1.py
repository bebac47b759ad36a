"""Stage-1 reference: a pinned bracket: a top beam pinned to the rock, a strut from lower on the
face to the tip.

The heavier load further out puts a moment P L + w L^2/2 of about 19 kN m on the wall, beyond
what one weld carries in torque. A triangle of pinned members carries the same moment as a couple
of axial forces, a pull in the top beam and a push in the strut, F = M / d with d the height of
the strut's seat below the hook: 1.5 m keeps them far below the pivots' strength.
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
    bracket(api, depth=1.5)
