"""Source design: a body on two three-legged rotating leg sets (whegs), legs 0.45 m long."""

import math


def leg_set(api, body, x, y, r, n, phase, speed, torque):
    legs = []
    for k in range(n):
        a = phase + 2 * math.pi * k / n
        legs.append(api.beam((x, y), (x + r * math.cos(a), y + r * math.sin(a)), thickness=0.08, material="wood"))
    for leg in legs[1:]:
        api.rigid(legs[0], leg, (x, y))
    api.pivot(body, legs[0], (x, y), motor_speed=speed, max_torque=torque)


def build(api):
    r = 0.45
    y = r
    body = api.block((0.0, y), 2.0, 0.2, material="wood")
    leg_set(api, body, -0.8, y, r, 3, -math.pi / 2, -3.0, 300.0)
    leg_set(api, body, 0.8, y, r, 3, -math.pi / 2 + math.pi / 3, -3.0, 300.0)
