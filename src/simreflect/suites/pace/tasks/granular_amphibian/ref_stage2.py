"""Stage-2 reference: three driven paddle wheels of 0.35 m.

A 600 kg load rides on the chassis and the banks are muddy. Afloat the car still paddles across,
but out of the water the load must be hauled up the 15 degree far bank: about
(600 + 270) kg x 9.81 x sin 15 = 2.2 kN along the slope, while two motors of 400 N m on 0.45 m
wheels push with 1.8 kN at most. Three driven wheels of 0.35 m push with up to 3.4 kN (a smaller
wheel turns the same torque into more force), and their blades still paddle.
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
    amphibian(api, r=0.35, axles=(-0.95, 0.0, 0.95), speed=-6.0, torque=400.0)
