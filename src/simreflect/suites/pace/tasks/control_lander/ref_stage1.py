"""Stage-1 reference: PI control of the descent rate instead of a gravity feed-forward.

Stronger gravity and a heavier lander make the source's hover throttle (m g / T computed for the
source) too small: it falls faster than it means to and lands hard. An integral of the
descent-rate error settles on whatever throttle balances the real weight, so no value of g or m
is needed; thrust-to-weight stays above 1 (25 kN against 15.6 kN), so the balance exists.
"""

KP_V, KI_V = 0.25, 0.35  # throttle per (m/s) and per (m/s * s) of descent-rate error
KP_X, KI_X = 0.06, 0.0  # tilt (rad) per (m/s) and per (m/s * s) of horizontal-speed error
K_ANG, K_SPIN = 2.0, 1.2  # attitude: torque per rad of error, per rad/s of spin
MAX_TILT = 0.3
DT = 0.05  # control period (s)
U0 = 0.5  # starting throttle guess; the integral finds the hover throttle

state = {"iv": 0.0, "ix": 0.0}


def build(api):
    pass


def control(s):
    dx = s["pad_x"] - s["x"]
    vx_target = max(-3.5, min(3.5, 0.3 * dx))
    ex = vx_target - s["vx"]
    state["ix"] = max(-5.0, min(5.0, state["ix"] + ex * DT))
    tilt_target = max(-MAX_TILT, min(MAX_TILT, -(KP_X * ex + KI_X * state["ix"])))
    torque = K_ANG * (tilt_target - s["angle"]) - K_SPIN * s["spin"]
    alt = s["altitude"]
    hold = abs(dx) > 2.0 and alt < 6.0  # not over the pad yet: hold altitude
    vy_target = 0.0 if hold else -max(0.8, min(5.0, 0.3 * alt))
    ev = vy_target - s["vy"]
    state["iv"] = max(-2.0, min(2.0, state["iv"] + ev * DT))
    throttle = U0 + KP_V * ev + KI_V * state["iv"]
    if s["left_leg"] and s["right_leg"]:
        throttle = 0.0
    return {"throttle": max(0.0, min(1.0, throttle)), "torque": max(-1.0, min(1.0, torque))}
