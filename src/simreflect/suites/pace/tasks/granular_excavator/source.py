"""Source design: a 2.4 m steel excavator arm on the frame, swung once through the pit and over the top.

The arm is pinned at x = -0.4 m, high enough (y = 2.0 m) that its bucket cuts 0.5 m below ground
level at the bottom of its arc, and driven clockwise at 1.2 rad/s with the full motor torque: from
just above the right bank down through the bed, up the far side and over the top. The bucket is a
box at the arm's end (walls 0.6 m apart, 0.7 m deep) opening in the direction of the swing: it fills
as it cuts through the bed, carries about 25 grains over the top and turns over above the bin,
where a stop ends the swing. Beams 0.08 m thick; 152 kg in all.
"""

import math


def excavator(api, px, cut, L, speed, torque, W, depth, t, material, stop_deg=-4.0, alpha_deg=-90.0):
    """An arm pinned on the frame at x = `px`, just high enough that the bucket's outer corner passes
    `cut` metres below ground level at the bottom of its arc, driven clockwise at `speed` rad/s (with
    at most `torque` N m) from its start (the bucket just above the ground, left of the bin) to a
    stop at `stop_deg`. At its end a bucket: two walls `depth` long, `W` apart (the arm's last W
    metres are its back), opening at `alpha_deg` from the arm (-90: straight ahead)."""
    py = math.hypot(L, depth) - cut  # the bucket's outer corner is the farthest point from the pivot
    pivot = (px, py)
    limit_x = api.env["bin_x"] - 0.15

    def bucket(deg):
        a = math.radians(deg)
        ex, ey = math.cos(a), math.sin(a)
        u = math.radians(deg + alpha_deg)
        ux, uy = math.cos(u), math.sin(u)
        tip = (px + L * ex, py + L * ey)
        inner = (px + (L - W) * ex, py + (L - W) * ey)
        return tip, inner, (tip[0] + depth * ux, tip[1] + depth * uy), (inner[0] + depth * ux, inner[1] + depth * uy)

    def clear(deg):  # above the ground (over the pit: above its brim, the grains lie lower), left of the bin
        return all(y >= (0.02 if x > 1.55 else -0.06) + t / 2 and x <= limit_x - t / 2 for x, y in bucket(deg))

    start = next(d for d in range(290, 360) if clear(d))  # the lowest start that clears ground and bin
    tip, inner, tip_end, inner_end = bucket(start)
    arm = api.beam(pivot, tip, thickness=t, material=material)
    outer_wall = api.beam(tip, tip_end, thickness=t, material=material)
    inner_wall = api.beam(inner, inner_end, thickness=t, material=material)
    api.rigid(arm, outer_wall, tip)
    api.rigid(arm, inner_wall, inner)
    sweep = math.radians(start - stop_deg)
    api.pivot(api.GROUND, arm, pivot, motor_speed=-speed, max_torque=torque, limits=(-sweep, 0.02))


PARAMS = dict(px=-0.4, cut=0.5, L=2.4, speed=1.2, W=0.6, depth=0.7, t=0.08, material="steel")
TORQUE = 4000.0  # what the motor is given, capped by the limit


def build(api):
    excavator(api, torque=min(TORQUE, api.env["max_motor_torque"]), **PARAMS)
