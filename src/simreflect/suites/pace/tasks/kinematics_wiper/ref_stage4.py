"""Stage-4 reference: the four-bladed light rotor of stage 3, turned 10 degrees and a little faster.

A draught pushes the debris back towards the left, the debris starts further up the left side
(from 240 degrees), there are 3.6 s and joints take at most 1500 N. With four blades a piece
blown back off one blade meets the next within a quarter turn (0.57 s at 2.75 rad/s), so it
clears the nine pieces in time. The debris now lies under the hub: the blades are declared 10
degrees off the vertical, in the gaps between the pieces (a blade declared inside a piece breaks
the rules). Its most loaded joint carries under half of the 1500 N.
"""

import math


def rotor(api, hub, length, speed, torque, blades=2, thickness=0.06, material="wood", tip=0.0,
          tip_material="wood", tip_thickness=0.04, phase=0.0):
    """A rotor pinned to the post at `hub`: `blades` spokes `length` long, evenly spaced from `phase`
    radians and welded at the hub, turned counter-clockwise by one motor (the lower spoke sweeps
    towards the right lip). With `tip` > 0 the outer `tip` metres of each spoke are a separate beam
    of `tip_material`: the face that meets the debris."""
    hx, hy = hub
    first = None
    for k in range(blades):
        a = phase + 2 * math.pi * k / blades
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
    rotor(api, hub=(0.0, 0.85), length=0.82, speed=2.75, torque=200.0, blades=4, thickness=0.04, material="rubber",
          tip=0.3, tip_material="wood", tip_thickness=0.04, phase=math.radians(-10))
