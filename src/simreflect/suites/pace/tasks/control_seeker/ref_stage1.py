"""Stage-1 reference: proportional navigation instead of pure pursuit.

The beacon is now faster (6 m/s) than the craft can go in the draggier water (800 N / 160 N s/m =
5 m/s): pointing at where it is leads into a tail chase that only loses ground. A slower craft can
still meet a faster beacon that crosses ahead of it, on a collision course: one on which the
line of sight to the beacon does not turn. The bow is aimed at the beacon plus G times the line
of sight's turning rate, which swings the bow ahead of the beacon until the line of sight stops
turning (the beacon's bearing then holds steady while the range closes).
"""

import math

K_TURN = 2.0  # rudder command per rad of aim error
K_SPIN = 1.5  # rudder command per rad/s of spin
G = 10.0  # s: lead per rad/s of line-of-sight rate
ALPHA = 0.5  # smoothing of the line-of-sight rate
DT = 0.05  # s: the control period

state = {"los": None, "rate": 0.0}


def build(api):
    pass


def control(s):
    los = s["heading"] + s["bearing"]  # direction of the line of sight (world frame)
    if state["los"] is not None:
        d = math.remainder(los - state["los"], 2 * math.pi) / DT
        state["rate"] += ALPHA * (d - state["rate"])
    state["los"] = los
    aim = s["bearing"] + G * state["rate"]
    turn = K_TURN * aim - K_SPIN * s["spin"]
    return {"thrust": 1.0, "turn": max(-1.0, min(1.0, turn))}
