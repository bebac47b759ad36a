"""Source design: an inclined screen of steel slats 0.3 m long with 0.22 m gaps, at 20 degrees (a grizzly): small grains drop
through the gaps into the fines bin, large ones roll down the slats into the reject bin. A
backstop at the upper end keeps bouncing grains on the screen."""

import math


def screen(api, x0, y0, angle, slat, gap, x_end=4.4, lip=0.8, back=0.6, t=0.08, mat="steel"):
    """Slats of length `slat` along a line from (x0, y0) falling at `angle` degrees, `gap`
    metres apart (measured along the line), each welded to the ground at its middle, then a
    solid lip of length `lip` reaching x_end (it carries the large grains over the bin wall), and
    a backstop of height `back` at the upper end."""
    c, s = math.cos(math.radians(angle)), -math.sin(math.radians(angle))
    total = (x_end - x0) / c
    n = int((total - lip) / (slat + gap))
    d = 0.0
    for i in range(n + 1):
        length = slat if i < n else total - d
        a = (x0 + c * d, y0 + s * d)
        b = (x0 + c * (d + length), y0 + s * (d + length))
        part = api.beam(a, b, thickness=t, material=mat)
        api.rigid(part, api.GROUND, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))
        if i == 0:
            stop = api.beam((x0, y0), (x0, y0 + back), thickness=t, material=mat)
            api.rigid(stop, part, (x0, y0))
        d += length + gap


def build(api):
    screen(api, x0=-0.8, y0=4.4, angle=20, slat=0.3, gap=0.22)
