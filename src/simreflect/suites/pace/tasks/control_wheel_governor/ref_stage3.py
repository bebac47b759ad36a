"""Stage-3 reference: the PI governor, with the brake taking over when the demand is negative.

From t = 15 s the lowering hoist drives the shaft harder than the machines load it, and the motor
cannot drive backwards: without a brake the flywheel runs away past its burst speed. When the
governor asks for a negative torque, the brake gives it instead (and the motor none, so the two
never fight and the brake only heats by the hoist's own power); the integral only runs while
neither actuator is saturated.
"""

MAX_TORQUE = 400.0  # N m, rated
MAX_BRAKE = 400.0  # N m, rated
LOAD = 80.0  # N m: feed-forward of the usual load
K_P = 150.0  # N m per rad/s of speed error
K_I = 300.0  # N m per rad of accumulated speed error
USE_BRAKE = True  # a negative demand goes to the brake
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
