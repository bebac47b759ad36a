"""Stage-2 reference: a still stiffer angle loop for a weakened motor and late readings.

The motor now gives only part of its rated force, so the angle gain actually delivered is smaller
than the one commanded; 200 N/rad commanded leaves a wide margin over the 52 N/rad that the cart
and pole need, and the extra spin damping keeps the loop steady with readings 1/15 s old (a
delay short against the pole's fall time of about 1/4 s).
"""

MAX_FORCE = 40.0  # N, the rated force
K_ANGLE = 200.0  # N per rad of tilt error
K_SPIN = 45.0  # N per rad/s of pole spin
K_X = 0.05  # rad of lean per m of cart offset
K_V = 0.1  # rad of lean per m/s of cart velocity


def build(api):
    pass


def control(s):
    a, w, x, v = s["angle"], s["spin"], s["x"], s["v"]
    lean = K_X * x + K_V * v  # lean the pole towards the middle (negative = to the right)
    force = -(K_ANGLE * (a - lean) + K_SPIN * w)
    return {"force": max(-1.0, min(1.0, force / MAX_FORCE))}
