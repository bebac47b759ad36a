"""Stage-3 reference: a cascade with an integral of the cart's offset and a look-ahead.

A steady wind pushes the cart: with the pole upright the motor must push back steadily, and a
proportional position loop only does that with the cart held off-centre (offset = wind / (K_ANGLE
x K_X) x 1/motor share, about half a metre for the stage-2 gains). Integrating the offset leans the
pole until the motor's mean push cancels the wind with the cart at x = 0. The rail's dry friction
makes an integrating loop hunt (stick, build up, lurch) unless the position loop is soft and well
damped: a lean of 0.03 rad per m of offset and 0.1 rad per m/s of velocity; the angle loop (200
N/rad, far above the 52 N/rad the cart and pole need even at part of the rated force) holds the
pole. Extrapolating the late readings by their age (2 control steps) keeps the phase.
"""

MAX_FORCE = 40.0  # N, the rated force
K_ANGLE = 200.0  # N per rad of tilt error
K_SPIN = 40.0  # N per rad/s of pole spin
K_X = 0.03  # rad of lean per m of cart offset
K_V = 0.1  # rad of lean per m/s of cart velocity
K_I = 0.01  # rad of lean per m s of integrated offset
AHEAD = 1.0 / 15.0  # s: the readings' age
DT = 1.0 / 30.0  # s: the control period

state = {"ix": 0.0}


def build(api):
    pass


def control(s):
    a, w, x, v = s["angle"], s["spin"], s["x"], s["v"]
    a, x = a + w * AHEAD, x + v * AHEAD  # where the pole and cart are now
    state["ix"] = max(-2.0, min(2.0, state["ix"] + x * DT))
    lean = K_X * x + K_V * v + K_I * state["ix"]  # lean the pole towards the middle (negative = to the right)
    force = -(K_ANGLE * (a - lean) + K_SPIN * w)
    return {"force": max(-1.0, min(1.0, force / MAX_FORCE))}
