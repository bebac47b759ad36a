"""Stage-2 reference: steer for a point ahead of the beacon on its known track.

A cross current now sets the craft sideways and the sonar's readings are 0.3 s old. Proportional
navigation lives on the rate at which the line of sight turns, the derivative of late, coarse
readings, and it reacts too late to close the last metres. The beacon's course and speed are
known, so the craft can instead aim at the point the beacon will reach LEAD seconds later (its
sonar fix plus its velocity times LEAD): that aim point moves slowly, a 0.3 s old fix misplaces
it by a couple of metres, and closing the bearing to it on the bow absorbs the current's set. As the
range falls the lead shrinks (range / 4 m/s) and the throttle eases near the aim point, so the
beacon runs into the craft rather than past it.
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
