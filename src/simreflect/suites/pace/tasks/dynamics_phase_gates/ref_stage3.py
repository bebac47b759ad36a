"""Stage-3 reference: a 5.5 m ramp from 1.7 m.

Four gates, the first at 2.5 m, and openings of only 0.45 s: the error in each 3 m gap,
3 / v - 0.8 s, adds up over three gaps, so the ball must run close to the wave's 3.75 m/s. A 1.7 m
drop gives 3.96 m/s, slowing to 3.76 m/s by the last gate; the ramp's length times gate 1.
"""


import math


def ramp(api, top, bottom=(-0.05, 0.05), t=0.1, material="steel"):
    """A straight ramp whose running surface goes from `top` down to `bottom` (near the track at
    x = 0), welded to the frame; the ball starts at rest on it at the top."""
    (x0, y0), (x1, y1) = top, bottom
    a = math.atan2(y1 - y0, x1 - x0)
    nx, ny = -math.sin(a), math.cos(a)  # the surface's upward normal; the beam lies t/2 below
    c0, c1 = (x0 - nx * t / 2, y0 - ny * t / 2), (x1 - nx * t / 2, y1 - ny * t / 2)
    beam = api.beam(c0, c1, thickness=t, material=material)
    api.rigid(beam, api.GROUND, ((c0[0] + c1[0]) / 2, (c0[1] + c1[1]) / 2))
    L = math.hypot(x1 - x0, y1 - y0)
    ux, uy = (x1 - x0) / L, (y1 - y0) / L
    api.place("ball", (x0 + 0.3 * ux + nx * 0.26, y0 + 0.3 * uy + ny * 0.26))


def build(api):
    ramp(api, top=(-5.5, 1.7))
