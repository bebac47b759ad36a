"""Stage-3 reference: the PI lander with a slow, lightly damped attitude loop.

The readings now arrive 0.15 s late. A stiff attitude loop (about 7 rad/s) loses most of its
phase margin to such a delay and oscillates past the tilt limit; an attitude loop around 2.5
rad/s, with little rate feedback, loses only about 20 degrees of phase and stays stable, while
the faster initial drift and narrower pad are handled by the horizontal PI.
"""

KP_V, KI_V = 0.25, 0.35  # throttle per (m/s) and per (m/s * s) of descent-rate error
KP_X, KI_X = 0.06, 0.02  # tilt (rad) per (m/s) and per (m/s * s) of horizontal-speed error
K_ANG, K_SPIN = 0.3, 0.2  # attitude: torque per rad of error, per rad/s of spin
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
