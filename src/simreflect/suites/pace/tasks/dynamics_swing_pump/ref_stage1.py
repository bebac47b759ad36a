"""Stage-1 reference: the same rider turning at 3.05 rad/s.

Pumping by raising and lowering the centre of mass works by parametric resonance: the swing gains
energy when its length changes at twice its own frequency, 2 sqrt(g / L). The longer rope lowers
that frequency (the swing's period in the report grows from about 3.1 s to 3.9 s), so the cranks
must turn at about 2 x 2 pi / 3.9 s = 3.2 rad/s; the extra friction at the hook only slows the gain.
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
    rider(api, speed=3.05, torque=400.0)
