"""Stage-4 reference: the motor-and-brake PI governor with a quicker integral.

The motor is weaker, the band tighter, and the brake loses grip as it heats while it holds the
hoist back. The integral (400 N m per rad) keeps re-trimming the brake command as the brake fades,
and the brake, used only when the demand is negative, stays far below its temperature limit.
"""

MAX_TORQUE = 400.0  # N m, rated
MAX_BRAKE = 400.0  # N m, rated
LOAD = 80.0  # N m: feed-forward of the usual load
K_P = 150.0  # N m per rad/s of speed error
K_I = 400.0  # N m per rad of accumulated speed error
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
