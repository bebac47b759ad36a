"""Stage-1 reference: the same lean-to-steer cascade with a stiffer angle loop.

With the heavier cart and the stronger gravity, a push of K per radian of tilt only stops the pole
from falling if K exceeds (cart + pole mass) x g = 4 kg x 13 = 52 N/rad; the source's 45 N/rad is
below that, so the cart chases the falling pole. 100 N/rad (with more spin damping) catches it.
"""

MAX_FORCE = 40.0  # N, the rated force
K_ANGLE = 100.0  # N per rad of tilt error
K_SPIN = 25.0  # N per rad/s of pole spin
K_X = 0.05  # rad of lean per m of cart offset
K_V = 0.1  # rad of lean per m/s of cart velocity


def build(api):
    pass


def control(s):
    a, w, x, v = s["angle"], s["spin"], s["x"], s["v"]
    lean = K_X * x + K_V * v  # lean the pole towards the middle (negative = to the right)
    force = -(K_ANGLE * (a - lean) + K_SPIN * w)
    return {"force": max(-1.0, min(1.0, force / MAX_FORCE))}
