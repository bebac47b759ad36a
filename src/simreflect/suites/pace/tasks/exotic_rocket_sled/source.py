"""Source controller: a braking-curve speed profile with a mass feed-forward computed for the
loaded sled, thrust limited to what keeps the loaded sled under the cargo's limit."""

import math

MASS = 500.0  # the loaded sled: dry mass + propellant
THRUST = 2500.0
A_MAX = 3.0
A_PLAN = 0.8 * A_MAX  # the acceleration the profile plans with
V_CRUISE = 7.0
K_V = 1.5  # 1/s: correction per m/s of speed error


def build(api):
    pass


def control(s):
    d = s["dock_x"] - s["x"]
    # the fastest speed from which the sled can still stop at the mark at A_PLAN
    v_ref = math.copysign(min(V_CRUISE, math.sqrt(2 * A_PLAN * abs(d))), d) if abs(d) > 0.02 else 0.0
    a_cmd = K_V * (v_ref - s["v"])
    a_cmd = max(-A_PLAN, min(A_PLAN, a_cmd))
    throttle = MASS * a_cmd / THRUST
    return {"throttle": max(-1.0, min(1.0, throttle))}
