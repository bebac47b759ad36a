"""Stage-2 reference: the centred rotor at 2.5 rad/s.

The right lip is now at 340 degrees, only 0.31 m below the centre, where the wall is nearly
vertical, and gravity is stronger. A blade whose tip follows the arc at constant clearance lifts
each piece up that wall on its face and, moving at about 2.1 m/s at the tip, carries it over the
lip; the rotor is balanced, so stronger gravity costs its motor nothing but the debris' weight.
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
    rotor(api, hub=(0.0, 0.9), length=0.86, speed=2.5, torque=200.0)
