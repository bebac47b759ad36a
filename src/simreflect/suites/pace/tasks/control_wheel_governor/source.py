"""Source controller: a proportional governor with a feed-forward of the usual load.

Like a centrifugal governor, it opens the motor in proportion to how far the speed has fallen
below the set speed, around the torque the usual load takes (the steady machine and the bearings,
80 N m); the brake is not used. Its droop, the steady speed loss under an extra load, is that
load / K_P.
"""

MAX_TORQUE = 400.0  # N m, rated
LOAD = 80.0  # N m: the usual load at the set speed
K_P = 120.0  # N m per rad/s of speed error


def build(api):
    pass


def control(s):
    torque = LOAD + K_P * (s["set_speed"] - s["speed"])
    return {"torque": max(0.0, min(1.0, torque / MAX_TORQUE)), "brake": 0.0}
