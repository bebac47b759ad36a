"""Stage-3 reference: four driven paddle wheels of 0.3 m.

Motors now give at most 300 N m, the budget is 300 kg and gravity is stronger: the hill force on
the far bank grows to about (600 + 280) kg x 11 x sin 15 = 2.5 kN, and three 0.35 m wheels give at
most 2.6 kN, too little once the mud slips. Four driven 0.3 m wheels give up to 4 kN.
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
    amphibian(api, r=0.3, axles=(-0.95, -0.32, 0.32, 0.95), speed=-6.0, torque=300.0)
