"""Source controller: gravity feed-forward plus PD on a descent profile and on attitude."""

import math

G = 9.81
MASS = 1000.0
THRUST = 25000.0


def build(api):
    pass


def control(s):
    # horizontal: tilt towards the pad, braking as it closes in
    dx = s["pad_x"] - s["x"]
    vx_target = max(-4.0, min(4.0, 0.25 * dx))
    tilt_target = max(-0.35, min(0.35, -0.12 * (vx_target - s["vx"])))
    torque = 2.0 * (tilt_target - s["angle"]) - 1.0 * s["spin"]
    # vertical: descend at a speed proportional to altitude
    vy_target = -max(1.0, min(6.0, 0.35 * s["altitude"]))
    accel = 1.5 * (vy_target - s["vy"])
    throttle = MASS * (G + accel) / (THRUST * max(0.5, math.cos(s["angle"])))
    if s["left_leg"] and s["right_leg"]:
        throttle = 0.0
    return {"throttle": max(0.0, min(1.0, throttle)), "torque": max(-1.0, min(1.0, torque))}
