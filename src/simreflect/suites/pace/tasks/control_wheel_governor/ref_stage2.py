"""Stage-2 reference: a better damped PI governor for the lighter flywheel and the lagging motor.

With the lighter flywheel the integral loop's natural frequency, sqrt(K_I / J), rises (1000 / 4:
16 rad/s) while the motor now answers with a 0.15 s lag: the
stage-1 governor rings and keeps leaving the band. A slower integral (300 N m per rad: 8.7 rad/s)
and a stiffer proportional term (150 N m per rad/s, which damps it) settle each load change in
well under a second.
"""

MAX_TORQUE = 400.0  # N m, rated
MAX_BRAKE = 400.0  # N m, rated
LOAD = 80.0  # N m: feed-forward of the usual load
K_P = 150.0  # N m per rad/s of speed error
K_I = 300.0  # N m per rad of accumulated speed error
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
