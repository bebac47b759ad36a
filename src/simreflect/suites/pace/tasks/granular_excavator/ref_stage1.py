"""Stage-1 reference: the same excavator in wood, a little longer.

The motor now gives at most 2000 N m and the grains are denser. The steel arm and bucket weigh on
the pivot with about 2300 N m when the arm is level (m g times the distance of each part from the
pivot), the load of grains adds about 600 N m: the source stalls below the level and sways back. In
wood (180 instead of 500 kg/m^2) a 2.5 m arm with the same bucket and the same 0.5 m cut weighs
56 kg and needs about 1500 N m at the level, within the motor's 2000 N m.
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


PARAMS = dict(px=-0.4, cut=0.5, L=2.5, speed=1.2, W=0.6, depth=0.7, t=0.08, material="wood")
TORQUE = 2000.0  # what the motor is given, capped by the limit


def build(api):
    excavator(api, torque=min(TORQUE, api.env["max_motor_torque"]), **PARAMS)
