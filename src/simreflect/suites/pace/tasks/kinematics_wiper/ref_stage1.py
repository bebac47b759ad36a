"""Stage-1 reference: the rotor moved to the narrower trough's centre of curvature.

The trough's radius is now 0.9 m, so its centre of curvature is at (0, 0.9) m. The source's 1.16 m
spokes, pivoted at (0, 1.2) m, are longer than the distance from that pivot to the walls: they
strike the trough and the rotor jams. Pinned at the new centre (the post reaches down to 0.8 m)
with 0.86 m spokes, the tips run the whole arc at a constant 4 cm.
"""

import math


def rotor(api, hub, length, speed, torque, blades=2, thickness=0.06, material="wood", tip=0.0,
          tip_material="wood", tip_thickness=0.04):
    """A rotor pinned to the post at `hub`: `blades` spokes `length` long, evenly spaced and welded at
    the hub, turned counter-clockwise by one motor (the lower spoke sweeps towards the right lip).
    With `tip` > 0 the outer `tip` metres of each spoke are a separate beam of `tip_material`: the
    face that meets the debris."""
    hx, hy = hub
    first = None
    for k in range(blades):
        a = 2 * math.pi * k / blades
        c, s = math.cos(a), math.sin(a)
        inner = length - tip if tip > 0 else length
        spoke = api.beam((hx, hy), (hx + inner * c, hy + inner * s), thickness=thickness, material=material)
        if tip > 0:
            knee = (hx + inner * c, hy + inner * s)
            end = api.beam(knee, (hx + length * c, hy + length * s), thickness=tip_thickness, material=tip_material)
            api.rigid(spoke, end, knee)
        if first is None:
            first = spoke
            api.pivot(api.GROUND, spoke, (hx, hy), motor_speed=speed, max_torque=torque)
        else:
            api.rigid(first, spoke, (hx, hy))


def build(api):
    rotor(api, hub=(0.0, 0.9), length=0.86, speed=2.0, torque=200.0)
