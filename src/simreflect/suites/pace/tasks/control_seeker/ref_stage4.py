"""Stage-4 reference: the lead-point seeker: get ahead of the beacon and let it come.

The heavier craft with a weaker propeller tops out near 4.25 m/s, far below the beacon's 6 m/s:
it can never catch the beacon from behind, only meet it ahead. Aiming 3 s ahead of the beacon on
its track (the lead shrinking to range / 2 m/s, soon enough for the nearer track too) takes the craft onto the track with time to spare;
easing the throttle as it nears the aim point lets the beacon come to it, so the capture happens
at about 4 m/s relative speed (the limit is now 7 m/s), the beacon passing within 0.9 m of the
craft and staying inside the smaller 2 m radius for longer than the 0.5 s a capture takes.
"""

import math

K_TURN = 2.0  # rudder command per rad of heading error
K_SPIN = 1.5  # rudder command per rad/s of spin
LEAD = 3.0  # s: how far ahead along its track the craft aims, at long range
CLOSING = 2.0  # m/s: at shorter range the lead shrinks to range / CLOSING (on both tracks)
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
