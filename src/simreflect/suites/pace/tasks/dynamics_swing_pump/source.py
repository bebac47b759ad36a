"""Source design: two counter-rotating steel weights on cranks at the top of a post on the seat,
turning at 3.85 rad/s. Their sideways pulls cancel; their up-and-down motion raises and lowers the
rider's centre of mass twice per swing, like a child standing up and squatting."""

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
    rider(api, speed=3.85, torque=400.0)
