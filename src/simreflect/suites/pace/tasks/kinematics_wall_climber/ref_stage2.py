"""Stage-2 reference: small wheels and a rubber body.

Motors give at most 15 N m and gravity is stronger. A wheel of radius r pushes with F = tau / r:
0.12 m wheels give 125 N each, too little to carry the wooden climber; 0.08 m wheels give 187 N,
and a rubber body (60 kg/m^2) brings the climber down to about 15 kg.
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
    climber(api, width=1.6, alpha=math.radians(20), r=0.08, speed=4.0, torque=15.0, body_mat="rubber")
