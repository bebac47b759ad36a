"""Stage-1 reference: the right-hand walker, braking within the floor's grip.

On the slippery floor the wheels pass on at most mu m g, so the robot can brake at only mu g
(about 1.5 m/s^2 here); the source's 5 m/s^2 plan overruns each stop by most of a metre and
strikes the wall ahead. Planning the stops at 1 m/s^2 stays inside the grip.
"""

import math

CRUISE = 2.0  # m/s: top driving speed
BRAKE = 1.0  # m/s^2: planned deceleration into each stop
K_STOP = 100.0  # 1/s: near the stop the target speed falls linearly with the distance left
K_V = 1.0  # drive command per m/s of speed error
K_H, K_W = 3.0, 1.0  # turn command per rad of heading error, per rad/s of spin
K_C = 0.5  # rad of heading per m of left-right imbalance (centring)
OPEN = 1.5  # m: a side reading farther than this is an opening
WALL_AHEAD = 2.5  # m: a front reading nearer than this is the wall that ends this cell

DT = 0.05  # s: the control period
CELL = 2.0  # m
CENTRE = 0.95  # m: from a cell's centre to the face of its wall

state = {"mode": "decide", "target": 0.0, "remaining": 0.0}


def build(api):
    pass


def snap(a):
    """The nearest of east, north, west, south."""
    return round(a / (math.pi / 2)) * (math.pi / 2)


def control(s):
    h = s["heading"]
    right = s["right"]
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
