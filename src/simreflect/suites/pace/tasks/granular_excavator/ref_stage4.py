"""Stage-4 reference: a longer arm on a higher pivot.

The bin now stands at x = 2.9 m with a 1.5 m rim: a 2.5 m arm pinned at x = -0.4 m turns its bucket
over at most 2.1 m out, short of the bin. A 3.0 m arm pinned 0.56 m higher (y = 2.66 m, a 0.42 m
cut) reaches out to 2.6 m and clears the higher rim while it turns over; beams 0.04 m thick keep it
at 32 kg, its weight moment within 2000 N m and the pivot's load at the stop (1.45 rad/s, within
the 1.6 rad/s limit) near 5500 N.
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


PARAMS = dict(px=-0.4, cut=0.42, L=3.0, speed=1.45, W=0.6, depth=0.7, t=0.04, material="wood")
TORQUE = 2000.0  # what the motor is given, capped by the limit


def build(api):
    excavator(api, torque=min(TORQUE, api.env["max_motor_torque"]), **PARAMS)
