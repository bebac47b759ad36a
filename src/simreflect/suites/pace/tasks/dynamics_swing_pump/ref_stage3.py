"""Stage-3 reference: light (14 kg) weights on 0.9 m cranks, a slim post.

The motors give at most 150 N m and the budget is 60 kg: the source's 30 kg weights are over the
budget. What pumps is the product of the moving mass and its stroke, so lighter weights on longer
cranks (their gravity torque m g r = 88 N m stays within the motors) keep the modulation, and the
slim post saves mass for them.
"""

import math


def rider(api, speed, torque, arm=0.45, weight=(0.2, 0.3), post=0.8, phase=-90.0, pt=0.12):
    """A wooden post bolted to the seat (the first part declared is the bolted one) and two cranks
    pinned at the hub near its top, each with a steel weight at its end. Both start pointing at
    `phase` degrees from horizontal (mirrored: one to the right, one to the left) and turn in
    opposite senses at `speed` rad/s with at most `torque` N m each."""
    base = api.beam((0.0, 1.5), (0.0, 1.5 + post), thickness=pt, material="wood")
    hub = (0.0, 1.5 + post - 0.05)
    for side in (1, -1):
        a = math.radians(phase) if side == 1 else math.pi - math.radians(phase)
        tip = (hub[0] + arm * math.cos(a), hub[1] + arm * math.sin(a))
        crank = api.beam(hub, tip, thickness=0.06, material="wood")
        weight_part = api.block(tip, weight[0], weight[1], angle=a, material="steel")
        api.rigid(crank, weight_part, tip)
        api.pivot(base, crank, hub, motor_speed=side * speed, max_torque=torque)


def build(api):
    rider(api, speed=2.65, torque=150.0, arm=0.9, post=1.15, weight=(0.2, 0.14), pt=0.06)
