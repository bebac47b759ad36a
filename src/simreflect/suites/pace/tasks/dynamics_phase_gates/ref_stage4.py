"""Stage-4 reference: a short steep ramp, 3.7 m from 1.7 m.

The ramp zone is 2 m high, the period 2.4 s and the first gate opens at 2.0 s: the ball must be at
gate 1 by about 2.5 s. The time on a ramp is L sqrt(3 / (g h)) for a given drop, so a shorter ramp
from the same height arrives sooner at the same speed (3.76 m/s): the ball reaches the track in
1.9 s and passes the gates at 2.48, 3.30, 4.12 and 4.93 s.
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
    ramp(api, top=(-3.7, 1.7))
