"""Stage-3 reference: the 25 degree, 0.13 m gap screen in wood.

The budget is 120 kg: the steel deck (about 250 kg) is too heavy, a wooden one of the same shape
weighs about 90 kg. Wood grips the grains a little more (0.6 against 0.5) and the grains bounce
more under stronger gravity, but at 25 degrees the deck still clears: the gap size, not the
material, decides which grains fall through.
"""

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
    screen(api, x0=-0.8, y0=4.4, angle=25, slat=0.2, gap=0.13, mat="wood")
