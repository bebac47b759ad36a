"""Stage-1 reference: two sets of long, light legs that reach across the trench.

The trench is 0.8 m wide: a walker whose feet reach no further than 0.45 m from the hub steps into
it. Four legs of 0.95 m in an X (declared at 45 degrees, they fit the 1.4 m zone) span it, and in
light rubber (body 9.6 kg, legs 22.8 kg) the motors need only about (m g / 2) r sin 45 = 110 N m to
vault the walker over a foot. Rubber feet grip the less grippy ground.
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
    walker(api, hubs=(-0.8, 0.8), r=0.95, y=0.7, body_width=1.6, speed=-1.5, torque=200.0)
