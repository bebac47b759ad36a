"""Source design: a straight steel in-run at 30 degrees, a short curved transition of three segments
and a lip at the zone's edge pointing 20 degrees up; the sled starts 4 m up."""

import math


def ski_ramp(api, top_y, drop_deg, lip, lip_deg, radius, n, t=0.1, material="steel"):
    """The running surface: a straight in-run descending at `drop_deg` from height `top_y`, then an
    arc of `radius` drawn as `n` straight segments that turns it up to `lip_deg` at the `lip` point.
    One welded beam per segment; the sled starts at rest at the top of the in-run."""
    xl, yl = lip
    a1, a0 = math.radians(lip_deg), -math.radians(drop_deg)
    cx, cy = xl - radius * math.sin(a1), yl + radius * math.cos(a1)  # the arc's centre

    def on_arc(a):
        return (cx + radius * math.sin(a), cy - radius * math.cos(a))

    pts = [on_arc(a0 + (a1 - a0) * k / n) for k in range(n + 1)]
    x0, y0 = pts[0]
    run = (top_y - y0) / math.tan(-a0)
    pts.insert(0, (x0 - run, top_y))
    for (xa, ya), (xb, yb) in zip(pts, pts[1:]):
        a = math.atan2(yb - ya, xb - xa)
        nx, ny = -math.sin(a), math.cos(a)  # the surface's upward normal; the centre line lies t/2 below
        c0, c1 = (xa - nx * t / 2, ya - ny * t / 2), (xb - nx * t / 2, yb - ny * t / 2)
        b = api.beam(c0, c1, thickness=t, material=material)
        api.rigid(b, api.GROUND, ((c0[0] + c1[0]) / 2, (c0[1] + c1[1]) / 2))
    (xa, ya), (xb, yb) = pts[0], pts[1]
    L = math.hypot(xb - xa, yb - ya)
    ux, uy = (xb - xa) / L, (yb - ya) / L
    api.place("sled", (xa + 0.3 * ux - uy * 0.16, ya + 0.3 * uy + ux * 0.16))
    return pts


def build(api):
    ski_ramp(api, top_y=4.5, drop_deg=35.0, lip=(-0.1, 1.5), lip_deg=25.0, radius=2.0, n=6)
