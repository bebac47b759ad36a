"""Stage-1 reference: the car on paddle wheels: three blades across each wheel, a wooden chassis.

The river is now 1.5 m deep and flows against the crossing. The car's rubber wheels displace more
water than the car weighs: it floats, its wheels lose the bed, and a smooth rim turning in water
gives no thrust, so the current holds it at the near bank. Blades welded across each wheel (inside
its rim, so that the car still rolls on land) are paddles: the blades at the bottom of a turning
wheel sweep the water backwards and its drag pushes the car across.
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
    amphibian(api, r=0.45, axles=(-0.8, 0.8), speed=-6.0, torque=400.0)
