"""Stage-4 reference: four sets of 0.7 m legs under a 2.5 m body.

A steady headwind now pushes the walker back: with three leg sets the motor of the set crossing
the trench cannot both lift its share and overcome the wind, and the walker stalls there. Four
sets along the 2.5 m body (about 49 kg, within the 60 kg budget) always keep three sets on firm
ground, each motor carries a quarter of the weight and of the wind, and 3 rad/s on 0.7 m legs is
about 1.5 m/s of stride: the 11 m within 13 s. Joints are weaker, but each of the 16 welds and 4
pivots carries only a share of the 49 kg.
"""

import math


def leg_set(api, body, x, y, r, speed, torque, thickness=0.05, material="rubber"):
    """Four legs of length r in an X (at 45 degrees, so they fit a low zone), welded at the hub and
    swung by one motor on the body."""
    legs = [api.beam((x, y), (x + r * math.cos(a), y + r * math.sin(a)), thickness=thickness, material=material)
            for a in (-math.pi / 4, math.pi / 4, 3 * math.pi / 4, 5 * math.pi / 4)]
    for leg in legs[1:]:
        api.rigid(legs[0], leg, (x, y))
    api.pivot(body, legs[0], (x, y), motor_speed=speed, max_torque=torque)


def walker(api, hubs, r, y, body_width, speed, torque):
    body = api.block((0.0, y), body_width, 0.1, material="rubber")
    for x in hubs:
        leg_set(api, body, x, y, r, speed, torque)


def build(api):
    walker(api, hubs=(-1.25, -0.4167, 0.4167, 1.25), r=0.7, y=0.5, body_width=2.5, speed=-3.0, torque=200.0)
