"""Stage-1 reference: the same welded deck, in wood.

The cart is heavier and the welds weaker in torque; the dead load of a steel deck was more than
half of the bending moment at mid-span, so a deck 2.8 times lighter per metre keeps the peak
moment (w L^2/8 + P L/4) under the welds' torque limit.
"""


def build(api):
    gap = api.env["gap_width"]
    n = 6
    x0, x1 = -1.5, gap + 1.5
    seg = (x1 - x0) / n
    y = -0.125
    beams = [api.beam((x0 + i * seg, y), (x0 + (i + 1) * seg, y), thickness=0.2, material="wood") for i in range(n)]
    for i in range(1, n):
        api.rigid(beams[i - 1], beams[i], (x0 + i * seg, y))
    api.pivot(beams[0], api.GROUND, (-1.0, -0.25))
    api.pivot(beams[-1], api.GROUND, (gap + 1.0, -0.25))
