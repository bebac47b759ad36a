"""Stage-1 reference: an integrating (isochronous) governor.

A proportional governor settles below its set speed by (extra load) / K_P: with the heavier
second machine and stiffer bearings that droop exceeds the band for as long as the machine runs.
Integrating the speed error adds whatever steady torque the load needs, so the speed returns to
the set speed; a quick integral (1000 N m per rad) recovers from the load step within a fraction
of a second.
"""

MAX_TORQUE = 400.0  # N m, rated
MAX_BRAKE = 400.0  # N m, rated
LOAD = 80.0  # N m: feed-forward of the usual load
K_P = 120.0  # N m per rad/s of speed error
K_I = 1000.0  # N m per rad of accumulated speed error
USE_BRAKE = False  # a negative demand goes to the brake
DT = 0.05  # s: the control period

state = {"i": 0.0}


def build(api):
    pass


def control(s):
    speed = s["speed"]
    e = s["set_speed"] - speed
    u = LOAD + K_P * e + K_I * state["i"]
    lo = -MAX_BRAKE if USE_BRAKE else 0.0
    if lo < u < MAX_TORQUE or (u >= MAX_TORQUE and e < 0) or (u <= lo and e > 0):
        state["i"] += e * DT  # integrate only while the actuators are not saturated
    if u >= 0:
        return {"torque": min(1.0, u / MAX_TORQUE), "brake": 0.0}
    return {"torque": 0.0, "brake": min(1.0, -u / MAX_BRAKE) if USE_BRAKE else 0.0}
