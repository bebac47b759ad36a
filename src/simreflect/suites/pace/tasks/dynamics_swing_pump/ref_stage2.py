"""Stage-2 reference: longer cranks (0.7 m) turning at 2.65 rad/s.

Weaker gravity lowers the swing's frequency further (its period becomes about 4.6 s), so the cranks
turn at 2 x 2 pi / 4.6 = 2.7 rad/s. At that lower frequency each cycle takes longer and the
higher target needs more cycles; longer cranks raise and lower the weights more (the fractional
change of the swing's length sets the gain per cycle), which brings the seat up in time.
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
    rider(api, speed=2.65, torque=400.0, arm=0.7, post=1.0)
