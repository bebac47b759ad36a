"""Stage-4 reference: the delay-tolerant PI lander with a slower final descent.

The engine answers the throttle with a 0.3 s lag and the allowed touchdown speed is 1.5 m/s: a
descent rate that shrinks as 0.2 x altitude down to 0.5 m/s gives the lagging engine time to
brake. Hovering longer costs fuel (the weight must be carried every second), and the smaller
tank just suffices; the weaker attitude thruster only slows the gentle tilting the slow loop asks for.
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
    vy_target = 0.0 if hold else -max(0.5, min(5.0, 0.2 * alt))
    ev = vy_target - s["vy"]
    state["iv"] = max(-2.0, min(2.0, state["iv"] + ev * DT))
    throttle = U0 + KP_V * ev + KI_V * state["iv"]
    if s["left_leg"] and s["right_leg"]:
        throttle = 0.0
    return {"throttle": max(0.0, min(1.0, throttle)), "torque": max(-1.0, min(1.0, torque))}
