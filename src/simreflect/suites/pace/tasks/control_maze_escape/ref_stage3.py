"""Stage-3 reference: a calibrated right range finder, gentle stops and a stiff speed hold.

The right range finder reads long; in the start cell both side walls are 0.95 m away, so the
difference of the two side readings there is its offset, subtracted ever after (otherwise a wall
on the right reads like an opening and the robot turns into it). The floor slopes, so while the
robot turns in place a stiffer speed hold (3 per m/s) keeps it from rolling, and stops planned at
0.5 m/s^2 at up to 1 m/s stay gentle enough for the lower bump limit even downhill, where the
slope eats part of the grip.
"""

import math

CRUISE = 1.0  # m/s: top driving speed
BRAKE = 0.5  # m/s^2: planned deceleration into each stop
K_STOP = 3.0  # 1/s: near the stop the target speed falls linearly with the distance left
K_V = 3.0  # drive command per m/s of speed error
K_H, K_W = 3.0, 1.0  # turn command per rad of heading error, per rad/s of spin
K_C = 0.5  # rad of heading per m of left-right imbalance (centring)
OPEN = 1.1  # m: a side reading farther than this is an opening
WALL_AHEAD = 1.15  # m: a front reading nearer than this is the wall that ends this cell

DT = 0.05  # s: the control period
CELL = 2.0  # m
CENTRE = 0.95  # m: from a cell's centre to the face of its wall

state = {"mode": "decide", "target": 0.0, "remaining": 0.0, "bias": 0.0, "n": 0}


def build(api):
    pass


def snap(a):
    """The nearest of east, north, west, south."""
    return round(a / (math.pi / 2)) * (math.pi / 2)


def control(s):
    h = s["heading"]
    state["n"] += 1
    if state["n"] == 2:  # the start cell is a corridor (walls north and south): both sides read alike
        state["bias"] = s["right"] - s["left"]
    right = s["right"] - state["bias"]
    left, front = s["left"], s["front"]
    if state["mode"] == "decide":  # at a cell's centre: right-hand rule
        if right > OPEN:
            t = -1
        elif front > OPEN:
            t = 0
        elif left > OPEN:
            t = 1
        else:
            t = 2
        state["target"] = snap(h) + t * math.pi / 2
        state["mode"] = "turn"
    err = math.remainder(state["target"] - h, 2 * math.pi)
    drive = -K_V * s["speed"]  # hold still while turning
    if state["mode"] == "turn":
        if abs(err) < 0.05 and abs(s["spin"]) < 0.3:
            state["mode"] = "go"
            state["remaining"] = CELL
    elif state["mode"] == "go":  # one cell ahead, by odometry or by the wall in front
        state["remaining"] -= s["speed"] * DT
        if front < WALL_AHEAD:
            state["remaining"] = front - CENTRE
        rem = state["remaining"]
        v_target = math.copysign(min(CRUISE, math.sqrt(2 * BRAKE * abs(rem)), K_STOP * abs(rem)), rem)
        drive = K_V * (v_target - s["speed"])
        if left < OPEN and right < OPEN:  # keep to the middle of a corridor
            err += max(-0.15, min(0.15, K_C * (left - right)))
        if abs(rem) < 0.05 and abs(s["speed"]) < 0.15:
            state["mode"] = "decide"
    turn = K_H * err - K_W * s["spin"]
    return {"drive": max(-1.0, min(1.0, drive)), "turn": max(-1.0, min(1.0, turn))}
