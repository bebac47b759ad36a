"""Stage-3 reference: a squat climber with a nearly flat arm, its wheels at full speed.

The zone is only 0.6 m high and the budget 20 kg: the body shrinks to 0.3 m, and an arm across
the 1.6 m chimney may drop only about 0.25 m, so it slopes 10 degrees (tan 10 = 0.18 wedges it
firmly). At 6 rad/s the 0.08 m wheels climb at 0.48 m/s, the 4 m in under 8 s.
"""

import math


def climber(api, width, alpha=math.radians(30), r=0.12, body_h=0.6, body_w=0.2, y0=0.15, speed=4.0, torque=150.0,
            body_mat="wood", arm_mat="rubber", th=0.05, k=3000.0, preload=0.05, damping=100.0, stop=math.radians(10),
            arm_wheels=1):
    """An upright body whose two driven wheels (top and bottom) roll on the left wall, and an arm
    pinned to the body's right side that slopes down at `alpha` to a driven wheel on the right
    wall. A compressed spring from the body's lower right corner to the arm's middle pushes that
    wheel into the wall; a limit stops the arm `stop` radians short of horizontal. The upward
    traction on the sloping arm presses its wheel harder (N = F / tan(alpha)): the arm wedges
    itself when mu > tan(alpha), and the spring's preload must make up the rest when it does not."""
    xl = -width / 2 + r
    bx = xl + body_w / 2
    yb, yt = y0 + r, y0 + r + body_h
    b = api.block((bx, (yb + yt) / 2), body_w, body_h, material=body_mat)
    for y in (yb, yt):
        w = api.wheel((xl, y), r, material="rubber")
        api.pivot(b, w, (xl, y), motor_speed=speed, max_torque=torque)  # left wall: counter-clockwise climbs
    root = (bx + body_w / 2, yt - 0.05)
    span = width / 2 - r - root[0]
    end = (width / 2 - r, root[1] - span * math.tan(alpha))
    arm = api.beam(root, end, thickness=th, material=arm_mat)
    api.pivot(b, arm, root, limits=(-1.0, alpha - stop))
    mid = ((root[0] + end[0]) / 2, (root[1] + end[1]) / 2)
    base = (bx + body_w / 2, yb + 0.05)
    api.spring(b, arm, base, mid, stiffness=k, damping=damping, rest_length=math.dist(base, mid) + preload)
    w = api.wheel(end, r, material="rubber")
    api.pivot(arm, w, end, motor_speed=-speed, max_torque=torque)  # right wall: clockwise climbs


def build(api):
    climber(api, width=1.6, alpha=math.radians(10), stop=math.radians(4), r=0.08, body_h=0.3, y0=0.05,
            speed=6.0, torque=15.0, body_mat="rubber")
