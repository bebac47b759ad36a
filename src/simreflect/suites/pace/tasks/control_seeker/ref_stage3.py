"""Stage-3 reference: the lead-point seeker, unchanged, against a weaving beacon.

The beacon now swings its heading to either side of its mean course and the rudder is weak.
Aiming 4 s ahead along the mean course needs only gentle turns (the aim point drifts slowly),
which the weak rudder still makes; the weave carries the beacon only a couple of metres across
its mean track, and in the last seconds the lead shrinks to nothing, so the craft homes on where
the beacon actually is.
"""

import math

K_TURN = 2.0  # rudder command per rad of heading error
K_SPIN = 1.5  # rudder command per rad/s of spin
LEAD = 4.0  # s: how far ahead along its track the craft aims, at long range
CLOSING = 4.0  # m/s: at shorter range the lead shrinks to range / CLOSING
SLOW = 8.0  # m: full thrust until the aim point is this close, then proportionally less

state = {"vt": (0.0, 0.0)}


def build(api):
    h, v = api.env["target_heading"], api.env["target_speed"]
    state["vt"] = (v * math.cos(h), v * math.sin(h))  # the beacon's (mean) velocity


def control(s):
    los = s["heading"] + s["bearing"]
    r = s["range"]
    px, py = r * math.cos(los), r * math.sin(los)  # the beacon relative to the craft (world frame)
    lead = min(LEAD, r / CLOSING)
    ax, ay = px + state["vt"][0] * lead, py + state["vt"][1] * lead  # a point ahead of it on its track
    err = math.remainder(math.atan2(ay, ax) - s["heading"], 2 * math.pi)
    thrust = min(1.0, math.hypot(ax, ay) / SLOW)
    turn = K_TURN * err - K_SPIN * s["spin"]
    return {"thrust": thrust, "turn": max(-1.0, min(1.0, turn))}
