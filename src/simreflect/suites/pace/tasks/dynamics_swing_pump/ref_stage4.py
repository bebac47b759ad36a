"""Stage-4 reference: 1.05 m cranks on a 1.19 m post with 12 kg weights, at 2.7 rad/s.

The swing starts from only 6 degrees and its seat is heavier: the weights are a smaller share of
the swinging mass, so each cycle gains less, and there are more doublings to make. The longest
stroke the zone allows (cranks of 1.05 m) restores the gain per cycle; the light weights keep the
joint loads m (r omega^2 + g) well within the weaker joints.
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
    rider(api, speed=2.7, torque=150.0, arm=1.05, post=1.19, weight=(0.12, 0.2), pt=0.05)
