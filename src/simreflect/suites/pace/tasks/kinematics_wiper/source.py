"""Source design: a two-bladed rotor pinned at the trough's centre of curvature.

The trough is an arc of radius 1.2 m with its lowest point at the origin, so its centre of
curvature is at (0, 1.2) m: a spoke pinned there and 1.16 m long sweeps the whole arc 4 cm above
its surface. Two wooden spokes (balanced, so their weight costs no torque) turn at 2 rad/s and push
the debris along the arc and over the right lip.
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
    rotor(api, hub=(0.0, 1.2), length=1.16, speed=2.0, torque=200.0)
