"""Stage-2 reference: three sets of 0.7 m legs under a 2.5 m body.

The motors give at most 200 N m and gravity is stronger. A motor must lift its share of the
weight over the foot it stands on, a torque of about (m g / n) r sin 45 for n leg sets: three sets
of shorter legs (0.7 m) share the 40 kg walker, about 80 N m each, and the long body keeps two
sets on the ground while the third is over the trench.
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
    walker(api, hubs=(-1.25, 0.0, 1.25), r=0.7, y=0.5, body_width=2.5, speed=-3.0, torque=200.0)
