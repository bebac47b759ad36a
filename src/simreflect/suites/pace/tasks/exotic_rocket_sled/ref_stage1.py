"""Stage-1 reference: thrust for the sled's present mass.

The propellant now leaves at a lower speed: every newton-second costs 2.5 times as much of it, and
the sled sheds about 150 kg on the trip. Thrust sized for the loaded sled then accelerates the
lightened one too hard (a = F / m). The mass now is known: dry mass + the propellant left (the fuel
sensor), so the thrust is commanded as m(t) x a. The braking curve is planned at 70% of the
cargo's limit so that the loop can catch up with it without passing 90%.
"""

import math

DRY = 200.0
THRUST = 2500.0
A_LIM = 0.9 * 2.5  # never command more than this (below the cargo's limit)
A_PLAN = 0.7 * 2.5  # the braking curve is planned with this, leaving a margin to catch up
V_CRUISE = 7.0
K_V = 2.0  # 1/s: correction per m/s of speed error


def build(api):
    pass


def control(s):
    mass = DRY + s["fuel"]  # the sled lightens as it burns
    d = s["dock_x"] - s["x"]
    v_curve = math.sqrt(2 * A_PLAN * abs(d))
    if v_curve < V_CRUISE:  # on the braking curve: follow it, with its deceleration fed forward
        v_ref, a_ff = math.copysign(v_curve, d), -math.copysign(A_PLAN, d)
    else:
        v_ref, a_ff = math.copysign(V_CRUISE, d), 0.0
    a_cmd = max(-A_LIM, min(A_LIM, a_ff + K_V * (v_ref - s["v"])))
    return {"throttle": max(-1.0, min(1.0, mass * a_cmd / THRUST))}
