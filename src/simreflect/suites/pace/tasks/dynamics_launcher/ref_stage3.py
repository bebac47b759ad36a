"""Stage-3 reference: a high pivot and an 85 degree swing from below, released steeply.

The wall (3 m high at x = 4 m) needs a lob: the ball must leave at about 55 degrees from well above
the ground. The weaker motor cannot spin the arm up in a short swing, so the arm starts pointing
down and back and swings through 85 degrees: the motor's work tau * theta, not its torque alone,
sets the release speed. The headwind shortens the flight a little; the steep, fast lob still
reaches the basket.
"""

import math


def launcher(api, pivot, L, speed, torque, start_deg, sweep_deg, t):
    """An arm pinned to the frame at `pivot`, pointing at `start_deg`, driven clockwise until a stop
    `sweep_deg` later; the ball rides on the arm's leading face against a lip at the tip."""
    px, py = pivot
    a = math.radians(start_deg)
    tip = (px + L * math.cos(a), py + L * math.sin(a))
    arm = api.beam(pivot, tip, thickness=t, material="wood")
    nx, ny = math.sin(a), -math.cos(a)  # the leading face's normal (clockwise swing)
    lip = api.beam(tip, (tip[0] + 0.3 * nx, tip[1] + 0.3 * ny), thickness=0.06, material="wood")
    api.rigid(arm, lip, tip)
    api.pivot(api.GROUND, arm, pivot, motor_speed=speed, max_torque=torque,
              limits=(-math.radians(sweep_deg), 0.02))
    d = L - 0.25
    api.place("ball", (px + d * math.cos(a) + nx * (t / 2 + 0.205), py + d * math.sin(a) + ny * (t / 2 + 0.205)))


def build(api):
    launcher(api, pivot=(-0.5, 2.2), L=2.0, speed=-7.5, torque=2000.0, start_deg=230.0, sweep_deg=85.0, t=0.1)
