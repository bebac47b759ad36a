"""Stage-4 reference: a calmer loop for late readings and a sluggish thruster.

The readings are a few control steps old and the thrust follows the throttle with a lag: the
stage-3 loop (gain 2 /s, a quick observer comparing the reading with the latest throttle)
oscillates and shakes the cargo. Here the speed loop has half the gain, the observer compares the
reading with the throttle of the last 0.4 s and averages slowly, and the last metres are taken at
a speed proportional to the distance left (0.8 /s), slow enough for the delays to settle within
the tighter 0.25 m.
"""

import math

DRY = 250.0
THRUST = 2500.0
A_MAX = 2.5
A_LIM = 0.8 * A_MAX
V_CRUISE = 5.0
K_V = 1.0
K_P = 0.8  # 1/s: the final approach slows in proportion to the distance left
OBS = 0.97  # weight of the old estimate in the observer (closer to 1: slower, calmer)
state = {"a_nat": None, "thr": [0.0] * 12}


def build(api):
    pass


def control(s):
    mass = DRY + s["fuel"]
    thr_then = sum(state["thr"][-8:]) / 8  # the thrust the (late, sluggish) reading reflects
    a_nat = s["accel"] - thr_then * THRUST / mass
    state["a_nat"] = a_nat if state["a_nat"] is None else OBS * state["a_nat"] + (1 - OBS) * a_nat
    decel = min(0.6 * A_MAX, max(0.25, -state["a_nat"]))
    d = s["dock_x"] - s["x"]
    v_brake, v_final = math.sqrt(2 * decel * abs(d)), K_P * abs(d)  # braking curve, gentle final approach
    if v_final < min(v_brake, V_CRUISE):
        v_ref = math.copysign(v_final, d)
        a_ff = -K_P * s["v"]
    elif v_brake < V_CRUISE:
        v_ref, a_ff = math.copysign(v_brake, d), -math.copysign(decel, d)
    else:
        v_ref, a_ff = math.copysign(V_CRUISE, d), 0.0
    a_cmd = max(-A_LIM, min(A_LIM, a_ff + K_V * (v_ref - s["v"])))
    thr = max(-1.0, min(1.0, mass * (a_cmd - state["a_nat"]) / THRUST))
    state["thr"] = state["thr"][1:] + [thr]
    return {"throttle": thr}
