"""Stage-3 reference: let the rail do the braking.

The rail rises towards the dock: holding a speed against gravity costs propellant every second
(m g sin(slope) / u), and the sled is heavier and has less time. But the slope and the dust also
brake the sled for free. The controller measures that natural deceleration (the accelerometer
minus the thruster's share) and rides the braking curve v = sqrt(2 a_nat d) it allows: one push at
the start, then mostly coasting to the dock.
"""

import math

DRY = 250.0
THRUST = 2500.0
A_MAX = 2.5
A_LIM = 0.9 * A_MAX  # never command more than this (below the cargo's limit)
V_CRUISE = 5.0
K_V = 2.0  # 1/s: correction per m/s of speed error
state = {"a_nat": None, "thr": 0.0}


def build(api):
    pass


def control(s):
    mass = DRY + s["fuel"]
    # what the rail does to the sled by itself (slope, dust): measured minus what the thruster gave
    a_nat = s["accel"] - state["thr"] * THRUST / mass
    state["a_nat"] = a_nat if state["a_nat"] is None else 0.8 * state["a_nat"] + 0.2 * a_nat
    decel = min(0.7 * A_MAX, max(0.25, -state["a_nat"]))  # brake with what the rail gives, at least 0.25
    d = s["dock_x"] - s["x"]
    v_curve = math.sqrt(2 * decel * abs(d))
    if v_curve < V_CRUISE:
        v_ref, a_ff = math.copysign(v_curve, d), -math.copysign(decel, d)
    else:
        v_ref, a_ff = math.copysign(V_CRUISE, d), 0.0
    a_cmd = max(-A_LIM, min(A_LIM, a_ff + K_V * (v_ref - s["v"])))
    thr = max(-1.0, min(1.0, mass * (a_cmd - state["a_nat"]) / THRUST))
    state["thr"] = thr
    return {"throttle": thr}
