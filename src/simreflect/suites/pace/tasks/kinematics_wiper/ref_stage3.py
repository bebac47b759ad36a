"""Stage-3 reference: four light blades, thin rubber spokes with wooden tips.

Nine pieces, a 28 kg budget and 4 s. A two-bladed rotor drives the whole pile of seven or more
pieces up the near-vertical wall at once: the pile wedges between blade and wall and the rotor
stalls with nothing over the lip. Four blades at 90 degrees, turning at 2 rad/s, meet the debris
every quarter turn, so no blade has to lift the whole pile; thin rubber spokes (60 kg/m^2) with
0.4 m wooden tips keep the rotor at 16 kg. The tips are wood, not rubber: rubber grips the pieces so hard that they ride
round on the blade instead of leaving it over the lip.
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
    rotor(api, hub=(0.0, 0.9), length=0.86, speed=2.0, torque=200.0, blades=4, thickness=0.04, material="rubber",
          tip=0.4, tip_material="wood", tip_thickness=0.04)
