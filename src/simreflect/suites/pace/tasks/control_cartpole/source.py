"""Source controller: a lean-to-steer cascade with gains tuned for the source cart.

The cart is pushed under the pole in proportion to the pole's tilt and spin (a PD on the angle);
the angle it steers to leans the pole slightly towards the middle of the track, so the cart
drifts back to x = 0 as the pole settles.
"""

MAX_FORCE = 40.0  # N, the rated force
K_ANGLE = 45.0  # N per rad of tilt error
K_SPIN = 12.0  # N per rad/s of pole spin
K_X = 0.05  # rad of lean per m of cart offset
K_V = 0.1  # rad of lean per m/s of cart velocity


def build(api):
    pass


def control(s):
    lean = K_X * s["x"] + K_V * s["v"]  # lean the pole towards the middle (negative = to the right)
    force = -(K_ANGLE * (s["angle"] - lean) + K_SPIN * s["spin"])
    return {"force": max(-1.0, min(1.0, force / MAX_FORCE))}
