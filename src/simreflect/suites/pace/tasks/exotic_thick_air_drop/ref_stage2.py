"""Stage-2 reference: the same canopy released upwind.

In air this thick the craft takes up the wind's speed within seconds and drifts with it all the way
down: about 5.7 m over the 11.6 s fall. Released 5.7 m upwind, it lands on the 2 m strip.
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
    canopy(api, x=-5.7, H=api.env["drop_height"], width=6.0, lift=2.0, panels=2, t=0.04)
