"""Stage-4 reference: the four paddle wheels turned at the faster motors' 10 rad/s.

The river is wider and flows faster (against the crossing): at 6 rad/s the blades of 0.3 m wheels
move at most 1.8 m/s relative to the car, and their drag (which grows with the square of the
speed of a blade through the water) cannot hold the car against the current. Motors may now turn
at 10 rad/s: the blades sweep the water at up to 3 m/s, and the thrust beats the current's drag.
"""

import math


def amphibian(api, r, axles, speed, torque, paddles=3, paddle_t=0.08, chassis_mat="wood", chassis_w=2.0,
              chassis_h=0.3, paddle_mat="wood"):
    """A chassis on driven paddle wheels at x = axles; each wheel carries `paddles` blades (beams
    across its diameter, welded to it): on land the rims roll, in the water the blades at the
    bottom of each turning wheel push water backwards."""
    y = r
    chassis = api.block((0.0, y + 0.1), chassis_w, chassis_h, material=chassis_mat)
    for x in axles:
        wheel = api.wheel((x, y), r, material="rubber")
        api.pivot(chassis, wheel, (x, y), motor_speed=speed, max_torque=torque)
        for i in range(paddles):
            a = math.pi * i / paddles + 0.3
            dx, dy = math.cos(a) * r, math.sin(a) * r
            blade = api.beam((x - dx, y - dy), (x + dx, y + dy), thickness=paddle_t, material=paddle_mat)
            api.rigid(wheel, blade, (x, y))
    return chassis


def build(api):
    amphibian(api, r=0.3, axles=(-0.95, -0.32, 0.32, 0.95), speed=-10.0, torque=300.0)
