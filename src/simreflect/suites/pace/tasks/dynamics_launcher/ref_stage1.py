"""Stage-1 reference: the same arm at 6 rad/s.

The basket is 2 m further and air drag takes speed from the ball all along its flight; the range
of a throw grows with the square of the release speed, so a 20% faster arm tip (v = omega L) makes
up for both.
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
    launcher(api, pivot=(-0.5, 1.0), L=2.0, speed=-6.0, torque=3000.0, start_deg=180.0, sweep_deg=45.0, t=0.12)
