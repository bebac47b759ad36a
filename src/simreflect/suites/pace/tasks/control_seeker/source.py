"""Source controller: pure pursuit. Point the bow at the beacon and run at full thrust."""

K_TURN = 3.0  # rudder command per rad of bearing
K_SPIN = 1.5  # rudder command per rad/s of spin


def build(api):
    pass


def control(s):
    turn = K_TURN * s["bearing"] - K_SPIN * s["spin"]
    return {"thrust": 1.0, "turn": max(-1.0, min(1.0, turn))}
