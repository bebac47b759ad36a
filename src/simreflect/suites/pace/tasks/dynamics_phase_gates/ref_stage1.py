"""Stage-1 reference: a 4.3 m ramp from 1.1 m.

Gravity is weaker: a rolling disc leaves a ramp of drop h at v = sqrt(4 g h / 3), so the source's
ball is slower, and its time on the ramp, L sqrt(3 / (g h)), is longer: it reaches the first gate
after it has closed. A higher start restores the 3 m/s of the green wave (3 m between gates, each
1.0 s behind the last) and the ramp's length sets the arrival at gate 1 mid-opening.
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
    ramp(api, top=(-4.3, 1.1))
