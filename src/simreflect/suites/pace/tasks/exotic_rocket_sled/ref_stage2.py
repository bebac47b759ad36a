"""Stage-2 reference: a slower cruise within the propellant's reach.

With 100 kg of propellant leaving at this speed the sled can change its speed by at most
u ln(m0 / m_dry) in all (16 m/s, less the swept-up dust's share); speeding up to 7 m/s and braking
from it, plus bringing 60 kg of swept-up dust to speed, takes more. A 4 m/s cruise does it with
propellant to spare.
"""

import math

DRY = 200.0
THRUST = 2500.0
A_LIM = 0.9 * 2.5  # never command more than this (below the cargo's limit)
A_PLAN = 0.7 * 2.5  # the braking curve is planned with this, leaving a margin to catch up
V_CRUISE = 4.0
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
