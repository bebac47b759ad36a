"""Stage-3 reference: a wider canopy of thinner panels, released upwind of the moved strip.

In thinner air the 6 m canopy falls at 3.2 m/s: the face needed grows as 1/rho. Four thin (0.03 m)
foam panels, 8 m in all, carry the weight at 2.8 m/s for little more mass; the 40 m fall takes
about 14 s, the drift about 7 m, so the craft is released at x = -4 for the strip at 3.
"""

import math


def canopy(api, x, H, width, lift, panels=1, t=0.05, material="foam"):
    """The package at (x, H + 0.25); `panels` bars side by side, together `width` wide, welded end to
    end `lift` m above it; two struts (at most 3 m long) from the package up to the canopy."""
    py = H + 0.25
    api.place("package", (x, py))
    top = py + lift
    seg = width / panels
    left = x - width / 2
    bars = [api.beam((left + i * seg, top), (left + (i + 1) * seg, top), thickness=t, material=material)
            for i in range(panels)]
    for i in range(panels - 1):
        api.rigid(bars[i], bars[i + 1], (left + (i + 1) * seg, top))
    s = min(width / 2 - 0.05, math.sqrt(2.95 ** 2 - lift ** 2))  # where the struts meet the canopy
    for side in (-1, 1):
        end = (x + side * s, top)
        bar = bars[min(panels - 1, int((end[0] - left) / seg))]
        strut = api.beam((x, py), end, thickness=t, material=material)
        api.rigid(strut, bar, end)


def build(api):
    canopy(api, x=-4.0, H=api.env["drop_height"], width=8.0, lift=2.0, panels=4, t=0.03)
