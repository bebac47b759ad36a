"""Stage-1 reference: the same car on 0.7 m wheels with full motor torque.

A wheel can only roll up a step well below its radius: the contact at the curb's edge pushes
back along the line to the axle, at an angle arccos((r - h) / r) from vertical, and the rear
wheel's traction must overcome that push. With h = 0.45 m the 0.45 m wheels meet the curb at axle
height and cannot climb at all; 0.7 m wheels meet it at 53 degrees, which the traction on a less
grippy ground can still manage with the full 400 N m.
"""


def build(api):
    r = 0.7
    chassis = api.block((0.0, r + 0.1), 2.0, 0.3, material="wood")
    for x in (-0.8, 0.8):
        wheel = api.wheel((x, r), r, material="rubber")
        api.pivot(chassis, wheel, (x, r), motor_speed=-5.0, max_torque=400.0)
