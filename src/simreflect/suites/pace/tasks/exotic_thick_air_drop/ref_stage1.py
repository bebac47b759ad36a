"""Stage-1 reference: a wider canopy for the heavier package.

At terminal speed the drag carries the whole weight: (m_package + m_canopy) g = 0.5 rho C L v^2, so
v grows as the square root of the weight per metre of face L. The 35 kg package on the 2.6 m canopy
falls at 3.8 m/s; two 3 m panels side by side (6 m of face, 0.04 m foam) bring it down at 2.6 m/s.
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
    canopy(api, x=0.0, H=api.env["drop_height"], width=6.0, lift=2.0, panels=2, t=0.04)
