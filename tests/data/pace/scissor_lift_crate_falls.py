"""Source design: one X of 2.8 m wooden arms, opened by a motor at its cross pivot.

The arms cross at their middles; the bottom-left end is pinned to the ground, the bottom-right end
rolls on a small wheel; on top, the platform is hinged to the top-left end and rests on a roller
at the top-right end. The motor opens the X from about 10 to 36 degrees and holds it at its limit.
"""

import math


def scissor(api, n, half, y0, rise, theta_end, torque, speed=0.2733, mat="wood", th=0.05572, motors=("cross1",)):
    """n stacked X stages between x = -half and x = half, each `rise` high as declared. Arm a of
    each stage rises to the right, arm b to the left; they cross at a pivot in the middle. The
    bottom-left end is pinned to the ground, the bottom-right end runs on a roller; on top, a pad
    pinned at its centre (top-left end) and a roller (top-right end) carry the platform. Motors
    open the X: at a cross pivot or a junction pivot the relative angle of the arms is 2 theta."""
    L = math.hypot(2 * half, rise)
    th0 = math.asin(rise / L)
    open_by = 2 * (theta_end - th0)  # how far each X opens (relative angle of its arms)

    def pin(p, q, at, name):
        """p falls to the left (a b arm), q rises to the right (an a arm): opening the X turns q
        counter-clockwise relative to p."""
        if name in motors:
            return api.pivot(p, q, at, motor_speed=speed, max_torque=torque, limits=(-0.1476, open_by))
        return api.pivot(p, q, at)

    ys = [y0 + k * rise for k in range(n + 1)]
    prev = None
    for k in range(n):
        yb, yt = ys[k], ys[k + 1]
        a = api.beam((-half, yb), (half, yt), thickness=th, material=mat)
        b = api.beam((half, yb), (-half, yt), thickness=th, material=mat)
        pin(b, a, (0.0, (yb + yt) / 2), f"cross{k + 1}")
        if prev is None:
            api.pivot(api.GROUND, a, (-half, 0.03303))
            w = api.wheel((half, yb), 0.05, material="rubber")
            api.pivot(b, w, (half, yb))
        else:
            pa, pb = prev
            pin(pb, a, (-half, yb), f"left{k}")  # top-left end of the stage below, bottom of a
            pin(b, pa, (half, yb), f"right{k}")  # bottom of b, top-right end of the stage below
        prev = (a, b)
    a, b = prev
    yt = ys[-1]
    w = api.wheel((half, yt), 0.2, material="rubber")
    api.pivot(a, w, (half, yt))
    api.place("hinge", (-half, yt + 0.03591))  # the platform pinned to the top-left end of b
    return yt + 0.2


def build(api):
    top = scissor(api, n=1, half=0.35, y0=0.09102, rise=0.25, theta_end=math.radians(18), torque=4340.0, speed=0.9286,
                  motors=("cross1",))
    api.place("platform", (0.0, top + 0.02576))
